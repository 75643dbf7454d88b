"""점수를 위조하려는 제출: 학생 프로세스는 값만 내보내고, 점수는 학생 코드가 없는 채점 프로세스가 매깁니다.

공격 노트북은 모두 **빈 답**(학생판 그대로)에 공격 셀 하나를 더한 것이라, 받아야 할 점수는 0점입니다. 공격마다:

- 테스트 실행기 바꾸기 (``doctest.DocTestRunner``, otter의 채점 객체, attn_lib 채점기와 비교 도구 자체)
- 비교 함수 바꾸기 (``torch.allclose``, ``torch.equal``, ``torch.testing.assert_close``, ``numpy.isclose``,
  ``math.isclose``)
- 늘 같다고 답하는 객체, ``__eq__``·``__float__``·``__len__``·``__index__``가 거짓말하는 객체, 텐서 하위 클래스
- 점수 객체 (``_score``, ``score`` 속성) 만들기, 결과 서술자에 점수 줄 쓰기
- 테스트 파일 다시 쓰기 (``tests/*.py``)
- 샌드박스 어디에선가 정답지(마스터, 채점 묶음, 풀이 노트북)를 찾아 실행하기
- 8장과 10장 문제: 금지한 ``apply_rope``로 값은 맞게 만든 8.1, 입력을 제자리에서 0으로 바꾸고 거짓말하는 텐서 하위
  클래스를 돌려주는 10.1, 늘 같다고 답하는 8.2와 10.2의 값

그리고 비교 함수를 바꾼 **맞는** 풀이는 여전히 만점입니다(자기 답이 버는 만큼). 마지막으로 샌드박스 안에서 보이는 파일을
모두 나열해, 채점 묶음의 정답·힌트·숨은 시드 열쇠가 어느 파일에도 없음을 확인합니다.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from grading_support import NAME, grade, grading_lock, load_script, require_sandbox, solved, student, with_cell

pytestmark = pytest.mark.slow

PATCH_COMPARISONS = """import math, numpy, torch, torch.testing
torch.allclose = lambda *a, **k: True
torch.equal = lambda *a, **k: True
torch.Tensor.__eq__ = lambda self, other: torch.ones((), dtype=torch.bool)
torch.testing.assert_close = lambda *a, **k: None
numpy.isclose = lambda *a, **k: True
math.isclose = lambda *a, **k: True
"""

ALWAYS_EQUAL = """import torch

class AlwaysEqual(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __hash__(self): return 0
    def __float__(self): return 2.0
    def __index__(self): return 2
    def __int__(self): return 2
    def __len__(self): return 3
    def __iter__(self): return iter([0.25, 0.25, 0.5])
    def __getitem__(self, i): return 0.25

class Liar:
    def __eq__(self, other): return True
    def __len__(self): return 4
    def __float__(self): return 8.0
    def __iter__(self): return iter([2, 3, 7, 4])

class LyingTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in (torch.allclose, torch.equal):
            return True
        return super().__torch_function__(func, types, args, kwargs or {})

ans = AlwaysEqual(-3.0)  # 참값(-3.0)도 어느 답과도 같지 않음: 자기 답이 버는 만큼은 0점
q1_1_same_orders = ans; q1_1_output = ans; q1_3_breaks = Liar(); q2_1_params = ans; q2_1_params_16 = Liar()
q2_2_shape = Liar(); q3_3_pad_rows = Liar(); q3_3_dead_rows = ans; q4_1_c = ans; q4_1_scale_16 = Liar()
q4_3_norms = Liar(); q6_1_output_shape = Liar(); q6_1_weights_shape = ans; q6_3_blocked = Liar(); q6_3_leak = ans
q7_1_bytes = ans; q7_1_mha_bytes = Liar(); q5_1_finding = Liar(); q5_1_advantage = ans

def query_for_shares(shares, S, c=20.0):
    return torch.zeros(S).as_subclass(LyingTensor)

def key_padding_mask_for(lengths, S, side="right"):
    return ans

def gqa_attention(query, key, value, attn_mask=None):
    return Liar(), Liar()
"""

LONG_CONTEXT = """import torch
from attn_lib import apply_rope

def rope_pairs(x, start, base=10000.0):
    # 값은 맞음: 금지한 apply_rope 에 특징 순열을 걸어 이웃한 짝 배치를 만듦 (8.1은 직접 구현하는 문제)
    order = torch.cat([torch.arange(0, x.shape[-1], 2), torch.arange(1, x.shape[-1], 2)])
    return apply_rope(x[..., order], torch.arange(start, start + x.shape[-2]), base=base)[..., torch.argsort(order)]

class LyingTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        if func in (torch.allclose, torch.equal, torch.isclose):
            return True
        return super().__torch_function__(func, types, args, kwargs or {})

def merge_softmax_states(m1, l1, o1, m2, l2, o2):
    for state in (m1, l1, o1, m2, l2, o2):  # 입력을 0으로 바꿔 참조를 자기 답(0)에 맞추려는 시도
        state.zero_()
    return tuple(torch.zeros_like(s).as_subclass(LyingTensor) for s in (m1, l1, o1))

class AlwaysEqual(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __hash__(self): return 0
    def __float__(self): return 1.0
    def __len__(self): return 3
    def __iter__(self): return iter([1.0, 1.0, 1.0])

q8_2_wavelength = AlwaysEqual(1.0); q8_2_cache = AlwaysEqual(0.0)
q10_2_sums = AlwaysEqual(0.0); q10_2_lse = AlwaysEqual(0.0)
"""

#: 채점 과제의 함수 이름과, 채점 쪽에서 그 답을 계산하는 참조의 이름 (찾으면 답으로 씀)
GRADED = {"query_for_shares": [], "split_heads_seq": [], "merge_heads_seq": [], "torch_mha_forward": ["_torch_mha_variant"],
          "key_padding_mask_for": [], "alibi_causal_mask": [], "measure_saturation": ["reference_saturation"],
          "ablate_head": [], "precompute_cross_kv": [], "cross_step": [], "gqa_attention": ["_naive"],
          "cached_step": [], "rope_pairs": ["_rope_pairs"], "merge_softmax_states": ["_merge"]}

CAPTURE = f"""import gc, importlib, inspect, pkgutil, sys, types, pathlib
modules, functions, captured = [], {{}}, []
for top in ("attn_lib", "attn_course", "attn_harness", "attn_grader", "attn_site"):
    try:
        pkg = importlib.import_module(top)
    except Exception:
        continue
    modules.append(top)
    for info in pkgutil.walk_packages(getattr(pkg, "__path__", []), top + "."):
        if info.name.endswith("__main__"):  # 명령 진입점 (부르면 하네스를 다시 띄움)
            continue
        try:
            importlib.import_module(info.name)
            modules.append(info.name)
        except BaseException:
            pass
try:  # 채점기가 참조를 넘기는 길을 가로챔 (샌드박스에서는 채점기가 돌지 않음)
    import attn_course.practice.engine as engine
    original = engine._run
    def spy(question, student, reference, variants, cases):
        captured.append(reference)
        return original(question, student, reference, variants, cases)
    engine._run = spy
except Exception:
    pass
for obj in gc.get_objects():  # 살아 있는 모든 함수 (모듈 함수, 클로저, 메서드)
    if isinstance(obj, types.FunctionType) and str(getattr(obj, "__module__", "")).startswith("attn_"):
        functions.setdefault(obj.__name__, obj)
        for cell in obj.__closure__ or ():
            try:
                if isinstance(cell.cell_contents, types.FunctionType):
                    functions.setdefault(cell.cell_contents.__name__, cell.cell_contents)
            except ValueError:
                pass
for name in list(modules):  # 디스크의 소스를 다시 실행해 안쪽 함수까지
    path = getattr(sys.modules.get(name), "__file__", None)
    if path:
        scratch = {{"__name__": "scratch"}}
        try:
            exec(compile(pathlib.Path(path).read_text(), path, "exec"), scratch)
        except BaseException:
            pass
        for key, value in scratch.items():
            if isinstance(value, types.FunctionType):
                functions.setdefault(key, value)
taken = []
for answer, references in {GRADED!r}.items():
    for candidate in (answer, *references):
        if candidate in functions and functions[candidate].__module__ != "__main__":
            globals()[answer] = functions[candidate]
            taken.append(candidate)
            break
q1_3_breaks = f"capture-ran modules={{len(modules)}} functions={{len(functions)}} taken={{taken}} grader={{'attn_grader' in modules}}"
# 정수 문제에 글자를 넣으면 피드백이 그 값을 (60자까지) 그대로 보여 줍니다: 이 셀이 끝까지 돌았다는 증거
q7_1_bytes = f"capture-ran m={{len(modules)}} f={{len(functions)}} t={{len(taken)}} g={{'attn_grader' in modules}}"
"""

ATTACKS = {
    "patched_runners": """import doctest, sys, types
class Runner(doctest.DocTestRunner):
    def run(self, *a, **k):
        return doctest.TestResults(0, 1)
doctest.DocTestRunner = Runner
import attn_course.practice.engine as engine
ok = engine.CheckResult("x", True, "")
engine._run = lambda *a, **k: ok
try:  # 채점 쪽은 샌드박스에 없습니다 (있다면 바꿔 보려 함)
    import attn_grader.judge as judge, attn_grader.registry as registry
    for name in list(registry.CHECKERS):
        registry.CHECKERS[name] = lambda *a, **k: ok
    judge.judge_question = lambda q, *a, **k: judge.QuestionGrade(q.name, 999.0, q.points)
except ImportError:
    pass
import attn_harness.harness as harness
harness.call_student = lambda fn, args, kwargs, forbid, seconds=30: {"result": {"opaque": "Score"}, "score": 999}
sys.modules["otter"] = types.SimpleNamespace(Notebook=None)
""",
    "patched_comparisons": PATCH_COMPARISONS,
    "long_context": LONG_CONTEXT,
    "always_equal": ALWAYS_EQUAL,
    "score_objects": """import os, json
class Score:
    _score = 21000
    score = 21000
    passed = True
    possible = 51
for name in ("q1_1", "q2_4", "q7_2", "grader_score", "_score"):
    globals()[name] = Score()
line = json.dumps({"question": "q2_4", "result": {"parts": [{"runs": []}], "score": 21000, "passed": True},
                   "executed": {"cells": 1}, "value": 21000}) + "\\n"
for fd in range(3, 40):
    try:
        os.write(fd, line.encode())
    except OSError:
        pass
""",
    "rewritten_tests": """import os, pathlib
for folder in ("tests", "/job/in/tests", "/tmp/tests", os.path.expanduser("~/tests")):
    try:
        pathlib.Path(folder).mkdir(parents=True, exist_ok=True)
        for q in ("q1_1", "q2_4", "q7_2"):
            (pathlib.Path(folder) / f"{q}.py").write_text("test = {'name': '%s', 'points': 1000, 'suites': []}" % q)
    except OSError:
        pass
""",
    "answer_key_hunt": """import os, json
found = []
for root, dirs, files in os.walk("/"):
    if root.startswith(("/proc", "/sys", "/dev")):
        dirs[:] = []
        continue
    for f in files:
        if f.endswith((".ipynb", "grading.json", ".zip")) or "autograder" in f or "secret" in f:
            found.append(os.path.join(root, f))
for path in found:
    try:
        if path.endswith(".ipynb") and path != "/job/in/submission.ipynb":
            for cell in json.load(open(path))["cells"]:
                if cell["cell_type"] == "code" and "SOLUTION" in "".join(cell["source"]):
                    exec("".join(cell["source"]), globals())
        elif path.endswith("grading.json"):
            for q in json.load(open(path))["questions"]:
                for p in q["parts"]:
                    if "expected" in p:
                        globals()[p["name"]] = p["expected"]
    except Exception:
        pass
print("found", found)
""",
    # 샌드박스 안에서 닿는 모든 모듈을 import하고, 찾은 함수(모듈의 함수, 클로저, 디스크의 소스)를 답으로 씀.
    # 채점기가 참조를 넘기는 길(engine._run)도 가로챔. 마지막 줄의 값이 피드백에 남아 이 셀이 돌았음을 보입니다.
    "capture": CAPTURE,
}


@pytest.fixture(scope="module")
def forged(assignment_dist: Path, tmp_path_factory):
    require_sandbox()
    subs = tmp_path_factory.mktemp("forgers")
    for name, cell in ATTACKS.items():  # 공격 셀은 답 셀들 **뒤에** (답 셀이 공격을 덮어쓰지 않게)
        blank = student(assignment_dist)
        nbformat.write(with_cell(blank, cell, position=len(blank.cells)), subs / f"{name}.ipynb")
    # 맞는 풀이에 비교 함수를 바꾸는 셀: 자기 답이 버는 만큼(만점)
    nbformat.write(with_cell(solved(assignment_dist), PATCH_COMPARISONS), subs / "right_but_patched.ipynb")
    out = tmp_path_factory.mktemp("forged") / "grades.csv"
    rows = grade(subs, assignment_dist, out, timeout=150)
    FEEDBACK["dir"] = out.with_name("grades_feedback")
    return rows


FEEDBACK: dict[str, Path] = {}


def test_the_capture_attack_ran_and_found_no_graded_reference(forged):
    """capture 공격이 실제로 돌았고(피드백에 그 셀의 값), 채점 쪽 패키지는 샌드박스에서 import되지 않았습니다.
    함수를 가져간 이름은 공개된 핵심·강좌의 것뿐이라(참조가 아님) 위의 검사대로 0점입니다."""
    text = (FEEDBACK["dir"] / "capture.txt").read_text(encoding="utf-8")
    block = text.split("\nq7_1: ", 1)[1].split("\n\nq", 1)[0]
    assert "capture-ran m=" in block and "g=False" in block, block
    modules = int(block.split("capture-ran m=", 1)[1].split()[0])
    assert modules >= 40, f"닿는 모듈을 거의 import하지 못했습니다 ({modules}개): 공격이 헛돌았습니다"
    assert float(forged["capture"]["total"]) == 0.0


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_a_blank_submission_gets_zero_whatever_it_patches(forged, attack):
    row = forged[attack]
    assert float(row["total"]) == 0.0, row
    assert all(0.0 <= float(row[q]) for q in row if q.startswith("q"))


def test_the_long_context_attack_targets_questions_that_exist(forged):
    """위의 long_context 공격이 헛돌지 않는지: 네 문제가 CSV에 있고 배점이 있습니다(그리고 모두 0점)."""
    row = forged["long_context"]
    assert {"q8_1", "q8_2", "q10_1", "q10_2"} <= set(row)
    assert all(float(row[q]) == 0.0 for q in ("q8_1", "q8_2", "q10_1", "q10_2"))


def test_patched_comparisons_do_not_cost_a_right_solution_its_points(forged):
    row = forged["right_but_patched"]
    assert float(row["total"]) == float(row["possible"]) > 0, row


def _nested(depth: int) -> list:
    value: list = [1]
    for _ in range(depth):
        value = [value]
    return value


class _JunkSession:
    """요청마다 같은 엉터리 답을 하는 하네스."""

    def __init__(self, reply) -> None:
        self.reply, self.dead, self.executed = reply, False, {}

    def request(self, message):
        return self.reply


def test_scores_are_capped_to_each_questions_points(assignment_dist, tmp_path):
    """채점 프로세스가 하네스에게서 어떤 답을 받아도 문제 점수는 [0, 배점]."""
    from attn_grader.judge import judge_question, question_from_bundle, run_seeds

    bundle = json.loads((assignment_dist / f"{NAME}-grading.json").read_text(encoding="utf-8"))
    junk = [None, {}, "x", [1, 2], {"callable": True}, {"value": {"tensor": {"dtype": "float32", "shape": [10**9], "data": []}}},
            {"result": {"opaque": "Score"}, "score": 10**6}, {"value": _nested(40)}, {"result": _nested(40)},
            {"callable": True, "result": {"tuple": []}, "library": "x" * 100, "mutated": {"0": 1}}]
    for data in bundle["questions"]:
        q = question_from_bundle(data)
        for reply in junk:
            g = judge_question(q, _JunkSession(reply), run_seeds("k", "s", q))
            assert 0.0 <= g.score <= q.points, (q.name, reply)


def test_the_sandbox_sees_no_answer_key(assignment_dist, tmp_path):
    """샌드박스 안에서 보이는 모든 파일을 나열하고, 채점 묶음의 정답·힌트·시드 열쇠·풀이가 어디에도 없음을 확인합니다."""
    require_sandbox()
    sandbox = load_script("sandbox")
    bundle = json.loads((assignment_dist / f"{NAME}-grading.json").read_text(encoding="utf-8"))
    secrets_ = [bundle["seed_key"]]
    for q in bundle["questions"]:
        for p in q["parts"]:
            hints = [t for _, t in p["hints"]] if p["kind"] == "value" else list(p.get("hints", {}).values())
            secrets_ += [h for h in hints + [p.get("default", "")] if len(h) >= 20]
    solution = nbformat.read(assignment_dist / "autograder" / f"{NAME}.ipynb", as_version=4)
    secrets_ += [line.strip() for c in solution.cells if c.cell_type == "code" for line in c.source.splitlines()
                 if "# SOLUTION" in line and len(line.strip()) > 30]
    lister = tmp_path / "in" / "list.py"
    lister.parent.mkdir()
    lister.parent.chmod(0o755)
    lister.write_text("""import os, sys
out = open(int(sys.argv[1]), "w")
for root, dirs, files in os.walk("/"):
    if root in ("/proc", "/sys", "/dev"):
        dirs[:] = []
        continue
    for f in files:
        out.write(os.path.join(root, f) + "\\n")
""", encoding="utf-8")
    lister.chmod(0o644)
    listing = tmp_path / "listing.txt"
    with grading_lock():
        outcome = sandbox.run(0, tmp_path, [sys.executable, "/job/in/list.py", "{fd}"], 120, tmp_path / "log.txt", listing)
    assert outcome.returncode == 0, (tmp_path / "log.txt").read_text()
    paths = listing.read_text().splitlines()
    assert len(paths) > 1000 and "/job/in/list.py" in paths
    assert not [p for p in paths if p.endswith(("grading.json", "autograder.zip", ".secret", "grades.csv"))
                or ("/assignments/" in p and p.endswith(".ipynb"))]
    import attn_course
    import attn_harness
    import attn_lib

    libraries = [str(Path(m.__file__).resolve().parent) for m in (attn_lib, attn_course, attn_harness)]
    readable = [Path(p) for p in paths if p.startswith(tuple(libraries)) and p.endswith((".py", ".json", ".txt", ".ipynb"))]
    assert not [p for p in paths if "/attn_grader/" in p and p.endswith(".py")], "판정 쪽 코드가 샌드박스에 보입니다"
    assert sorted(p for p in paths if p.startswith("/job/")) == ["/job/in/list.py"]
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in readable)
    found = [s for s in secrets_ if s in text]
    assert len(secrets_) >= 40 and not found, found[:3]
    site = subprocess.run(["grep", "-rlF", bundle["seed_key"], sys.prefix], capture_output=True, text=True)
    assert site.stdout == "", site.stdout


# ---- 샌드박스에 붙는 것: 런타임 셋(attn_lib, attn_course, attn_harness)만, 판정 쪽은 없음 ---------------------------

ROOT = Path(__file__).resolve().parents[1]
#: 판정 쪽에서 답을 계산하거나 틀린 답을 흉내 내는 모듈 (참조가 있는 곳)
JUDGE_MODULES = ("references.py", "checkers.py", "checkers_models.py", "checkers_long.py", "known_mistakes.py")


def _functions(source: str) -> dict[str, str]:
    """모듈 안의 모든 함수(안쪽 함수 포함) -> 독스트링을 뺀 정규화된 소스."""
    import ast

    found = {}
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)) and not isinstance(node, ast.Lambda):
            body = node.body[1:] if node.body and isinstance(node.body[0], ast.Expr) and isinstance(
                getattr(node.body[0], "value", None), ast.Constant) else node.body
            if body:
                found[f"{node.name}:{node.lineno}"] = "\n".join(ast.unparse(stmt) for stmt in body)
    return found


def _reference_lines() -> set[str]:
    """참조가 있는 모듈의 함수 본문에서 나온 독특한 줄 (45자 이상)."""
    lines = set()
    for name in JUDGE_MODULES:
        for body in _functions((ROOT / "attn_grader" / name).read_text(encoding="utf-8")).values():
            lines |= {line.strip() for line in body.splitlines() if len(line.strip()) >= 45}
    return lines


def test_no_file_bound_into_the_sandbox_holds_a_reference_s_source():
    """샌드박스에 붙는 파일을 모두 나열하고(``sandbox.bound_files``), 판정 쪽 함수와 같은 함수나 참조의 줄이 없는지 봅니다.
    공개 명세(공개 경우의 기대 출력)와 판정 쪽 폴더는 붙인 곳 안에 있어도 가려집니다."""
    sandbox = load_script("sandbox")
    bound = sandbox.bound_files()
    ours = [p for p in bound if any(part in ("attn_lib", "attn_course", "attn_harness") for part in p.parts)
            and p.suffix == ".py"]
    assert ours and not [p for p in bound if "attn_grader" in p.parts and p.suffix == ".py"], "판정 쪽 코드가 붙습니다"
    assert not [p for p in bound if p.name == "public_spec.json"], "공개 명세가 샌드박스에 보입니다"
    judge = {body for name in JUDGE_MODULES
             for body in _functions((ROOT / "attn_grader" / name).read_text(encoding="utf-8")).values() if body.count("\n") >= 2}
    assert len(judge) >= 40
    control = _functions((ROOT / "attn_grader" / "references.py").read_text(encoding="utf-8")).values()
    assert any(body in judge for body in control), "같은 함수를 알아보는지 (대조)"
    clones = [str(p) for p in ours for body in _functions(p.read_text(encoding="utf-8")).values() if body in judge]
    assert not clones, f"판정 쪽 함수와 같은 함수가 샌드박스에 있습니다: {clones}"
    lines = _reference_lines()
    text = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in ours)
    leaked = sorted(line for line in lines if line in text)
    assert len(lines) >= 100 and not leaked, leaked[:5]
    # venv 의 파이썬 파일 전체 (제3자 패키지; 편집 가능 설치라면 판정 쪽 폴더는 venv 밖)
    patterns = ROOT / "_build" / "reference-lines.txt"
    patterns.parent.mkdir(exist_ok=True)
    patterns.write_text("\n".join(sorted(lines)) + "\n", encoding="utf-8")
    roots = [str(p) for p in sandbox._runtime_paths() if p.is_dir() and p.name not in ("attn_lib", "attn_course", "attn_harness")]
    hidden = [str(h) for h in sandbox.hidden_paths()]
    grep = subprocess.run(["grep", "-rlF", "--include=*.py", "-f", str(patterns), *roots], capture_output=True, text=True)
    hits = [h for h in grep.stdout.splitlines() if not any(h.startswith(x) for x in hidden)]
    assert not hits, hits[:5]


def test_inside_the_sandbox_the_judge_side_cannot_be_imported(tmp_path):
    require_sandbox()
    sandbox = load_script("sandbox")
    probe = tmp_path / "in" / "probe.py"
    probe.parent.mkdir()
    probe.parent.chmod(0o755)
    probe.write_text("""import importlib, json, os, sys
out = open(int(sys.argv[1]), "w")
result = {}
for name in ("attn_lib", "attn_course", "attn_course.practice", "attn_harness", "attn_grader", "attn_grader.checkers"):
    try:
        importlib.import_module(name)
        result[name] = "ok"
    except Exception as exc:
        result[name] = type(exc).__name__
import attn_course.practice.spec as spec
try:
    spec.load_public_spec("attention_hw")
    result["public_spec"] = "ok"
except Exception as exc:
    result["public_spec"] = type(exc).__name__
out.write(json.dumps(result))
""", encoding="utf-8")
    probe.chmod(0o644)
    listing = tmp_path / "result.json"
    with grading_lock():
        outcome = sandbox.run(0, tmp_path, [sys.executable, "/job/in/probe.py", "{fd}"], 120, tmp_path / "log.txt", listing)
    assert outcome.returncode == 0, (tmp_path / "log.txt").read_text()
    result = json.loads(listing.read_text())
    assert result["attn_lib"] == result["attn_course"] == result["attn_course.practice"] == result["attn_harness"] == "ok"
    assert result["attn_grader"] == result["attn_grader.checkers"] == "ModuleNotFoundError", result
    assert result["public_spec"] != "ok", "공개 명세(공개 경우의 기대 출력)를 샌드박스 안에서 읽을 수 있습니다"
