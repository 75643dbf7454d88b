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


# ---- 틀린 제출: 문제마다 알려진 실수 하나씩 ------------------------------------------------------

MHA_HEAD = "def torch_mha_forward(x, mha, key_padding_mask=None):\n"


def mha_source(*, scale: str = "* Dh ** -0.5", ignored: str = "key_padding_mask", call: str = "") -> str:
    """2.4의 풀이를 실수 하나와 함께 (scale: 점수 배율, ignored: -inf로 채울 자리, call: 모듈을 직접 부름).

    다른 문제의 함수(2.3의 split/merge)를 쓰지 않아, 다른 문제의 실수가 이 문제로 번지지 않습니다."""
    if call:
        return MHA_HEAD + f"    return {call}\n"
    return MHA_HEAD + f"""    L, B, E = x.shape
    H = mha.num_heads
    Dh = E // H
    packed = x @ mha.in_proj_weight.T + mha.in_proj_bias
    q, k, v = (part.reshape(L, B, H, Dh).permute(1, 2, 0, 3) for part in packed.split(E, dim=-1))
    logits = q @ k.transpose(-2, -1) {scale}
    if key_padding_mask is not None:
        logits = logits.masked_fill(({ignored})[:, None, None, :], float("-inf"))
    probs = logits.softmax(dim=-1)
    merged = (probs @ v).permute(2, 0, 1, 3).reshape(L, B, E)
    return merged @ mha.out_proj.weight.T + mha.out_proj.bias, probs
"""


GQA_HEAD = "def gqa_attention(query, key, value, attn_mask=None):\n"


def gqa_source(*, group: str = "repeat_interleave(G, dim=1)", scale: str = "/ math.sqrt(query.shape[-1])", output: str = "w @ v") -> str:
    """7.2의 풀이를 실수 하나와 함께 (group: 키·밸류 헤드를 늘리는 방법, output: 밸류 섞기)."""
    return GQA_HEAD + f"""    G = query.shape[1] // key.shape[1]
    k, v = key.{group}, value.{group}
    s = query @ k.transpose(-2, -1) {scale}
    if attn_mask is not None:
        s = s.masked_fill(~attn_mask, float("-inf"))
    w = torch.softmax(s, dim=-1)
    return {output}, w
"""


def cross_source(mask: str) -> str:
    return ("from attn_lib import scaled_dot_product_attention\n\n\n"
            "def precompute_cross_kv(mha, encoder_out):\n"
            "    return mha.split_heads(mha.W_k(encoder_out)), mha.split_heads(mha.W_v(encoder_out))\n\n\n"
            "def cross_step(mha, y, K, V, src_mask):\n"
            f"    heads, w = scaled_dot_product_attention(mha.split_heads(mha.W_q(y)), K, V, {mask})\n"
            "    return mha.W_o(mha.merge_heads(heads)), w\n")


def cache_source(*, keys: str = "[past_k, k_new]", values: str = "[past_v, v_new]", attend: str = "k_all, v_all") -> str:
    return f"""def cached_step(mha, x_new, past_k, past_v):
    k_new, v_new = mha.split_heads(mha.W_k(x_new)), mha.split_heads(mha.W_v(x_new))
    k_all, v_all = torch.cat({keys}, dim=-2), torch.cat({values}, dim=-2)
    heads, _ = scaled_dot_product_attention(mha.split_heads(mha.W_q(x_new)), {attend},
                                            enable_gqa=mha.num_kv_heads != mha.num_heads)
    return mha.W_o(mha.merge_heads(heads)), k_all, v_all
"""


SHARES_HEAD = "def query_for_shares(shares, S, c=20.0):\n    q = torch.zeros(S)\n    for j, p in shares.items():\n"
SPLIT = "def split_heads_seq(x, num_heads):\n    L, B, E = x.shape\n    return x.view(L, B, num_heads, E // num_heads).permute(1, 2, 0, 3)\n\n\n"
KPM_HEAD = "def key_padding_mask_for(lengths, S, side=\"right\"):\n    n = torch.tensor(lengths)[:, None]\n    pos = torch.arange(S)[None, :]\n"
ALIBI_HEAD = "def alibi_causal_mask(L, slope):\n    i, j = torch.arange(L)[:, None], torch.arange(L)[None, :]\n"
SAT_HEAD = "def measure_saturation(d_k, scale, seed=0):\n    g = torch.Generator().manual_seed(seed)\n"
SAT_TAIL = ("    w = torch.softmax(q @ k.T * {scale}, dim=-1)\n    return float((w.amax(dim=-1) >= 0.99).float().mean())\n\n\n"
            "q4_2_ratios = tuple(measure_saturation(256, s) for s in (1.0, 1 / 16, 1 / 256))\n")
ABLATE_HEAD = "def ablate_head(mha, h):\n    m = copy.deepcopy(mha)\n    s = slice(h * m.head_dim, (h + 1) * m.head_dim)\n    with torch.no_grad():\n"

# 제출 이름 -> (바꿀 셀의 첫 줄 앞부분 -> 새 셀, 기대하는 (문제, 피드백에 있어야 할 말)).
# 코드 문제의 말은 MISTAKES의 힌트, 값·선택지 문제의 말은 숨은 테스트의 힌트입니다. 모든 문제가 한 번 이상 틀립니다.
WRONG = {
    "wrong_a": ({
        "q1_1_same_orders": "q1_1_same_orders = 1\nq1_1_output = (0.25, 0.25, 0.5)\n",
        "def query_for_shares": SHARES_HEAD + "        q[j] = c + p\n    return q\n",
        "q1_3_breaks": 'q1_3_breaks = "abcd"\n',
        "q2_1_params": "q2_1_params = 4 * 512 * 512 + 4 * 512\nq2_1_params_16 = 722944\n",
        "q2_2_shape": "q2_2_shape = (7, 2, 3, 4)\n",
        "def split_heads_seq": SPLIT + "def merge_heads_seq(x):\n    B, H, L, Dh = x.shape\n    return x.reshape(L, B, H * Dh)\n",
        MHA_HEAD: mha_source(scale=""),
        "def key_padding_mask_for": KPM_HEAD + "    pad = pos < S - n if side == \"left\" else pos >= n\n    return ~pad\n",
        "def alibi_causal_mask": ALIBI_HEAD + "    return -slope * (i - j).abs().float()\n",
        "q3_3_pad_rows": 'q3_3_pad_rows = set()\nq3_3_dead_rows = {(0, 0), (1, 0), (1, 1), (1, 2)}\nq3_3_needs_padding = "bcd"\n',
        "q4_1_c": "q4_1_c = 64.0\nq4_1_scale_16 = 2.0\n",
        "def measure_saturation": SAT_HEAD + "    q, k = torch.randn(256, d_k, generator=g), torch.randn(16, d_k, generator=g)\n"
        + SAT_TAIL.format(scale="d_k ** -0.5"),
        "q4_3_norms": "q4_3_norms = (0.0324, 0.2222)\n",
        "q5_1_finding": 'q5_1_finding = "a"\nq5_1_advantage = "b"\n',
        "def ablate_head": ABLATE_HEAD + "        m.W_v.weight[:, s] = 0.0\n        m.W_v.bias[s] = 0.0\n    return m\n",
        "q6_1_output_shape": "q6_1_output_shape = (2, 7, 32)\nq6_1_weights_shape = (2, 4, 7, 11)\n",
        "from attn_lib import scaled_dot_product_attention": cross_source("None"),
        "q6_3_blocked": "q6_3_blocked = (3, 4)\nq6_3_leak = 0.0\n",
        "q7_1_bytes": "q7_1_bytes = 100663296\nq7_1_mha_bytes = 805306368\n",
        GQA_HEAD: gqa_source(group="repeat(1, G, 1, 1)"),
        "def cached_step": cache_source(attend="past_k, past_v"),
    }, [("q1_2", MISTAKES["share_log"]), ("q2_3", MISTAKES["merge_order_seq"]), ("q2_4", MISTAKES["no_scale"]),
        ("q3_1", MISTAKES["kpm_polarity"]), ("q3_2", MISTAKES["additive_no_block"]), ("q4_2", MISTAKES["scale_ignored"]),
        ("q5_2", MISTAKES["ablate_columns"]), ("q6_2", MISTAKES["cross_no_mask"]), ("q7_2", MISTAKES["gqa_group_order"]),
        ("q7_3", MISTAKES["cache_forgot_new"]),
        ("q1_1", "반반 가중치를 받는 위치 0과 1의 토큰을 맞바꾸면"), ("q1_3", "이어 붙인 뒤 선형 변환은"),
        ("q2_1", "네 행렬을 모두 E × E로 세었습니다"), ("q2_2", "view까지만 계산했습니다"),
        ("q3_3", "인과 마스크가 실제 토큰에게서 [PAD] 키를 가리지 못합니다"), ("q4_1", "c = sqrt(d_k)입니다"),
        ("q4_3", "노름의 제곱을 적었습니다"), ("q5_1", "가운데 학습률에서는 모든 시드가 풀었습니다"),
        ("q6_1", "batch_first=False이면 출력도"), ("q6_3", "정답 위치가 i와 같으면(n - 1 - i = i)"),
        ("q7_1", "키와 밸류 두 개를 모두 담습니다")]),
    "wrong_b": ({
        "q1_1_same_orders": "q1_1_same_orders = 2\nq1_1_output = (0.5, 0.25, 0.25)\n",
        "def query_for_shares": SHARES_HEAD + "        q[j] = math.log(p)\n    return q\n",
        "q1_3_breaks": 'q1_3_breaks = "bc"\n',
        "q2_1_params": "q2_1_params = 720896\nq2_1_params_16 = 722944\n",
        "q2_2_shape": "q2_2_shape = (2, 7, 3, 4)\n",
        "def split_heads_seq": SPLIT + "def merge_heads_seq(x):\n    B, H, L, Dh = x.shape\n    return x.permute(2, 0, 1, 3).view(L, B, H * Dh)\n",
        MHA_HEAD: mha_source(ignored="~key_padding_mask"),
        "def key_padding_mask_for": KPM_HEAD + "    pad = pos < S - n if side == \"left\" else pos >= n\n    return pad[:, None, None, :]\n",
        "def alibi_causal_mask": ALIBI_HEAD + "    return (-slope * (i - j).float()).masked_fill(j > i, -1e9)\n",
        "q3_3_pad_rows": 'q3_3_pad_rows = {(0, 1), (0, 2), (0, 3), (1, 3)}\nq3_3_dead_rows = set()\nq3_3_needs_padding = "abcd"\n',
        "q4_1_c": "q4_1_c = 8.0\nq4_1_scale_16 = 0.25\n",
        "def measure_saturation": SAT_HEAD + "    k = torch.randn(16, d_k, generator=g)\n    q = torch.randn(256, d_k, generator=g)\n"
        + SAT_TAIL.format(scale="scale"),
        "q4_3_norms": "q4_3_norms = (0.0, 0.0)\n",
        "q5_1_finding": 'q5_1_finding = "b"\nq5_1_advantage = "a"\n',
        "def ablate_head": ABLATE_HEAD + "        m.W_v.weight[s] = 0.0\n    return m\n",
        "q6_1_output_shape": "q6_1_output_shape = (7, 2, 32)\nq6_1_weights_shape = (2, 4, 11, 7)\n",
        "from attn_lib import scaled_dot_product_attention": cross_source("src_mask & causal_mask(y.shape[1], K.shape[2])")
        .replace("import scaled_dot_product_attention", "import causal_mask, scaled_dot_product_attention"),
        "q6_3_blocked": "q6_3_blocked = (5, 8)\nq6_3_leak = 0.0\n",
        "q7_1_bytes": "q7_1_bytes = 805306368\nq7_1_mha_bytes = 805306368\n",
        GQA_HEAD: gqa_source(scale=""),
        "def cached_step": cache_source(keys="[k_new, past_k]", values="[v_new, past_v]"),
    }, [("q1_2", MISTAKES["share_offset"]), ("q2_3", MISTAKES["merge_view"]), ("q2_4", MISTAKES["kpm_polarity"]),
        ("q3_1", MISTAKES["kpm_shape"]), ("q3_2", MISTAKES["finite_block"]), ("q4_2", MISTAKES["draw_order"]),
        ("q5_2", MISTAKES["ablate_bias"]), ("q6_2", MISTAKES["cross_causal"]), ("q7_2", MISTAKES["no_scale"]),
        ("q7_3", MISTAKES["cache_order"]),
        ("q1_1", "가중치는 토큰이 아니라 위치에 붙습니다"), ("q1_3", "위치마다 다른 투영이면"),
        ("q2_1", "편향을 빼고 세었습니다"), ("q2_2", "새 축 1에는 옛 축 2"),
        ("q3_3", "맨 앞 [PAD] 쿼리 행은"), ("q3_3", "오른쪽 패딩이면 [PAD]가 모든 실제 토큰보다 뒤에"),
        ("q4_1", "1/sqrt(16)은 c = 1일 때의 배율"), ("q4_3", "원-핫일 때만 J = 0"), ("q5_1", "갈림길은 표현력이 아니었습니다"),
        ("q6_1", "행(L)은 디코더 쿼리"), ("q6_3", "모든 위치가 막히지는 않습니다"),
        ("q7_1", "키·밸류 헤드 Hkv = 4개만")]),
}
# 이름이 아니라 호출을 보는지: 모듈을 직접 부른 2.4와 getattr 로 숨긴 F.scaled_dot_product_attention 을 쓴 7.2는
# 0점(all-or-nothing), 라이브러리와 같은 이름의 자기 함수를 쓴 7.2는 만점.
LIBRARY = {
    MHA_HEAD: mha_source(call="mha(x, x, x, key_padding_mask=key_padding_mask, need_weights=True, average_attn_weights=False)"),
    GQA_HEAD: "import torch.nn.functional as F\n\n\n" + gqa_source(
        output='getattr(F, "scaled_dot_product_" + "attention")(query, key, value, attn_mask=attn_mask, enable_gqa=True)'),
}
OWN_NAME = {  # 7.3도 이 이름을 부르므로(enable_gqa=...) 그 인자도 받습니다
    GQA_HEAD: "def scaled_dot_product_attention(query, key, value, attn_mask=None, enable_gqa=True):\n"
    + gqa_source().split("\n", 1)[1] + "\n\n" + GQA_HEAD + "    return scaled_dot_product_attention(query, key, value, attn_mask)\n",
}


@pytest.fixture(scope="module")
def graded(dist: Path, tmp_path_factory):
    """제출 9개를 만들어 scripts/grade.py로 한 번에 채점하고 (CSV 행, 피드백 폴더)를 돌려줍니다."""
    subs = tmp_path_factory.mktemp("submissions")
    nbformat.write(nbformat.read(dist / "autograder" / f"{NAME}.ipynb", as_version=4), subs / "master.ipynb")
    nbformat.write(nbformat.read(dist / "student" / f"{NAME}.ipynb", as_version=4), subs / "untouched.ipynb")
    for name, changes in {**{n: c for n, (c, _) in WRONG.items()}, "library": LIBRARY, "own_name": OWN_NAME}.items():
        nb = _solved(dist)
        for prefix, source in changes.items():
            _define(nb, prefix, source)
        nbformat.write(nb, subs / f"{name}.ipynb")
    nb = _solved(dist)
    nb.cells.insert(3, nbformat.v4.new_code_cell('raise RuntimeError("학생 코드의 오류")'))
    _define(nb, "def key_padding_mask_for", "def key_padding_mask_for(lengths, S, side='right'):\n    raise ZeroDivisionError('망가짐')\n")
    nbformat.write(nb, subs / "raises.ipynb")
    nb = _solved(dist)
    nb.cells = [c for c in nb.cells if not (c.cell_type == "code" and 'grader.check("q2_4")' in c.source)]
    nbformat.write(nb, subs / "deleted_check.ipynb")
    nb = _solved(dist)
    nb.cells.insert(3, nbformat.v4.new_code_cell("while True:\n    pass"))
    nbformat.write(nb, subs / "loops.ipynb")

    out = tmp_path_factory.mktemp("grades") / "grades.csv"
    rc = _load("grade").main([str(subs), "--autograder", str(dist / f"{NAME}-autograder.zip"),
                              "--output", str(out), "--timeout", "180", "--jobs", "2"])
    assert rc == 0
    with out.open(encoding="utf-8") as f:
        rows = {r["student"]: r for r in csv.DictReader(f)}
    return rows, out.with_name("grades_feedback")


def test_csv_has_a_row_per_submission(graded):
    rows, _ = graded
    assert set(rows) == {"master", "untouched", "wrong_a", "wrong_b", "library", "own_name", "raises", "deleted_check", "loops"}
    questions = [k for k in next(iter(rows.values())) if re.fullmatch(r"q\d_\d", k)]
    assert len(questions) >= 20
    assert {q[1] for q in questions} == set("1234567"), "장마다 문제가 있어야 합니다"
    assert all(sum(q[1] == ch for q in questions) >= 2 for ch in "1234567"), "장마다 두 문제 이상"


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
    expected = WRONG[name][1]
    rows, _ = graded
    assert {q for q, _ in expected} == {k for k in rows["master"] if re.fullmatch(r"q\d_\d", k)}, "모든 문제가 틀려야 합니다"
    assert_lost_points_with_feedback(graded, name, expected)


def test_calling_the_library_or_torch_gets_zero_as_the_header_says(graded):
    """모듈을 직접 부른 2.4, getattr 문자열로 닿은 F.scaled_dot_product_attention 을 쓴 7.2는 0점입니다."""
    rows, feedback = graded
    assert float(rows["library"]["q2_4"]) == 0.0 < float(rows["master"]["q2_4"])
    assert float(rows["library"]["q7_2"]) == 0.0 < float(rows["master"]["q7_2"])
    text = (feedback / "library.txt").read_text(encoding="utf-8")
    assert "직접 구현해야 하는 문제입니다" in text and "nn.MultiheadAttention" in text and "F.scaled_dot_product_attention" in text


def test_a_student_helper_named_like_the_library_gets_full_marks(graded):
    rows, _ = graded
    assert float(rows["own_name"]["q7_2"]) == float(rows["master"]["q7_2"])
    assert float(rows["own_name"]["total"]) == float(rows["master"]["total"])


def test_raising_deleting_and_looping_submissions_are_graded(graded):
    rows, _ = graded
    assert rows["raises"]["status"] == "ok"
    assert float(rows["raises"]["q3_1"]) == 0.0 and float(rows["raises"]["q2_4"]) == float(rows["master"]["q2_4"])
    assert rows["deleted_check"]["status"] == "ok"
    assert float(rows["deleted_check"]["total"]) == float(rows["master"]["total"])
    assert rows["loops"]["status"] == "timeout" and float(rows["loops"]["total"]) == 0.0


# ---- 값과 선택지 문제의 힌트 (otter 없이, 숨은 테스트의 표를 그대로 읽어) ------------------------------------

def _answer_checks() -> list[tuple[str, str, tuple, dict]]:
    """마스터의 숨은 테스트에서 check_value / check_choice 호출을 모읍니다: (문제, 함수 이름, 위치 인자, 키워드 인자)."""
    import ast

    found, question = [], None
    for cell in nbformat.read(MASTER, as_version=4).cells:
        m = re.search(r"name:\s*(\w+)", cell.source) if cell.cell_type == "raw" else None
        question = m.group(1) if m and cell.source.startswith("# BEGIN QUESTION") else question
        if cell.cell_type != "code" or not cell.source.startswith("# HIDDEN"):
            continue
        for node in ast.walk(ast.parse(cell.source)):
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("check_value", "check_choice"):
                # 상수와 frozenset(...)만으로 된 인자 (저장소의 마스터 노트북이라 신뢰)
                value = lambda n: eval(compile(ast.Expression(n), "hidden", "eval"), {"frozenset": frozenset})  # noqa: E731
                args = tuple(value(a) for a in node.args[1:])
                kwargs = {k.arg: value(k.value) for k in node.keywords}
                found.append((question, node.func.id, args, kwargs))
    return found


ANSWER_CHECKS = _answer_checks()


def test_every_value_and_choice_question_has_hints_for_known_wrong_answers():
    questions = {q for q, _, _, kw in ANSWER_CHECKS if kw.get("hints") or kw.get("default")}
    assert len(questions) >= 10, questions
    assert all(kw.get("hints") or kw.get("default") for _, _, _, kw in ANSWER_CHECKS)


@pytest.mark.parametrize("question, fn, args, kwargs", ANSWER_CHECKS, ids=[kw["name"] for _, _, _, kw in ANSWER_CHECKS])
def test_each_known_wrong_value_or_choice_fails_with_its_hint(question, fn, args, kwargs):
    from attn_lib.exercises import ExerciseFailure, check_choice, check_value

    if fn == "check_value":
        correct = args[0]
        check_value(correct, correct, **kwargs)  # 정답은 통과
        wrong = {key: hint for key, hint in kwargs.get("hints", {}).items()}
        wrong.setdefault(("틀린 답",), kwargs.get("default", ""))
        for answer, hint in wrong.items():
            with pytest.raises(ExerciseFailure) as info:
                check_value(set(answer) if isinstance(answer, frozenset) else answer, correct, **kwargs)
            assert hint in str(info.value) and re.search(r"[가-힣]", hint), (kwargs["name"], answer)
    else:
        correct = args[0]
        check_choice(correct, correct, **kwargs)
        for letter in kwargs["options"]:
            answer = "".join(sorted(set(correct) ^ {letter}))
            with pytest.raises(ExerciseFailure) as info:
                check_choice(answer, correct, **kwargs)
            assert kwargs["hints"][letter] in str(info.value), (kwargs["name"], letter)


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
    assert "seed=41" in zipped and "check_no_library_calls" in zipped and "check_value" in zipped
    with zipfile.ZipFile(dist / f"{NAME}-student.zip") as zf:
        assert not any("autograder" in n or n.endswith(".zip") for n in zf.namelist())


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
    _define(nb, MHA_HEAD, mha_source(scale=""))
    work = tmp_path / "student"
    import shutil

    shutil.copytree(dist / "student", work)
    outputs = {q: text for q, (text, _) in _run_checks(nb, work).items()}
    assert len(outputs) >= 20
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
    _define(nb, MHA_HEAD, mha_source(scale=""))  # 한 문제는 틀리게
    nbformat.write(nb, work / f"{NAME}.ipynb")
    assert [p.name for p in work.iterdir()] == [f"{NAME}.ipynb"]
    checks = {}
    for question, (text, errors) in _run_checks(nb, work).items():
        assert not errors, f"{question}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
        checks[question] = text
    assert len(checks) >= 21
    assert all("공개 테스트" in text for text in checks.values()), checks
    assert MISTAKES["no_scale"] in checks["q2_4"]
    assert sorted(p.name for p in (work / "tests").glob("*.py")) == sorted(f"{q}.py" for q in checks)


def test_feedback_keeps_every_failure_of_a_question():
    """한 문제에 실패한 테스트가 둘이면 피드백에 두 힌트가 모두 있어야 합니다 (앞의 것만 남기던 버그)."""
    output = """q3_3 results:
    q3_3 - 1 result:
        ❌ Test case failed
        Exception raised:
            Traceback (most recent call last):
            attn_lib.exercises.engine.ExerciseFailure: [q3_3_dead_rows] 아직 틀렸습니다 (답: set()).
            힌트: 첫째 힌트
    q3_3 - 2 result:
        ❌ Test case failed
        Exception raised:
            Traceback (most recent call last):
            attn_lib.exercises.engine.ExerciseFailure: [q3_3_needs_padding] 아직 틀렸습니다 (고른 것: abcd).
            힌트:
            - (a) 둘째 힌트
"""
    text = _load("grade").korean_feedback("q3_3", 1.5, 3, output)
    assert "첫째 힌트" in text and "- (a) 둘째 힌트" in text and "Traceback" not in text


def test_installing_public_tests_never_overwrites_a_test_file(tmp_path):
    """채점 폴더의 (숨은 테스트가 든) 파일을 공개 테스트로 덮어쓰면 숨은 테스트가 사라집니다."""
    from attn_lib.exercises import install_public_tests

    folder = tmp_path / "tests"
    folder.mkdir()
    (folder / "q2_4.py").write_text("# 숨은 테스트까지 든 채점용 파일\n", encoding="utf-8")
    install_public_tests(NAME, folder)
    assert (folder / "q2_4.py").read_text(encoding="utf-8") == "# 숨은 테스트까지 든 채점용 파일\n"
    assert (folder / "q1_1.py").exists()
