"""채점 엔진: 알려진 실수 표(``MISTAKES``), 채점 결과(``CheckResult``), 비교 도구.

채점기는 학생 함수를 여러 무작위 모양과 마스크에서 참조 구현과 비교합니다. 틀렸을 때는
잘 알려진 실수를 흉내 낸 "틀린 참조"와도 비교해서, 그중 하나와 똑같이 움직이면 그 실수를
한국어로 짚어 줍니다(스케일링 빠짐, 소프트맥스 축, 마스크 극성, 헤드를 잘못된 순서로 합치기 등;
힌트의 표는 ``hints.py``의 ``MISTAKES``). 그 비교를 하는 ``_run``이 이 모듈에 있고, 문제별 채점기
(``checkers*.py``, ``practice*.py``)는 참조, 틀린 참조, 경우(``_Case``)만 정해서 넘깁니다.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor

from .hints import MISTAKES

__all__ = ["MISTAKES", "CheckResult", "ExerciseFailure"]

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
            message, mistake = _error_report(case.label, exc)
            return CheckResult(question, False, message, mistake, len(cases))
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


def _error_report(label: str, exc: Exception) -> tuple[str, str | None]:
    """학생 함수가 낸 오류의 한국어 보고와 알아챈 실수 (연속이 아닌 텐서에 view: merge_view). 자기 점검도 씀."""
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, RuntimeError) and ("view size is not compatible" in str(exc) or "contiguous" in str(exc)):
        return f"{label}에서 오류: {text}\n힌트: {MISTAKES['merge_view']}", "merge_view"
    return f"{label}에서 오류가 났습니다: {text}", None


def _safe(fn: Callable[..., Any], case: _Case) -> Any:
    try:
        return fn(*case.args, **case.kwargs)
    except Exception:  # 틀린 참조가 이 입력에서 성립하지 않으면 비교하지 않음
        return object()


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


# 마스크 문제용: 아는 실수가 없으면 bool이 아닌 마스크(0/1 float)인지 한 번 더 봅니다.
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
