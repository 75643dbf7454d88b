"""otter-grader 연결: ``grader.check`` 결과를 한국어로 감쌉니다.

``korean_grader``는 otter의 ``grader.check`` 결과를 한국어로 요약하고, 숨은 테스트가 있는 과제에서
"모두 통과"라고 말하지 않게 합니다. 채점기 실패 메시지(``ExerciseFailure``의 한국어 보고서)는
doctest가 덧붙인 줄을 걷어 내고 그대로 보여 줍니다. otter는 이 함수를 부를 때만 import합니다.
"""

from __future__ import annotations

import html
import inspect
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["korean_grader", "install_public_tests", "PUBLIC_TESTS_FILE"]

#: 과제의 공개 테스트(otter assign 이 학생판 tests/ 에 쓰는 파일)를 담은 패키지 데이터.
#: ``make assignments``(scripts/build_assignments.py)가 다시 쓰고, tests/test_assignments.py 가 최신인지 확인합니다.
PUBLIC_TESTS_FILE = "public_tests.json"


def install_public_tests(assignment: str, tests_dir: str | Path = "tests") -> Path:
    """attn_lib 에 함께 든 과제의 공개 테스트 가운데 ``tests_dir`` 에 **없는** 파일만 씁니다.

    이미 있는 파일은 절대 덮어쓰지 않습니다: 채점할 때(``otter run``) 그 폴더에는 숨은 테스트까지 든 파일이
    있고, 덮어쓰면 숨은 테스트가 사라집니다.

    노트북 하나만 열었을 때(Colab, JupyterHub에 파일 하나, 내려받은 노트북)도 ``grader.check``가
    돌 수 있게 합니다. 숨은 테스트는 여기에 없습니다.

    Args:
        assignment: 과제 이름 (예: ``"attention_hw"``).
        tests_dir: 쓸 폴더.

    Returns:
        테스트 폴더의 경로.

    Raises:
        ValueError: 패키지에 그 과제가 없을 때.

    Shape:
        - 해당 없음
    """
    bundle = json.loads(resources.files(__package__).joinpath(PUBLIC_TESTS_FILE).read_text(encoding="utf-8"))
    if assignment not in bundle:
        raise ValueError(f"attn_lib 에 과제 {assignment!r}의 공개 테스트가 없습니다. 있는 과제: {sorted(bundle)}")
    folder = Path(tests_dir)
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in bundle[assignment].items():
        target = folder / name
        if not target.exists():
            target.write_text(text, encoding="utf-8")
    return folder


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


def korean_grader(
    tests_dir: str = "./tests", *, hidden_tests: bool = True, assignment: str | None = None,
    nb_path: str | None = None,
) -> Any:
    """``otter.Notebook``을 감싸 ``grader.check("q3")``가 한국어 요약을 보여 주게 합니다.

    숨은 테스트가 있는 과제(``hidden_tests=True``)에서는 공개 테스트를 모두 통과해도
    "모두 통과"라고 하지 않고, 숨은 테스트는 제출한 뒤에 채점된다고 알립니다.

    ``assignment``를 주면 먼저 그 과제의 공개 테스트를 ``tests_dir``에 씁니다(``install_public_tests``): 노트북
    하나만 열어도 스스로 채점할 수 있습니다. ``nb_path``는 그 파일이 실제로 있을 때만 otter에 넘깁니다
    (Colab의 "사본" 이름처럼 파일 이름이 바뀌어도 동작하도록).

    Args:
        tests_dir: otter 테스트 폴더.
        hidden_tests: 숨은 테스트가 있는 과제인지.
        assignment: 선택. 공개 테스트를 패키지에서 꺼내 쓸 과제 이름.
        nb_path: 선택. 이 노트북의 파일 이름.

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

    if assignment is not None and not getattr(otter.Notebook, "_grading_mode", False):  # 채점 중에는 손대지 않음
        install_public_tests(assignment, tests_dir)
    known_path = nb_path if nb_path is not None and Path(nb_path).is_file() else None
    return KoreanNotebook(nb_path=known_path, tests_dir=tests_dir)
