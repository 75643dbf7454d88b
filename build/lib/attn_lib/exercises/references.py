"""채점기가 학생 함수와 비교하는 참조 구현: 올바른 참조와 잘 알려진 실수를 흉내 낸 틀린 참조.

``_sdpa``는 라이브러리의 ``scaled_dot_product_attention``을 스케일과 마스크 극성을 바꿔 부르고,
``_naive``는 가려진 행을 따로 다루지 않는 순진한 구현입니다(소프트맥스 축, 마스크를 거는 때를
바꿀 수 있음). ``reference_saturation``은 포화 측정 문제의 약속된 실험이라 과제의 숨은 테스트도 씁니다.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from ..attention import scaled_dot_product_attention
from ..metrics import saturation
from .engine import _gen

__all__ = ["reference_saturation"]


# ---- 틀린 참조 (known-wrong variants) ------------------------------------------------------

def _naive(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None, *,
           scale: float | None = None, dim: int = -1, invert: bool = False, after: bool = False) -> tuple[Tensor, Tensor]:
    """순진한 구현: 가려진 행을 따로 다루지 않아 NaN이 날 수 있습니다 (틀린 참조의 바탕)."""
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query @ key.transpose(-2, -1) * scale  # (..., L, Dh) @ (..., Dh, S) -> (..., L, S)
    mask = None if attn_mask is None else (~attn_mask if invert else attn_mask)
    if mask is not None and not after:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=dim)
    if mask is not None and after:
        weights = weights.masked_fill(~mask, 0.0)
    return weights @ value, weights  # (..., L, S) @ (..., S, Dv) -> (..., L, Dv)


def _sdpa(scale: float | None = None, invert: bool = False) -> Callable[..., tuple[Tensor, Tensor]]:
    def run(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
        mask = None if attn_mask is None else (~attn_mask if invert else attn_mask)
        return scaled_dot_product_attention(query, key, value, mask, scale=scale)
    return run


# ---- 약속된 실험의 참조 (과제의 숨은 테스트도 씀) ------------------------------------------------

def reference_saturation(d_k: int, scaled: bool, seed: int = 0) -> float:
    """포화 측정 문제의 약속된 실험: 쿼리 256개, 키 16개, 성분은 표준정규, 기준 0.99.

    ``g = torch.Generator().manual_seed(seed)``로 쿼리를 먼저, 키를 나중에 뽑습니다.

    Shape:
        - 쿼리 ``(256, d_k)``, 키 ``(16, d_k)``, 가중치 ``(256, 16)``
        - 반환: 파이썬 실수 (포화된 행의 비율)
    """
    g = _gen(seed)
    q, k = torch.randn(256, d_k, generator=g), torch.randn(16, d_k, generator=g)
    scale = 1.0 / math.sqrt(d_k) if scaled else 1.0
    weights = torch.softmax(q @ k.T * scale, dim=-1)  # (256, d_k) @ (d_k, 16) -> (256, 16)
    return float(saturation(weights, 0.99))
