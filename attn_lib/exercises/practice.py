"""연습 페이지(``chapters/08_practice.ipynb``)의 채점기. 책에 풀이가 공개된 문제들입니다.

채점 과제와 같은 문제를 여기에 두지 않습니다(과제 풀이가 공개되므로). 비교는 ``engine``이 합니다.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import Tensor

from ..attention import scaled_dot_product_attention
from ..masks import padding_mask
from .engine import CheckResult, _Case, _gen, _mask_run, _run

__all__ = ["check_param_count", "check_head_loop", "check_left_padding_mask", "check_temperature_softmax"]


def check_param_count(fn: Callable[[int], int]) -> CheckResult:
    """``fn(embed_dim) -> 파라미터 수``(W_q, W_k, W_v, W_o와 편향)를 채점합니다.

    Shape:
        - 반환: 파이썬 정수 ``4*E*E + 4*E``
    """
    variants = [("param_no_bias", lambda e: 4 * e * e), ("param_no_out", lambda e: 3 * e * e + 3 * e)]
    return _run("param_count", fn, lambda e: 4 * e * e + 4 * e, variants, [_Case(f"embed_dim={e}", (e,)) for e in (8, 64, 512)])


def check_head_loop(fn: Callable[..., Tensor], *, seed: int = 0) -> CheckResult:
    """헤드마다 반복해 어텐션을 계산하는 ``fn(q, k, v) -> (B, H, L, Dh)``를 채점합니다.

    Shape:
        - q ``(B, H, L, Dh)``, k/v ``(B, H, S, Dh)``
        - 반환 ``(B, H, L, Dh)``
    """
    g = _gen(seed)
    cases = [_Case(f"B={B}, H={H}, L={L}, S={S}", (torch.randn(B, H, L, 4, generator=g), torch.randn(B, H, S, 4, generator=g),
                                                 torch.randn(B, H, S, 4, generator=g))) for B, H, L, S in [(1, 2, 3, 3), (2, 4, 2, 5)]]
    variants = [("no_scale", lambda q, k, v: scaled_dot_product_attention(q, k, v, scale=1.0)[0])]
    return _run("head_loop", fn, lambda q, k, v: scaled_dot_product_attention(q, k, v)[0], variants, cases)


def check_left_padding_mask(fn: Callable[[list[int], int], Tensor]) -> CheckResult:
    """왼쪽 패딩 마스크 ``fn(lengths, S) -> (B, 1, 1, S)``를 채점합니다 (실제 토큰이 오른쪽 끝에 모임).

    Shape:
        - 반환: ``(B, 1, 1, S)``, ``True`` = 참여 가능
    """
    def ref(n: list[int], S: int) -> Tensor:
        return padding_mask(n, S).flip(-1)

    variants = [("mask_inverted", lambda n, S: ~ref(n, S)), ("padding_shape", lambda n, S: ref(n, S)[:, 0, 0, :])]
    cases = [_Case(f"lengths={n}, S={S}", (n, S)) for n, S in [([3, 1], 4), ([5, 2, 0], 5)]]
    return _mask_run("left_padding_mask", fn, ref, variants, cases)


def check_temperature_softmax(fn: Callable[[Tensor, float], Tensor], *, seed: int = 0) -> CheckResult:
    """``fn(scores, T) -> softmax(scores / T, dim=-1)``를 채점합니다.

    Shape:
        - scores ``(..., L, S)``
        - 반환 ``(..., L, S)``
    """
    g = _gen(seed)
    cases = [_Case(f"scores{tuple(s.shape)}, T={T}", (s, T)) for s, T in [(torch.randn(3, 5, generator=g), 2.0), (torch.randn(2, 4, 6, generator=g), 0.5)]]
    variants = [("temperature_mul", lambda s, T: torch.softmax(s * T, dim=-1)), ("softmax_axis", lambda s, T: torch.softmax(s / T, dim=-2))]
    return _run("temperature_softmax", fn, lambda s, T: torch.softmax(s / T, dim=-1), variants, cases)
