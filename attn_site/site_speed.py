"""휴대폰에서 페이지를 가볍게: 탐색기 명세를 페이지 밖 파일로, 본문 그림은 화면에 가까워질 때 받기.

Makes the written pages lighter for a phone (measured by ``make bench-site``):

1. 정적 어텐션 탐색기(``attn_course.explorer.static``)의 명세 ``<script type="application/json"
   id="attn-explorer-…-spec">`` (탐색기 하나에 약 1.2 MB, gzip 약 190 KB)를 ``_static/explorer/<id>.js``
   로 옮기고, 페이지에는 ``data-src`` 만 남깁니다. 탐색기의 불러오기 스크립트는 탐색기가 화면 가까이 올 때
   이 파일을 script 태그로 받습니다 (파일로 연 사이트에서도 됨). 그래서 페이지 HTML 이 4분의 1로 줄고,
   느린 4G 에서 글이 먼저 뜹니다. 노트북(Jupyter)의 출력은 그대로 명세를 품고 있습니다.
2. 본문에 ``data:`` 주소로 박힌 PNG/SVG 그림(헤드 탭 ``attn_course.explorer.tabs`` 의 그림 등)을
   ``_images/inline-<해시>.<확장자>`` 파일로 옮깁니다. 숨은 탭의 그림은 그 탭을 열 때 받습니다.
3. 머리의 스타일시트(테마, Sphinx, 확장, 책의 CSS: 페이지마다 15개쯤)를 파일 하나
   ``_static/styles/bundle-<내용 해시>.css`` 로 합칩니다. 느린 4G 에서는 요청마다 왕복 시간이 들고
   브라우저는 한 서버에 연결을 6개만 열므로, 첫 화면을 막는 요청 15개가 1개가 되면 첫 글이 빨리 뜹니다.
   ``@import`` 는 그 자리에 풀어 넣고(테마의 theme.css -> basic.css 라는 두 번째 왕복이 사라짐),
   ``url(...)`` 은 합친 파일 자리에서 맞게 고치고, 줄인 Font Awesome 글꼴(몇 KB)은 data: 로 넣습니다.
5. 테마 스크립트(pydata-sphinx-theme 0.17)는 페이지를 열 때 모든 코드 상자·출력·표 상자마다 "넘치는가"를
   재어(scrollWidth) 넘치면 키보드 초점을 받게(tabindex=0) 합니다. 그 첫 잼이 긴 장 전체의 배치를 그 자리에서
   강제해 느린 휴대폰에서 0.7초의 긴 작업이 됩니다 (2장, Lighthouse). 고친 사본은 상자가 화면 가까이 올 때
   (IntersectionObserver) 잽니다. 그 전까지는 빌드가 넣은 ``tabindex="0"`` 이 있어, 화면 밖의 넘치는 상자도
   처음부터 키보드로 갈 수 있습니다 (axe: scrollable-region-focusable). 결과는 원본과 같습니다.
   다만 화면 가까이(300 px 안)에 왔어도 아직 그려지지 않은 셀(아래 CSS 의 ``content-visibility: auto``)의 상자는
   크기가 0이라 잴 수 없으므로 판정하지 않고 빌드가 넣은 ``tabindex="0"`` 을 둡니다 (그대로 두면 넘치는 상자가
   -1 을 받아 키보드로 갈 수 없었습니다: 8장의 두 번째 코드 상자, axe).
   원본은 늘 테마 패키지에서 읽고, 모양이 바뀌었으면 경고하고 원본을 둡니다.
4. 본문의 ``<img>`` 에 ``loading="lazy"`` 와 ``decoding="async"`` 를 답니다: 첫 화면 밖의 그림은 읽는
   사람이 그 가까이 갈 때 받습니다 (첫 화면의 글과 CSS 가 대역폭을 먼저 씁니다).
6. 검색 페이지는 검색 색인을 글이 그려진 뒤에 받습니다 (주소에 검색어가 있으면 곧바로): ``later_search_index``.

빌드가 끝난 뒤(``build-finished``) 쓰인 HTML 파일을 고칩니다. 여러 번 돌아도 결과가 같습니다.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

SPEC_DIR = Path("_static") / "explorer"
SPEC_RE = re.compile(r'<script type="application/json" id="(attn-explorer-[0-9a-f]+)-spec">(.*?)</script>', re.S)
IMG_RE = re.compile(r"<img\b(?![^>]*\bloading=)([^>]*)>")
ARTICLE_RE = re.compile(r"(<article\b.*?</article>)", re.S)
DATA_IMG_RE = re.compile(r'(<img\b[^>]*\bsrc=")data:image/(png|svg\+xml);base64,([A-Za-z0-9+/=]+)(")')


def spec_script(uid: str, data: str) -> str:
    """탐색기 명세 파일의 내용: ``window.__attnExplorerSpecs[uid] = <JSON>;``."""
    return f"(window.__attnExplorerSpecs = window.__attnExplorerSpecs || {{}})[{uid!r}] = {data};\n"


def externalize_specs(text: str, page: Path, outdir: Path) -> tuple[str, int]:
    """페이지의 탐색기 명세를 파일로 옮긴 HTML 과 옮긴 바이트 수."""
    moved = 0

    def move(match: re.Match) -> str:
        nonlocal moved
        uid, data = match.group(1), match.group(2)
        target = outdir / SPEC_DIR / f"{uid}.js"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(spec_script(uid, data), encoding="utf-8")
        moved += len(data.encode("utf-8"))
        src = os.path.relpath(target, page.parent).replace(os.sep, "/")
        return f'<script type="application/json" id="{uid}-spec" data-src="{src}"></script>'

    return SPEC_RE.sub(move, text), moved


def lazy_images(text: str) -> str:
    """본문(``<article>``)의 그림에 ``loading="lazy" decoding="async"``."""
    return ARTICLE_RE.sub(lambda m: IMG_RE.sub(r'<img loading="lazy" decoding="async"\1>', m.group(1)), text)


def externalize_images(text: str, page: Path, outdir: Path) -> str:
    """본문 ``<img src="data:image/...;base64,...">`` 를 ``_images/inline-<해시>`` 파일로."""

    def move(match: re.Match) -> str:
        data = base64.b64decode(match.group(3))
        ext = "png" if match.group(2) == "png" else "svg"
        target = outdir / "_images" / f"inline-{hashlib.sha1(data).hexdigest()[:16]}.{ext}"
        target.parent.mkdir(parents=True, exist_ok=True)
        if not target.exists():
            target.write_bytes(data)
        return match.group(1) + os.path.relpath(target, page.parent).replace(os.sep, "/") + match.group(4)

    return ARTICLE_RE.sub(lambda m: DATA_IMG_RE.sub(move, m.group(1)), text)


LINK_RE = re.compile(r"<link\b[^>]*>")
HREF_RE = re.compile(r'\bhref="([^"]+)"')
IMPORT_RE = re.compile(r"""@import\s+(?:url\()?["']?([^"')\s]+)["']?\)?\s*;""")
URL_RE = re.compile(r"""url\(\s*(["']?)([^"')]+)\1\s*\)""")
BUNDLE_DIR = Path("_static") / "styles"
#: data: 로 넣을 만큼 작은 글꼴 (줄인 Font Awesome)
INLINE_FONT_LIMIT = 16 * 1024


def _css_text(path: Path, outdir: Path, seen: set[Path]) -> str:
    """CSS 파일 하나를 ``@import`` 를 풀고 ``url()`` 을 합친 파일 자리에 맞게 고쳐 돌려줍니다."""
    if path in seen:
        return ""
    seen.add(path)
    text = path.read_text(encoding="utf-8")
    text = re.sub(r'@charset\s+"[^"]*";', "", text)
    text = IMPORT_RE.sub(lambda m: _css_text((path.parent / m.group(1)).resolve(), outdir, seen), text)

    def fix(match: re.Match) -> str:
        target = match.group(2).strip()
        if re.match(r"^(data:|https?:|//|#|/)", target):
            return match.group(0)
        file = (path.parent / urlsplit(target).path).resolve()
        if file.suffix in (".woff", ".woff2") and file.is_file() and file.stat().st_size <= INLINE_FONT_LIMIT:
            kind = "font/woff2" if file.suffix == ".woff2" else "font/woff"
            return f'url("data:{kind};base64,{base64.b64encode(file.read_bytes()).decode("ascii")}")'
        rel = os.path.relpath(file, outdir / BUNDLE_DIR).replace(os.sep, "/")
        return f'url("{rel}")'

    return URL_RE.sub(fix, text)


def bundle_stylesheets(text: str, page: Path, outdir: Path, made: dict[tuple[Path, ...], Path]) -> str:
    """머리의 ``<link rel="stylesheet">`` 들을 합친 파일 하나를 가리키는 ``<link>`` 하나로 바꿉니다."""
    head_end = text.find("</head>")
    if head_end < 0:
        return text
    links = [m for m in LINK_RE.finditer(text, 0, head_end)
             if 'rel="stylesheet"' in m.group(0) and "media=" not in m.group(0)]
    if len(links) < 2:
        return text
    files = []
    for m in links:
        href = HREF_RE.search(m.group(0))
        file = (page.parent / urlsplit(href.group(1)).path).resolve() if href else None
        if file is None or not file.is_file() or outdir.resolve() not in file.parents:
            return text  # 사이트 밖 스타일시트는 그대로 (없어야 하지만, 있으면 손대지 않음)
        files.append(file)
    key = tuple(files)
    if key not in made:
        seen: set[Path] = set()
        css = "\n".join(f"/* {f.relative_to(outdir.resolve()).as_posix()} */\n{_css_text(f, outdir.resolve(), seen)}"
                        for f in files)
        digest = hashlib.sha1(css.encode("utf-8")).hexdigest()[:12]
        target = outdir / BUNDLE_DIR / f"bundle-{digest}.css"
        target.write_text(css, encoding="utf-8")
        made[key] = target
    href = os.path.relpath(made[key], page.parent).replace(os.sep, "/")
    out, last = [], 0
    for i, m in enumerate(links):
        out.append(text[last:m.start()])
        if i == 0:
            out.append(f'<link rel="stylesheet" type="text/css" href="{href}" />')
        last = m.end()
        if text.startswith("\n", last):
            last += 1
    out.append(text[last:])
    return "".join(out)


THEME_JS_REL = Path("_static") / "scripts" / "pydata-sphinx-theme.js"
TABINDEX_LOOP_RE = re.compile(
    r'document\.querySelectorAll\((\[[^\]]*\]\.join\(", "\))\)\.forEach\(e=>\{e\.tabIndex='
    r"e\.scrollWidth>e\.clientWidth\|\|e\.scrollHeight>e\.clientHeight\?0:-1\}\)")


def lazy_theme_measurements(outdir: Path) -> bool:
    """테마 스크립트의 '모든 상자 재기'를 '화면 가까이 온 상자만 재기'로 바꾼 사본을 씁니다. 바꿨으면 True."""
    from .icon_fonts import theme_static  # 같은 패키지: 테마 패키지의 정적 파일 자리를 한곳에서

    original = (theme_static() / "scripts" / "pydata-sphinx-theme.js").read_text(encoding="utf-8")
    patched, count = TABINDEX_LOOP_RE.subn(
        lambda m: ("(()=>{const o=window.__attnTabIO||(window.__attnTabIO=new IntersectionObserver(n=>{n.forEach(x=>{"
                   "if(x.isIntersecting){const e=x.target;if(!e.clientWidth&&!e.clientHeight)return;e.tabIndex=e.scrollWidth>e.clientWidth||"
                   'e.scrollHeight>e.clientHeight?0:-1}})},{rootMargin:"300px 0px"}));o.disconnect();'
                   f"document.querySelectorAll({m.group(1)}).forEach(e=>o.observe(e))}})()"),
        original)
    if count != 1:
        logger.warning("site_speed: pydata-sphinx-theme.js 의 tabindex 반복을 찾지 못해 고치지 않았습니다 "
                       "(the theme script changed; left as is)")
        return False
    (outdir / THEME_JS_REL).write_text(patched, encoding="utf-8")
    return True


#: 테마가 재는 상자들 (pre, 셀 출력, 표 상자): 빌드 때 미리 tabindex="0"
FOCUSABLE_BOX_RE = re.compile(r'<(pre|div class="output [^"]*"|div class="pst-scrollable-table-container")(?![^>]*tabindex)')


def focusable_boxes(text: str) -> str:
    """본문의 코드·출력·표 상자에 ``tabindex="0"`` (화면 가까이 오면 테마 스크립트가 넘치지 않는 것은 -1 로)."""
    return ARTICLE_RE.sub(lambda m: FOCUSABLE_BOX_RE.sub(r'<\1 tabindex="0"', m.group(1)), text)


SEARCH_INDEX_RE = re.compile(r'<script defer="defer" src="(searchindex\.js)"></script>')


def later_search_index(text: str) -> str:
    """검색 페이지: 색인(``searchindex.js``, gzip 약 90 KB)을 글이 그려진 뒤(``load``)에 받습니다.

    주소에 검색어(``?q=``)가 있으면 곧바로 받습니다. Sphinx 의 searchtools 는 색인이 늦게 와도 검색어를
    기다려 두었다가(``deferQuery``) 색인이 오면(``Search.setIndex``) 찾습니다. 검색어 없이 연 검색 페이지는
    색인이 첫 화면의 대역폭을 다투지 않으므로 느린 4G 에서 글이 먼저 뜹니다.
    """
    loader = ('<script data-search-index="\\1">(function(s){var u=s.dataset.searchIndex,go=function(){'
              'var e=document.createElement("script");e.src=u;document.head.appendChild(e)};'
              '/[?&]q=/.test(location.search)?go():addEventListener("load",function(){setTimeout(go,0)})})'
              '(document.currentScript)</script>')
    return SEARCH_INDEX_RE.sub(loader, text)


PATCHED_BOX_RE = re.compile(r'<(pre|div class="output [^"]*"|div class="pst-scrollable-table-container") tabindex="0"')
BUNDLE_LINK_RE = re.compile(r'<link rel="stylesheet" type="text/css" href="[^"]*_static/styles/bundle-[0-9a-f]+\.css" />')


def check_patches(outdir: Path) -> None:
    """테마·Sphinx 의 출력에 기대는 고치기가 사이트 어디에도 닿지 않았으면 경고합니다 (-W: 빌드 실패).

    고친 결과를 셉니다(이미 고친 페이지도 셈): 증분 빌드에서 다시 쓰지 않은 페이지도 그대로 통과합니다."""
    pages = [p.read_text(encoding="utf-8") for p in outdir.rglob("*.html")]
    if not any(PATCHED_BOX_RE.search(text) for text in pages):
        logger.warning("site_speed: 코드·출력·표 상자(<pre>, div.output, pst-scrollable-table-container)를 한 곳도 찾지 "
                       "못해 tabindex 를 달지 못했습니다 (테마나 myst-nb 의 HTML 이 바뀜)")
    if not any(BUNDLE_LINK_RE.search(text) for text in pages):
        logger.warning("site_speed: 스타일시트를 하나로 묶은 페이지가 없습니다 (머리의 <link rel=\"stylesheet\"> 모양이 바뀜)")
    search = outdir / "search.html"
    if search.is_file() and "data-search-index=" not in search.read_text(encoding="utf-8"):
        logger.warning("site_speed: search.html 에서 searchindex.js 를 싣는 줄을 찾지 못해 늦게 싣지 못했습니다 "
                       "(_templates/search.html 이나 Sphinx 가 바뀜)")


def lighten_pages(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder is None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    total = 0
    made: dict[tuple[Path, ...], Path] = {}
    lazy_theme_measurements(outdir)
    for page in outdir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        new, moved = externalize_specs(text, page, outdir)
        new = lazy_images(externalize_images(new, page, outdir))
        new = focusable_boxes(bundle_stylesheets(new, page, outdir, made))
        if page.name == "search.html" and page.parent == outdir:
            new = later_search_index(new)
        total += moved
        if new != text:
            page.write_text(new, encoding="utf-8")
    check_patches(outdir)
    logger.info("site_speed: 스타일시트 묶음 %d개 (%s)", len(made),
                ", ".join(f"{len(k)}개 -> {v.name}" for k, v in made.items()))
    if total:
        logger.info("site_speed: 탐색기 명세 %.1f MB 를 페이지 밖 파일로 옮겼습니다", total / 1e6)


def setup(app: Sphinx) -> dict[str, Any]:
    # 테마(pydata-sphinx-theme)가 build-finished 에서 pygments.css 를 다시 쓰고 icon_fonts 가 테마 CSS 를 줄인
    # 다음에 합쳐야 하므로 늦게 (기본 500 보다 큰 값)
    app.connect("build-finished", lighten_pages, priority=900)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
