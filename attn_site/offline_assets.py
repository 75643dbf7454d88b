"""오프라인으로 동작하는 사이트를 위한 작은 Sphinx 확장.

A small Sphinx extension so the built site works with no network (no CDN).

하는 일 (What it does):

1. 빌드 시작 때 ``_assets/vendor/`` 에 MathJax 3, RequireJS, Jupyter 위젯
   html-manager 사본이 있는지 확인하고, 없으면 ``make book`` 을 실행하라는
   오류로 멈춥니다. (Fails loudly if the vendored assets are missing.)
2. 모든 페이지에 ``_static/js/offline-setup.js`` 를 넣습니다. 순서는
   인라인 ``window.MathJax = {...}`` 설정 스크립트 **다음**, MathJax 본체와
   require.js / embed-amd.js **앞** 입니다. 이 스크립트가 위젯 글꼴 경로와
   MathJax 2 호환 ``MathJax.Hub.Queue`` 를 준비합니다.
   (Injects the setup script on every page, after the inline MathJax config
   and before MathJax, require.js and the widget manager.)
3. 위젯이 있는 페이지에는 수식이 없어도 MathJax 를 싣습니다. 위젯 라벨의
   ``$...$`` 를 html-manager 가 MathJax 로 조판하기 때문입니다.
   (Pages with ipywidgets also load MathJax, which typesets widget labels.)
4. 한국어 페이지에서 검색창 안내 문구를 한국어로 바꿉니다
   (Jupyter Book 은 영어 문구를 고정으로 넣습니다).
5. 이 패키지(``attn_site``)의 확장, 책이 직접 쓴 js/css(``attn_site/static/``), ``_templates/``, package-lock.json 이
   바뀌면 모든 페이지를 다시 쓰게 합니다 (``offline_assets_digest``). 이 패키지의 다른 확장(korean_search,
   thebe_local, ...)도 이 지문 하나에 기댑니다: 따로 지문을 두지 마세요. 다시 쓰는 페이지는 검색
   색인에도 다시 들어갑니다. (One digest for every local extension and the book's own js/css.)
6. 노트북이 저장한 위젯 상태 가운데 페이지에 보이는 위젯에 필요한 것만 남깁니다. 출력 하나에
   위젯 보기와 ``text/html`` 이 함께 있고 웹사이트가 ``text/html`` 을 고르면(정적 어텐션 탐색기,
   ``nb_mime_priority_overrides``) 그 위젯의 상태는 쓸모가 없습니다. 보이는 위젯이 하나도 없으면
   상태와 require.js / embed-amd.js 를 빼서, 빈 위젯 관리자를 싣지 않습니다.
   (Prunes the saved widget state to the models the page's widget views reach; drops the
   widget scripts when no widget view is left.)
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

from . import STATIC_DIR, add_static_dir

logger = logging.getLogger(__name__)

#: ``html_static_path`` 안에서의 경로 (paths inside html_static_path): 파일은 ``attn_site/static/js/``
SETUP_JS = "js/offline-setup.js"
#: 위젯 페이지 표시 (offline-setup.js 가 require.js 경로를 설정함)
WIDGETS_PAGE_ATTR = "data-jupyter-widgets-page"
REQUIRED_VENDOR_FILES = (
    "vendor/mathjax/tex-chtml.js",
    "vendor/mathjax/output/chtml/fonts/woff-v2",
    "vendor/mathjax/input/tex/extensions",
    "vendor/requirejs/require.js",
    "vendor/html-manager/embed-amd.js",
)
WIDGET_STATE_MIME = "application/vnd.jupyter.widget-state+json"
WIDGET_VIEW_RE = re.compile(r'<script type="application/vnd\.jupyter\.widget-view\+json">(.*?)</script>', re.S)
# 다른 모델을 가리키는 방법: 자식 목록 등의 "IPY_MODEL_<id>", Output 위젯 출력 속의 widget-view {"model_id": "<id>"}
MODEL_REF_RE = re.compile(r'IPY_MODEL_([0-9a-f]+)|"model_id":\s*"([0-9a-f]+)"')
JB_DEFAULT_SEARCH_TEXT = "Search this book..."
KO_SEARCH_TEXT = "이 책에서 검색..."


def static_dirs(app: Sphinx) -> list[Path]:
    """책 폴더 안의 html_static_path 와 이 패키지의 ``static/`` (다른 확장이 더한 패키지 안의 폴더는 뺌).

    이 패키지의 ``static/`` 은 설치한 자리(editable 이면 책 폴더 안, 아니면 site-packages)와 관계없이 넣습니다.
    """
    confdir = Path(app.confdir).resolve()
    dirs = [(confdir / p).resolve() for p in app.config.html_static_path]
    dirs = [d for d in dirs if d.is_relative_to(confdir)]
    return dirs if STATIC_DIR in dirs else [*dirs, STATIC_DIR]


def check_vendor_assets(app: Sphinx) -> None:
    """``_assets/vendor`` 가 없으면 빌드를 멈춥니다 (fail if vendored assets are missing)."""
    if app.builder is None or app.builder.format != "html":
        return
    dirs = static_dirs(app)
    missing = [
        rel for rel in (SETUP_JS, *REQUIRED_VENDOR_FILES) if not any((d / rel).exists() for d in dirs)
    ]
    if missing:
        where = ", ".join(str(d) for d in dirs) or "(html_static_path 비어 있음 / empty)"
        raise ExtensionError(
            "오프라인 자산이 없습니다: "
            + ", ".join(missing)
            + f" ({where} 안에서 찾음). 먼저 `make book` 을 실행하세요: node_modules 의 "
            "MathJax, RequireJS, 위젯 html-manager 를 _assets/vendor/ 로 복사합니다.\n"
            "Offline front-end assets are missing: "
            + ", ".join(missing)
            + f" (looked in {where}). Run `make book` first: it copies MathJax, RequireJS "
            "and the widget html-manager from node_modules into _assets/vendor/."
        )


def record_assets_digest(app: Sphinx, config: Any) -> None:
    """확장, 책의 js/css, 템플릿, package-lock.json 의 지문을 설정값으로 둡니다.

    Sphinx 는 정적 파일이나 확장 코드가 바뀐 것만으로는 페이지를 다시 쓰지 않아서, 페이지의
    ``?v=`` 지문과 스크립트 순서가 낡은 채 남습니다. 'html' 설정값이 바뀌면 모든 페이지를 다시
    쓰므로, 이 지문을 그런 설정값으로 둡니다. (Changing this 'html' config value makes Sphinx
    rewrite every page, which it would not do for a changed static file or extension.)
    """
    confdir = Path(app.confdir)
    digest = hashlib.sha256()
    # 이 패키지의 모든 확장, 책이 직접 쓴 js/css (attn_site/static), 덮어쓴 템플릿, package-lock.json (vendor 는 빼고)
    watched = [*sorted(Path(__file__).parent.glob("*.py"))]
    for static in static_dirs(app):
        watched += sorted(p for p in static.rglob("*") if p.suffix in {".js", ".css"} and "vendor" not in p.parts)
    watched += sorted((confdir / "_templates").glob("*.html")) + [confdir / "package-lock.json"]
    for path in watched:
        if path.is_file():
            digest.update(path.name.encode("utf-8") + b"\0" + path.read_bytes())
    config.offline_assets_digest = digest.hexdigest()[:16]


def localize_theme_strings(app: Sphinx, config: Any) -> None:
    """Jupyter Book 이 고정으로 넣는 영어 검색 문구를 한국어로 바꿉니다."""
    options = config.html_theme_options
    if (config.language or "").startswith("ko") and isinstance(options, dict):
        if options.get("search_bar_text", JB_DEFAULT_SEARCH_TEXT) == JB_DEFAULT_SEARCH_TEXT:
            options["search_bar_text"] = KO_SEARCH_TEXT


def _widget_js_files(app: Sphinx) -> set[str]:
    return set(getattr(app.config, "nb_ipywidgets_js", None) or {})


def _shown_widget_ids(context: dict) -> set[str]:
    """페이지 본문에 있는 위젯 보기(widget-view)의 model_id."""
    ids = set()
    for match in WIDGET_VIEW_RE.finditer(context.get("body") or ""):
        try:
            ids.add(json.loads(match.group(1))["model_id"])
        except (ValueError, KeyError, TypeError):
            logger.warning("offline_assets: 위젯 보기 JSON 을 읽지 못했습니다: %r", match.group(1)[:200])
    return ids


def _page_has_widgets(app: Sphinx, pagename: str, context: dict) -> bool:
    """저장된 위젯 상태가 있고, 본문에 위젯 보기가 하나라도 있는 페이지."""
    nb_metadata = getattr(app.env, "nb_metadata", None) or {}
    saved = "ipywidgets_state" in nb_metadata.get(pagename, {}).get("js_files", {})
    return saved and bool(_shown_widget_ids(context))


def prune_widget_state(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """위젯 상태를 보이는 위젯이 닿는 모델로 줄이고, 보이는 위젯이 없으면 위젯 스크립트를 뺍니다.

    Runs after myst-nb has added the page's widget scripts (priority 500) and before
    ``insert_setup_script`` (900). Model references inside a state are ``"IPY_MODEL_<id>"`` or,
    for widgets shown inside an Output widget, a widget-view ``{"model_id": "<id>"}``.
    """
    if app.builder.format != "html":
        return
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    index = next((i for i, js in enumerate(scripts)
                  if (getattr(js, "attributes", None) or {}).get("type") == WIDGET_STATE_MIME), None)
    if index is None:
        return
    state_js = scripts[index]
    try:
        saved = json.loads(state_js.attributes["body"])
        models = saved["state"]
    except (KeyError, ValueError, TypeError):
        logger.warning("offline_assets: %s 의 위젯 상태를 읽지 못해 그대로 둡니다", pagename)
        return
    keep: set[str] = set()
    todo = [i for i in _shown_widget_ids(context) if i in models]
    while todo:
        model_id = todo.pop()
        if model_id in keep:
            continue
        keep.add(model_id)
        refs = (a or b for a, b in MODEL_REF_RE.findall(json.dumps(models[model_id])))
        todo.extend(r for r in refs if r in models)
    if keep:
        saved["state"] = {k: v for k, v in models.items() if k in keep}
        body = json.dumps(saved).replace("</script>", r"<\/script>")  # myst-nb 과 같은 처리
        attributes = {**state_js.attributes, "body": body}
        scripts[index] = type(state_js)(state_js.filename, priority=state_js.priority, **attributes)
        return
    widget_js = {f"_static/{name}" for name in _widget_js_files(app)} | _widget_js_files(app)
    scripts[:] = [js for i, js in enumerate(scripts)
                  if i != index and getattr(js, "filename", None) not in widget_js]


def load_mathjax_for_widgets(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """위젯 페이지도 '수식 있음' 으로 표시해 sphinx.ext.mathjax 가 MathJax 를 싣게 합니다.

    Runs before ``sphinx.ext.mathjax.install_mathjax`` (listener priority 400 < 500).
    """
    if app.builder.format != "html" or not _page_has_widgets(app, pagename, context):
        return
    math_domain = app.env.get_domain("math")
    math_domain.data.setdefault("has_equations", {})[pagename] = True


def _is_mathjax_config(js: Any) -> bool:
    body = (getattr(js, "attributes", None) or {}).get("body", "")
    return not getattr(js, "filename", "") and body.lstrip().startswith("window.MathJax")


def insert_setup_script(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """모든 페이지에 offline-setup.js 를 알맞은 자리에 넣습니다.

    Sphinx sorts ``script_files`` by priority with a stable sort, so equal priorities keep
    list order. This listener runs last (priority 900), after sphinx.ext.mathjax and myst-nb
    have added their scripts, and rearranges the page's list in place:
    ``[..., window.MathJax = {...}, offline-setup.js, <MathJax / require.js / embed-amd.js>]``.
    """
    if app.builder.format != "html":
        return
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        logger.warning("offline_assets: script_files 가 목록이 아닙니다 (%s): %r", pagename, type(scripts))
        return

    targets = {app.config.mathjax_path, *_widget_js_files(app)}

    def first_target() -> int | None:
        return next((i for i, js in enumerate(scripts) if getattr(js, "filename", None) in targets), None)

    config_idx = [i for i, js in enumerate(scripts) if _is_mathjax_config(js)]
    if config_idx:
        # 설정 스크립트가 MathJax/위젯 스크립트보다 늦게 있으면 그 앞으로 옮깁니다.
        config_js = scripts.pop(config_idx[-1])
        first = first_target()
        pos = config_idx[-1] if first is None else min(config_idx[-1], first)
        scripts.insert(pos, config_js)
        pos, priority = pos + 1, config_js.priority
    elif (first := first_target()) is not None:
        pos, priority = first, scripts[first].priority
    else:
        pos, priority = len(scripts), 500

    attrs = {WIDGETS_PAGE_ATTR: "true"} if _page_has_widgets(app, pagename, context) else {}
    app.builder.add_js_file(SETUP_JS, priority=priority, **attrs)  # appended to this same list
    scripts.insert(pos, scripts.pop())


def setup(app: Sphinx) -> dict[str, Any]:
    add_static_dir(app)  # js/offline-setup.js (attn_site/static -> _static)
    app.add_config_value("offline_assets_digest", "", "html", types=[str])
    app.connect("config-inited", record_assets_digest)
    app.connect("config-inited", localize_theme_strings)
    app.connect("builder-inited", check_vendor_assets)
    app.connect("html-page-context", load_mathjax_for_widgets, priority=400)
    app.connect("html-page-context", prune_widget_state, priority=600)
    app.connect("html-page-context", insert_setup_script, priority=900)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
