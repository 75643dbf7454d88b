"""공개 경우 적기: 채점기를 공개 시드로 돌리며 학생 함수를 부른 입력과 마스터 풀이의 출력을 공개 명세에 적습니다.

학생의 자기 점검(``attn_course.practice.selfcheck``)은 참조 구현 없이 이 기록과 비교합니다. 빌드가 이 모듈로:

1. 마스터 풀이를 실행한 하네스에 채점기를 공개 시드로 돌려, 채점기가 학생 함수를 부른 입력(값)과 마스터의 출력을
   차례로 적습니다 (같은 입력의 호출은 한 번만).
2. 알려진 틀린 풀이(``known_mistakes.WRONG_CODE``)를 실행한 하네스마다, 채점기가 공개 시드에서 그 풀이에 주는 실수의
   키와, 1의 입력마다 그 풀이의 출력을 적습니다. 채점기가 실수를 알아채지 못한 풀이는 적지 않습니다.

공개 명세에 들어가는 것은 공개 경우의 입력과 출력뿐입니다. 숨은 시드의 경우, 참조 구현의 코드, 값 문제의 정답은
들어가지 않습니다. 답이 하나가 아닌 문제(1.2의 쿼리)는 비교하는 꼴(``TRANSFORM``)로 바꾼 출력을 적습니다.
"""

from __future__ import annotations

import json
from typing import Any

import torch

from attn_course.practice.codec import decode, encode
from attn_course.practice.selfcheck import TRANSFORMS

from .judge import LOCK, LiveStandIns, _Lost, part_inputs
from .registry import CHECKERS

__all__ = ["record_public_cases", "TRANSFORM"]

#: 채점기 이름 -> 자기 점검이 출력을 비교하기 전에 쓰는 변환 (``attn_course.practice.selfcheck.TRANSFORMS``)
TRANSFORM = {"check_query_for_shares": "softmax_onehot"}


class _Tap(LiveStandIns):
    """부른 입력과 돌아온 출력을 적는 대역."""

    def __init__(self, session: Any, forbid_library: bool) -> None:
        super().__init__(session, forbid_library)
        self.log: list[tuple[str, Any, Any]] = []

    def stand_in(self, name: str) -> Any:
        live = super().stand_in(name)

        def call(*args: Any, **kwargs: Any) -> Any:
            sent = encode([list(args), kwargs])
            result = live(*args, **kwargs)
            self.log.append((name, sent, result))
            return result
        return call


def _output(session: Any, name: str, args: Any, forbid: bool, transform: str | None) -> Any:
    reply = session.request({"op": "call", "fn": name, "args": args, "library": forbid})
    if not isinstance(reply, dict) or "result" not in reply:
        kind = reply.get("raised", {}).get("type", "오류") if isinstance(reply, dict) else "응답 없음"
        return {"raised": str(kind)}
    got = decode(reply["result"])
    if transform is not None:
        a, k = decode(args)
        got = TRANSFORMS[transform](got, list(a), dict(k))
    return encode(got)


def record_public_cases(part: dict, master: Any, wrong: list[Any]) -> dict:
    """``check`` 부분 하나의 공개 경우 기록 (공개 명세의 ``public``).

    Args:
        part: 부분의 명세 (``checker``, ``functions``, ``public_seed``, ``forbid_library``).
        master: 마스터 풀이를 실행한 하네스와의 연결. wrong: 틀린 풀이마다의 연결.

    Returns:
        ``{"calls": [{"fn", "args", "want"}], "transform": 이름 | None, "wrong": [{"mistake", "got": [...]}]}``.

    Raises:
        RuntimeError: 마스터 풀이가 공개 경우에서 통과하지 못할 때.

    Shape:
        - 해당 없음
    """
    checker = CHECKERS[part["checker"]]
    forbid = bool(part.get("forbid_library"))
    transform = TRANSFORM.get(part["checker"])
    tap = _Tap(master, forbid)
    with LOCK, torch.random.fork_rng(devices=[]):
        result = checker(*part_inputs(master, list(part["functions"]), tap), seed=part["public_seed"])
    if not result.passed:
        raise RuntimeError(f"{part['checker']}: 마스터 풀이가 공개 경우를 통과하지 못합니다:\n{result.report()}")
    calls, seen = [], set()
    for name, sent, got in tap.log:
        key = json.dumps([name, sent], sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        if transform is not None:
            a, k = decode(sent)
            got = TRANSFORMS[transform](got, list(a), dict(k))
        calls.append({"fn": name, "args": sent, "want": encode(got)})
    wrongs = []
    for session in wrong:
        live = LiveStandIns(session, forbid)
        try:
            with LOCK, torch.random.fork_rng(devices=[]):
                verdict = checker(*part_inputs(session, list(part["functions"]), live), seed=part["public_seed"])
        except _Lost:
            continue
        if verdict.passed or verdict.mistake is None:
            continue
        got = [_output(session, c["fn"], c["args"], forbid, transform) for c in calls]
        wrongs.append({"mistake": verdict.mistake, "got": got})
    return {"calls": calls, "transform": transform, "wrong": wrongs}
