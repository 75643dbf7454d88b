"""값과 선택지를 묻는 문제의 채점 도우미: ``check_value``, ``check_choice``.

정답과 틀린 답마다의 힌트는 이 모듈에 없습니다. 채점 zip의 숨은 테스트가 ``check_value(q1_1_x, 정답,
hints={틀린 답: 힌트, ...})``처럼 넘깁니다(공개 라이브러리를 읽어도 답이 보이지 않도록). 이 모듈은 답을 정규화하고
(목록은 튜플, 집합은 frozenset, 수는 허용 오차 안에서) 알려진 틀린 답이면 그 힌트를, 아니면 기본 힌트를 담은
``ExerciseFailure``를 냅니다. ``tests/test_assignments.py``는 숨은 테스트의 ``hints``마다 그 틀린 답이 점수를
잃고 그 힌트를 받는지 확인합니다.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from attn_course.practice.engine import ExerciseFailure

__all__ = ["check_value", "check_choice"]


def _normalize(x: Any) -> Any:
    """비교할 수 있는 꼴로: 목록·튜플 -> 튜플, 집합 -> frozenset, 0차원 텐서·NumPy 수 -> 파이썬 수."""
    if hasattr(x, "item") and callable(x.item) and getattr(x, "ndim", 0) == 0:
        x = x.item()
    if isinstance(x, (list, tuple)):
        return tuple(_normalize(v) for v in x)
    if isinstance(x, (set, frozenset)):
        return frozenset(_normalize(v) for v in x)
    return x


def _close(a: Any, b: Any, tol: float) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return math.isclose(a, b, rel_tol=tol, abs_tol=tol)
    if isinstance(a, tuple) and isinstance(b, tuple):
        return len(a) == len(b) and all(_close(x, y, tol) for x, y in zip(a, b))
    return a == b


def _short(value: Any, limit: int = 80) -> str:
    """답을 짧게 (피드백이 학생 값으로 부풀지 않도록)."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def check_value(answer: Any, correct: Any, *, name: str, hints: Mapping[Any, str] | None = None,
                default: str = "", tol: float = 1e-6) -> None:
    """값을 묻는 문제: ``answer``가 ``correct``와 (허용 오차 ``tol`` 안에서) 같지 않으면 힌트와 함께 실패합니다.

    Args:
        answer: 학생의 답 (수, 튜플, 집합 등).
        correct: 정답.
        name: 답의 변수 이름 (메시지에 씀).
        hints: 알려진 틀린 답 -> 한국어 힌트. 수는 ``tol`` 안에서 같으면 같은 답으로 봅니다.
        default: 알려진 틀린 답이 아닐 때의 힌트.
        tol: 수를 비교할 상대·절대 허용 오차.

    Raises:
        ExerciseFailure: 틀렸을 때 (한국어 힌트를 담음).

    Shape:
        - 해당 없음 (파이썬 값)
    """
    got, want = _normalize(answer), _normalize(correct)
    if answer is Ellipsis or answer is None:
        raise ExerciseFailure(f"[{name}] 아직 답을 적지 않았습니다.")
    if _close(got, want, tol):
        return
    hint = next((text for key, text in (hints or {}).items() if _close(got, _normalize(key), tol)), default)
    shown = _short(answer)
    raise ExerciseFailure(f"[{name}] 아직 틀렸습니다 (답: {shown}).\n힌트: {hint}" if hint else
                          f"[{name}] 아직 틀렸습니다 (답: {shown}).")


def check_choice(answer: Any, correct: str, *, name: str, options: str, hints: Mapping[str, str]) -> None:
    """선택지를 고르는 문제: 고른 글자들의 집합이 ``correct``와 다르면, 잘못 넣거나 뺀 글자마다 힌트를 보여 줍니다.

    답은 ``"bd"``, ``{"b", "d"}``, ``["b", "d"]`` 어느 꼴이든 됩니다(대소문자와 공백은 무시).

    Args:
        answer: 학생이 고른 글자들.
        correct: 정답 글자들 (예: ``"bcd"``).
        name: 답의 변수 이름.
        options: 고를 수 있는 글자들 (예: ``"abcde"``).
        hints: 글자 -> 그 글자를 잘못 넣거나 뺐을 때의 한국어 힌트.

    Raises:
        ExerciseFailure: 형식이 틀렸거나 답이 다를 때.

    Shape:
        - 해당 없음 (파이썬 값)
    """
    if answer is Ellipsis or answer is None:
        raise ExerciseFailure(f"[{name}] 아직 답을 적지 않았습니다.")
    letters = answer if isinstance(answer, (set, frozenset, list, tuple)) else str(answer)
    chosen = {str(c).strip().lower() for c in letters if str(c).strip() and str(c).strip() not in ",;"}
    unknown = sorted(chosen - set(options))
    if unknown:
        raise ExerciseFailure(f"[{name}] 고를 수 있는 글자는 {', '.join(options)}인데 {', '.join(unknown)}이(가) 있습니다.")
    wrong = sorted(chosen ^ set(correct))
    if not wrong:
        return
    lines = [f"- ({c}) {hints[c]}" for c in wrong if c in hints]
    chosen = {c for c in chosen if len(c) == 1}
    raise ExerciseFailure(f"[{name}] 아직 틀렸습니다 (고른 것: {''.join(sorted(chosen)) or '없음'}).\n힌트:\n" + "\n".join(lines)
                          if lines else f"[{name}] 아직 틀렸습니다 (고른 것: {''.join(sorted(chosen)) or '없음'}).")
