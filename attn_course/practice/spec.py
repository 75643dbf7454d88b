"""채점 과제의 문제 명세: 한 명세가 공개 자기 점검, 샌드박스 채점, Gradescope zip을 함께 움직입니다.

문제 하나는 **부분**(part) 몇 개로 되어 있고, 점수는 부분마다 똑같이 나눕니다(``all_or_nothing``이면 모두 맞아야 만점).

- ``value``: 변수 하나의 값을 묻습니다. 공개 쪽에는 이름과 **형식**(정수인지, 실수 세 개짜리 튜플인지 …)만 있고,
  정답과 틀린 답마다의 힌트는 강사의 채점 묶음(``*-grading.json``)에만 있습니다.
- ``choice``: 선택지 글자를 고릅니다. 공개 쪽에는 이름과 고를 수 있는 글자만 있습니다.
- ``check``: 함수를 구현합니다. 공개 채점기(``checkers.py`` 등)를 공개 시드로 한 번, 채점할 때 학생마다 다른 숨은
  시드로 몇 번 더 돌립니다. ``forbid_library``면 실행하는 동안 이미 만들어진 어텐션을 부르면 그 문제가 0점입니다.

과제 마스터 노트북의 ``# SPEC`` 셀은 이 모듈의 ``value``, ``choice``, ``check``와 형식(``Int``, ``Number``, ``Tuple``,
``SetOf``, ``Text``)으로 부분을 적습니다(``attn_grader.build``가 읽음). 공개 쪽 명세는 JSON으로
``public_spec.json``(패키지 데이터)에 들어가고, 학생 노트북의 ``grader.check``가 그것을 씁니다.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

__all__ = [
    "Int", "Number", "Text", "Tuple", "SetOf", "format_error", "describe_format",
    "Part", "Question", "value", "choice", "check", "load_public_spec", "PUBLIC_SPEC_FILE", "PRIVATE_KEYS",
]

#: 공개 명세를 담은 패키지 데이터 (``make assignments``가 공개 마스터에서 다시 씀)
PUBLIC_SPEC_FILE = "public_spec.json"
#: 부분 가운데 강사의 채점 묶음에만 들어가는 키 (정답, 힌트)
PRIVATE_KEYS = ("expected", "hints", "default")


# ---- 형식: 값의 꼴 (답이 아니라 형식만; 공개) ----------------------------------------------------

def Int(lo: int | None = None, hi: int | None = None) -> dict:
    """정수(bool 아님), 주면 ``lo`` 이상 ``hi`` 이하.

    Shape:
        - 해당 없음 (형식 규칙)
    """
    return {"type": "int", "lo": lo, "hi": hi}


def Number(positive: bool = False) -> dict:
    """정수나 실수(bool 아님, 유한한 값), ``positive``면 0보다 큼.

    Shape:
        - 해당 없음 (형식 규칙)
    """
    return {"type": "number", "positive": positive}


def Text() -> dict:
    """문자열.

    Shape:
        - 해당 없음 (형식 규칙)
    """
    return {"type": "str"}


def Tuple(*items: dict, of: dict | None = None, n: int | None = None) -> dict:
    """튜플: 자리마다 형식(``items``)을 주거나, 모든 원소의 형식 ``of``와 길이 ``n``을 줍니다.

    Shape:
        - 해당 없음 (형식 규칙)
    """
    return {"type": "tuple", "items": list(items) or None, "of": of, "n": n if not items else len(items)}


def SetOf(item: dict) -> dict:
    """집합(``set``): 모든 원소가 ``item`` 형식.

    Shape:
        - 해당 없음 (형식 규칙)
    """
    return {"type": "set", "of": item}


_KOREAN_TYPE = {"int": "정수", "number": "수", "str": "문자열", "tuple": "튜플", "set": "집합"}


def describe_format(rule: dict) -> str:
    """형식을 한국어로 (예: '정수 세 개짜리 튜플').

    Shape:
        - 해당 없음
    """
    kind = rule["type"]
    if kind == "int" and (rule.get("lo") is not None or rule.get("hi") is not None):
        return f"{rule.get('lo')} 이상 {rule.get('hi')} 이하의 정수"
    if kind == "number" and rule.get("positive"):
        return "양수"
    if kind == "tuple":
        if rule.get("items"):
            return "(" + ", ".join(describe_format(r) for r in rule["items"]) + ") 튜플"
        return f"{describe_format(rule['of'])} {rule['n']}개짜리 튜플" if rule.get("n") else f"{describe_format(rule['of'])}의 튜플"
    if kind == "set":
        return f"{describe_format(rule['of'])}의 집합"
    return _KOREAN_TYPE[kind]


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def format_error(value: Any, rule: dict) -> str | None:
    """``value``가 형식 ``rule``에 맞지 않으면 한국어로 무엇이 왔는지 말하고, 맞으면 ``None``.

    Shape:
        - 해당 없음
    """
    kind = rule["type"]
    ok = {
        "int": lambda v: isinstance(v, int) and not isinstance(v, bool)
        and (rule.get("lo") is None or v >= rule["lo"]) and (rule.get("hi") is None or v <= rule["hi"]),
        "number": lambda v: _is_number(v) and (not rule.get("positive") or v > 0),
        "str": lambda v: isinstance(v, str),
        "tuple": lambda v: isinstance(v, tuple) and (rule.get("n") is None or len(v) == rule["n"]),
        "set": lambda v: isinstance(v, (set, frozenset)),
    }[kind](value)
    if not ok:
        return f"{describe_format(rule)}이어야 하는데 {_short_type(value)}입니다."
    if kind == "tuple":
        rules = rule["items"] or [rule["of"]] * len(value)
        return next((f"{i}번째 원소: {err}" for i, (v, r) in enumerate(zip(value, rules)) if (err := format_error(v, r))), None)
    if kind == "set":
        return next((f"원소 {_short(v)}: {err}" for v in value if (err := format_error(v, rule["of"]))), None)
    return None


def _short_type(value: Any) -> str:
    if value is Ellipsis:
        return "아직 채우지 않은 ..."
    name = {bool: "bool", int: "정수", float: "실수", str: "문자열", tuple: "튜플", list: "목록", set: "집합",
            frozenset: "집합", type(None): "None"}.get(type(value), type(value).__name__)
    if isinstance(value, (tuple, list, set, frozenset)):
        return f"{name}(원소 {len(value)}개)"
    return f"{name} {_short(value)}" if isinstance(value, (int, float, str)) and not isinstance(value, bool) else name


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


# ---- 부분과 문제 --------------------------------------------------------------------------------

@dataclass
class Part:
    """문제의 부분 하나 (``value``, ``choice``, ``check``). ``data``는 JSON으로 적을 수 있는 사전입니다.

    Shape:
        - 해당 없음
    """

    kind: str
    data: dict

    def public(self) -> dict:
        """학생에게 보여도 되는 것만 (정답과 힌트를 뺌)."""
        return {"kind": self.kind, **{k: v for k, v in self.data.items() if k not in PRIVATE_KEYS}}

    @property
    def label(self) -> str:
        return self.data["name"] if self.kind != "check" else ", ".join(self.data["functions"])


@dataclass
class Question:
    """채점 과제의 문제 하나.

    Shape:
        - 해당 없음
    """

    name: str
    points: float
    all_or_nothing: bool = False
    parts: list[Part] = field(default_factory=list)

    def public(self) -> dict:
        return {"name": self.name, "points": self.points, "all_or_nothing": self.all_or_nothing,
                "parts": [p.public() for p in self.parts]}

    @property
    def forbids_library(self) -> bool:
        return any(p.kind == "check" and p.data.get("forbid_library") for p in self.parts)

    def points_note(self) -> str:
        """문제 머리에 붙는 배점 안내 (예: '5점, 모두 맞아야 점수를 받습니다')."""
        note = f"{self.points:g}점"
        if self.all_or_nothing:
            note += ", 모두 맞아야 점수를 받습니다"
        if self.forbids_library:
            note += ", 이미 만들어진 어텐션을 부르면 0점"
        return note


def _integral(rule: dict) -> bool:
    """정수만으로 된 형식인지 (정수, 정수의 튜플·집합): 이런 답은 허용 오차 없이 비교합니다."""
    if rule["type"] == "int":
        return True
    if rule["type"] in ("tuple", "set"):
        rules = rule.get("items") or [rule["of"]]
        return all(_integral(r) for r in rules)
    return False


def value(name: str, fmt: dict, *, hints: dict | None = None, default: str = "", tol: float | None = None) -> Part:
    """값을 묻는 부분. 정답은 마스터의 풀이를 실행해 얻습니다(명세에 따로 적지 않음).

    Args:
        name: 학생이 채울 변수 이름.
        fmt: 형식 (``Int()``, ``Tuple(of=Number(), n=3)`` …). 공개 점검이 확인합니다.
        hints: 알려진 틀린 답 -> 한국어 힌트 (강사 전용).
        default: 알려진 틀린 답이 아닐 때의 힌트 (강사 전용).
        tol: 수를 비교할 상대·절대 허용 오차. 주지 않으면 정수 형식은 0(정확히), 그 밖은 1e-6.

    Shape:
        - 해당 없음
    """
    tol = (0.0 if _integral(fmt) else 1e-6) if tol is None else tol
    return Part("value", {"name": name, "format": fmt, "tol": tol, "hints": dict(hints or {}), "default": default})


def choice(name: str, options: str, *, hints: dict[str, str], single: bool = False) -> Part:
    """선택지 글자를 고르는 부분. 정답 글자는 마스터의 풀이를 실행해 얻습니다.

    Shape:
        - 해당 없음
    """
    return Part("choice", {"name": name, "options": options, "single": single, "hints": dict(hints)})


def check(checker: str, *functions: str, forbid_library: bool = False, hidden_runs: int = 2, public_seed: int = 0) -> Part:
    """함수를 구현하는 부분: 공개 채점기 ``checker``를 공개 시드 한 번과 숨은 시드 ``hidden_runs``번 돌립니다.

    Args:
        checker: ``attn_grader.registry.CHECKERS``의 채점기 이름 (``check_torch_mha_forward`` 등; ``seed=`` 인자를 받음).
        *functions: 채점기에 넘길 학생 함수의 이름 (순서대로).
        forbid_library: 실행하는 동안 이미 만들어진 어텐션을 부르면 0점인 문제인지.
        hidden_runs: 채점할 때 더 돌리는 숨은 시드의 수.
        public_seed: 학생이 노트북에서 돌려 보는 시드.

    Shape:
        - 해당 없음
    """
    return Part("check", {"checker": checker, "functions": list(functions), "forbid_library": forbid_library,
                          "hidden_runs": hidden_runs, "public_seed": public_seed})


def question_from_public(data: dict) -> Question:
    """공개 명세(JSON)에서 문제를 되살립니다.

    Shape:
        - 해당 없음
    """
    return Question(data["name"], float(data["points"]), bool(data["all_or_nothing"]),
                    [Part(p["kind"], {k: v for k, v in p.items() if k != "kind"}) for p in data["parts"]])


def load_public_spec(assignment: str, path: str | None = None) -> list[Question]:
    """과제의 공개 명세를 읽습니다: ``path``가 있으면 그 파일, 없으면 attn_course에 함께 든 ``public_spec.json``.

    Raises:
        ValueError: 그 과제가 없을 때.

    Shape:
        - 해당 없음
    """
    if path is not None:
        with open(path, encoding="utf-8") as f:
            bundle = {assignment: json.load(f)}
    else:
        bundle = json.loads(resources.files(__package__).joinpath(PUBLIC_SPEC_FILE).read_text(encoding="utf-8"))
    if assignment not in bundle:
        raise ValueError(f"과제 {assignment!r}의 공개 명세가 없습니다. 있는 과제: {sorted(bundle)}")
    return [question_from_public(q) for q in bundle[assignment]["questions"]]
