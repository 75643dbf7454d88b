"""채점 하네스: 샌드박스 **안에서** 학생 노트북을 실행하고, 문제마다 값만 JSON으로 내보냅니다.

    python -c "from attn_lib.exercises.harness import main; main()" 제출.ipynb 계획.json fd:3

1. 노트북의 코드 셀을 IPython 셸 하나에서 차례로 실행합니다 (셀이 오류를 내도 다음 셀로 갑니다).
2. 채점 계획(``plan``)의 문제마다 값을 모읍니다.

   - ``value``/``choice``: 그 이름의 값을 있는 그대로 ``codec.encode``로 적습니다.
   - ``check``: 공개 채점기를 계획이 준 시드마다 돌리되, 학생 함수 자리에 **기록 장치**를 넘깁니다. 기록 장치는 학생
     함수를 부르고, 인자의 뼈대(형과 모양), 반환값, 낸 예외, 제자리에서 바뀐 인자, 그동안 불린 금지 어텐션 함수를 적습니다.
     채점기가 이 안에서 내린 판정은 버립니다.

3. 결과를 JSON 줄로 씁니다(문제마다 한 줄이라, 도중에 멈춰도 앞의 문제는 남음).

점수는 여기서 정하지 않습니다. 샌드박스 밖의 채점 프로세스(``judge.py``)가 같은 공개 채점기를 같은 시드로 돌리며 학생
함수 대신 이 기록을 되돌려 주고(재생), 정답과 비교해 점수를 매깁니다. 그래서 학생 코드가 이 프로세스 안의 무엇을
바꾸든(비교 함수, 채점기, 이 하네스), 채점 프로세스에 닿는 것은 **학생이 낸 값**뿐입니다.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor, nn

from .calls import library_calls
from .codec import encode, signature

__all__ = ["Recorder", "probe_question", "run_notebook", "main", "GRADING_ENV"]

#: 채점 중임을 알리는 환경 변수: 노트북의 ``grader.check`` 셀은 이때 아무것도 하지 않습니다.
GRADING_ENV = "ATTN_LIB_GRADING"
#: 문제 하나(채점기 실행 한 번)의 시간 제한(초). 넘으면 그 실행만 실패로 적고 다음으로 갑니다.
PROBE_SECONDS = 30.0


class _ProbeTimeout(BaseException):
    """채점기 실행 한 번이 시간 제한을 넘었을 때 (학생 코드의 ``except Exception``에 잡히지 않도록 BaseException)."""


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


class Recorder:
    """학생 함수들을 대신하는 기록 장치를 만들고, 불린 순서대로 기록합니다.

    Args:
        functions: 이름 -> 학생의 함수.
        forbid_library: 부를 때마다 금지한 어텐션 함수가 불렸는지 적을지.

    Shape:
        - 해당 없음
    """

    def __init__(self, functions: dict[str, Any], forbid_library: bool = False) -> None:
        self.calls: list[dict] = []
        self.forbid_library = forbid_library
        self.stand_ins = [self._stand_in(name, fn) for name, fn in functions.items()]

    def _stand_in(self, name: str, fn: Any) -> Any:
        if not callable(fn):
            return fn  # 채점기가 "함수가 필요한데 …"라고 말하게 그대로 넘김

        def call(*args: Any, **kwargs: Any) -> Any:
            entry: dict[str, Any] = {"fn": name, "sig": signature([list(args), kwargs])}
            self.calls.append(entry)
            slots = list(enumerate(args)) + list(kwargs.items())
            before = {str(k): _digest(v) for k, v in slots}
            try:
                if self.forbid_library:
                    result, hits = library_calls(fn, *args, **kwargs)
                    entry["library"] = hits
                else:
                    result = fn(*args, **kwargs)
            except _ProbeTimeout:
                raise
            except Exception as exc:  # 학생 함수의 오류: 종류와 메시지를 적고 채점기에 다시 냄
                entry["raised"] = {"type": type(exc).__name__[:60], "message": str(exc)[:300]}
                self._note_mutations(entry, slots, before)
                raise
            entry["result"] = encode(result)
            self._note_mutations(entry, slots, before)
            return result

        return call

    @staticmethod
    def _note_mutations(entry: dict, slots: list, before: dict) -> None:
        changed = {str(k): encode(v) for k, v in slots if before[str(k)] is not None and _digest(v) != before[str(k)]}
        if changed:
            entry["mutated"] = changed


def _reset_torch() -> None:
    """학생 노트북이 바꿨을 수 있는 torch 전역 설정을 채점기가 기대하는 값으로 되돌립니다."""
    torch.set_default_dtype(torch.float32)
    torch.set_grad_enabled(True)


def _alarm(_signum: int, _frame: Any) -> None:
    raise _ProbeTimeout()


def probe_question(question: dict, namespace: dict, seconds: float = PROBE_SECONDS) -> dict:
    """계획의 문제 하나에 대해 학생 값을 모읍니다 (``check`` 부분은 채점기를 시드마다 돌려 기록).

    Args:
        question: 계획의 문제 (``{"name", "parts": [...]}``; ``check`` 부분에는 ``seeds``가 있음).
        namespace: 학생 노트북의 전역 이름공간.
        seconds: 채점기 실행 한 번의 시간 제한.

    Returns:
        ``{"parts": [...]}``: 부분마다 ``{"value": …}``, ``{"missing": True}``, 또는 ``{"runs": [...]}``.

    Shape:
        - 해당 없음
    """
    from . import CHECKERS  # 순환 import 피하기: 채점기 목록은 패키지가 정함

    parts = []
    for part in question["parts"]:
        if part["kind"] in ("value", "choice"):
            name = part["name"]
            parts.append({"value": encode(namespace[name])} if name in namespace else {"missing": True})
            continue
        checker = CHECKERS[part["checker"]]
        runs = []
        for seed in part["seeds"]:
            functions = {n: namespace.get(n) for n in part["functions"]}
            recorder = Recorder(functions, part.get("forbid_library", False))
            run: dict[str, Any] = {"calls": recorder.calls,
                                   "inputs": {n: True if callable(f) else encode(f) for n, f in functions.items()}}
            _reset_torch()
            previous = signal.signal(signal.SIGALRM, _alarm)
            signal.setitimer(signal.ITIMER_REAL, seconds)
            try:
                with torch.random.fork_rng(devices=[]):
                    checker(*recorder.stand_ins, seed=seed)
            except _ProbeTimeout:
                run["timeout"] = True
            except BaseException as exc:  # 채점기 밖으로 나온 오류 (학생 코드가 채점기를 망가뜨림 등)
                run["crashed"] = type(exc).__name__[:60]
            finally:
                signal.setitimer(signal.ITIMER_REAL, 0)
                signal.signal(signal.SIGALRM, previous)
            runs.append(run)
        parts.append({"runs": runs})
    return {"parts": parts}


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


def _emit(stream: Any, record: dict) -> None:
    stream.write(json.dumps(record, ensure_ascii=False) + "\n")  # 인자 뼈대의 nan 도 그대로 (파이썬 json 이 읽음)
    stream.flush()


def main(argv: list[str] | None = None) -> int:
    """``python -c "from attn_lib.exercises.harness import main; main()" 노트북 계획 결과``.

    ``결과``가 ``fd:N``이면 열린 파일 서술자 N에, 아니면 그 파일에 JSON 줄을 씁니다: 노트북을 실행한 뒤 한 줄
    (``{"executed": …}``), 문제마다 한 줄(``{"question": 이름, "result": …}``), 끝에 ``{"done": true}``.
    샌드박스에는 쓸 수 있는 바깥 폴더가 없고, 이 서술자 하나(크기 제한이 걸린 파일)로만 값을 내보냅니다.

    Shape:
        - 해당 없음
    """
    args = argv if argv is not None else sys.argv[1:]
    notebook, plan_path, out = args[:3]
    with open(plan_path, encoding="utf-8") as f:
        plan = json.load(f)
    stream = os.fdopen(int(out[3:]), "a", encoding="utf-8") if out.startswith("fd:") else open(out, "a", encoding="utf-8")
    os.environ[GRADING_ENV] = "1"
    torch.set_num_threads(1)
    start = time.monotonic()
    namespace, executed = run_notebook(notebook)
    _emit(stream, {"executed": {**executed, "seconds": round(time.monotonic() - start, 2)}})
    for question in plan["questions"]:
        _emit(stream, {"question": question["name"], "result": probe_question(question, namespace)})
    _emit(stream, {"done": True})
    return 0
