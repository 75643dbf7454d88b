"""휴대폰에서 빨리 뜨는 페이지: 시간에 기대지 않는 예산 (이슈 13, 8항). 시간은 `make bench-site` 가 잽니다.

- 첫 화면 그리기를 막는 스크립트(머리의 async/defer 없는 외부 스크립트) 가운데 gzip 20 KB 넘는 것이 없음.
- 독자가 아무것도 하기 전에 받는 자바스크립트(페이지의 외부·인라인 스크립트, gzip)가 페이지마다 350 KB 이하.
  탐색기의 vega 는 탐색기가 화면 가까이 와야, thebe 는 'Live Code' 를 눌러야 받으므로 여기 들지 않습니다.
- ``searchindex.js`` 와 ``searchtools.js`` 는 검색 페이지에만, fontawesome.js 와 위젯 관리자(html-manager)는
  어느 페이지에도 없음.
- 머리의 ``<link rel="preload" as="script">`` 는 페이지가 실제로 싣는 스크립트만 가리킴 (_templates/layout.html 이
  테마의 digest 를 그대로 적어 두므로, 테마를 올려 주소가 바뀌면 여기서 알게 됨).
- 테마가 영어로 박아 둔 화면 글이 남지 않음 (attn_site/korean_ui.py 의 UI_STRINGS).
- 표 칸의 낱말을 한 줄로 묶은 span 이 수식과 코드를 건드리지 않음.
- 페이지의 요소 수가 ELEMENT_BUDGET 이하 (느린 휴대폰은 HTML 이 흘러 들어오는 동안 요소 수에 비례해 배치를
  되풀이합니다. 4장은 요소 13.5k 개일 때 Lighthouse 의 TBT 가 200 ms 를 넘었고, 7k 개로 줄이자 넘지 않았습니다).
"""

from __future__ import annotations

import gzip
import re
from functools import lru_cache
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from bs4 import BeautifulSoup, Comment

from conftest import read_toc_docnames

pytestmark = pytest.mark.site

PAGES = [*read_toc_docnames(), "search"]
RENDER_BLOCKING_LIMIT = 20 * 1024
JS_BUDGET = 350 * 1024
ELEMENT_BUDGET = 8_000
#: 화면 글로 남으면 안 되는 테마의 영어 (보이는 글, title, aria-label, alt)
ENGLISH_UI = re.compile(r"^(Skip to main content|Back to top|Toggle (primary|secondary) sidebar|Main|Page|Site navigation|"
                        r"On this page|Version warning|Table of contents|next page|previous page|Link to this (heading|image|table|code)|"
                        r"Launch interactive content|Launch on \w+|Launch Thebe|\w+ logo|Please activate JavaScript.*)$")


@lru_cache(maxsize=None)
def gz_size(path: Path) -> int:
    return len(gzip.compress(path.read_bytes(), compresslevel=6))


def page_soup(html_dir: Path, docname: str) -> BeautifulSoup:
    return BeautifulSoup((html_dir / f"{docname}.html").read_text(encoding="utf-8"), "html.parser")


def local_file(html_dir: Path, docname: str, src: str) -> Path:
    path = (html_dir / docname).parent / urlsplit(src).path
    assert path.is_file(), f"{docname}: 스크립트 {src} 가 사이트에 없습니다"
    return path.resolve()


@pytest.mark.parametrize("docname", PAGES)
def test_no_large_render_blocking_script(html_dir: Path, docname: str) -> None:
    head = page_soup(html_dir, docname).head
    blocking = {s["src"]: gz_size(local_file(html_dir, docname, s["src"])) for s in head.find_all("script", src=True)
                if not s.has_attr("defer") and not s.has_attr("async") and s.get("type", "text/javascript") != "module"}
    large = {src: size for src, size in blocking.items() if size > RENDER_BLOCKING_LIMIT}
    assert not large, f"{docname}: 첫 화면을 막는 큰 스크립트 (gzip 바이트): {large}"


@pytest.mark.parametrize("docname", PAGES)
def test_javascript_before_interaction_fits_the_budget(html_dir: Path, docname: str) -> None:
    soup = page_soup(html_dir, docname)
    external = {s["src"]: gz_size(local_file(html_dir, docname, s["src"])) for s in soup.find_all("script", src=True)}
    inline = sum(len(gzip.compress((s.string or "").encode("utf-8"))) for s in soup.find_all("script", src=False)
                 if s.get("type", "text/javascript") in ("text/javascript", "module"))
    total = sum(external.values()) + inline
    assert total <= JS_BUDGET, (f"{docname}: 자바스크립트 gzip {total / 1024:.0f} KB > {JS_BUDGET // 1024} KB: "
                                f"{sorted(external.items(), key=lambda kv: -kv[1])[:5]}, 인라인 {inline} B")


@pytest.mark.parametrize("docname", PAGES)
def test_search_index_only_on_the_search_page_and_no_heavy_theme_scripts(html_dir: Path, docname: str) -> None:
    srcs = [s["src"] for s in page_soup(html_dir, docname).find_all("script", src=True)]
    search = [s for s in srcs if re.search(r"(^|/)(searchindex|_static/searchtools)\.js", s)]
    if docname == "search":
        # searchtools.js 는 머리에, 색인은 글이 그려진 뒤에 받는 작은 불러오기 스크립트가 가리킴 (attn_site/site_speed.py)
        assert search == ["_static/searchtools.js"], srcs
        loaders = page_soup(html_dir, docname).find_all("script", attrs={"data-search-index": "searchindex.js"})
        assert len(loaders) == 1 and "load" in loaders[0].text and "q=" in loaders[0].text, loaders
    else:
        assert not search, f"{docname}: 검색 색인은 검색 페이지에만: {search}"
    heavy = [s for s in srcs if re.search(r"fontawesome\.js|html-manager|requirejs", s)]
    assert not heavy, f"{docname}: {heavy}"


@pytest.mark.parametrize("docname", PAGES)
def test_script_preloads_match_loaded_scripts(html_dir: Path, docname: str) -> None:
    soup = page_soup(html_dir, docname)
    preloads = {link["href"] for link in soup.find_all("link", rel="preload") if link.get("as") == "script"}
    srcs = {s["src"] for s in soup.find_all("script", src=True)}
    assert preloads and preloads <= srcs, f"{docname}: 싣지 않는 스크립트를 미리 받음: {preloads - srcs}"


@pytest.mark.parametrize("docname", PAGES)
def test_theme_ui_is_korean(html_dir: Path, docname: str) -> None:
    soup = page_soup(html_dir, docname)
    for tag in soup(["script", "style"]):
        tag.decompose()
    found = {t.strip() for t in soup.find_all(string=True)
             if not isinstance(t, Comment) and ENGLISH_UI.match(t.strip())}
    for el in soup.find_all(True):
        for attr in ("title", "aria-label", "alt"):
            value = el.get(attr)
            if isinstance(value, str) and ENGLISH_UI.match(value.strip()):
                found.add(f"{attr}={value}")
    assert not found, f"{docname}: 영어 화면 글이 남았습니다 (attn_site/korean_ui.py UI_STRINGS 에 더하세요): {sorted(found)}"


@pytest.mark.parametrize("docname", PAGES)
def test_table_cell_wrapping_leaves_math_and_code_alone(html_dir: Path, docname: str) -> None:
    """korean_ui.keep_table_tokens_whole 가 감싼 낱말(span.attn-nobr) 안에 수식 구분자나 코드가 없어야 합니다
    (수식의 \\( 를 감싸면 MathJax 가 조판하지 못하고 독자에게 날 TeX 이 보입니다)."""
    html = (html_dir / f"{docname}.html").read_text(encoding="utf-8")
    wrapped = re.findall(r'<span class="attn-nobr">(.*?)</span>', html)
    bad = [w for w in wrapped if "\\(" in w or "\\)" in w or "\\[" in w or "<" in w]
    assert not bad, f"{docname}: {bad[:5]}"
    # 수식은 빌드 때 SVG 로 그려지므로(attn_site/math_svg.py) 수식 요소 안에 날 TeX 이 없어야 합니다
    raw_math = re.findall(r'class="math notranslate nohighlight"[^>]*>(?!(?:<span class="eqno">.*?</span>)?<mjx-container)(.{0,60})',
                          html)
    assert not raw_math, f"{docname}: SVG 로 그리지 않은 수식: {raw_math[:3]}"


HTML_BUDGET = 150 * 1024
INLINE_SCRIPT_LIMIT = 20_000


@pytest.mark.parametrize("docname", PAGES)
def test_page_html_fits_the_budget(html_dir: Path, docname: str) -> None:
    """페이지 HTML 은 gzip 150 KB 이하: 탐색기 명세(약 190 KB)와 data: 그림은 페이지 밖 파일로 (attn_site/site_speed.py).

    느린 4G(약 200 KB/s)에서 HTML 이 다 와야 첫 글이 뜨므로, 페이지 HTML 의 크기가 곧 첫 화면의 시각입니다.
    """
    html = (html_dir / f"{docname}.html").read_text(encoding="utf-8")
    size = gz_size(html_dir / f"{docname}.html")
    assert size <= HTML_BUDGET, f"{docname}: 페이지 HTML gzip {size:,} 바이트 (예산 {HTML_BUDGET:,})"
    big = [len(m) for m in re.findall(r"<script[^>]*>(.*?)</script>", html, re.S) if len(m) > INLINE_SCRIPT_LIMIT]
    assert not big, f"{docname}: 페이지 안의 큰 스크립트/데이터 {big} 바이트"
    article = BeautifulSoup(html, "html.parser").find("article")
    if article is not None:
        inline = [img.get("alt", "")[:40] for img in article.find_all("img") if img.get("src", "").startswith("data:")]
        assert not inline, f"{docname}: 페이지에 박힌 data: 그림 {len(inline)}개: {inline[:3]}"
        eager = [img["src"] for img in article.find_all("img") if img.get("loading") != "lazy"]
        assert not eager, f"{docname}: loading=lazy 가 없는 본문 그림: {eager[:3]}"


ICON_RULE = re.compile(r'((?:\.fa-[a-z0-9-]+:before,?)+)\{content:"\\([0-9a-f]+)"\}')


def icon_rules(css: str) -> dict[str, int]:
    return {cls.removesuffix(":before").lstrip("."): int(code, 16)
            for sels, code in ICON_RULE.findall(css) for cls in sels.split(",") if cls}


def test_icon_fonts_hold_every_icon_the_pages_use(html_dir: Path) -> None:
    """attn_site/icon_fonts.py 가 줄인 Font Awesome: 페이지가 쓰는 아이콘마다 CSS 규칙과 글리프가 남고, 글꼴은 작음.

    원본(테마 패키지)에서 아이콘인 클래스만 봅니다 (fa-solid, fa-lg 같은 꾸밈 클래스는 규칙이 없음).
    """
    import pydata_sphinx_theme
    from fontTools.ttLib import TTFont

    theme_static = Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"
    original = icon_rules((theme_static / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8"))
    css_text = (html_dir / "_static" / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    purged = icon_rules(css_text)
    assert len(purged) < len(original) / 10, f"아이콘 규칙이 줄지 않았습니다: {len(purged)} / {len(original)}"
    fonts = re.findall(r"url\(\.\./vendor/fontawesome/webfonts/([^)]+)\)", css_text)
    assert fonts and all(f.endswith(".subset.woff") for f in fonts), fonts
    glyphs: set[int] = set()
    for name in fonts:
        path = html_dir / "_static" / "vendor" / "fontawesome" / "webfonts" / name
        assert path.stat().st_size <= 20 * 1024, f"{name}: {path.stat().st_size:,} 바이트 (줄인 글꼴이 아님)"
        glyphs |= set(TTFont(path).getBestCmap())
    used = set()
    for page in html_dir.rglob("*.html"):
        used |= set(re.findall(r"\bfa-[a-z0-9-]+", page.read_text(encoding="utf-8")))
    icons = sorted(c for c in used if c in original)
    assert icons, "페이지에서 아이콘을 하나도 찾지 못했습니다"
    missing_rule = [c for c in icons if c not in purged]
    assert not missing_rule, f"CSS 규칙이 빠진 아이콘: {missing_rule}"
    missing_glyph = [c for c in icons if purged[c] not in glyphs]
    assert not missing_glyph, f"글꼴에 글리프가 없는 아이콘: {missing_glyph}"


def test_copy_button_speaks_korean(html_dir: Path) -> None:
    """코드 복사 단추의 툴팁과 알림은 한국어 (attn_site/korean_ui.py 가 copybutton.js 에 'ko' 를 더함)."""
    js = (html_dir / "_static" / "copybutton.js").read_text(encoding="utf-8")
    assert "'ko': {'copy': '복사', 'copy_to_clipboard': '클립보드에 복사'" in js
    assert 'document.documentElement.lang' in js  # 페이지의 lang 으로 고르는 방식이 그대로인지


@pytest.mark.parametrize("docname", PAGES)
def test_page_element_count_fits_the_budget(html_dir: Path, docname: str) -> None:
    count = len(page_soup(html_dir, docname).find_all(True))
    assert count <= ELEMENT_BUDGET, (
        f"{docname}: 요소 {count}개 (예산 {ELEMENT_BUDGET}). 숨긴 MathML, 색 없는 코드 span 같은 보이지 않는 "
        "요소가 다시 늘지 않았는지 보세요 (attn_site/math_svg.py, attn_site/code_spans.py)")
