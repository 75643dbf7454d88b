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
9. 테마의 영어 화면 글을 한국어로. 테마와 Sphinx 가 ``_()`` 로 넘기는 글은 번역 목록
   ``locales/ko/LC_MESSAGES/sphinx.po`` (``locale_dirs``)가, 템플릿에 박힌 글은 ``_templates/`` 의 덮어쓴 템플릿이,
   이어 붙인 실행 단추 툴팁("Launch on" + " Binder": 어순이 맞지 않음)은 :func:`korean_launch_buttons` 가, 차례 제목은
   :func:`korean_theme_options` 가 렌더링할 때 바꿉니다. 어느 것도 닿지 않는 글만 빌드가 끝난 뒤 HTML 에서 바꿉니다
   (``UI_STRINGS``, 맞는 곳이 없는 항목은 경고). 표에 없는 영어 글이 남으면 tests/test_site_layout.py 가 알립니다.
   (Theme strings come from a ko catalog, template overrides and render-time hooks; the after-build table is the rest.)
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
import json
import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.builders.html._assets import _JavaScript
from sphinx.util import logging

from . import add_static_dir

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


#: 빌드가 끝난 뒤 HTML 에서 바꾸는 영어 화면 글 -> 한국어. 번역 목록(locales/ko/LC_MESSAGES/sphinx.po), 덮어쓴 템플릿
#: (_templates/), 렌더링 때의 설정(:func:`korean_launch_buttons`, :func:`korean_theme_options`)이 닿지 않는 것만 둡니다.
#: 실행 단추의 로고 그림: sphinx-book-theme 의 macros/buttons.html 이 alt 를 "{{ translate(text) }} {{ translate("logo") }}"
#: 로 이어 붙여서 번역으로는 비울 수 없고, 바로 옆에 "Binder"/"Colab" 글이 있는 꾸밈 그림이므로 alt="" 로 둡니다.
#: 항목마다 빌드된 사이트 어딘가에서 맞아야 합니다: 맞는 곳이 없으면 경고(-W: 빌드 실패) (README '올릴 때').
UI_STRINGS: dict[str, str] = {
    'alt="Binder logo"': 'alt=""',
    'alt="Colab logo"': 'alt=""',
}

#: 실행 단추의 툴팁 (sphinx-book-theme 가 translation("Launch on") + " Binder" 처럼 이어 붙여 어순을 번역할 수 없음)
LAUNCH_TOOLTIPS = {
    "Binder": "Binder에서 실행",
    "Colab": "Colab에서 실행",
    "launch-thebe": "이 페이지에서 코드 실행 (Thebe, Binder 서버)",
}
LAUNCH_GROUP_TOOLTIP = "실행 환경에서 열기"
#: 인쇄용 차례와 사이드바 차례의 제목 (sphinx-book-theme 의 toc_title, 기본 "Contents")
TOC_TITLE = "차례"


def korean_theme_options(app: Sphinx, config: Any) -> None:
    """한국어 책이면 테마 옵션 ``toc_title`` 을 한국어로 (사용자가 정했으면 그대로)."""
    options = config.html_theme_options
    if (config.language or "").startswith("ko") and isinstance(options, dict):
        options.setdefault("toc_title", TOC_TITLE)


def korean_launch_buttons(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """실행 단추(Binder, Colab, Live Code)와 그 묶음의 툴팁을 한국어로 (테마의 ``add_launch_buttons`` 다음)."""
    if not (app.config.language or "").startswith("ko"):
        return
    for group in context.get("header_buttons") or []:
        if group.get("label") != "launch-buttons":
            continue
        group["tooltip"] = LAUNCH_GROUP_TOOLTIP
        for button in group.get("buttons", []):
            key = button.get("label") if button.get("label") in LAUNCH_TOOLTIPS else button.get("text")
            if key not in LAUNCH_TOOLTIPS:
                logger.warning("korean_ui: %s 의 실행 단추 %r 에 한국어 툴팁이 없습니다 (LAUNCH_TOOLTIPS)", pagename,
                               button.get("text"))
                continue
            button["tooltip"] = LAUNCH_TOOLTIPS[key]


#: 이번 빌드에서 쓴 페이지 (html-page-context). 증분 빌드에서 다시 쓰지 않은 페이지는 이미 바꾼 글이므로,
#: 그 페이지의 이전 빌드 기록(doctree 폴더의 :data:`UI_STATE`)을 씁니다.
_RENDERED: set[str] = set()
UI_STATE = "korean_ui_strings.json"


def record_rendered(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    _RENDERED.add(pagename)


def korean_ui_strings(app: Sphinx, exception: Exception | None) -> None:
    """빌드가 끝나면 쓰인 HTML 파일의 ``UI_STRINGS`` 를 한국어로 바꿉니다 (여러 번 돌아도 같은 결과).

    어느 페이지에서도 맞지 않은 항목은 경고합니다(-W: 빌드 실패): 테마를 올려 글이 바뀌었거나, 번역 목록이나 템플릿이
    이미 번역해 표에서 빼야 하는 항목입니다. 이번에 다시 쓰지 않은 페이지는 이전 빌드에서 센 수를 씁니다."""
    if exception is not None or app.builder is None or app.builder.format != "html":
        return
    outdir = Path(app.outdir)
    state_path = Path(app.doctreedir) / UI_STATE
    try:
        state = json.loads(state_path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        state = {}
    pages = {}
    for path in outdir.rglob("*.html"):
        page = path.relative_to(outdir).with_suffix("").as_posix()
        text = path.read_text(encoding="utf-8")
        counts = {english: text.count(english) for english in UI_STRINGS if english in text}
        new = text
        for english, korean in UI_STRINGS.items():
            new = new.replace(english, korean)
        if new != text:
            path.write_text(new, encoding="utf-8")
        pages[page] = counts if (page in _RENDERED or page not in state or counts) else state[page]
    state_path.parent.mkdir(parents=True, exist_ok=True)
    state_path.write_text(json.dumps(pages, ensure_ascii=False, sort_keys=True), encoding="utf-8")
    for english in UI_STRINGS:
        if not any(english in counts for counts in pages.values()):
            logger.warning("korean_ui: UI_STRINGS 의 %r 가 빌드된 HTML 어디에도 없습니다 (테마가 바뀌었거나 이미 "
                           "번역됨: 표에서 빼거나 고치세요)", english)


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
        logger.warning("korean_ui: _static/copybutton.js 가 없어 복사 단추를 한국어로 바꾸지 못했습니다")
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
    app.connect("config-inited", korean_theme_options)
    app.connect("html-page-context", korean_launch_buttons, priority=520)
    app.connect("html-page-context", record_rendered)
    add_static_dir(app)  # css/korean.css, css/accessibility.css, js/nav-toggle.js (attn_site/static -> _static)
    app.add_css_file(KOREAN_CSS)
    app.add_css_file(ACCESSIBILITY_CSS)
    app.add_js_file(NAV_TOGGLE_JS, loading_method="defer")
    app.connect("html-page-context", drop_english_summary_label)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
