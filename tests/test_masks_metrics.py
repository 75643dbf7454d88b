"""마스크 생성·극성 변환과 지표(엔트로피, 포화)의 성질을 확인합니다."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from attn_lib import (
    attention_entropy,
    causal_mask,
    combine_masks,
    max_weight,
    padding_mask,
    saturation,
    scaled_dot_product_attention,
    to_torch_key_padding_mask,
    to_torch_mha_mask,
)


def test_causal_mask_is_top_left_tril_like_torch_is_causal():
    for L, S in [(4, 4), (3, 6), (6, 3)]:
        m = causal_mask(L, S)
        assert m.dtype == torch.bool and m.shape == (L, S)
        assert torch.equal(m, torch.ones(L, S).tril().bool())
        q, k, v = torch.randn(1, 2, L, 8), torch.randn(1, 2, S, 8), torch.randn(1, 2, S, 8)
        torch.testing.assert_close(
            scaled_dot_product_attention(q, k, v, m)[0],
            F.scaled_dot_product_attention(q, k, v, is_causal=True),
            atol=1e-5, rtol=1e-5,
        )


def test_padding_mask_shape_and_values():
    m = padding_mask([3, 1, 0], 4)
    assert m.shape == (3, 1, 1, 4) and m.dtype == torch.bool
    assert m[:, 0, 0].tolist() == [[True, True, True, False], [True, False, False, False], [False] * 4]
    assert torch.equal(padding_mask(torch.tensor([3, 1, 0]), 4), m)


def test_combine_masks_is_broadcast_and():
    c = combine_masks(causal_mask(4), padding_mask([4, 2], 4))
    assert c.shape == (2, 1, 4, 4)
    assert torch.equal(c[0, 0], causal_mask(4))
    assert c[1, 0, 3].tolist() == [True, True, False, False]
    with pytest.raises(TypeError, match="bool"):
        combine_masks(causal_mask(4), torch.zeros(4, 4))
    with pytest.raises(ValueError, match="브로드캐스트"):
        combine_masks(causal_mask(4), causal_mask(3))


def test_torch_mha_mask_converters_flip_polarity_and_agree_with_nn_mha():
    torch.manual_seed(0)
    mha = nn.MultiheadAttention(8, 2, batch_first=True)
    x = torch.randn(2, 4, 8)
    ours = causal_mask(4)
    converted = to_torch_mha_mask(ours)
    assert torch.equal(converted, ~ours)
    # 뒤집지 않고 넘기면 (흔한 실수) 결과가 달라짐: 변환이 정말 필요함
    good = mha(x, x, x, attn_mask=converted)[0]
    silent_wrong = mha(x, x, x, attn_mask=ours & ~torch.eye(4, dtype=torch.bool))[0]  # 대각선은 남겨 NaN 방지
    assert not torch.allclose(good, silent_wrong)
    four_d = combine_masks(ours, padding_mask([4, 2], 4))
    flat = to_torch_mha_mask(four_d, num_heads=2)
    assert flat.shape == (4, 4, 4) and torch.equal(flat[2], ~four_d[1, 0])
    kpm = to_torch_key_padding_mask(padding_mask([4, 2], 4))
    assert kpm.tolist() == [[False] * 4, [False, False, True, True]]
    bias = torch.randn(4, 4)
    assert torch.equal(to_torch_mha_mask(bias), bias)  # 실수 마스크는 양쪽 규칙이 같음
    with pytest.raises(ValueError, match="num_heads"):
        to_torch_mha_mask(four_d)


def test_entropy_invariants():
    S = 6
    one_hot = torch.eye(S)[None]  # (1, S, S)
    uniform = torch.full((2, 3, S), 1.0 / S)
    assert torch.all(attention_entropy(one_hot) == 0)
    torch.testing.assert_close(attention_entropy(uniform), torch.full((2, 3), math.log(S)))
    assert attention_entropy(uniform).shape == (2, 3)
    zeros = torch.zeros(1, 2, S)  # 완전히 가려진 행
    assert torch.all(attention_entropy(zeros) == 0)
    w = torch.softmax(torch.randn(4, 5, S), -1)
    ent = attention_entropy(w)
    assert torch.all(ent > 0) and torch.all(ent <= math.log(S) + 1e-6)


def test_saturation_counts_rows_over_all_leading_dims():
    w = torch.tensor([[[0.995, 0.005], [0.5, 0.5]], [[1.0, 0.0], [0.2, 0.8]]])  # (2, 2, 2): 행 4개
    s = saturation(w)
    assert s.dim() == 0 and float(s) == pytest.approx(0.5)
    assert float(saturation(w, threshold=0.8)) == pytest.approx(0.75)
    assert max_weight(w).flatten().tolist() == pytest.approx([0.995, 0.5, 1.0, 0.8])
    with pytest.raises(ValueError, match="threshold"):
        saturation(w, threshold=1.5)


def test_unscaled_large_dk_saturates_and_scaled_does_not():
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(1, 64, 512, generator=g), torch.randn(1, 16, 512, generator=g)
    v = torch.randn(1, 16, 4, generator=g)
    scaled = scaled_dot_product_attention(q, k, v)[1]
    unscaled = scaled_dot_product_attention(q, k, v, scale=1.0)[1]
    assert float(saturation(unscaled)) > 0.5 > 0.05 > float(saturation(scaled))
    assert attention_entropy(unscaled).mean() < attention_entropy(scaled).mean()
