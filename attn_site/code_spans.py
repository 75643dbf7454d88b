"""코드 상자에서 글자색이 본문 글자색과 같은 토큰의 ``<span>`` 을 풀어, 긴 장의 요소 수를 줄이는 Sphinx 확장.

Pygments 는 코드의 낱말 하나하나를 ``<span class="n">x</span>`` 처럼 감쌉니다. 이 책의 색 구성
(pydata-sphinx-theme 의 a11y 밝은/어두운 테마)에서는 이름(``n``), 구두점(``p``), 공백(``w``) 토큰의 색이
코드 상자의 기본 글자색과 같아서, 그 ``<span>`` 은 화면에 아무것도 바꾸지 않습니다. 4장에서만 이런
``<span>`` 이 약 2,900개로, 페이지 요소 13.5k 개의 5분의 1입니다. 느린 휴대폰은 HTML 이 흘러 들어오는 동안
요소 수에 비례해 배치(layout)를 되풀이하므로, 이것을 글자로 풀면 첫 화면의 긴 작업이 줄어듭니다.

어떤 토큰이 "색 없음"인지는 글로 적지 않고, 빌드가 마지막에 쓴 ``_static/pygments.css`` 에서 읽습니다:
밝은·어두운 테마 모두에서 그 토큰의 규칙이 없거나 ``color`` 하나뿐이고 그 값이 ``.highlight`` 의 글자색과
같을 때만 풉니다. 색 구성을 바꾸면 풀 토큰도 저절로 바뀝니다 (tests/test_page_weight.py 가 확인).

빌드가 끝난 뒤(``build-finished``, 테마가 pygments.css 를 다시 쓴 뒤) 쓰인 HTML 을 고칩니다. 여러 번 돌아도
결과가 같습니다. 복사 단추와 Live Code 는 ``<pre>`` 의 글자만 쓰므로 바뀌는 것이 없습니다.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)

THEMES = ("light", "dark")
#: ``html[data-theme="light"] .highlight .n { color: #080808 }`` (토큰 규칙), ``... .highlight { ... }`` (기본)
RULE_RE = re.compile(r'html\[data-theme="(light|dark)"\] \.highlight(?: \.([A-Za-z0-9_-]+))?\s*\{([^}]*)\}')
CODE_RE = re.compile(r'(<div class="highlight"><pre\b[^>]*>)(.*?)(</pre>)', re.S)


def _declarations(body: str) -> dict[str, str]:
    pairs = (part.split(":", 1) for part in body.split(";") if ":" in part)
    return {key.strip().lower(): value.strip().lower() for key, value in pairs}


def plain_token_classes(css: str) -> frozenset[str]:
    """두 테마 모두에서 글자색이 코드 상자의 기본 글자색과 같고 다른 꾸밈이 없는 Pygments 토큰 클래스.

    Shape: ``pygments.css`` 글 하나 -> 클래스 이름 집합 (예: ``{"n", "p", "w"}``).
    """
    base: dict[str, str] = {}
    tokens: dict[str, dict[str, dict[str, str]]] = {}
    for theme, cls, body in RULE_RE.findall(css):
        decls = _declarations(body)
        if not cls:
            base[theme] = decls.get("color", "")
        else:
            tokens.setdefault(cls, {})[theme] = decls
    if not all(base.get(theme) for theme in THEMES):
        return frozenset()
    return frozenset(
        cls for cls, by_theme in tokens.items()
        if all(by_theme.get(theme, {}) in ({}, {"color": base[theme]}) for theme in THEMES)
    )


def unwrap_plain_spans(text: str, classes: frozenset[str]) -> tuple[str, int]:
    """코드 상자(``<div class="highlight"><pre>``) 안의 색 없는 토큰 ``<span>`` 과 빈 ``<span></span>`` 을 풉니다.

    Shape: HTML 글 -> (고친 HTML, 푼 span 수).
    """
    if not classes:
        return text, 0
    names = "|".join(sorted(map(re.escape, classes)))
    span_re = re.compile(rf'<span class="(?:{names})">([^<]*)</span>|<span></span>')
    count = 0

    def fix(match: re.Match) -> str:
        nonlocal count
        body, n = span_re.subn(lambda m: m.group(1) or "", match.group(2))
        count += n
        return match.group(1) + body + match.group(3)

    return CODE_RE.sub(fix, text), count


def unwrap_all(app: Sphinx, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    css_path = outdir / "_static" / "pygments.css"
    if not css_path.is_file():
        logger.warning("code_spans: _static/pygments.css 가 없어 코드의 span 을 그대로 둡니다 (테마가 바뀜)")
        return
    classes = plain_token_classes(css_path.read_text(encoding="utf-8"))
    if not classes:
        logger.warning("code_spans: pygments.css 에서 테마별 코드 글자색을 찾지 못해 코드의 span 을 그대로 둡니다")
        return
    total = 0
    for path in outdir.rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        new, n = unwrap_plain_spans(text, classes)
        if n:
            path.write_text(new, encoding="utf-8")
            total += n
    logger.info("code_spans: 색 없는 코드 토큰 span %d개를 글자로 풀었습니다 (%s)", total, ", ".join(sorted(classes)))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("build-finished", unwrap_all, priority=850)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
