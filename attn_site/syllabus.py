"""강의 계획 만들기 (syllabus): 목차, 읽는 시간, 채점 과제의 문제, 연습 문제에서. torch 도 Sphinx 도 import 하지 않습니다.

``attn_site/course_plan.py`` 가 빌드 때 강사용 안내 페이지에 그리고, ``tests/test_syllabus.py`` 가 같은 함수로 다시 만들어
페이지와 맞춰 봅니다. 그래서 장을 고치거나 문제를 더해도 계획이 어긋나지 않습니다.

정한 것 (이슈 26이 정하지 않은 것):

- **무엇을 배치하나**: 목차의 첫 페이지(머리말)와 '본문' 부분의 장 가운데 연습 문제 페이지를 뺀 장들. 부록(용어집,
  치트시트, 강사용 안내, 참고 문헌)은 읽을 차례가 아니라 찾아보는 곳이라 배치하지 않습니다.
- **단위는 절**: 장은 ``##`` 절 단위로 나뉩니다 (``reading_time.Estimate.sections``). 첫 ``##`` 앞의 글은 '처음'.
- **학기 (14주, 주 1회 75분 수업)**: 장의 경계를 지킵니다. 장마다 주 수를 그 장의 시간(핵심 + 심화)에 비례해 나누고
  (가장 큰 나머지 방식, 장마다 적어도 1주), 장 안에서는 절을 차례대로 그 주 수로 고르게 나눕니다 (주의 시간과 평균의
  차이 제곱합이 가장 작도록).
  머리말은 첫 장과 같은 주에 둡니다. 심화 절도 배치하고 '심화'라고 적습니다.
- **워크숍 (6회)**: 핵심 절만 차례대로 6회로 고르게 나눕니다 (차이 제곱합이 가장 작도록, 장 안에서 끊으면
  ``SPLIT_PENALTY`` 만큼 벌점; 한 회가 두 장에 걸칠 수 있음). 심화
  절은 그 장의 핵심이 끝나는 회에 '더 읽을거리'로 적고 시간에는 넣지 않습니다.
- **연습 문제**: 연습 페이지(``11_practice``)의 ``##`` 절마다 첫 ``{ref}`` 가 가리키는 장의 문제로 보고, 그 장이 끝나는
  회(주)에 둡니다. 연습 시간은 연습 페이지의 그 절 시간입니다.
- **채점 문제**: 과제 명세(``attn_course/practice/public_spec.json``)에는 장 정보가 없습니다. 문제 이름 ``q<N>_<k>`` 의 N을
  N장으로 봅니다 (과제의 절도 장 순서입니다). 그 장이 끝나는 회(주)에 둡니다.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .reading_time import Estimate, Section, round_minutes

SEMESTER_WEEKS = 14
WORKSHOP_SESSIONS = 6
PRACTICE_DOC = "chapters/11_practice"
_CHAPTER_RE = re.compile(r"^chapters/(\d\d)_")
_QUESTION_RE = re.compile(r"^q(\d+)_\d+$")


@dataclass(frozen=True)
class Question:
    name: str
    points: float
    chapter: int


@dataclass(frozen=True)
class Practice:
    label: str
    title: str
    chapter: int


@dataclass
class Part:
    """한 회에 읽을 한 페이지의 연속된 절들."""

    docname: str
    title: str
    deep: bool
    first: int  # 절 번호 (sections 의 위치)
    last: int
    n_sections: int
    section_titles: tuple[str, ...]
    minutes: float

    @property
    def range_text(self) -> str:
        """'전체', "처음부터 'B'까지", "'A'부터 끝까지", "'A'부터 'B'까지", "'A'"."""
        def name(i: int) -> str:
            title = plain(self.section_titles[i])
            if self.deep:  # 앞에 '심화'라고 적으므로 제목의 '심화:' 를 되풀이하지 않음 ("심화 '심화: …'" 대신 "심화 '…'")
                title = re.sub(r"^심화(\s*[:：]\s*|\s+)", "", title) or title
            return f"'{title}'" if title else "처음"

        if self.first == 0 and self.last == self.n_sections - 1:
            return "전체"
        if self.first == self.last:
            return f"{name(self.first)} 절"
        start = "처음" if self.first == 0 else name(self.first)
        end = "끝" if self.last == self.n_sections - 1 else name(self.last)
        return f"{start}부터 {end}까지"


@dataclass
class Session:
    number: int
    parts: list[Part] = field(default_factory=list)
    extra: list[Part] = field(default_factory=list)  # 시간에 넣지 않는 더 읽을거리 (워크숍의 심화)
    practice: list[Practice] = field(default_factory=list)
    practice_minutes: float = 0.0
    questions: list[Question] = field(default_factory=list)

    @property
    def minutes(self) -> float:
        return sum(p.minutes for p in self.parts)


@dataclass
class Plan:
    name: str
    unit: str  # '주' 또는 '회'
    sessions: list[Session]


def plain(title: str) -> str:
    """제목의 마크다운 표시(수식 $, 코드 `, 굵게 **)를 뺀 글."""
    return re.sub(r"[`*$]", "", title).strip()


def chapter_number(docname: str) -> int | None:
    m = _CHAPTER_RE.match(docname)
    return int(m.group(1)) if m else None


def load_questions(public_spec: Path, assignment: str = "attention_hw") -> list[Question]:
    """공개 명세의 문제 (이름, 점수, 장). 장은 이름 q<N>_ 의 N."""
    data = json.loads(Path(public_spec).read_text(encoding="utf-8"))[assignment]
    out = []
    for q in data["questions"]:
        m = _QUESTION_RE.match(q["name"])
        if not m:
            raise ValueError(f"문제 이름 {q['name']!r} 이 q<장>_<번호> 꼴이 아니라 장을 알 수 없습니다.")
        out.append(Question(q["name"], float(q["points"]), int(m.group(1))))
    return out


def page_labels(source: Path) -> set[str]:
    """페이지 원본의 이름표 ``(label)=`` 와 ``:label:``."""
    text = Path(source).read_text(encoding="utf-8")
    if Path(source).suffix == ".ipynb":
        text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "markdown")
    return set(re.findall(r"^\(([\w:.-]+)\)=\s*$", text, re.M)) | set(re.findall(r"^:label:\s*(\S+)", text, re.M))


def load_practice(practice_source: Path, label_home: dict[str, int]) -> tuple[list[Practice], dict[int, int]]:
    """연습 페이지의 문제와, 장 -> 그 장 연습이 든 ``##`` 절 번호 (reading_time 의 절 번호와 같음).

    절의 장은 그 절에서 처음 나오는 ``{ref}`` 가 가리키는 이름표가 든 장입니다 (``label_home``: 이름표 -> 장)."""
    nb = json.loads(Path(practice_source).read_text(encoding="utf-8"))
    problems: list[Practice] = []
    section_of: dict[int, int] = {}
    section = 0
    chapter: int | None = None
    for cell in nb["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        src = "".join(cell["source"])
        for line in src.split("\n"):
            if re.match(r"^##\s", line):
                section += 1
                chapter = None
            if chapter is None and section:
                for label in re.findall(r"\{ref\}`(?:[^`<]*<)?([\w:.-]+)>?`", line):
                    if label in label_home:
                        chapter = label_home[label]
                        section_of.setdefault(chapter, section)
                        break
        m = re.search(r"^(`{3,}|:{3,})\{exercise\}\s*(.*)$", src, re.M)
        label = re.search(r"^:label:\s*(\S+)", src, re.M)
        if m and label:
            if chapter is None:
                raise ValueError(f"연습 문제 {label.group(1)} 의 절이 어느 장의 연습인지 모릅니다 (절 첫머리에 장의 {{ref}} 가 없음).")
            problems.append(Practice(label.group(1), m.group(2).strip(), chapter))
    return problems, section_of


#: 장 안에서 끊을 때의 벌점 (분²): 장 경계에서 끊는 것을 조금 더 좋아하게 (15분 어긋남과 같음)
SPLIT_PENALTY = 15.0 ** 2


def _partition(weights: list[float], k: int, breaks: set[int] | None = None) -> list[tuple[int, int]]:
    """차례를 지켜 ``weights`` 를 ``k`` 묶음으로 (빈 묶음 없음). (처음, 끝) 목록.

    묶음 시간과 평균의 차이 제곱합이 가장 작도록 나눕니다 (고르게, 자투리 묶음 없이). ``breaks`` 가 주어지면
    그 위치(항목 번호; 그 항목 앞에서 끊음)가 아닌 곳에서 끊을 때마다 ``SPLIT_PENALTY`` 를 더합니다."""
    n = len(weights)
    k = max(1, min(k, n))
    prefix = [0.0]
    for w in weights:
        prefix.append(prefix[-1] + w)
    mean = prefix[-1] / k
    INF = float("inf")
    best = [[INF] * (n + 1) for _ in range(k + 1)]
    cut = [[0] * (n + 1) for _ in range(k + 1)]
    best[0][0] = 0.0
    for j in range(1, k + 1):
        for i in range(j, n + 1):
            for m in range(j - 1, i):
                if best[j - 1][m] == INF:
                    continue
                penalty = SPLIT_PENALTY if (breaks is not None and m > 0 and m not in breaks) else 0.0
                cost = best[j - 1][m] + (prefix[i] - prefix[m] - mean) ** 2 + penalty
                if cost < best[j][i] - 1e-9:
                    best[j][i], cut[j][i] = cost, m
    bounds, i = [], n
    for j in range(k, 0, -1):
        m = cut[j][i]
        bounds.append((m, i - 1))
        i = m
    return bounds[::-1]


def _apportion(weights: list[float], total: int) -> list[int]:
    """가장 큰 나머지 방식, 항목마다 적어도 1."""
    if total < len(weights):
        raise ValueError(f"{total}회로 {len(weights)}개 장을 나눌 수 없습니다.")
    s = sum(weights) or 1.0
    quotas = [w / s * total for w in weights]
    counts = [max(1, int(q)) for q in quotas]
    while sum(counts) < total:
        i = max(range(len(weights)), key=lambda j: (quotas[j] - counts[j], -j))
        counts[i] += 1
    while sum(counts) > total:
        i = min((j for j in range(len(weights)) if counts[j] > 1), key=lambda j: (quotas[j] - counts[j], j))
        counts[i] -= 1
    return counts


def _parts(docname: str, title: str, sections: list[Section], idx: list[int]) -> list[Part]:
    """절 번호들을 같은 심화 여부의 연속 구간으로 묶어 Part 들로."""
    out: list[Part] = []
    titles = tuple(s.title for s in sections)
    for i in idx:
        s = sections[i]
        if out and out[-1].deep == s.deep and out[-1].last == i - 1:
            out[-1].last = i
            out[-1].minutes += s.minutes
        else:
            out.append(Part(docname, title, s.deep, i, i, len(sections), titles, s.minutes))
    return out


@dataclass
class Book:
    """계획의 재료."""

    pages: list[tuple[str, str, Estimate]]  # (문서 이름, 제목, 어림): 배치할 페이지, 목차 순서
    questions: list[Question]
    practice: list[Practice]
    practice_estimate: Estimate | None = None
    practice_section_of: dict[int, int] = field(default_factory=dict)


def _attach(book: Book, sessions: list[Session], ends: dict[int, int]) -> None:
    """장 -> 그 장이 끝나는 회 번호(0부터)에 연습과 채점 문제를 붙입니다."""
    for p in book.practice:
        sessions[ends[p.chapter]].practice.append(p)
    for q in book.questions:
        if q.chapter not in ends:
            raise ValueError(f"채점 문제 {q.name} 의 장 {q.chapter} 이(가) 목차에 없습니다.")
        sessions[ends[q.chapter]].questions.append(q)
    if book.practice_estimate is not None:
        for chapter, sec in book.practice_section_of.items():
            if chapter in ends:
                sessions[ends[chapter]].practice_minutes += book.practice_estimate.sections[sec].minutes


def semester_plan(book: Book, weeks: int = SEMESTER_WEEKS) -> Plan:
    """14주: 장의 경계를 지키고, 주 수는 장의 시간에 비례 (머리말은 첫 장과 함께)."""
    units: list[list[tuple[str, str, Estimate]]] = []
    for page in book.pages:
        if chapter_number(page[0]) is None and units == []:
            units.append([page])  # 머리말: 첫 장과 한 묶음
        elif chapter_number(page[0]) is None:
            units[-1].append(page)
        elif units and all(chapter_number(d) is None for d, _, _ in units[-1]):
            units[-1].append(page)
        else:
            units.append([page])
    counts = _apportion([sum(e.total_minutes for _, _, e in u) for u in units], weeks)
    sessions: list[Session] = []
    ends: dict[int, int] = {}
    for unit, count in zip(units, counts):
        items = [(d, t, e, i) for d, t, e in unit for i in range(len(e.sections))]
        groups = _partition([e.sections[i].minutes for _, _, e, i in items], count)
        for first, last in groups:
            s = Session(len(sessions) + 1)
            for d, t, e in unit:
                idx = [i for j, (dd, _, _, i) in enumerate(items) if dd == d and first <= j <= last]
                s.parts += _parts(d, t, e.sections, idx)
            sessions.append(s)
        for d, _, _ in unit:
            if chapter_number(d) is not None:
                ends[chapter_number(d)] = len(sessions) - 1
    _attach(book, sessions, ends)
    return Plan("14주 학기", "주", sessions)


def workshop_plan(book: Book, n: int = WORKSHOP_SESSIONS) -> Plan:
    """6회: 핵심 절만 차례대로 고르게 나눔 (회가 장에 걸칠 수 있음). 심화는 그 장의 핵심이 끝나는 회의 더 읽을거리."""
    items = [(d, t, e, i) for d, t, e in book.pages for i, s in enumerate(e.sections) if not s.deep]
    breaks = {j for j in range(1, len(items)) if items[j][0] != items[j - 1][0]}
    groups = _partition([e.sections[i].minutes for _, _, e, i in items], n, breaks)
    sessions: list[Session] = []
    ends: dict[int, int] = {}
    for first, last in groups:
        s = Session(len(sessions) + 1)
        for d, t, e in book.pages:
            idx = [i for j, (dd, _, _, i) in enumerate(items) if dd == d and first <= j <= last]
            if idx:
                s.parts += _parts(d, t, e.sections, idx)
                if idx[-1] == max(i for dd, _, _, i in items if dd == d):
                    deep = [i for i, sec in enumerate(e.sections) if sec.deep]
                    s.extra += _parts(d, t, e.sections, deep)
                    if chapter_number(d) is not None:
                        ends[chapter_number(d)] = len(sessions)
        sessions.append(s)
    _attach(book, sessions, ends)
    return Plan("6회 워크숍", "회", sessions)


def page_title(source: Path) -> str:
    """페이지 원본의 첫 ``#`` 제목."""
    text = Path(source).read_text(encoding="utf-8")
    if Path(source).suffix == ".ipynb":
        text = "\n".join("".join(c["source"]) for c in json.loads(text)["cells"] if c["cell_type"] == "markdown")
    m = re.search(r"^#\s+(.+?)\s*$", text, re.M)
    return plain(m.group(1)) if m else ""


def scheduled_docnames(toc: dict[str, Any]) -> list[str]:
    """배치할 페이지: 목차의 첫 페이지와 첫 부분('본문')의 장들 (연습 페이지 빼고), 목차 순서."""
    names = [toc["root"]]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "file" in node:
                names.append(re.sub(r"\.(md|ipynb)$", "", node["file"]))
            for key in ("chapters", "sections"):
                for child in node.get(key, []) or []:
                    walk(child)

    if "parts" in toc:
        walk(toc["parts"][0])
    else:
        walk(toc)
    return [n for n in names if n != PRACTICE_DOC]


def minutes_text(minutes: float) -> str:
    return f"{round_minutes(minutes)}분"


def page_source(root: Path, docname: str) -> Path:
    """문서의 원본 파일 (.ipynb 또는 .md)."""
    for suffix in (".ipynb", ".md"):
        src = Path(root) / f"{docname}{suffix}"
        if src.is_file():
            return src
    raise FileNotFoundError(f"{docname} 의 원본(.ipynb, .md)이 없습니다.")


def book_from_files(root: Path, cache_dir: Path | None = None) -> Book:
    """빌드 없이 파일에서 계획의 재료를 만듭니다 (테스트가 빌드의 계획과 맞춰 볼 때 씀). 노트북의 어림은
    ``cache_dir`` (빌드의 jupyter-cache)에 실행 기록이 있으면 출력까지 세고, 없으면(``None``) 원본만 셉니다."""
    from .reading_time import estimate_source

    import yaml  # 지연 import: 빌드는 이미 PyYAML 을 씀

    root = Path(root)
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    pages = []
    for d in scheduled_docnames(toc):
        src = page_source(root, d)
        pages.append((d, page_title(src), estimate_source(src, cache_dir)))
    label_home: dict[str, int] = {}
    for src in sorted((root / "chapters").glob("[0-9][0-9]_*.ipynb")):
        n = chapter_number(f"chapters/{src.stem}")
        for label in page_labels(src):
            label_home[label] = n
    practice, section_of = load_practice(root / f"{PRACTICE_DOC}.ipynb", label_home)
    practice_est = estimate_source(page_source(root, PRACTICE_DOC), cache_dir)
    questions = load_questions(root / "attn_course" / "practice" / "public_spec.json")
    return Book(pages, questions, practice, practice_est, section_of)
