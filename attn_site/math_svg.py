"""빌드할 때 수식을 SVG 로 그려, 사이트가 본문 수식을 위해 MathJax 를 싣지 않게 하는 Sphinx 확장.

Renders every TeX formula of the written pages to SVG at build time (npm ``mathjax-full``,
``scripts/tex2svg.cjs``), so a reader's phone neither downloads MathJax (gzip 257 KB) nor typesets
on its main thread (chapter 04: 300 formulas, about 1.2 s of script on Lighthouse's slow phone).

1. ``html-page-context``: 페이지의 ``<script src=".../vendor/mathjax/tex-chtml.js">`` 를 뺍니다.
   인라인 ``window.MathJax = {...}`` 설정과 ``offline-setup.js`` 의 ``MathJax.Hub`` 호환층은 남습니다:
   Live Code(thebe)나 위젯이 조판을 청하면 그때 호환층이 MathJax 를 불러옵니다.
2. ``build-finished``: 쓰인 HTML 파일마다 Sphinx 의 수식 요소(``<span class="math">\\(...\\)</span>``,
   ``<div class="math">\\[...\\]</div>``; 본문, 페이지 차례, 검색 결과에 쓰이는 제목 모두)를 찾아 안의
   TeX 를 MathJax 가 브라우저에서 만들던 것과 같은 ``<mjx-container jax="SVG">`` 로 바꿉니다.
   글리프 모양은 페이지마다 한 번 (``MJX-SVG-global-cache``), 화면 낭독기에는 한국어 읽기
   (``role="img" aria-label``, speech-rule-engine 의 ko 규칙), 모양은 ``<head>`` 의 작은 ``<style>`` 하나입니다.
   TeX 오류는 경고입니다 (``-W`` 빌드에서 실패).

node 나 ``node_modules/mathjax-full`` 이 없으면 경고하고 예전처럼 MathJax 를 싣습니다.
(Falls back to client-side MathJax, with a warning, when node or mathjax-full is missing.)
"""

from __future__ import annotations

import hashlib
import html
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

# 책 폴더: 이 패키지는 책 폴더 안의 attn_site/ 를 editable 로 설치해 씁니다 (make book). scripts/ 와 node_modules/ 가 그 옆.
ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "tex2svg.cjs"
NODE_MODULES = ROOT / "node_modules"

#: Sphinx(mathjax 수식 렌더러)가 쓰는 수식 요소. 안에는 HTML 로 이스케이프된 TeX 만 있습니다.
MATH_RE = re.compile(r'<(span|div) class="math notranslate nohighlight"([^>]*)>(.*?)</\1>', re.S)
#: 번호 붙은 식의 번호 (Sphinx: ``<span class="eqno">(1)<a class="headerlink" ...>#</a></span>``)
EQNO_RE = re.compile(r'<span class="eqno">.*?</a></span>', re.S)
DISPLAY_PART_RE = re.compile(r"\\\[(.*?)\\\]", re.S)
MATHJAX_SCRIPT_RE = re.compile(r'<script[^>]*src="[^"]*vendor/mathjax/tex-chtml\.js[^"]*"[^>]*></script>\s*')
STYLE_ID = "MJX-SVG-styles"
#: MathJax 의 ex 는 글자 크기의 절반 (본문 16 px -> 8 px). 390 px 휴대폰의 본문 칸은 약 358 px.
EX_PX, PHONE_COLUMN_PX = 8.0, 340
#: 긴 식은 휴대폰에서 자기 상자 안에서 옆으로 밉니다 (페이지는 옆으로 밀리지 않음)
WIDE_CSS = 'div.math>mjx-container[jax="SVG"][display="true"]{overflow-x:auto;overflow-y:hidden;max-width:100%}'


def renderer_available() -> bool:
    """node 와 mathjax-full 이 있어 빌드 때 수식을 그릴 수 있는지."""
    return bool(shutil.which("node")) and (NODE_MODULES / "mathjax-full" / "js" / "mathjax.js").is_file()


def check_renderer(app: Sphinx) -> None:
    app.config.math_svg_enabled = app.builder.format == "html" and renderer_available()
    if app.builder.format == "html" and not app.config.math_svg_enabled:
        logger.warning("math_svg: node 나 node_modules/mathjax-full 이 없어 수식을 브라우저의 MathJax 로 그립니다. "
                       "make book 이 npm ci 로 준비합니다 (node or mathjax-full missing; falling back to MathJax)")


def drop_mathjax_script(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """페이지의 MathJax 스크립트를 뺍니다 (수식은 build-finished 에서 SVG 가 됨)."""
    scripts = context.get("script_files")
    if not app.config.math_svg_enabled or not isinstance(scripts, list):
        return
    path = app.config.mathjax_path
    scripts[:] = [js for js in scripts if str(getattr(js, "filename", "") or "") not in (path, f"_static/{path}")]


def _items(text: str) -> list[tuple[re.Match, list[tuple[str, bool]], str]]:
    """파일의 수식 요소마다 (찾은 것, [(TeX, 가운데 식인가)], 식 번호 HTML)."""
    out = []
    for match in MATH_RE.finditer(text):
        tag, inner = match.group(1), match.group(3)
        if "<mjx-container" in inner:  # 이미 그린 수식 (already rendered by an earlier build)
            continue
        eqno = "".join(EQNO_RE.findall(inner))
        source = html.unescape(EQNO_RE.sub("", inner)).strip()
        if tag == "span":
            parts = [(source.removeprefix("\\(").removesuffix("\\)").strip(), False)]
        else:
            found = DISPLAY_PART_RE.findall(source)
            parts = [(p.strip(), True) for p in found] if found else [(source, True)]
        out.append((match, parts, eqno))
    return out


def _render(tex_items: list[dict]) -> dict:
    result = subprocess.run(["node", str(SCRIPT)], input=json.dumps({"items": tex_items}), capture_output=True,
                            text=True, encoding="utf-8", env={"NODE_PATH": str(NODE_MODULES), "PATH": _path()},
                            cwd=ROOT, check=False, timeout=600)
    if result.returncode != 0:
        raise RuntimeError(f"tex2svg.cjs 실패 (exit {result.returncode}): {result.stderr[-2000:]}")
    return json.loads(result.stdout)


def _path() -> str:
    node = shutil.which("node")
    return str(Path(node).parent) if node else ""


SVG_TAG_RE = re.compile(r"<(/?)([a-zA-Z:-]+)([^>]*)>")
#: CSS 가 data-mml-node 로 고르는 묶음 (MathJax 의 SVG 스타일: 표의 선, 오류 표시). 이것만 남깁니다.
KEPT_NODES = ("mtable", "merror")


GLYPH_GROUP_RE = re.compile(r'<g(?: data-[a-z-]+="[^"]*")* transform="([^"]*)"(?: data-[a-z-]+="[^"]*")*>'
                            r"<use ([^>]*)></use></g>")


def flatten_svg(svg: str) -> str:
    """그리기에 쓰이지 않는 ``<g data-mml-node=...>`` 묶음을 풀고 ``data-c`` 를 지웁니다.

    MathJax 는 MathML 노드마다 ``<g>`` 를 하나씩 둡니다. 속성이 ``data-*`` 뿐인 ``<g>`` 는 그림에 아무 영향이
    없으므로 풀면 4장의 요소 수가 수천 개 줄어 휴대폰의 첫 배치가 가벼워집니다. ``transform`` 같은 속성이
    있거나 CSS 가 고르는 묶음(``KEPT_NODES``)은 그대로 둡니다.
    """
    out, stack, last = [], [], 0
    for m in SVG_TAG_RE.finditer(svg):
        out.append(svg[last:m.start()])
        last = m.end()
        closing, name, attrs = m.group(1), m.group(2), m.group(3)
        if name != "g":
            out.append(re.sub(r' data-c="[^"]*"', "", m.group(0)))
            continue
        if closing:
            if not stack.pop():
                out.append(m.group(0))
            continue
        plain = not re.sub(r'\s*data-[a-z-]+="[^"]*"', "", attrs).strip("/ ")
        keep = not plain or any(f'data-mml-node="{n}"' in attrs for n in KEPT_NODES)
        stack.append(not keep)
        if keep:
            out.append(m.group(0))
    out.append(svg[last:])
    flat = "".join(out)
    # <g transform="..."><use .../></g> -> <use transform="..." .../> (글리프 하나를 옮기는 묶음)
    flat = GLYPH_GROUP_RE.sub(lambda m: f'<use transform="{m.group(1)}" {m.group(2)}></use>', flat)
    # CSS 가 고르지 않는 data-* 는 지움 (바이트만 차지)
    return re.sub(r' data-(?:mml-node="(?!mtable"|merror")[^"]*"|mjx-texclass="[^"]*")', "", flat)


def _container(rendered: dict, display: bool, tex: str) -> str:
    svg = flatten_svg(rendered["svg"])
    # SVG 는 눈으로만 봅니다. 화면 낭독기는 SRE 가 만든 한국어 읽기(aria-label)를 읽습니다
    # (MathJax 4 의 기본과 같은 방식). 숨긴 MathML 을 두면 4장에서만 요소가 3,470개 늘어 휴대폰의 첫
    # 배치가 무거워지고, 한국어 화면 낭독기는 MathML 을 거의 읽지 못합니다.
    svg = svg.replace("<svg ", '<svg aria-hidden="true" ', 1)
    speech = html.escape(rendered.get("speech") or tex, quote=True)
    # TeX 원문은 data-tex 에 남깁니다 (테스트가 원래 수식을 되찾는 데 씁니다: tests/test_search.py)
    attrs = f'role="img" aria-label="{speech}" data-tex="{html.escape(tex, quote=True)}" '
    width = re.search(r'<svg [^>]*width="([0-9.]+)ex"', svg)
    if display and width and float(width.group(1)) * EX_PX > PHONE_COLUMN_PX:
        # 휴대폰 본문 칸보다 넓은 식은 제 상자 안에서 옆으로 밀리므로, 키보드로도 밀 수 있게 초점을 받습니다
        attrs += 'tabindex="0" '
    return svg.replace("<mjx-container ", f"<mjx-container {attrs}", 1)


def render_file(path: Path, docname: str) -> int:
    """파일 하나의 수식을 SVG 로 바꿉니다. 바꾼 수식 요소 수를 돌려줍니다 (이미 바꾼 파일이면 0)."""
    text = path.read_text(encoding="utf-8")
    found = _items(text)
    if not found:
        return 0
    flat = [{"tex": tex, "display": display} for _, parts, _ in found for tex, display in parts]
    rendered = _render(flat)
    it = iter(rendered["items"])
    pieces, last = [], 0
    for match, parts, eqno in found:
        tag, attrs = match.group(1), match.group(2)
        inner = []
        for tex, display in parts:
            item = next(it)
            if "error" in item:
                logger.warning("math_svg: %s: TeX 오류 %r: %s", docname, tex[:80], item["error"])
                inner.append(html.escape(tex))
            else:
                inner.append(_container(item, display, tex))
        pieces.append(text[last:match.start()])
        pieces.append(f'<{tag} class="math notranslate nohighlight"{attrs}>{eqno}{"".join(inner)}</{tag}>')
        last = match.end()
    pieces.append(text[last:])
    new = "".join(pieces)
    style = f'<style id="{STYLE_ID}">{_minify_css(rendered["css"])}{WIDE_CSS}</style>'
    if STYLE_ID not in new:
        new = new.replace("</head>", f"{style}\n</head>", 1)
    if rendered["cache"] and "MJX-SVG-global-cache" not in new:
        new = new.replace("</body>", f'{rendered["cache"]}\n</body>', 1)
    path.write_text(new, encoding="utf-8")
    return len(found)


def _minify_css(css: str) -> str:
    return re.sub(r"\s*([{};:,>])\s*", r"\1", re.sub(r"\s+", " ", css)).strip()


def render_all(app: Sphinx, exception: Exception | None) -> None:
    """빌드가 끝나면 쓰인 모든 HTML 의 수식을 SVG 로 (여러 번 돌아도 같은 결과)."""
    if exception is not None or not getattr(app.config, "math_svg_enabled", False):
        return
    outdir = Path(app.outdir)
    total = 0
    for path in sorted(outdir.rglob("*.html")):
        docname = path.relative_to(outdir).with_suffix("").as_posix()
        text = path.read_text(encoding="utf-8")
        if MATHJAX_SCRIPT_RE.search(text):  # 예전 빌드가 남긴 페이지 (pages written by an older build)
            path.write_text(MATHJAX_SCRIPT_RE.sub("", text), encoding="utf-8")
        try:
            total += render_file(path, docname)
        except (RuntimeError, OSError, ValueError, subprocess.SubprocessError) as err:
            logger.warning("math_svg: %s 의 수식을 그리지 못했습니다: %s", docname, err)
    if total:
        logger.info("math_svg: 수식 %d개를 SVG 로 그렸습니다", total)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_config_value("math_svg_enabled", False, "")
    # 그리는 스크립트가 바뀌면 (읽기 고침표 등) Sphinx 가 모든 페이지를 다시 쓰도록, 스크립트의 해시를
    # 'html' 설정값으로 둡니다 (build-finished 는 새로 쓴 페이지의 수식만 그리므로).
    app.add_config_value("math_svg_script_digest", hashlib.sha256(SCRIPT.read_bytes()).hexdigest()[:16], "html")
    app.connect("builder-inited", check_renderer)
    app.connect("html-page-context", drop_mathjax_script, priority=800)
    app.connect("build-finished", render_all, priority=400)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
