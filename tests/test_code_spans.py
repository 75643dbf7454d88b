"""코드 상자의 색 없는 토큰 span 풀기 (attn_site/code_spans.py): 보이는 것은 그대로, 요소 수만 줄어야 합니다."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from bs4 import BeautifulSoup

from attn_site.code_spans import plain_token_classes, unwrap_plain_spans
from conftest import read_toc_docnames

CSS = """
html[data-theme="light"] .highlight { background: #fefefe; color: #080808 }
html[data-theme="light"] .highlight .n { color: #080808 }
html[data-theme="light"] .highlight .p { color: #080808 }
html[data-theme="light"] .highlight .o { color: #00622F }
html[data-theme="light"] .highlight .k { color: #080808; font-weight: bold }
html[data-theme="light"] .highlight .x { color: #080808 }
html[data-theme="dark"] .highlight { background: #2b2b2b; color: #F8F8F2 }
html[data-theme="dark"] .highlight .n { color: #F8F8F2 }
html[data-theme="dark"] .highlight .o { color: #ABE338 }
html[data-theme="dark"] .highlight .k { color: #F8F8F2 }
html[data-theme="dark"] .highlight .x { color: #FFFFFF }
"""


def test_only_tokens_drawn_like_plain_text_are_plain() -> None:
    # n: 두 테마 모두 기본색. p: 어두운 테마에 규칙이 없어 기본색을 물려받음.
    # o: 색이 다름, k: 굵게, x: 어두운 테마에서만 색이 다름 -> 풀면 보이는 것이 바뀌므로 남김
    assert plain_token_classes(CSS) == {"n", "p"}


def test_no_theme_colours_means_nothing_is_unwrapped() -> None:
    assert plain_token_classes(".highlight .n { color: #080808 }") == frozenset()


def test_unwrap_keeps_the_text_and_coloured_tokens() -> None:
    html = ('<div class="highlight"><pre tabindex="0"><span></span><span class="n">x</span>'
            '<span class="o">=</span><span class="n">f</span><span class="p">(</span>1<span class="p">)</span>'
            '</pre></div><p><span class="n">글</span></p>')
    new, count = unwrap_plain_spans(html, frozenset({"n", "p"}))
    assert count == 5
    assert new == ('<div class="highlight"><pre tabindex="0">x<span class="o">=</span>f(1)</pre></div>'
                   '<p><span class="n">글</span></p>')
    assert BeautifulSoup(new, "html.parser").pre.get_text() == BeautifulSoup(html, "html.parser").pre.get_text()


@pytest.mark.site
@pytest.mark.parametrize("docname", read_toc_docnames())
def test_built_code_has_no_plain_token_spans(html_dir: Path, docname: str) -> None:
    classes = plain_token_classes((html_dir / "_static" / "pygments.css").read_text(encoding="utf-8"))
    assert {"n", "p"} <= classes, f"이 책의 색 구성에서 이름·구두점은 기본 글자색입니다: {sorted(classes)}"
    text = (html_dir / f"{docname}.html").read_text(encoding="utf-8")
    left = [m.group(0) for m in re.finditer(r'<div class="highlight"><pre\b.*?</pre>', text, re.S)
            if re.search(r'<span class="(?:%s)">' % "|".join(classes), m.group(0))]
    assert not left, f"{docname}: 풀리지 않은 색 없는 span 이 있는 코드 상자 {len(left)}개"
