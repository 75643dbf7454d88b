"""과제와 연습이 가리키는 장과 절이 빌드된 사이트에 그대로 있는지 (이슈 26: 장을 나누거나 절 이름을 바꿔도 끊기지 않게).

가리키는 곳 (citing pages): 채점 과제의 마스터 노트북(``assignments/attention_hw.ipynb``), 연습 문제 페이지
(``chapters/11_practice.ipynb``), 강사용 안내(``chapters/appendix/instructors.md``). 찾는 인용:

- ``{ref}`이름표``` / ``{ref}`글 <이름표>``` / ``{numref}``: 사이트의 ``objects.inv`` 에 그 이름표가 있고, 가리키는
  페이지에 그 id 가 있어야 합니다.
- ``{doc}`문서```: 그 페이지가 빌드되어 있어야 합니다.
- 이름으로: ``'X' 장`` 은 X 가 어느 장의 제목(``searchindex.js`` 의 페이지 제목; 끝의 괄호 줄임말은 없어도 됨),
  ``'X' 장의 'Y' 절`` 은 Y 가 그 장의 절 제목, ``'Y' 절`` 은 Y 가 어느 페이지의 절 제목이어야 합니다.
  절 제목은 ``searchindex.js`` 의 ``alltitles`` (수식은 TeX 글자 그대로: ``$d_k$`` -> ``d_k``)와 맞춥니다.
- 과제 마스터의 ``##`` 절 이름(``제출`` 빼고)과 강사용 안내의 문제 표 첫 칸은 장 이름이라, 장 제목이어야 합니다.
"""

from __future__ import annotations

import json
import posixpath
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import pytest

from conftest import ROOT

pytestmark = pytest.mark.site

CITING = ["assignments/attention_hw.ipynb", "chapters/11_practice.ipynb", "chapters/appendix/instructors.md"]
ROLE_RE = re.compile(r"\{(ref|numref|doc)\}`(?:[^`<]*<([^`>]+)>|([^`]+))`")
CHAPTER_SECTION_RE = re.compile(r"'([^'\n]{2,60})' 장의 '([^'\n]{2,80})' 절")
CHAPTER_RE = re.compile(r"'([^'\n]{2,60})' 장(?!의 '[^'\n]{2,80}' 절)")
SECTION_RE = re.compile(r"(?<!장의 )'([^'\n]{2,80})' 절")


@dataclass(frozen=True)
class Citation:
    source: str
    kind: str  # ref, numref, doc, chapter, section, chapter-section, chapter-heading
    target: str
    chapter: str = ""


def markdown_of(rel: str) -> str:
    path = ROOT / rel
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        return "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return path.read_text(encoding="utf-8")


def citations_in(text: str, source: str) -> list[Citation]:
    """글에서 인용을 모두 찾습니다 (펜스 코드 블록 안은 빼고)."""
    kept, stack = [], []  # stack: (펜스, 코드인가)
    for line in text.split("\n"):
        m = re.match(r"^\s*(`{3,}|~{3,}|:{3,})(.*)$", line)
        if m:
            fence, info = m.group(1), m.group(2).strip()
            if stack and fence[0] == stack[-1][0][0] and len(fence) >= len(stack[-1][0]) and not info:
                stack.pop()
                continue
            if not any(code for _, code in stack):
                stack.append((fence, not info.startswith("{") or info.startswith(("{code", "{literalinclude"))))
                if not stack[-1][1]:
                    kept.append(info)  # 지시문의 제목
                continue
        if not any(code for _, code in stack):
            kept.append(line)
    text = "\n".join(kept)
    out: list[Citation] = []
    for role, angled, plain in ROLE_RE.findall(text):
        out.append(Citation(source, role, (angled or plain).strip()))
    for chapter, section in CHAPTER_SECTION_RE.findall(text):
        out.append(Citation(source, "chapter-section", section, chapter))
    out += [Citation(source, "chapter", c) for c in CHAPTER_RE.findall(text)]
    out += [Citation(source, "section", s) for s in SECTION_RE.findall(text)]
    return out


def heading_names(rel: str) -> list[Citation]:
    """과제 마스터의 ## 절 이름(제출 빼고)과 강사용 안내 문제 표의 첫 칸: 장 이름."""
    out = []
    if rel.startswith("assignments/"):
        for name in re.findall(r"^##\s+(.+?)\s*$", markdown_of(rel), re.M):
            if name != "제출":
                out.append(Citation(rel, "chapter-heading", name))
    if rel.endswith("instructors.md"):
        text = markdown_of(rel)
        for line in text.splitlines():
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if line.startswith("|") and len(cells) == 5 and re.fullmatch(r"q\d+_\d+", cells[1]) and cells[0]:
                out.append(Citation(rel, "chapter-heading", cells[0]))
    return out


@lru_cache(maxsize=1)
def site_index(html_dir: Path) -> dict:
    text = (html_dir / "searchindex.js").read_text(encoding="utf-8")
    return json.loads(text[text.index("(") + 1: text.rindex(")")])


@lru_cache(maxsize=1)
def site_labels(html_dir: Path) -> dict[str, str]:
    from sphinx.util.inventory import InventoryFile

    with open(html_dir / "objects.inv", "rb") as f:
        inv = InventoryFile.load(f, "", posixpath.join)
    return {name: entry[2] for name, entry in inv.get("std:label", {}).items()}


def _norm(title: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"[`*$]", "", title)).strip()


def unresolved(cites: list[Citation], html_dir: Path) -> list[str]:
    """사이트에서 찾지 못한 인용의 설명 목록."""
    index = site_index(html_dir)
    docnames, titles = index["docnames"], index["titles"]
    chapter_docs = {i for i, d in enumerate(docnames) if re.match(r"chapters/\d\d_", d)}
    chapter_titles: dict[str, int] = {}
    for i in chapter_docs:
        t = _norm(titles[i])
        chapter_titles[t] = i
        chapter_titles[re.sub(r"\s*\([^)]*\)$", "", t)] = i  # 'KV 캐시와 그룹 쿼리 어텐션(GQA)' -> 줄임말 없이도
    sections: dict[str, set[int]] = {}
    for title, places in index["alltitles"].items():
        sections.setdefault(_norm(title), set()).update(p[0] for p in places)
    labels = site_labels(html_dir)
    problems = []
    for c in cites:
        where = f"{c.source}: {c.kind} {c.target!r}" + (f" ({c.chapter!r} 장)" if c.chapter else "")
        if c.kind in ("ref", "numref"):
            uri = labels.get(c.target)
            if uri is None:
                problems.append(f"{where}: 이름표가 사이트에 없습니다")
                continue
            page, _, anchor = uri.partition("#")
            html = (html_dir / page).read_text(encoding="utf-8")
            if anchor and f'id="{anchor}"' not in html:
                problems.append(f"{where}: {page} 에 id={anchor!r} 가 없습니다")
        elif c.kind == "doc":
            if c.target.lstrip("/") not in docnames and not any(d.endswith(c.target) for d in docnames):
                problems.append(f"{where}: 페이지가 사이트에 없습니다")
        elif c.kind in ("chapter", "chapter-heading"):
            if _norm(c.target) not in chapter_titles:
                problems.append(f"{where}: 이런 제목의 장이 없습니다 (장 제목: {sorted(map(_norm, (titles[i] for i in chapter_docs)))})")
        elif c.kind == "section":
            if _norm(c.target) not in sections:
                problems.append(f"{where}: 이런 제목의 절이 없습니다")
        elif c.kind == "chapter-section":
            doc = chapter_titles.get(_norm(c.chapter))
            if doc is None:
                problems.append(f"{where}: 장이 없습니다")
            elif doc not in sections.get(_norm(c.target), set()):
                problems.append(f"{where}: 그 장에 이런 제목의 절이 없습니다")
    return problems


def all_citations() -> list[Citation]:
    out = []
    for rel in CITING:
        out += citations_in(markdown_of(rel), rel) + heading_names(rel)
    return out


def test_the_extractor_finds_the_known_citations():
    """검사가 헛돌지 않도록: 알려진 인용을 실제로 찾는지."""
    cites = all_citations()
    kinds = {c.kind for c in cites}
    assert {"ref", "chapter", "chapter-section", "chapter-heading"} <= kinds, kinds
    assert Citation("assignments/attention_hw.ipynb", "chapter-section", "$d_k$로 나누면 안 될까", "스케일링") in cites
    assert Citation("assignments/attention_hw.ipynb", "chapter", "헤드 수와 학습") in cites
    assert Citation("chapters/11_practice.ipynb", "ref", "sec-kv-cache-gqa") in cites
    assert sum(c.kind == "chapter-heading" for c in cites) >= 14  # 과제의 7절 + 표의 7장
    assert len(cites) >= 30, len(cites)


def test_extractor_patterns():
    text = ("'마스크' 장에서 봤습니다. '스케일링' 장의 '온도' 절과 비교하세요. '포화' 절도. {ref}`글 <sec-a>`, {ref}`sec-b`,"
            " {doc}`../x`.\n```python\n'코드' 장\n```\n")
    got = citations_in(text, "t")
    assert got == [Citation("t", "ref", "sec-a"), Citation("t", "ref", "sec-b"), Citation("t", "doc", "../x"),
                   Citation("t", "chapter-section", "온도", "스케일링"), Citation("t", "chapter", "마스크"),
                   Citation("t", "section", "포화")], got


def test_every_cited_chapter_and_section_resolves(html_dir: Path):
    problems = unresolved(all_citations(), html_dir)
    assert not problems, "사이트에서 찾지 못한 인용:\n" + "\n".join(problems)


def test_a_renamed_chapter_or_section_is_caught(html_dir: Path):
    """검사가 실패할 수 있는지: 없는 장, 다른 장의 절, 없는 이름표."""
    fake = [Citation("t", "chapter", "없는 장 이름"), Citation("t", "chapter-section", "포화된 소프트맥스에서는 기울기가 사라집니다", "마스크"),
            Citation("t", "ref", "sec-no-such-label"), Citation("t", "section", "없는 절 이름")]
    assert len(unresolved(fake, html_dir)) == 4
