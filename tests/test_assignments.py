"""채점 과제를 채점합니다: 배포판(make assignments)과 샌드박스 채점(make grade), 자기 점검, 비공개 마스터.

- 마스터 풀이는 만점, 손대지 않은 학생판은 0점 (샌드박스 안에서 실행하고 밖에서 채점)
- 잘 알려진 틀린 풀이는 문제마다 만점 미만이고, 피드백에 그 실수를 짚는 한국어 힌트가 있음
- 라이브러리를 부른 직접 구현 문제는 0점이고, **자기 점검도 같은 말**을 함 (자기 점검과 채점이 어긋나지 않음)
- 예외를 일으키는 제출, 끝나지 않는 제출(시간 제한), 자기 점검 셀을 지운 제출도 CSV에 행이 남음
- 학생판과 공개 명세, attn_lib 어디에도 정답·힌트·풀이 줄이 없음
- 비공개 마스터 + 반 비밀 값: 값과 보기 글자가 반마다 달라, 연습판의 답은 옮겨지지 않음
- 채점 묶음이 빌드한 뒤 바뀌면 채점하지 않음, Gradescope zip은 otter run 으로 만점

공격하는 제출(다른 제출과 결과를 건드리기, 점수 위조)은 ``test_grading_sandbox.py``와 ``test_grading_forgery.py``.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest

from attn_course.practice import MISTAKES
from grading_support import (MASTER, NAME, ROOT, define, grade, load_script, question_columns, require_sandbox,
                             solution_sources, solved, student)

pytestmark = pytest.mark.slow

# 코드 문제의 알려진 틀린 풀이와 그 풀이를 만드는 도구는 채점 쪽에 있습니다 (빌드가 공개 경우의 힌트를 만드는 데 씀).
from attn_grader.known_mistakes import (ABLATE_HEAD, ALIBI_HEAD, GQA_HEAD, KPM_HEAD, MERGE_HEAD, MHA_HEAD,  # noqa: E402
                                        ROPE_HEAD, SAT_HEAD, SAT_TAIL, SHARES_HEAD, SPLIT, WRONG_CODE, cache_source,
                                        cross_source, gqa_source, merge_source, mha_source, rope_source)


# 제출 이름 -> (바꿀 셀의 첫 줄 앞부분 -> 새 셀, 기대하는 (문제, 피드백에 있어야 할 말)).
# 코드 문제의 말은 MISTAKES의 힌트, 값·선택지 문제의 말은 숨은 테스트의 힌트입니다. 모든 문제가 한 번 이상 틀립니다.
WRONG = {
    "wrong_a": ({
        **WRONG_CODE["wrong_a"],
        "q1_1_same_orders": "q1_1_same_orders = 1\nq1_1_output = (0.25, 0.25, 0.5)\n",
        "q1_3_breaks": 'q1_3_breaks = "abcd"\n',
        "q2_1_params": "q2_1_params = 4 * 512 * 512 + 4 * 512\nq2_1_params_16 = 722944\n",
        "q2_2_shape": "q2_2_shape = (7, 2, 3, 4)\n",
        "q3_3_pad_rows": 'q3_3_pad_rows = set()\nq3_3_dead_rows = {(0, 0), (1, 0), (1, 1), (1, 2)}\nq3_3_needs_padding = "bcd"\n',
        "q4_1_c": "q4_1_c = 64.0\nq4_1_scale_16 = 2.0\n",
        "q4_3_norms": "q4_3_norms = (0.0324, 0.2222)\n",
        "q5_1_finding": 'q5_1_finding = "a"\nq5_1_advantage = "b"\n',
        "q6_1_output_shape": "q6_1_output_shape = (2, 7, 32)\nq6_1_weights_shape = (2, 4, 7, 11)\n",
        "q6_3_blocked": "q6_3_blocked = (3, 4)\nq6_3_leak = 0.0\n",
        "q7_1_bytes": "q7_1_bytes = 100663296\nq7_1_mha_bytes = 805306368\n",
        "q8_2_wavelength": 'q8_2_wavelength = 7498.942093324558\nq8_2_cache = "a"\n',
        "q10_2_sums": "q10_2_sums = (1.1353352832366128, 2.185122351604477, 2.559739739775005)\nq10_2_lse = 0.45619331601812235\n",
    }, [("q1_2", MISTAKES["share_log"]), ("q2_3", MISTAKES["merge_order_seq"]), ("q2_4", MISTAKES["no_scale"]),
        ("q3_1", MISTAKES["kpm_polarity_build"]), ("q3_2", MISTAKES["additive_no_block"]), ("q4_2", MISTAKES["scale_ignored"]),
        ("q5_2", MISTAKES["ablate_columns"]), ("q6_2", MISTAKES["cross_no_mask"]), ("q7_2", MISTAKES["gqa_group_order"]),
        ("q7_3", MISTAKES["cache_forgot_new"]), ("q8_1", MISTAKES["rope_half_layout"]), ("q10_1", MISTAKES["merge_no_rescale"]),
        ("q8_2", "각속도 theta의 역수"), ("q8_2", "두 회전의 내적은 각도의 차이"),
        ("q10_2", "앞의 합을 고치지 않았습니다"), ("q10_2", "log ℓ만 적었습니다"),
        ("q1_1", "반반 가중치를 받는 위치 0과 1의 토큰을 맞바꾸면"), ("q1_3", "이어 붙인 뒤 선형 변환은"),
        ("q2_1", "네 행렬을 모두 E × E로 세었습니다"), ("q2_2", "view까지만 계산했습니다"),
        ("q3_3", "인과 마스크가 실제 토큰에게서 [PAD] 키를 가리지 못합니다"), ("q4_1", "c = sqrt(d_k)입니다"),
        ("q4_3", "노름의 제곱을 적었습니다"), ("q5_1", "가운데 학습률에서는 헤드 하나가 풀었습니다"),
        ("q6_1", "batch_first=False이면 출력도"), ("q6_3", "정답 위치가 i와 같으면(n - 1 - i = i)"),
        ("q7_1", "키와 밸류 두 개를 모두 담습니다")]),
    "wrong_b": ({
        **WRONG_CODE["wrong_b"],
        "q1_1_same_orders": "q1_1_same_orders = 2\nq1_1_output = (0.5, 0.25, 0.25)\n",
        "q1_3_breaks": 'q1_3_breaks = "bc"\n',
        "q2_1_params": "q2_1_params = 720896\nq2_1_params_16 = 722944\n",
        "q2_2_shape": "q2_2_shape = (2, 7, 3, 4)\n",
        "q3_3_pad_rows": 'q3_3_pad_rows = {(0, 1), (0, 2), (0, 3), (1, 3)}\nq3_3_dead_rows = set()\nq3_3_needs_padding = "abcd"\n',
        "q4_1_c": "q4_1_c = 8.0\nq4_1_scale_16 = 0.25\n",
        "q4_3_norms": "q4_3_norms = (0.0, 0.0)\n",
        "q5_1_finding": 'q5_1_finding = "b"\nq5_1_advantage = "a"\n',
        "q6_1_output_shape": "q6_1_output_shape = (7, 2, 32)\nq6_1_weights_shape = (2, 4, 11, 7)\n",
        "q6_3_blocked": "q6_3_blocked = (5, 8)\nq6_3_leak = 0.0\n",
        "q7_1_bytes": "q7_1_bytes = 805306368\nq7_1_mha_bytes = 805306368\n",
        "q8_2_wavelength": 'q8_2_wavelength = 62831.853071795864\nq8_2_cache = "abd"\n',
        "q10_2_sums": "q10_2_sums = (1.1353352832366128, 9.438843167298517, 9.813460555469044)\nq10_2_lse = 5.0\n",
    }, [("q1_2", MISTAKES["share_offset"]), ("q2_3", MISTAKES["merge_view"]), ("q2_4", MISTAKES["kpm_polarity"]),
        ("q3_1", MISTAKES["kpm_shape"]), ("q3_2", MISTAKES["finite_block"]), ("q4_2", MISTAKES["draw_order"]),
        ("q5_2", MISTAKES["ablate_bias"]), ("q6_2", MISTAKES["cross_causal"]), ("q7_2", MISTAKES["no_scale"]),
        ("q7_3", MISTAKES["cache_order"]), ("q8_1", MISTAKES["rope_no_offset"]),
        ("q10_1", MISTAKES["merge_output_not_rescaled"]),
        ("q8_2", "가장 느린 짝은 i = Dh/2가 아니라"), ("q8_2", "RoPE는 점수(쿼리·키의 내적)에 위치를 넣는 방법이라"),
        ("q10_2", "고치는 배율의 지수가 거꾸로입니다"), ("q10_2", "최댓값 m만 적었습니다"),
        ("q1_1", "가중치는 토큰이 아니라 위치에 붙습니다"), ("q1_3", "위치마다 다른 투영이면"),
        ("q2_1", "편향을 빼고 세었습니다"), ("q2_2", "새 축 1에는 옛 축 2"),
        ("q3_3", "맨 앞 [PAD] 쿼리 행은"), ("q3_3", "오른쪽 패딩이면 [PAD]가 모든 실제 토큰보다 뒤에"),
        ("q4_1", "1/sqrt(16)은 c = 1일 때의 배율"), ("q4_3", "원-핫일 때만 J = 0"), ("q5_1", "갈림길은 표현력이 아니었습니다"),
        ("q6_1", "행(L)은 디코더 쿼리"), ("q6_3", "모든 위치가 막히지는 않습니다"),
        ("q7_1", "키·밸류 헤드(Hkv)만 담습니다")]),
}
# 이름이 아니라 호출을 보는지: 모듈을 직접 부른 2.4와 getattr 로 숨긴 F.scaled_dot_product_attention 을 쓴 7.2는
# 0점(all-or-nothing), 라이브러리와 같은 이름의 자기 함수를 쓴 7.2는 만점.
LIBRARY = {
    ROPE_HEAD: "from attn_lib import apply_rope\n\n\n" + ROPE_HEAD + """    Dh = x.shape[-1]
    order = torch.cat([torch.arange(0, Dh, 2), torch.arange(1, Dh, 2)])  # 이웃한 짝 -> 앞뒤 절반
    turned = apply_rope(x[..., order], torch.arange(start, start + x.shape[-2]), base=base)
    return turned[..., torch.argsort(order)]  # 값은 맞지만 금지한 apply_rope 를 부름
""",
    MHA_HEAD: mha_source(call="mha(x, x, x, key_padding_mask=key_padding_mask, need_weights=True, average_attn_weights=False)"),
    GQA_HEAD: "import torch.nn.functional as F\n\n\n" + gqa_source(
        output='getattr(F, "scaled_dot_product_" + "attention")(query, key, value, attn_mask=attn_mask, enable_gqa=True)'),
}
OWN_NAME = {  # 7.3도 이 이름을 부르므로(enable_gqa=...) 그 인자도 받습니다
    GQA_HEAD: "def scaled_dot_product_attention(query, key, value, attn_mask=None, enable_gqa=True):\n"
    + gqa_source().split("\n", 1)[1] + "\n\n" + GQA_HEAD + "    return scaled_dot_product_attention(query, key, value, attn_mask)\n",
}




@pytest.fixture(scope="module")
def graded(assignment_dist: Path, tmp_path_factory):
    """제출 9개를 만들어 attn_grader.grade로 한 번에 채점하고 (CSV 행, 피드백 폴더)를 돌려줍니다."""
    require_sandbox()
    dist = assignment_dist
    subs = tmp_path_factory.mktemp("submissions")
    nbformat.write(nbformat.read(dist / "autograder" / f"{NAME}.ipynb", as_version=4), subs / "master.ipynb")
    nbformat.write(student(dist), subs / "untouched.ipynb")
    for name, changes in {**{n: c for n, (c, _) in WRONG.items()}, "library": LIBRARY, "own_name": OWN_NAME}.items():
        nb = solved(dist)
        for prefix, source in changes.items():
            define(nb, prefix, source)
        nbformat.write(nb, subs / f"{name}.ipynb")
    nb = solved(dist)
    nb.cells.insert(3, nbformat.v4.new_code_cell('raise RuntimeError("학생 코드의 오류")'))
    define(nb, "def key_padding_mask_for", "def key_padding_mask_for(lengths, S, side='right'):\n    raise ZeroDivisionError('망가짐')\n")
    nbformat.write(nb, subs / "raises.ipynb")
    nb = solved(dist)
    nb.cells = [c for c in nb.cells if not (c.cell_type == "code" and c.source.startswith("grader.check"))]
    nbformat.write(nb, subs / "deleted_check.ipynb")
    nb = solved(dist)
    nb.cells.insert(3, nbformat.v4.new_code_cell("while True:\n    pass"))
    nbformat.write(nb, subs / "loops.ipynb")
    out = tmp_path_factory.mktemp("grades") / "grades.csv"
    return grade(subs, dist, out, timeout=120), out.with_name("grades_feedback")


def test_csv_has_a_row_per_submission(graded):
    rows, _ = graded
    assert set(rows) == {"master", "untouched", "wrong_a", "wrong_b", "library", "own_name", "raises", "deleted_check", "loops"}
    questions = question_columns(next(iter(rows.values())))
    assert len(questions) >= 20
    chapters = [int(re.match(r"q(\d+)_", q).group(1)) for q in questions]
    assert set(chapters) == {1, 2, 3, 4, 5, 6, 7, 8, 10}, "장마다 문제가 있어야 합니다 (9장은 과제 문제가 없음)"
    assert all(chapters.count(ch) >= 2 for ch in set(chapters)), "장마다 두 문제 이상"


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
    assert {q for q, _ in expected} == set(question_columns(rows["master"])), "모든 문제가 틀려야 합니다"
    assert_lost_points_with_feedback(graded, name, expected)


def _self_check_in_process(nb) -> dict[str, tuple[bool, str]]:
    """학생 노트북을 이 프로세스의 IPython 셸에서 실행하고, 코드 문제마다 자기 점검(``grader.check``)의 (통과, 글)."""
    import tempfile

    from IPython.core.interactiveshell import InteractiveShell

    from attn_course.practice.selfcheck import SelfCheck
    from attn_harness.harness import run_notebook

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{NAME}.ipynb"
        nbformat.write(nb, path)
        InteractiveShell.clear_instance()
        namespace, _ = run_notebook(str(path), {})
        InteractiveShell.clear_instance()
    grader = SelfCheck(NAME)
    code = [q for q in grader.questions.values() if any(p.kind == "check" for p in q.parts)]
    return {q.name: (lambda r: (r.passed, r.text))(grader.check(q.name, namespace)) for q in code}


def test_self_check_and_make_grade_agree_on_the_honest_baselines(graded, assignment_dist):
    """자기 점검(참조 없이, 공개 명세의 공개 경우로)과 make grade 가 마스터(모두 통과, 만점), 빈 답(모두 실패, 0점),
    알려진 틀린 풀이마다(둘 다 같은 한국어 힌트) 같은 판정을 냅니다."""
    rows, feedback = graded
    hints = dict(MISTAKES)
    cases = {"master": solved(assignment_dist), "untouched": student(assignment_dist)}
    for name, (changes, _) in WRONG.items():
        nb = solved(assignment_dist)
        for prefix, source in changes.items():
            define(nb, prefix, source)
        cases[name] = nb
    for name, nb in cases.items():
        checked = _self_check_in_process(nb)
        assert len(checked) == 12, sorted(checked)
        text = (feedback / f"{name}.txt").read_text(encoding="utf-8")
        for q, (passed, report) in checked.items():
            full = float(rows[name][q]) == float(rows["master"][q])
            assert passed == full, f"{name}/{q}: 자기 점검 {passed}, 채점 {rows[name][q]}점\n{report}"
            if name.startswith("wrong_"):
                block = text.split(f"\n{q}: ", 1)[1].split("\n\nq", 1)[0]
                said = {k for k, h in hints.items() if h in report}
                graded_said = {k for k, h in hints.items() if h in block}
                assert said and said <= graded_said, f"{name}/{q}: 자기 점검 {said}, 채점 {graded_said}"
            if name == "untouched":
                assert not passed and float(rows[name][q]) == 0.0


def test_calling_the_library_or_torch_gets_zero_as_the_header_says(graded):
    """모듈을 직접 부른 2.4, getattr 문자열로 닿은 F.scaled_dot_product_attention 을 쓴 7.2, 값은 맞지만 apply_rope 에
    순열을 걸어 만든 8.1은 0점입니다."""
    rows, feedback = graded
    assert float(rows["library"]["q2_4"]) == 0.0 < float(rows["master"]["q2_4"])
    assert float(rows["library"]["q7_2"]) == 0.0 < float(rows["master"]["q7_2"])
    assert float(rows["library"]["q8_1"]) == 0.0 < float(rows["master"]["q8_1"])
    text = (feedback / "library.txt").read_text(encoding="utf-8")
    assert "attn_lib.apply_rope" in text.split("\nq8_1: ", 1)[1].split("\n\nq", 1)[0]
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


def test_feedback_never_shows_hidden_inputs_or_expected_values(graded, assignment_dist):
    """숨은 경우의 피드백은 힌트만: 시드, 숨은 경우의 모양 설명, 정답 값이 피드백에 없습니다."""
    rows, feedback = graded
    bundle = json.loads((assignment_dist / f"{NAME}-grading.json").read_text(encoding="utf-8"))
    text = "\n".join(p.read_text(encoding="utf-8") for p in feedback.glob("*.txt"))
    assert bundle["seed_key"] not in text
    from attn_grader.judge import question_from_bundle, run_seeds  # 학생마다 다른 숨은 시드

    for name in rows:
        for q in map(question_from_bundle, bundle["questions"]):
            for runs in run_seeds(bundle["seed_key"], name, q).values():
                assert not any(re.search(rf"\b{s}\b", text) for s in runs[1:]), (name, q.name)


# ---- 값과 선택지 문제의 힌트 (채점 묶음의 표를 그대로 읽어, 샌드박스 없이) -----------------------------

def _answer_parts(dist: Path) -> list[tuple[str, dict]]:
    bundle = json.loads((dist / f"{NAME}-grading.json").read_text(encoding="utf-8"))
    return [(q["name"], p) for q in bundle["questions"] for p in q["parts"] if p["kind"] != "check"]


def _other_answer(fmt: dict, expected, avoid: list):
    """형식은 맞지만 정답도, 힌트가 있는 틀린 답도 아닌 답 (기본 힌트가 나와야 하는 답)."""
    def variants(value, rule):
        kind = rule["type"]
        if kind == "int":
            yield from (v for k in range(1, 30) for v in (value + k, value - k)
                        if (rule.get("lo") is None or v >= rule["lo"]) and (rule.get("hi") is None or v <= rule["hi"]))
        elif kind == "number":
            yield from (value * 1.5 + k for k in range(1, 30))
        elif kind == "tuple":
            rules = rule["items"] or [rule["of"]] * len(value)
            yield from ((v, *value[1:]) for v in variants(value[0], rules[0]))
        elif kind == "set":
            item = rule["of"]
            domain = [(b, i) for b in range(item["items"][0]["lo"], item["items"][0]["hi"] + 1)
                      for i in range(item["items"][1]["lo"], item["items"][1]["hi"] + 1)]
            yield from (set(value) ^ {d} for d in domain)
    for candidate in variants(expected, fmt):
        if candidate != expected and all(candidate != a for a in avoid):
            return candidate
    raise AssertionError(f"{fmt}: 다른 답을 만들지 못했습니다")


def test_every_value_and_choice_question_has_hints_for_known_wrong_answers(assignment_dist):
    parts = _answer_parts(assignment_dist)
    assert len({q for q, _ in parts}) >= 10
    assert all(p["hints"] or p.get("default") for _, p in parts)


def test_each_known_wrong_value_or_choice_fails_with_its_hint(assignment_dist):
    from attn_course.practice.codec import decode, encode
    from attn_grader.judge import _judge_answer

    checked = 0
    for question, part in _answer_parts(assignment_dist):
        assert _judge_answer(part, {"value": part["expected"]}) == (True, ""), (question, part["name"])
        if part["kind"] == "value":
            keys = [decode(k) for k, _ in part["hints"]]
            wrong = [(decode(k), hint) for k, hint in part["hints"]]
            wrong.append((_other_answer(part["format"], decode(part["expected"]), keys), part["default"]))
            for answer, hint in wrong:
                answer = set(answer) if isinstance(answer, frozenset) else answer
                ok, text = _judge_answer(part, {"value": encode(answer)})
                assert not ok and hint in text and re.search(r"[가-힣]", hint), (part["name"], answer, text)
                checked += 1
        else:
            correct = decode(part["expected"])
            for letter in part["options"]:
                answer = "".join(sorted(set(correct) ^ {letter}))
                ok, text = _judge_answer(part, {"value": encode(answer)})
                assert not ok and part["hints"][letter] in text, (part["name"], letter)
                checked += 1
    assert checked >= 40


# ---- 학생판에 새는 것이 없는지 --------------------------------------------------------------

def _student_text(dist: Path) -> str:
    parts = [(dist / "student" / f"{NAME}.ipynb").read_text(encoding="utf-8")]
    parts += [p.read_text(encoding="utf-8") for p in sorted((dist / "student").glob("*.json"))]
    nb = json.loads(parts[0])
    parts += ["".join(c["source"]) for c in nb["cells"]]  # JSON 이스케이프 없이도 찾도록
    with zipfile.ZipFile(dist / f"{NAME}-student.zip") as zf:
        parts += [zf.read(n).decode("utf-8", "replace") for n in zf.namelist()]
    return "\n".join(parts)


def _solution_lines(dist: Path) -> set[str]:
    auto = nbformat.read(dist / "autograder" / f"{NAME}.ipynb", as_version=4)
    stud = {line.strip() for c in student(dist).cells for line in c.source.splitlines()}
    return {line.strip() for c in auto.cells if c.cell_type == "code" for line in c.source.splitlines()
            if len(line.strip()) >= 12 and line.strip() not in stud}


def test_student_version_has_no_solution_lines(assignment_dist):
    lines = _solution_lines(assignment_dist)
    assert len(lines) >= 20, "풀이 줄을 너무 적게 찾았습니다 (검사가 헛돌지 않는지)"
    text = _student_text(assignment_dist)
    assert not sorted(line for line in lines if line in text), "학생판에 풀이 줄이 있습니다"


def test_answers_and_hints_are_only_in_the_instructor_bundle(assignment_dist):
    """값·선택지 힌트는 채점 묶음(강사 전용)에만: 학생판, 공개 명세, 학생이 설치하는 attn_lib·attn_course 에 없습니다."""
    hints = [h for _, p in _answer_parts(assignment_dist) for h in
             ([t for _, t in p["hints"]] if p["kind"] == "value" else list(p["hints"].values())) + [p.get("default", "")] if h]
    assert len(hints) >= 40
    library = "\n".join(p.read_text(encoding="utf-8") for pkg in ("attn_lib", "attn_course")
                        for p in (ROOT / pkg).rglob("*") if p.suffix in (".py", ".json"))
    text = _student_text(assignment_dist)
    assert not [h for h in hints if h in text], "학생판에 힌트가 있습니다"
    assert not [h for h in hints if len(h) >= 20 and h in library], "학생이 설치하는 패키지에 힌트가 있습니다"
    public = json.loads((ROOT / "attn_course" / "practice" / "public_spec.json").read_text(encoding="utf-8"))[NAME]
    assert not re.search(r'"(expected|hints|default|seed_key)"', json.dumps(public))


def test_package_data_holds_the_current_public_spec(assignment_dist):
    """학생 노트북의 grader 가 쓰는 공개 명세(패키지 데이터)가 지금 마스터의 명세와 같습니다."""
    from attn_grader.judge import question_from_bundle

    bundle = json.loads((assignment_dist / f"{NAME}-grading.json").read_text(encoding="utf-8"))
    public = json.loads((ROOT / "attn_course" / "practice" / "public_spec.json").read_text(encoding="utf-8"))[NAME]
    from attn_grader.build import same_spec

    want = json.loads(json.dumps([question_from_bundle(q).public() for q in bundle["questions"]]))
    # 공개 경우의 기대 출력은 float32 계산이라 CPU 에 따라 마지막 자리가 다를 수 있어 1e-6 안에서 비교합니다
    assert same_spec(public["questions"], want), "make assignments 로 attn_course/practice/public_spec.json 을 다시 쓰세요"
    assert not same_spec([1.0], [1.001]) and not same_spec({"a": 1}, {"b": 1}) and same_spec([1.0], [1.0 + 1e-9])


def test_student_notebook_shows_each_questions_points(assignment_dist):
    nb = student(assignment_dist)
    bundle = json.loads((assignment_dist / f"{NAME}-grading.json").read_text(encoding="utf-8"))
    text = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for q in bundle["questions"]:
        number = q["name"][1:].replace("_", ".")
        assert re.search(rf"\*\*{re.escape(number)}\*\* \({q['points']:g}점", text), q["name"]
    assert "모두 맞아야 점수를 받습니다" in text and "이미 만들어진 어텐션을 부르면 0점" in text


# ---- 자기 점검 (학생판을 실제 커널로) ---------------------------------------------------------------

def _run_checks(nb, folder: Path) -> dict[str, tuple[str, list]]:
    """``nb`` 를 ``folder`` 에서 실제 커널로 실행하고, ``grader.check("qN_M")`` 셀마다 (출력 글, 오류 출력)을 모읍니다."""
    from nbclient import NotebookClient

    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(folder)}},
                   allow_errors=True).execute()
    checks = {}
    for cell in nb.cells:
        m = re.match(r'grader\.check\("(q\d+_\d+)"\)', cell.source.strip()) if cell.cell_type == "code" else None
        if m:
            text = "".join(o.get("data", {}).get("text/plain", "") + o.get("text", "") for o in cell.outputs)
            checks[m.group(1)] = (text, [o for o in cell.outputs if o.get("output_type") == "error"])
    return checks


@pytest.fixture(scope="module")
def self_checked(assignment_dist, tmp_path_factory):
    """학생판 노트북 파일 하나만 빈 폴더에 두고 실제 커널로: 2.4는 스케일링을 빼먹고, 7.2는 라이브러리를 부름."""
    work = tmp_path_factory.mktemp("alone")
    nb = solved(assignment_dist)
    define(nb, MHA_HEAD, mha_source(scale=""))
    define(nb, GQA_HEAD, LIBRARY[GQA_HEAD])
    nb.cells.append(nbformat.v4.new_code_cell("print(grader.check_all())\nprint(grader.export())"))
    nbformat.write(nb, work / f"{NAME}.ipynb")
    assert [p.name for p in work.iterdir()] == [f"{NAME}.ipynb"]
    return _run_checks(nb, work), nb, work


def test_self_check_runs_alone_and_speaks_korean(self_checked):
    checks, _, _ = self_checked
    assert len(checks) >= 25
    for question, (text, errors) in checks.items():
        assert not errors, f"{question}: {errors[0].get('ename')}: {errors[0].get('evalue')}"
        assert re.search(r"[가-힣]", text) and "All test cases passed" not in text, text
    assert MISTAKES["no_scale"] in checks["q2_4"][0]
    assert "숨은 테스트는 제출한 뒤에 채점됩니다" in checks["q2_3"][0]


def test_self_check_says_the_value_itself_is_checked_at_grading(self_checked):
    checks, _, _ = self_checked
    for q in ("q1_1", "q2_1", "q6_1", "q7_1"):
        assert "값이 맞는지는 제출한 뒤 채점할 때 확인합니다" in checks[q][0], checks[q][0]


def test_self_check_agrees_with_the_grade_on_library_calls(self_checked, graded):
    """7.2에서 라이브러리를 부르면 자기 점검이 '0점이 됩니다'라고 말하고, 채점도 0점 (같은 규칙)."""
    checks, _, _ = self_checked
    assert "채점에서 이 문제는 0점이 됩니다" in checks["q7_2"][0] and "F.scaled_dot_product_attention" in checks["q7_2"][0]
    rows, _ = graded
    assert float(rows["library"]["q7_2"]) == 0.0


def test_check_all_and_offline_export(self_checked):
    _, nb, work = self_checked
    out = "".join(o.get("text", "") for o in nb.cells[-1].outputs)
    assert not [o for o in nb.cells[-1].outputs if o.get("output_type") == "error"], out
    assert "공개 점검: 25문제 가운데" in out
    zipped = work / f"{NAME}_제출.zip"
    assert zipped.exists() and zipfile.ZipFile(zipped).namelist() == [f"{NAME}.ipynb"]


# ---- 비공개 마스터와 반 비밀 값 -------------------------------------------------------------------

@pytest.fixture(scope="module")
def class_dist(tmp_path_factory) -> tuple[Path, Path]:
    """저장소 마스터를 '비공개 경로'에 복사하고 버리는 비밀 값으로 만든 반 판."""
    private = tmp_path_factory.mktemp("private")
    shutil.copy(MASTER, private / MASTER.name)
    out = tmp_path_factory.mktemp("class_dist")
    secret = private / "class.secret"
    rc = subprocess.run([sys.executable, "-m", "attn_grader.build", "--master",
                         str(private / MASTER.name), "--secret", str(secret), "--dist", str(out)],
                        capture_output=True, text=True)
    assert rc.returncode == 0, rc.stderr[-3000:]
    assert "반 비밀 값을 새로 만들었습니다" in rc.stdout and oct(secret.stat().st_mode)[-3:] == "600"
    return out / NAME, private


def test_class_values_and_letters_differ_from_the_practice_version(class_dist, assignment_dist):
    from attn_course.practice.codec import decode

    dist, _ = class_dist
    practice = {p["name"]: decode(p["expected"]) for _, p in _answer_parts(assignment_dist)}
    ours = {p["name"]: decode(p["expected"]) for _, p in _answer_parts(dist)}
    assert practice.keys() == ours.keys()
    changed = [n for n in ours if ours[n] != practice[n]]
    assert len(changed) >= 6, f"반마다 바뀐 답이 너무 적습니다: {changed}"
    assert (dist / "student" / f"{NAME}.spec.json").exists(), "비공개 마스터의 학생판에는 공개 명세가 함께 있어야 합니다"
    public_text = (ROOT / "attn_course" / "practice" / "public_spec.json").read_text(encoding="utf-8")
    class_text = (dist / f"{NAME}-grading.json").read_text(encoding="utf-8")
    assert json.loads(class_text)["seed_key"] not in public_text


def test_class_master_gets_full_marks_and_practice_answers_do_not_transfer(class_dist, assignment_dist, tmp_path):
    require_sandbox()
    dist, _ = class_dist
    subs = tmp_path / "subs"
    subs.mkdir()
    nbformat.write(nbformat.read(dist / "autograder" / f"{NAME}.ipynb", as_version=4), subs / "class_master.ipynb")
    nbformat.write(nbformat.read(assignment_dist / "autograder" / f"{NAME}.ipynb", as_version=4), subs / "copied.ipynb")
    rows = grade(subs, dist, tmp_path / "grades.csv", timeout=180)
    assert float(rows["class_master"]["total"]) == float(rows["class_master"]["possible"])
    value_questions = [q for q in question_columns(rows["copied"]) if float(rows["copied"][q]) < float(rows["class_master"][q])]
    assert len(value_questions) >= 6, value_questions
    assert float(rows["copied"]["total"]) < float(rows["class_master"]["total"])


def test_a_changed_bundle_is_refused(class_dist, tmp_path):
    dist, _ = class_dist
    copy = tmp_path / "d"
    shutil.copytree(dist, copy)
    bundle = copy / f"{NAME}-grading.json"
    bundle.chmod(0o644)
    bundle.write_text(bundle.read_text(encoding="utf-8").replace('"points": 5', '"points": 500'), encoding="utf-8")
    (tmp_path / "subs").mkdir()
    nbformat.write(student(dist), tmp_path / "subs" / "x.ipynb")
    with pytest.raises(SystemExit, match="해시"):
        load_script("grade").main([str(tmp_path / "subs"), "--bundle", str(bundle), "--output", str(tmp_path / "g.csv")])


def test_built_files_are_read_only(assignment_dist):
    for name in (f"{NAME}-grading.json", f"{NAME}-autograder.zip"):
        assert oct((assignment_dist / name).stat().st_mode)[-3:] == "444", name


# ---- Gradescope zip (같은 명세; 학생 프로세스 안에서 채점) ---------------------------------------------

def test_gradescope_zip_gives_the_master_full_marks_with_otter_run(assignment_dist, tmp_path):
    nb = nbformat.read(assignment_dist / "autograder" / f"{NAME}.ipynb", as_version=4)
    nbformat.write(nb, tmp_path / "master.ipynb")
    out = tmp_path / "out"
    out.mkdir()
    subprocess.run([sys.executable, "-m", "otter", "run", "-a", str(assignment_dist / f"{NAME}-autograder.zip"), "-o", str(out),
                    "--no-logo", str(tmp_path / "master.ipynb")], check=True, capture_output=True, cwd=out)
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    tests = [t for t in results["tests"] if "max_score" in t]
    assert len(tests) >= 25 and all(t["score"] == t["max_score"] for t in tests), [t["name"] for t in tests if t["score"] != t["max_score"]]


class _EveryOption:
    """``pick``이 호출마다 보기 목록의 ``k``번째(목록이 짧으면 나머지)를 고르는 가짜 반 난수."""

    def __init__(self, k: int) -> None:
        self.k = k

    def choice(self, options):
        return options[self.k % len(options)]

    def sample(self, items, n):
        return list(items)[self.k % len(items):] + list(items)[:self.k % len(items)]


def test_every_class_option_of_the_master_renders(monkeypatch):
    """반 판은 PARAMS의 pick 보기 가운데 하나씩을 반 비밀 값으로 고릅니다. 어느 보기를 골라도 명세가 만들어져야 합니다
    (길이 4인 문장이 없는 q33 보기는 SPEC의 q33.index(4)에서 실패해, 비밀 값에 따라 반 판 빌드가 네 번에 한 번꼴로
    깨졌습니다). 호출마다 k번째 보기를 고르는 가짜 난수로 k = 0..3을 돌려 보기마다 한 번씩 만들어 봅니다."""
    master_mod = load_script("assignment_master")
    seen = set()
    for k in range(4):  # PARAMS의 가장 긴 보기 목록이 4개
        monkeypatch.setattr(master_mod, "class_rng", lambda secret, name, k=k: _EveryOption(k))
        rendered = master_mod.render(nbformat.read(MASTER, as_version=4), b"secret", NAME)
        assert rendered.questions and all(q.parts for q in rendered.questions), k
        seen.add(json.dumps(rendered.params, sort_keys=True, default=str))
    assert len(seen) == 4, "보기를 바꿔 골라도 값이 같습니다: 가짜 난수가 쓰이지 않았습니다"
