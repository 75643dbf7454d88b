"""회전 위치 임베딩(RoPE): 쿼리와 키를 위치만큼 돌려, 점수가 두 토큰의 거리에만 달리게 합니다.

Su et al. 2021 (RoFormer, arXiv:2104.09864)의 아이디어입니다. 헤드 너비 ``Dh``의 특징을 두 개씩 짝지어
``Dh / 2``개의 평면으로 보고, 위치 ``m``의 벡터를 평면 ``i``에서 각도 ``m * theta_i``만큼 돌립니다
(``theta_i = base ** (-2i / Dh)``, ``i = 0 .. Dh/2 - 1``). 회전은 길이를 바꾸지 않고, 두 회전의 내적은
각도의 차이에만 달리므로 ``<rope(q, m), rope(k, n)>``은 ``m - n``의 함수입니다.

이 모듈은 torch와 ``_checks``만 씁니다.
"""

from __future__ import annotations

import math
import numbers

import torch
from torch import Tensor

from ._checks import check_float_tensor, describe

__all__ = ["apply_rope", "rope_frequencies", "rotate_half"]


def check_rope_base(base: object) -> float:
    """RoPE의 ``base``가 1보다 큰 유한한 실수인지 확인합니다 (1 이하이면 주파수가 줄어들지 않음)."""
    if isinstance(base, bool) or not isinstance(base, numbers.Real) or not (math.isfinite(base) and base > 1):
        raise ValueError(f"base는 1보다 큰 유한한 실수여야 하는데 {describe(base)} 값 {base!r}이(가) 들어왔습니다.")
    return float(base)


def rope_frequencies(head_dim: int, *, base: float = 10000.0, dtype: torch.dtype = torch.float64,
                     device: torch.device | str | None = None) -> Tensor:
    """평면마다 도는 속도 ``theta_i = base ** (-2i / Dh)`` (위치 하나에 몇 라디안).

    ``i = 0``(특징 ``0``과 ``Dh/2``의 평면)이 가장 빠르고(1 라디안), 뒤로 갈수록 느려집니다.

    Shape:
        - 반환: ``(Dh / 2,)``
    """
    return base ** (-torch.arange(0, head_dim, 2, dtype=dtype, device=device) / head_dim)


def rotate_half(x: Tensor) -> Tensor:
    """앞 절반 ``x1``과 뒤 절반 ``x2``를 ``(-x2, x1)``로 바꿉니다: 평면마다 90도 회전.

    Llama의 Hugging Face 코드(``transformers``의 ``rotate_half``)와 같은 배치입니다.

    Shape:
        - x: ``(..., Dh)``
        - 반환: ``(..., Dh)``
    """
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)  # (..., Dh/2) + (..., Dh/2) -> (..., Dh)


def apply_rope(x: Tensor, positions: Tensor, *, base: float = 10000.0) -> Tensor:
    """쿼리나 키 ``x``의 각 행을 그 위치만큼 돌립니다 (회전 위치 임베딩, RoPE).

    ``out = x * cos(m * theta) + rotate_half(x) * sin(m * theta)``. 특징 ``i``와 ``i + Dh/2``가 한 평면을
    이룹니다(**앞뒤 절반** 배치). Llama의 Hugging Face 코드(``apply_rotary_pos_emb``, ``rotate_half``)와 같은
    배치이고, ``theta_i = base ** (-2i / Dh)``도 같습니다.

    Su et al. 2021의 식은 **이웃한 짝** ``(x_0, x_1), (x_2, x_3), ...``을 같은 각도 ``m * theta_i``로 돌립니다
    (Meta의 원래 Llama 코드도 이 배치로, 짝을 복소수 하나로 봅니다). 두 배치는 특징의 순서만 다릅니다: 이웃
    배치의 특징 ``2i``를 ``i``로, ``2i + 1``을 ``i + Dh/2``로 옮기는 고정된 순열 ``P``를 쓰면
    ``이웃배치(x) = apply_rope(x[..., P])[..., P의 역]``입니다. 쿼리와 키에 같은 순열을 걸면 내적이 바뀌지 않으므로,
    ``W_q``, ``W_k``의 출력 행을 ``P``로 섞으면 두 배치는 같은 점수를 냅니다. Hugging Face의 Llama 가중치 변환
    스크립트(``convert_llama_weights_to_hf.py``의 ``permute``)가 바로 이 순열을 ``q_proj``, ``k_proj``에 겁니다.

    각도는 float64로 계산한 뒤(위치가 커도 ``m * theta``의 반올림 오차가 작도록; MPS 장치는 float32) ``x``의
    계산 dtype으로 바꿉니다. float16·bfloat16 입력은 float32로 돌린 뒤 입력 dtype으로 되돌립니다.

    Args:
        x: 헤드를 나눈 쿼리나 키. 마지막 축 ``Dh``는 짝수.
        positions: 각 행(토큰)의 위치. 정수 텐서, 길이는 ``x``의 끝에서 두 번째 축 ``L``과 같음.
        base: 주파수의 밑 (기본 10000, Llama 3은 500000). 1보다 큰 실수.

    Returns:
        돌린 ``x`` (모양과 dtype 그대로). 밸류에는 쓰지 않습니다.

    Shape:
        - x: ``(..., L, Dh)``
        - positions: ``(L,)``
        - 반환: ``(..., L, Dh)``

    Raises:
        TypeError: ``x``가 실수 텐서가 아니거나 ``positions``가 정수 텐서가 아닐 때.
        ValueError: ``Dh``가 홀수이거나, ``positions``의 길이가 ``L``과 다르거나, ``base``가 1 이하일 때.
    """
    check_float_tensor(x, "x", min_dim=2)
    L, head_dim = x.shape[-2], x.shape[-1]
    if head_dim % 2 != 0 or head_dim == 0:
        raise ValueError(
            f"x의 마지막 축 Dh는 짝수여야 특징을 두 개씩 짝지어 돌릴 수 있는데 shape={tuple(x.shape)}의 Dh={head_dim}입니다."
        )
    if not isinstance(positions, Tensor) or positions.dtype == torch.bool or positions.is_floating_point() \
            or positions.is_complex():
        raise TypeError(
            f"positions는 정수 텐서여야 하는데 {describe(positions)}이(가) 들어왔습니다. "
            "예: torch.arange(L)."
        )
    if positions.dim() != 1 or positions.shape[0] != L:
        raise ValueError(
            f"positions는 x의 길이 축 L={L}과 같은 길이의 1차원 텐서여야 하는데 shape={tuple(positions.shape)}입니다."
        )
    base = check_rope_base(base)
    work = x.float() if x.dtype in (torch.float16, torch.bfloat16) else x  # 반정밀도는 float32로 계산
    angle_dtype = torch.float32 if x.device.type == "mps" else torch.float64
    theta = rope_frequencies(head_dim, base=base, dtype=angle_dtype, device=x.device)  # (Dh/2,)
    angles = positions.to(device=x.device, dtype=angle_dtype)[:, None] * theta[None, :]  # (L, 1) * (1, Dh/2) -> (L, Dh/2)
    angles = torch.cat((angles, angles), dim=-1)  # (L, Dh/2) -> (L, Dh): 특징 i와 i+Dh/2가 같은 각도
    cos, sin = angles.cos().to(work.dtype), angles.sin().to(work.dtype)  # (L, Dh), (..., L, Dh)로 브로드캐스트
    return (work * cos + rotate_half(work) * sin).to(x.dtype)
