"""otter-grader 연결: ``grader.check`` 결과를 한국어로 감쌉니다.

``korean_grader``는 otter의 ``grader.check`` 결과를 한국어로 요약하고, 숨은 테스트가 있는 과제에서
"모두 통과"라고 말하지 않게 합니다. 채점기 실패 메시지(``ExerciseFailure``의 한국어 보고서)는
doctest가 덧붙인 줄을 걷어 내고 그대로 보여 줍니다. otter는 이 함수를 부를 때만 import합니다.
"""

from __future__ import annotations

import html
import inspect
import re
from typing import Any

__all__ = ["korean_grader"]


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
