"""채점 프로세스: 샌드박스가 내보낸 **값만** 읽어 점수를 매깁니다. 학생 코드를 import하거나 실행하지 않습니다.

- ``value``/``choice`` 부분: ``codec.decode``로 되살린 값(수, 문자열, 튜플, 집합, 텐서)을 형식 규칙으로 본 뒤 강사의
  채점 묶음에 든 정답과 비교하고, 알려진 틀린 답이면 그 힌트를 돌려줍니다 (``answers.check_value``/``check_choice``).
- ``check`` 부분: 공개 채점기를 **같은 시드로** 다시 돌리되 학생 함수 자리에 재생 장치를 넘깁니다. 재생 장치는 불릴
  때마다 기록의 다음 호출을 꺼내, 함수 이름과 인자의 뼈대가 맞는지 보고, 기록된 반환값을 돌려주거나 기록된 예외를
  냅니다(제자리에서 바뀐 인자도 기록대로 바꿈). 기록이 채점기의 호출과 맞지 않으면 그 실행은 실패입니다.
- 점수: 부분(값 하나, 채점기 실행 하나)마다 똑같이 나누고, ``all_or_nothing``이면 모두 맞아야 만점, 금지한 어텐션을
  부른 기록이 있으면 0점. 문제 점수는 항상 ``[0, 배점]`` 안입니다.

피드백에는 숨은 경우의 입력, 정답, 채점 코드를 싣지 않습니다: 공개 시드의 실행은 학생이 노트북에서 본 보고서를,
숨은 시드의 실행은 알아챈 실수의 힌트(``MISTAKES``)만 보여 주고, 학생의 값은 짧게 잘라 보여 줍니다.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor, nn

from .answers import check_choice, check_value
from .codec import CodecError, Opaque, decode, signature
from .engine import ExerciseFailure
from .hints import MISTAKES
from .spec import Question, format_error

__all__ = ["QuestionGrade", "judge_question", "judge_part_runs", "parse_results", "LOCK"]

#: 채점기는 전역 난수 상태(torch.manual_seed)를 잠깐 바꾸므로, 한 프로세스에서 여러 스레드가 동시에 재생하지 않게 합니다.
LOCK = threading.Lock()


class _Desync(BaseException):
    """재생이 기록과 맞지 않을 때 (채점기의 ``except Exception``에 잡히지 않도록 BaseException)."""


@dataclass
class QuestionGrade:
    """문제 하나의 채점 결과.

    Shape:
        - 해당 없음
    """

    name: str
    score: float
    possible: float
    lines: list[str] = field(default_factory=list)

    def feedback(self) -> str:
        head = f"{self.name}: {self.score:g}/{self.possible:g}점."
        if self.score >= self.possible and not self.lines:
            return head + " 모든 부분을 맞혔습니다."
        return "\n".join([head, *self.lines])


_EXCEPTIONS = {e.__name__: e for e in (NotImplementedError, RuntimeError, ValueError, TypeError, IndexError, KeyError,
                                       ZeroDivisionError, AttributeError, NameError, AssertionError, ArithmeticError)}


class _Replayed(Exception):
    """기록된 예외 가운데 흔한 내장 예외가 아닌 것."""


def _raise_recorded(raised: Any) -> None:
    kind = str(raised.get("type", "Exception")) if isinstance(raised, dict) else "Exception"
    message = str(raised.get("message", ""))[:300] if isinstance(raised, dict) else ""
    cls = _EXCEPTIONS.get(kind)
    raise cls(message) if cls is not None else _Replayed(f"{kind}: {message}")


def _apply_mutations(mutated: Any, args: tuple, kwargs: dict) -> None:
    if not isinstance(mutated, dict):
        return
    for key, enc in mutated.items():
        target = args[int(key)] if key.isdigit() and int(key) < len(args) else kwargs.get(key)
        new = decode(enc)
        with torch.no_grad():
            if isinstance(target, Tensor) and isinstance(new, Tensor) and new.shape == target.shape:
                target.copy_(new.to(target.dtype))
            elif isinstance(target, nn.Module) and isinstance(new, nn.Module):
                target.load_state_dict(new.state_dict())
            else:
                raise _Desync()


class _Replay:
    """기록된 호출을 차례로 되돌려 주는 학생 함수의 대역 (채점 프로세스 쪽)."""

    def __init__(self, calls: list) -> None:
        self.calls = list(calls) if isinstance(calls, list) else []
        self.used = 0
        self.library: set[str] = set()

    def stand_in(self, name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            if self.used >= len(self.calls):
                raise _Desync()
            entry = self.calls[self.used]
            self.used += 1
            if not isinstance(entry, dict) or entry.get("fn") != name or entry.get("sig") != signature([list(args), kwargs]):
                raise _Desync()
            self.library.update(str(h)[:60] for h in entry.get("library") or [])
            _apply_mutations(entry.get("mutated"), args, kwargs)
            if "raised" in entry:
                _raise_recorded(entry["raised"])
            return decode(entry.get("result"))
        return call


def judge_part_runs(part: dict, runs: Any, seeds: list[int], *, first_hidden: int = 1
                    ) -> tuple[list[tuple[bool, str]], set[str]]:
    """``check`` 부분의 실행 기록을 재생해 (통과 여부, 피드백) 목록과 불린 금지 함수 이름들을 돌려줍니다.

    ``seeds``는 채점 프로세스가 정한 시드입니다(기록에 적힌 시드는 믿지 않음). ``first_hidden`` 번째 실행부터 숨은
    경우로 보고 피드백에 보고서 대신 힌트만 싣습니다(기본: 첫 시드가 공개 시드).

    Shape:
        - 해당 없음
    """
    from . import CHECKERS

    checker = CHECKERS[part["checker"]]
    runs = runs if isinstance(runs, list) else []
    outcomes, library = [], set()
    for i, seed in enumerate(seeds):
        run = runs[i] if i < len(runs) and isinstance(runs[i], dict) else {}
        hidden = i >= first_hidden
        if run.get("timeout"):
            outcomes.append((False, f"{'숨은' if hidden else '공개'} 경우를 채점하는 동안 시간 제한을 넘었습니다."))
            continue
        replay = _Replay(run.get("calls", []))
        inputs = run.get("inputs") if isinstance(run.get("inputs"), dict) else {}
        try:
            # 학생의 이름이 함수였으면 재생 장치, 아니었으면(없음, ...) 그 값을 채점기에 그대로 넘김
            stand_ins = [replay.stand_in(n) if inputs.get(n, True) is True else decode(inputs[n]) for n in part["functions"]]
            with LOCK, torch.random.fork_rng(devices=[]):
                result = checker(*stand_ins, seed=seed)
        except (_Desync, CodecError, RecursionError):
            outcomes.append((False, "채점 기록이 채점기의 호출과 맞지 않습니다 (채점기나 비교 함수를 바꾸는 코드가 있나요?)."))
            continue
        except Exception as exc:  # 기록된 값이 채점기가 다룰 수 없는 꼴: 그 실행만 실패로
            outcomes.append((False, f"채점기가 이 함수의 결과를 다루지 못했습니다 ({type(exc).__name__})."))
            continue
        library |= replay.library
        if result.passed:
            outcomes.append((True, ""))
        elif not hidden:
            outcomes.append((False, result.report()))
        elif result.mistake is not None:
            outcomes.append((False, f"숨은 경우에서 틀렸습니다.\n힌트: {MISTAKES[result.mistake]}"))
        else:
            outcomes.append((False, "숨은 경우(다른 모양과 시드)에서 참조 구현과 다릅니다."))
    return outcomes, library


def _judge_answer(part: dict, enc: Any) -> tuple[bool, str]:
    name = part["name"]
    if not isinstance(enc, dict) or "value" not in enc:
        return False, f"[{name}] 이름이 없습니다. 셀을 지우거나 이름을 바꾸지 않았는지, 오류 없이 실행되는지 보세요."
    try:
        answer = decode(enc["value"])
    except (CodecError, RecursionError, ValueError, TypeError, OverflowError):
        return False, f"[{name}] 값을 읽을 수 없습니다."
    if answer is Ellipsis or isinstance(answer, Opaque):
        what = "아직 ...입니다" if answer is Ellipsis else f"{answer!r}은(는) 채점할 수 있는 값이 아닙니다"
        return False, f"[{name}] {what}."
    try:
        if part["kind"] == "choice":
            if not isinstance(answer, str):
                return False, f"[{name}] 글자로 된 문자열이어야 합니다."
            check_choice(answer, part["expected"], name=name, options=part["options"], hints=part["hints"])
        else:
            err = format_error(answer, part["format"])
            if err:
                return False, f"[{name}] {err}"
            hints = {decode(k): text for k, text in part["hints"]}
            check_value(answer, decode(part["expected"]), name=name, hints=hints, default=part["default"], tol=part["tol"])
    except ExerciseFailure as failure:
        return False, str(failure)
    except Exception as exc:  # 되살린 값이 비교할 수 없는 꼴
        return False, f"[{name}] 값을 비교할 수 없습니다 ({type(exc).__name__})."
    return True, ""


def judge_question(question: Question, result: Any, seeds: dict[int, list[int]]) -> QuestionGrade:
    """문제 하나를 채점합니다.

    Args:
        question: 강사의 채점 묶음에서 읽은 문제 (정답과 힌트 포함).
        result: 하네스가 낸 그 문제의 결과 (``{"parts": [...]}``), 없으면 ``None``.
        seeds: 부분 번호 -> 채점 프로세스가 정한 시드 목록 (``check`` 부분만).

    Returns:
        ``QuestionGrade`` (점수는 ``[0, 배점]`` 안).

    Shape:
        - 해당 없음
    """
    parts = result.get("parts") if isinstance(result, dict) else None
    parts = parts if isinstance(parts, list) else []
    outcomes: list[tuple[bool, str]] = []
    library: set[str] = set()
    for i, part in enumerate(question.parts):
        got = parts[i] if i < len(parts) else None
        if part.kind == "check":
            runs = got.get("runs") if isinstance(got, dict) else None
            if runs is None:
                outcomes += [(False, "이 문제의 채점 결과가 없습니다 (노트북이 여기까지 실행되지 않았습니다).")] * len(seeds[i])
                continue
            run_outcomes, hits = judge_part_runs(part.data, runs, seeds[i])
            outcomes += run_outcomes
            library |= hits if part.data.get("forbid_library") else set()
        else:
            outcomes.append(_judge_answer({"kind": part.kind, **part.data}, got))
    passed = sum(ok for ok, _ in outcomes)
    lines: list[str] = []
    for ok, text in outcomes:  # 같은 말, 그리고 앞의 보고서에 이미 있는 힌트는 한 번만
        hint = text.split("힌트: ", 1)[-1] if text.startswith("숨은 경우에서 틀렸습니다.") else None
        if not ok and text and text not in lines and not (hint and any(hint in line for line in lines)):
            lines.append(text)
    if library:
        lines.insert(0, f"직접 구현해야 하는 문제입니다: 실행하는 동안 {', '.join(sorted(library))}이(가) 불려 이 문제는 0점입니다.")
        score = 0.0
    elif question.all_or_nothing:
        score = question.points if outcomes and passed == len(outcomes) else 0.0
        if score == 0.0 and outcomes:
            lines.append(f"모두 맞아야 점수를 받는 문제입니다 ({len(outcomes)}개 가운데 {passed}개 통과).")
    else:
        score = question.points * passed / len(outcomes) if outcomes else 0.0
    score = min(max(float(score), 0.0), float(question.points))
    return QuestionGrade(question.name, round(score, 4), question.points, lines)


# ---- 채점 묶음, 시드, 계획 (채점 프로세스와 빌드가 함께 씀) -------------------------------------------

def run_seeds(seed_key: str, student: str, question: Question) -> dict[int, list[int]]:
    """``check`` 부분마다 채점기를 돌릴 시드 목록: 공개 시드 하나와 학생마다 다른 숨은 시드 ``hidden_runs``개.

    숨은 시드는 채점 묶음의 ``seed_key``(반 비밀 값에서 나옴)와 학생 이름, 문제, 부분, 실행 번호의 HMAC입니다.
    같은 제출을 다시 채점하면 같은 시드가 나옵니다.

    Shape:
        - 해당 없음
    """
    import hashlib
    import hmac

    seeds = {}
    for i, part in enumerate(question.parts):
        if part.kind != "check":
            continue
        hidden = []
        for r in range(int(part.data["hidden_runs"])):
            digest = hmac.new(seed_key.encode(), f"{student}/{question.name}/{i}/{r}".encode(), hashlib.sha256).digest()
            hidden.append(1 + int.from_bytes(digest[:4], "big") % (2**31 - 2))
        seeds[i] = [int(part.data["public_seed"]), *hidden]
    return seeds


def make_plan(questions: list[Question], seeds: dict[str, dict[int, list[int]]]) -> dict:
    """하네스에 넘기는 채점 계획: 이름, 채점기, 시드만 (정답, 힌트, 채점 코드는 없음).

    Shape:
        - 해당 없음
    """
    plan = []
    for q in questions:
        parts = []
        for i, p in enumerate(q.parts):
            d = p.public()
            parts.append({**d, "seeds": seeds[q.name][i]} if p.kind == "check" else d)
        plan.append({"name": q.name, "parts": parts})
    return {"questions": plan}


def question_from_bundle(data: dict) -> Question:
    """채점 묶음(강사 전용 JSON)의 문제 하나를 되살립니다 (정답과 힌트 포함).

    Shape:
        - 해당 없음
    """
    from .spec import Part

    return Question(str(data["name"]), float(data["points"]), bool(data["all_or_nothing"]),
                    [Part(p["kind"], {k: v for k, v in p.items() if k != "kind"}) for p in data["parts"]])


def parse_results(raw: bytes, max_lines: int = 10_000) -> dict:
    """하네스가 쓴 JSON 줄을 읽습니다. 읽을 수 없는 줄은 건너뛰고, 같은 문제가 여러 번 나오면 마지막 줄을 씁니다.

    Returns:
        ``{"executed": …, "questions": {이름: 결과}, "done": bool}``.

    Shape:
        - 해당 없음
    """
    out: dict = {"executed": None, "questions": {}, "done": False}
    for line in raw.splitlines()[:max_lines]:
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if not isinstance(record, dict):
            continue
        if isinstance(record.get("question"), str) and isinstance(record.get("result"), dict):
            out["questions"][record["question"]] = record["result"]
        elif record.get("done") is True:
            out["done"] = True
        elif isinstance(record.get("executed"), dict):
            out["executed"] = record["executed"]
    return out
