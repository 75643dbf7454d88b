"""한국어 독자를 위한 화면 손질 (Korean reading and accessibility touches).

하는 일 (What it does):

1. 모든 페이지에 ``_static/css/korean.css`` 를 넣습니다: 한국어 글꼴을 앞에 둔 글꼴 목록과,
   어절 단위 줄바꿈(``word-break: keep-all``).
2. 테마의 기본 색 모드(``html_context['default_mode']``)를 ``light`` 로 둡니다. Jupyter Book 1 은 ``default_mode`` 를 비워 두고,
   그러면 pydata-sphinx-theme 이 모든 페이지에서 콘솔 오류 "Got invalid theme mode: ."
   를 냅니다. 독자는 여전히 테마 단추로 어두운 모드를 고를 수 있습니다.
   (An empty default mode makes the theme log a console error on every page.)
3. 숨긴 셀을 여닫는 ``<summary>`` 의 영어 ``aria-label="Toggle hidden content"`` 를 뺍니다.
   화면에 보이는 한국어 글("숨긴 셀 펼쳐 보기")과 화면 낭독기가 읽는 이름이 달라지는 접근성
   문제(axe 규칙 label-content-name-mismatch)이기 때문입니다. 이름은 보이는 글에서 옵니다.
   (myst-nb's English aria-label on hide-input toggles hides the visible Korean label.)
4. ``_static/css/accessibility.css``: 위젯 탭 글자의 색 대비를 WCAG AA 이상으로 올립니다.
5. 참고 문헌 목록(sphinxcontrib-bibtex)의 ``role="list"`` 를 뺍니다: 항목이 ``listitem`` 이 아니라서 axe 규칙
   aria-required-children 위반입니다.

7. ``_static/js/nav-toggle.js``: 보이는 ≡ 단추와 "이 페이지" 단추가 휴대폰에서 목록을 열고, 넓은 화면에서
   사이드바를 숨기고 보이게 합니다 (테마 0.17 의 윗물 버그; 파일 머리의 설명).
8. ``korean.css``: 표 칸은 숫자·낱말·모양 튜플 가운데에서 줄을 바꾸지 않고, 넓은 표는 제 상자 안에서 옆으로 넘깁니다.

테마의 머리글 단추(검색, 색 모드)는 ``_templates/`` 의 덮어쓴 템플릿이 한국어 이름을 줍니다.
"""

from __future__ import annotations

from typing import Any

from sphinx.application import Sphinx

KOREAN_CSS = "css/korean.css"
#: 머리글의 보이는 ≡ 단추가 장 목록을 열게 하는 스크립트 (pydata-sphinx-theme issue 2451, sphinx-book-theme issue 988)
NAV_TOGGLE_JS = "js/nav-toggle.js"
ACCESSIBILITY_CSS = "css/accessibility.css"
DEFAULT_MODE = "light"
#: myst-nb 이 숨긴 셀 단추에 붙이는 영어 이름 (hide-input toggle label added by myst-nb)
ENGLISH_SUMMARY = '<summary aria-label="Toggle hidden content">'
#: docutils 가 참고 문헌 목록에 붙이는 role="list". 그 안의 항목은 role="doc-biblioentry" 라서 listitem 이 아니고,
#: axe 규칙 aria-required-children 위반이 됩니다. role 을 빼면 평범한 div 묶음으로 읽힙니다.
CITATION_LIST = '<div role="list" class="citation-list">'


def set_default_mode(app: Sphinx, config: Any) -> None:
    """``html_context['default_mode']`` 가 비어 있으면 ``light`` 로 둡니다 (pydata-sphinx-theme 은 이 값을 읽음)."""
    context = config.html_context
    if isinstance(context, dict) and not context.get("default_mode"):
        context["default_mode"] = DEFAULT_MODE


def drop_english_summary_label(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """본문의 숨긴 셀 단추에서 영어 ``aria-label`` 을 빼고(보이는 한국어 글이 이름이 됨), 참고 문헌 목록의
    맞지 않는 ``role="list"`` 를 뺍니다."""
    body = context.get("body")
    if isinstance(body, str) and (ENGLISH_SUMMARY in body or CITATION_LIST in body):
        context["body"] = body.replace(ENGLISH_SUMMARY, "<summary>").replace(CITATION_LIST, '<div class="citation-list">')


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("config-inited", set_default_mode)
    app.add_css_file(KOREAN_CSS)
    app.add_css_file(ACCESSIBILITY_CSS)
    app.add_js_file(NAV_TOGGLE_JS, loading_method="defer")
    app.connect("html-page-context", drop_english_summary_label)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
