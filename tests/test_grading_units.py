"""채점의 부품을 따로: 값 주고받기(codec), 형식 규칙, 채점기와 하네스의 연결, 점수 규칙, 자기 점검.

샌드박스 없이 빠르게 돕니다. 전체 흐름(샌드박스 안의 하네스와 밖의 채점)은 ``test_assignments.py``,
공격은 ``test_grading_sandbox.py``와 ``test_grading_forgery.py``.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
import torch

from attn_lib import MultiHeadAttention
from attn_grader.registry import CHECKERS
from attn_course.practice.codec import CodecError, Opaque, decode, encode
from attn_course.practice.selfcheck import GRADING_ENV
from attn_grader.judge import judge_part_live, judge_question, run_seeds
from attn_grader.session import start_harness
from attn_harness.harness import _answer
from attn_course.practice.selfcheck import SelfCheck
from attn_course.practice.spec import Int, Number, Part, Question, SetOf, Tuple, check, format_error, value


def roundtrip(x):
    return decode(json.loads(json.dumps(encode(x))))


def test_plain_values_survive_the_trip_with_their_types():
    for x in [None, True, 3, -2**40, 0.1, "글자", (1, 2.5), [1, [2]], frozenset({(0, 1), (2, 3)}), Ellipsis]:
        assert roundtrip(x) == x and type(roundtrip(x)) is type(x), x
    assert roundtrip({(0, 1)}) == frozenset({(0, 1)})
    assert math.isnan(roundtrip(float("nan"))) and roundtrip(float("-inf")) == float("-inf")
    assert roundtrip(np.float64(0.5)) == 0.5 and roundtrip(torch.Size([2, 3])) == (2, 3)


@pytest.mark.parametrize("dtype", [torch.float32, torch.float64, torch.bfloat16, torch.int64, torch.bool])
def test_tensors_survive_exactly_with_nan_and_inf(dtype):
    t = torch.tensor([[0.1, -2.0, float("inf")], [float("-inf"), 3.0, 0.0]]) if dtype.is_floating_point else torch.tensor([[1, 0, 1]])
    t = t.to(dtype)
    back = roundtrip(t)
    assert back.dtype == dtype and back.shape == t.shape
    assert torch.equal(torch.nan_to_num(back.double()), torch.nan_to_num(t.double()))
    nan = torch.tensor([float("nan")])
    assert torch.isnan(roundtrip(nan)).all()


def test_attention_modules_come_back_as_the_trusted_class():
    torch.manual_seed(0)
    m = MultiHeadAttention(8, 2, num_kv_heads=1, rope_base=500.0).eval()
    back = roundtrip(m)
    assert type(back) is MultiHeadAttention and back.num_kv_heads == 1 and back.rope_base == 500.0
    x = torch.randn(1, 3, 8)
    assert torch.equal(back(x)[0], m(x)[0])


def test_lying_objects_become_opaque_or_their_true_value():
    class AlwaysEqual:
        def __eq__(self, other):
            return True

    class LyingInt(int):
        def __index__(self):
            return 999

        def __eq__(self, other):
            return True

    class Sub(torch.Tensor):
        def tolist(self):
            return [42]

    assert isinstance(roundtrip(AlwaysEqual()), Opaque)
    assert not (roundtrip(AlwaysEqual()) == 1)
    assert roundtrip(LyingInt(3)) == 3 and type(roundtrip(LyingInt(3))) is int
    back = roundtrip(torch.zeros(2).as_subclass(Sub))
    assert type(back) is torch.Tensor and back.tolist() == [0.0, 0.0]


@pytest.mark.parametrize("bad", [
    {"tensor": {"dtype": "float32", "shape": [3], "data": [1.0]}},
    {"tensor": {"dtype": "complex64", "shape": [1], "data": [1.0]}},
    {"tensor": {"dtype": "int64", "shape": [1], "data": [True]}},
    {"tensor": {"dtype": "float32", "shape": [10**9], "data": []}},
    {"module": {"type": "os.system", "config": {"embed_dim": 8}, "state": {}}},
    {"module": {"type": "MultiHeadAttention", "config": {"embed_dim": 10**6, "num_heads": 1, "num_kv_heads": 1,
                                                         "bias": True, "dropout": 0.0}, "state": {}}},
    {"pickle": "gASV"},
    {"tuple": [1], "extra": 2},
])
def test_malformed_json_is_refused(bad):
    with pytest.raises(CodecError):
        decode(bad)


def test_format_rules_say_what_came_in_korean():
    assert format_error((1, 2, 3), Tuple(of=Int(), n=3)) is None
    assert "튜플" in format_error([1, 2, 3], Tuple(of=Int(), n=3))
    assert "bool" in format_error(True, Int())
    assert format_error({(0, 1)}, SetOf(Tuple(Int(0, 2), Int(0, 3)))) is None
    assert "0 이상 2 이하의 정수" in format_error({(5, 1)}, SetOf(Tuple(Int(0, 2), Int(0, 3))))
    assert "양수" in format_error(-1.0, Number(positive=True))


class InProcessSession:
    """샌드박스 없이 같은 프로세스의 이름공간에 답하는 하네스 (요청과 답은 JSON을 거침: 실제 연결과 같은 꼴)."""

    def __init__(self, namespace: dict, *, garble: bool = False) -> None:
        self.namespace, self.garble, self.dead, self.executed, self.requests = namespace, garble, False, {}, []

    def request(self, message: dict):
        message = json.loads(json.dumps(message))
        self.requests.append(message)
        reply = json.loads(json.dumps(_answer(message, self.namespace)))
        if self.garble and message.get("op") == "call":
            return {"result": {"tensor": {"dtype": "float32", "shape": [10**9], "data": []}}}
        return reply


def test_the_harness_answers_over_two_pipes_and_a_huge_reply_ends_the_connection(tmp_path):
    """실제 하네스(샌드박스 없이): 값 요청, 호출 요청, 제자리에서 바꾼 인자, 너무 큰 답이면 연결을 끊음."""
    import nbformat

    import attn_grader.session as S

    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import torch\nx = 3\ndef double(t):\n    t.mul_(2)\n    return t + 1\n"
        "def spam():\n    return list(range(10**5))\n")])
    nbformat.write(nb, tmp_path / "n.ipynb")
    session = start_harness(tmp_path / "n.ipynb", 60, tmp_path / "log.txt", cwd=tmp_path)
    assert session.wait_executed()["cells"] == 1
    assert session.request({"op": "value", "name": "x"}) == {"value": 3}
    assert session.request({"op": "value", "name": "double"}) == {"callable": True}
    assert session.request({"op": "value", "name": "nope"}) == {"missing": True}
    reply = session.request({"op": "call", "fn": "double", "args": encode([[torch.ones(2)], {}])})
    assert torch.equal(decode(reply["result"]), torch.full((2,), 3.0)) and "0" in reply["mutated"]
    old, S.MAX_REPLY = S.MAX_REPLY, 10_000
    try:
        assert session.request({"op": "call", "fn": "spam", "args": encode([[], {}])}) is None
    finally:
        S.MAX_REPLY = old
    assert session.dead and session.request({"op": "value", "name": "x"}) is None
    session.close()


# ---- 채점기를 밖에서 돌리고 학생 함수는 하네스에서 ----------------------------------------------------

def _gqa(query, key, value, attn_mask=None):
    G = query.shape[1] // key.shape[1]
    k, v = key.repeat_interleave(G, dim=1), value.repeat_interleave(G, dim=1)
    s = query @ k.transpose(-2, -1) / math.sqrt(query.shape[-1])
    if attn_mask is not None:
        s = s.masked_fill(~attn_mask, float("-inf"))
    w = torch.softmax(s, dim=-1)
    return w @ v, w


def test_the_checker_outside_reaches_the_verdict_from_values_only():
    part = check("check_gqa_attention", "gqa_attention", forbid_library=True).data
    seeds = [0, 11, 12]
    session = InProcessSession({"gqa_attention": _gqa})
    outcomes, library = judge_part_live(part, session, seeds)
    assert [ok for ok, _ in outcomes] == [True, True, True] and library == set()
    calls = [r for r in session.requests if r["op"] == "call"]
    assert calls and all(set(r) == {"op", "fn", "args", "library"} for r in calls), "입력만 값으로 보냅니다"
    wrong = InProcessSession({"gqa_attention": lambda q, k, v, m=None: _gqa(q * 2, k, v, m)})
    assert not any(ok for ok, _ in judge_part_live(part, wrong, seeds)[0])


def test_a_reply_the_checker_cannot_read_fails_the_run():
    part = check("check_gqa_attention", "gqa_attention").data
    outcomes, _ = judge_part_live(part, InProcessSession({"gqa_attention": _gqa}, garble=True), [0])
    assert outcomes[0][0] is False and "읽을 수 없습니다" in outcomes[0][1]


def test_library_calls_recorded_in_the_sandbox_zero_the_question():
    part = check("check_gqa_attention", "gqa_attention", forbid_library=True, hidden_runs=0)
    q = Question("q7_2", 4.0, True, [part])

    def via_torch(query, key, value, attn_mask=None):
        out = torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask, enable_gqa=True)
        return out, _gqa(query, key, value, attn_mask)[1]

    grade = judge_question(q, InProcessSession({"gqa_attention": via_torch}), {0: [0]})
    assert grade.score == 0.0 and "F.scaled_dot_product_attention" in grade.feedback()


def test_in_place_changes_of_arguments_are_applied_to_the_checker_copy():
    part = check("check_ablate_head", "ablate_head", hidden_runs=0).data

    def in_place(mha, h):
        with torch.no_grad():
            mha.W_v.weight[h * mha.head_dim:(h + 1) * mha.head_dim] = 0
        return mha

    outcomes, _ = judge_part_live(part, InProcessSession({"ablate_head": in_place}), [0])
    assert not outcomes[0][0] and "제자리" in outcomes[0][1]


def test_scores_follow_the_rules_and_stay_in_range():
    parts = [value("a", Int()), value("b", Int())]
    for p, want in zip(parts, (1, 2)):
        p.data.update(expected=want, hints=[])
    q = Question("q", 3.0, False, parts)
    assert judge_question(q, InProcessSession({"a": 1, "b": 0}), {}).score == 1.5
    assert judge_question(Question("q", 3.0, True, parts), InProcessSession({"a": 1, "b": 0}), {}).score == 0.0
    assert judge_question(q, InProcessSession({"a": 1, "b": 2, "score": 999}), {}).score == 3.0
    assert judge_question(q, InProcessSession({}), {}).score == 0.0


def test_hidden_seeds_differ_by_student_and_never_equal_the_public_seed():
    q = Question("q", 1.0, False, [check("check_gqa_attention", "gqa_attention", hidden_runs=3)])
    a, b = run_seeds("key", "alice", q)[0], run_seeds("key", "bob", q)[0]
    assert a[0] == b[0] == 0 and a[1:] != b[1:] and 0 not in a[1:]
    assert run_seeds("key", "alice", q) == run_seeds("key", "alice", q)
    assert run_seeds("other", "alice", q) != run_seeds("key", "alice", q)


# ---- 자기 점검 ----------------------------------------------------------------------------------

def test_self_check_reads_the_public_spec_and_checks_formats(monkeypatch):
    grader = SelfCheck("attention_hw")
    env = {"q2_2_shape": [2, 3, 7, 4]}
    report = grader.check("q2_2", env)
    assert not report.passed and "튜플" in report.text and "1점" in report.text
    env["q2_2_shape"] = (9, 9, 9, 9)
    report = grader.check("q2_2", env)
    assert report.passed and "값이 맞는지는 제출한 뒤 채점할 때 확인합니다" in report.text
    assert "없습니다" in grader.check("q9_9", env).text
    monkeypatch.setenv(GRADING_ENV, "1")
    assert "건너뜁니다" in grader.check("q2_2", {}).text


def test_self_check_tells_an_all_or_nothing_library_caller_it_will_get_zero():
    def via_torch(query, key, value, attn_mask=None):
        out = torch.nn.functional.scaled_dot_product_attention(query, key, value, attn_mask=attn_mask, enable_gqa=True)
        return out, _gqa(query, key, value, attn_mask)[1]

    report = SelfCheck("attention_hw").check("q7_2", {"gqa_attention": via_torch})
    assert not report.passed and "0점이 됩니다" in report.text and "모두 맞아야" in report.text
    assert SelfCheck("attention_hw").check("q7_2", {"gqa_attention": _gqa}).passed


def test_spec_parts_public_view_has_no_answers():
    p = Part("value", {"name": "x", "format": Int(), "tol": 1e-6, "hints": {1: "힌트"}, "default": "기본", "expected": 3})
    assert set(p.public()) == {"kind", "name", "format", "tol"}


# ---- 8장과 10장의 채점기: 기록과 재생, 금지한 회전, 입력을 바꾸는 제출 -------------------------------------

def _rope_pairs(x, start, base=10000.0):
    L, Dh = x.shape[-2:]
    angle = torch.arange(start, start + L).double()[:, None] * base ** (-torch.arange(0, Dh, 2).double() / Dh)
    c, s = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    a, b = x[..., 0::2], x[..., 1::2]
    return torch.stack((a * c - b * s, a * s + b * c), dim=-1).flatten(-2)


def _rope_via_library(x, start, base=10000.0):
    """값은 맞지만 금지한 attn_lib.apply_rope 에 특징 순열을 걸어 만든 8.1."""
    from attn_lib import apply_rope

    order = torch.cat([torch.arange(0, x.shape[-1], 2), torch.arange(1, x.shape[-1], 2)])
    return apply_rope(x[..., order], torch.arange(start, start + x.shape[-2]), base=base)[..., torch.argsort(order)]


def _merge(m1, l1, o1, m2, l2, o2):
    m = torch.maximum(m1, m2)
    base = torch.nan_to_num(m, neginf=0.0)
    a1, a2 = l1 * torch.exp(m1 - base), l2 * torch.exp(m2 - base)
    total = a1 + a2
    return m, total, (a1[..., None] * o1 + a2[..., None] * o2) / total.clamp(min=1e-30)[..., None]


def test_the_long_context_checkers_reach_the_same_verdict_from_outside():
    for part, fn in [(check("check_rope_pairs", "rope_pairs", forbid_library=True).data, {"rope_pairs": _rope_pairs}),
                     (check("check_merge_softmax_states", "merge_softmax_states").data, {"merge_softmax_states": _merge})]:
        seeds = [0, 11, 12]
        outcomes, library = judge_part_live(part, InProcessSession(fn), seeds)
        assert [ok for ok, _ in outcomes] == [True, True, True] and library == set(), (part["checker"], outcomes)


def test_rope_through_the_library_is_zero_even_with_right_values():
    """apply_rope 에 순열을 걸면 값은 맞습니다: 채점기는 통과하지만, 기록된 호출 때문에 8.1은 0점."""
    part = check("check_rope_pairs", "rope_pairs", forbid_library=True, hidden_runs=0)
    outcomes, library = judge_part_live(part.data, InProcessSession({"rope_pairs": _rope_via_library}), [0])
    assert outcomes[0][0] and library == {"attn_lib.apply_rope", "attn_lib.rotate_half"}
    grade = judge_question(Question("q8_1", 4.0, True, [part]), InProcessSession({"rope_pairs": _rope_via_library}),
                           {0: [0]})
    assert grade.score == 0.0 and "attn_lib.apply_rope" in grade.feedback()


def test_changing_the_inputs_in_place_cannot_move_the_reference():
    """입력 상태를 0으로 바꾸고 0을 돌려주는 제출: 채점기는 학생에게 사본을 넘기므로 참조는 그대로이고 틀립니다."""
    def zeroing(*states):
        for s in states:
            s.zero_()
        return tuple(torch.zeros_like(s) for s in states[:3])

    part = check("check_merge_softmax_states", "merge_softmax_states").data
    assert not CHECKERS["check_merge_softmax_states"](zeroing).passed
    outcomes, _ = judge_part_live(part, InProcessSession({"merge_softmax_states": zeroing}), [0])
    assert outcomes[0][0] is False
    assert not CHECKERS["check_rope_pairs"](lambda x, start, base=10000.0: x.zero_()).passed


def test_the_public_run_is_feedback_only_when_hidden_runs_exist():
    """공개 명세의 공개 경우(입력과 기대 출력)를 외워 답하는 제출: 공개 실행은 맞지만 점수는 숨은 실행에서만 나옵니다."""
    part = check("check_gqa_attention", "gqa_attention", hidden_runs=2)
    q = Question("q7_2", 3.0, False, [part])
    table = {}
    for pq in SelfCheck("attention_hw").questions.values():  # 학생이 가진 공개 명세의 공개 경우를 표로
        for p in pq.parts:
            if p.kind == "check" and p.data["checker"] == "check_gqa_attention":
                table = {json.dumps(c["args"], sort_keys=True): c["want"] for c in p.data["public"]["calls"]}
    assert table

    def memorised(query, key, value, attn_mask=None):  # 공개 경우면 적힌 기대 출력, 아니면 엉터리
        want = table.get(json.dumps(encode([[query, key, value, attn_mask], {}]), sort_keys=True))
        if want is not None:
            return decode(want)
        return torch.zeros(query.shape), torch.zeros(*query.shape[:-1], key.shape[-2])

    seeds = {0: [0, 11, 12]}
    session = InProcessSession({"gqa_attention": memorised})
    grade = judge_question(q, session, seeds)
    outcomes, _ = judge_part_live(part.data, InProcessSession({"gqa_attention": memorised}), [0])
    assert outcomes[0][0] is True, "공개 시드에서는 맞아야 이 검사가 뜻이 있습니다"
    assert grade.score == 0.0, grade.feedback()
    assert judge_question(q, InProcessSession({"gqa_attention": _gqa}), seeds).score == 3.0
    # 숨은 실행이 없는 부분은 공개 실행이 점수
    alone = Question("q", 2.0, False, [check("check_gqa_attention", "gqa_attention", hidden_runs=0)])
    assert judge_question(alone, InProcessSession({"gqa_attention": memorised}), {0: [0]}).score == 2.0


def test_a_tensor_shape_with_millions_of_axes_is_refused_before_any_product():
    with pytest.raises(CodecError):  # 축 수를 먼저 보므로 math.prod 를 하지 않음
        decode({"tensor": {"dtype": "float32", "shape": [200_000] * 2_000_000, "data": []}})
    with pytest.raises(CodecError):
        decode({"tensor": {"dtype": "float32", "shape": [2] * 9, "data": [0.0] * 512}})
    assert decode({"tensor": {"dtype": "float32", "shape": [2] * 8, "data": [0.0] * 256}}).shape == (2,) * 8
