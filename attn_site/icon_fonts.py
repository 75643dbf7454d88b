"""테마의 Font Awesome 을 이 책이 쓰는 아이콘만으로 줄이는 Sphinx 확장 (휴대폰 첫 화면을 빠르게).

Shrinks the theme's Font Awesome to the icons this book uses.

pydata-sphinx-theme 0.17 은 Font Awesome 6 의 아이콘 규칙 약 1,800개(CSS 85 KB)를 렌더링을 막는
``pydata-sphinx-theme.css`` 에 싣고, 머리글 단추(메뉴, 검색, GitHub …)를 그리려고 글꼴 두 개
(``fa-solid-900.woff2`` 157 KB, ``fa-brands-400.woff2`` 118 KB)를 첫 화면 전에 받습니다. Lighthouse 의
느린 휴대폰에서는 이 두 글꼴이 첫 글자가 보이는 시각(FCP)을 1초 넘게 늦춥니다 (``make bench-site``).

빌드가 끝나면(``build-finished``):

1. 쓰인 HTML 과 테마 스크립트에 나오는 ``fa-*`` 클래스를 모읍니다.
2. 테마 패키지의 원본 CSS 에서 쓰지 않는 아이콘 규칙(``.fa-xxx:before{content:"\\f..."}``)을 빼고,
   ``@font-face`` 가 줄인 글꼴을 가리키게 해 ``_static/styles/pydata-sphinx-theme.css`` 에 씁니다.
3. 남은 아이콘 규칙의 코드 포인트와, 모든 CSS 가 ``content`` 로 직접 쓰는 코드 포인트(경고 상자 아이콘,
   ``--pst-icon-*``)만 남긴 글꼴을 fontTools 로 만들어 ``_static/vendor/fontawesome/webfonts/`` 에
   ``*.subset.woff`` 로 씁니다 (WOFF: zlib 압축이라 brotli 가 필요 없고, 아이콘 스무 개쯤이면 몇 KB).

원본은 늘 테마 패키지에서 읽으므로 여러 번 돌아도 결과가 같고, 새 페이지가 새 아이콘을 쓰면 다음
빌드에 들어갑니다. 테마를 올리면 tests/test_page_weight.py 가 아이콘이 모두 그려지는지 봅니다.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

CSS_REL = Path("_static/styles/pydata-sphinx-theme.css")
FONT_DIR_REL = Path("_static/vendor/fontawesome/webfonts")
FONTS = ("fa-solid-900", "fa-regular-400", "fa-brands-400")
#: ``.fa-bars:before,.fa-navicon:before{content:"\\f0c9"}``
ICON_RULE_RE = re.compile(r'((?:\.fa-[a-z0-9-]+:before,?)+)\{content:"\\([0-9a-f]+)"\}')
FA_CLASS_RE = re.compile(r"\bfa-[a-z0-9-]+")
PUA_ESCAPE_RE = re.compile(r"\\([ef][0-9a-f]{3})\b", re.I)
#: 글꼴 이름과 주소: ``src:url(../vendor/fontawesome/webfonts/fa-solid-900.woff2) format("woff2"),url(...ttf) format("truetype")``
FONT_SRC_RE = re.compile(r'src:url\(\.\./vendor/fontawesome/webfonts/(fa-[a-z]+-\d+)\.woff2\) format\("woff2"\),'
                         r'url\([^)]*\.ttf\) format\("truetype"\)')


def theme_static() -> Path:
    import pydata_sphinx_theme

    return Path(pydata_sphinx_theme.__file__).parent / "theme" / "pydata_sphinx_theme" / "static"


def used_classes(outdir: Path) -> set[str]:
    """쓰인 HTML 과 테마 스크립트(``_static/scripts``, fontawesome.js 빼고)에 나오는 ``fa-*`` 클래스.

    ``_static/vendor`` 의 남의 번들(MathJax, Vega …)은 보지 않습니다: 그 안의 ``fa-`` 글자는 아이콘이 아닙니다.
    """
    found: set[str] = set()
    for path in outdir.rglob("*.html"):
        found |= set(FA_CLASS_RE.findall(path.read_text(encoding="utf-8")))
    for path in (outdir / "_static" / "scripts").glob("*.js"):
        if path.name != "fontawesome.js":
            found |= set(FA_CLASS_RE.findall(path.read_text(encoding="utf-8", errors="ignore")))
    return found


def css_codepoints(css: str) -> set[int]:
    """아이콘 규칙 밖의 CSS 가 ``content`` 로 쓰는 사용자 정의 영역(PUA) 글자."""
    points = {int(h, 16) for h in PUA_ESCAPE_RE.findall(css)}
    points |= {ord(ch) for ch in css if 0xE000 <= ord(ch) <= 0xF8FF}
    return points


def purge_css(css: str, used: set[str]) -> tuple[str, set[int], int]:
    """쓰지 않는 아이콘 규칙을 뺀 CSS, 남은 아이콘의 코드 포인트, 뺀 규칙 수."""
    kept: set[int] = set()
    dropped = 0

    def keep(match: re.Match) -> str:
        nonlocal dropped
        classes = {sel.removesuffix(":before").lstrip(".") for sel in match.group(1).split(",") if sel}
        if classes & used:
            kept.add(int(match.group(2), 16))
            return match.group(0)
        dropped += 1
        return ""

    out = ICON_RULE_RE.sub(keep, css)
    out = FONT_SRC_RE.sub(lambda m: f'src:url(../vendor/fontawesome/webfonts/{m.group(1)}.subset.woff) format("woff")', out)
    return out, kept, dropped


def subset_font(source: Path, codepoints: set[int]) -> bytes:
    """``source`` 글꼴에서 ``codepoints`` 의 글리프만 남긴 WOFF."""
    from fontTools import subset
    from fontTools.ttLib import TTFont

    font = TTFont(source)
    options = subset.Options()
    options.flavor = "woff"
    options.layout_features = ["*"]
    options.notdef_outline = True
    subsetter = subset.Subsetter(options=options)
    subsetter.populate(unicodes=sorted(codepoints))
    subsetter.subset(font)
    buffer = io.BytesIO()
    font.flavor = "woff"
    font.save(buffer)
    return buffer.getvalue()


def shrink_icons(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder is None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    static = theme_static()
    original = (static / "styles" / "pydata-sphinx-theme.css").read_text(encoding="utf-8")
    if not FONT_SRC_RE.search(original) or not ICON_RULE_RE.search(original):
        logger.warning("icon_fonts: 테마 CSS 의 Font Awesome 규칙 모양이 바뀌었습니다. 줄이지 않습니다 "
                       "(pydata-sphinx-theme changed its Font Awesome rules; leaving them alone)")
        return
    used = used_classes(outdir)
    css, icon_points, dropped = purge_css(original, used)
    others = "".join(p.read_text(encoding="utf-8", errors="ignore") for p in (outdir / "_static").rglob("*.css")
                     if p.name != "pydata-sphinx-theme.css" and "vendor" not in p.relative_to(outdir).parts)
    points = icon_points | css_codepoints(ICON_RULE_RE.sub("", original)) | css_codepoints(others)
    (outdir / CSS_REL).write_text(css, encoding="utf-8")
    sizes = []
    for name in FONTS:
        data = subset_font(static / "vendor" / "fontawesome" / "webfonts" / f"{name}.ttf", points)
        (outdir / FONT_DIR_REL / f"{name}.subset.woff").write_bytes(data)
        sizes.append(f"{name} {len(data) / 1024:.1f} KB")
    logger.info("icon_fonts: 아이콘 규칙 %d개 뺌, 글자 %d개 남김 (%s)", dropped, len(points), ", ".join(sizes))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("build-finished", shrink_icons)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
