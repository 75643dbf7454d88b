"""Live Code(thebe)를 CDN 대신 사이트에서 싣게 하는 작은 Sphinx 확장.

A small Sphinx extension: the "Live Code" launch button loads thebe from the site itself.

sphinx-thebe 0.3.1 은 모든 페이지에 인라인 설정
``const THEBE_JS_URL = "https://unpkg.com/thebe@0.8.2/lib/index.js"; ...`` 를 넣고, 같은 스크립트가
페이지에 두 번 들어가 ``Identifier 'THEBE_JS_URL' has already been declared`` 오류가 납니다.
이 확장이 하는 일 (What it does):

1. 빌드 시작 때 ``_assets/vendor/thebe/`` 에 thebe 번들(``index.js``, ``thebe.css``)이 있는지
   확인하고, 없으면 ``make book`` 을 실행하라는 오류로 멈춥니다. (Makefile 이 ``npm pack`` 으로 받아
   무결성 값을 맞춰 본 뒤 복사합니다.)
2. 페이지마다(html-page-context) 그 인라인 설정을 **하나만** 남기고, ``THEBE_JS_URL`` 을 그
   페이지에서 본 상대 주소 ``.../_static/vendor/thebe/index.js`` 로 바꿉니다 (페이지 깊이와 무관).
   ``THEBE_CSS_URL`` 도 같은 방식으로 더합니다. (Keeps exactly one declaration, pointing at the
   site's own copy, relative to the page.)
3. 모든 페이지에 ``_static/js/thebe-local.js`` (``attn_site/static/js/``)를 넣습니다: sphinx-thebe(0.8 용)와 thebe 0.9 사이의
   호환층입니다 (``bootstrap()`` 에 ``requestKernel: true`` 를 넘기고, thebe.css 를 필요할 때 싣고,
   LaTeX 조판기가 CDN 의 MathJax 2 대신 ``_static/js/thebe-mathjax.js`` 어댑터를 싣게 함).
4. 이 확장이나 호환층이 바뀌면 모든 페이지를 다시 씁니다 (``attn_site/offline_assets.py`` 의 지문이
   이 패키지의 확장과 ``attn_site/static`` 의 js/css 를 덮습니다).

Binder 주소(``binderOptions``)는 sphinx-book-theme 가 ``_config.yml`` 의 ``repository.url`` 과
``repository.branch`` 로 ``thebe_config`` 에 채우므로 여기서는 건드리지 않습니다.
"""

from __future__ import annotations

import json
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.util import logging

from . import add_static_dir
from .offline_assets import static_dirs  # 같은 패키지의 확장 (extension in the same package)

logger = logging.getLogger(__name__)

#: ``html_static_path`` 안에서의 경로 (paths inside html_static_path)
THEBE_JS = "vendor/thebe/index.js"
THEBE_CSS = "vendor/thebe/thebe.css"
SHIM_JS = "js/thebe-local.js"
#: thebe 가 MathJax 2 대신 싣는 어댑터 (thebe-local.js 가 mathjaxUrl 로 넘김)
MATHJAX_ADAPTER_JS = "js/thebe-mathjax.js"
CONFIG_PREFIX = "const THEBE_JS_URL = "


def check_vendored_thebe(app: Sphinx) -> None:
    """사이트에 올릴 thebe 가 없으면 빌드를 멈춥니다 (fail if the vendored thebe is missing)."""
    if app.builder is None or app.builder.format != "html":
        return
    dirs = static_dirs(app)
    missing = [rel for rel in (THEBE_JS, THEBE_CSS, SHIM_JS, MATHJAX_ADAPTER_JS) if not any((d / rel).is_file() for d in dirs)]
    if missing:
        raise ExtensionError(
            "Live Code 용 thebe 파일이 없습니다: " + ", ".join(missing)
            + ". 먼저 `make book` 을 실행하세요: `npm pack thebe` 로 받아 무결성 값을 확인한 뒤 "
            "_assets/vendor/thebe/ 로 복사합니다.\n"
            "The vendored thebe files for Live Code are missing: " + ", ".join(missing)
            + ". Run `make book` first: it fetches thebe with `npm pack`, checks its integrity and "
            "copies it into _assets/vendor/thebe/."
        )


def _is_thebe_config(js: Any) -> bool:
    body = (getattr(js, "attributes", None) or {}).get("body", "")
    return not getattr(js, "filename", None) and body.lstrip().startswith(CONFIG_PREFIX)


def use_local_thebe(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """인라인 thebe 설정을 하나로 줄이고, 주소를 이 사이트의 사본으로 바꿉니다.

    ``script_files`` 는 빌더가 페이지마다 원래대로 되돌리는 목록이므로 그 자리에서 고칩니다
    (Sphinx restores the list after each page, so editing it in place is per page).
    """
    if app.builder.format != "html":
        return
    scripts = context.get("script_files")
    if not isinstance(scripts, list):
        return
    found = [i for i, js in enumerate(scripts) if _is_thebe_config(js)]
    if not found:
        if any("sphinx-thebe" in str(getattr(js, "filename", "") or "") for js in scripts):
            logger.warning("thebe_local: %s 에 sphinx-thebe 가 있는데 그 설정(%r 로 시작하는 인라인 스크립트)을 찾지 "
                           "못해 thebe 를 CDN 에서 싣게 됩니다 (sphinx-thebe 가 바뀜)", pagename, CONFIG_PREFIX)
        return
    pathto = context["pathto"]
    js_url = pathto(f"_static/{THEBE_JS}", 1)
    css_url = pathto(f"_static/{THEBE_CSS}", 1)
    first = scripts[found[0]]
    # 원래 설정: 'const THEBE_JS_URL = "<unpkg>"; const thebe_selector = ...' (세미콜론으로 이어짐)
    rest = first.attributes["body"].split(";", 1)[1] if ";" in first.attributes["body"] else ""
    body = f"{CONFIG_PREFIX}{json.dumps(js_url)}; const THEBE_CSS_URL = {json.dumps(css_url)};{rest}"
    attributes = {**first.attributes, "body": body}
    replacement = type(first)(first.filename, priority=first.priority, **attributes)
    for index in reversed(found[1:]):
        del scripts[index]
    scripts[found[0]] = replacement


def setup(app: Sphinx) -> dict[str, Any]:
    add_static_dir(app)  # js/thebe-local.js, js/thebe-mathjax.js (attn_site/static -> _static)
    app.add_js_file(SHIM_JS)
    app.connect("builder-inited", check_vendored_thebe)
    app.connect("html-page-context", use_local_thebe, priority=800)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
