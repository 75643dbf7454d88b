"""노트북 그림에 한국어 대체 텍스트(alt)를 다는 작은 Sphinx 확장.

A small Sphinx extension that gives every notebook output image its Korean alt text.

myst-nb 1.4 는 노트북 출력 그림을 ``nodes.image(uri=...)`` 로 만들고, 출력 메타데이터에서 ``width`` 와
``height`` 만 옮깁니다. 그래서 HTML 에는 ``<img alt="../_images/<hash>.png">`` 처럼 파일 경로가 alt 로
남습니다. ``attn_lib`` 의 그림 함수(``plots``, ``mask_plots``)는 그림의 대체 텍스트를 PNG 안의
``Description`` 글 묶음(tEXt 또는 UTF-8 iTXt)에 넣어 두므로(``attn_lib.viz.figures.png_bytes``), 이 확장은 문서를 읽을 때(``doctree-read``) 노트북 출력
그림(myst-nb 가 ``<outdir>/../jupyter_execute/`` 에 쓴 파일)마다 그 글을 읽어 ``alt`` 로 둡니다.
PNG 에 글이 없거나 한글이 없으면 경고합니다 (``-W`` 빌드에서는 실패). 노트북에서 출력 메타데이터의
``{"image/png": {"alt": ...}}`` 와 PNG 안의 글은 같은 글입니다(둘 다 ``attn_lib.viz.figures`` 가 씀).

Reads the alt text that ``attn_lib.viz.figures`` embeds in each output PNG (``Description``) and sets it as
the image node's ``alt``; warns (an error under ``-W``) when a notebook image has no Korean alt.
"""

from __future__ import annotations

import re
import struct
import zlib
from pathlib import Path
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ALT_KEY = "Description"
HANGUL = re.compile(r"[가-힣]")


def png_text(data: bytes) -> dict[str, str]:
    """PNG 의 글 묶음(tEXt, zTXt, iTXt)을 ``{열쇠: 글}`` 로 읽습니다 (IDAT 앞뒤 모두)."""
    if not data.startswith(PNG_SIGNATURE):
        return {}
    out: dict[str, str] = {}
    pos = len(PNG_SIGNATURE)
    while pos + 8 <= len(data):
        length, tag = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length  # 길이, 종류, 내용, CRC
        if tag == b"tEXt":
            key, _, value = body.partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        elif tag == b"zTXt":
            key, _, rest = body.partition(b"\0")
            out[key.decode("latin-1")] = zlib.decompress(rest[1:]).decode("latin-1")
        elif tag == b"iTXt":
            key, _, rest = body.partition(b"\0")
            compressed, rest = rest[0], rest[2:]  # 압축 여부, 압축 방식
            _lang, _, rest = rest.partition(b"\0")
            _translated, _, text = rest.partition(b"\0")
            out[key.decode("latin-1")] = (zlib.decompress(text) if compressed else text).decode("utf-8")
        elif tag == b"IEND":
            break
    return out


def _output_dir(app: Sphinx) -> Path:
    """myst-nb 가 노트북 출력 파일을 쓰는 폴더 (``myst_nb.sphinx_ext`` 와 같은 계산)."""
    return Path(app.outdir).parent.joinpath("jupyter_execute").resolve()


def _image_path(app: Sphinx, docname: str, uri: str) -> Path:
    if uri.startswith("/"):  # myst-nb: 소스 폴더 기준 경로
        return (Path(app.srcdir) / uri.lstrip("/")).resolve()
    return (Path(app.srcdir) / docname).parent.joinpath(uri).resolve()


def set_output_image_alt(app: Sphinx, doctree: nodes.document) -> None:
    """노트북 출력 그림마다 PNG 안의 대체 텍스트를 ``alt`` 로 둡니다. 없으면 경고합니다.

    Runs on ``doctree-read`` before Sphinx's image collector (priority 400 < 500), while the
    node's ``uri`` is still myst-nb's ``/_build/jupyter_execute/<hash>.png``.
    """
    docname = app.env.docname
    outputs = _output_dir(app)
    for node in doctree.findall(nodes.image):
        uri = node.get("uri", "")
        if "://" in uri or uri.startswith("data:"):
            continue
        path = _image_path(app, docname, uri)
        if not path.is_relative_to(outputs):
            continue  # 노트북 출력이 아닌 그림 (책에 직접 넣은 그림)
        alt = node.get("alt", "")
        if not (alt and HANGUL.search(alt)) and path.suffix.lower() == ".png" and path.is_file():
            alt = png_text(path.read_bytes()).get(ALT_KEY, "")
            if alt:
                node["alt"] = alt
        if not (alt and HANGUL.search(alt)):
            logger.warning(
                "노트북 그림에 한국어 대체 텍스트(alt)가 없습니다: %s. attn_lib 의 그림 함수로 그리거나, "
                "matplotlib 으로 직접 그린 그림에는 attn_lib.set_alt(fig, 글)로 데이터에서 계산한 글을 "
                "붙이세요. / A notebook image has no Korean alt text.",
                path.name, location=node, type="figure_alt", subtype="missing",
            )


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-read", set_output_image_alt, priority=400)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
