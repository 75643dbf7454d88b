"""채점 테스트가 함께 쓰는 도구: 배포판 만들기, 제출 만들기(풀이, 빈 답, 공격 셀), make grade 돌리기.

배포판은 ``make assignments``와 같은 코드(``attn_grader.build``)로 세션마다 한 번 임시 폴더에 만듭니다
(``tests/conftest.py``의 ``assignment_dist``). 채점은 ``attn_grader.grade``의 ``main``을 그대로 부르고, 샌드박스가
없는 기계(bwrap 없음, root 아님)에서는 그 테스트를 이유와 함께 건너뜁니다. ``make test``는 bubblewrap을 설치합니다.
"""

from __future__ import annotations

import contextlib
import csv
import hashlib
import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Iterator

import nbformat
import pytest

from attn_grader.known_mistakes import define_cell

ROOT = Path(__file__).resolve().parents[1]
MASTER = ROOT / "assignments" / "attention_hw.ipynb"
NAME = MASTER.stem


# pytest-xdist 의 작업자마다 다른 uid 범위 (같은 기계에서 두 채점이 서로의 프로세스를 끝내지 않도록)
_WORKER = os.environ.get("PYTEST_XDIST_WORKER", "gw0")
os.environ.setdefault("GRADE_UID_BASE", str(61000 + 16 * int(_WORKER[2:] or 0)))
_LOCKS = Path(tempfile.gettempdir()) / "attn_lib_grading_tests"


@contextlib.contextmanager
def grading_lock() -> Iterator[None]:
    """채점하는 테스트는 작업자가 여럿이어도 한 번에 하나씩 (시간 제한이 있는 테스트가 코어를 두고 다투지 않게)."""
    from filelock import FileLock

    _LOCKS.mkdir(exist_ok=True)
    with FileLock(str(_LOCKS / "grade.lock")):
        yield


def build_dist_once() -> Path:
    """연습판 배포판을 만들되, 같은 입력(마스터, 채점기, 빌드 스크립트)으로 이미 만든 것이 있으면 그것을 씁니다."""
    inputs = [MASTER, *(p for pkg in ("attn_lib", "attn_course", "attn_harness", "attn_grader")
                        for p in sorted((ROOT / pkg).rglob("*.py")) if "build" not in p.parts)]
    digest = hashlib.sha256(b"".join(p.read_bytes() for p in inputs)).hexdigest()[:16]
    cached = _LOCKS / f"dist-{digest}" / NAME
    from filelock import FileLock

    _LOCKS.mkdir(exist_ok=True)
    with FileLock(str(_LOCKS / "dist.lock")):
        if not (cached / f"{NAME}-grading.json").exists():
            for old in _LOCKS.glob("dist-*"):  # 입력이 바뀐 뒤의 옛 배포판
                for p in old.rglob("*"):
                    p.chmod(0o755 if p.is_dir() else 0o644)
                shutil.rmtree(old, ignore_errors=True)
            load_script("build_assignments").build(MASTER, cached.parent)
    return cached


#: 예전 scripts/ 의 이름 -> 채점 쪽 패키지의 모듈
_MODULES = {"build_assignments": "attn_grader.build", "assignment_master": "attn_grader.master",
            "grade": "attn_grader.grade", "sandbox": "attn_grader.sandbox"}


def load_script(name: str):
    """채점 쪽 모듈 하나 (``attn_grader`` 의 build, master, grade, sandbox)."""
    return importlib.import_module(_MODULES[name])


def require_sandbox() -> None:
    """샌드박스를 쓸 수 없으면 이유와 함께 테스트를 건너뜁니다."""
    sandbox = load_script("sandbox")
    try:
        sandbox.check_available()
    except sandbox.SandboxUnavailable as exc:
        pytest.skip(f"샌드박스를 쓸 수 없습니다: {exc}")


def student(dist: Path):
    return nbformat.read(dist / "student" / f"{NAME}.ipynb", as_version=4)


def define(nb, prefix: str, source: str) -> None:
    """``prefix``로 시작하는 코드 셀(학생이 채우는 셀)을 ``source``로 바꿉니다 (빌드가 틀린 풀이에 쓰는 함수)."""
    define_cell(nb, prefix, source)


def solution_sources(dist: Path) -> dict[str, str]:
    """풀이 노트북(autograder)에서 학생판의 각 답 셀에 해당하는 풀이 셀을 찾습니다 (첫 줄 -> 풀이)."""
    auto = nbformat.read(dist / "autograder" / f"{NAME}.ipynb", as_version=4)
    stud = student(dist)
    answers = {}
    for s_cell, a_cell in zip(stud.cells, auto.cells):
        if s_cell.cell_type == "code" and s_cell.source != a_cell.source:
            answers[s_cell.source.lstrip().split("\n")[0]] = a_cell.source
    return answers


def solved(dist: Path):
    """학생판에 마스터 풀이를 채운 노트북 (학생이 다 맞힌 제출)."""
    nb = student(dist)
    answers = solution_sources(dist)
    for cell in nb.cells:
        first = cell.source.lstrip().split("\n")[0] if cell.cell_type == "code" else None
        if first in answers:
            cell.source = answers[first]
    return nb


def with_cell(nb, source: str, position: int = 2):
    """``position`` 자리(기본: 첫 코드 셀 다음)에 코드 셀 하나를 넣은 노트북."""
    nb.cells.insert(position, nbformat.v4.new_code_cell(source))
    return nb


def grade(subs: Path, dist: Path, out: Path, *, timeout: float = 240, jobs: int = 2) -> dict[str, dict]:
    """``attn_grader.grade``로 채점하고 학생 -> CSV 행."""
    with grading_lock():
        rc = load_script("grade").main([str(subs), "--bundle", str(dist / f"{NAME}-grading.json"), "--output", str(out),
                                        "--timeout", str(timeout), "--jobs", str(jobs)])
    assert rc == 0
    with out.open(encoding="utf-8") as f:
        return {r["student"]: r for r in csv.DictReader(f)}


def question_columns(row: dict) -> list[str]:
    return [k for k in row if k.startswith("q") and k[1:2].isdigit()]
