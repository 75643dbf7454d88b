"""잘못된 입력은 한국어로, 기대한 값과 들어온 값을 함께 말하는 ValueError/TypeError를 내야 합니다."""

from __future__ import annotations

import torch

from attn_lib import MultiHeadAttention, causal_mask, padding_mask, saturation, scaled_dot_product_attention
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
    raises_korean(ValueError, lambda: causal_mask(0), "L", "0")
    raises_korean(ValueError, lambda: saturation(torch.rand(4, 4), threshold=0.0), "threshold")
    raises_korean(TypeError, lambda: MultiHeadAttention.from_torch(torch.nn.Linear(2, 2)), "Linear")
