"""채점 과제 마스터 노트북 읽기와 반마다 다른 판 만들기 (``build.py``가 씀).

마스터는 otter-grader 형식의 노트북(``# BEGIN QUESTION`` … ``# END QUESTION``)에 두 가지를 더한 것입니다.

- ``# PARAMS`` 코드 셀 하나: ``def params(pick): return {...}``. ``pick(보기 목록)``은 연습판(반 비밀 값 없음)에서
  첫 보기를, 반 비밀 값이 있으면 그 값에서 정해지는 보기를 고릅니다. 문제 설명과 풀이 셀의 ``{{이름}}``(또는
  ``{{이름:형식}}``, 예: ``{{T:,}}``)이 그 값으로 바뀝니다.
- 문제마다 ``# BEGIN TESTS`` 안의 ``# SPEC`` 코드 셀: ``attn_course.practice.spec``의 ``value``, ``choice``, ``check``로
  문제의 부분을 적습니다. 셀은 params 값을 이름으로 씁니다(예: ``hints={4 * E * E + 4 * E: "…"}``).
  선택지 문제는 ``choice(이름, options={"a": 보기 글, …}, hints={…})``로 보기 글을 적고, 문제 설명에
  ``{{choices:이름}}``을 두면 반마다 섞인 순서의 보기 목록이 들어갑니다. 풀이 셀에서는
  ``{{choice:이름:bcd}}``가 그 반의 글자로 바뀝니다.

마스터는 강사가 쓴 신뢰하는 코드이므로 PARAMS와 SPEC 셀은 빌드할 때 실행합니다. 학생 코드는 여기서 실행하지 않습니다.
"""

from __future__ import annotations

import copy
import hashlib
import hmac
import random
import re
from dataclasses import dataclass, field
from typing import Any

import nbformat
import yaml

from attn_course.practice import spec as spec_module
from attn_course.practice.spec import Part, Question

PLACEHOLDER = re.compile(r"\{\{\s*([a-z]+:)?([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\s*\}\}")


@dataclass
class Rendered:
    """한 반의 판: 값이 채워진 노트북, 문제 명세, 반 정보."""

    nb: Any
    questions: list[Question]
    params: dict
    letters: dict[str, dict[str, str]] = field(default_factory=dict)  # 선택지 이름 -> {마스터 글자: 반 글자}


def class_rng(secret: bytes | None, name: str) -> random.Random | None:
    """반 비밀 값과 과제 이름에서 정해지는 난수 (비밀 값이 없으면 None: 연습판)."""
    if secret is None:
        return None
    return random.Random(hmac.new(secret, f"params:{name}".encode(), hashlib.sha256).digest())


def _source(cell: Any) -> str:
    return cell.source if isinstance(cell.source, str) else "".join(cell.source)


def _question_config(cell: Any) -> dict | None:
    src = _source(cell)
    if cell.cell_type == "raw" and src.lstrip().startswith("# BEGIN QUESTION"):
        return yaml.safe_load(src.split("\n", 1)[1]) or {}
    return None


def _is(cell: Any, marker: str) -> bool:
    return cell.cell_type == "code" and _source(cell).lstrip().startswith(marker)


def _spec_parts(source: str, params: dict) -> list[Part]:
    parts: list[Part] = []
    names = {n: getattr(spec_module, n) for n in ("Int", "Number", "Text", "Tuple", "SetOf")}

    def keep(fn: Any) -> Any:
        def add(*args: Any, **kwargs: Any) -> Part:
            part = fn(*args, **kwargs)
            parts.append(part)
            return part
        return add

    env = {**names, **params, "value": keep(spec_module.value), "check": keep(spec_module.check),
           "choice": keep(_choice), "frozenset": frozenset}
    exec(compile(source, "<SPEC>", "exec"), env)  # 마스터는 강사가 쓴 신뢰하는 코드
    return parts


def _choice(name: str, *, options: dict[str, str], hints: dict[str, str], single: bool = False) -> Part:
    part = spec_module.choice(name, "".join(options), hints=hints, single=single)
    part.data["option_texts"] = dict(options)
    return part


def _permute(part: Part, rng: random.Random | None) -> dict[str, str]:
    """선택지의 글자를 반마다 섞습니다: {마스터 글자: 반 글자}. 연습판은 그대로."""
    letters = list(part.data["option_texts"])
    shuffled = letters[:] if rng is None else rng.sample(letters, len(letters))
    return dict(zip(shuffled, letters))  # 섞인 순서의 k번째 보기가 글자 letters[k]를 받음


def render(master: Any, secret: bytes | None, name: str) -> Rendered:
    """마스터 노트북에서 한 반의 판을 만듭니다 (값 채우기, 선택지 섞기, 문제 명세 만들기).

    Returns:
        ``Rendered`` (노트북은 PARAMS 셀이 빠지고 SPEC 셀은 그대로 남은 사본).
    """
    rng = class_rng(secret, name)
    nb = copy.deepcopy(master)
    params_cells = [c for c in nb.cells if _is(c, "# PARAMS")]
    if len(params_cells) > 1:
        raise ValueError("# PARAMS 셀은 하나여야 합니다.")
    params: dict = {}
    if params_cells:
        env: dict = {}
        exec(compile(_source(params_cells[0]), "<PARAMS>", "exec"), env)  # 신뢰하는 마스터
        params = env["params"]((lambda options: options[0]) if rng is None else rng.choice)
    nb.cells = [c for c in nb.cells if not _is(c, "# PARAMS")]
    configs = question_configs(nb)
    params = {"assignment": name, "n_questions": len(configs),
              "total_points": sum(float(c.get("points") or 1) for c in configs), **params}

    questions: list[Question] = []
    current: Question | None = None
    for cell in nb.cells:
        config = _question_config(cell)
        if config is not None:
            current = Question(str(config["name"]), float(config.get("points") or 1), bool(config.get("all_or_nothing")))
            questions.append(current)
        elif _is(cell, "# SPEC"):
            if current is None:
                raise ValueError("# SPEC 셀이 문제 밖에 있습니다.")
            current.parts += _spec_parts(_source(cell), params)
    choices = [p for q in questions for p in q.parts if p.kind == "choice"]
    letters = {p.data["name"]: _permute(p, rng) for p in choices}
    texts = {p.data["name"]: p.data.pop("option_texts") for p in choices}
    for p in choices:
        mapping = letters[p.data["name"]]
        p.data["hints"] = {mapping[k]: v for k, v in p.data["hints"].items()}
    for cell in nb.cells:
        if cell.cell_type in ("markdown", "code") and not _is(cell, "# SPEC"):
            cell.source = _fill(_source(cell), params, letters, texts)
    return Rendered(nb, questions, params, letters)


def _fill(text: str, params: dict, letters: dict, options: dict) -> str:
    def one(m: re.Match) -> str:
        kind, key, fmt = (m.group(1) or "")[:-1], m.group(2), m.group(3)
        if kind == "choices":  # 섞인 순서의 보기 목록 (반 글자로)
            mapping = letters[key]
            order = sorted(mapping, key=lambda k: mapping[k])
            return "\n".join(f"- ({mapping[k]}) {options[key][k]}" for k in order)
        if kind == "choice":  # 마스터 글자 -> 반 글자
            return "".join(sorted(letters[key][c] for c in fmt))
        if key not in params:
            raise KeyError(f"{{{{{key}}}}}: PARAMS에 없는 이름입니다.")
        return format(params[key], fmt or "")
    return PLACEHOLDER.sub(one, text)


def question_configs(nb: Any) -> list[dict]:
    """노트북의 ``# BEGIN QUESTION`` 설정들 (이름, 배점 …)."""
    return [c for c in (_question_config(cell) for cell in nb.cells) if c is not None]


def is_spec_cell(cell: Any) -> bool:
    return _is(cell, "# SPEC")
