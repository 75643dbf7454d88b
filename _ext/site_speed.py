"""휴대폰에서 페이지를 가볍게: 탐색기 명세를 페이지 밖 파일로, 본문 그림은 화면에 가까워질 때 받기.

Makes the written pages lighter for a phone (measured by ``make bench-site``):

1. 정적 어텐션 탐색기(``attn_lib.explorer.static``)의 명세 ``<script type="application/json"
   id="attn-explorer-…-spec">`` (탐색기 하나에 약 1.2 MB, gzip 약 190 KB)를 ``_static/explorer/<id>.js``
   로 옮기고, 페이지에는 ``data-src`` 만 남깁니다. 탐색기의 불러오기 스크립트는 탐색기가 화면 가까이 올 때
   이 파일을 script 태그로 받습니다 (파일로 연 사이트에서도 됨). 그래서 페이지 HTML 이 4분의 1로 줄고,
   느린 4G 에서 글이 먼저 뜹니다. 노트북(Jupyter)의 출력은 그대로 명세를 품고 있습니다.
2. 본문에 ``data:`` 주소로 박힌 PNG/SVG 그림(헤드 탭 ``attn_lib.explorer.tabs`` 의 그림 등)을
   ``_images/inline-<해시>.<확장자>`` 파일로 옮깁니다. 숨은 탭의 그림은 그 탭을 열 때 받습니다.
3. 본문의 ``<img>`` 에 ``loading="lazy"`` 와 ``decoding="async"`` 를 답니다: 첫 화면 밖의 그림은 읽는
   사람이 그 가까이 갈 때 받습니다 (첫 화면의 글과 CSS 가 대역폭을 먼저 씁니다).

빌드가 끝난 뒤(``build-finished``) 쓰인 HTML 파일을 고칩니다. 여러 번 돌아도 결과가 같습니다.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
from pathlib import Path
from typing import Any

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


def lighten_pages(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder is None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    total = 0
    for page in outdir.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        new, moved = externalize_specs(text, page, outdir)
        new = lazy_images(externalize_images(new, page, outdir))
        total += moved
        if new != text:
            page.write_text(new, encoding="utf-8")
    if total:
        logger.info("site_speed: 탐색기 명세 %.1f MB 를 페이지 밖 파일로 옮겼습니다", total / 1e6)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("build-finished", lighten_pages)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
