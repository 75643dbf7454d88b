"""연습 페이지(11장)의 채점기가 쓰는 참조: 라이브러리의 어텐션과, 알려진 실수를 흉내 내는 순진한 구현.

``_sdpa``는 ``attn_lib.scaled_dot_product_attention``을 스케일과 마스크 극성을 바꿔 부르고, ``_naive``는 가려진 행을
따로 다루지 않는 순진한 구현입니다(소프트맥스 축, 마스크를 거는 때를 바꿀 수 있음). 둘 다 책이 본문에서 보여 준
계산입니다. 채점 과제의 참조 구현은 여기 없고 강사의 ``attn_grader``에만 있습니다.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
from torch import Tensor

from attn_lib.attention import scaled_dot_product_attention

__all__: list[str] = []


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
