"""채점 프로세스와 하네스(``attn_harness``) 사이의 연결: 파이프 두 개로 JSON 줄을 주고받습니다.

하네스는 샌드박스 안(``make grade``)이나 밖(빌드가 믿을 수 있는 마스터 풀이를 돌릴 때)에서 돕니다. 어느 쪽이든
이 프로세스는 학생 코드를 import하지 않고, 요청 한 줄을 보내고 답 한 줄을 받습니다. 답은 크기(``MAX_REPLY``)와
시간(호출 한 번, 제출 전체)의 한계 안에서만 읽습니다: 한계를 넘으면 연결을 끊고(``dead``) 나머지 요청은 답이
없는 것으로 봅니다.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["Session", "start_harness", "MAX_REPLY", "HARNESS_ARGV"]

#: 답 한 줄의 최대 크기 (바이트). 넘으면 연결을 끊습니다. 정직한 답은 수 KB~수백 KB이고, 가장 큰 텐서(원소 20만 개,
#: ``codec.LIMITS``)를 JSON으로 적어도 약 5 MB입니다.
MAX_REPLY = 8 * 2**20
#: 하네스를 띄우는 명령 (``{rfd}``, ``{wfd}``는 하네스가 읽고 쓰는 서술자 번호로 바뀜)
HARNESS_ARGV = ["-m", "attn_harness", "{notebook}", "{rfd}", "{wfd}"]
#: 호출 한 번을 기다리는 시간 = 하네스 안의 호출 제한 + 여유
CALL_WAIT = 40.0


class Session:
    """실행 중인 하네스 하나와의 연결.

    Args:
        proc: 하네스 프로세스 (샌드박스 안이면 바깥의 bwrap).
        to_harness: 요청을 쓰는 서술자. from_harness: 답을 읽는 서술자.
        deadline: 이 제출 전체의 마감 (``time.monotonic()`` 기준).

    Shape:
        - 해당 없음
    """

    def __init__(self, proc: subprocess.Popen, to_harness: int, from_harness: int, deadline: float) -> None:
        self.proc, self.to_harness, self.from_harness, self.deadline = proc, to_harness, from_harness, deadline
        self.buffer = bytearray()
        self._scanned = 0  # buffer 에서 줄바꿈이 없다고 이미 확인한 길이 (다시 훑지 않음)
        self.dead = False
        self.timed_out = False
        self.executed: dict | None = None
        self.requests = 0
        os.set_blocking(to_harness, False)

    def extend(self, seconds: float) -> None:
        """마감을 늦춥니다 (다른 제출의 채점기가 잠금을 쥔 동안 기다린 시간은 이 제출의 시간이 아님)."""
        self.deadline += max(0.0, seconds)

    def wait_executed(self) -> dict | None:
        """노트북 실행이 끝났다는 첫 줄을 기다립니다 (마감까지)."""
        line = self._read_line(self.deadline)
        try:
            record = json.loads(line) if line is not None else None
        except (ValueError, RecursionError):
            record = None
        if isinstance(record, dict) and isinstance(record.get("executed"), dict):
            self.executed = record["executed"]
        else:
            self._die()
        return self.executed

    def request(self, message: dict) -> Any:
        """요청 하나를 보내고 답(JSON 값)을 돌려줍니다. 답이 없으면 ``None``.

        Shape:
            - 해당 없음
        """
        if self.dead:
            return None
        self.requests += 1
        until = min(self.deadline, time.monotonic() + CALL_WAIT)
        if not self._write((json.dumps(message, ensure_ascii=False) + "\n").encode(), until):
            self._die()
            return None
        line = self._read_line(until)
        if line is None:
            self._die()
            return None
        try:
            return json.loads(line)
        except (ValueError, RecursionError):
            return None

    def _write(self, data: bytes, until: float) -> bool:
        view = memoryview(data)
        while view:
            left = until - time.monotonic()
            if left <= 0:
                self.timed_out = True
                return False
            _, ready, _ = select.select([], [self.to_harness], [], left)
            if not ready:
                continue
            try:
                sent = os.write(self.to_harness, view)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:  # 하네스가 끝남 (BrokenPipe)
                return False
            view = view[sent:]
        return True

    def _read_line(self, until: float) -> bytes | None:
        while (end := self.buffer.find(b"\n", self._scanned)) < 0:
            self._scanned = len(self.buffer)
            left = until - time.monotonic()
            if left <= 0:
                self.timed_out = True
                return None
            ready, _, _ = select.select([self.from_harness], [], [], left)
            if not ready:
                continue
            try:
                chunk = os.read(self.from_harness, 1 << 20)
            except OSError:
                return None
            if not chunk:
                return None
            self.buffer += chunk
            if len(self.buffer) > MAX_REPLY:
                return None
        line = bytes(self.buffer[:end])
        del self.buffer[:end + 1]
        self._scanned = 0
        return line

    def _die(self) -> None:
        self.dead = True
        self.close(kill=True)

    def close(self, kill: bool = False) -> int | None:
        """연결을 닫고 하네스가 끝나기를 잠깐 기다립니다 (``kill``이면 곧바로 끝냄). 종료 코드를 돌려줍니다."""
        if not kill and self.proc.poll() is None:
            try:
                self._write(b'{"op": "done"}\n', time.monotonic() + 1.0)
            except OSError:
                pass
        for fd in (self.to_harness, self.from_harness):
            try:
                os.close(fd)
            except OSError:
                pass
        self.to_harness = self.from_harness = -1
        try:
            self.proc.wait(timeout=0 if kill else max(0.1, min(10.0, self.deadline - time.monotonic())))
        except subprocess.TimeoutExpired:
            pass
        if self.proc.poll() is None:
            self.proc.kill()  # 샌드박스면 바깥의 bwrap -> --die-with-parent 로 안의 모든 프로세스
            self.proc.wait()
        return self.proc.returncode

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self.to_harness != -1:
            self.close()


def start_harness(notebook: Path, timeout: float, log: Path,
                  launch: Callable[[list[str], tuple[int, int], Any], subprocess.Popen] | None = None,
                  notebook_arg: str | None = None, cwd: Path | None = None) -> Session:
    """하네스를 띄우고 연결을 돌려줍니다. ``launch``가 없으면 샌드박스 없이(믿을 수 있는 노트북에만) 띄웁니다.

    Args:
        notebook: 실행할 노트북. notebook_arg: 하네스가 볼 노트북 경로 (샌드박스 안의 경로; 기본은 ``notebook``).
        timeout: 제출 하나의 시간 제한 (노트북 실행과 채점 모두).
        log: 하네스의 표준 출력과 오류를 적을 파일.
        launch: ``(argv, 넘길 서술자, 기록 파일) -> Popen`` (``sandbox.spawn``).

    Shape:
        - 해당 없음
    """
    to_r, to_w = os.pipe()      # 채점 프로세스 -> 하네스
    from_r, from_w = os.pipe()  # 하네스 -> 채점 프로세스
    argv = [sys.executable, *(a.format(notebook=notebook_arg or str(notebook), rfd=to_r, wfd=from_w) for a in HARNESS_ARGV)]
    try:
        with log.open("wb") as out:
            if launch is not None:
                proc = launch(argv, (to_r, from_w), out)
            else:
                env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
                proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                        pass_fds=(to_r, from_w), env=env, cwd=cwd, start_new_session=True)
    finally:
        os.close(to_r)
        os.close(from_w)
    return Session(proc, to_w, from_r, time.monotonic() + timeout)
