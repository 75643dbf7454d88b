"""책의 장과 채점 과제(``assignments/attention_hw.ipynb``)의 공개 채점기(checker).

문제마다 참조 구현, 틀린 참조 목록, 비교할 경우를 정해서 ``engine._run``에 넘깁니다.
otter 없이도 쓸 수 있습니다::

    from attn_lib.exercises import check_attention
    check_attention(my_attention)          # 노트북에서는 한국어 보고서가 보입니다
    check_attention(my_attention).passed   # True / False

숨은 테스트 자체는 이 모듈에 없습니다(채점 zip에만 있음).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from ..masks import causal_mask, padding_mask
from .engine import CheckResult, _Case, _gen, _mask_run, _run
from .references import _naive, _sdpa, reference_saturation

__all__ = [
    "check_attention_weights", "check_head_dim", "check_shape_answer", "check_split_merge",
    "check_attention", "check_causal_mask", "check_padding_mask", "check_combined_mask",
    "check_scale", "check_saturation", "check_cross_attention",
]


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


def check_attention_weights(fn: Callable[..., Any], *, seed: int = 0) -> CheckResult:
    """마스크 없는 어텐션 가중치 ``fn(query, key) -> weights``를 채점합니다.

    Returns:
        ``CheckResult`` (알아챈 실수: no_scale, scale_dk, softmax_axis).

    Shape:
        - query ``(..., L, Dh)``, key ``(..., S, Dh)``
        - 반환 ``(..., L, S)``
    """
    def ref(q: Tensor, k: Tensor, scale: float | None = None, dim: int = -1) -> Tensor:
        return _naive(q, k, k, scale=scale, dim=dim)[1]

    cases = [c for c in _attention_cases(seed, torch.float32)[:2]]
    cases = [_Case(c.label.replace(", Dv=5", ""), c.args[:2]) for c in cases]
    variants = [
        ("no_scale", lambda q, k: ref(q, k, 1.0)),
        ("scale_dk", lambda q, k: ref(q, k, 1.0 / q.shape[-1])),
        ("softmax_axis", lambda q, k: ref(q, k, dim=-2)),
    ]
    return _run("attention_weights", fn, ref, variants, cases)


def check_head_dim(fn: Callable[[int, int], int]) -> CheckResult:
    """``fn(embed_dim, num_heads) -> Dh``를 채점합니다. 나누어떨어지지 않으면 ValueError여야 합니다.

    Shape:
        - 반환: 파이썬 정수 ``Dh = E // H``
    """
    result = _run("head_dim", fn, lambda e, h: e // h, [],
                  [_Case(f"embed_dim={e}, num_heads={h}", (e, h)) for e, h in [(512, 8), (64, 4), (12, 3), (7, 1)]])
    if not result.passed:
        return result
    try:
        fn(10, 3)
    except ValueError:
        return result
    except Exception as exc:
        return CheckResult("head_dim", False, f"embed_dim=10, num_heads=3에서 ValueError가 아니라 {type(exc).__name__}이(가) 났습니다.", cases=5)
    return CheckResult("head_dim", False, "embed_dim=10, num_heads=3처럼 나누어떨어지지 않으면 ValueError를 일으켜야 합니다.", cases=5)


def check_shape_answer(answer: Any, ndim: int, question: str = "shape") -> CheckResult:
    """모양을 묻는 문제의 답이 정수 ``ndim``개짜리 튜플인지만 확인합니다 (값은 숨은 테스트가 봅니다).

    Shape:
        - answer: 길이 ``ndim``인 정수 튜플
    """
    if answer is Ellipsis or answer is None:
        return CheckResult(question, False, "아직 답을 적지 않았습니다.", "not_implemented")
    if not isinstance(answer, tuple) or len(answer) != ndim or not all(isinstance(a, int) and not isinstance(a, bool) for a in answer):
        return CheckResult(question, False, f"정수 {ndim}개짜리 튜플이어야 하는데 {answer!r}입니다. 예: (1, 2, 3, 4)")
    return CheckResult(question, True, "형식이 맞습니다. 값은 제출 뒤 숨은 테스트가 채점합니다.", cases=1)


def check_split_merge(split_fn: Callable[[Tensor, int], Tensor], merge_fn: Callable[[Tensor], Tensor], *, seed: int = 0) -> CheckResult:
    """``split_fn(x, num_heads)``와 ``merge_fn(x)``를 채점합니다 (split 다음 merge는 원래대로).

    Returns:
        ``CheckResult`` (알아챈 실수: split_order, merge_order, merge_view).

    Shape:
        - split: ``(B, L, E) -> (B, H, L, Dh)``
        - merge: ``(B, H, L, Dh) -> (B, L, E)``
    """
    g = _gen(seed)
    xs = [(torch.randn(2, 5, 12, generator=g), 3), (torch.randn(1, 4, 8, generator=g), 2), (torch.randn(3, 2, 6, generator=g), 6)]

    def split_ref(x: Tensor, h: int) -> Tensor:
        B, L, E = x.shape
        return x.view(B, L, h, E // h).transpose(1, 2)  # (B, L, E) -> (B, L, H, Dh) -> (B, H, L, Dh)

    def split_wrong(x: Tensor, h: int) -> Tensor:
        B, L, E = x.shape
        return x.reshape(B, h, L, E // h)  # (B, L, E) -> (B, H, L, Dh), 순서가 틀린 reshape

    def merge_ref(x: Tensor) -> Tensor:
        B, H, L, Dh = x.shape
        return x.transpose(1, 2).reshape(B, L, H * Dh)  # (B, H, L, Dh) -> (B, L, H, Dh) -> (B, L, E)

    def merge_wrong(x: Tensor) -> Tensor:
        B, H, L, Dh = x.shape
        return x.reshape(B, L, H * Dh)  # (B, H, L, Dh) -> (B, L, E), transpose 없이

    def merge_dh_first(x: Tensor) -> Tensor:
        B, H, L, Dh = x.shape
        return x.permute(0, 2, 3, 1).reshape(B, L, H * Dh)  # (B, H, L, Dh) -> (B, L, Dh, H) -> (B, L, E)

    split_cases = [_Case(f"split_heads(x{tuple(x.shape)}, num_heads={h})", (x, h)) for x, h in xs]
    result = _run("split_heads", split_fn, split_ref, [("split_order", split_wrong)], split_cases)
    if not result.passed:
        return result
    # 어텐션 출력처럼 메모리상 연속인 (B, H, L, Dh)를 넘깁니다 (그래야 transpose 뒤 view가 실패함)
    merge_cases = [_Case(f"merge_heads(x{tuple(split_ref(x, h).shape)})", (split_ref(x, h).contiguous(),)) for x, h in xs]
    result = _run("merge_heads", merge_fn, merge_ref, [("merge_order", merge_wrong), ("merge_order", merge_dh_first)], merge_cases)
    return CheckResult("split_heads/merge_heads", result.passed, result.message, result.mistake, 2 * len(xs))


def check_causal_mask(fn: Callable[[int], Tensor]) -> CheckResult:
    """``fn(L) -> (L, L)`` bool 인과 마스크(True = 참여 가능)를 채점합니다.

    Returns:
        ``CheckResult`` (알아챈 실수: mask_inverted, causal_strict, mask_float).

    Shape:
        - 반환: ``(L, L)``
    """
    variants = [("mask_inverted", lambda L: ~causal_mask(L)), ("causal_strict", lambda L: torch.ones(L, L, dtype=torch.bool).tril(-1))]
    return _mask_run("causal_mask", fn, causal_mask, variants, [_Case(f"L={L}", (L,)) for L in (4, 7, 1)])


def check_padding_mask(fn: Callable[[list[int], int], Tensor]) -> CheckResult:
    """``fn(lengths, S) -> (B, 1, 1, S)`` bool 패딩 마스크를 채점합니다.

    Returns:
        ``CheckResult`` (알아챈 실수: mask_inverted, padding_shape, mask_float).

    Shape:
        - lengths: 길이 ``B``인 정수 목록
        - 반환: ``(B, 1, 1, S)``
    """
    variants = [("mask_inverted", lambda n, S: ~padding_mask(n, S)), ("padding_shape", lambda n, S: padding_mask(n, S)[:, 0, 0, :]),
                ("padding_shape", lambda n, S: padding_mask(n, S)[:, 0])]
    cases = [_Case(f"lengths={n}, S={S}", (n, S)) for n, S in [([3, 1], 4), ([5, 2, 0], 5), ([2], 2)]]
    return _mask_run("padding_mask", fn, padding_mask, variants, cases)


def check_combined_mask(fn: Callable[[Tensor, Tensor], Tensor]) -> CheckResult:
    """``fn(causal, padding) -> (B, 1, L, S)`` 두 마스크를 합친 결과를 채점합니다.

    Shape:
        - causal: ``(L, S)``, padding: ``(B, 1, 1, S)``
        - 반환: ``(B, 1, L, S)``
    """
    cases = [_Case(f"L={L}, lengths={n}", (causal_mask(L), padding_mask(n, L))) for L, n in [(4, [4, 2]), (5, [1, 5, 3])]]
    return _mask_run("combine_masks", fn, lambda c, p: c & p, [("combine_or", lambda c, p: c | p), ("mask_inverted", lambda c, p: ~(c & p))], cases)


def check_scale(fn: Callable[[int], float]) -> CheckResult:
    """``fn(d_k) -> 1/sqrt(d_k)``를 채점합니다.

    Shape:
        - 반환: 파이썬 실수
    """
    variants = [("scale_dk", lambda d: 1.0 / d), ("scale_sqrt", lambda d: math.sqrt(d)), ("no_scale", lambda d: 1.0)]
    return _run("scale", fn, lambda d: 1.0 / math.sqrt(d), variants, [_Case(f"d_k={d}", (d,)) for d in (4, 16, 64, 512)])


def check_saturation(fn: Callable[..., float]) -> CheckResult:
    """``fn(d_k, scaled, seed=0) -> 비율``을 ``reference_saturation``과 비교합니다.

    Shape:
        - 반환: 파이썬 실수 (0~1)
    """
    variants = [("scaled_flag", lambda d, s, seed=0: reference_saturation(d, not s, seed)),
                ("scaled_flag", lambda d, s, seed=0: reference_saturation(d, True, seed)),
                ("no_scale", lambda d, s, seed=0: reference_saturation(d, False, seed))]
    cases = [_Case(f"d_k={d}, scaled={s}, seed={sd}", (d, s), {"seed": sd}) for d, s, sd in [(64, False, 0), (64, True, 0), (256, True, 1), (4, False, 2)]]
    return _run("measure_saturation", fn, reference_saturation, variants, cases)


def check_cross_attention(fn: Callable[..., Any], *, seed: int = 0) -> CheckResult:
    """``fn(mha, decoder_x, encoder_out, src_lengths) -> (output, weights)`` 크로스 어텐션을 채점합니다.

    Returns:
        ``CheckResult`` (알아챈 실수: cross_swapped, cross_no_mask, cross_causal, mask_inverted).

    Shape:
        - decoder_x ``(B, L, E)``, encoder_out ``(B, S, E)``, src_lengths 길이 ``B``
        - 반환 output ``(B, L, E)``, weights ``(B, H, L, S)``
    """
    from ..attention import MultiHeadAttention

    torch.manual_seed(seed)
    g = _gen(seed)
    cases = []
    for B, L, S, E, H, n in [(2, 3, 5, 8, 2, [5, 2]), (3, 6, 4, 12, 3, [4, 1, 3])]:
        mha = MultiHeadAttention(E, H).eval()
        cases.append(_Case(f"B={B}, L={L}, S={S}, E={E}, H={H}, src_lengths={n}",
                           (mha, torch.randn(B, L, E, generator=g), torch.randn(B, S, E, generator=g), n)))

    def ref(mha: Any, x: Tensor, mem: Tensor, n: list[int], mask: Any = "pad") -> Any:
        with torch.no_grad():
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
