"""그림 요약(attn_course.viz.describe): 손으로 만든 가중치에서 기대하는 한국어 요약이 나오는지, 잘못된 입력은
한국어 오류로 거절하는지 확인합니다.

가중치는 무늬가 뚜렷하도록 이 파일에서 직접 만들고(이전 토큰, 대각선, 첫 토큰, 고른 분포, 고정 키,
반대각선), 요약의 숫자(쿼리 수, 평균 가중치, 포화 비율)는 attn_lib.metrics 등으로 따로 계산해 비교합니다.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch

from attn_lib import attention_entropy, causal_mask, combine_masks, padding_mask, saturation
from attn_course.viz import (
    UNIFORM_ENTROPY,
    describe_accuracy,
    describe_curves,
    describe_head,
    describe_heads,
    describe_mask,
    describe_saturation,
    format_number,
    plain_text,
)
from conftest import first_head, previous_head, raises_korean
from test_glossary import GLOSSARY, parse_glossary

TOKENS = ["나는", "어제", "도서관에서", "책을", "빌렸다"]


def uniform_head(L: int = 5, S: int = 5) -> torch.Tensor:
    return torch.full((L, S), 1.0 / S)


# ---------------------------------------------------------------------------------------
# 헤드 요약: 무늬마다 기대하는 글
# ---------------------------------------------------------------------------------------


def test_previous_token_head_counts_queries_and_reports_the_mean_weight():
    text = describe_head(previous_head(8, 0.9))
    assert text == "대부분의 쿼리(8개 중 7개)가 이전 토큰에 집중 (평균 가중치 0.90)"


def test_diagonal_head_is_self_attention_to_itself():
    assert describe_head(torch.eye(5), TOKENS, TOKENS) == "모든 쿼리(5개)가 자기 자신에 집중 (평균 가중치 1.00)"


def test_first_token_head_names_the_token():
    assert describe_head(first_head(5, 0.95), TOKENS, TOKENS) == "모든 쿼리(5개)가 첫 토큰('나는')에 집중 (평균 가중치 0.95)"
    assert describe_head(first_head(5, 0.95)).startswith("모든 쿼리(5개)가 첫 토큰에 집중")  # 이름이 없으면 따옴표 없이


def test_uniform_head_is_spread_out():
    text = describe_head(uniform_head(5, 5))
    assert text.startswith("고르게 퍼짐: 쿼리 5개 중 5개의 엔트로피가 최댓값의 90% 이상")
    assert "가장 큰 가중치 평균 0.20" in text


def test_fixed_key_anti_diagonal_and_offsets():
    fixed = torch.zeros(5, 5)
    fixed[:, 3] = 1.0
    assert describe_head(fixed, TOKENS, TOKENS) == "모든 쿼리(5개)가 키 '책을'(위치 3)에 집중 (평균 가중치 1.00)"
    anti = torch.eye(6).flip(1)
    assert describe_head(anti).startswith("모든 쿼리(6개)가 반대각선")
    two_back = torch.zeros(6, 6)
    two_back[0, 0] = two_back[1, 0] = 1.0
    for i in range(2, 6):
        two_back[i, i - 2] = 1.0
    assert "2칸 앞 토큰에 집중" in describe_head(two_back)


def test_cross_attention_speaks_of_positions_not_tokens():
    # 쿼리(타깃)와 키(소스)가 다른 문장: "자기 자신"이 아니라 "같은 위치의 키"
    text = describe_head(torch.eye(4), ["x", "y", "z", "w"], ["A", "B", "C", "D"])
    assert text == "모든 쿼리(4개)가 같은 위치의 키에 집중 (평균 가중치 1.00)"
    rect = torch.zeros(3, 5)
    rect[:, 0] = 1.0
    assert describe_head(rect).startswith("모든 쿼리(3개)가 첫 키에 집중")  # L != S: 다른 문장으로 봄


def test_weak_majority_uses_a_softer_verb_and_a_plain_count():
    row = torch.tensor([0.45, 0.25, 0.1, 0.1, 0.05, 0.05])  # 한 키가 가장 크지만 절반 아래
    w = torch.stack([row] * 5 + [row.flip(0)])
    assert describe_head(w) == "대부분의 쿼리(6개 중 5개)가 첫 토큰에 가장 큰 가중치를 줌 (평균 가중치 0.45)"
    w = torch.stack([row] * 4 + [row.flip(0)] * 2)
    assert describe_head(w).startswith("쿼리 6개 중 4개가 첫 토큰에")  # 3/4 아래는 '대부분'이라 하지 않음
    w = torch.stack([row] * 3 + [row.flip(0)] * 3)
    assert describe_head(w).startswith("뚜렷한 무늬 없음")  # 6개 중 3개는 과반이 아님


def test_a_head_that_splits_between_two_keys_names_both():
    """반반 헤드: argmax 하나("첫 토큰에 집중")로 요약하면 틀린 말이 됩니다."""
    w = torch.zeros(6, 6)
    w[0, 0] = w[1, 0] = 1.0  # 행 0, 1은 첫 토큰과 이전 토큰이 같은 자리
    for i in range(2, 6):
        w[i, 0], w[i, i - 1] = 0.45, 0.55
    labels = [f"{i}:{t}" for i, t in enumerate("ABCDEF")]
    assert describe_head(w, labels, labels) == \
        "쿼리 6개 중 4개가 두 키(첫 토큰('0:A'), 이전 토큰)에 나눠 줌 (평균 가중치 0.45, 0.55)"
    for i in range(2, 6):
        w[i, 0], w[i, i - 1] = 0.9, 0.1
    assert describe_head(w).startswith("모든 쿼리(6개)가 첫 토큰에 집중")  # 기울면 한쪽 무늬


def test_no_clear_pattern():
    # 쿼리 i의 argmax 키 = [2, 0, 3, 1]: 첫 토큰, 이전, 다음, 고정 키, 반대각선, 2칸 앞/뒤 모두 4개 중 1개 이하
    w = torch.full((4, 4), 0.1)
    w[torch.arange(4), torch.tensor([2, 0, 3, 1])] = 0.7
    text = describe_head(w)
    assert text == "뚜렷한 무늬 없음: 가장 흔한 것은 첫 토큰 (4개 중 1개), 가장 큰 가중치 평균 0.70"


def test_masked_and_missing_rows_are_left_out_and_reported():
    w = previous_head(6, 1.0)
    w[5] = 0.0  # 모든 키가 가려진 행
    w[4] = float("nan")  # 값이 없는 행 (그림에서 비워 둔 행)
    text = describe_head(w)
    assert text == "대부분의 쿼리(4개 중 3개)가 이전 토큰에 집중 (평균 가중치 1.00), 빈 행 2개 제외"
    assert describe_head(torch.zeros(3, 3)).startswith("값이 있는 쿼리 행이 없음")


def test_uniform_threshold_agrees_with_attention_entropy():
    g = torch.Generator().manual_seed(0)
    for temperature in (0.3, 1.0, 3.0, 10.0):
        w = torch.softmax(torch.randn(6, 6, generator=g) / temperature, dim=-1)
        ratio = attention_entropy(w) / math.log(6)
        uniform = int((ratio >= UNIFORM_ENTROPY).sum())
        text = describe_head(w)
        assert text.startswith("고르게 퍼짐") == (2 * uniform > 6), (temperature, text)
        if 2 * uniform > 6:
            assert f"쿼리 6개 중 {uniform}개" in text


def test_numpy_and_tensor_inputs_give_the_same_text():
    w = previous_head(6, 0.7)
    assert describe_head(w.numpy()) == describe_head(w) == describe_head(w.double())


def test_describe_heads_prefixes_each_head():
    w = torch.stack([previous_head(5, 0.9), first_head(5, 0.95), torch.eye(5), uniform_head()])
    lines = describe_heads(w, TOKENS, TOKENS)
    assert [line.split(":")[0] for line in lines] == ["헤드 0", "헤드 1", "헤드 2", "헤드 3"]
    assert lines[0] == "헤드 0: " + describe_head(w[0], TOKENS, TOKENS)
    assert "이전 토큰" in lines[0] and "첫 토큰('나는')" in lines[1] and "자기 자신" in lines[2]
    assert "고르게 퍼짐" in lines[3]
    named = describe_heads(w[:2], head_names=["헤드 A", "헤드 B"])
    assert named[1].startswith("헤드 B: 모든 쿼리")
    assert describe_heads(torch.eye(3)) == ["헤드 0: " + describe_head(torch.eye(3))]


# ---------------------------------------------------------------------------------------
# 잘못된 입력은 한국어 오류
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("bad, exc, part", [
    (torch.randn(4, 4), ValueError, "소프트맥스"),  # 점수(소프트맥스 전)를 넣음: 음수
    (torch.rand(4, 4) * 0.5, ValueError, "합이 1"),  # 0~1이지만 행 합이 1이 아님
    (torch.softmax(torch.randn(4, 4), dim=0), ValueError, "합이 1"),  # 잘못된 축의 소프트맥스
    (torch.eye(4, dtype=torch.long), TypeError, "실수"),
    ([[1.0, 0.0], [0.0, 1.0]], TypeError, "torch.Tensor"),
    (torch.eye(4)[None], ValueError, "2차원"),
    (torch.tensor([[0.5, float("nan")], [0.5, 0.5]]), ValueError, "NaN"),
    (torch.tensor([[float("inf"), 0.0], [0.5, 0.5]]), ValueError, "0~1"),
])
def test_known_wrong_weights_are_rejected_in_korean(bad, exc, part):
    raises_korean(exc, lambda: describe_head(bad), part)


def test_label_counts_and_types_are_checked():
    raises_korean(ValueError, lambda: describe_head(torch.eye(5), TOKENS[:3], TOKENS), "query_tokens", "5", "3")
    raises_korean(TypeError, lambda: describe_head(torch.eye(5), "나는 어제", None), "query_tokens")
    raises_korean(ValueError, lambda: describe_heads(torch.eye(3)[None], head_names=["a", "b"]), "head_names")
    raises_korean(ValueError, lambda: describe_heads(torch.eye(3)[None, None]), "2차원 또는 3차원")


# ---------------------------------------------------------------------------------------
# 다른 그림의 요약
# ---------------------------------------------------------------------------------------


def test_saturation_summary_uses_the_metrics():
    g = torch.Generator().manual_seed(1)
    w = torch.softmax(torch.randn(4, 6, 6, generator=g) * 4, dim=-1)
    text = describe_saturation(w)
    sat, ent = float(saturation(w)), float(attention_entropy(w).mean())
    assert f"포화 행 {sat:.0%} (행 24개 중 {round(sat * 24)}개)" in text
    assert f"평균 엔트로피 {ent:.2f} nat (log S = {math.log(6):.2f}의 {ent / math.log(6):.0%})" in text
    assert f"0.05 미만 칸 {float((w < 0.05).float().mean()):.0%}" in text
    assert describe_saturation(torch.eye(4)).startswith("포화 행 100% (행 4개 중 4개), 평균 엔트로피 0.00 nat")
    raises_korean(TypeError, lambda: describe_saturation(np.eye(3)), "torch.Tensor")


def test_curve_summary_reports_ends_trend_and_extremes():
    text = describe_curves([1, 2, 4, 8], {"손실": [2.5, 1.0, 0.5, 0.25]}, {"균등 평균": 3.0})
    assert text == "'손실' 처음 2.5, 끝 0.25 (가로축 1~8), 계속 감소; 참고선 '균등 평균' 3 (상수)"
    bump = describe_curves(np.linspace(0, 1, 5), {"구별 여유": [1.0, 1.3, 1.41, 1.2, 1.0]})
    assert bump == "'구별 여유' 처음 1, 끝 1 (가로축 0~1), 최댓값 1.41 (가로축 0.5), 최솟값 1 (가로축 0)"
    assert "계속 증가" in describe_curves([0, 1, 2], {"$d_k$": torch.tensor([0.1, 0.2, 0.3])})
    raises_korean(ValueError, lambda: describe_curves([1, 2], {"a": [1, 2, 3]}), "길이", "2")
    raises_korean(ValueError, lambda: describe_curves([1, 2], {}), "series")
    raises_korean(TypeError, lambda: describe_curves([1, 2], {"a": ["높음", "낮음"]}), "수의 목록")


def test_accuracy_and_mask_summaries():
    text = describe_accuracy({2: [1.0, 0.97], 1: [0.3, 0.33, 0.36]}, {"첫 토큰만 알 때 최대": 0.3125})
    assert text == ("헤드 1개 평균 0.330 (시드 3개, 0.300~0.360); 헤드 2개 평균 0.985 (시드 2개, 0.970~1.000); "
                    "한계선: 첫 토큰만 알 때 최대 0.312")
    assert describe_mask(causal_mask(5)) == "참여 가능 15칸 / 25칸 (60%); 대각선 위(미래의 키) 10칸 차단"
    pad = padding_mask([3], 5)[0, 0]  # (1, 1, 1, S) -> (1, S)
    assert describe_mask(pad, None, TOKENS) == "참여 가능 3칸 / 5칸 (60%); 키 2개('책을', '빌렸다') 열 전체 차단 (모든 쿼리)"
    both = combine_masks(causal_mask(5), padding_mask([3], 5))[0, 0]  # (1, 1, L, S) -> (L, S)
    assert describe_mask(both) == "참여 가능 12칸 / 25칸 (48%); 대각선 위(미래의 키) 3칸 차단; 키 2개(3, 4) 열 전체 차단"
    odd = torch.ones(3, 3, dtype=torch.bool)
    odd[2, 0] = False
    assert describe_mask(odd).endswith("그 밖의 차단 1칸")
    raises_korean(TypeError, lambda: describe_mask(causal_mask(3).float()), "bool")


def test_number_format_and_plain_text():
    assert [format_number(v) for v in (0, 0.5, 1 / 3, 12345.6, 0.0001234, float("nan"))] == \
        ["0", "0.5", "0.333", "12,346", "1.23e-04", "없음"]
    assert plain_text(r"온도 $T = \sqrt{d_k}/c$") == "온도 T = √d_k/c"
    assert plain_text(r"균등 평균($T \to \infty$)의 손실") == "균등 평균(T → ∞)의 손실"


def test_summaries_use_only_glossary_terms():
    """요약 글에 용어집의 '쓰지 않는 말'(예: 주의, 머리, 질의)이 나오지 않아야 합니다."""
    banned = [b for term in parse_glossary(GLOSSARY.read_text(encoding="utf-8")) for b in term.banned]
    assert "주의" in banned and "질의" in banned  # 검사가 실제로 무언가를 찾는지
    w = torch.stack([previous_head(5, 0.9), first_head(5, 0.95), torch.eye(5), uniform_head(), torch.eye(5).flip(1)])
    texts = describe_heads(w, TOKENS, TOKENS) + describe_heads(w) + [
        describe_saturation(w), describe_mask(causal_mask(5)), describe_curves([1, 2, 3], {"a": [1, 3, 2]}),
        describe_head(torch.eye(5), TOKENS, list("ABCDE")), describe_accuracy({1: [0.5]})]
    for text in texts:
        found = [b for b in banned if re.search(rf"(?<![가-힣]){re.escape(b)}", text)]
        assert not found, f"쓰지 않는 말 {found}: {text}"
