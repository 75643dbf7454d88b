"""헤드리스 Chromium 으로 빌드된 사이트를 네트워크 없이 열어 봅니다.

Loads every page of the table of contents from a local server in headless Chromium with
every request to another host aborted (as if offline), then checks: no page errors, math
rendered by the local MathJax, Jupyter widgets rendered by the local html-manager with their
font from localhost, and widgets still interactive. Screenshots (desktop 1280 px wide and
phone 390x844) go to ``_build/screenshots/`` for people to look at.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Callable
from urllib.parse import urlparse

import pytest

from conftest import PHONE_VIEWPORT, OfflineBrowser, OfflinePage, read_toc_docnames

pytestmark = pytest.mark.browser

# 알려진 페이지 오류는 없습니다. (sphinx-thebe 0.3.1 이 `const THEBE_JS_URL` 을 두 번 선언하던 오류는
# _ext/thebe_local.py 가 하나만 남겨 고쳤으므로 더는 허용하지 않습니다.)
KNOWN_PAGE_ERRORS: list[re.Pattern[str]] = []
# 사용자가 누를 때만 생기는 실행 관련 요청 (launch buttons); 페이지를 여는 것만으로는 생기면 안 되지만
# 혹시 미리 가져오기(prefetch)가 생겨도 읽기에는 지장이 없으므로 허용합니다.
ALLOWED_EXTERNAL_HOSTS = {"mybinder.org", "colab.research.google.com", "github.com"}
WIDGET_ERROR_TEXT = re.compile(r"Error displaying widget|Failed to load (model|view) class|Could not create", re.I)
WIDGET_STATE = 'script[type="application/vnd.jupyter.widget-state+json"]'

TOC_DOCNAMES = read_toc_docnames()


def screenshot_name(docname: str) -> str:
    return docname.replace("/", "__")


def wait_for_typesetting(page: Any) -> None:
    """MathJax 첫 조판과, 위젯이 shim 으로 요청한 조판이 끝날 때까지 기다립니다."""
    page.evaluate(
        """async () => {
            const mj = window.MathJax;
            if (mj && mj.startup && mj.startup.promise) { await mj.startup.promise; }
        }"""
    )


def wait_for_widgets(page: Any) -> None:
    if page.locator(WIDGET_STATE).count() == 0:
        return
    # html-manager 는 load 이후에 비동기로 그립니다 (renders asynchronously after load).
    page.wait_for_selector(".widget-subarea .jupyter-widgets", timeout=30_000)
    page.wait_for_load_state("networkidle")
    wait_for_typesetting(page)
    page.wait_for_timeout(300)  # shim 이 모아 둔 조판 요청 (queued typeset requests)


def load(open_offline_page: Callable[..., OfflinePage], docname: str, **kwargs: Any) -> OfflinePage:
    probe = open_offline_page(**kwargs)
    response = probe.goto(docname)
    assert response is not None and response.ok, f"{docname}: HTTP {response and response.status}"
    wait_for_typesetting(probe.page)
    wait_for_widgets(probe.page)
    return probe


@pytest.fixture(scope="module")
def desktop_page(offline_browser: OfflineBrowser, screenshot_dir: Path) -> Callable[[str], OfflinePage]:
    """페이지마다 한 번만 열어(1280 px) 화면을 찍고, 여러 테스트가 같이 봅니다 (loaded once per page)."""
    cache: dict[str, OfflinePage] = {}

    def get(docname: str) -> OfflinePage:
        if docname not in cache:
            probe = load(offline_browser.open, docname)
            probe.page.screenshot(path=str(screenshot_dir / f"{screenshot_name(docname)}.png"), full_page=True)
            cache[docname] = probe
        return cache[docname]

    return get


def unexpected_external(probe: OfflinePage) -> list[str]:
    return [u for u in probe.external_requests if (urlparse(u).hostname or "") not in ALLOWED_EXTERNAL_HOSTS]


def unexpected_page_errors(probe: OfflinePage) -> list[str]:
    return [e for e in probe.page_errors if not any(p.search(e) for p in KNOWN_PAGE_ERRORS)]


@pytest.mark.parametrize("docname", TOC_DOCNAMES)
def test_page_works_offline(docname: str, desktop_page: Callable[[str], OfflinePage], screenshot_dir: Path) -> None:
    probe = desktop_page(docname)
    page = probe.page
    assert (screenshot_dir / f"{screenshot_name(docname)}.png").stat().st_size > 5_000

    assert not unexpected_external(probe), f"{docname}: 다른 호스트로 요청함 (external requests): {probe.external_requests}"
    assert not unexpected_page_errors(probe), f"{docname}: 페이지 오류 (page errors): {probe.page_errors}"
    assert not probe.failed_local, f"{docname}: 로컬 자원 실패 (failed local loads): {probe.failed_local}"
    assert page.evaluate("() => document.documentElement.lang") == "ko"
    assert page.evaluate("() => typeof window.__jupyter_widgets_assets_path__") == "string"
    assets_path = page.evaluate("() => window.__jupyter_widgets_assets_path__")
    assert assets_path == probe.base_url + "_static/vendor/html-manager/", assets_path


@pytest.mark.parametrize("docname", TOC_DOCNAMES)
def test_math_is_rendered_by_local_mathjax(docname: str, desktop_page: Callable[[str], OfflinePage]) -> None:
    probe = desktop_page(docname)
    page = probe.page
    n_math = page.locator(".math").count()
    if n_math == 0:
        pytest.skip(f"{docname}: 수식이 없는 페이지 (no math on this page)")
    assert any(p.endswith("/_static/vendor/mathjax/tex-chtml.js") for p in probe.local_responses), (
        f"{docname}: 로컬 MathJax 를 불러오지 않았습니다"
    )
    assert page.locator("mjx-container").count() > 0, f"{docname}: mjx-container 가 없습니다 (MathJax 가 안 돌았음)"
    raw = page.evaluate(
        r"""() => Array.from(document.querySelectorAll('.math'))
              .filter(el => !el.querySelector('mjx-container'))
              .map(el => el.textContent.trim().slice(0, 80))"""
    )
    assert not raw, f"{docname}: 조판되지 않은 수식 (raw TeX left): {raw}"
    leftover = page.evaluate(
        r"""() => Array.from(document.querySelectorAll('.math'))
              .map(el => { const c = el.cloneNode(true);
                           c.querySelectorAll('mjx-container').forEach(m => m.remove());
                           return c.textContent; })
              .filter(t => /\$\$|\\\(|\\\[/.test(t))"""
    )
    assert not leftover, f"{docname}: 남은 TeX 구분자 (leftover delimiters): {leftover}"
    # 글꼴도 로컬에서 (MathJax CHTML fonts come from the site)
    fonts = [p for p in probe.local_responses if "/vendor/mathjax/output/chtml/fonts/" in p]
    assert fonts, f"{docname}: MathJax 글꼴을 불러오지 않았습니다"


@pytest.mark.parametrize("docname", TOC_DOCNAMES)
def test_widgets_render_from_local_html_manager(docname: str, desktop_page: Callable[[str], OfflinePage]) -> None:
    probe = desktop_page(docname)
    page = probe.page
    if page.locator(WIDGET_STATE).count() == 0:
        pytest.skip(f"{docname}: 위젯이 없는 페이지 (no ipywidgets on this page)")

    views = page.evaluate(
        """() => {
            const state = {};
            document.querySelectorAll('script[type="application/vnd.jupyter.widget-state+json"]')
              .forEach(s => Object.assign(state, JSON.parse(s.textContent).state));
            return Array.from(document.querySelectorAll('script[type="application/vnd.jupyter.widget-view+json"]'))
              .map(s => JSON.parse(s.textContent).model_id)
              .map(id => [id, id in state]);
        }"""
    )
    orphans = [model_id for model_id, saved in views if not saved]
    assert not orphans, (
        f"{docname}: 저장된 상태에 없는 위젯 {len(orphans)}개는 빈칸으로 보입니다 (노트북 끝나기 전에 close() 되었나요?)"
        f" / widget views without saved state render as nothing: {orphans}"
    )
    n_rendered = page.locator(".widget-subarea").count()
    assert n_rendered > 0, f"{docname}: 위젯이 하나도 그려지지 않았습니다"
    assert n_rendered == len(views), f"{docname}: 위젯 보기 {len(views)}개 중 {n_rendered}개만 그려졌습니다"
    empty = page.evaluate(
        "() => Array.from(document.querySelectorAll('.widget-subarea')).filter(e => !e.querySelector('.jupyter-widgets')).length"
    )
    assert empty == 0, f"{docname}: 빈 위젯 자리 {empty}개"
    assert page.locator("[class*='widget-']").count() > 0

    texts = page.evaluate("() => Array.from(document.querySelectorAll('.widget-subarea')).map(e => e.innerText)")
    errors = [t for t in texts if WIDGET_ERROR_TEXT.search(t)]
    assert not errors, f"{docname}: html-manager 오류 표시: {errors}"
    assert page.locator(".widget-subarea .jupyter-widgets-error-widget, .widget-subarea .widget-error").count() == 0

    # 위젯 안의 $...$ 는 shim 을 거쳐 MathJax 가 조판해야 합니다 (no raw $...$ left in widgets)
    raw_dollars = [t for t in texts if re.search(r"\$[^$\n]+\$", t)]
    assert not raw_dollars, f"{docname}: 위젯 안에 조판되지 않은 $...$: {raw_dollars}"
    assert page.evaluate("() => !window.MathJax || typeof window.MathJax.Hub.Queue === 'function'")

    # html-manager 의 font-awesome 글꼴: 쓰였다면 localhost 에서 (fonts of html-manager, if used)
    hm_fonts = {p: s for p, s in probe.local_responses.items() if "/_static/vendor/html-manager/" in p
                and re.search(r"\.(woff2?|ttf|eot|svg)$", p)}
    assert all(s == 200 for s in hm_fonts.values()), hm_fonts
    uses_fa = page.locator(".widget-subarea .fa, .widget-subarea [class*='fa-']").count() > 0
    if uses_fa:
        assert hm_fonts, f"{docname}: 위젯이 아이콘을 쓰는데 html-manager 글꼴을 로컬에서 불러오지 않았습니다"
    assert not unexpected_external(probe), probe.external_requests
    assert not probe.failed_local, probe.failed_local


@pytest.mark.parametrize("docname", TOC_DOCNAMES)
def test_phone_screenshot(
    docname: str, open_offline_page: Callable[..., OfflinePage], screenshot_dir: Path
) -> None:
    probe = load(open_offline_page, docname, viewport=PHONE_VIEWPORT, is_mobile=True, has_touch=True)
    path = screenshot_dir / f"{screenshot_name(docname)}__phone.png"
    probe.page.screenshot(path=str(path), full_page=True)
    assert path.stat().st_size > 5_000
    width = probe.page.evaluate("() => document.documentElement.clientWidth")
    assert width == PHONE_VIEWPORT["width"], f"{docname}: 화면 폭 {width}"
    assert not unexpected_page_errors(probe), probe.page_errors
    assert not unexpected_external(probe), probe.external_requests


def _visible_tab_panel(tab: Any) -> str:
    """보이는 패널의 위치와 내용 요약 (글, 또는 그림 위젯이면 그림 주소)."""
    return tab.evaluate(
        """t => Array.from(t.querySelectorAll(':scope > .widget-tab-contents > *'))
                 .map((e, i) => [i, e])
                 .filter(([i, e]) => !e.classList.contains('lm-mod-hidden') && e.offsetParent !== null)
                 .map(([i, e]) => i + ':' + (e.innerText || e.getAttribute('src') || e.outerHTML.length))
                 .join('\\n')"""
    )


def test_widget_tab_is_interactive(open_offline_page: Callable[..., OfflinePage]) -> None:
    """정적 사이트에서도 위젯 탭을 누르면 보이는 패널이 바뀌어야 합니다 (no kernel needed)."""
    for docname in TOC_DOCNAMES:
        probe = load(open_offline_page, docname)
        tabs = probe.page.locator(".widget-tab")
        for i in range(tabs.count()):
            tab = tabs.nth(i)
            items = tab.locator(":scope > .widget-tab-bar .lm-TabBar-tab, :scope > .lm-TabBar .lm-TabBar-tab")
            classes = items.evaluate_all("els => els.map(e => e.className)")
            idle = [j for j, c in enumerate(classes) if "lm-mod-current" not in c]
            if not idle:
                continue
            before = _visible_tab_panel(tab)
            target = items.nth(idle[0])  # 위치로 고정 (fixed by position, not by class)
            label = target.inner_text()
            target.scroll_into_view_if_needed()
            target.click()
            probe.page.wait_for_timeout(200)
            after = _visible_tab_panel(tab)
            assert "lm-mod-current" in (target.get_attribute("class") or ""), f"{docname}: 탭 '{label}' 가 선택되지 않음"
            assert before and after, f"{docname}: 보이는 탭 패널이 없습니다 ({before!r} -> {after!r})"
            assert after != before, f"{docname}: 탭 '{label}' 을 눌러도 보이는 패널이 그대로입니다: {before!r}"
            assert after.startswith(f"{idle[0]}:"), f"{docname}: 탭 {idle[0]} 을 눌렀는데 패널 {after!r} 이 보입니다"
            assert not unexpected_page_errors(probe), probe.page_errors
            return
    pytest.skip("탭 위젯이 있는 페이지가 없습니다 (no widget Tab on any page yet)")
