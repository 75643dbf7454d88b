"""자리표시자 글이 책에 들어가면 빌드를 실패시킵니다 (fail the build on placeholder text).

책이 자기 자신에 대해 "…할 예정입니다"라고 약속하거나, TODO/FIXME/TBD, "나중에 추가" 같은 글이
페이지 본문이나 셀 출력에 남으면 Sphinx 경고를 냅니다. 빌드는 ``-W`` 로 돌므로 경고는 곧 실패입니다.
코드(인라인 코드, 코드 블록, 셀의 원본 코드)는 검사하지 않습니다: 코드 주석의 TODO 는 독자에게
약속이 아니고, 검사 규칙을 설명하는 코드도 있을 수 있기 때문입니다.
"""

from __future__ import annotations

import re
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

#: 자리표시자로 보는 글. 한국어는 책이 미래의 작업을 약속하는 말투, 영어는 흔한 작업 표시.
PLACEHOLDER_RE = re.compile(
    r"예정입니다|예정이다|예정임|추가할 예정|나중에 추가|준비 중입니다|작성 중입니다|(?<![A-Za-z])(TODO|FIXME|TBD|XXX)(?![A-Za-z])"
)
_CODE_NODES = (nodes.literal, nodes.literal_block, nodes.raw, nodes.comment)


def find_placeholders(text: str) -> list[str]:
    """글에서 자리표시자로 보이는 부분을 모두 돌려줍니다 (테스트와 빌드가 함께 씀)."""
    return [m.group(0) for m in PLACEHOLDER_RE.finditer(text)]


def _inside_code(node: nodes.Node) -> bool:
    parent = node.parent
    while parent is not None:
        if isinstance(parent, _CODE_NODES):
            return True
        parent = parent.parent
    return False


def check_doctree(app: Sphinx, doctree: nodes.document, docname: str) -> None:
    """문서의 글 노드마다 자리표시자를 찾아 경고합니다 (``-W`` 이면 빌드 실패)."""
    for text in doctree.findall(nodes.Text):
        if _inside_code(text):
            continue
        for hit in find_placeholders(text.astext()):
            logger.warning("자리표시자 글 %r 이(가) 페이지에 있습니다: %r (placeholder text on the page)",
                           hit, text.astext()[:120], location=(docname, None))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("doctree-resolved", check_doctree)
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
