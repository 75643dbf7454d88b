"""채점 과제의 공개 채점기, 8장과 10장: 이웃한 짝을 돌리는 회전 위치 임베딩, 두 소프트맥스 상태 합치기.

``checkers.py``와 같은 방식입니다(참조, 틀린 참조, 경우를 ``engine._run``에 넘김). 두 문제 모두 책의 코드를 옮기는
문제가 아닙니다. 8.1은 책(``attn_lib.apply_rope``)의 앞뒤 절반 배치 대신 RoFormer 논문의 **이웃한 짝** 배치를, 10.1은
``blockwise_attention``의 정규화하지 않은 누산 대신 **정규화된** 부분 출력 두 개를 합치게 합니다.

학생 함수에는 입력의 **사본**을 넘깁니다: 학생이 입력을 제자리에서 바꿔도 참조와 틀린 참조가 보는 입력은 그대로라,
입력을 바꿔 참조를 자기 답에 맞추는 길이 없습니다.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from attn_lib.rope import apply_rope
from attn_course.practice.engine import CheckResult, _Case, _gen, _run

__all__ = ["check_rope_pairs", "check_merge_softmax_states"]


def _pairs_to_halves(dh: int) -> Tensor:
    """이웃한 짝 배치의 특징 순서를 앞뒤 절반 배치로: 특징 2i -> i, 2i + 1 -> i + Dh/2."""
    return torch.cat([torch.arange(0, dh, 2), torch.arange(1, dh, 2)])


def _rope_pairs(x: Tensor, start: int, base: float = 10000.0, *, sign: float = 1.0, offset: bool = True,
                exponent: float = 2.0) -> Tensor:
    """참조(와 틀린 참조): 이웃한 짝 ``(x_2i, x_2i+1)``을 위치 ``start + j``만큼 돌림.

    Shape:
        - x: ``(..., L, Dh)``, 반환: ``(..., L, Dh)``
    """
    L, dh = x.shape[-2], x.shape[-1]
    pos = torch.arange(L, dtype=torch.float64) + (start if offset else 0)
    theta = base ** (-exponent * torch.arange(dh // 2, dtype=torch.float64) / dh)  # (Dh/2,)
    angle = sign * pos[:, None] * theta[None, :]  # (L, 1) * (1, Dh/2) -> (L, Dh/2)
    cos, sin = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
    even, odd = x[..., 0::2], x[..., 1::2]  # 각각 (..., L, Dh/2)
    out = torch.stack([even * cos - odd * sin, even * sin + odd * cos], dim=-1)  # (..., L, Dh/2, 2)
    return out.flatten(-2)  # (..., L, Dh/2, 2) -> (..., L, Dh)


def check_rope_pairs(fn: Callable[..., Any], *, seed: int = 0) -> CheckResult:
    """``fn(x, start, base=10000.0)``: 이웃한 짝 배치의 회전 위치 임베딩을 채점합니다.

    행 ``j``(위치 ``start + j``)의 짝 ``i``, 곧 특징 ``(2i, 2i + 1)``을 각도 ``(start + j) * base ** (-2i / Dh)``만큼
    돌려야 합니다. 이 참조는 앞뒤 절반 배치의 ``attn_lib.apply_rope``에 특징 순열(``_pairs_to_halves``)을 건 값과 같습니다
    (``tests/test_exercises.py``가 확인).

    Returns:
        ``CheckResult`` (알아챈 실수: rope_half_layout, rope_direction, rope_no_offset, rope_frequency).

    Shape:
        - x: ``(B, H, L, Dh)`` (``Dh`` 짝수), start: 정수, 반환: ``(B, H, L, Dh)``
    """
    g = _gen(seed)
    settings = [(2, 2, 3, 8, 5, 10000.0), (1, 3, 4, 4, 0, 100.0), (2, 1, 2, 6, 17, 500.0), (1, 2, 5, 16, 40, 10000.0)]
    if seed != 0:  # 시드로 뽑은 모양, 시작 위치, 밑
        rng = random.Random(seed)
        settings = [(rng.randint(1, 3), rng.randint(1, 4), rng.randint(1, 6), 2 * rng.randint(2, 8), start,
                     rng.choice([100.0, 500.0, 10000.0])) for start in (rng.randint(1, 50), 0, rng.randint(1, 50))]
    cases = [_Case(f"x({B}, {H}, {L}, {dh}), start={s}, base={b:g}", (torch.randn(B, H, L, dh, generator=g), s), {"base": b})
             for B, H, L, dh, s, b in settings]
    def halves_layout(x: Tensor, start: int, base: float = 10000.0) -> Tensor:
        return apply_rope(x, torch.arange(start, start + x.shape[-2]), base=base)

    def student(x: Tensor, start: int, base: float = 10000.0) -> Any:
        return fn(x.clone(), start, base=base)

    variants = [("rope_half_layout", halves_layout),
                ("rope_direction", lambda x, s, base=10000.0: _rope_pairs(x, s, base, sign=-1.0)),
                ("rope_no_offset", lambda x, s, base=10000.0: _rope_pairs(x, s, base, offset=False)),
                ("rope_frequency", lambda x, s, base=10000.0: _rope_pairs(x, s, base, exponent=1.0)),
                ("rope_frequency", lambda x, s, base=10000.0: _rope_pairs(x, s, base, exponent=4.0))]
    with torch.no_grad():
        return _run("rope_pairs", student if callable(fn) else fn, _rope_pairs, variants, cases)


# ---- 10장: 두 소프트맥스 상태 합치기 ------------------------------------------------------------------

def _state(scores: Tensor, values: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """키 한 묶음의 상태 ``(m, ℓ, O)``: 최댓값, 그 기준의 지수 합, 정규화된 출력. 볼 키가 없는 행은 ``(-inf, 0, 0)``.

    Shape:
        - scores: ``(..., L, S)`` (가린 자리는 ``-inf``), values: ``(..., S, Dv)``
        - 반환: ``(..., L)``, ``(..., L)``, ``(..., L, Dv)``
    """
    m = scores.amax(dim=-1)  # (..., L, S) -> (..., L)
    shift = m.masked_fill(torch.isneginf(m), 0.0)
    p = torch.exp(scores - shift[..., None])  # (..., L, S)
    l = p.sum(dim=-1)  # noqa: E741  (..., L)
    # 빈 행은 p @ v = 0이라 0 / tiny = 0. (==로 비교하지 않음: 학생 노트북이 바꾼 Tensor.__eq__가 경우를 흔들지 않게)
    o = (p @ values) / l.clamp(min=torch.finfo(l.dtype).tiny)[..., None]  # (..., L, S) @ (..., S, Dv) -> (..., L, Dv)
    return m, l, o


def _merge(m1: Tensor, l1: Tensor, o1: Tensor, m2: Tensor, l2: Tensor, o2: Tensor, *, rescale: bool = True,
           rescale_output: bool = True, inverse: bool = False, average: bool = False, normalize: bool = True,
           guard: bool = True) -> tuple[Tensor, Tensor, Tensor]:
    """두 상태를 합치는 틀린 참조들 (인자를 모두 기본값으로 두면 맞는 합치기)."""
    m = torch.maximum(m1, m2)
    base = m.masked_fill(torch.isneginf(m), 0.0) if guard else m

    def factor(mi: Tensor) -> Tensor:
        if not rescale:
            return torch.ones_like(mi)
        return torch.exp(base - mi) if inverse else torch.exp(mi - base)

    a1, a2 = l1 * factor(m1), l2 * factor(m2)  # 새 기준으로 옮긴 두 합 (..., L)
    l = a1 + a2  # noqa: E741
    w1, w2 = (a1, a2) if rescale_output else (l1, l2)
    mixed = (o1 + o2) / 2 if average else w1[..., None] * o1 + w2[..., None] * o2  # (..., L, Dv)
    if average or not normalize:
        return m, l, mixed
    denom = l.clamp(min=torch.finfo(l.dtype).tiny) if guard else l
    return m, l, mixed / denom[..., None]


def check_merge_softmax_states(fn: Callable[..., Any], *, seed: int = 0) -> CheckResult:
    """``fn(m1, l1, o1, m2, l2, o2) -> (m, l, o)``: 서로 다른 키 묶음 두 개의 소프트맥스 상태를 합칩니다.

    상태 ``(m, ℓ, O)``는 행마다 점수의 최댓값, ``ℓ = Σ exp(s - m)``, 정규화된 출력 ``O = Σ softmax(s)·v``입니다.
    합친 상태는 두 묶음을 이은 키 전체에서 잰 상태와 같아야 합니다(참조는 합치기 공식이 아니라 키 전체의 소프트맥스;
    틀린 참조의 바탕인 ``_merge``가 그 값과 같다는 것은 ``tests/test_exercises.py``가 확인).
    볼 키가 하나도 없는 묶음의 행은 ``(-inf, 0, 0)``이고, 두 묶음 모두 그런 행의 답도 ``(-inf, 0, 0)``입니다.

    Returns:
        ``CheckResult`` (알아챈 실수: merge_no_rescale, merge_output_not_rescaled, merge_inverse_factor,
        merge_plain_average, merge_unnormalized, merge_empty_nan).

    Shape:
        - m1, l1, m2, l2: ``(B, H, L)``, o1, o2: ``(B, H, L, Dv)``
        - 반환: ``(B, H, L)``, ``(B, H, L)``, ``(B, H, L, Dv)``
    """
    g = _gen(seed)
    settings = [(2, 2, 3, 4, 3, 5, 1.0, None), (1, 2, 4, 6, 2, 4, 4.0, "first"), (2, 1, 3, 5, 5, 3, 2.0, "both")]
    if seed != 0:
        rng = random.Random(seed)
        settings = [(rng.randint(1, 3), rng.randint(1, 3), rng.randint(2, 5), rng.randint(1, 6), rng.randint(1, 6),
                     rng.randint(2, 6), rng.choice([1.0, 2.0, 4.0]), empty) for empty in (None, "first", "both")]
    cases = []
    for B, H, L, S1, S2, Dv, temp, empty in settings:
        scores = torch.randn(B, H, L, S1 + S2, generator=g) * temp  # (B, H, L, S)
        values = torch.randn(B, H, S1 + S2, Dv, generator=g)
        if empty is not None:  # 행 0은 첫 묶음의 키가 모두 가려짐, "both"면 행 L-1은 모든 키가 가려짐
            scores[..., 0, :S1] = float("-inf")
            if empty == "both":
                scores[..., L - 1, :] = float("-inf")
        parts = (*_state(scores[..., :S1], values[..., :S1, :]), *_state(scores[..., S1:], values[..., S1:, :]))
        label = f"B={B}, H={H}, L={L}, 키 {S1} + {S2}개, Dv={Dv}, 점수 배율 {temp:g}"
        label += {None: "", "first": ", 첫 묶음을 볼 수 없는 행", "both": ", 첫 묶음을 볼 수 없는 행과 키가 하나도 없는 행"}[empty]
        cases.append(_Case(label, parts, {"_full": _state(scores, values)}))

    def student(*parts: Tensor, _full: Any = None) -> Any:
        return fn(*(p.clone() for p in parts))

    variants = [("merge_empty_nan", lambda *p, _full=None: _merge(*p, guard=False)),
                ("merge_no_rescale", lambda *p, _full=None: _merge(*p, rescale=False)),
                ("merge_output_not_rescaled", lambda *p, _full=None: _merge(*p, rescale_output=False)),
                ("merge_inverse_factor", lambda *p, _full=None: _merge(*p, inverse=True)),
                ("merge_plain_average", lambda *p, _full=None: _merge(*p, average=True)),
                ("merge_unnormalized", lambda *p, _full=None: _merge(*p, normalize=False))]
    with torch.no_grad():
        return _run("merge_softmax_states", student if callable(fn) else fn, lambda *p, _full=None: _full, variants, cases)

