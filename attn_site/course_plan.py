"""읽는 시간과 강의 계획 (reading time on every page, generated syllabus on the instructors page).

- 모든 페이지의 첫 제목 바로 아래에 "읽는 시간 약 N분"을 넣습니다 (``<p class="reading-time">``). N 은
  ``attn_site/reading_time.py`` 의 어림을 그 페이지의 원본에 적용한 값입니다. 노트북은 빌드가 실행한 것
  (jupyter-cache ``_build/.jupyter_cache`` 의 출력을 합친 것: 그림, 표, 출력 문장을 셈), .md 페이지는 원본 파일입니다.
- ``{syllabus}`` 지시문 (인자: ``times``, ``semester``, ``workshop``)이 장별 시간 표와 두 강의 계획을 그립니다
  (``attn_site/syllabus.py``). 다른 페이지의 시간이 모두 정해진 뒤(doctree-resolved) 그리고, 이 지시문이 든 페이지는
  빌드마다 다시 읽어 다른 장이 바뀌어도 낡지 않습니다.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

from . import reading_time, syllabus  # 같은 패키지의 순수 함수 모듈 (pure-function modules of this package)

logger = logging.getLogger(__name__)
KINDS = ("times", "semester", "workshop")


class syllabus_placeholder(nodes.General, nodes.Element):
    """doctree-resolved 에서 계획으로 바뀌는 자리."""


def cache_dir(app: Sphinx) -> Path:
    """myst-nb 와 같은 jupyter-cache 폴더 (설정이 비면 ``<outdir>/../.jupyter_cache``)."""
    configured = getattr(app.env, "mystnb_config", None)
    path = getattr(configured, "execution_cache_path", "") if configured is not None else ""
    return Path(path) if path else Path(app.outdir).parent / ".jupyter_cache"


def on_doctree_read(app: Sphinx, doctree: nodes.document) -> None:
    env = app.env
    docname = env.docname
    source = Path(env.doc2path(docname))
    try:
        est = reading_time.estimate_source(source, cache_dir(app))
    except KeyError:
        logger.warning("읽는 시간: jupyter-cache 에 %s 의 실행 기록이 없습니다 (reading time needs the executed "
                       "notebook)", source, location=docname)
        return
    env.course_reading_times[docname] = est
    section = next(iter(doctree.findall(nodes.section)), None)
    if section is None or not section.children or not isinstance(section[0], nodes.title):
        logger.warning("읽는 시간: 첫 제목이 없어 넣을 자리가 없습니다", location=docname)
        return
    para = nodes.paragraph("", reading_time.badge_text(est), classes=["reading-time"])
    section.insert(1, para)


def on_purge(app: Sphinx, env: BuildEnvironment, docname: str) -> None:
    env.course_reading_times.pop(docname, None)
    env.course_syllabus_docs.discard(docname)


def on_merge(app: Sphinx, env: BuildEnvironment, docnames: set[str], other: BuildEnvironment) -> None:
    for d in docnames:
        if d in other.course_reading_times:
            env.course_reading_times[d] = other.course_reading_times[d]
        if d in other.course_syllabus_docs:
            env.course_syllabus_docs.add(d)


def on_builder_inited(app: Sphinx) -> None:
    if not hasattr(app.env, "course_reading_times"):
        app.env.course_reading_times = {}
    if not hasattr(app.env, "course_syllabus_docs"):
        app.env.course_syllabus_docs = set()


def on_get_outdated(app: Sphinx, env: BuildEnvironment, added: set[str], changed: set[str],
                    removed: set[str]) -> list[str]:
    """계획이 든 페이지는 늘 다시 읽습니다 (다른 장의 시간이나 과제가 바뀌었을 수 있음)."""
    return sorted(getattr(env, "course_syllabus_docs", set()) & set(env.found_docs))


class SyllabusDirective(SphinxDirective):
    required_arguments = 1
    has_content = False
    option_spec: dict[str, Any] = {}

    def run(self) -> list[nodes.Node]:
        kind = self.arguments[0].strip()
        if kind not in KINDS:
            raise self.error(f"syllabus 인자는 {KINDS} 가운데 하나여야 합니다: {kind!r}")
        self.env.course_syllabus_docs.add(self.env.docname)
        root = Path(self.env.srcdir)
        self.env.note_dependency(str(root / "_toc.yml"))
        self.env.note_dependency(str(root / "attn_course" / "practice" / "public_spec.json"))
        self.env.note_dependency(str(root / "chapters" / "11_practice.ipynb"))
        return [syllabus_placeholder(kind=kind)]


# ---------------------------------------------------------------------------------------
# 계획 그리기
# ---------------------------------------------------------------------------------------


def build_book(app: Sphinx) -> syllabus.Book:
    root = Path(app.env.srcdir)
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    times = app.env.course_reading_times
    pages = []
    for d in syllabus.scheduled_docnames(toc):
        if d not in times:
            raise ValueError(f"강의 계획: {d} 의 읽는 시간이 없습니다.")
        title = app.env.titles[d].astext() if d in app.env.titles else d
        pages.append((d, title, times[d]))
    label_home: dict[str, int] = {}
    for d in app.env.found_docs:
        n = syllabus.chapter_number(d)
        if n is not None:
            for label in syllabus.page_labels(Path(app.env.doc2path(d))):
                label_home[label] = n
    practice, section_of = syllabus.load_practice(root / f"{syllabus.PRACTICE_DOC}.ipynb", label_home)
    questions = syllabus.load_questions(root / "attn_course" / "practice" / "public_spec.json")
    return syllabus.Book(pages, questions, practice, times.get(syllabus.PRACTICE_DOC), section_of)


def _para(*children: nodes.Node, classes: list[str] | None = None) -> nodes.paragraph:
    p = nodes.paragraph("", "", classes=classes or [])
    p.extend(children)
    return p


def _link(app: Sphinx, fromdoc: str, todoc: str, text: str, anchor: str = "") -> nodes.reference:
    uri = app.builder.get_relative_uri(fromdoc, todoc) + (f"#{anchor}" if anchor else "")
    return nodes.reference("", text, refuri=uri, internal=True)


def _part_nodes(app: Sphinx, fromdoc: str, part: syllabus.Part) -> list[nodes.Node]:
    kind = "심화" if part.deep else "핵심"
    return [
        _link(app, fromdoc, part.docname, part.title),
        nodes.Text(f" {kind} {part.range_text} "),
        nodes.inline("", syllabus.minutes_text(part.minutes), classes=["syllabus-part-minutes"]),
    ]


def _joined(items: list[list[nodes.Node]], sep: str = " · ") -> list[nodes.Node]:
    out: list[nodes.Node] = []
    for i, item in enumerate(items):
        if i:
            out.append(nodes.Text(sep))
        out.extend(item)
    return out


def render_plan(app: Sphinx, fromdoc: str, plan: syllabus.Plan, kind: str) -> nodes.Node:
    box = nodes.container(classes=["syllabus", f"syllabus-{kind}"])
    lst = nodes.bullet_list()
    for s in plan.sessions:
        item = nodes.list_item(classes=["syllabus-session"])
        item += _para(nodes.strong("", f"{s.number}{plan.unit}"), nodes.Text(" · 읽기 "),
                      nodes.inline("", syllabus.minutes_text(s.minutes), classes=["syllabus-minutes"]))
        sub = nodes.bullet_list()
        rows: list[tuple[str, list[nodes.Node]]] = [
            ("읽을 곳", _joined([_part_nodes(app, fromdoc, p) for p in s.parts]))]
        if s.extra:
            rows.append(("더 읽을거리(심화, 시간에 넣지 않음)", _joined([_part_nodes(app, fromdoc, p) for p in s.extra])))
        if s.practice:
            label = f"연습 문제 (약 {syllabus.minutes_text(s.practice_minutes)})" if s.practice_minutes else "연습 문제"
            rows.append((label, _joined([[_link(app, fromdoc, syllabus.PRACTICE_DOC, p.title, p.label)]
                                         for p in s.practice])))
        if s.questions:
            rows.append(("채점 문제", _joined([[nodes.inline("", f"{q.name} ({q.points:g}점)", classes=["syllabus-question"])]
                                               for q in s.questions])))
        for name, content in rows:
            li = nodes.list_item()
            li += _para(nodes.Text(f"{name}: "), *content)
            sub += li
        item += sub
        lst += item
    box += lst
    return box


def render_times(app: Sphinx, fromdoc: str, book: syllabus.Book) -> nodes.Node:
    """장별 읽는 시간 표: 페이지, 핵심, 심화, 전체, 연습 문제(연습 페이지에서 그 장을 다루는 절의 시간)."""
    header = ["페이지", "핵심", "심화", "전체", "연습 문제"]
    table = nodes.table(classes=["syllabus-times"])
    group = nodes.tgroup(cols=len(header))
    table += group
    for _ in header:
        group += nodes.colspec(colwidth=1)
    thead = nodes.thead()
    row = nodes.row()
    for h in header:
        row += nodes.entry("", nodes.paragraph("", h))
    thead += row
    group += thead
    tbody = nodes.tbody()
    for d, title, est in book.pages:
        n = syllabus.chapter_number(d)
        practice = ""
        if n in book.practice_section_of and book.practice_estimate is not None:
            practice = syllabus.minutes_text(book.practice_estimate.sections[book.practice_section_of[n]].minutes)
        cells: list[nodes.Node] = [
            _para(_link(app, fromdoc, d, title)),
            nodes.paragraph("", syllabus.minutes_text(est.core_minutes)),
            nodes.paragraph("", syllabus.minutes_text(est.deep_minutes) if est.deep_minutes else "-"),
            nodes.paragraph("", syllabus.minutes_text(est.total_minutes)),
            nodes.paragraph("", practice or "-"),
        ]
        row = nodes.row(classes=["syllabus-times-row"])
        for c in cells:
            row += nodes.entry("", c)
        tbody += row
    group += tbody
    return table


def on_doctree_resolved(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    placeholders = list(doctree.findall(syllabus_placeholder))
    if not placeholders:
        return
    try:
        book = build_book(app)
    except (ValueError, KeyError, OSError) as exc:
        logger.warning("강의 계획을 만들지 못했습니다: %s (syllabus failed)", exc, location=docname)
        for node in placeholders:
            node.replace_self([])
        return
    for node in placeholders:
        kind = node["kind"]
        if kind == "times":
            new = render_times(app, docname, book)
        elif kind == "semester":
            new = render_plan(app, docname, syllabus.semester_plan(book), kind)
        else:
            new = render_plan(app, docname, syllabus.workshop_plan(book), kind)
        node.replace_self(new)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_node(syllabus_placeholder)
    app.add_directive("syllabus", SyllabusDirective)
    app.connect("builder-inited", on_builder_inited)
    app.connect("env-purge-doc", on_purge)
    app.connect("env-merge-info", on_merge)
    app.connect("env-get-outdated", on_get_outdated)
    app.connect("doctree-read", on_doctree_read)
    app.connect("doctree-resolved", on_doctree_resolved)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True, "env_version": 2}
