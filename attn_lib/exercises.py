"""연습 문제와 과제의 공개 채점기(checker).

채점기는 학생 함수를 여러 무작위 모양과 마스크에서 참조 구현과 비교합니다. 틀렸을 때는
잘 알려진 실수를 흉내 낸 "틀린 참조"와도 비교해서, 그중 하나와 똑같이 움직이면 그 실수를
한국어로 짚어 줍니다(스케일링 빠짐, 소프트맥스 축, 마스크 극성, 가려진 행의 NaN, 헤드를
잘못된 순서로 합치기 등). otter 없이도 쓸 수 있습니다::

    from attn_lib.exercises import check_attention
    check_attention(my_attention)          # 노트북에서는 한국어 보고서가 보입니다
    check_attention(my_attention).passed   # True / False

``korean_grader``는 otter의 ``grader.check`` 결과를 한국어로 감싸고, 숨은 테스트가 있는 과제에서
"모두 통과"라고 말하지 않게 합니다. 숨은 테스트 자체는 이 모듈에 없습니다(채점 zip에만 있음).
"""

from __future__ import annotations

import html
import inspect
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor

from .attention import scaled_dot_product_attention
from .masks import causal_mask, padding_mask
from .metrics import saturation

__all__ = [
    "MISTAKES", "CheckResult", "ExerciseFailure", "korean_grader",
    "check_attention_weights", "check_head_dim", "check_shape_answer", "check_split_merge",
    "check_attention", "check_causal_mask", "check_padding_mask", "check_combined_mask",
    "check_scale", "check_saturation", "check_cross_attention",
    "check_param_count", "check_head_loop", "check_left_padding_mask", "check_temperature_softmax",
]

# 잘 알려진 실수와 그 힌트. 키는 CheckResult.mistake 에 들어갑니다 (테스트가 이 키로 확인).
MISTAKES: dict[str, str] = {
    "no_scale": "점수에 1/sqrt(d_k)를 곱하지 않았습니다(스케일링 빠짐). "
    "`scores = query @ key.transpose(-2, -1) / math.sqrt(d_k)`처럼 d_k의 제곱근으로 나누세요.",
    "scale_dk": "1/sqrt(d_k)가 아니라 1/d_k로 나누었습니다. 내적의 분산은 d_k이므로 표준편차 sqrt(d_k)로 나눕니다.",
    "scale_sqrt": "sqrt(d_k)를 곱했습니다. 스케일은 그 역수 1/sqrt(d_k)입니다.",
    "softmax_axis": "소프트맥스를 잘못된 축(dim=-2, 쿼리 축)으로 취했습니다. "
    "가중치는 쿼리마다 키 축을 따라 합이 1이어야 하므로 `softmax(scores, dim=-1)`입니다.",
    "mask_inverted": "마스크 극성이 뒤집혔습니다. 이 책의 bool 마스크는 True = 참여 가능입니다. "
    "True 자리가 아니라 False 자리를 -inf로 채우세요: `scores.masked_fill(~attn_mask, float('-inf'))`.",
    "nan_rows": "모든 키가 가려진 행에서 NaN이 나왔습니다(exp(-inf)/0 = 0/0). 그런 행은 소프트맥스 전에 "
    "점수를 0으로 바꾸고, 소프트맥스 뒤에 가중치를 0으로 만드세요. 출력도 0이 됩니다.",
    "mask_after_softmax": "마스크를 소프트맥스 뒤에 걸었습니다. 그러면 행의 합이 1이 아닙니다. "
    "-inf 채우기는 소프트맥스 앞의 점수에 하세요.",
    "merge_order": "헤드를 잘못된 순서로 이어 붙였습니다. (B, H, L, Dh)를 곧바로 (B, L, E)로 reshape하면 "
    "헤드와 토큰이 뒤섞입니다. 먼저 `transpose(1, 2)`로 (B, L, H, Dh)를 만든 뒤 합치세요.",
    "merge_view": "transpose한 텐서는 메모리상 연속이 아니어서 `.view`가 실패합니다. "
    "`.contiguous().view(...)` 또는 `.reshape(...)`를 쓰세요.",
    "split_order": "헤드를 잘못 나누었습니다. (B, L, E)를 곧바로 (B, H, L, Dh)로 view하면 토큰이 헤드로 흩어집니다. "
    "`view(B, L, H, Dh)` 다음에 `transpose(1, 2)`를 하세요.",
    "causal_strict": "대각선까지 가렸습니다. 쿼리 i는 자기 자신(키 i)도 볼 수 있어야 하므로 `tril()`(diagonal=0)입니다.",
    "mask_float": "마스크는 bool 텐서여야 합니다(True = 참여 가능). 0/1 float 텐서는 점수에 더하는 덧셈 마스크로 해석됩니다.",
    "padding_shape": "패딩 마스크가 (B, S) 모양입니다. 헤드 축과 쿼리 축으로 브로드캐스트되도록 (B, 1, 1, S)로 만드세요.",
    "combine_or": "두 마스크를 |(또는)로 합쳤습니다. 두 마스크가 모두 허용한 자리만 참여해야 하므로 &(그리고)입니다.",
    "scaled_flag": "scaled 인자를 무시했습니다. scaled=False일 때는 스케일링 없이, True일 때만 1/sqrt(d_k)를 곱합니다.",
    "cross_swapped": "쿼리와 키·밸류를 바꿔 넣었습니다. 크로스 어텐션의 쿼리는 디코더 쪽(길이 L), "
    "키와 밸류는 인코더 출력(길이 S)입니다. 가중치 모양은 (B, H, L, S)입니다.",
    "cross_no_mask": "인코더의 패딩 마스크를 넘기지 않았습니다. `padding_mask(src_lengths, S)`를 attn_mask로 주세요.",
    "cross_causal": "크로스 어텐션에 인과 마스크를 걸었습니다. 디코더의 각 위치는 인코더 출력 전체(패딩 제외)를 볼 수 있습니다.",
    "temperature_mul": "점수를 온도 T로 나누지 않고 곱했습니다. `softmax(scores / T, dim=-1)`입니다.",
    "param_no_bias": "편향(bias)을 빼고 셌습니다. 선형층 네 개에 각각 E개의 편향이 있습니다.",
    "param_no_out": "출력 투영 W_o를 빼고 셌습니다. W_q, W_k, W_v, W_o 네 개입니다.",
    "not_implemented": "함수가 None을 돌려주었습니다. 아직 구현하지 않았거나 return을 빠뜨렸습니다.",
}


class ExerciseFailure(AssertionError):
    """채점기가 실패를 알리는 예외. 메시지는 한국어 보고서입니다.

    Shape:
        - 해당 없음 (텐서를 다루지 않음)
    """


@dataclass
class CheckResult:
    """채점 결과 하나. 노트북에서 표시하면 한국어 보고서가 보입니다.

    Args:
        question: 문제 이름.
        passed: 모든 경우를 통과했는지.
        message: 한국어 설명(실패 이유나 통과 안내).
        mistake: 알아챈 실수의 키(``MISTAKES``), 모르면 ``None``.
        cases: 비교한 경우의 수.

    Shape:
        - 해당 없음 (결과 객체)
    """

    question: str
    passed: bool
    message: str
    mistake: str | None = None
    cases: int = 0

    def __bool__(self) -> bool:
        return self.passed

    def report(self) -> str:
        """학생에게 보여 줄 한국어 보고서를 만듭니다.

        Shape:
            - 반환: 여러 줄 문자열
        """
        head = f"[{self.question}] " + (f"통과: {self.cases}가지 경우 모두 참조 구현과 같습니다." if self.passed else "아직 틀렸습니다.")
        return head if self.passed and not self.message else f"{head}\n{self.message}"

    __repr__ = report

    def _repr_html_(self) -> str:
        color = "#1a7f37" if self.passed else "#b42318"
        return f"<pre style='color:{color}; white-space:pre-wrap'>{html.escape(self.report())}</pre>"

    def raise_if_failed(self) -> None:
        """실패했으면 한국어 보고서를 담은 ``ExerciseFailure``를 일으킵니다 (otter 테스트용).

        Shape:
            - 해당 없음
        """
        if not self.passed:
            raise ExerciseFailure(self.report())


# ---- 비교 도구 ----------------------------------------------------------------------------

def _same(got: Any, want: Any, atol: float = 1e-5) -> bool:
    if isinstance(want, Tensor):
        if not isinstance(got, Tensor) or got.shape != want.shape:
            return False
        if want.dtype == torch.bool or got.dtype == torch.bool:
            return got.dtype == want.dtype and bool(torch.equal(got, want))
        return bool(torch.allclose(got.detach().double(), want.double(), atol=atol, rtol=1e-4, equal_nan=True))
    if isinstance(want, (tuple, list)):
        return isinstance(got, (tuple, list, torch.Size)) and len(got) == len(want) and all(_same(g, w, atol) for g, w in zip(got, want))
    if isinstance(want, (int, float)) and not isinstance(want, bool):
        try:
            return math.isclose(float(got), float(want), rel_tol=1e-5, abs_tol=1e-7)
        except (TypeError, ValueError):
            return False
    return got == want


def _describe(x: Any) -> str:
    if isinstance(x, Tensor):
        return f"Tensor(shape={tuple(x.shape)}, dtype={x.dtype})"
    if isinstance(x, (tuple, list)):
        return "(" + ", ".join(_describe(v) for v in x) + ")"
    return repr(x)


def _difference(got: Any, want: Any) -> str:
    """처음 어긋난 곳을 한국어로 설명합니다."""
    if isinstance(want, (tuple, list)) and isinstance(got, (tuple, list)) and len(got) == len(want):
        names = ["output", "weights"] if len(want) == 2 and all(isinstance(w, Tensor) for w in want) else [f"{i}번째 값" for i in range(len(want))]
        for name, g, w in zip(names, got, want):
            if not _same(g, w):
                return f"{name}: {_difference(g, w)}"
    if isinstance(want, Tensor) and isinstance(got, Tensor):
        if got.shape != want.shape:
            return f"모양이 {tuple(want.shape)}이어야 하는데 {tuple(got.shape)}입니다."
        if want.dtype == torch.bool and got.dtype != torch.bool:
            return MISTAKES["mask_float"]
        if torch.isnan(got).any():
            return "결과에 NaN이 있습니다."
        if want.dtype == torch.bool:
            return f"{int((got != want).sum())}칸이 다릅니다."
        return f"최대 차이 {float((got.detach().double() - want.double()).abs().max()):.3g} (허용 1e-5)."
    return f"{_describe(want)}이어야 하는데 {_describe(got)}입니다."


@dataclass
class _Case:
    label: str
    args: tuple
    kwargs: dict = field(default_factory=dict)


def _run(question: str, student: Callable[..., Any], reference: Callable[..., Any],
         variants: Sequence[tuple[str, Callable[..., Any]]], cases: Sequence[_Case]) -> CheckResult:
    """학생 함수를 경우마다 참조와 비교하고, 틀리면 틀린 참조들과 비교해 실수를 찾습니다."""
    if not callable(student):
        return CheckResult(question, False, f"함수가 필요한데 {_describe(student)}이(가) 들어왔습니다. 셀을 먼저 실행했나요?", cases=len(cases))
    outputs: list[Any] = []
    for case in cases:
        try:
            got = student(*case.args, **case.kwargs)
        except NotImplementedError:
            return CheckResult(question, False, MISTAKES["not_implemented"], "not_implemented", len(cases))
        except Exception as exc:  # 학생 코드의 어떤 오류든 보고서로 바꿉니다
            text = f"{type(exc).__name__}: {exc}"
            if isinstance(exc, RuntimeError) and ("view size is not compatible" in str(exc) or "contiguous" in str(exc)):
                return CheckResult(question, False, f"{case.label}에서 오류: {text}\n힌트: {MISTAKES['merge_view']}", "merge_view", len(cases))
            return CheckResult(question, False, f"{case.label}에서 오류가 났습니다: {text}", cases=len(cases))
        if got is None or got is Ellipsis:
            return CheckResult(question, False, MISTAKES["not_implemented"], "not_implemented", len(cases))
        outputs.append(got)
    wants = [reference(*c.args, **c.kwargs) for c in cases]
    failing = [i for i, (g, w) in enumerate(zip(outputs, wants)) if not _same(g, w)]
    if not failing:
        return CheckResult(question, True, "", cases=len(cases))
    for key, wrong in variants:
        if all(_same(outputs[i], _safe(wrong, cases[i])) for i in failing):
            first = cases[failing[0]]
            return CheckResult(question, False, f"{first.label}에서 틀렸습니다.\n힌트: {MISTAKES[key]}", key, len(cases))
    i = failing[0]
    return CheckResult(question, False, f"{cases[i].label}에서 틀렸습니다. {_difference(outputs[i], wants[i])}", cases=len(cases))


def _safe(fn: Callable[..., Any], case: _Case) -> Any:
    try:
        return fn(*case.args, **case.kwargs)
    except Exception:  # 틀린 참조가 이 입력에서 성립하지 않으면 비교하지 않음
        return object()


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


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


def _mask_run(question: str, fn: Callable[..., Any], ref: Callable[..., Tensor],
              variants: list[tuple[str, Callable[..., Tensor]]], cases: list[_Case]) -> CheckResult:
    result = _run(question, fn, ref, variants, cases)
    if not result.passed and result.mistake is None:
        try:
            got = fn(*cases[0].args)
        except Exception:  # 오류는 이미 보고서에 있음
            return result
        if isinstance(got, Tensor) and got.dtype != torch.bool:
            return CheckResult(question, False, f"{cases[0].label}에서 틀렸습니다.\n힌트: {MISTAKES['mask_float']}", "mask_float", len(cases))
    return result


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


def reference_saturation(d_k: int, scaled: bool, seed: int = 0) -> float:
    """포화 측정 문제의 약속된 실험: 쿼리 256개, 키 16개, 성분은 표준정규, 기준 0.99.

    ``g = torch.Generator().manual_seed(seed)``로 쿼리를 먼저, 키를 나중에 뽑습니다.

    Shape:
        - 쿼리 ``(256, d_k)``, 키 ``(16, d_k)``, 가중치 ``(256, 16)``
        - 반환: 파이썬 실수 (포화된 행의 비율)
    """
    g = _gen(seed)
    q, k = torch.randn(256, d_k, generator=g), torch.randn(16, d_k, generator=g)
    scale = 1.0 / math.sqrt(d_k) if scaled else 1.0
    weights = torch.softmax(q @ k.T * scale, dim=-1)  # (256, d_k) @ (d_k, 16) -> (256, 16)
    return float(saturation(weights, 0.99))


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
    from .attention import MultiHeadAttention

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


# ---- 연습 문제(책에 풀이가 공개됨) -------------------------------------------------------------

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


# ---- otter 결과를 한국어로 ----------------------------------------------------------------------

_FAILURE_LINE = re.compile(r"(?:ExerciseFailure|AssertionError): ?(.*)", re.S)
_DOCTEST_NOISE = re.compile(r"^\s*(Trying:|Expecting|\*{5,}|Line \d+, in|Failed example:|Exception raised:|Traceback)")


def _clean_failure(text: str) -> str:
    """doctest가 덧붙인 줄이 나오기 전까지의 메시지만 남깁니다."""
    kept = []
    for line in text.splitlines():
        if _DOCTEST_NOISE.match(line):
            break
        if line.strip():
            kept.append(line.strip())
    return "\n".join(kept)


def _korean_summary(test_file: Any, hidden_tests: bool) -> str:
    name = getattr(test_file, "name", "?")
    results = [r for r in getattr(test_file, "test_case_results", []) if not r.test_case.hidden]
    failed = [r for r in results if not r.passed]
    if not failed:
        tail = " 숨은 테스트는 제출한 뒤에 채점됩니다." if hidden_tests else ""
        return f"{name}: 공개 테스트 {len(results)}개를 모두 통과했습니다.{tail}"
    lines = [f"{name}: 공개 테스트 {len(results)}개 가운데 {len(failed)}개를 통과하지 못했습니다."]
    for r in failed:
        msg = r.message or ""
        match = _FAILURE_LINE.search(msg)
        if match and re.search(r"[가-힣]", match.group(1)):
            lines.append(_clean_failure(match.group(1)))
        else:
            lines.append("otter 원문(영어):\n" + msg.strip())
    return "\n".join(lines)


class _KoreanCheck:
    def __init__(self, test_file: Any, hidden_tests: bool) -> None:
        self.test_file = test_file
        self.text = _korean_summary(test_file, hidden_tests)

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        ok = getattr(self.test_file, "passed_all_public", False)
        return f"<pre style='color:{'#1a7f37' if ok else '#b42318'}; white-space:pre-wrap'>{html.escape(self.text)}</pre>"


def korean_grader(tests_dir: str = "./tests", *, hidden_tests: bool = True) -> Any:
    """``otter.Notebook``을 감싸 ``grader.check("q3")``가 한국어 요약을 보여 주게 합니다.

    숨은 테스트가 있는 과제(``hidden_tests=True``)에서는 공개 테스트를 모두 통과해도
    "모두 통과"라고 하지 않고, 숨은 테스트는 제출한 뒤에 채점된다고 알립니다.

    Args:
        tests_dir: otter 테스트 폴더.
        hidden_tests: 숨은 테스트가 있는 과제인지.

    Returns:
        ``check``가 한국어 결과를 돌려주는 ``otter.Notebook`` 하위 클래스의 인스턴스.

    Shape:
        - 해당 없음
    """
    import otter  # otter는 과제를 풀 때만 필요합니다

    class KoreanNotebook(otter.Notebook):
        def check(self, question: str, global_env: dict[str, Any] | None = None) -> _KoreanCheck:  # type: ignore[override]
            if global_env is None:
                frame = inspect.currentframe()
                global_env = frame.f_back.f_globals if frame is not None and frame.f_back is not None else {}
            return _KoreanCheck(super().check(question, global_env), hidden_tests)

    return KoreanNotebook(tests_dir=tests_dir)
