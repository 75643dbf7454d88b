"""장마다의 학습 장치: 연습 문제마다 접힌 풀이, 본문 안의 "예상해 보기 -> 예상과 비교하기".

원본(노트북)의 구조를 보고, 빌드된 페이지에서 풀이와 답이 정말 접혀(dropdown) 나오는지 확인합니다.
풀이의 코드 셀은 책을 빌드할 때 실행되므로(실패하면 빌드 실패), 여기서는 풀이에 코드가 있는지만 봅니다.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from conftest import read_toc_docnames

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = [d for d in read_toc_docnames() if re.match(r"chapters/(0[1-9]|10)_", d)]  # 본문 장 (11장 연습은 뺌)
ALL_NOTEBOOKS = [d for d in read_toc_docnames() if (ROOT / f"{d}.ipynb").is_file()]
EXERCISE_RE = re.compile(r"^(`{3,}|:{3,})\{exercise\}[^\n]*\n(?::[^\n]*\n)*?:label:\s*(\S+)", re.M)


def cells(doc: str) -> list[dict]:
    return json.loads((ROOT / f"{doc}.ipynb").read_text(encoding="utf-8"))["cells"]


def src(cell: dict) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def exercises(doc: str) -> list[tuple[int, str, str]]:
    """(셀 번호, 이름표, 여는 펜스)"""
    found = []
    for i, cell in enumerate(cells(doc)):
        if cell["cell_type"] == "markdown":
            found += [(i, m.group(2), m.group(1)) for m in EXERCISE_RE.finditer(src(cell))]
    return found


def test_the_seven_chapters_are_checked():
    assert [d for d in CHAPTERS if re.match(r"chapters/0[1-7]_", d)] == CHAPTERS[:7] and len(CHAPTERS[:7]) == 7, CHAPTERS
    assert "chapters/10_blockwise" in CHAPTERS  # 이슈 29의 새 장도 같은 검사를 받음


@pytest.mark.parametrize("doc", CHAPTERS)
def test_every_exercise_has_a_collapsed_solution_right_after_it(doc):
    nb = cells(doc)
    found = exercises(doc)
    assert found, f"{doc}: 연습 문제(exercise 지시문)가 없습니다"
    assert not any(re.search(r"^#+\s*연습 \d", src(c), re.M) for c in nb if c["cell_type"] == "markdown"), (
        f"{doc}: 제목으로 쓴 옛 연습 문제가 남아 있습니다 (exercise 지시문으로 바꾸세요)")
    for i, label, fence in found:
        start = next((j for j in range(i + 1, len(nb)) if f"{{solution-start}} {label}" in src(nb[j])), None)
        assert start is not None, f"{doc}: 연습 {label}의 풀이(solution-start)가 없습니다"
        assert ":class: dropdown" in src(nb[start]), f"{doc}: 연습 {label}의 풀이가 접혀 있지 않습니다"
        end = next((j for j in range(start + 1, len(nb)) if "{solution-end}" in src(nb[j])), None)
        assert end is not None and end > start + 1, f"{doc}: 연습 {label}의 풀이가 비었거나 solution-end가 없습니다"
        between = [i2 for i2, _, _ in found if start < i2 < end]
        assert not between, f"{doc}: 연습 {label}의 풀이 안에 다른 연습이 있습니다"
        body = src(nb[i])
        if "```python" in body:
            assert len(fence) >= 4, f"{doc}: 코드 블록을 품은 연습 {label}은 바깥 펜스가 ```` 네 개여야 합니다"
            solution_code = [c for c in nb[start + 1:end] if c["cell_type"] == "code" and src(c).strip()]
            assert solution_code, f"{doc}: 코드를 쓰라는 연습 {label}의 풀이에 실행되는 코드 셀이 없습니다"


@pytest.mark.parametrize("doc", ALL_NOTEBOOKS)
def test_exercise_titles_are_plain_text(doc):
    """sphinx-exercise 1.2 는 제목에 인라인 코드가 있으면 풀이의 제목을 풀지 못하고 'undefined label'
    경고를 엉뚱한 페이지 이름으로 냅니다. 제목은 글자로만 씁니다."""
    for cell in cells(doc):
        for m in re.finditer(r"\{exercise\}([^\n]*)", src(cell)):
            assert "`" not in m.group(1) and "$" not in m.group(1), f"{doc}: 연습 제목 {m.group(1)!r}"


def test_at_least_fifteen_chapter_exercises():
    total = sum(len(exercises(doc)) for doc in CHAPTERS)
    assert total >= 15, total


@pytest.mark.parametrize("doc", ALL_NOTEBOOKS)
def test_exercise_fences_do_not_leave_an_empty_code_box(doc):
    for _, label, fence in exercises(doc):
        body = next(src(c) for c in cells(doc) if f":label: {label}" in src(c))
        if "```python" in body:
            assert len(fence) >= 4, f"{doc}: 연습 {label}의 바깥 펜스가 짧아 안쪽 ``` 가 지시문을 닫습니다"


@pytest.mark.parametrize("doc", CHAPTERS)
def test_each_chapter_has_a_predict_then_check_moment(doc):
    nb = cells(doc)
    asks = [i for i, c in enumerate(nb) if c["cell_type"] == "markdown" and "{admonition} 예상해 보기" in src(c)]
    assert asks, f"{doc}: '예상해 보기'가 없습니다"
    ok = False
    for i in asks:
        code = next((j for j in range(i + 1, len(nb)) if nb[j]["cell_type"] == "code"), None)
        answer = next((j for j in range(i + 1, len(nb)) if "{admonition} 예상과 비교하기" in src(nb[j])), None)
        if code is not None and answer is not None and code < answer and ":class: dropdown" in src(nb[answer]):
            ok = True
    assert ok, f"{doc}: '예상해 보기' 다음에 답을 주는 코드 셀과 접힌 '예상과 비교하기'가 차례로 있어야 합니다"


@pytest.mark.site
@pytest.mark.parametrize("doc", CHAPTERS)
def test_built_pages_show_solutions_and_answers_collapsed(html_dir, doc):
    html = (html_dir / f"{doc}.html").read_text(encoding="utf-8")
    n = len(exercises(doc))
    assert len(re.findall(r'class="exercise admonition"', html)) == n
    assert len(re.findall(r'class="solution dropdown admonition"', html)) == n
    assert re.search(r'<div class="(?=[^"]*\bdropdown\b)(?=[^"]*\badmonition\b)[^"]*">\s*'
                     r'<p class="admonition-title">예상과 비교하기', html), f"{doc}: 접힌 '예상과 비교하기'가 없습니다"
