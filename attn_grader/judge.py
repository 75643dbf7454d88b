"""채점 프로세스: 채점기를 **이 프로세스에서** 돌리고, 학생 함수는 샌드박스 안에서 값으로만 부릅니다.

학생 코드를 import하거나 이 프로세스에서 실행하지 않습니다. 참조 구현과 숨은 경우도 샌드박스에 들어가지 않습니다.

- ``value``/``choice`` 부분: ``codec.decode``로 되살린 값(수, 문자열, 튜플, 집합, 텐서)을 형식 규칙으로 본 뒤 강사의
  채점 묶음에 든 정답과 비교하고, 알려진 틀린 답이면 그 힌트를 돌려줍니다 (``answers.check_value``/``check_choice``).
- ``check`` 부분: 채점기를 시드마다 돌리되 학생 함수 자리에 대역(``LiveStandIns``)을 넘깁니다. 대역은 불릴 때마다
  채점기가 준 인자를 ``codec.encode``로 적어 샌드박스의 하네스에 보내고, 하네스가 그 **사본**으로 학생 함수를 불러
  돌려준 값(또는 예외, 제자리에서 바꾼 인자)을 되살려 채점기에 돌려줍니다. 채점기는 정답을 자기 사본으로 계산합니다.
- 점수: 값 하나, 숨은 시드의 채점기 실행 하나마다 똑같이 나눕니다. 공개 시드의 실행은 피드백에만 씁니다(그 입력과
  기대 출력은 학생의 공개 명세에 있음). ``all_or_nothing``이면 공개 실행까지 모두 맞아야 만점, 금지한 어텐션을 부른
  기록이 있으면 0점. 문제 점수는 항상 ``[0, 배점]`` 안입니다. 모든 문제의 공개 단계를 먼저, 숨은 단계를 나중에 돌립니다.

피드백에는 숨은 경우의 입력, 정답, 채점 코드를 싣지 않습니다: 공개 시드의 실행은 학생이 노트북에서 본 보고서를,
숨은 시드의 실행은 알아챈 실수의 힌트(``MISTAKES``)만 보여 주고, 학생의 값은 짧게 잘라 보여 줍니다.
"""

from __future__ import annotations

import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import torch
from torch import Tensor, nn

from .answers import check_choice, check_value
from attn_course.practice.codec import CodecError, Opaque, decode, encode
from attn_course.practice.engine import ExerciseFailure
from attn_course.practice.hints import MISTAKES
from attn_course.practice.spec import Question, format_error

__all__ = ["QuestionGrade", "LiveStandIns", "judge_question", "judge_questions", "judge_part_live", "run_seeds", "question_from_bundle", "LOCK"]

#: 채점기는 전역 난수 상태(torch.manual_seed)를 잠깐 바꾸므로, 한 프로세스에서 여러 스레드가 동시에 재생하지 않게 합니다.
LOCK = threading.Lock()


class _Desync(BaseException):
    """샌드박스가 보낸 바뀐 인자가 채점기의 인자와 맞지 않을 때 (``except Exception``에 잡히지 않도록 BaseException)."""


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


class _Lost(BaseException):
    """샌드박스가 답하지 않을 때 (시간 제한, 끝난 프로세스, 너무 큰 답). 채점기의 ``except Exception``에 잡히지 않음."""

    def __init__(self, why: str = "lost") -> None:
        super().__init__(why)
        self.why = why


class LiveStandIns:
    """샌드박스 안의 학생 함수를 대신하는 함수들 (채점 프로세스 쪽).

    채점기가 부르면 인자를 **값으로** 적어 샌드박스에 보내고(``session.request``), 돌아온 반환값을 되살려 돌려주거나
    기록된 예외를 냅니다. 학생 함수가 제자리에서 바꾼 인자는 채점기의 사본에도 같게 바꿉니다. 채점기와 참조 구현은
    이 프로세스에서만 돕니다.

    Shape:
        - 해당 없음
    """

    def __init__(self, session: Any, forbid_library: bool = False) -> None:
        self.session, self.forbid_library = session, forbid_library
        self.library: set[str] = set()
        self.calls = 0

    def stand_in(self, name: str) -> Any:
        def call(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            reply = self.session.request({"op": "call", "fn": name, "args": encode([list(args), kwargs]),
                                          "library": self.forbid_library})
            if not isinstance(reply, dict):
                raise _Lost()
            if reply.get("timeout"):
                raise _Lost("timeout")
            if "error" in reply or reply.get("missing"):
                raise _Lost()
            self.library.update(str(h)[:60] for h in reply.get("library") or [] if isinstance(reply.get("library"), list))
            _apply_mutations(reply.get("mutated"), args, kwargs)
            if "raised" in reply:
                _raise_recorded(reply["raised"])
            try:
                return decode(reply.get("result"))
            except (CodecError, RecursionError, ValueError, TypeError, OverflowError):
                raise _Lost("unreadable") from None
        return call


def part_inputs(session: Any, functions: list[str], live: LiveStandIns) -> list[Any]:
    """``check`` 부분의 학생 이름마다 채점기에 넘길 것: 함수면 대역, 아니면 그 값(없으면 ``None``).

    Shape:
        - 해당 없음
    """
    inputs = []
    for name in functions:
        reply = session.request({"op": "value", "name": name})
        if isinstance(reply, dict) and reply.get("callable") is True:
            inputs.append(live.stand_in(name))
        elif isinstance(reply, dict) and "value" in reply:
            try:
                inputs.append(decode(reply["value"]))
            except (CodecError, RecursionError, ValueError, TypeError, OverflowError):
                inputs.append(None)
        else:
            inputs.append(None)
    return inputs


def judge_part_live(part: dict, session: Any, seeds: list[int], *, first_hidden: int = 1
                    ) -> tuple[list[tuple[bool, str]], set[str]]:
    """``check`` 부분을 채점합니다: 채점기를 시드마다 이 프로세스에서 돌리고, 학생 함수는 샌드박스에서 부릅니다.

    Returns:
        ``(실행마다 (통과 여부, 피드백), 불린 금지 함수 이름들)``. ``first_hidden`` 번째 실행부터 숨은 경우로 보고
        피드백에 보고서 대신 힌트만 싣습니다(기본: 첫 시드가 공개 시드).

    Shape:
        - 해당 없음
    """
    from .registry import CHECKERS

    checker = CHECKERS[part["checker"]]
    live = LiveStandIns(session, bool(part.get("forbid_library")))
    outcomes: list[tuple[bool, str]] = []
    try:
        stand_ins = part_inputs(session, list(part["functions"]), live)
    except _Lost:
        stand_ins = None
    for i, seed in enumerate(seeds):
        hidden = i >= first_hidden
        if stand_ins is None or getattr(session, "dead", False):
            outcomes.append((False, "샌드박스가 더 답하지 않아 이 경우를 채점하지 못했습니다 (시간 제한이나 메모리?)."))
            continue
        try:
            waited = time.monotonic()
            with LOCK:
                if hasattr(session, "extend"):  # 잠금을 기다린 시간은 이 제출의 마감에서 빼지 않음
                    session.extend(time.monotonic() - waited)
                with torch.random.fork_rng(devices=[]):
                    result = checker(*stand_ins, seed=seed)
        except _Lost as lost:
            if lost.why == "unreadable":
                outcomes.append((False, "학생 함수가 돌려준 값을 읽을 수 없습니다."))
                continue
            text = "시간 제한을 넘었습니다" if lost.why == "timeout" else "샌드박스가 답하지 않았습니다"
            outcomes.append((False, f"{'숨은' if hidden else '공개'} 경우를 채점하는 동안 {text}."))
            continue
        except (CodecError, RecursionError, _Desync):
            outcomes.append((False, "학생 함수가 돌려준 값을 읽을 수 없습니다."))
            continue
        except Exception as exc:  # 돌려준 값이 채점기가 다룰 수 없는 꼴: 그 실행만 실패로
            outcomes.append((False, f"채점기가 이 함수의 결과를 다루지 못했습니다 ({type(exc).__name__})."))
            continue
        if result.passed:
            outcomes.append((True, ""))
        elif not hidden:
            outcomes.append((False, result.report()))
        elif result.mistake is not None:
            outcomes.append((False, f"숨은 경우에서 틀렸습니다.\n힌트: {MISTAKES[result.mistake]}"))
        else:
            outcomes.append((False, "숨은 경우(다른 모양과 시드)에서 참조 구현과 다릅니다."))
    return outcomes, live.library


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


#: 피드백에만 쓰고 점수에는 넣지 않는 결과 (공개 시드의 실행: 그 입력과 기대 출력은 학생의 공개 명세에 있음)
_FEEDBACK_ONLY = "feedback-only"


def _phase(question: Question, session: Any, seeds: dict[int, list[int]], hidden: bool
           ) -> list[tuple[int, bool, str, bool, set[str]]]:
    """한 단계의 결과 ``(부분 번호, 통과, 글, 점수에 넣는지, 금지 호출)`` 목록.

    공개 단계: 값·선택지 부분과 ``check`` 부분의 공개 시드 실행. 숨은 단계: ``check`` 부분의 숨은 시드 실행.
    공개 시드의 실행은 숨은 실행이 있으면 점수에 넣지 않습니다(그 입력과 기대 출력은 학생에게 공개되어 있어 그대로
    외워 답할 수 있으므로). 숨은 실행이 없는 부분만 공개 실행이 점수가 됩니다.
    """
    out = []
    for i, part in enumerate(question.parts):
        if getattr(session, "dead", False) and not getattr(session, "executed", True):
            if not hidden or part.kind == "check":
                runs = (seeds[i][1:] if hidden else seeds[i][:1]) if part.kind == "check" else (None,)
                out += [(i, False, "이 문제의 채점 결과가 없습니다 (노트북이 여기까지 실행되지 않았습니다).",
                         not (part.kind == "check" and not hidden and len(seeds[i]) > 1), set())] * len(runs)
            continue
        if part.kind == "check":
            runs = seeds[i][1:] if hidden else seeds[i][:1]
            if not runs:
                continue
            outcomes, hits = judge_part_live(part.data, session, runs, first_hidden=0 if hidden else 1)
            hits = hits if part.data.get("forbid_library") else set()
            scored = hidden or len(seeds[i]) == 1
            out += [(i, ok, text, scored, hits) for ok, text in outcomes]
        elif not hidden:
            got = session.request({"op": "value", "name": part.data["name"]})
            ok, text = _judge_answer({"kind": part.kind, **part.data}, got)
            out.append((i, ok, text, True, set()))
    return out


def _grade(question: Question, results: list[tuple[int, bool, str, bool, set[str]]]) -> QuestionGrade:
    results = sorted(results, key=lambda r: r[0])  # 부분 순서대로 (같은 부분 안에서는 공개, 숨은 순)
    scored = [ok for _, ok, _, counts, _ in results if counts]
    every = [ok for _, ok, _, _, _ in results]
    library = set().union(*(hits for *_, hits in results)) if results else set()
    lines: list[str] = []
    for _, ok, text, _, _ in results:  # 같은 말, 그리고 앞의 보고서에 이미 있는 힌트는 한 번만
        hint = text.split("힌트: ", 1)[-1] if text.startswith("숨은 경우에서 틀렸습니다.") else None
        if not ok and text and text not in lines and not (hint and any(hint in line for line in lines)):
            lines.append(text)
    if library:
        lines.insert(0, f"직접 구현해야 하는 문제입니다: 실행하는 동안 {', '.join(sorted(library))}이(가) 불려 이 문제는 0점입니다.")
        score = 0.0
    elif question.all_or_nothing:
        score = question.points if every and all(every) else 0.0
        if score == 0.0 and every:
            lines.append(f"모두 맞아야 점수를 받는 문제입니다 ({len(every)}개 가운데 {sum(every)}개 통과).")
    else:
        score = question.points * sum(scored) / len(scored) if scored else 0.0
    score = min(max(float(score), 0.0), float(question.points))
    return QuestionGrade(question.name, round(score, 4), question.points, lines)


def judge_questions(questions: list[Question], session: Any, seeds: dict[str, dict[int, list[int]]]) -> list[QuestionGrade]:
    """제출 하나의 모든 문제를 채점합니다: 먼저 모든 문제의 공개 단계(값, 공개 시드), 그다음 숨은 단계.

    숨은 경우의 입력이 샌드박스에 들어가기 전에 공개 피드백(학생 함수의 예외 글, 값의 메아리)이 모두 정해지므로,
    학생 코드가 숨은 입력을 모아 다른 문제의 공개 피드백으로 내보낼 수 없습니다.

    Returns:
        문제마다 ``QuestionGrade`` (점수는 ``[0, 배점]`` 안). 공개 시드의 실행은 숨은 실행이 있는 부분에서는 피드백에만
        쓰이고 점수에 들어가지 않습니다. ``all_or_nothing`` 문제는 공개 실행까지 모두 맞아야 만점입니다.

    Shape:
        - 해당 없음
    """
    public = {q.name: _phase(q, session, seeds[q.name], hidden=False) for q in questions}
    hidden = {q.name: _phase(q, session, seeds[q.name], hidden=True) for q in questions}
    return [_grade(q, public[q.name] + hidden[q.name]) for q in questions]


def judge_question(question: Question, session: Any, seeds: dict[int, list[int]]) -> QuestionGrade:
    """문제 하나를 채점합니다 (``judge_questions``의 한 문제판: 공개 단계 다음 숨은 단계).

    Args:
        question: 강사의 채점 묶음에서 읽은 문제 (정답과 힌트 포함).
        session: 학생 노트북을 실행한 하네스와의 연결 (``session.Session``: ``request``가 답을 돌려줌).
        seeds: 부분 번호 -> 채점 프로세스가 정한 시드 목록 (``check`` 부분만).

    Returns:
        ``QuestionGrade`` (점수는 ``[0, 배점]`` 안).

    Shape:
        - 해당 없음
    """
    return judge_questions([question], session, {question.name: seeds})[0]


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


def question_from_bundle(data: dict) -> Question:
    """채점 묶음(강사 전용 JSON)의 문제 하나를 되살립니다 (정답과 힌트 포함).

    Shape:
        - 해당 없음
    """
    from attn_course.practice.spec import Part

    return Question(str(data["name"]), float(data["points"]), bool(data["all_or_nothing"]),
                    [Part(p["kind"], {k: v for k, v in p.items() if k != "kind"}) for p in data["parts"]])
