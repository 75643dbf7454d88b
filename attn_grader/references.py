"""채점 과제의 채점기가 학생 함수와 비교하는 참조 구현 (강사의 채점 쪽에만; 샌드박스와 학생 설치에는 없음).

``reference_saturation``은 포화 측정 문제의 약속된 실험이라 과제의 숨은 테스트도 씁니다.
``_torch_mha_variant``는 ``nn.MultiheadAttention``(시퀀스가 먼저인 배치)의 계산을 라이브러리로 다시 하며
실수 하나를 흉내 냅니다.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable

import torch
from torch import Tensor, nn

from attn_lib.attention import MultiHeadAttention
from attn_lib.metrics import saturation
from attn_course.practice.engine import _gen
from attn_course.practice.references import _naive

__all__ = ["reference_saturation"]


def _torch_mha_variant(mistake: str) -> Callable[..., tuple[Tensor, Tensor]]:
    """``nn.MultiheadAttention``(batch_first=False) 셀프 어텐션을 실수 하나와 함께 다시 계산하는 함수를 돌려줍니다.

    실수: ``"no_scale"``, ``"in_proj_order"``(W_q와 W_k를 바꿈), ``"kpm_polarity"``, ``"softmax_axis"``,
    ``"merge_order_seq"``, ``"no_out_proj"``. 반환은 ``(output (L, B, E), weights (B, H, L, S))``입니다.
    """
    def run(x: Tensor, mha: nn.MultiheadAttention, key_padding_mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
        module = copy.deepcopy(mha)
        E, H = module.embed_dim, module.num_heads
        with torch.no_grad():
            if mistake == "no_scale":  # 쿼리 투영에 sqrt(Dh)를 곱하면 1/sqrt(Dh)가 지워짐
                module.in_proj_weight[:E] *= math.sqrt(E // H)
                module.in_proj_bias[:E] *= math.sqrt(E // H)
            if mistake == "in_proj_order":  # 쌓인 순서를 (W_k, W_q, W_v)로 잘못 읽음
                module.in_proj_weight.copy_(torch.cat([module.in_proj_weight[E:2 * E], module.in_proj_weight[:E],
                                                       module.in_proj_weight[2 * E:]]))
                module.in_proj_bias.copy_(torch.cat([module.in_proj_bias[E:2 * E], module.in_proj_bias[:E],
                                                     module.in_proj_bias[2 * E:]]))
            if mistake in ("no_scale", "in_proj_order", "kpm_polarity"):
                kpm = key_padding_mask if mistake != "kpm_polarity" or key_padding_mask is None else ~key_padding_mask
                return module(x, x, x, key_padding_mask=kpm, need_weights=True, average_attn_weights=False)
            ours = MultiHeadAttention.from_torch(module)
            xb = x.transpose(0, 1)  # (L, B, E) -> (B, L, E)
            q, k, v = (ours.split_heads(W(xb)) for W in (ours.W_q, ours.W_k, ours.W_v))  # 각각 (B, H, L, Dh)
            allowed = None if key_padding_mask is None else ~key_padding_mask[:, None, None, :]  # (B, S) -> (B, 1, 1, S)
            heads, weights = _naive(q, k, v, allowed, dim=-2 if mistake == "softmax_axis" else -1)
            B, _, L, Dh = heads.shape
            if mistake == "merge_order_seq":
                merged = heads.reshape(L, B, H * Dh)  # (B, H, L, Dh) -> (L, B, E): 축을 옮기지 않은 잘못
            else:
                merged = heads.permute(2, 0, 1, 3).reshape(L, B, H * Dh)  # (B, H, L, Dh) -> (L, B, H, Dh) -> (L, B, E)
            return (merged if mistake == "no_out_proj" else ours.W_o(merged)), weights
    return run


# ---- 약속된 실험의 참조 (과제의 숨은 테스트도 씀) ------------------------------------------------

def _saturation_experiment(d_k: int, scale: float, seed: int = 0, *, dim: int = -1, keys_first: bool = False) -> float:
    g = _gen(seed)
    if keys_first:  # 약속과 다른 순서(키 먼저)로 뽑은 실수
        k = torch.randn(16, d_k, generator=g)
        q = torch.randn(256, d_k, generator=g)
    else:
        q = torch.randn(256, d_k, generator=g)
        k = torch.randn(16, d_k, generator=g)
    weights = torch.softmax(q @ k.T * scale, dim=dim)  # (256, d_k) @ (d_k, 16) -> (256, 16)
    return float(saturation(weights, 0.99))


def reference_saturation(d_k: int, scale: float, seed: int = 0) -> float:
    """포화 측정 문제의 약속된 실험: 쿼리 256개, 키 16개, 성분은 표준정규, 점수에 ``scale``을 곱함, 기준 0.99.

    ``g = torch.Generator().manual_seed(seed)``로 쿼리를 먼저, 키를 나중에 뽑습니다.

    Args:
        d_k: 쿼리·키 너비.
        scale: 점수에 곱할 값 (``1 / sqrt(d_k)``, ``1.0``(스케일링 없음), ``1 / d_k`` 등).
        seed: 생성기 시드.

    Returns:
        가장 큰 가중치가 0.99 이상인 행의 비율.

    Shape:
        - 쿼리 ``(256, d_k)``, 키 ``(16, d_k)``, 가중치 ``(256, 16)``
        - 반환: 파이썬 실수 (포화된 행의 비율)
    """
    return _saturation_experiment(d_k, float(scale), seed)
