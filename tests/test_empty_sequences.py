"""빈 시퀀스(L = 0 또는 S = 0): 핵심 함수마다 PyTorch가 하는 대로.

PyTorch 2.13에서 먼저 확인한 것:

- ``F.scaled_dot_product_attention``: ``L = 0``이면 ``(..., 0, Dv)``, ``S = 0``이면 출력이 0 (마스크가 있어도 없어도).
- ``nn.MultiheadAttention``: ``L = 0``, ``S = 0`` 모두 됨. ``S = 0``이면 헤드 출력이 0이라 출력은 ``out_proj``의 bias,
  가중치는 ``(B, L, 0)``.
- ``torch.ones(L, S).tril()``과 ``key_padding_mask`` ``(B, 0)``은 빈 텐서.
- ``torch.logsumexp``는 빈 축에서 ``-inf``, ``torch.amax``는 빈 축에서 오류, ``torch.tensor([]).mean()``은 NaN.
- CPU 플래시 커널(``aten._scaled_dot_product_flash_attention_for_cpu``)은 ``L = 0``이나 ``S = 0``이면 프로세스가
  SIGFPE로 죽습니다. 그래서 ``blockwise_attention``의 빈 경우는 ``F.scaled_dot_product_attention``과
  ``torch.logsumexp``에 맞춥니다.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from attn_lib import (
    KVCache,
    MultiHeadAttention,
    apply_rope,
    attention_entropy,
    blockwise_attention,
    cache_causal_mask,
    causal_mask,
    combine_masks,
    max_weight,
    padding_mask,
    repeat_kv,
    saturation,
    scaled_dot_product_attention,
    sliding_window_mask,
    softmax_jacobian_norm,
    to_torch_key_padding_mask,
    to_torch_mha_mask,
)

SHAPES = [(0, 5), (4, 0), (0, 0)]


def qkv(L: int, S: int):
    g = torch.Generator().manual_seed(0)
    return torch.randn(2, 3, L, 8, generator=g), torch.randn(2, 3, S, 8, generator=g), torch.randn(2, 3, S, 6, generator=g)


@pytest.mark.parametrize("L,S", SHAPES)
@pytest.mark.parametrize("with_mask", [False, True])
def test_attention_functions_match_torch_sdpa(L, S, with_mask):
    q, k, v = qkv(L, S)
    mask = torch.ones(L, S, dtype=torch.bool) if with_mask else None
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert out.shape == expected.shape == (2, 3, L, 6) and weights.shape == (2, 3, L, S)
    torch.testing.assert_close(out, expected, atol=0, rtol=0)
    out, lse = blockwise_attention(q, k, v, mask, block_size=4)
    torch.testing.assert_close(out, expected, atol=0, rtol=0)
    torch.testing.assert_close(lse, torch.logsumexp(torch.empty(2, 3, L, S), dim=-1), atol=0, rtol=0)


@pytest.mark.parametrize("L,S", SHAPES)
def test_multi_head_attention_matches_torch_module(L, S):
    torch.manual_seed(1)
    ref = nn.MultiheadAttention(16, 4, batch_first=True)
    with torch.no_grad():
        ref.out_proj.bias.normal_()  # bias가 0이면 S = 0의 출력이 0이라 무엇을 비교하는지 흐려짐
    mha = MultiHeadAttention.from_torch(ref)
    query, memory = torch.randn(2, L, 16), torch.randn(2, S, 16)
    expected, expected_w = ref(query, memory, memory, average_attn_weights=False)
    out, weights = mha(query, memory, memory)
    assert out.shape == (2, L, 16) and weights.shape == (2, 4, L, S)
    torch.testing.assert_close(out, expected, atol=1e-6, rtol=0)
    torch.testing.assert_close(weights, expected_w, atol=1e-6, rtol=0)
    if S == 0 and L > 0:
        torch.testing.assert_close(out, ref.out_proj.bias.expand(2, L, 16), atol=0, rtol=0)


@pytest.mark.parametrize("L,S", SHAPES)
def test_multi_head_attention_with_rope_gqa_and_empty_inputs(L, S):
    torch.manual_seed(2)
    mha = MultiHeadAttention(16, 4, num_kv_heads=2, rope_base=10000.0)
    out, weights = mha(torch.randn(2, L, 16), torch.randn(2, S, 16))
    assert out.shape == (2, L, 16) and weights.shape == (2, 4, L, S)
    if L:
        torch.testing.assert_close(out, mha.W_o.bias.expand(2, L, 16), atol=0, rtol=0)  # S = 0: 헤드 출력 0


def test_an_empty_chunk_leaves_caches_as_they_were():
    torch.manual_seed(3)
    mha = MultiHeadAttention(16, 4, num_kv_heads=2, rope_base=10000.0).eval()
    x = torch.randn(1, 5, 16)
    for cache in (KVCache(), KVCache(max_len=3, sink=1)):
        with torch.no_grad():
            out, weights = mha(x[:, :0], kv_cache=cache)  # 빈 캐시에 빈 조각
            assert out.shape == (1, 0, 16) and weights.shape == (1, 4, 0, 0) and (len(cache), cache.seen) == (0, 0)
            mha(x, kv_cache=cache)
            before = (cache.key.clone(), cache.seen)
            out, weights = mha(x[:, :0], kv_cache=cache)  # 찬 캐시에 빈 조각
        assert out.shape == (1, 0, 16) and weights.shape == (1, 4, 0, len(cache))
        assert torch.equal(cache.key, before[0]) and cache.seen == before[1] == 5


@pytest.mark.parametrize("L,S", SHAPES)
def test_masks_are_empty_like_torch_tril(L, S):
    empty = torch.ones(L, S, dtype=torch.bool).tril()
    assert torch.equal(causal_mask(L, S), empty)
    assert torch.equal(cache_causal_mask(L, S), torch.ones(L, S, dtype=torch.bool).tril(S - L))
    assert torch.equal(sliding_window_mask(L, S, 3, sink=1), empty)  # 빈 텐서끼리: 모양과 dtype이 같음
    assert torch.equal(combine_masks(causal_mask(L, S), torch.ones(1, 1, 1, S, dtype=torch.bool)), empty.expand(1, 1, L, S))
    assert to_torch_mha_mask(causal_mask(L, S)).shape == (L, S)
    assert causal_mask(0).shape == (0, 0)


def test_padding_mask_with_no_keys_matches_an_empty_key_padding_mask():
    mask = padding_mask([0, 0], 0)
    assert mask.shape == (2, 1, 1, 0)
    assert torch.equal(to_torch_key_padding_mask(mask), torch.zeros(2, 0, dtype=torch.bool))


def test_rope_and_repeat_kv_on_empty_sequences():
    assert apply_rope(torch.randn(2, 3, 0, 8), torch.arange(0)).shape == (2, 3, 0, 8)
    assert repeat_kv(torch.randn(2, 2, 0, 8), 3).shape == (2, 6, 0, 8)


@pytest.mark.parametrize("L,S", SHAPES)
def test_metrics_on_empty_weights(L, S):
    weights = torch.softmax(torch.randn(2, L, S), dim=-1)
    for metric in (attention_entropy, max_weight, softmax_jacobian_norm):
        got = metric(weights)
        assert got.shape == (2, L)
        assert torch.equal(got, torch.zeros(2, L))  # 키가 없는 행은 가려진 행처럼 0 (L = 0이면 빈 텐서)
    assert torch.equal(attention_entropy(weights), -torch.special.xlogy(weights, weights).sum(dim=-1))
    share = saturation(weights)
    if L == 0:
        assert torch.isnan(share) and torch.isnan(torch.tensor([]).mean())  # PyTorch의 빈 평균처럼
    else:
        assert share == 0.0
