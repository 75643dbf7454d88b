"""잘못된 입력은 한국어로, 기대한 값과 들어온 값을 함께 말하는 ValueError/TypeError를 내야 합니다."""

from __future__ import annotations

import torch

from attn_lib import (
    KVCache,
    MultiHeadAttention,
    apply_rope,
    blockwise_attention,
    causal_mask,
    padding_mask,
    saturation,
    scaled_dot_product_attention,
    sliding_window_mask,
)
from attn_lib.masks import position_mask
from conftest import raises_korean


def test_embed_dim_not_divisible():
    raises_korean(ValueError, lambda: MultiHeadAttention(10, 3), "embed_dim(=10)", "num_heads(=3)")
    raises_korean(TypeError, lambda: MultiHeadAttention(8.0, 2), "embed_dim")
    raises_korean(ValueError, lambda: MultiHeadAttention(8, 0), "num_heads")


def test_query_key_value_shapes_that_do_not_fit():
    q, k, v = torch.randn(2, 4, 8), torch.randn(2, 5, 6), torch.randn(2, 5, 8)
    raises_korean(ValueError, lambda: scaled_dot_product_attention(q, k, v), "Dh=8", "Dh=6")
    raises_korean(ValueError, lambda: scaled_dot_product_attention(q, q, torch.randn(2, 3, 8)), "S=4", "S=3")
    raises_korean(ValueError, lambda: scaled_dot_product_attention(torch.randn(2, 4, 8), torch.randn(3, 4, 8), torch.randn(3, 4, 8)), "(2, 4, 8)", "(3, 4, 8)")
    mha = MultiHeadAttention(8, 2)
    raises_korean(ValueError, lambda: mha(torch.randn(2, 4, 6)), "E=8", "(2, 4, 6)")
    raises_korean(ValueError, lambda: mha(torch.randn(4, 8)), "(4, 8)")
    raises_korean(ValueError, lambda: mha(torch.randn(2, 4, 8), torch.randn(3, 5, 8)), "2, 3, 3")
    raises_korean(ValueError, lambda: mha(torch.randn(2, 4, 8), torch.randn(2, 5, 8), torch.randn(2, 6, 8)), "5", "6")


def test_mask_that_does_not_broadcast():
    q = torch.randn(2, 2, 4, 8)
    raises_korean(ValueError, lambda: scaled_dot_product_attention(q, q, q, causal_mask(5)), "(5, 5)", "(2, 2, 4, 4)")
    # 브로드캐스트는 되지만 점수 모양을 키우는 마스크도 거부
    raises_korean(ValueError, lambda: scaled_dot_product_attention(q, q, q, torch.ones(3, 2, 4, 4, dtype=torch.bool)), "(3, 2, 4, 4)")
    raises_korean(ValueError, lambda: MultiHeadAttention(8, 2)(torch.randn(2, 4, 8), attn_mask=torch.ones(2, 4, 4, dtype=torch.bool)), "unsqueeze(1)")


def test_integer_tensors_and_masks_are_type_errors():
    qi = torch.ones(1, 4, 8, dtype=torch.long)
    raises_korean(TypeError, lambda: scaled_dot_product_attention(qi, qi, qi), "torch.int64")
    q = torch.randn(1, 4, 8)
    raises_korean(TypeError, lambda: scaled_dot_product_attention(q, q, q, torch.ones(4, 4, dtype=torch.long)), "torch.int64", ".bool()")
    raises_korean(TypeError, lambda: scaled_dot_product_attention(q, q, q.double()), "torch.float32", "torch.float64")
    raises_korean(TypeError, lambda: scaled_dot_product_attention([[1.0]], q, q), "list")
    raises_korean(TypeError, lambda: MultiHeadAttention(8, 2)(torch.ones(1, 3, 8, dtype=torch.long)), "torch.int64")


def test_other_bad_values():
    q = torch.randn(1, 4, 8)
    raises_korean(ValueError, lambda: scaled_dot_product_attention(q, q, q, scale=0.0), "scale")
    raises_korean(ValueError, lambda: padding_mask([5], 4), "S(=4)", "[5]")
    raises_korean(TypeError, lambda: padding_mask([1.5], 4), "1.5")
    raises_korean(ValueError, lambda: causal_mask(-1), "L", "-1")  # 0은 빈 마스크 (tests/test_empty_sequences.py)
    raises_korean(ValueError, lambda: saturation(torch.rand(4, 4), threshold=0.0), "threshold")
    raises_korean(TypeError, lambda: MultiHeadAttention.from_torch(torch.nn.Linear(2, 2)), "Linear")


def test_apply_rope_rejects_bad_input():
    x = torch.randn(2, 5, 8)
    raises_korean(TypeError, lambda: apply_rope(x.long(), torch.arange(5)), "x", "torch.int64")
    raises_korean(TypeError, lambda: apply_rope(x, torch.arange(5.0)), "positions", "torch.float32", "torch.arange(L)")
    raises_korean(TypeError, lambda: apply_rope(x, [0, 1, 2, 3, 4]), "positions", "list")
    raises_korean(ValueError, lambda: apply_rope(x, torch.arange(4)), "L=5", "(4,)")
    raises_korean(ValueError, lambda: apply_rope(x, torch.arange(10).view(2, 5)), "L=5", "(2, 5)")
    raises_korean(ValueError, lambda: apply_rope(torch.randn(5, 7), torch.arange(5)), "짝수", "Dh=7")
    raises_korean(ValueError, lambda: apply_rope(x, torch.arange(5), base=1.0), "base", "1.0")
    raises_korean(ValueError, lambda: apply_rope(x, torch.arange(5), base=float("inf")), "base")
    raises_korean(ValueError, lambda: apply_rope(torch.randn(8), torch.arange(1)), "2차원")


def test_multi_head_attention_rope_options_are_checked():
    raises_korean(ValueError, lambda: MultiHeadAttention(6, 2, rope_base=10000.0), "짝수", "Dh", "3")
    raises_korean(ValueError, lambda: MultiHeadAttention(8, 2, rope_base=0.5), "base", "0.5")
    raises_korean(ValueError, lambda: MultiHeadAttention(8, 2, rope_base="10000"), "base", "str")
    raises_korean(TypeError, lambda: MultiHeadAttention(8, 2, rope_base=10000.0)(torch.randn(1, 3, 8), kv_cache={}),
                  "KVCache", "dict")


def test_sliding_window_mask_and_position_mask_reject_bad_input():
    raises_korean(ValueError, lambda: sliding_window_mask(4, 4, 0), "window", "0")
    raises_korean(TypeError, lambda: sliding_window_mask(4, 4, 1.5), "window", "1.5")
    raises_korean(ValueError, lambda: sliding_window_mask(-1, 4, 2), "L", "-1")
    raises_korean(TypeError, lambda: sliding_window_mask(4, 4.0, 2), "S", "4.0")
    raises_korean(ValueError, lambda: sliding_window_mask(4, 4, 2, sink=-1), "sink", "-1")
    raises_korean(TypeError, lambda: position_mask(torch.arange(3.0), torch.arange(3)), "query_positions", "float32")
    raises_korean(TypeError, lambda: position_mask(torch.arange(3), torch.ones(3, 3).long()), "key_positions", "(3, 3)")


def test_rolling_cache_options_are_checked():
    raises_korean(ValueError, lambda: KVCache(max_len=0), "max_len", "0")
    raises_korean(TypeError, lambda: KVCache(max_len="8"), "max_len", "str")
    raises_korean(ValueError, lambda: KVCache(max_len=4, sink=4), "sink(=4)", "max_len(=4)")
    raises_korean(ValueError, lambda: KVCache(sink=2), "sink(=2)", "max_len(=None)")
    raises_korean(ValueError, lambda: KVCache(max_len=4, sink=-1), "sink", "-1")
    cache = KVCache(max_len=4, sink=1)
    k = torch.randn(1, 2, 3, 8)
    cache.update(k, k)
    raises_korean(ValueError, lambda: cache.update(torch.randn(2, 2, 1, 8), torch.randn(2, 2, 1, 8)), "배치 B")
    assert cache.seen == 3  # 거부한 호출은 캐시를 바꾸지 않음


def test_blockwise_attention_rejects_bad_input():
    q = torch.randn(1, 2, 4, 8)
    raises_korean(ValueError, lambda: blockwise_attention(q, q, q, block_size=0), "block_size", "0")
    raises_korean(TypeError, lambda: blockwise_attention(q, q, q, block_size=2.0), "block_size", "2.0")
    raises_korean(TypeError, lambda: blockwise_attention(q.long(), q, q), "query", "torch.int64")
    raises_korean(ValueError, lambda: blockwise_attention(q, torch.randn(1, 2, 4, 6), q), "Dh=8", "Dh=6")
    raises_korean(ValueError, lambda: blockwise_attention(q, q, torch.randn(1, 2, 5, 8)), "S=4", "S=5")
    raises_korean(TypeError, lambda: blockwise_attention(q, q, q, torch.ones(4, 4, dtype=torch.long)), ".bool()")
    raises_korean(ValueError, lambda: blockwise_attention(q, q, q, torch.ones(5, 4, dtype=torch.bool)), "(5, 4)")
    raises_korean(ValueError, lambda: blockwise_attention(q, q, q, scale=-1.0), "scale")
    # 그룹 쿼리 어텐션은 받지 않음: 헤드 수가 다르면 브로드캐스트 오류 (repeat_kv로 먼저 늘리세요)
    raises_korean(ValueError, lambda: blockwise_attention(torch.randn(1, 4, 4, 8), q, q), "브로드캐스트")
