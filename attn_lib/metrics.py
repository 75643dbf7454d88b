"""어텐션 가중치를 재는 지표: 엔트로피, 포화, 행별 최댓값.

입력은 모두 마지막 축이 키 축인 가중치 ``(..., L, S)``입니다 (각 행은 합이 1인 분포이거나,
모든 키가 가려진 행이면 전부 0). 키가 없는 행(``S = 0``)도 가려진 행처럼 엔트로피, 최댓값, 야코비안 노름이
모두 0이고, 행이 없으면(``L = 0``) 행별 지표는 빈 텐서입니다.
"""

from __future__ import annotations

import torch
from torch import Tensor

from ._checks import check_float_tensor

__all__ = ["attention_entropy", "saturation", "max_weight", "softmax_jacobian_norm"]


def attention_entropy(weights: Tensor) -> Tensor:
    """행마다 어텐션 분포의 엔트로피를 nat 단위로 잽니다.

    ``H(p) = -sum_j p_j log p_j``이고 ``0 log 0 = 0``으로 둡니다. 한 키에 몰린 행(원-핫)은 0,
    ``S``개 키에 고르게 퍼진 행은 ``log S``입니다. 모든 키가 가려진 행(전부 0)은 0입니다.

    Args:
        weights: 어텐션 가중치.

    Returns:
        행별 엔트로피.

    Shape:
        - weights: ``(..., L, S)``
        - 반환: ``(..., L)``
    """
    check_float_tensor(weights, "weights", min_dim=2)
    return -torch.special.xlogy(weights, weights).sum(dim=-1)  # (..., L, S) -> (..., L)


def max_weight(weights: Tensor) -> Tensor:
    """행마다 가장 큰 가중치를 돌려줍니다 (1에 가까울수록 한 키에 몰림).

    키가 없으면(``S = 0``) 0입니다. ``torch.amax``는 빈 축에서 오류를 내지만, 볼 키가 없는 행의 가중치는 이
    라이브러리에서 모두 0(가려진 행과 같음)이므로 그 최댓값도 0으로 둡니다.

    Shape:
        - weights: ``(..., L, S)``
        - 반환: ``(..., L)``
    """
    check_float_tensor(weights, "weights", min_dim=2)
    if weights.shape[-1] == 0:
        return weights.new_zeros(weights.shape[:-1])  # (..., L, 0) -> (..., L)
    return weights.amax(dim=-1)  # (..., L, S) -> (..., L)


def saturation(weights: Tensor, threshold: float = 0.99) -> Tensor:
    """포화된 행의 비율: 가장 큰 가중치가 ``threshold`` 이상인 행의 몫.

    앞쪽 축(배치, 헤드 등)을 모두 합쳐 전체 행 가운데 비율을 셉니다. 소프트맥스가 포화되면
    행이 거의 원-핫이 되고, 그 행의 점수로 가는 기울기가 거의 0이 됩니다. 행이 하나도 없으면(``L = 0``)
    PyTorch의 빈 평균(``torch.tensor([]).mean()``)처럼 NaN입니다.

    Args:
        weights: 어텐션 가중치.
        threshold: 포화로 볼 최댓값 기준, ``0 < threshold <= 1``.

    Returns:
        0차원 텐서 (0~1 사이의 비율).

    Shape:
        - weights: ``(..., L, S)``
        - 반환: ``()``
    """
    check_float_tensor(weights, "weights", min_dim=2)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
        raise ValueError(f"threshold는 0보다 크고 1 이하인 실수여야 하는데 {threshold!r}이(가) 들어왔습니다.")
    saturated = max_weight(weights) >= threshold  # (..., L, S) -> (..., L)
    return saturated.to(weights.dtype).mean()  # (..., L) -> ()


def softmax_jacobian_norm(weights: Tensor) -> Tensor:
    """행마다 소프트맥스 야코비안 ``J = diag(p) - p p^T``의 프로베니우스 노름을 잽니다.

    ``p = softmax(s)``이면 ``dp_i/ds_j = p_i (delta_ij - p_j)``이므로, ``J``는 점수 ``s``가 조금
    바뀔 때 가중치 ``p``가 얼마나 바뀌는지, 거꾸로 말하면 가중치에 온 기울기가 점수로 얼마나
    전해지는지를 나타냅니다. 제곱한 노름을 원소별로 풀면 닫힌 식이 나옵니다::

        ||J||_F^2 = sum_i p_i^2 - 2 sum_i p_i^3 + (sum_i p_i^2)^2

    한 키에 몰린 행(원-핫)은 0, ``S``개 키에 고른 행은 ``sqrt(S - 1) / S``, 두 키에 반씩 나눈
    행은 0.5입니다. 원-핫에 가까운 행에서는 세 항이 거의 지워지므로 float64로 계산한 뒤(절대 오차 약 1e-8)
    입력 dtype으로 돌려줍니다. 모든 키가 가려진 행(전부 0)은 0입니다.

    Args:
        weights: 어텐션 가중치(소프트맥스 출력).

    Returns:
        행별 야코비안 노름.

    Shape:
        - weights: ``(..., L, S)``
        - 반환: ``(..., L)``
    """
    check_float_tensor(weights, "weights", min_dim=2)
    p = weights.double()
    s2 = p.square().sum(dim=-1)  # (..., L, S) -> (..., L)
    s3 = p.pow(3).sum(dim=-1)  # (..., L, S) -> (..., L)
    squared = (s2 - 2.0 * s3 + s2.square()).clamp_min(0.0)  # 반올림으로 생긴 아주 작은 음수를 0으로
    return squared.sqrt().to(weights.dtype)
