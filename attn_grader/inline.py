"""Gradescope(otter 자동 채점 zip)용: 같은 명세의 부분 하나를 **학생 프로세스 안에서** 채점합니다.

``make grade``는 학생 노트북을 샌드박스에서 실행하고 채점기는 밖에서 돌리지만, Gradescope의 otter는 테스트를 학생의
파이썬 안에서 실행합니다. 그래서 zip의 테스트는 이 모듈로 채점기를 학생 함수와 같은 프로세스에서 돌립니다 (자동 채점
zip에는 채점 쪽 ``attn_grader``가 함께 들어감). 규칙과 힌트는 ``make grade``와 같지만, 학생 코드와 참조 구현이 같은
프로세스에 있으므로 결심한 학생은 이 검사를 속일 수 있습니다 (강사용 안내의 '채점을 믿을 수 있는 범위' 절;
Gradescope 도 두 프로세스로 나누는 일은 이슈 38).
"""

from __future__ import annotations

import json
from typing import Any

import torch

from attn_course.practice.calls import library_calls
from attn_course.practice.codec import encode
from attn_course.practice.hints import MISTAKES
from attn_course.practice.selfcheck import _check_question
from attn_course.practice.spec import question_from_public

from .judge import _judge_answer, question_from_bundle
from .registry import CHECKERS

__all__ = ["public_case", "hidden_case"]


def public_case(question_json: str, env: dict) -> None:
    """공개 규칙(자기 점검과 같음)으로 문제 하나를 보고, 통과하지 못하면 한국어 ``AssertionError``.

    Shape:
        - 해당 없음
    """
    report = _check_question(question_from_public(json.loads(question_json)), env)
    if not report.passed:
        raise AssertionError(report.text)


def hidden_case(case_json: str, env: dict) -> None:
    """채점 단위 하나(값 하나, 또는 채점기 실행 하나)를 채점하고, 틀리면 한국어 ``AssertionError``.

    ``case_json``: ``{"question": 문제(정답 포함), "part": 부분 번호, "seed": 시드, "hidden": 숨은 실행인지}``.

    Shape:
        - 해당 없음
    """
    case = json.loads(case_json)
    question = question_from_bundle(case["question"])
    part = question.parts[case["part"]]
    if part.kind != "check":
        name = part.data["name"]
        got: Any = {"value": encode(env[name])} if name in env else {"missing": True}
        ok, text = _judge_answer({"kind": part.kind, **part.data}, got)
        if not ok:
            raise AssertionError(text or "틀렸습니다.")
        return
    library: set[str] = set()

    def watched(fn: Any) -> Any:
        if not callable(fn) or not part.data.get("forbid_library"):
            return fn

        def call(*args: Any, **kwargs: Any) -> Any:
            result, hits = library_calls(fn, *args, **kwargs)
            library.update(hits)
            return result
        return call

    functions = [watched(env.get(n)) for n in part.data["functions"]]
    torch.set_default_dtype(torch.float32)
    with torch.random.fork_rng(devices=[]):
        result = CHECKERS[part.data["checker"]](*functions, seed=case["seed"])
    if library:
        raise AssertionError(f"직접 구현해야 하는 문제입니다: 실행하는 동안 {', '.join(sorted(library))}이(가) 불렸습니다.")
    if result.passed:
        return
    if not case["hidden"]:
        raise AssertionError(result.report())
    if result.mistake is not None:
        raise AssertionError(f"숨은 경우에서 틀렸습니다.\n힌트: {MISTAKES[result.mistake]}")
    raise AssertionError("숨은 경우(다른 모양과 시드)에서 참조 구현과 다릅니다.")
