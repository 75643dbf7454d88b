"""연습 페이지(``chapters/11_practice.ipynb``)의 채점기, 1~4장. 책에 풀이가 공개된 문제들입니다.

채점 과제와 같은 문제를 여기에 두지 않습니다(과제 풀이가 공개되므로; ``tests/test_coursework_copies.py``가
코드로 비교합니다). 비교는 ``engine``이 합니다. ``check_attention``은 내 어텐션을 참조와 나란히 그리는
보기(``compare.py``)도 씁니다. 5~7장은 ``practice_models.py``에 있습니다.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from attn_lib.attention import scaled_dot_product_attention
from attn_lib.masks import causal_mask, padding_mask
from .engine import CheckResult, _Case, _gen, _mask_run, _run
from .references import _naive, _sdpa

__all__ = [
    "check_concat_heads", "check_param_count", "check_head_loop", "check_attention",
    "check_packed_mask", "check_future_weight", "check_temperature_softmax", "check_softmax_jacobian",
]


def check_concat_heads(fn: Callable[[Tensor, Tensor, Tensor], Tensor], *, seed: int = 0) -> CheckResult:
    """두 헤드의 가중치와 밸류로 각 헤드의 출력을 만들어 이어 붙이는 ``fn(weights_a, weights_b, values)``를 채점합니다.

    Returns:
        ``CheckResult`` (알아챈 실수: concat_sum, concat_stack).

    Shape:
        - weights_a, weights_b: ``(L, S)``, values: ``(S, Dv)``
        - 반환: ``(L, 2 Dv)``
    """
    g = _gen(seed)
    cases = []
    for L, S, Dv in [(3, 4, 2), (5, 2, 3)]:
        wa, wb = (torch.softmax(torch.randn(L, S, generator=g), dim=-1) for _ in range(2))
        cases.append(_Case(f"L={L}, S={S}, Dv={Dv}", (wa, wb, torch.randn(S, Dv, generator=g))))
    variants = [("concat_sum", lambda a, b, v: a @ v + b @ v),
                ("concat_stack", lambda a, b, v: torch.stack([a @ v, b @ v])),
                ("concat_stack", lambda a, b, v: torch.stack([a @ v, b @ v], dim=-1))]
    return _run("concat_heads", fn, lambda a, b, v: torch.cat([a @ v, b @ v], dim=-1), variants, cases)


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


def _attention_cases(seed: int, dtype: torch.dtype) -> list[_Case]:
    g = _gen(seed)

    def qkv(*lead: int, L: int, S: int, Dh: int, Dv: int) -> tuple[Tensor, Tensor, Tensor]:
        return (torch.randn(*lead, L, Dh, generator=g, dtype=dtype), torch.randn(*lead, S, Dh, generator=g, dtype=dtype),
                torch.randn(*lead, S, Dv, generator=g, dtype=dtype))

    pad = padding_mask([5, 0, 3], 5)  # (B=3, 1, 1, S=5), 둘째 문장은 키가 하나도 없음
    return [
        _Case("마스크 없이 (L=4, S=4, Dh=8)", qkv(L=4, S=4, Dh=8, Dv=8)),
        _Case("마스크 없이 L != S (B=2, H=3, L=3, S=6, Dh=16, Dv=5)", qkv(2, 3, L=3, S=6, Dh=16, Dv=5)),
        _Case("인과 마스크 (B=2, H=2, L=5, S=5, Dh=8)", (*qkv(2, 2, L=5, S=5, Dh=8, Dv=8), causal_mask(5))),
        _Case("패딩 마스크, 키가 모두 가려진 문장 포함 (B=3, H=2, L=4, S=5, Dh=4)", (*qkv(3, 2, L=4, S=5, Dh=4, Dv=6), pad)),
    ]


def check_attention(fn: Callable[..., Any], *, seed: int = 0, dtype: torch.dtype = torch.float32) -> CheckResult:
    """스케일드 내적 어텐션 ``fn(query, key, value, attn_mask=None) -> (output, weights)``를 채점합니다.

    bool 마스크는 True = 참여 가능이고, 키가 모두 가려진 행은 가중치와 출력이 0이어야 합니다.

    Args:
        fn: 학생 함수.
        seed: 무작위 입력의 시드.
        dtype: 입력 dtype.

    Returns:
        ``CheckResult`` (알아챈 실수: no_scale, softmax_axis, mask_inverted, nan_rows, mask_after_softmax).

    Shape:
        - query ``(..., L, Dh)``, key ``(..., S, Dh)``, value ``(..., S, Dv)``, attn_mask ``(..., L, S)``로 브로드캐스트
        - 반환 output ``(..., L, Dv)``, weights ``(..., L, S)``
    """
    variants = [
        ("no_scale", _sdpa(scale=1.0)),
        ("mask_inverted", _sdpa(invert=True)),
        ("softmax_axis", lambda q, k, v, m=None: _naive(q, k, v, m, dim=-2)),
        ("nan_rows", lambda q, k, v, m=None: _naive(q, k, v, m)),
        ("mask_after_softmax", lambda q, k, v, m=None: _naive(q, k, v, m, after=True)),
    ]
    return _run("scaled_dot_product_attention", fn, _sdpa(), variants, _attention_cases(seed, dtype))


def check_packed_mask(fn: Callable[[list[int]], Tensor]) -> CheckResult:
    """여러 시퀀스를 한 줄에 이어 붙인(packing) 입력의 셀프 어텐션 마스크 ``fn(lengths) -> (S, S)``를 채점합니다.

    쿼리는 같은 시퀀스 안의 자기와 앞 위치만 봅니다(``True`` = 참여 가능, ``S = sum(lengths)``).

    Returns:
        ``CheckResult`` (알아챈 실수: packed_cross, packed_no_causal, mask_inverted, mask_float).

    Shape:
        - 반환: ``(S, S)`` bool
    """
    def same_sequence(lengths: list[int]) -> Tensor:
        ids = torch.repeat_interleave(torch.arange(len(lengths)), torch.tensor(lengths))  # (S,): 위치마다 시퀀스 번호
        return ids[:, None] == ids[None, :]  # (S, 1) == (1, S) -> (S, S)

    def ref(lengths: list[int]) -> Tensor:
        return same_sequence(lengths) & causal_mask(sum(lengths))

    variants = [("packed_cross", lambda n: causal_mask(sum(n))), ("packed_no_causal", same_sequence),
                ("mask_inverted", lambda n: ~ref(n))]
    return _mask_run("packed_mask", fn, ref, variants, [_Case(f"lengths={n}", (n,)) for n in ([3, 2], [1, 4, 2], [5])])


def check_future_weight(fn: Callable[[Tensor], Tensor], *, seed: int = 0) -> CheckResult:
    """쿼리마다 미래 키(``j > i``)에 준 가중치의 합 ``fn(weights) -> (..., L)``을 채점합니다 (누출을 가중치로 재기).

    Returns:
        ``CheckResult`` (알아챈 실수: future_diagonal).

    Shape:
        - weights: ``(..., L, L)``, 반환: ``(..., L)``
    """
    g = _gen(seed)
    cases = [_Case(f"weights{shape}", (torch.softmax(torch.randn(*shape, generator=g), dim=-1),)) for shape in [(4, 4), (2, 3, 5, 5)]]

    def future(w: Tensor, diagonal: int = 1) -> Tensor:
        L = w.shape[-1]
        return (w * torch.ones(L, L).triu(diagonal)).sum(dim=-1)  # (..., L, L) -> (..., L)

    return _run("future_weight", fn, future, [("future_diagonal", lambda w: future(w, 0))], cases)


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


def check_softmax_jacobian(fn: Callable[[Tensor], Tensor], *, seed: int = 0) -> CheckResult:
    """행마다 소프트맥스의 야코비안 ``fn(p) -> J``(``J = diag(p) - p p^T``)를 채점합니다.

    참조는 자동 미분(``torch.autograd.functional.jacobian``)으로 계산합니다.

    Returns:
        ``CheckResult`` (알아챈 실수: jacobian_sign).

    Shape:
        - p: ``(..., S)`` (소프트맥스 출력), 반환: ``(..., S, S)``
    """
    g = _gen(seed)
    scores = [torch.randn(4, generator=g, dtype=torch.float64), torch.randn(2, 3, generator=g, dtype=torch.float64)]
    cases = [_Case(f"p{tuple(s.shape)}", (torch.softmax(s, dim=-1),)) for s in scores]

    def by_autograd(p: Tensor) -> Tensor:
        flat = p.log().reshape(-1, p.shape[-1])  # (..., S) -> (N, S): 소프트맥스 전 점수 (상수 차이는 상관없음)
        rows = [torch.autograd.functional.jacobian(lambda s: torch.softmax(s, dim=-1), r) for r in flat]
        return torch.stack(rows).reshape(*p.shape, p.shape[-1])  # (N, S, S) -> (..., S, S)

    outer = lambda p: p[..., :, None] * p[..., None, :]  # (..., S, 1) * (..., 1, S) -> (..., S, S)  # noqa: E731
    variants = [("jacobian_sign", lambda p: outer(p) - torch.diag_embed(p)), ("jacobian_sign", torch.diag_embed)]
    return _run("softmax_jacobian", fn, by_autograd, variants, cases)
