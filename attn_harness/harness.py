"""채점 하네스: 샌드박스 **안에서** 학생 노트북을 실행하고, 바깥이 보낸 입력으로 학생 함수를 부릅니다.

    python -m attn_harness 제출.ipynb 3 4

1. 노트북의 코드 셀을 IPython 셸 하나에서 차례로 실행합니다 (셀이 오류를 내도 다음 셀로 갑니다). 끝나면
   ``{"executed": …}`` 한 줄을 씁니다.
2. 그다음 요청을 한 줄씩 읽고 답을 한 줄씩 씁니다 (읽는 서술자 3, 쓰는 서술자 4; 표준 출력은 학생의 ``print``가
   쓰는 기록일 뿐 채점에 쓰이지 않음).

   - ``{"op": "value", "name": 이름}``: 그 이름의 값을 ``codec.encode``로 (함수면 ``{"callable": true}``, 없으면
     ``{"missing": true}``).
   - ``{"op": "call", "fn": 이름, "args": [[위치 인자], {이름 인자}] (encode 된 것), "library": bool}``: 인자를
     되살린 **사본**으로 학생 함수를 부르고, 반환값(``result``)이나 낸 예외(``raised``), 제자리에서 바뀐 인자
     (``mutated``), 그동안 불린 금지 어텐션 함수(``library``)를 적어 돌려줍니다.
   - ``{"op": "done"}`` 또는 입력이 끝나면 멈춥니다.

채점기, 참조 구현, 정답, 숨은 경우를 만드는 코드는 이 프로세스에 없습니다 (``attn_grader``는 샌드박스에 붙지 않음).
바깥의 채점 프로세스가 채점기를 돌리며, 채점기가 학생 함수를 부를 때마다 그 입력을 **값으로** 보내고 답을 받습니다.
학생 코드가 이 프로세스 안의 무엇을 바꾸든(이 하네스, 인코더), 채점 프로세스에 닿는 것은 **학생이 낸 값**뿐입니다.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import time
from typing import Any

import torch
from torch import Tensor, nn

from attn_course.practice.calls import library_calls
from attn_course.practice.codec import decode, encode
from attn_course.practice.selfcheck import GRADING_ENV

__all__ = ["run_notebook", "serve", "main", "GRADING_ENV", "CALL_SECONDS", "MAX_REQUEST"]

#: 학생 함수 호출 한 번의 시간 제한(초). 넘으면 그 호출만 ``{"timeout": true}``로 답합니다.
CALL_SECONDS = 30.0
#: 요청 한 줄의 최대 크기 (바이트)
MAX_REQUEST = 16 * 2**20


class _CallTimeout(BaseException):
    """호출 한 번이 시간 제한을 넘었을 때 (학생 코드의 ``except Exception``에 잡히지 않도록 BaseException)."""


def _digest(x: Any) -> str | None:
    """텐서나 모듈의 바이트 요약 (제자리에서 바뀌었는지 보는 데만 씀). 그 밖의 값은 ``None``."""
    try:
        if isinstance(x, Tensor):
            raw = x.detach().cpu().contiguous().reshape(-1).view(torch.uint8).numpy().tobytes()  # (*모양) -> (바이트 수,)
            return hashlib.sha256(raw + str(tuple(x.shape)).encode()).hexdigest()
        if isinstance(x, nn.Module):
            return hashlib.sha256("".join(f"{k}:{_digest(v)}" for k, v in x.state_dict().items()).encode()).hexdigest()
    except Exception:  # 요약할 수 없는 값은 바뀌지 않았다고 봅니다
        return None
    return None


def _reset_torch() -> None:
    """학생 노트북이 바꿨을 수 있는 torch 전역 설정을 채점기가 기대하는 값으로 되돌립니다."""
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)


def _alarm(_signum: int, _frame: Any) -> None:
    raise _CallTimeout()


def call_student(fn: Any, args: list, kwargs: dict, forbid_library: bool, seconds: float = CALL_SECONDS) -> dict:
    """학생 함수 ``fn``을 한 번 부르고 그 결과를 값으로 적습니다 (반환값, 예외, 바뀐 인자, 불린 금지 함수).

    Shape:
        - 해당 없음
    """
    slots = list(enumerate(args)) + list(kwargs.items())
    before = {str(k): _digest(v) for k, v in slots}
    entry: dict[str, Any] = {}
    _reset_torch()
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        if forbid_library:
            result, hits = library_calls(fn, *args, **kwargs)
            entry["library"] = [str(h)[:60] for h in hits]
        else:
            result = fn(*args, **kwargs)
        entry["result"] = encode(result)
    except _CallTimeout:
        return {"timeout": True}
    except Exception as exc:  # 학생 함수의 오류: 종류와 메시지만 적음
        entry["raised"] = {"type": type(exc).__name__[:60], "message": str(exc)[:300]}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    changed = {str(k): encode(v) for k, v in slots if before[str(k)] is not None and _digest(v) != before[str(k)]}
    if changed:
        entry["mutated"] = changed
    return entry


def run_notebook(path: str, namespace: dict | None = None) -> tuple[dict, dict]:
    """노트북의 코드 셀을 IPython 셸 하나에서 차례로 실행합니다. 오류가 난 셀도 건너뛰고 계속합니다.

    Returns:
        ``(학생 전역 이름공간, {"cells": 셀 수, "errors": 오류 난 셀 수})``.

    Shape:
        - 해당 없음
    """
    from IPython.core.interactiveshell import InteractiveShell

    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    shell = InteractiveShell.instance(user_ns=namespace if namespace is not None else {})
    cells = [c for c in nb.get("cells", []) if isinstance(c, dict) and c.get("cell_type") == "code"]
    errors = 0
    for cell in cells:
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        result = shell.run_cell(source, store_history=False)
        errors += not result.success
    return shell.user_ns, {"cells": len(cells), "errors": errors}


def _answer(request: Any, namespace: dict) -> dict:
    if not isinstance(request, dict):
        return {"error": "요청의 꼴이 아닙니다"}
    op = request.get("op")
    if op == "value":
        name = str(request.get("name"))
        if name not in namespace:
            return {"missing": True}
        value = namespace[name]
        return {"callable": True} if callable(value) and not isinstance(value, (nn.Module, Tensor)) else {"value": encode(value)}
    if op == "call":
        fn = namespace.get(str(request.get("fn")))
        if not callable(fn):
            return {"missing": True}
        try:
            args, kwargs = decode(request.get("args"))
        except Exception as exc:  # 바깥이 보낸 것이 틀린 꼴: 학생 잘못이 아님
            return {"error": f"입력을 되살리지 못했습니다 ({type(exc).__name__})"}
        return call_student(fn, list(args), dict(kwargs), bool(request.get("library")))
    return {"error": f"모르는 요청 {op!r}"}


def serve(namespace: dict, requests: Any, replies: Any) -> int:
    """요청을 한 줄씩 읽어 답합니다. 처리한 요청 수를 돌려줍니다.

    Shape:
        - 해당 없음
    """
    handled = 0
    while True:
        line = requests.readline(MAX_REQUEST + 1)
        if not line or len(line) > MAX_REQUEST:
            return handled
        try:
            request = json.loads(line)
        except (ValueError, RecursionError):
            request = None
        if isinstance(request, dict) and request.get("op") == "done":
            return handled
        reply = _answer(request, namespace)
        replies.write(json.dumps(reply, ensure_ascii=False) + "\n")
        replies.flush()
        handled += 1


def main(argv: list[str] | None = None) -> int:
    """``python -m attn_harness 노트북 읽는_서술자 쓰는_서술자``.

    Shape:
        - 해당 없음
    """
    args = argv if argv is not None else sys.argv[1:]
    notebook, read_fd, write_fd = args[0], int(args[1]), int(args[2])
    requests = os.fdopen(read_fd, "r", encoding="utf-8")
    replies = os.fdopen(write_fd, "w", encoding="utf-8")
    os.environ[GRADING_ENV] = "1"
    torch.set_num_threads(1)
    start = time.monotonic()
    namespace, executed = run_notebook(notebook)
    replies.write(json.dumps({"executed": {**executed, "seconds": round(time.monotonic() - start, 2)}}) + "\n")
    replies.flush()
    serve(namespace, requests, replies)
    return 0
