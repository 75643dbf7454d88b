"""휴대폰(390 px)과 노트북(1280 px)에서 읽는 사람의 화면: 장 목록 단추.

- ≡ 단추: 휴대폰에서는 장 목록(대화상자)이 열리고 장 링크가 보이며 Escape 로 닫힘, 노트북에서는 사이드바가
  숨었다가 다시 보임 (pydata-sphinx-theme issue 2451 / sphinx-book-theme issue 988 의 우회, attn_site/static/js/nav-toggle.js).
- "이 페이지" 단추: 휴대폰에서 페이지 차례가 열림.

- 표 칸: 숫자, 모양 튜플 조각, 어절이 두 줄에 걸치지 않음 (휴대폰과 노트북).
- 휴대폰(390 px)에서 어느 페이지도 옆으로 밀리지 않음 (탐색기를 그린 뒤에도).
- 제목 굵기: h2 가 h3 보다 가볍게 그려지지 않음. 빈 코드 상자가 없고, 긴 코드는 잘리지 않고 옆으로 넘어감.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from conftest import VIEWPORT_OPTIONS, OfflinePage, read_toc_docnames, scroll_to_explorers

pytestmark = pytest.mark.browser

TOC_DOCNAMES = read_toc_docnames()

def _open(open_offline_page: Callable[..., OfflinePage], docname: str, **options: Any) -> OfflinePage:
    probe = open_offline_page(**options)
    response = probe.goto(docname)
    assert response is not None and response.ok, f"{docname}: HTTP {response and response.status}"
    probe.page.wait_for_load_state("load")
    return probe


def _visible_toggle(page: Any, kind: str) -> Any:
    toggles = [t for t in page.query_selector_all(f".{kind}") if t.is_visible()]
    assert toggles, f"보이는 .{kind} 단추가 없습니다"
    return toggles[0]


@pytest.mark.parametrize("docname", TOC_DOCNAMES)
def test_menu_button_opens_the_chapter_list_on_a_phone(
    docname: str, open_offline_page: Callable[..., OfflinePage], screenshot_dir: Path
) -> None:
    page = _open(open_offline_page, docname, **VIEWPORT_OPTIONS["phone"]).page
    dialog = page.locator("#pst-primary-sidebar-modal")
    assert not dialog.is_visible()
    _visible_toggle(page, "primary-toggle").click()
    dialog.wait_for(state="visible", timeout=5000)
    links = dialog.locator("nav.bd-docs-nav a.reference")
    assert links.count() >= len([d for d in TOC_DOCNAMES if d != "intro"]), "장 목록의 링크가 다 보이지 않습니다"
    assert links.first.is_visible()
    if docname == "chapters/03_masks":
        page.screenshot(path=str(screenshot_dir / "phone-menu-open.png"))
    page.keyboard.press("Escape")
    dialog.wait_for(state="hidden", timeout=5000)


@pytest.mark.parametrize("docname", ["intro", "chapters/03_masks", "chapters/appendix/glossary"])
def test_menu_button_hides_and_shows_the_sidebar_on_a_laptop(
    docname: str, open_offline_page: Callable[..., OfflinePage]
) -> None:
    page = _open(open_offline_page, docname, **VIEWPORT_OPTIONS["laptop"]).page
    sidebar = page.locator("#pst-primary-sidebar")
    assert sidebar.is_visible()
    toggle = _visible_toggle(page, "primary-toggle")
    toggle.click()
    sidebar.wait_for(state="hidden", timeout=5000)
    assert toggle.get_attribute("aria-expanded") == "false"
    toggle.click()
    sidebar.wait_for(state="visible", timeout=5000)
    assert toggle.get_attribute("aria-expanded") == "true"
    assert "장 목록" in (toggle.get_attribute("aria-label") or "")


def test_contents_button_opens_the_page_contents_on_a_phone(open_offline_page: Callable[..., OfflinePage]) -> None:
    page = _open(open_offline_page, "chapters/03_masks", **VIEWPORT_OPTIONS["phone"]).page
    dialog = page.locator("#pst-secondary-sidebar-modal")
    _visible_toggle(page, "secondary-toggle").click()
    dialog.wait_for(state="visible", timeout=5000)
    assert dialog.locator("a").count() >= 3


# 표 칸마다, 공백으로 나눈 낱말(숫자, 모양 튜플 조각, 한국어 어절) 하나가 두 줄에 걸치는지 봅니다: 낱말의 글자
# 범위(Range)가 돌려주는 줄 상자들의 윗변이 다르면 가운데에서 끊긴 것입니다.
BROKEN_TOKENS_JS = """() => {
  const out = [];
  for (const cell of document.querySelectorAll('article.bd-article td, article.bd-article th')) {
    if (!cell.checkVisibility()) continue;
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const re = /\\S+/g;
      let m;
      while ((m = re.exec(node.textContent)) !== null) {
        if (m[0].length < 2) continue;
        const range = document.createRange();
        range.setStart(node, m.index);
        range.setEnd(node, m.index + m[0].length);
        const tops = new Set(Array.from(range.getClientRects()).filter(r => r.width > 0).map(r => Math.round(r.top)));
        if (tops.size > 1) out.push(m[0]);
      }
    }
  }
  return out;
}"""


TABLE_SCREENSHOT_PAGE, TABLE_SCREENSHOT_INDEX = "chapters/07_kv_cache_gqa", 4  # 파라미터 수 표 (1,050,624 등)


@pytest.mark.parametrize("viewport", ["phone", "laptop"])
@pytest.mark.parametrize("docname", TOC_DOCNAMES)
def test_table_cells_keep_numbers_and_words_whole(
    docname: str, viewport: str, open_offline_page: Callable[..., OfflinePage], screenshot_dir: Path
) -> None:
    page = _open(open_offline_page, docname, **VIEWPORT_OPTIONS[viewport]).page
    broken = page.evaluate(BROKEN_TOKENS_JS)
    assert not broken, f"{docname} ({viewport}): 표 칸에서 가운데가 끊긴 낱말 {len(broken)}개: {broken[:10]}"
    # 수 하나뿐인 칸은 오른쪽 정렬 (attn_site/korean_ui.py 의 td.attn-num): 자릿수가 세로로 맞아야 비교가 됩니다
    misaligned = page.evaluate("""() => Array.from(document.querySelectorAll('article.bd-article td'))
        .filter(td => /^[-+]?[0-9][0-9,]*([.][0-9]+)?(e[-+]?[0-9]+)?$/.test(td.innerText.trim()))
        .filter(td => getComputedStyle(td).textAlign !== 'right').map(td => td.innerText.trim()).slice(0, 5)""")
    assert not misaligned, f"{docname} ({viewport}): 오른쪽 정렬이 아닌 수 칸: {misaligned}"
    if docname == TABLE_SCREENSHOT_PAGE:
        # 사람이 보는 증거: 숫자가 많은 표(장 07 의 메모리 표) 하나를 이 화면 폭으로 찍어 둡니다
        table = page.locator("article.bd-article table").nth(TABLE_SCREENSHOT_INDEX)
        table.scroll_into_view_if_needed()
        page.wait_for_timeout(300)  # 스크롤한 자리가 그려질 때까지 (바로 찍으면 빈 그림이 나온 적이 있음)
        table.screenshot(path=str(screenshot_dir / f"table-{viewport}.png"))


@pytest.mark.parametrize("docname", TOC_DOCNAMES)
def test_no_page_scrolls_sideways_on_a_phone(docname: str, open_offline_page: Callable[..., OfflinePage]) -> None:
    page = _open(open_offline_page, docname, **VIEWPORT_OPTIONS["phone"]).page
    scroll_to_explorers(page)  # 탐색기도 그려진 뒤에 잽니다 (화면 가까이 와야 그려짐)
    width = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]")
    assert width[0] <= width[1], f"{docname}: 휴대폰에서 페이지가 옆으로 밀립니다 (폭 {width[0]} px, 화면 {width[1]} px)"


def test_h2_is_not_lighter_than_h3(open_offline_page: Callable[..., OfflinePage]) -> None:
    """한국어 글꼴 대부분은 400 과 700 만 있어, 500 은 보통으로 600 은 굵게 그려집니다: 제목은 600 이상, h2 가 h3 보다
    가볍지 않고 크기는 h1 > h2 > h3."""
    page = _open(open_offline_page, "chapters/02_multi_head", **VIEWPORT_OPTIONS["laptop"]).page
    styles = page.evaluate("""() => ['h1', 'h2', 'h3'].map(t => {
        const s = getComputedStyle(document.querySelector('article.bd-article ' + t));
        return [Number(s.fontWeight), parseFloat(s.fontSize)]; })""")
    (w1, s1), (w2, s2), (w3, s3) = styles
    assert min(w1, w2, w3) >= 600 and w2 >= w3 and s1 > s2 > s3, styles


EMPTY_AND_CUT_CODE_JS = """() => {
  const empty = [], cut = [];
  for (const e of document.querySelectorAll('article .highlight pre, article .cell_output')) {
    if (e.checkVisibility({visibilityProperty: true}) && e.textContent.trim() === ''
        && !e.querySelector('img, svg, canvas, table, iframe, .attn-explorer')) empty.push(e.outerHTML.slice(0, 120));
  }
  for (const e of document.querySelectorAll('article pre')) {
    const s = getComputedStyle(e);
    if (e.scrollWidth > e.clientWidth + 1 && !['auto', 'scroll'].includes(s.overflowX)) cut.push(e.textContent.slice(0, 60));
  }
  return {empty, cut};
}"""


@pytest.mark.parametrize("viewport", ["phone", "laptop"])
@pytest.mark.parametrize("docname", TOC_DOCNAMES)
def test_no_empty_code_boxes_and_long_code_scrolls(
    docname: str, viewport: str, open_offline_page: Callable[..., OfflinePage]
) -> None:
    found = _open(open_offline_page, docname, **VIEWPORT_OPTIONS[viewport]).page.evaluate(EMPTY_AND_CUT_CODE_JS)
    assert not found["empty"], f"{docname} ({viewport}): 빈 코드 상자 {found['empty'][:3]}"
    assert not found["cut"], f"{docname} ({viewport}): 옆으로 넘기지 못하고 잘린 코드 {found['cut'][:3]}"
