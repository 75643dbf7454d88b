"""노트북 그림에 한국어 대체 텍스트(alt), 그림 번호와 짧은 설명, 읽을 수 있는 크기를 주는 작은 Sphinx 확장.

A small Sphinx extension for notebook output images: Korean alt text, a numbered Korean caption, and a size
below which the image is never shrunk (its smallest text stays at least 10 CSS px).

myst-nb 1.4 는 노트북 출력 그림을 ``nodes.image(uri=...)`` 로 만들고, 출력 메타데이터에서 ``width`` 와
``height`` 만 옮깁니다. 그래서 HTML 에는 ``<img alt="../_images/<hash>.png">`` 처럼 파일 경로가 alt 로
남습니다. ``attn_course`` 의 그림 함수는 PNG 안에 글 묶음을 넣어 둡니다(``attn_course.viz.figure_output``):
``Description``(대체 텍스트), ``Title``(그림 제목), ``Min text px``(1배 크기에서 가장 작은 글자, CSS px),
``Pixel ratio``(PNG 화소 / CSS px). 이 확장은 문서를 읽을 때(``doctree-read``) 노트북 출력 그림마다

1. ``alt``: 설명이 ``ALT_LIMIT``(300)자보다 길면 앞부분만 alt 로 두고, 전체 설명은 그림 바로 아래
   ``<details>``("그림 N.k 설명 자세히")에 둡니다 (``<img aria-describedby>`` 가 그 글을 가리킴).
2. 그림 번호와 짧은 설명: ``<figure>`` 로 감싸고 ``<figcaption>`` 에 "그림 N.k <제목>" 을 적습니다
   (N = 파일 이름 앞의 장 번호, k = 페이지 안의 순서). 이미 캡션이 있는 그림(``mystnb.figure``)은 그 캡션을
   그대로 쓰고 번호만 같은 꼴로 붙입니다 (Sphinx 의 numfig 는 "그림 1" 처럼 장 번호 없이 세므로 쓰지 않음).
3. 크기: ``<img width>`` 는 1배 너비(PNG 는 2배 화소), ``data-min-text-px`` 는 가장 작은 글자,
   ``style="min-width: ..."`` 는 그 글자가 10 CSS px 이 되는 너비. 그보다 좁은 화면(휴대폰)에서는 그림 상자
   (``.attn-figure-scroll``)가 제 안에서 옆으로 넘어갑니다 (``attn_site/static/css/figures.css``).
4. 휴대폰용 그림: 책을 빌드할 때 그림 함수가 한 열·좁은 너비로 한 번 더 그린 PNG 가 출력 PNG 에 들어 있으면
   (``attn_course/viz/phone.py``) 옆 파일로 꺼내(``figure_png.split_phone_png``) ``<picture><source media=...>``
   로 씁니다. 넓은 그림이 본문 칸에 다 들어가지 않는 화면은 휴대폰용 그림을 받아 옆으로 밀 필요가 없습니다.

PNG 에 한국어 글이 없으면 경고합니다 (``-W`` 빌드에서는 실패).
"""

from __future__ import annotations

import html
import math
import posixpath
import re
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

from . import add_static_dir
from .figure_png import (  # PNG 읽기와 휴대폰용 그림 (같은 패키지의 도우미 모듈)
    MIN_LEGIBLE_PX, MIN_TEXT_KEY, PHONE_COLUMN_PX, RATIO_KEY, phone_path, phone_source, png_size, png_text,
    split_phone_png,
)

logger = logging.getLogger(__name__)

ALT_KEY = "Description"
TITLE_KEY = "Title"
HANGUL = re.compile(r"[가-힣]")
#: <img alt> 의 최대 글자 수 (더 긴 설명은 그림 아래 <details> 에)
ALT_LIMIT = 300
#: 짧은 설명(캡션)의 최대 글자 수
CAPTION_LIMIT = 90
FIGURES_CSS = "css/figures.css"
_MORE = " … (전체 설명은 그림 아래 '설명 자세히')"


def _cut(text: str, limit: int, separators: tuple[str, ...]) -> str:
    """``text`` 를 ``limit`` 자 안에서 가장 뒤의 구분자(``separators``) 앞까지 자릅니다 (없으면 글자 단위)."""
    if len(text) <= limit:
        return text
    head = text[:limit]
    cut = max(head.rfind(sep) for sep in separators)
    return (head[:cut] if cut > limit // 3 else head[:limit - 1]).rstrip(" ,;:—")


def short_alt(alt: str, limit: int = ALT_LIMIT) -> str:
    """``alt`` 가 ``limit`` 자보다 길면 앞부분(문장·항목 경계까지)과 "전체 설명은 그림 아래" 안내를 돌려줍니다.

    Shape:
        - 해당 없음 (글 -> 글)
    """
    if len(alt) <= limit:
        return alt
    return _cut(alt, limit - len(_MORE), (". ", "; ", ", ", " ")) + _MORE


def short_caption(title: str, alt: str) -> str:
    """짧은 설명: 그림 제목, 없으면 대체 텍스트에서 ':' 앞(무슨 그림인가)."""
    text = title.strip() or alt.split(":")[0].split(" — ")[0].strip()
    return _cut(text, CAPTION_LIMIT, (" (", ", ", " "))


def chapter_number(docname: str) -> str | None:
    """``chapters/06_cross_attention`` -> ``"6"`` (파일 이름 앞에 번호가 없으면 ``None``)."""
    match = re.match(r"(\d+)_", docname.rsplit("/", 1)[-1])
    return str(int(match.group(1))) if match else None


class figure_scroll(nodes.General, nodes.Element):  # noqa: N801 (docutils 노드 이름 관례)
    """그림 상자: 화면이 그림의 읽을 수 있는 너비보다 좁으면 제 안에서 옆으로 넘어갑니다."""


class attn_figure(nodes.figure):  # noqa: N801
    """번호를 이 확장이 적는 그림. Sphinx 의 numfig 번호 대상(``nodes.figure`` 그 자체)이 아니어서 id 가 없어도 됩니다."""


def visit_attn_figure(self: Any, node: attn_figure) -> None:
    self.visit_figure(node)


def depart_attn_figure(self: Any, node: attn_figure) -> None:
    self.depart_figure(node)


class legible_image(nodes.image):  # noqa: N801
    """``<img>`` 에 ``width``, ``height``, ``data-min-text-px``, ``min-width``, ``aria-describedby`` 를 더하는 그림."""


def visit_figure_scroll(self: Any, node: figure_scroll) -> None:
    label = html.escape(node["label"], quote=True)
    self.body.append(f'<div class="attn-figure-scroll" tabindex="0" role="group" aria-label="{label}">')


def depart_figure_scroll(self: Any, node: figure_scroll) -> None:
    self.body.append("</div>")


def visit_legible_image(self: Any, node: legible_image) -> None:
    self.visit_image(node)
    extra = [f'width="{node["css_width"]}"', f'height="{node["css_height"]}"']
    phone = node.get("phone")
    if node.get("min_text_px"):
        extra.append(f'data-min-text-px="{node["min_text_px"]:.2f}"')
        # 휴대폰용 그림이 있으면 그 그림의 최소 너비: 넓은 그림이 보이는 화면은 그보다 넓으므로 해가 없음
        extra.append(f'style="min-width: {(phone or node)["min_width"]}px"')
    if node.get("describedby"):
        extra.append(f'aria-describedby="{node["describedby"]}"')
    self.body[-1] = self.body[-1].replace("<img ", "<img " + " ".join(extra) + " ", 1)
    if phone:
        self.body[-1] = "<picture>" + _phone_source_tag(self, node, phone) + self.body[-1]


def _phone_source_tag(self: Any, node: legible_image, phone: dict) -> str:
    """``<source>``: 넓은 그림이 본문 칸(화면 - 32 px)에 다 들어가지 않는 화면에서는 휴대폰용 그림.

    휴대폰용 PNG 를 사이트의 ``_images/`` 로 복사합니다 (Sphinx 는 doctree 의 그림만 복사하므로).
    """
    source = Path(phone["path"])
    target = Path(self.builder.outdir) / self.builder.imagedir / source.name
    if source.is_file() and (not target.is_file() or target.stat().st_size != source.stat().st_size):
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source, target)
    src = posixpath.join(self.builder.imgpath, source.name)
    return (f'<source media="(max-width: {node["min_width"] + 31.98:.2f}px)" srcset="{html.escape(src)}" '
            f'width="{phone["css_width"]}" height="{phone["css_height"]}" '
            f'data-min-text-px="{phone["min_text_px"]:.2f}" data-min-width="{phone["min_width"]}">')


def depart_legible_image(self: Any, node: legible_image) -> None:
    self.depart_image(node)
    if node.get("phone"):
        self.body.append("</picture>")


def _output_dir(app: Sphinx) -> Path:
    """myst-nb 가 노트북 출력 파일을 쓰는 폴더 (``myst_nb.sphinx_ext`` 와 같은 계산)."""
    return Path(app.outdir).parent.joinpath("jupyter_execute").resolve()


def _image_path(app: Sphinx, docname: str, uri: str) -> Path:
    if uri.startswith("/"):  # myst-nb: 소스 폴더 기준 경로
        return (Path(app.srcdir) / uri.lstrip("/")).resolve()
    return (Path(app.srcdir) / docname).parent.joinpath(uri).resolve()


def set_output_image_alt(app: Sphinx, doctree: nodes.document) -> None:
    """노트북 출력 그림마다 alt, 번호와 짧은 설명, 읽을 수 있는 크기를 둡니다. 한국어 alt 가 없으면 경고합니다.

    Runs on ``doctree-read`` before Sphinx's image collector (priority 400 < 500), while the
    node's ``uri`` is still myst-nb's ``/_build/jupyter_execute/<hash>.png``.
    """
    docname = app.env.docname
    outputs = _output_dir(app)
    number = chapter_number(docname)
    count = 0
    for node in list(doctree.findall(nodes.image)):
        uri = node.get("uri", "")
        if "://" in uri or uri.startswith("data:"):
            continue
        path = _image_path(app, docname, uri)
        if not path.is_relative_to(outputs):
            continue  # 노트북 출력이 아닌 그림 (책에 직접 넣은 그림)
        data = path.read_bytes() if path.suffix.lower() == ".png" and path.is_file() else b""
        data, phone = split_phone_png(path, data)
        text = png_text(data)
        alt = node.get("alt", "")
        if not (alt and HANGUL.search(alt)):
            alt = text.get(ALT_KEY, "")
        if not (alt and HANGUL.search(alt)):
            logger.warning(
                "노트북 그림에 한국어 대체 텍스트(alt)가 없습니다: %s. attn_course 의 그림 함수로 그리거나, "
                "matplotlib 으로 직접 그린 그림에는 attn_course.set_alt(fig, 글)로 데이터에서 계산한 글을 "
                "붙이세요. / A notebook image has no Korean alt text.",
                path.name, location=node, type="figure_alt", subtype="missing",
            )
            continue
        count += 1
        label = f"그림 {number}.{count}" if number else f"그림 {count}"
        _make_figure(node, data, text, alt, label, f"{docname.replace('/', '-')}-fig-{count}",
                     phone=phone, phone_file=phone_path(path))


def _make_figure(node: nodes.image, data: bytes, text: dict[str, str], alt: str, label: str, uid: str,
                 phone: bytes = b"", phone_file: Path | None = None) -> None:
    """그림 노드를 ``<figure>`` (번호와 짧은 설명, 옆으로 넘기는 상자, 긴 설명의 ``<details>``)로 바꿉니다."""
    image = legible_image(node.rawsource, **node.attributes)
    image["alt"] = short_alt(alt)
    ratio = float(text.get(RATIO_KEY, "1") or 1)
    width, height = png_size(data) if data else (0, 0)
    image["css_width"], image["css_height"] = round(width / ratio), round(height / ratio)
    for key in ("width", "height", "scale"):  # 크기는 이 확장이 정함 (myst-nb 가 옮긴 width 는 지움)
        image.attributes.pop(key, None)
    smallest = float(text.get(MIN_TEXT_KEY, "0") or 0)
    if smallest:
        image["min_text_px"] = smallest
        image["min_width"] = min(image["css_width"], math.ceil(image["css_width"] * MIN_LEGIBLE_PX / smallest))
    details = None
    if image["alt"] != alt:
        image["describedby"] = f"{uid}-desc"
        details = nodes.raw("", (
            f'<details class="attn-figure-details"><summary>{html.escape(label)} 설명 자세히</summary>'
            f'<p id="{uid}-desc">{html.escape(alt)}</p></details>\n'), format="html")
    scroll = figure_scroll("", image, label=f"{label} (화면이 좁으면 옆으로 넘겨 보세요)")
    if phone and phone_file is not None:
        phone_source(image, phone, phone_file)
    shown_min = image["phone"]["min_width"] if image.get("phone") else image.get("min_width", 0)
    wide = ["attn-figure-wide"] if shown_min > PHONE_COLUMN_PX else []
    caption = nodes.caption("", "", _number(label), nodes.Text(short_caption(text.get(TITLE_KEY, ""), alt)))
    written = _written_figure(node)
    if written is not None:
        # 캡션을 직접 단 그림 (mystnb.figure: figure > 출력 묶음 > 그림): 그 figure 를 그대로 쓰되 attn_figure 로
        # 바꾸어 Sphinx numfig 의 "그림 1" 대신 같은 "그림 N.k" 를 글쓴이의 캡션 앞에 붙입니다 (id·이름 유지).
        own = [c for c in written.children if isinstance(c, nodes.caption)]
        if own:
            own[0].insert(0, _number(label))
        else:
            written += caption
        node.parent.replace(node, scroll)
        outer = attn_figure("", *written.children, **written.attributes)
        outer["classes"] = [*outer["classes"], "attn-figure", *wide]
        written.replace_self(outer)
        if details is not None:
            outer.parent.insert(outer.parent.index(outer) + 1, details)
        return
    parent = node.parent
    figure = attn_figure("", scroll, caption, classes=["attn-figure", *wide])
    parent.replace(node, figure)
    if details is not None:
        parent.insert(parent.index(figure) + 1, details)


def _number(label: str) -> nodes.inline:
    """캡션 앞의 굵은 그림 번호 ("그림 6.1 ")."""
    return nodes.inline("", label + " ", classes=["attn-figure-number"])


def _written_figure(node: nodes.Node) -> nodes.figure | None:
    """그림을 품은, 글쓴이가 캡션을 단 ``nodes.figure`` (없으면 None)."""
    up = node.parent
    while up is not None and not isinstance(up, (nodes.section, nodes.document)):
        if type(up) is nodes.figure:
            return up
        up = up.parent
    return None


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_node(attn_figure, html=(visit_attn_figure, depart_attn_figure))
    app.add_node(figure_scroll, html=(visit_figure_scroll, depart_figure_scroll))
    app.add_node(legible_image, html=(visit_legible_image, depart_legible_image))
    add_static_dir(app)  # css/figures.css (attn_site/static -> _static)
    app.add_css_file(FIGURES_CSS)
    app.connect("doctree-read", set_output_image_alt, priority=400)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
