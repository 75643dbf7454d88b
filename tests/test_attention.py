"""attn_lib의 어텐션이 PyTorch 내장 구현과 같은 값을 내는지, 불변식을 지키는지 확인합니다.

알려진 틀린 구현(스케일 빠짐, 잘못된 축의 소프트맥스, 뒤집힌 마스크 극성)을 고정 목록으로
두고, 이 파일의 검사들이 그것들을 실제로 잡아내는지도 확인합니다 (실패할 수 없는 테스트 방지).
"""

from __future__ import annotations

import math
from typing import Callable

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from attn_lib import (
    MultiHeadAttention,
    causal_mask,
    combine_masks,
    count_parameters,
    padding_mask,
    scaled_dot_product_attention,
    to_torch_key_padding_mask,
    to_torch_mha_mask,
)

AttnFn = Callable[..., tuple[torch.Tensor, torch.Tensor]]


# --- 알려진 틀린 구현들 (검사가 이것들을 거부해야 함) -------------------------------------------

def wrong_missing_scale(query, key, value, attn_mask=None, *, scale=None):
    scores = query @ key.transpose(-2, -1)  # 1/sqrt(Dh)를 빠뜨림
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ value, weights


def wrong_softmax_axis(query, key, value, attn_mask=None, *, scale=None):
    scores = (query @ key.transpose(-2, -1)) / math.sqrt(query.shape[-1])
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf"))
    weights = torch.nan_to_num(torch.softmax(scores, dim=-2))  # 쿼리 축으로 정규화 (틀림)
    return weights @ value, weights


def wrong_inverted_mask(query, key, value, attn_mask=None, *, scale=None):
    scores = (query @ key.transpose(-2, -1)) / math.sqrt(query.shape[-1])
    if attn_mask is not None:
        scores = scores.masked_fill(attn_mask, float("-inf"))  # True를 '차단'으로 읽음 (틀림)
    weights = torch.nan_to_num(torch.softmax(scores, dim=-1))
    return weights @ value, weights


WRONG_VARIANTS: dict[str, AttnFn] = {
    "missing_scale": wrong_missing_scale,
    "softmax_axis": wrong_softmax_axis,
    "inverted_mask": wrong_inverted_mask,
}


# --- 검사 함수: 구현 하나를 받아 기준과 비교 (테스트와 '틀린 구현 거부' 테스트가 함께 씀) ---------

SDPA_CASES = [
    # (B, H, L, S, Dh, Dv, mask_kind)
    (1, 1, 4, 4, 8, 8, None),
    (2, 4, 5, 5, 16, 16, "causal"),
    (3, 2, 6, 9, 8, 4, "padding"),
    (2, 3, 7, 7, 32, 32, "causal+padding"),
    (2, 8, 3, 11, 64, 64, "padding"),
    (1, 2, 9, 4, 4, 6, "causal"),
]


def make_case(B, H, L, S, Dh, Dv, mask_kind, seed=0):
    g = torch.Generator().manual_seed(seed)
    q = torch.randn(B, H, L, Dh, generator=g)
    k = torch.randn(B, H, S, Dh, generator=g)
    v = torch.randn(B, H, S, Dv, generator=g)
    lengths = [S - (b % max(1, S - 1)) for b in range(B)]  # 모두 1 이상: 완전히 가려진 행 없음
    masks = {
        None: None,
        "causal": causal_mask(L, S),
        "padding": padding_mask(lengths, S),
        "causal+padding": combine_masks(causal_mask(L, S), padding_mask(lengths, S)),
    }
    return q, k, v, masks[mask_kind]


def check_matches_torch_sdpa(fn: AttnFn, case) -> None:
    q, k, v, mask = make_case(*case)
    out, weights = fn(q, k, v, mask)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(out, expected, atol=1e-5, rtol=1e-5)
    # 가중치도 독립적으로 다시 계산한 값과 같아야 함
    scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    torch.testing.assert_close(weights, torch.softmax(scores, dim=-1), atol=1e-6, rtol=1e-5)


def check_rows_sum_to_one(fn: AttnFn, case) -> None:
    q, k, v, mask = make_case(*case)
    _, weights = fn(q, k, v, mask)
    torch.testing.assert_close(weights.sum(-1), torch.ones(weights.shape[:-1]), atol=1e-5, rtol=0)


def check_masked_weights_zero(fn: AttnFn, case) -> None:
    q, k, v, mask = make_case(*case)
    _, weights = fn(q, k, v, mask)
    blocked = ~mask.expand(weights.shape)
    assert blocked.any(), "이 경우에는 가려진 자리가 있어야 검사가 의미 있습니다"
    assert torch.all(weights[blocked] == 0), "가려진 키의 가중치는 정확히 0이어야 합니다"


def check_future_does_not_leak(fn: AttnFn, t: int = 3, L: int = 7, Dh: int = 8) -> None:
    g = torch.Generator().manual_seed(1)
    x = torch.randn(2, 2, L, Dh, generator=g)
    x2 = x.clone()
    x2[..., t + 1 :, :] = torch.randn(2, 2, L - t - 1, Dh, generator=g)  # t 뒤의 토큰만 바꿈
    mask = causal_mask(L)
    out1, _ = fn(x, x, x, mask)
    out2, _ = fn(x2, x2, x2, mask)
    torch.testing.assert_close(out1[..., : t + 1, :], out2[..., : t + 1, :], atol=1e-6, rtol=0)


# --- 올바른 구현은 모든 검사를 통과 -------------------------------------------------------------

@pytest.mark.parametrize("case", SDPA_CASES, ids=lambda c: "B{}H{}L{}S{}Dh{}Dv{}-{}".format(*c))
def test_matches_torch_sdpa(case):
    check_matches_torch_sdpa(scaled_dot_product_attention, case)


@pytest.mark.parametrize("case", SDPA_CASES, ids=lambda c: "B{}H{}L{}S{}-{}".format(*c[:4], c[6]))
def test_rows_sum_to_one(case):
    check_rows_sum_to_one(scaled_dot_product_attention, case)


@pytest.mark.parametrize("case", [c for c in SDPA_CASES if c[6]], ids=lambda c: c[6])
def test_masked_weights_are_exactly_zero(case):
    check_masked_weights_zero(scaled_dot_product_attention, case)


def test_causal_mask_future_tokens_do_not_change_past_outputs():
    check_future_does_not_leak(scaled_dot_product_attention)


def test_without_mask_future_tokens_do_change_past_outputs():
    """누출 검사 자체가 실패할 수 있음을 보임: 마스크를 빼면 과거 출력이 변해야 합니다."""
    no_mask = lambda q, k, v, m: scaled_dot_product_attention(q, k, v)  # noqa: E731
    with pytest.raises(AssertionError):
        check_future_does_not_leak(no_mask)


# --- 틀린 구현은 적어도 하나의 검사에서 떨어져야 함 --------------------------------------------

EXPECTED_REJECTION = {
    "missing_scale": [("sdpa", SDPA_CASES[1])],
    "softmax_axis": [("sdpa", SDPA_CASES[0]), ("rows", SDPA_CASES[1])],
    "inverted_mask": [("sdpa", SDPA_CASES[2]), ("masked", SDPA_CASES[1]), ("leak", None)],
}
CHECKS = {
    "sdpa": check_matches_torch_sdpa,
    "rows": check_rows_sum_to_one,
    "masked": check_masked_weights_zero,
    "leak": lambda fn, _case: check_future_does_not_leak(fn),
}


@pytest.mark.parametrize(
    "variant,check,case",
    [(v, c, case) for v, items in EXPECTED_REJECTION.items() for c, case in items],
    ids=lambda x: x if isinstance(x, str) else "",
)
def test_known_wrong_variants_are_rejected(variant, check, case):
    with pytest.raises(AssertionError):
        CHECKS[check](WRONG_VARIANTS[variant], case)


# --- 스케일, 실수 마스크, 완전히 가려진 행 ----------------------------------------------------

def test_scale_one_gives_unscaled_scores_and_custom_scale_matches_torch():
    q, k, v, _ = make_case(2, 2, 4, 6, 16, 16, None)
    _, w = scaled_dot_product_attention(q, k, v, scale=1.0)
    torch.testing.assert_close(w, torch.softmax(q @ k.transpose(-2, -1), dim=-1))
    out, _ = scaled_dot_product_attention(q, k, v, scale=0.37)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, scale=0.37), atol=1e-5, rtol=1e-5)


def test_float_mask_is_added_after_scaling():
    q, k, v, _ = make_case(1, 2, 5, 5, 8, 8, None)
    bias = torch.randn(5, 5) * 3
    out, w = scaled_dot_product_attention(q, k, v, bias)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, attn_mask=bias), atol=1e-5, rtol=1e-5)
    # 스케일 전에 더하면 (흔한 튜토리얼 순서) 다른 값이 나와야 함
    wrong = torch.softmax((q @ k.transpose(-2, -1) + bias) / math.sqrt(8), dim=-1)
    assert (w - wrong).abs().max() > 1e-2


def test_fully_masked_row_gives_zeros_not_nan_and_finite_gradients():
    q, k, v, _ = make_case(2, 1, 3, 4, 8, 8, None)
    q.requires_grad_(True)
    mask = padding_mask([4, 0], 4)  # 두 번째 문장은 참여할 키가 하나도 없음
    out, w = scaled_dot_product_attention(q, k, v, mask)
    assert not torch.isnan(out).any() and not torch.isnan(w).any()
    assert torch.all(w[1] == 0) and torch.all(out[1] == 0)
    torch.testing.assert_close(w[0].sum(-1), torch.ones(1, 3))
    out.sum().backward()
    assert torch.isfinite(q.grad).all()
    # 순진한 구현은 같은 입력에서 NaN을 냄 (그래서 이 처리가 필요함)
    naive = torch.softmax((q @ k.transpose(-2, -1)).masked_fill(~mask, float("-inf")), dim=-1)
    assert torch.isnan(naive[1]).all()


def test_all_minus_inf_float_mask_row_is_also_zero():
    q, k, v, _ = make_case(1, 1, 2, 3, 4, 4, None)
    bias = torch.zeros(2, 3)
    bias[1] = float("-inf")
    _, w = scaled_dot_product_attention(q, k, v, bias)
    assert torch.all(w[..., 1, :] == 0) and not torch.isnan(w).any()


def test_broadcast_leading_dims_and_dtypes():
    q = torch.randn(3, 1, 4, 8, dtype=torch.float64)
    k = torch.randn(1, 2, 5, 8, dtype=torch.float64)
    v = torch.randn(1, 2, 5, 8, dtype=torch.float64)
    out, w = scaled_dot_product_attention(q, k, v)
    assert out.shape == (3, 2, 4, 8) and w.shape == (3, 2, 4, 5) and out.dtype == torch.float64
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v))


# --- 멀티헤드 어텐션 대 nn.MultiheadAttention -----------------------------------------------

MHA_CASES = [
    # (B, H, L, S, E, cross, mask_kind)
    (1, 1, 4, 4, 8, False, None),
    (2, 2, 5, 5, 16, False, "causal"),
    (3, 4, 6, 6, 32, False, "padding"),
    (2, 4, 7, 7, 32, False, "causal+padding"),
    (2, 8, 3, 9, 64, True, None),
    (3, 2, 6, 4, 12, True, "padding"),
    (2, 3, 5, 8, 24, True, "causal"),
]


def torch_and_ours(E, H, seed, bias=True):
    torch.manual_seed(seed)
    ref = nn.MultiheadAttention(E, H, batch_first=True, bias=bias)
    with torch.no_grad():  # bias를 0이 아닌 값으로 (기본 초기화는 0이라 bias 복사 오류를 못 잡음)
        for p in ref.parameters():
            p.add_(0.1 * torch.randn_like(p))
    return ref, MultiHeadAttention.from_torch(ref)


@pytest.mark.parametrize("case", MHA_CASES, ids=lambda c: "B{}H{}L{}S{}E{}-{}-{}".format(*c[:5], "cross" if c[5] else "self", c[6]))
def test_matches_nn_multihead_attention(case):
    B, H, L, S, E, cross, mask_kind = case
    ref, ours = torch_and_ours(E, H, seed=sum(case[:5]))
    g = torch.Generator().manual_seed(7)
    x = torch.randn(B, L, E, generator=g)
    mem = torch.randn(B, S, E, generator=g) if cross else x
    lengths = [max(1, S - 2 * b) for b in range(B)]
    ours_mask = {
        None: None,
        "causal": causal_mask(L, S),
        "padding": padding_mask(lengths, S),
        "causal+padding": combine_masks(causal_mask(L, S), padding_mask(lengths, S)),
    }[mask_kind]
    kwargs = {}
    if mask_kind == "padding":
        kwargs["key_padding_mask"] = to_torch_key_padding_mask(ours_mask)
    elif mask_kind is not None:
        kwargs["attn_mask"] = to_torch_mha_mask(ours_mask, num_heads=H)
    expected_out, expected_w = ref(x, mem, mem, need_weights=True, average_attn_weights=False, **kwargs)
    out, w = ours(x, mem, mem, attn_mask=ours_mask) if cross else ours(x, attn_mask=ours_mask)
    assert out.shape == (B, L, E) and w.shape == (B, H, L, S)
    torch.testing.assert_close(out, expected_out, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(w, expected_w, atol=1e-5, rtol=1e-5)


def test_head_axis_is_kept_and_matches_manual_per_head_computation():
    torch.manual_seed(0)
    mha = MultiHeadAttention(12, 3)
    x = torch.randn(2, 4, 12)
    out, w = mha(x)
    Dh = 4
    q, k, v = mha.W_q(x), mha.W_k(x), mha.W_v(x)
    heads = []
    for h in range(3):  # 헤드마다 따로 (루프 버전) 계산해 비교
        sl = slice(h * Dh, (h + 1) * Dh)
        wh = torch.softmax(q[..., sl] @ k[..., sl].transpose(-2, -1) / math.sqrt(Dh), dim=-1)
        torch.testing.assert_close(w[:, h], wh)
        heads.append(wh @ v[..., sl])
    torch.testing.assert_close(out, mha.W_o(torch.cat(heads, dim=-1)))


def test_wrong_merge_order_is_detected():
    """헤드를 transpose 없이 reshape로 합치면 값이 달라짐을 확인 (merge_heads가 맞게 합치는지)."""
    torch.manual_seed(0)
    mha = MultiHeadAttention(8, 2)
    x = torch.randn(2, 5, 8, 2)[..., 0]  # 연속이 아닌 입력도 받아야 함
    heads = mha.split_heads(mha.W_v(x.contiguous()))
    good = mha.merge_heads(heads)
    bad = heads.reshape(2, 5, 8)  # (B, H, L, Dh)를 그대로 (B, L, E)로: 틀린 순서
    torch.testing.assert_close(good, mha.W_v(x.contiguous()))
    assert not torch.allclose(good, bad)


def test_parameter_count_is_4E2_plus_4E_and_equals_torch():
    for E, H in [(8, 2), (64, 8), (96, 12)]:
        ref, ours = torch_and_ours(E, H, seed=0)
        assert count_parameters(ours) == 4 * E * E + 4 * E == count_parameters(ref)
    assert count_parameters(MultiHeadAttention(16, 4, bias=False)) == 4 * 16 * 16


def test_from_torch_without_bias():
    ref, ours = torch_and_ours(16, 4, seed=3, bias=False)
    x = torch.randn(2, 5, 16)
    torch.testing.assert_close(ours(x)[0], ref(x, x, x)[0], atol=1e-5, rtol=1e-5)


def test_key_and_value_defaults():
    torch.manual_seed(0)
    mha = MultiHeadAttention(8, 2)
    x, m = torch.randn(1, 3, 8), torch.randn(1, 6, 8)
    torch.testing.assert_close(mha(x)[0], mha(x, x, x)[0])
    torch.testing.assert_close(mha(x, m)[0], mha(x, m, m)[0])
    assert mha(x, m)[1].shape == (1, 2, 3, 6)
