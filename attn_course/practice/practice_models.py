"""연습 페이지의 채점기, 5~7장: 헤드의 몫, 크로스 어텐션, 캐시 끝에 맞춘 인과 마스크, 그룹 쿼리 어텐션의 짝.

``practice.py``와 같은 방식입니다. 채점 과제와 같은 문제는 두지 않습니다.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from attn_lib.attention import MultiHeadAttention
from attn_lib.kv_cache import cache_causal_mask
from attn_lib.masks import causal_mask, padding_mask
from .engine import CheckResult, _Case, _gen, _mask_run, _run

__all__ = ["check_relation_shares", "check_cross_attention", "check_cache_causal_mask", "check_kv_head_of"]


def check_relation_shares(fn: Callable[[Tensor], Tensor], *, seed: int = 0) -> CheckResult:
    """헤드마다 첫 토큰(키 0)과 이전 토큰(키 ``t-1``)에 준 몫의 평균 ``fn(weights) -> (H, 2)``를 채점합니다.

    평균은 배치 전체와 채점 위치 ``t >= 2``에 대해 냅니다(``t = 0, 1``에서는 두 관계가 같은 자리이거나 이전 토큰이 없음).

    Returns:
        ``CheckResult`` (알아챈 실수: share_positions).

    Shape:
        - weights: ``(B, H, L, L)``, 반환: ``(H, 2)`` (열 0 = 첫 토큰, 열 1 = 이전 토큰)
    """
    g = _gen(seed)
    cases = []
    for B, H, L in [(3, 2, 6), (2, 4, 5)]:
        w = torch.softmax(torch.randn(B, H, L, L, generator=g) * 2, dim=-1).masked_fill(~causal_mask(L), 0.0)
        cases.append(_Case(f"B={B}, H={H}, L={L}", (w / w.sum(-1, keepdim=True),)))

    def shares(w: Tensor, start: int = 2) -> Tensor:
        t = torch.arange(start, w.shape[-1])
        first = w[..., start:, 0].mean(dim=(0, 2))  # (B, H, L-start) -> (H,)
        previous = w[:, :, t, (t - 1).clamp(min=0)].mean(dim=(0, 2))  # (B, H, L-start) -> (H,)
        return torch.stack([first, previous], dim=-1)  # 2 x (H,) -> (H, 2)

    return _run("relation_shares", fn, shares, [("share_positions", lambda w: shares(w, 0)),
                                                ("share_positions", lambda w: shares(w, 1))], cases)


def check_cross_attention(fn: Callable[..., Any], *, seed: int = 0) -> CheckResult:
    """``fn(mha, decoder_x, encoder_out, src_lengths) -> (output, weights)`` 크로스 어텐션을 채점합니다.

    ``mha``는 ``attn_lib.MultiHeadAttention``이고, 소스 패딩(``src_lengths`` 뒤의 자리)을 가려야 합니다.

    Returns:
        ``CheckResult`` (알아챈 실수: cross_swapped, cross_no_mask, cross_causal, mask_inverted).

    Shape:
        - decoder_x ``(B, L, E)``, encoder_out ``(B, S, E)``, src_lengths 길이 ``B``
        - 반환 output ``(B, L, E)``, weights ``(B, H, L, S)``
    """
    g = _gen(seed)
    cases = []
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        for B, L, S, E, H, n in [(2, 3, 5, 8, 2, [5, 2]), (3, 6, 4, 12, 3, [4, 1, 3])]:
            mha = MultiHeadAttention(E, H).eval()
            cases.append(_Case(f"B={B}, L={L}, S={S}, E={E}, H={H}, src_lengths={n}",
                               (mha, torch.randn(B, L, E, generator=g), torch.randn(B, S, E, generator=g), n)))

    def ref(mha: Any, x: Tensor, mem: Tensor, n: list[int], mask: Any = "pad") -> Any:
        m = padding_mask(n, mem.shape[1]) if mask == "pad" else mask(n, x.shape[1], mem.shape[1])
        return mha(x, mem, mem, attn_mask=m)

    variants = [
        ("cross_swapped", lambda mha, x, mem, n: mha(mem, x, x)),
        ("cross_no_mask", lambda mha, x, mem, n: ref(mha, x, mem, n, lambda n, L, S: None)),
        ("cross_causal", lambda mha, x, mem, n: ref(mha, x, mem, n, lambda n, L, S: padding_mask(n, S) & causal_mask(L, S))),
        ("mask_inverted", lambda mha, x, mem, n: ref(mha, x, mem, n, lambda n, L, S: ~padding_mask(n, S))),
    ]
    with torch.no_grad():
        return _run("cross_attention", fn, ref, variants, cases)


def check_cache_causal_mask(fn: Callable[[int, int], Tensor]) -> CheckResult:
    """캐시 끝에 맞춘 인과 마스크 ``fn(L, S) -> (L, S)``를 채점합니다: 새 쿼리 ``i``는 키 ``0..S-L+i``를 봅니다.

    Returns:
        ``CheckResult`` (알아챈 실수: cache_mask_topleft, mask_inverted, mask_float).

    Shape:
        - 반환: ``(L, S)`` bool, ``True`` = 참여 가능
    """
    variants = [("cache_mask_topleft", lambda L, S: causal_mask(L, S)), ("mask_inverted", lambda L, S: ~cache_causal_mask(L, S))]
    cases = [_Case(f"L={L}, S={S}", (L, S)) for L, S in [(2, 5), (1, 4), (3, 3), (4, 9)]]
    return _mask_run("cache_causal_mask", fn, cache_causal_mask, variants, cases)


def check_kv_head_of(fn: Callable[[int, int, int], int]) -> CheckResult:
    """그룹 쿼리 어텐션에서 쿼리 헤드 ``h``가 쓰는 키·밸류 헤드 ``fn(h, H, Hkv) -> int``를 채점합니다.

    Returns:
        ``CheckResult`` (알아챈 실수: gqa_group_order).

    Shape:
        - 반환: 파이썬 정수 ``0 <= g < Hkv``
    """
    specs = [(h, H, Hkv) for H, Hkv in [(8, 2), (6, 3), (4, 4), (4, 1)] for h in range(H)]
    ref = lambda h, H, Hkv: h // (H // Hkv)  # noqa: E731
    cases = [_Case(f"H={H}, Hkv={Hkv}: 헤드 {h}", (h, H, Hkv)) for h, H, Hkv in specs]
    return _run("kv_head_of", fn, ref, [("gqa_group_order", lambda h, H, Hkv: h % Hkv)], cases)
