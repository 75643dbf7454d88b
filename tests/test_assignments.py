"""채점기를 채점합니다: otter assign 배포판과 make grade (scripts/grade.py).

- 마스터 풀이는 만점, 손대지 않은 학생판은 0점 (채점기가 죽지 않음)
- 잘 알려진 틀린 풀이는 만점 미만이고, 피드백에 그 실수를 짚는 한국어 힌트가 있음
- 예외를 일으키는 제출, 끝나지 않는 제출(시간 제한), 테스트 셀을 지운 제출도 CSV에 행이 남음
- 학생판에는 풀이 코드의 줄도, 숨은 테스트의 줄도 없음 (표시가 아니라 줄 자체를 찾음)
- 학생판의 grader.check는 한국어로 말하고 "All test cases passed"라고 하지 않음

배포판은 make assignments와 같은 코드(scripts/build_assignments.py)로 임시 폴더에 만듭니다.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import re
from pathlib import Path

import nbformat
import pytest

from attn_lib.exercises import MISTAKES

ROOT = Path(__file__).resolve().parents[1]
MASTER = ROOT / "assignments" / "attention_hw.ipynb"
NAME = MASTER.stem

pytestmark = pytest.mark.slow


def _load(script: str):
    spec = importlib.util.spec_from_file_location(script, ROOT / "scripts" / f"{script}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def dist(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _load("build_assignments").build(MASTER, out)
    return out / NAME


# ---- 제출 만들기 -------------------------------------------------------------------------

def _define(nb, prefix: str, source: str) -> None:
    """``prefix``로 시작하는 코드 셀(학생이 채우는 셀)을 ``source``로 바꿉니다."""
    cells = [c for c in nb.cells if c.cell_type == "code" and c.source.lstrip().startswith(prefix)]
    assert len(cells) == 1, f"{prefix!r}로 시작하는 셀이 하나여야 하는데 {len(cells)}개입니다"
    cells[0].source = source


def _solution_sources(dist: Path) -> dict[str, str]:
    """풀이 노트북(autograder)에서 학생판의 각 답 셀에 해당하는 풀이 셀을 찾습니다."""
    auto = nbformat.read(dist / "autograder" / f"{NAME}.ipynb", as_version=4)
    student = nbformat.read(dist / "student" / f"{NAME}.ipynb", as_version=4)
    answers = {}
    for s_cell, a_cell in zip(student.cells, auto.cells):
        if s_cell.cell_type == "code" and s_cell.source != a_cell.source:
            answers[s_cell.source.lstrip().split("\n")[0]] = a_cell.source
    return answers


def _solved(dist: Path):
    """학생판에 마스터 풀이를 채운 노트북 (학생이 다 맞힌 제출)."""
    nb = nbformat.read(dist / "student" / f"{NAME}.ipynb", as_version=4)
    answers = _solution_sources(dist)
    for cell in nb.cells:
        first = cell.source.lstrip().split("\n")[0] if cell.cell_type == "code" else None
        if first in answers:
            cell.source = answers[first]
    return nb


ATTN_HEAD = "def attention(query, key, value, attn_mask=None):\n"
ATTN = {
    "no_scale": ATTN_HEAD + """    s = query @ key.transpose(-2, -1)
    if attn_mask is not None:
        s = s.masked_fill(~attn_mask, float("-inf"))
    dead = torch.isneginf(s.amax(dim=-1, keepdim=True))
    w = torch.softmax(s.masked_fill(dead, 0.0), dim=-1).masked_fill(dead, 0.0)
    return w @ value, w
""",
    "softmax_axis": ATTN_HEAD + """    s = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
    if attn_mask is not None:
        s = s.masked_fill(~attn_mask, float("-inf"))
    w = torch.softmax(s, dim=-2)
    return w @ value, w
""",
    "mask_inverted": ATTN_HEAD + """    s = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
    if attn_mask is not None:
        s = s.masked_fill(attn_mask, float("-inf"))
    dead = torch.isneginf(s.amax(dim=-1, keepdim=True))
    w = torch.softmax(s.masked_fill(dead, 0.0), dim=-1).masked_fill(dead, 0.0)
    return w @ value, w
""",
    "nan_rows": ATTN_HEAD + """    s = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
    if attn_mask is not None:
        s = s.masked_fill(~attn_mask, float("-inf"))
    w = torch.softmax(s, dim=-1)
    return w @ value, w
""",
}
MERGE = {
    "merge_order": "def merge_heads(x):\n    B, H, L, Dh = x.shape\n    return x.reshape(B, L, H * Dh)\n",
    "merge_view": "def merge_heads(x):\n    B, H, L, Dh = x.shape\n    return x.transpose(1, 2).view(B, L, H * Dh)\n",
}
SPLIT = "def split_heads(x, num_heads):\n    B, L, E = x.shape\n    return x.view(B, L, num_heads, E // num_heads).transpose(1, 2)\n\n\n"

# 제출 이름 -> (바꿀 셀, 기대하는 (문제, 실수) 목록)
WRONG = {
    "wrong_a": ({ATTN_HEAD: ATTN["no_scale"], "def split_heads": SPLIT + MERGE["merge_order"],
                 "def make_causal_mask": "def make_causal_mask(L):\n    return torch.ones(L, L, dtype=torch.bool).triu(1)\n"},
                [("q2_4", "no_scale"), ("q2_3", "merge_order"), ("q3_1", "mask_inverted")]),
    "wrong_b": ({ATTN_HEAD: ATTN["softmax_axis"], "def split_heads": SPLIT + MERGE["merge_view"],
                 "def make_padding_mask": "def make_padding_mask(lengths, S):\n"
                 "    return torch.arange(S)[None, :] < torch.tensor(lengths)[:, None]\n"},
                [("q2_4", "softmax_axis"), ("q2_3", "merge_view"), ("q3_2", "padding_shape")]),
    "wrong_c": ({ATTN_HEAD: ATTN["mask_inverted"],
                 "from attn_lib import padding_mask": "def cross_attention(mha, decoder_x, encoder_out, src_lengths):\n"
                 "    return mha(decoder_x, encoder_out, encoder_out)\n",
                 "def attention_weights": "def attention_weights(query, key):\n"
                 "    return torch.softmax(query @ key.transpose(-2, -1), dim=-1)\n"},
                [("q2_4", "mask_inverted"), ("q6_2", "cross_no_mask"), ("q1_2", "no_scale")]),
    "wrong_d": ({ATTN_HEAD: ATTN["nan_rows"], "def scale_for_dk": "def scale_for_dk(d_k):\n    return 1.0 / d_k\n"},
                [("q2_4", "nan_rows"), ("q4_1", "scale_dk")]),
}
# 힌트가 MISTAKES가 아니라 숨은 테스트의 한국어 메시지에 있는 틀린 답: (바꿀 셀, [(문제, 피드백에 있어야 할 말)])
# q3_3: "디코더 셀프 어텐션에는 두 마스크가 늘 필요하다"고 믿으면 오른쪽 패딩에서도 실제 토큰 행이 바뀐다고 답합니다.
WRONG_REASONING = {
    "wrong_e": ({"def combine": "def combine(causal, padding):\n    return causal & padding\n\n\n"
                 "q3_3_right = {(1, 0), (1, 1), (1, 2), (1, 3)}\n"
                 "q3_3_left = {(1, 0), (1, 1), (1, 2), (1, 3)}\n"},
                [("q3_3", "인과 마스크가 이미 실제 토큰에게서 [PAD] 키를 가립니다")]),
}
# 이름이 아니라 호출을 보는지: getattr 로 숨긴 호출은 0점(all-or-nothing), 라이브러리와 같은 이름의 자기 함수는 만점.
SNEAKY = {  # 가중치는 손으로, 출력은 getattr 로 숨긴 F.scaled_dot_product_attention (공개 테스트는 통과)
    ATTN_HEAD: "import torch.nn.functional as F\n\n\n" + ATTN["no_scale"].replace(
        "query @ key.transpose(-2, -1)", "query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])").replace(
        "    return w @ value, w\n",
        '    out = getattr(F, "scaled_dot_product_" + "attention")(query, key, value, attn_mask=attn_mask)\n'
        "    return out, w\n"),
}
OWN_NAME = {
    ATTN_HEAD: "def scaled_dot_product_attention(query, key, value, attn_mask=None):\n"
    + ATTN["no_scale"].split("\n", 1)[1].replace("query @ key.transpose(-2, -1)",
                                                 "query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])")
    + "\n\n" + ATTN_HEAD + "    return scaled_dot_product_attention(query, key, value, attn_mask)\n",
}
BUILTIN = {
    ATTN_HEAD: "from attn_lib import scaled_dot_product_attention as sdpa\n\n\n" + ATTN_HEAD
    + "    return sdpa(query, key, value, attn_mask)\n",
    "def attention_weights": "import torch.nn.functional as F\n\n\ndef attention_weights(query, key):\n"
    "    return F.scaled_dot_product_attention(query, key, torch.eye(key.shape[-2]).expand(*key.shape[:-1], -1))\n",
}


@pytest.fixture(scope="module")
def graded(dist: Path, tmp_path_factory):
    """제출 11개를 만들어 scripts/grade.py로 한 번에 채점하고 (CSV 행, 피드백 폴더)를 돌려줍니다."""
    subs = tmp_path_factory.mktemp("submissions")
    nbformat.write(nbformat.read(dist / "autograder" / f"{NAME}.ipynb", as_version=4), subs / "master.ipynb")
    nbformat.write(nbformat.read(dist / "student" / f"{NAME}.ipynb", as_version=4), subs / "untouched.ipynb")
    extra = {"builtin": (BUILTIN, []), "sneaky": (SNEAKY, []), "own_name": (OWN_NAME, [])}
    for name, (changes, _) in {**WRONG, **WRONG_REASONING, **extra}.items():
        nb = _solved(dist)
        for prefix, source in changes.items():
            _define(nb, prefix, source)
        nbformat.write(nb, subs / f"{name}.ipynb")
    nb = _solved(dist)
    nb.cells.insert(3, nbformat.v4.new_code_cell('raise RuntimeError("학생 코드의 오류")'))
    _define(nb, "def head_dim", "def head_dim(embed_dim, num_heads):\n    raise ZeroDivisionError('망가짐')\n")
    nbformat.write(nb, subs / "raises.ipynb")
    nb = _solved(dist)
    nb.cells = [c for c in nb.cells if not (c.cell_type == "code" and 'grader.check("q2_4")' in c.source)]
    nbformat.write(nb, subs / "deleted_check.ipynb")
    nb = _solved(dist)
    nb.cells.insert(3, nbformat.v4.new_code_cell("while True:\n    pass"))
    nbformat.write(nb, subs / "loops.ipynb")

    out = tmp_path_factory.mktemp("grades") / "grades.csv"
    rc = _load("grade").main([str(subs), "--autograder", str(dist / f"{NAME}-autograder.zip"),
                              "--output", str(out), "--timeout", "120", "--jobs", "2"])
    assert rc == 0
    with out.open(encoding="utf-8") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    return rows, out.with_name("grades_feedback")


def test_csv_has_a_row_per_submission(graded):
    rows, _ = graded
    assert set(rows) == {"master", "untouched", "wrong_a", "wrong_b", "wrong_c", "wrong_d", "wrong_e", "builtin",
                         "sneaky", "own_name", "raises", "deleted_check", "loops"}
    questions = [k for k in next(iter(rows.values())) if re.fullmatch(r"q\d_\d", k)]
    assert len(questions) >= 10


def test_master_gets_full_marks(graded):
    rows, _ = graded
    assert rows["master"]["status"] == "ok"
    assert float(rows["master"]["total"]) == float(rows["master"]["possible"]) > 0


def test_untouched_student_version_gets_zero(graded):
    rows, _ = graded
    assert rows["untouched"]["status"] == "ok"
    assert float(rows["untouched"]["total"]) == 0.0


def assert_lost_points_with_feedback(graded, name: str, expected: list[tuple[str, str]]) -> None:
    """제출 ``name`` 이 문항마다 만점보다 적게 받고, 그 문항의 피드백에 기대한 글이 있는지."""
    rows, feedback = graded
    row = rows[name]
    assert row["status"] == "ok"
    text = (feedback / f"{name}.txt").read_text(encoding="utf-8")
    for question, needle in expected:
        assert float(row[question]) < float(rows["master"][question]), f"{name}: {question}가 만점입니다"
        block = text.split(f"\n{question}: ", 1)[1].split("\n\nq", 1)[0]
        assert needle in block, f"{name}/{question}: 피드백에 {needle!r}가 없습니다:\n{block}"


@pytest.mark.parametrize("name", sorted(WRONG))
def test_wrong_variants_lose_points_and_get_the_targeted_hint(graded, name):
    assert_lost_points_with_feedback(graded, name, [(q, MISTAKES[m]) for q, m in WRONG[name][1]])


@pytest.mark.parametrize("name", sorted(WRONG_REASONING))
def test_wrong_reasoning_loses_points_and_the_hidden_test_explains_why(graded, name):
    assert_lost_points_with_feedback(graded, name, list(WRONG_REASONING[name][1]))


def test_calling_the_library_or_torch_gets_zero_as_the_header_says(graded):
    rows, feedback = graded
    assert float(rows["builtin"]["q2_4"]) == 0.0 < float(rows["master"]["q2_4"])
    assert float(rows["builtin"]["q1_2"]) == 0.0 < float(rows["master"]["q1_2"])
    assert "직접 구현해야 하는 문제입니다" in (feedback / "builtin.txt").read_text(encoding="utf-8")


def test_library_call_check_sees_calls_not_names(graded):
    """getattr 문자열로 닿은 F.scaled_dot_product_attention 은 잡고, 같은 이름의 학생 함수는 통과시킵니다."""
    rows, feedback = graded
    assert float(rows["sneaky"]["q2_4"]) == 0.0
    assert "F.scaled_dot_product_attention" in (feedback / "sneaky.txt").read_text(encoding="utf-8")
    assert float(rows["own_name"]["q2_4"]) == float(rows["master"]["q2_4"])
    assert float(rows["own_name"]["total"]) == float(rows["master"]["total"])


def test_raising_deleting_and_looping_submissions_are_graded(graded):
    rows, _ = graded
    assert rows["raises"]["status"] == "ok"
    assert float(rows["raises"]["q2_1"]) == 0.0 and float(rows["raises"]["q2_4"]) == float(rows["master"]["q2_4"])
    assert rows["deleted_check"]["status"] == "ok"
    assert float(rows["deleted_check"]["total"]) == float(rows["master"]["total"])
    assert rows["loops"]["status"] == "timeout" and float(rows["loops"]["total"]) == 0.0


# ---- 학생판에 새는 것이 없는지 --------------------------------------------------------------

def _master_parts():
    """마스터에서 (풀이 줄, 숨은 테스트 줄, 그 밖의 줄)을 모읍니다."""
    nb = nbformat.read(MASTER, as_version=4)
    solution, hidden, other = set(), set(), set()
    mode = None
    for cell in nb.cells:
        src = cell.source.strip()
        if cell.cell_type == "raw":
            mode = {"# BEGIN SOLUTION": "solution", "# END SOLUTION": None, "# BEGIN TESTS": "tests",
                    "# END TESTS": None}.get(src, mode)
            continue
        inside = False
        for line in cell.source.splitlines():
            stripped = line.strip()
            if stripped.startswith("# BEGIN SOLUTION"):
                inside = True
                continue
            if stripped.startswith("# END SOLUTION"):
                inside = False
                continue
            if stripped.endswith("# SOLUTION"):
                solution.add(stripped[: -len("# SOLUTION")].strip())
            elif mode == "tests" and src.startswith("# HIDDEN"):
                hidden.add(stripped)
            elif inside:
                solution.add(stripped)
            else:
                other.add(stripped)
    keep = lambda lines: {line for line in lines if len(line) >= 12 and line not in other}  # noqa: E731
    return keep(solution), keep(hidden - solution)


def _student_text(dist: Path) -> str:
    parts = [(dist / "student" / f"{NAME}.ipynb").read_text(encoding="utf-8")]
    parts += [p.read_text(encoding="utf-8") for p in sorted((dist / "student" / "tests").glob("*.py"))]
    nb = json.loads(parts[0])
    parts += ["".join(c["source"]) for c in nb["cells"]]  # JSON 이스케이프 없이도 찾도록
    return "\n".join(parts)


def test_student_version_has_no_solution_lines(dist):
    solution, _ = _master_parts()
    assert len(solution) >= 20, "풀이 줄을 너무 적게 찾았습니다 (검사가 헛돌지 않는지)"
    text = _student_text(dist)
    leaked = sorted(line for line in solution if line in text)
    assert not leaked, f"학생판에 풀이 줄이 있습니다: {leaked}"


def test_hidden_tests_are_only_in_the_autograder(dist):
    _, hidden = _master_parts()
    assert len(hidden) >= 10
    text = _student_text(dist)
    # 라이브러리는 줄 단위로 비교합니다: "return names" 같은 짧은 줄이 "return names[0] if ..." 의 앞부분과
    # 겹쳐도 숨은 테스트가 새어 나간 것은 아닙니다. (Whole-line comparison for the public library.)
    library = {line.strip() for p in (ROOT / "attn_lib").glob("*.py") for line in p.read_text(encoding="utf-8").splitlines()}
    assert not sorted(line for line in hidden if line in text), "학생판에 숨은 테스트가 있습니다"
    leaked = sorted(line for line in hidden if line in library)
    assert not leaked, f"공개 라이브러리에 숨은 테스트가 있습니다: {leaked}"
    import zipfile

    with zipfile.ZipFile(dist / f"{NAME}-autograder.zip") as zf:
        zipped = "\n".join(zf.read(n).decode("utf-8", "replace") for n in zf.namelist() if n.startswith("tests/"))
    assert "seed=41" in zipped and "check_no_library_calls" in zipped
    with zipfile.ZipFile(dist / f"{NAME}-student.zip") as zf:
        assert not any("autograder" in n or n.endswith(".zip") for n in zf.namelist())


def test_practice_page_does_not_publish_graded_solutions():
    solution, _ = _master_parts()
    page = (ROOT / "chapters" / "08_practice.ipynb").read_text(encoding="utf-8")
    page += "".join("".join(c["source"]) for c in json.loads(page)["cells"])
    assert not sorted(line for line in solution if line in page)


def _run_checks(nb, folder: Path) -> dict[str, tuple[str, list]]:
    """``nb`` 를 ``folder`` 에서 실제 커널로 실행하고, ``grader.check("qN_M")`` 셀마다 (출력 글, 오류 출력)을 모읍니다."""
    from nbclient import NotebookClient

    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(folder)}},
                   allow_errors=True).execute()
    checks = {}
    for cell in nb.cells:
        m = re.match(r'grader\.check\("(q\d_\d)"\)', cell.source.strip()) if cell.cell_type == "code" else None
        if m:
            text = "".join(o.get("data", {}).get("text/plain", "") + o.get("text", "") for o in cell.outputs)
            checks[m.group(1)] = (text, [o for o in cell.outputs if o.get("output_type") == "error"])
    return checks


def test_student_check_speaks_korean_and_never_says_all_passed(dist, tmp_path):
    """학생판 노트북을 실제 커널로 실행: 틀린 문제는 힌트, 맞은 문제는 '숨은 테스트는 제출 뒤'."""
    nb = _solved(dist)
    _define(nb, ATTN_HEAD, ATTN["no_scale"])
    work = tmp_path / "student"
    import shutil

    shutil.copytree(dist / "student", work)
    outputs = {q: text for q, (text, _) in _run_checks(nb, work).items()}
    assert len(outputs) >= 10
    assert all("All test cases passed" not in o and "passed!" not in o for o in outputs.values())
    assert MISTAKES["no_scale"] in outputs["q2_4"]
    assert "숨은 테스트는 제출한 뒤에 채점됩니다" in outputs["q2_3"]


# ---- 어디서 열든 (Colab, Binder, JupyterHub, 내 컴퓨터) ---------------------------------------------

def test_package_data_holds_the_current_public_tests(dist):
    """학생 노트북의 첫 셀이 쓰는 attn_lib 패키지 데이터가 지금 마스터의 공개 테스트와 같습니다."""
    build = _load("build_assignments")
    bundle = json.loads(build.PUBLIC_TESTS.read_text(encoding="utf-8"))
    assert bundle[NAME] == build.public_tests(dist), "make assignments 로 attn_lib/exercises/public_tests.json 을 다시 쓰세요"
    hidden_markers = ("seed=41", "check_no_library_calls", "HIDDEN")
    assert not any(m in text for text in bundle[NAME].values() for m in hidden_markers), "숨은 테스트가 패키지에 있습니다"


def test_student_notebook_alone_in_an_empty_folder_checks_itself(dist, tmp_path):
    """노트북 파일 하나만 빈 폴더에 두고 실행: 첫 셀이 ./tests 를 만들고 모든 grader.check 가 결과를 냅니다."""
    work = tmp_path / "alone"
    work.mkdir()
    nb = _solved(dist)
    _define(nb, ATTN_HEAD, ATTN["no_scale"])  # 한 문제는 틀리게
    nbformat.write(nb, work / f"{NAME}.ipynb")
    assert [p.name for p in work.iterdir()] == [f"{NAME}.ipynb"]
    checks = {}
    for question, (text, errors) in _run_checks(nb, work).items():
        assert not errors, f"{question}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
        checks[question] = text
    assert len(checks) >= 13
    assert all("공개 테스트" in text for text in checks.values()), checks
    assert MISTAKES["no_scale"] in checks["q2_4"]
    assert sorted(p.name for p in (work / "tests").glob("*.py")) == sorted(f"{q}.py" for q in checks)


def test_installing_public_tests_never_overwrites_a_test_file(tmp_path):
    """채점 폴더의 (숨은 테스트가 든) 파일을 공개 테스트로 덮어쓰면 숨은 테스트가 사라집니다."""
    from attn_lib.exercises import install_public_tests

    folder = tmp_path / "tests"
    folder.mkdir()
    (folder / "q2_4.py").write_text("# 숨은 테스트까지 든 채점용 파일\n", encoding="utf-8")
    install_public_tests(NAME, folder)
    assert (folder / "q2_4.py").read_text(encoding="utf-8") == "# 숨은 테스트까지 든 채점용 파일\n"
    assert (folder / "q1_1.py").exists()
