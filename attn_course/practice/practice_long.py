"""연습 페이지의 채점기, 8장과 10장: RoPE를 쓰는 디코딩 한 단계의 점수, 온라인 소프트맥스의 최댓값과 합.

``practice.py``와 같은 방식입니다. 채점 과제(8.1 이웃한 짝의 회전, 10.1 두 상태 합치기)와 같은 문제는 두지 않습니다.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from attn_lib.rope import apply_rope
from .engine import CheckResult, _Case, _gen, _run

__all__ = ["check_rope_decode_scores", "check_online_softmax_stats"]


def _decode_scores(q_new: Tensor, k_new: Tensor, k_cache: Tensor, *, at: int | None = None, rotate_key: bool = True,
                   rerotate: bool = False) -> Tensor:
    """참조(와 틀린 참조): 위치 ``S``의 새 쿼리가 캐시의 키와 자기 키에 주는 점수."""
    S = k_cache.shape[-2]
    pos = torch.tensor([S if at is None else at])
    q = apply_rope(q_new, pos)
    k = apply_rope(k_new, pos) if rotate_key else k_new
    keys = torch.cat([k_cache, k], dim=-2)  # (B, H, S, Dh) + (B, H, 1, Dh) -> (B, H, S+1, Dh)
    if rerotate:
        keys = apply_rope(keys, torch.arange(S + 1))
    return q @ keys.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, 1, Dh) @ (B, H, Dh, S+1) -> (B, H, 1, S+1)


def check_rope_decode_scores(fn: Callable[..., Any], *, seed: int = 0) -> CheckResult:
    """``fn(q_new, k_new, k_cache) -> 점수``: RoPE를 쓰는 모델의 디코딩 한 단계에서 새 토큰의 점수를 채점합니다.

    ``k_cache``에는 위치 ``0..S-1``의 키가 **이미 돌린 채로** 들어 있고, ``q_new``, ``k_new``는 아직 돌리지 않은 새 토큰
    (위치 ``S``)의 쿼리와 키입니다. 점수는 ``apply_rope``(기본 ``base``)로 돌린 쿼리와 키로 ``q·k / sqrt(Dh)``입니다.

    Returns:
        ``CheckResult`` (알아챈 실수: rope_no_offset, rope_rerotated_cache, rope_new_key_unrotated).

    Shape:
        - q_new, k_new: ``(B, H, 1, Dh)``, k_cache: ``(B, H, S, Dh)``
        - 반환: ``(B, H, 1, S + 1)``
    """
    g = _gen(seed)
    cases = []
    for B, H, S, dh in [(1, 2, 4, 8), (2, 1, 7, 4), (2, 3, 12, 16)]:
        raw = torch.randn(B, H, S, dh, generator=g)
        cache = apply_rope(raw, torch.arange(S))  # 캐시에는 돌린 키
        cases.append(_Case(f"B={B}, H={H}, 캐시 {S}개, Dh={dh}", (torch.randn(B, H, 1, dh, generator=g),
                                                                  torch.randn(B, H, 1, dh, generator=g), cache)))
    variants = [("rope_no_offset", lambda q, k, c: _decode_scores(q, k, c, at=0)),
                ("rope_rerotated_cache", lambda q, k, c: _decode_scores(q, k, c, rerotate=True)),
                ("rope_new_key_unrotated", lambda q, k, c: _decode_scores(q, k, c, rotate_key=False))]
    student = (lambda q, k, c: fn(q.clone(), k.clone(), c.clone())) if callable(fn) else fn
    return _run("rope_decode_scores", student, _decode_scores, variants, cases)


def _online(scores: Tensor, block_size: int, *, rescale: bool = True, inverse: bool = False,
            first: bool = False) -> tuple[Tensor, Tensor]:
    """블록 루프의 틀린 참조: 배율을 빠뜨리거나 뒤집음 (``first``면 첫 블록에서는 배율 1: 처음 m을 -inf 대신 첫 블록으로)."""
    m = scores.new_full(scores.shape[:-1], float("-inf"))  # (...,)
    l = scores.new_zeros(scores.shape[:-1])  # noqa: E741
    for start in range(0, scores.shape[-1], block_size):
        block = scores[..., start:start + block_size]  # (..., b)
        new = torch.maximum(m, block.amax(dim=-1))
        old = m.masked_fill(torch.isneginf(m), 0.0) + new.masked_fill(~torch.isneginf(m), 0.0) if first else m
        alpha = torch.exp(new - old) if inverse else torch.exp(old - new)
        l = (l * alpha if rescale else l) + torch.exp(block - new[..., None]).sum(dim=-1)  # noqa: E741
        m = new
    return m, l


def check_online_softmax_stats(fn: Callable[[Tensor, int], Any], *, seed: int = 0) -> CheckResult:
    """``fn(scores, block_size) -> (m, l)``: 점수를 블록씩 읽으며 행의 최댓값 ``m``과 ``l = Σ exp(s - m)``을 채점합니다.

    결과는 한 번에 계산한 ``scores.amax(-1)``, ``exp(scores - m).sum(-1)``과 같아야 합니다. 모든 점수는 유한합니다.

    Returns:
        ``CheckResult`` (알아챈 실수: online_no_rescale, online_inverse_factor).

    Shape:
        - scores: ``(..., S)``, 반환: ``(...,)``, ``(...,)``
    """
    g = _gen(seed)
    cases = []
    for shape, block in [((3, 8), 2), ((2, 2, 10), 4), ((5, 7), 3)]:
        scores = torch.randn(*shape, generator=g) * 2 + torch.linspace(0, 3, shape[-1])  # 뒤 블록일수록 최댓값이 커지기 쉬움
        cases.append(_Case(f"scores{shape}, block_size={block}", (scores.double(), block)))

    def ref(scores: Tensor, block_size: int) -> tuple[Tensor, Tensor]:
        m = scores.amax(dim=-1)  # (..., S) -> (...,)
        return m, torch.exp(scores - m[..., None]).sum(dim=-1)

    variants = [("online_no_rescale", lambda s, b: _online(s, b, rescale=False)),
                ("online_inverse_factor", lambda s, b: _online(s, b, inverse=True)),
                ("online_inverse_factor", lambda s, b: _online(s, b, inverse=True, first=True))]
    student = (lambda s, b: fn(s.clone(), b)) if callable(fn) else fn
    return _run("online_softmax_stats", student, ref, variants, cases)
