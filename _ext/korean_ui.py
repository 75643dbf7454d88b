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
9. 테마 템플릿에 영어로 박힌 화면 글("Skip to main content", ``title="Toggle primary sidebar"``,
   ``aria-label="Main"`` 등)을 빌드가 끝난 뒤 HTML 파일에서 한국어로 바꿉니다 (``UI_STRINGS``). 테마의 한국어
   번역 목록에 없거나 번역할 수 없게 박힌 글이고("Launch on" + " Binder" 처럼 이어 붙인 글은 어순이 맞지 않음),
   화면 낭독기가 읽는 이름과 툴팁이기도 합니다. 표에 없는 영어 글이 남으면 tests/test_site_layout.py 가 알립니다.
   (Hard-coded English theme strings are replaced in the written HTML after the build.)
10. 페이지의 외부 스크립트를 ``defer`` 로 싣습니다 (``defer_scripts``): 머리(head)의 동기 스크립트는 하나하나가
    첫 화면 그리기를 막습니다(휴대폰의 느린 4G 에서 수 초). ``defer`` 스크립트는 HTML 을 다 읽은 뒤 **적힌 순서대로**
    실행되므로 서로의 순서(doctools -> translations, offline-setup -> MathJax)는 그대로입니다. 인라인 스크립트가
    바로 쓰는 ``documentation_options.js`` 만 동기로 둡니다(pydata 의 ``DOCUMENTATION_OPTIONS.pagename = ...``).
    검색 페이지는 건드리지 않습니다 (``defer_scripts`` 의 주석).
11. 표 칸의 낱말 가운데 줄바꿈 막기 (``keep_table_tokens_whole``): ``keep-all`` 로도 브라우저는 여는 괄호 앞,
    하이픈과 가운뎃점 뒤, 닫는 괄호 뒤에서 줄을 바꿉니다("스케일링( / scaling)", "인코더- / 디코더", "키· / 밸류").
    표 칸의 글에서 이런 문장 부호가 든 낱말(공백으로 나눈 조각)을 ``<span class="attn-nobr">`` 로 감싸 한 덩어리로
    둡니다. 칸이 좁으면 표가 제 상자 안에서 옆으로 넘어갑니다 (korean.css 3번).
    (Table-cell tokens with brackets, hyphens or middle dots are kept on one line.)
    (External scripts are deferred; order among deferred scripts is kept.)

테마의 머리글 단추(검색, 색 모드)는 ``_templates/`` 의 덮어쓴 템플릿이 한국어 이름을 줍니다.
"""

from __future__ import annotations

import html
import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.builders.html._assets import _JavaScript
from sphinx.util import logging

logger = logging.getLogger(__name__)

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


#: 테마가 영어로 박아 둔 화면 글 -> 한국어 (정확히 이 글만 바꿉니다; 본문은 건드리지 않도록 따옴표·꺾쇠까지)
UI_STRINGS: dict[str, str] = {
    '<a href="#main-content">Skip to main content</a>': '<a href="#main-content">본문으로 건너뛰기</a>',
    '</i>Back to top</button>': '</i>맨 위로</button>',
    'title="Toggle primary sidebar"': 'title="장 목록 열기·닫기"',
    'title="Toggle secondary sidebar"': 'title="이 페이지 차례 열기·닫기"',
    'aria-label="Site navigation"': 'aria-label="장 목록"',
    'aria-label="Main"': 'aria-label="장 목록"',
    '<nav aria-label="Page">': '<nav aria-label="이 페이지 차례">',
    'aria-label="On this page"': 'aria-label="이 페이지 차례"',
    'aria-label="Version warning"': 'aria-label="버전 알림"',
    '<h2> Table of contents </h2>': '<h2> 차례 </h2>',
    'title="next page"': 'title="다음 페이지"',
    'title="previous page"': 'title="이전 페이지"',
    'title="Link to this heading"': 'title="이 제목으로 가는 링크"',
    'title="Link to this image"': 'title="이 그림으로 가는 링크"',
    'title="Link to this table"': 'title="이 표로 가는 링크"',
    'title="Link to this code"': 'title="이 코드로 가는 링크"',
    'aria-label="Launch interactive content"': 'aria-label="실행 환경에서 열기"',
    'title="Launch on Binder"': 'title="Binder에서 실행"',
    'title="Launch on Colab"': 'title="Colab에서 실행"',
    'title="Launch Thebe"': 'title="이 페이지에서 코드 실행 (Thebe, Binder 서버)"',
    'alt="Binder logo"': 'alt=""',  # 바로 옆에 "Binder" 글이 있는 꾸밈 그림
    'alt="Colab logo"': 'alt=""',
    "Please activate JavaScript to enable the search functionality.": "검색하려면 브라우저에서 자바스크립트를 켜 주세요.",
    "&#169; Copyright": "&#169;",
    "© Copyright": "©",
}


def korean_ui_strings(app: Sphinx, exception: Exception | None) -> None:
    """빌드가 끝나면 쓰인 HTML 파일의 ``UI_STRINGS`` 를 한국어로 바꿉니다 (여러 번 돌아도 같은 결과)."""
    if exception is not None or app.builder is None or app.builder.format != "html":
        return
    for path in Path(app.outdir).rglob("*.html"):
        text = path.read_text(encoding="utf-8")
        new = text
        for english, korean in UI_STRINGS.items():
            new = new.replace(english, korean)
        if new != text:
            path.write_text(new, encoding="utf-8")


#: sphinx-copybutton 0.5 의 단추 글(툴팁, 알림)에는 한국어가 없어 영어로 뜹니다. 빌드가 끝나면 복사된
#: ``_static/copybutton.js`` 의 ``messages`` 에 'ko' 를 더합니다 (<html lang="ko"> 이면 그것을 씀).
COPYBUTTON_KO = ("  'ko': {'copy': '복사', 'copy_to_clipboard': '클립보드에 복사', "
                 "'copy_success': '복사했습니다!', 'copy_failure': '복사하지 못했습니다'},\n")


def korean_copybutton(app: Sphinx, exception: Exception | None) -> None:
    """``copybutton.js`` 에 한국어 문구를 더합니다 (여러 번 돌아도 한 번만)."""
    if exception is not None or app.builder is None or app.builder.format != "html":
        return
    path = Path(app.outdir) / "_static" / "copybutton.js"
    if not path.is_file():
        return
    text = path.read_text(encoding="utf-8")
    if "'ko':" not in text:
        if "const messages = {\n" not in text:
            logger.warning("korean_ui: copybutton.js 의 messages 모양이 바뀌어 한국어를 더하지 못했습니다")
            return
        path.write_text(text.replace("const messages = {\n", "const messages = {\n" + COPYBUTTON_KO, 1),
                        encoding="utf-8")


_CELL_RE = re.compile(r"(<t[dh][\s>].*?</t[dh]>)", re.S)
_TAG_RE = re.compile(r"(<[^>]+>)")
#: 브라우저가 keep-all 에서도 줄을 바꾸는 문장 부호가 든 낱말 (공백 아닌 글자 둘 이상)
_BREAKABLE_TOKEN_RE = re.compile(r"[^\s<>]*[(\[)\]\-·/][^\s<>]*")


def _wrap_cell(cell: str) -> str:
    parts = _TAG_RE.split(cell)
    depth = 0  # <code>, <pre> 안은 그대로 (코드는 korean.css 가 한 줄로 둠)
    math = False  # 수식 <span class="math ...">\(...\)</span> 안도 그대로 (감싸면 MathJax 가 구분자를 못 찾음)
    for i, part in enumerate(parts):
        if i % 2 == 1:
            name = part[1:].split(None, 1)[0].rstrip(">").lower()
            if name in ("code", "pre"):
                depth += 1
            elif name in ("/code", "/pre"):
                depth = max(0, depth - 1)
            elif name == "span" and 'class="math' in part:
                math = True
            elif name == "/span":
                math = False
            continue
        if depth == 0 and not math and part.strip():
            parts[i] = _BREAKABLE_TOKEN_RE.sub(
                lambda m: f'<span class="attn-nobr">{m.group(0)}</span>' if len(m.group(0)) > 1 else m.group(0), part)
    return "".join(parts)


#: 수 하나뿐인 칸 (1,050,624 / 3.2배 / 6.6e-07 / 75% / 16.00 GiB): 오른쪽 정렬해 자릿수를 맞춥니다
_NUMBER_CELL_RE = re.compile(r"^[-+−]?(\d[\d,]*\.?\d*|\.\d+)(e[-+]?\d+)?\s*(%|배|×|ms|s|초|KiB|MiB|GiB|KB|MB|GB)?$")


def _mark_number_cell(cell: str) -> str:
    """칸의 글이 수 하나면 ``<td class="attn-num">`` (korean.css 가 오른쪽 정렬)."""
    text = html.unescape(_TAG_RE.sub("", cell)).strip()
    if not cell.startswith("<td") or not _NUMBER_CELL_RE.match(text):
        return cell
    end = cell.index(">") + 1
    opening = cell[:end]
    if ' class="' in opening:
        opening = opening.replace(' class="', ' class="attn-num ', 1)
    else:
        opening = '<td class="attn-num"' + opening[3:]
    return opening + cell[end:]


def keep_table_tokens_whole(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """본문 표 칸의 글에서 괄호·하이픈·가운뎃점·빗금이 든 낱말을 ``span.attn-nobr`` 로 감싸고, 수 칸을 표시합니다."""
    body = context.get("body")
    if isinstance(body, str) and "<td" in body:
        context["body"] = _CELL_RE.sub(lambda m: _mark_number_cell(_wrap_cell(m.group(1))), body)


#: 인라인 스크립트가 곧바로 쓰므로 동기로 두는 스크립트 (kept synchronous: inline scripts use them at once)
SYNC_SCRIPTS = {"_static/documentation_options.js"}


def defer_scripts(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """``script_files`` 의 외부 스크립트(인라인 아님, async/defer 아님)에 ``defer`` 를 붙입니다."""
    scripts = context.get("script_files")
    # 검색 페이지는 그대로: Sphinx 의 search.html 이 동기로 싣는 searchtools.js 가 doctools.js 의 _ready 를
    # 곧바로 부르고, search-snippets.js / search-ranking.js 가 Search.init 보다 먼저 Search 를 고쳐야 합니다.
    if pagename == "search" or not isinstance(scripts, list):
        return
    out = []
    for js in scripts:
        attrs = getattr(js, "attributes", None)
        filename = str(getattr(js, "filename", "") or "")
        if (isinstance(js, _JavaScript) and filename and filename not in SYNC_SCRIPTS and attrs is not None
                and not {"async", "defer"} & set(attrs) and "body" not in attrs):
            js = _JavaScript(js.filename, priority=js.priority, **{**attrs, "defer": "defer"})
        out.append(js)
    context["script_files"] = out


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", defer_scripts, priority=950)
    app.connect("html-page-context", keep_table_tokens_whole)
    app.connect("build-finished", korean_ui_strings)
    app.connect("build-finished", korean_copybutton)
    app.connect("config-inited", set_default_mode)
    app.add_css_file(KOREAN_CSS)
    app.add_css_file(ACCESSIBILITY_CSS)
    app.add_js_file(NAV_TOGGLE_JS, loading_method="defer")
    app.connect("html-page-context", drop_english_summary_label)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
