"""페이지의 읽는 시간 어림 (reading-time estimate of a page). torch 도 Sphinx 도 import 하지 않는 순수 함수입니다.

공식 (이슈 26):

    분 = 본문 글자 수 / CHARS_PER_MINUTE + CODE_MINUTES × 보이는 코드 셀 + VISUAL_MINUTES × (그림 + 표)
         + EQUATION_MINUTES × 블록 수식

무엇을 세는지 (이 파일이 기준입니다; 강사용 안내 페이지에도 같은 규칙을 적습니다):

- **본문 글자**: 마크다운(노트북의 마크다운 셀, .md 페이지)과, 코드 셀이 내는 ``text/markdown`` 출력(빌드 때 숫자를
  넣어 쓰는 문장)의 글자. 공백이 여러 개 이어지면 하나로 셉니다. 빼는 것: 펜스 코드 블록, HTML 주석, 블록 수식
  (``$$…$$``), 이름표 줄 ``(sec-x)=``, 지시문의 옵션 줄(``:label:`` 등), YAML 머리글, 표의 구분 행(``|---|``),
  마크다운 표의 세로줄 ``|``, 링크 주소. 제목, 인라인 수식, 인라인 코드, 표의 칸 글은 셉니다 (독자가 읽으니까).
- **코드 셀**: 입력이 페이지에 보이는 코드 셀. 태그 ``remove-cell``, ``remove-input``, ``hide-input``,
  ``hide-cell`` 이 붙은 셀과 빈 셀은 세지 않습니다 (접힌 셀은 독자가 읽지 않아도 되는 셀). 마크다운 안의 펜스
  코드 블록(```` ```python ````, ``{code-block}``, ``{literalinclude}``; 단 ``{math}`` 같은 글 아닌 지시문은
  빼고)도 코드 셀 하나로 셉니다.
- **그림**: 보이는 출력(태그 ``remove-output``, ``remove-cell`` 이 없는 셀) 가운데 ``image/*`` 를 가진 출력,
  위젯이나 Vega-Lite 출력(탐색기, 헤드 탭), 마크다운의 그림(``![..](..)``, ``{figure}``, ``{image}``).
- **블록 수식**: ``$$…$$`` 하나, ``{math}`` 지시문 하나 (글자로는 세지 않음; 맞춘 상수에서만 1분).
- **표**: 마크다운 표(머리 행 + ``|---|`` 구분 행) 하나, ``{list-table}``/``{csv-table}`` 하나, ``<table`` 이 든
  ``text/html`` 출력(DataFrame) 하나. 표의 칸 글은 본문 글자로도 셉니다. 한 출력이 그림이면서 표이면 그림으로만 셉니다.

**핵심과 심화**: 제목에 '심화'가 들어 있으면(예: ``## 심화: μP와 QK-norm``) 그 절은 같은 수준이나 더 높은 수준의
다음 제목이 나올 때까지 심화입니다. 페이지의 ``#`` 제목에 '심화'가 있으면(목차의 하위 페이지로 나눈 심화) 페이지 전체가
심화입니다. 심화 절 안의 글, 코드 셀, 출력은 모두 심화 시간으로 갑니다.
나머지가 핵심입니다. 절(``##``)마다의 시간도 돌려줍니다 (강의 계획이 장을 절 단위로 나눌 때 씀).

상수: 이슈의 공식(``RAW``: 400자/분, 코드 셀 1.5분, 그림·표 1분)을 이 책의 2~4장에 맞춘 값(``CALIBRATED``)을
씁니다. 둘 다 ``tests/test_reading_time.py`` 가 다시 계산합니다.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

#: 이슈 26의 날것의 공식
RAW = {"chars_per_minute": 400.0, "code_minutes": 1.5, "visual_minutes": 1.0, "equation_minutes": 0.0}
#: 맞춘 값 (calibrated): 2·3·4장이 110·130·135분과 ±15 % 안에서 맞도록. tests/test_reading_time.py 가 확인.
#: 날것의 공식은 4장(수식이 많은 장)을 -15 %로 낮게 잽니다. 그래서 블록 수식 하나를 그림처럼 1분으로 세고,
#: 그만큼 글을 조금 빨리 읽는다고 봅니다(450자/분). 2·3·4장의 최대 오차가 10 % 안으로 듭니다.
CALIBRATED = {"chars_per_minute": 450.0, "code_minutes": 1.5, "visual_minutes": 1.0, "equation_minutes": 1.0}
CHARS_PER_MINUTE = CALIBRATED["chars_per_minute"]
CODE_MINUTES = CALIBRATED["code_minutes"]
VISUAL_MINUTES = CALIBRATED["visual_minutes"]
EQUATION_MINUTES = CALIBRATED["equation_minutes"]

HIDDEN_INPUT_TAGS = frozenset({"remove-cell", "remove-input", "hide-input", "hide-cell"})
HIDDEN_OUTPUT_TAGS = frozenset({"remove-cell", "remove-output"})
#: 펜스 안이 글이 아닌 지시문 (코드로도 세지 않음)
NON_CODE_FENCES = frozenset({"math", "mermaid", "raw", "glue", "glue:any", "glue:figure", "glue:math", "syllabus"})
CODE_FENCES = frozenset({"code", "code-block", "code-cell", "sourcecode", "literalinclude"})
TABLE_FENCES = frozenset({"list-table", "csv-table", "table"})
FIGURE_FENCES = frozenset({"figure", "image"})
DEEP_WORD = "심화"

_FENCE_RE = re.compile(r"^\s*(`{3,}|~{3,}|:{3,})(.*)$")
_OPTION_RE = re.compile(r"^\s*:[\w-]+:(\s|$)")
_HEADING_RE = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_LABEL_RE = re.compile(r"^\s*\([\w:.-]+\)=\s*$")
_TABLE_SEP_RE = re.compile(r"^\s*\|?(\s*:?-{3,}:?\s*\|)+\s*(:?-{3,}:?\s*)?\|?\s*$")
_DISPLAY_MATH_RE = re.compile(r"\$\$.*?\$\$", re.S)
_MD_IMAGE_RE = re.compile(r"!\[[^\]]*\]\([^)]*\)")


@dataclass
class Tally:
    """한 덩어리(절, 핵심, 심화)의 센 값."""

    chars: int = 0
    code_cells: int = 0
    figures: int = 0
    tables: int = 0
    equations: int = 0

    def add(self, other: "Tally") -> None:
        self.chars += other.chars
        self.code_cells += other.code_cells
        self.figures += other.figures
        self.tables += other.tables
        self.equations += other.equations

    def minutes(self, constants: dict[str, float] | None = None) -> float:
        c = constants or CALIBRATED
        return (self.chars / c["chars_per_minute"] + c["code_minutes"] * self.code_cells
                + c["visual_minutes"] * (self.figures + self.tables) + c["equation_minutes"] * self.equations)


@dataclass
class Section:
    """``##`` 절 하나 (첫 ``##`` 앞의 글은 제목이 빈 절)."""

    title: str
    deep: bool
    tally: Tally = field(default_factory=Tally)

    @property
    def minutes(self) -> float:
        return self.tally.minutes()


@dataclass
class Estimate:
    sections: list[Section]

    def tally(self, deep: bool | None = None) -> Tally:
        t = Tally()
        for s in self.sections:
            if deep is None or s.deep == deep:
                t.add(s.tally)
        return t

    @property
    def core_minutes(self) -> float:
        return self.tally(False).minutes()

    @property
    def deep_minutes(self) -> float:
        return self.tally(True).minutes()

    @property
    def total_minutes(self) -> float:
        return self.tally().minutes()

    def raw_minutes(self) -> float:
        """이슈의 날것의 공식(맞추기 전 상수)으로 잰 전체 시간."""
        return self.tally().minutes(RAW)


def round_minutes(minutes: float) -> int:
    """페이지에 적는 분: 반올림(0.5는 올림), 적어도 1분."""
    return max(1, int(math.floor(minutes + 0.5)))


def badge_text(est: Estimate) -> str:
    """페이지 맨 위에 넣는 글. 심화가 있으면 핵심과 심화를 나눠 적습니다."""
    total = round_minutes(est.total_minutes)
    if any(s.deep for s in est.sections):
        return (f"읽는 시간 약 {total}분 (핵심 {round_minutes(est.core_minutes)}분 + "
                f"심화 {round_minutes(est.deep_minutes)}분)")
    return f"읽는 시간 약 {total}분"


# ---------------------------------------------------------------------------------------
# 마크다운 세기
# ---------------------------------------------------------------------------------------


class _Counter:
    """마크다운 줄과 코드 셀을 차례로 받아 절마다 셉니다 (심화 표시를 따라감)."""

    def __init__(self) -> None:
        self.sections: list[Section] = [Section("", False)]
        self.deep_level: int | None = None  # 지금 열린 심화 제목의 수준

    @property
    def current(self) -> Tally:
        return self.sections[-1].tally

    def heading(self, level: int, title: str) -> None:
        if self.deep_level is not None and level <= self.deep_level:
            self.deep_level = None
        if self.deep_level is None and DEEP_WORD in title:
            self.deep_level = level
        deep = self.deep_level is not None
        current = self.sections[-1]
        if level == 2 or deep != current.deep:
            if current.tally == Tally() and not current.title and level != 2:
                current.deep = deep  # 아직 빈 첫머리(예: 제목이 '심화'인 하위 페이지의 # 제목)
            else:
                self.sections.append(Section(title, deep))

    def markdown(self, text: str) -> None:
        lines = text.split("\n")
        if lines and lines[0].strip() == "---":  # YAML 머리글
            for k in range(1, len(lines)):
                if lines[k].strip() == "---":
                    lines = lines[k + 1:]
                    break
        stack: list[tuple[str, int, str]] = []  # (펜스 문자, 길이, 종류: code/skip/prose)
        option_zone = False
        prose: list[str] = []
        prev = ""

        def flush() -> None:
            if prose:
                joined = "\n".join(prose)
                self.current.equations += len(_DISPLAY_MATH_RE.findall(joined))
                self.current.chars += prose_chars(joined)
                prose.clear()

        for line in lines:
            m = _FENCE_RE.match(line)
            in_literal = any(kind != "prose" for _, _, kind in stack)
            if m:
                fence, info = m.group(1), m.group(2).strip()
                if stack and fence[0] == stack[-1][0] and len(fence) >= stack[-1][1] and not info:
                    stack.pop()
                    option_zone = False
                    continue
                if not in_literal:
                    d = re.match(r"^\{([\w:.-]+)\}\s*(.*)$", info)
                    name = d.group(1) if d else None
                    if name is None or name in CODE_FENCES:
                        kind = "code"
                        self.current.code_cells += 1
                    elif name in NON_CODE_FENCES:
                        kind = "skip"
                        if name == "math":
                            self.current.equations += 1
                    else:
                        kind = "prose"
                        if name in TABLE_FENCES:
                            self.current.tables += 1
                        elif name in FIGURE_FENCES:
                            self.current.figures += 1
                        if d and d.group(2):
                            prose.append(d.group(2))  # 지시문 제목
                    stack.append((fence[0], len(fence), kind))
                    option_zone = kind == "prose"
                    continue
            if in_literal:
                continue
            if option_zone:
                if _OPTION_RE.match(line):
                    continue
                option_zone = False
            h = _HEADING_RE.match(line)
            if h:
                flush()
                self.heading(len(h.group(1)), h.group(2))
                prose.append(h.group(2))
                prev = line
                continue
            if _LABEL_RE.match(line):
                continue
            if _TABLE_SEP_RE.match(line) and prev.lstrip().startswith("|"):
                self.current.tables += 1
                prev = line
                continue
            self.current.figures += len(_MD_IMAGE_RE.findall(line))
            prose.append(line)
            prev = line
        flush()

    def code_cell(self, cell: dict[str, Any]) -> None:
        tags = set(cell.get("metadata", {}).get("tags", []) or [])
        source = _text(cell.get("source", ""))
        if source.strip() and not tags & HIDDEN_INPUT_TAGS:
            self.current.code_cells += 1
        if tags & HIDDEN_OUTPUT_TAGS:
            return
        for out in cell.get("outputs", []) or []:
            data = out.get("data", {}) or {}
            if any(k.startswith("image/") for k in data) or any(
                    k.startswith("application/vnd.jupyter.widget-view") or k.startswith("application/vnd.vegalite")
                    for k in data):
                self.current.figures += 1
            elif "<table" in _text(data.get("text/html", "")):
                self.current.tables += 1
            elif "text/markdown" in data:
                self.markdown(_text(data["text/markdown"]))


def _text(value: Any) -> str:
    return "".join(value) if isinstance(value, list) else str(value or "")


def prose_chars(text: str) -> int:
    """본문 글자 수: HTML 주석, 블록 수식, 링크 주소, 표의 세로줄을 빼고, 이어진 공백은 하나로."""
    text = re.sub(r"<!--.*?-->", " ", text, flags=re.S)
    text = re.sub(r"\$\$.*?\$\$", " ", text, flags=re.S)
    text = re.sub(r"\]\([^)\s]*\)", "]", text)
    text = re.sub(r"<https?://[^>\s]+>", " ", text)
    text = text.replace("|", " ")
    text = re.sub(r"\s+", " ", text).strip()
    return len(text)


def estimate_markdown(text: str) -> Estimate:
    """.md 페이지의 어림."""
    c = _Counter()
    c.markdown(text)
    return Estimate(c.sections)


def estimate_notebook(nb: dict[str, Any]) -> Estimate:
    """노트북(실행된 것이면 출력까지)의 어림. 출력이 없는 저장본을 주면 그림·표·출력 문장은 0으로 셉니다."""
    c = _Counter()
    for cell in nb.get("cells", []):
        if cell.get("cell_type") == "markdown":
            c.markdown(_text(cell.get("source", "")))
        elif cell.get("cell_type") == "code":
            c.code_cell(cell)
    return Estimate(c.sections)


def estimate_path(path: Path) -> Estimate:
    """파일 하나(.ipynb 또는 .md)의 어림."""
    text = Path(path).read_text(encoding="utf-8")
    if Path(path).suffix == ".ipynb":
        return estimate_notebook(json.loads(text))
    return estimate_markdown(text)


def estimate_many(paths: Iterable[Path]) -> dict[str, Estimate]:
    return {str(p): estimate_path(p) for p in paths}


def executed_notebook(source: Path, cache_dir: Path) -> dict[str, Any]:
    """빌드가 실행한 노트북(출력 포함): jupyter-cache(``_build/.jupyter_cache``)에서 원본과 맞는 기록을 합칩니다.

    myst-nb 가 ``_build/jupyter_execute`` 에 쓰는 사본은 캐시에서 꺼낸 경우 출력이 없으므로(myst-nb 1.4 는 캐시
    클라이언트가 바꾼 노트북이 아니라 원래 노트북을 씀) 그것을 읽지 않습니다. 맞는 기록이 없으면 KeyError."""
    import nbformat  # 지연 import: 순수 함수만 쓰는 곳은 필요 없음
    from jupyter_cache import get_cache

    nb = nbformat.read(str(source), as_version=4)
    _, merged = get_cache(str(cache_dir)).merge_match_into_notebook(nb)
    return json.loads(nbformat.writes(merged))


def estimate_source(source: Path, cache_dir: Path | None) -> Estimate:
    """페이지의 어림: 노트북이면 실행된 것(``cache_dir`` 의 jupyter-cache), .md 면 원본."""
    source = Path(source)
    if source.suffix == ".ipynb" and cache_dir is not None:
        return estimate_notebook(executed_notebook(source, cache_dir))
    return estimate_path(source)
