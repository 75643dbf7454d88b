"""헤드리스 Chromium 으로 빌드된 사이트를 네트워크 없이 열어 봅니다.

Loads every page of the table of contents from a local server in headless Chromium with
every request to another host aborted (as if offline), then checks per page:

- no page errors and no console errors except the exact allowlist in ``conftest.py``
  (``ALLOWED_BROWSER_MESSAGES``; a listed message that never shows up fails the last test);
- no request leaves 127.0.0.1 while a page loads (launch buttons only use the network on click);
- math rendered by the local MathJax; Jupyter widgets rendered by the local html-manager;
- Hangul drawn with a Korean font (Chromium's own report of the platform fonts it used);
- axe-core (from npm, injected from ``node_modules``): no "serious"/"critical" violation inside
  the article, and in the theme's chrome only the exact (rule, selector) pairs listed below;
- keyboard: every control in the article can take focus; widget tabs and hidden-cell toggles
  work with keys.

Screenshots (desktop 1280 px wide and phone 390x844) and axe reports go to ``_build/screenshots/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import pytest

from conftest import (
    ALLOWED_BROWSER_MESSAGES,
    PHONE_VIEWPORT,
    ROOT,
    SEEN_ALLOWED_MESSAGES,
    OfflineBrowser,
    OfflinePage,
    read_toc_docnames,
    unexpected_messages,
)

pytestmark = pytest.mark.browser

AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
ARTICLE = "article.bd-article"
#: axe 가 테마의 머리글/옆 막대(본문 밖)에서 찾은 serious/critical 위반 가운데 우리가 고칠 수 없는 것:
#: (규칙 id, axe 가 준 선택자) -> 까닭. 지금은 비어 있습니다: 검색 단추와 색 모드 단추의 이름 문제는
#: _templates/ 의 덮어쓴 템플릿으로 고쳤습니다. 본문 안의 위반은 어떤 것도 허용하지 않습니다.
#: Theme-chrome violations we cannot fix, by exact rule id and selector (none at present).
CHROME_AXE_ALLOWLIST: dict[tuple[str, str], str] = {}
SEEN_CHROME_AXE: set[tuple[str, str]] = set()
#: 한글 글리프가 있는 글꼴 (Chromium 이 실제로 쓴 플랫폼 글꼴 이름으로 판정)
KOREAN_FONT = re.compile(r"Nanum|나눔|Noto Sans CJK|Noto Serif CJK|Noto Sans KR|Apple SD Gothic|Malgun|맑은|"
                         r"UnDotum|Baekmuk|Source Han Sans", re.I)
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


@pytest.mark.parametrize("docname", TOC_DOCNAMES)
def test_page_works_offline(docname: str, desktop_page: Callable[[str], OfflinePage], screenshot_dir: Path) -> None:
    probe = desktop_page(docname)
    page = probe.page
    assert (screenshot_dir / f"{screenshot_name(docname)}.png").stat().st_size > 5_000

    assert not probe.external_requests, f"{docname}: 다른 호스트로 요청함 (external requests): {probe.external_requests}"
    unexpected = unexpected_messages(probe)
    assert not unexpected, f"{docname}: 페이지/콘솔 오류 (page or console errors): {unexpected}"
    assert not probe.failed_local, f"{docname}: 로컬 자원 실패 (failed local loads): {probe.failed_local}"
    assert page.evaluate("() => document.documentElement.lang") == "ko"
    assert page.evaluate("() => typeof window.__jupyter_widgets_assets_path__") == "string"
    assets_path = page.evaluate("() => window.__jupyter_widgets_assets_path__")
    assert assets_path == probe.base_url + "_static/vendor/html-manager/", assets_path


@pytest.mark.parametrize("docname", TOC_DOCNAMES)
def test_math_is_drawn_at_build_time(docname: str, desktop_page: Callable[[str], OfflinePage]) -> None:
    """수식은 빌드 때 그린 SVG 입니다 (attn_site/math_svg.py): MathJax 도 그 글꼴도 받지 않고, 날 TeX 이 없습니다."""
    probe = desktop_page(docname)
    page = probe.page
    n_math = page.locator(".math").count()
    if n_math == 0:
        pytest.skip(f"{docname}: 수식이 없는 페이지 (no math on this page)")
    loaded = [p for p in probe.local_responses if "/_static/vendor/mathjax/" in p]
    assert not loaded, f"{docname}: 수식은 SVG 인데 MathJax 를 받았습니다: {loaded[:3]}"
    raw = page.evaluate(
        r"""() => Array.from(document.querySelectorAll('.math'))
              .filter(el => !el.querySelector('mjx-container[jax="SVG"] > svg'))
              .map(el => el.textContent.trim().slice(0, 80))"""
    )
    assert not raw, f"{docname}: SVG 로 그리지 않은 수식 (raw TeX left): {raw}"
    leftover = page.evaluate(
        r"""() => Array.from(document.querySelectorAll('.math'))
              .map(el => { const c = el.cloneNode(true);
                           c.querySelectorAll('mjx-container').forEach(m => m.remove());
                           return c.textContent; })
              .filter(t => /\$\$|\\\(|\\\[/.test(t))"""
    )
    assert not leftover, f"{docname}: 남은 TeX 구분자 (leftover delimiters): {leftover}"
    # 글리프는 페이지의 캐시를 가리키고 실제로 그려짐 (every <use> resolves; formulas have a size)
    broken = page.evaluate(
        """() => Array.from(document.querySelectorAll('mjx-container use'))
              .map(u => u.getAttribute('xlink:href') || u.getAttribute('href'))
              .filter(h => !document.getElementById(h.slice(1)))"""
    )
    assert not broken, f"{docname}: 글리프 정의가 없는 수식 {len(broken)}곳: {broken[:5]}"
    sizes = page.evaluate(
        """() => Array.from(document.querySelectorAll('.math mjx-container > svg'))
              .filter(s => s.getClientRects().length)
              .map(s => s.getBoundingClientRect().height)"""
    )
    assert sizes and min(sizes) > 4, f"{docname}: 크기가 없는 수식 SVG: {min(sizes) if sizes else None}"
    # 화면 낭독기는 그림(SVG)이 아니라 한국어 읽기를 듣습니다 (role="img" + aria-label, SRE ko 규칙).
    # 읽기에 TeX 명령(\\frac)이나 한 글자씩 흩어진 한글이 남으면 안 됩니다.
    unspoken = page.evaluate(
        r"""() => Array.from(document.querySelectorAll('mjx-container'))
              .filter(c => c.getAttribute('role') !== 'img'
                           || !(c.getAttribute('aria-label') || '').trim()
                           || /\\/.test(c.getAttribute('aria-label'))
                           || c.querySelector('svg').getAttribute('aria-hidden') !== 'true')
              .map(c => (c.dataset.tex || '').slice(0, 60))"""
    )
    assert not unspoken, f"{docname}: 한국어 읽기(aria-label)가 없거나 TeX 이 남은 수식 {len(unspoken)}개: {unspoken[:5]}"
    # 수식 속 \text{...} 의 한글 낱말(두 글자 이상)은 읽기에 낱말 그대로 있어야 합니다 ('캐 시' 가 아니라 '캐시')
    hangul = page.evaluate(
        r"""() => Array.from(document.querySelectorAll('mjx-container'))
              .filter(c => ((c.dataset.tex || '').match(/[가-힣]{2,}/g) || [])
                             .some(word => !c.getAttribute('aria-label').includes(word)))
              .map(c => c.getAttribute('aria-label').slice(0, 80))"""
    )
    assert not hangul, f"{docname}: 한글 낱말을 한 글자씩 읽는 수식: {hangul[:3]}"


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
    assert not probe.external_requests, probe.external_requests
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
    assert not unexpected_messages(probe), probe.page_errors + probe.console_errors
    assert not probe.external_requests, probe.external_requests


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
            assert not unexpected_messages(probe), probe.page_errors + probe.console_errors
            return
    pytest.skip("탭 위젯이 있는 페이지가 없습니다 (no widget Tab on any page yet)")


# ---------------------------------------------------------------------------------------
# 한글 글꼴 (Hangul is drawn with a Korean font)
# ---------------------------------------------------------------------------------------

# 본문의 여러 종류(제목, 문단, 목록, 표, 알림 상자, 위젯, 탐색기 조작기, 옆 막대)에서 자기 글에 한글이 있는
# 보이는 요소를 하나씩 골라 표시합니다. Chromium 이 그 글을 그리는 데 쓴 플랫폼 글꼴을 CDP 로 묻습니다.
HANGUL_PROBE_JS = """() => {
  const article = document.querySelector('article.bd-article') || document.body;
  // 제목: 첫 제목이 'KV 캐시...'처럼 라틴 글자로 시작하면 한글로 시작하는 다음 제목을 봅니다.
  const kinds = [['h1, h2, h3', 'heading', article], ['p', 'paragraph', article], ['li', 'list', article],
                 ['td, th', 'table', article], ['.admonition-title', 'admonition', article],
                 ['.widget-subarea *', 'widget', article], ['.attn-explorer *', 'explorer', article],
                 ['.bd-sidebar-primary a', 'sidebar', document]];
  const picks = [];
  for (const [selector, kind, scope] of kinds) {
    for (const el of scope.querySelectorAll(selector)) {
      // CSS.getPlatformFontsForNode 는 요소의 첫 글 노드의 앞부분(첫 글자 묶음)만 셉니다. 그래서 첫 글
      // 노드가 한글로 시작하는 요소를 고르고, 맨 앞 한글 낱말의 글자 수를 기준으로 씁니다.
      const first = Array.from(el.childNodes).find(n => n.nodeType === 3 && n.textContent.trim());
      const own = first ? first.textContent.trim() : '';
      const lead = (own.match(/^[가-힣]+/) || [''])[0];
      // contentVisibilityAuto: 아직 배치하지 않은 셀(figures.css 의 content-visibility: auto) 안의 글은 빼고
      // 지금 그려진 글만 봅니다 (그려지지 않은 글은 글꼴 목록이 비어 있음)
      if (lead && el.checkVisibility({visibilityProperty: true, contentVisibilityAuto: true})) {
        el.setAttribute('data-hangul-probe', kind);
        picks.push([kind, own.slice(0, 60), lead.length]);
        break;
      }
    }
  }
  return picks;
}"""


def platform_fonts(page: Any, selector: str) -> list[list[dict]]:
    """``selector`` 에 맞는 요소마다, 그 글을 그린 플랫폼 글꼴 목록 (CDP CSS.getPlatformFontsForNode)."""
    cdp = page.context.new_cdp_session(page)
    try:
        cdp.send("DOM.enable")
        cdp.send("CSS.enable")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node_ids = cdp.send("DOM.querySelectorAll", {"nodeId": root, "selector": selector})["nodeIds"]
        return [cdp.send("CSS.getPlatformFontsForNode", {"nodeId": n})["fonts"] for n in node_ids]
    finally:
        cdp.detach()


@pytest.mark.parametrize("docname", TOC_DOCNAMES)
def test_hangul_is_drawn_with_a_korean_font(docname: str, desktop_page: Callable[[str], OfflinePage]) -> None:
    page = desktop_page(docname).page
    picks = page.evaluate(HANGUL_PROBE_JS)
    kinds = [k for k, _, _ in picks]
    assert {"heading", "paragraph", "sidebar"} <= set(kinds), f"{docname}: 한글 글이 있는 요소를 못 찾음: {picks}"
    fonts = platform_fonts(page, "[data-hangul-probe]")
    assert len(fonts) == len(picks)
    for (kind, text, n_hangul), used in zip(picks, fonts):
        # Chromium 은 화면에 그린 부분의 글리프만 세므로 개수는 참고용입니다. 판정: 한글로 시작하는 글에서
        # 한국어 글꼴이 한 글리프 이상을 그렸어야 합니다. 한글 글꼴이 없으면 다른 글꼴의 빈 상자(tofu)만
        # 잡힙니다. 공백과 라틴 글자는 다른 글꼴(Liberation Sans 등)이 그려도 됩니다.
        korean = sum(f["glyphCount"] for f in used if KOREAN_FONT.search(f["familyName"]))
        names = [(f["familyName"], f["glyphCount"]) for f in used]
        assert korean >= 1, (
            f"{docname} [{kind}] '{text}' (맨 앞 한글 {n_hangul}자): 한국어 글꼴로 그리지 않았습니다 "
            f"(쓰인 글꼴 / fonts used: {names}). fonts-nanum 이 설치되었나요?")


# ---------------------------------------------------------------------------------------
# 접근성 (axe-core, served from node_modules; never from a CDN)
# ---------------------------------------------------------------------------------------

AXE_RUN_JS = """async () => {
  const result = await axe.run(document, {resultTypes: ['violations']});
  return result.violations.map(v => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map(n => {
      const el = document.querySelector(n.target[0]);
      return {target: n.target.join(' '), in_article: !!(el && el.closest('article.bd-article')),
              html: n.html.slice(0, 200), impact: n.impact};
    })
  }));
}"""


def run_axe(page: Any) -> list[dict]:
    if not AXE_JS.is_file():
        pytest.fail(f"axe-core 가 없습니다 ({AXE_JS}). `make book` 이 npm ci 로 설치합니다.", pytrace=False)
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE_JS))  # 파일 내용을 페이지에 넣음 (네트워크 요청 없음)
    return page.evaluate(AXE_RUN_JS)


@pytest.mark.parametrize("docname", TOC_DOCNAMES)
def test_no_serious_accessibility_violations(
    docname: str, desktop_page: Callable[[str], OfflinePage], screenshot_dir: Path
) -> None:
    probe = desktop_page(docname)
    violations = run_axe(probe.page)
    report_dir = screenshot_dir / "axe"
    report_dir.mkdir(exist_ok=True)
    (report_dir / f"{screenshot_name(docname)}.json").write_text(
        json.dumps(violations, ensure_ascii=False, indent=1), encoding="utf-8")
    article, chrome = [], []
    for v in violations:
        for node in v["nodes"]:
            if (node["impact"] or v["impact"]) not in {"serious", "critical"}:
                continue
            entry = (v["id"], node["target"])
            if node["in_article"]:
                article.append(f"{v['id']} ({v['help']}): {node['target']} {node['html']}")
            elif entry in CHROME_AXE_ALLOWLIST:
                SEEN_CHROME_AXE.add(entry)
            else:
                chrome.append(f"{entry}: {node['html']}")
    assert not article, f"{docname}: 본문 안의 serious/critical 접근성 위반:\n" + "\n".join(article)
    assert not chrome, f"{docname}: 허용 목록에 없는 테마 영역 위반 (not in CHROME_AXE_ALLOWLIST):\n" + "\n".join(chrome)
    assert not probe.external_requests, probe.external_requests


# ---------------------------------------------------------------------------------------
# 키보드 (keyboard operability)
# ---------------------------------------------------------------------------------------

CONTROLS_JS = """() => {
  const article = document.querySelector('article.bd-article');
  // 스스로 조작되는 요소와 tabindex="0" 인 요소 (tabindex="-1" 은 일부러 Tab 순서에서 뺀 것).
  // 제목 옆 고정 링크(a.headerlink)는 테마가 마우스를 올릴 때만 보이는 공유용 링크라서 뺍니다.
  const sel = 'a[href], button, input, select, textarea, summary, [role="tab"], [role="button"], [tabindex="0"]';
  return Array.from(article.querySelectorAll(sel))
    .filter(el => !el.matches('a.headerlink'))
    // 지금 보이지 않는 것(접힌 풀이, 닫힌 details 안)은 펼친 뒤에야 조작 대상입니다.
    .filter(el => el.checkVisibility({visibilityProperty: true}) && !el.closest('[aria-hidden="true"]'))
    .map(el => {
      const tablist = el.getAttribute('role') === 'tab' ? el.closest('[role="tablist"]') : null;
      // 탭 목록은 '움직이는 tabindex' 방식: 고른 탭 하나만 tabindex=0, 나머지는 화살표로 옮겨 갑니다.
      const reachable = tablist ? Array.from(tablist.querySelectorAll('[role="tab"]')).some(t => t.tabIndex >= 0)
                                : el.tabIndex >= 0 && !el.disabled;
      let focused = false;
      if (reachable && (!tablist || el.tabIndex >= 0)) { el.focus(); focused = document.activeElement === el; }
      else if (tablist) { focused = true; }
      return {tag: el.tagName.toLowerCase(), cls: String(el.className).slice(0, 60), html: el.outerHTML.slice(0, 120),
              text: (el.innerText || el.value || el.getAttribute('aria-label') || '').trim().slice(0, 40),
              reachable: reachable, focused: focused};
    });
}"""


@pytest.mark.parametrize("docname", TOC_DOCNAMES)
def test_article_controls_take_keyboard_focus(docname: str, desktop_page: Callable[[str], OfflinePage]) -> None:
    page = desktop_page(docname).page
    controls = page.evaluate(CONTROLS_JS)
    if not controls:
        # 용어집처럼 링크도 단추도 없는 페이지가 있습니다 (예전에는 MathJax 가 수식마다 tabindex=0 을 달았음).
        # 그때는 정말로 조작 요소가 없는지 따로 셉니다 (CONTROLS_JS 가 고장 나 빈 목록을 내는 것이 아닌지).
        count = page.evaluate("""() => document.querySelector('article.bd-article')
            .querySelectorAll('a[href]:not(.headerlink), button, input, select, textarea, summary').length""")
        assert count == 0, f"{docname}: 조작 요소 {count}개가 있는데 CONTROLS_JS 가 찾지 못했습니다"
        pytest.skip(f"{docname}: 본문에 링크도 단추도 없는 페이지")
    stuck = [c for c in controls if not (c["reachable"] and c["focused"])]
    assert not stuck, f"{docname}: 키보드로 갈 수 없는 조작 요소: {stuck[:10]}"


def test_hidden_cells_open_with_the_keyboard(open_offline_page: Callable[..., OfflinePage]) -> None:
    """숨긴 셀의 '숨긴 셀 펼쳐 보기' 단추는 Tab 으로 가서 Enter 로 엽니다."""
    for docname in TOC_DOCNAMES:
        probe = load(open_offline_page, docname)
        summary = probe.page.locator(f"{ARTICLE} details.hide > summary").first
        if summary.count() == 0:
            continue
        details = summary.locator("xpath=..")
        assert details.evaluate("d => d.open") is False
        summary.focus()
        probe.page.keyboard.press("Enter")
        probe.page.wait_for_timeout(100)
        assert details.evaluate("d => d.open") is True, f"{docname}: Enter 로 숨긴 셀이 열리지 않음"
        name = summary.evaluate("s => s.getAttribute('aria-label') || s.innerText")
        assert re.search(r"[가-힣]", name), f"{docname}: 숨긴 셀 단추의 이름이 한국어가 아님: {name!r}"
        return
    pytest.skip("숨긴 셀(hide-input)이 있는 페이지가 없습니다")


def test_widget_tabs_work_with_the_keyboard(open_offline_page: Callable[..., OfflinePage]) -> None:
    """위젯 탭: 고른 탭에 초점을 두고 → 키, Enter 를 누르면 다음 탭이 열립니다 (커널 없이)."""
    for docname in TOC_DOCNAMES:
        probe = load(open_offline_page, docname)
        tabs = probe.page.locator(".widget-tab")
        if tabs.count() == 0:
            continue
        tab = tabs.first
        items = tab.locator(".lm-TabBar-tab")
        current = [j for j, c in enumerate(items.evaluate_all("els => els.map(e => e.className)")) if "lm-mod-current" in c]
        assert len(current) == 1 and items.count() > 1
        before = _visible_tab_panel(tab)
        items.nth(current[0]).focus()
        probe.page.keyboard.press("ArrowRight")
        probe.page.keyboard.press("Enter")
        probe.page.wait_for_timeout(200)
        nxt = (current[0] + 1) % items.count()
        assert "lm-mod-current" in (items.nth(nxt).get_attribute("class") or ""), f"{docname}: 키보드로 탭이 바뀌지 않음"
        after = _visible_tab_panel(tab)
        assert after != before and after.startswith(f"{nxt}:"), (before, after)
        assert not unexpected_messages(probe), probe.page_errors + probe.console_errors
        return
    pytest.skip("탭 위젯이 있는 페이지가 없습니다")


# ---------------------------------------------------------------------------------------
# 허용 목록이 낡지 않았는지 (stale allowlist entries) - 이 파일의 마지막 테스트여야 합니다.
# ---------------------------------------------------------------------------------------


def test_allowlists_have_no_stale_entries(request: pytest.FixtureRequest) -> None:
    """허용 목록의 항목은 이번 실행에서 실제로 보였어야 합니다 (안 보이면 지우세요)."""
    ran_all = not request.config.option.keyword and not request.config.option.markexpr and len(
        [i for i in request.session.items if i.module is request.module]) > len(TOC_DOCNAMES)
    if not ran_all:
        pytest.skip("일부 테스트만 골라 실행함 (-k/-m): 허용 목록 점검은 전체 실행에서만")
    stale = set(ALLOWED_BROWSER_MESSAGES) - SEEN_ALLOWED_MESSAGES
    assert not stale, f"어느 페이지에서도 나오지 않은 허용 메시지 (stale allowlist entries): {sorted(stale)}"
    stale_axe = set(CHROME_AXE_ALLOWLIST) - SEEN_CHROME_AXE
    assert not stale_axe, f"더는 나오지 않는 axe 허용 항목: {sorted(stale_axe)}"
