"""강사용 안내의 강의 계획 (이슈 26): 빌드가 목차, 읽는 시간, 과제 명세, 연습 페이지에서 만든 것이 그 재료와 맞는지.

- 단위 테스트: 나누기(_partition, _apportion)와 두 계획의 규칙을 작은 책으로.
- 사이트 테스트: 빌드된 ``chapters/appendix/instructors.html`` 의 장별 시간 표와 두 계획을, 같은 함수를 파일
  (노트북은 빌드가 실행한 것: ``_build/.jupyter_cache`` 의 출력을 합침)에 적용해 다시 만든 계획과 맞춰 봅니다. 목차의 장이 모두
  나오는지, 회마다의 분이 어림 함수의 값인지, 채점 문제의 이름이 과제 명세에 있고 계획마다 한 번씩 나오는지,
  연습 문제 링크가 연습 페이지의 문제를 가리키는지, 페이지에 적힌 공식이 코드의 상수와 같은지.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from attn_site import reading_time as rt
from attn_site import syllabus as S
from conftest import ROOT, read_toc_docnames

PUBLIC_SPEC = ROOT / "attn_course" / "practice" / "public_spec.json"
INSTRUCTORS = "chapters/appendix/instructors"


# ---------------------------------------------------------------------------------------
# 단위 테스트
# ---------------------------------------------------------------------------------------


def test_partition_keeps_order_and_balances():
    assert S._partition([10, 10, 10, 10], 2) == [(0, 1), (2, 3)]
    assert S._partition([30, 5, 5, 5, 5, 30], 3) == [(0, 0), (1, 4), (5, 5)]
    assert S._partition([1, 2, 3], 5) == [(0, 0), (1, 1), (2, 2)]  # 항목보다 많이 나눌 수는 없음
    # 장 경계(2 앞)에서 끊는 것을 좋아함: 9+9 | 10 이 아니라 경계에서
    assert S._partition([9, 9, 10], 2, breaks={2}) == [(0, 1), (2, 2)]


def test_apportion_gives_every_chapter_a_week():
    counts = S._apportion([100, 10, 10, 200], 14)
    assert sum(counts) == 14 and min(counts) >= 1 and counts[3] > counts[0] > counts[1]
    with pytest.raises(ValueError):
        S._apportion([1, 1, 1], 2)


def _est(*sections: tuple[str, bool, int]) -> rt.Estimate:
    return rt.Estimate([rt.Section(t, d, rt.Tally(chars=int(m * rt.CHARS_PER_MINUTE))) for t, d, m in sections])


def _toy_book() -> S.Book:
    pages = [
        ("intro", "머리말", _est(("", False, 10))),
        ("chapters/01_a", "하나", _est(("", False, 20), ("가", False, 20))),
        ("chapters/02_b", "둘", _est(("", False, 30), ("나", False, 30), ("심화: 다", True, 40))),
        ("chapters/03_c", "셋", _est(("", False, 25), ("라", False, 25))),
    ]
    questions = [S.Question("q1_1", 2, 1), S.Question("q2_1", 3, 2), S.Question("q3_1", 1, 3), S.Question("q3_2", 1, 3)]
    practice = [S.Practice("ex-a", "문제 가", 1), S.Practice("ex-b", "문제 나", 2)]
    return S.Book(pages, questions, practice)


def test_semester_keeps_chapters_apart_and_attaches_questions_where_a_chapter_ends():
    plan = S.semester_plan(_toy_book(), weeks=6)
    assert len(plan.sessions) == 6
    for s in plan.sessions:
        chapters = {S.chapter_number(p.docname) for p in s.parts} - {None}
        assert len(chapters) == 1, f"한 주가 두 장에 걸침: {s}"
    assert plan.sessions[0].parts[0].docname == "intro"
    deep = [p for s in plan.sessions for p in s.parts if p.deep]
    assert deep and all(p.docname == "chapters/02_b" for p in deep)
    total = sum(s.minutes for s in plan.sessions)
    assert total == pytest.approx(sum(e.total_minutes for _, _, e in _toy_book().pages))
    where = {q.name: s.number for s in plan.sessions for q in s.questions}
    last_of = {n: max(s.number for s in plan.sessions for p in s.parts if S.chapter_number(p.docname) == n)
               for n in (1, 2, 3)}
    assert where == {"q1_1": last_of[1], "q2_1": last_of[2], "q3_1": last_of[3], "q3_2": last_of[3]}


def test_workshop_schedules_core_only_and_lists_deep_as_extra():
    book = _toy_book()
    plan = S.workshop_plan(book, n=3)
    assert len(plan.sessions) == 3
    assert not any(p.deep for s in plan.sessions for p in s.parts)
    extra = [p for s in plan.sessions for p in s.extra]
    assert [(p.docname, p.deep) for p in extra] == [("chapters/02_b", True)]
    assert sum(s.minutes for s in plan.sessions) == pytest.approx(sum(e.core_minutes for _, _, e in book.pages))
    assert sorted(q.name for s in plan.sessions for q in s.questions) == ["q1_1", "q2_1", "q3_1", "q3_2"]


def test_range_text():
    part = S.Part("d", "t", False, 1, 2, 4, ("", "가", "나", "다"), 10)
    assert part.range_text == "'가'부터 '나'까지"
    assert S.Part("d", "t", False, 0, 3, 4, ("", "가", "나", "다"), 1).range_text == "전체"
    assert S.Part("d", "t", False, 0, 1, 4, ("", "가", "나", "다"), 1).range_text == "처음부터 '가'까지"
    assert S.Part("d", "t", False, 2, 3, 4, ("", "가", "$d_k$ 나", "다"), 1).range_text == "'d_k 나'부터 끝까지"
    # 심화 부분은 앞에 '심화'라고 적으므로 제목의 '심화:' 를 되풀이하지 않습니다 (핵심 부분의 제목은 그대로).
    deep = S.Part("d", "t", True, 2, 3, 4, ("", "가", "심화: μP와 QK-norm", "심화: 다"), 1)
    assert deep.range_text == "'μP와 QK-norm'부터 끝까지"
    assert S.Part("d", "t", True, 1, 2, 4, ("", "가", "심화: $d_k$ 나", "다"), 1).range_text == "'가'부터 'd_k 나'까지"
    assert S.Part("d", "t", False, 2, 2, 4, ("", "가", "심화: 나", "다"), 1).range_text == "'심화: 나' 절"
    assert S.Part("d", "t", True, 2, 2, 4, ("", "가", "심화 연습 문제", "다"), 1).range_text == "'연습 문제' 절"
    assert S.Part("d", "t", True, 2, 2, 4, ("", "가", "심화", "다"), 1).range_text == "'심화' 절"


def test_questions_map_to_chapters_by_name(tmp_path: Path):
    qs = S.load_questions(PUBLIC_SPEC)
    assert qs and all(q.chapter == int(q.name[1:].split("_")[0]) for q in qs)
    assert {q.chapter for q in qs} >= {8, 10}, "두 자리 장 번호(q10_1)도 장으로 읽어야 합니다"
    bad = tmp_path / "spec.json"
    bad.write_text(json.dumps({"attention_hw": {"questions": [{"name": "extra", "points": 1}]}}), encoding="utf-8")
    with pytest.raises(ValueError, match="q<장>_<번호>"):
        S.load_questions(bad)


def test_practice_sections_map_to_their_chapters():
    book = S.book_from_files(ROOT)
    by_chapter = {}
    for p in book.practice:
        by_chapter.setdefault(p.chapter, []).append(p.label)
    chapters = [S.chapter_number(d) for d, _, _ in book.pages if S.chapter_number(d)]
    assert sorted(by_chapter) == chapters, by_chapter
    assert all(len(v) >= 2 for v in by_chapter.values()), by_chapter
    assert sorted(book.practice_section_of) == chapters


# ---------------------------------------------------------------------------------------
# 빌드된 사이트
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def book(html_dir: Path) -> S.Book:
    return S.book_from_files(ROOT, html_dir.parent / ".jupyter_cache")


@pytest.fixture(scope="module")
def page(html_dir: Path) -> BeautifulSoup:
    return BeautifulSoup((html_dir / f"{INSTRUCTORS}.html").read_text(encoding="utf-8"), "html.parser")


def _doc_of(href: str) -> str:
    """instructors.html 에서의 상대 링크 -> 문서 이름."""
    path = href.split("#")[0]
    parts = ["chapters", "appendix"]
    for piece in path.split("/"):
        if piece == "..":
            parts.pop()
        elif piece not in ("", "."):
            parts.append(piece)
    return re.sub(r"\.html$", "", "/".join(parts))


def test_every_toc_chapter_is_scheduled(book: S.Book):
    toc = read_toc_docnames()
    chapters = [d for d in toc if re.match(r"chapters/\d\d_", d) and d != S.PRACTICE_DOC]
    assert [d for d, _, _ in book.pages] == ["intro", *chapters]
    for plan in (S.semester_plan(book), S.workshop_plan(book)):
        seen = {p.docname for s in plan.sessions for p in s.parts}
        assert seen == {"intro", *chapters}, plan.name


@pytest.mark.parametrize("kind", ["semester", "workshop"])
def test_the_built_plan_matches_the_estimates(page: BeautifulSoup, book: S.Book, kind: str):
    plan = S.semester_plan(book) if kind == "semester" else S.workshop_plan(book)
    box = page.select_one(f"div.syllabus-{kind}")
    assert box is not None, f"강사용 안내에 {kind} 계획이 없습니다"
    items = box.select("li.syllabus-session")
    assert len(items) == len(plan.sessions) == (S.SEMESTER_WEEKS if kind == "semester" else S.WORKSHOP_SESSIONS)
    for li, s in zip(items, plan.sessions):
        assert li.select_one(".syllabus-minutes").get_text() == S.minutes_text(s.minutes)
        reading = li.select("li")[0]
        assert [_doc_of(a["href"]) for a in reading.select("a")] == [p.docname for p in s.parts]
        assert [x.get_text() for x in reading.select(".syllabus-part-minutes")] == [S.minutes_text(p.minutes) for p in s.parts]
        assert [q.get_text().split()[0] for q in li.select(".syllabus-question")] == [q.name for q in s.questions]
        practice = [a for a in li.select("a") if _doc_of(a["href"]) == S.PRACTICE_DOC]
        assert [a["href"].split("#")[1] for a in practice] == [p.label for p in s.practice]


@pytest.mark.parametrize("kind", ["semester", "workshop"])
def test_every_graded_question_appears_once_and_exists(page: BeautifulSoup, kind: str):
    spec = {q["name"]: q["points"] for q in json.loads(PUBLIC_SPEC.read_text(encoding="utf-8"))["attention_hw"]["questions"]}
    shown = [q.get_text() for q in page.select(f"div.syllabus-{kind} .syllabus-question")]
    names = [t.split()[0] for t in shown]
    assert sorted(names) == sorted(spec), "계획의 채점 문제가 과제 명세와 다릅니다"
    for text in shown:
        name, points = re.fullmatch(r"(q\d+_\d+) \(([\d.]+)점\)", text).groups()
        assert float(points) == spec[name]


def test_practice_links_point_at_problems(page: BeautifulSoup, html_dir: Path):
    practice_html = (html_dir / f"{S.PRACTICE_DOC}.html").read_text(encoding="utf-8")
    anchors = {a["href"].split("#")[1] for a in page.select("div.syllabus a") if "#" in a["href"]}
    assert len(anchors) >= 14, anchors
    missing = [a for a in anchors if f'id="{a}"' not in practice_html]
    assert not missing, f"연습 페이지에 없는 문제: {missing}"


def test_times_table_matches_the_estimator(page: BeautifulSoup, book: S.Book):
    rows = page.select("table.syllabus-times tbody tr")
    assert len(rows) == len(book.pages)
    for tr, (d, _, est) in zip(rows, book.pages):
        cells = [td.get_text(strip=True) for td in tr.select("td")]
        assert _doc_of(tr.select_one("a")["href"]) == d
        assert cells[1] == S.minutes_text(est.core_minutes)
        assert cells[3] == S.minutes_text(est.total_minutes)


def test_the_page_states_the_formula_in_use(page: BeautifulSoup):
    text = page.get_text(" ")
    formula = (f"분 = 본문 글자 수 ÷ {rt.CHARS_PER_MINUTE:g} + {rt.CODE_MINUTES:g} × 코드 셀 + "
               f"{rt.VISUAL_MINUTES:g} × (그림 + 표 + 블록 수식)")
    assert rt.VISUAL_MINUTES == rt.EQUATION_MINUTES, "페이지의 공식은 그림·표·블록 수식을 같은 분으로 적습니다"
    assert formula in re.sub(r"\s+", " ", text), f"강사용 안내의 공식이 코드의 상수와 다릅니다: {formula}"
