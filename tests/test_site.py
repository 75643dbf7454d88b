"""빌드된 정적 사이트(_build/html)를 HTML 만 읽어 검사합니다 (브라우저 없음).

Checks the built static site by parsing its HTML: every page of the table of contents
exists, nothing is loaded from another host (no CDN), the pages are Korean, the vendored
front-end assets are in place, and the footer reads well in Korean.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlparse

import pytest

pytestmark = pytest.mark.site

# 사이트에서 네트워크를 쓰는 것은 실행 단추(Binder, Colab, 저장소)뿐이고, 그 주소는 <a href> 에만
# 있어야 합니다. Live Code(thebe)도 사이트의 사본을 씁니다 (attn_site/thebe_local.py).
# (Launch-related remote URLs may appear only in the href of links, never in scripts.)
LAUNCH_HOSTS = {"mybinder.org", "colab.research.google.com", "github.com"}
REMOTE_URL = re.compile(r"""(?:https?:)?//[\w.-]+\.[a-z]{2,}[^\s'"`]*""")

EXECUTABLE_SCRIPT_TYPES = {"", "text/javascript", "application/javascript", "module"}
RESOURCE_LINK_RELS = {"stylesheet", "preload", "modulepreload", "prefetch", "icon", "shortcut", "manifest",
                      "apple-touch-icon", "mask-icon"}
VENDORED = [
    "_static/js/offline-setup.js",
    "_static/vendor/mathjax/tex-chtml.js",
    "_static/vendor/mathjax/output/chtml/fonts/woff-v2/MathJax_Main-Regular.woff",
    "_static/vendor/mathjax/input/tex/extensions/boldsymbol.js",
    "_static/vendor/requirejs/require.js",
    "_static/vendor/html-manager/embed-amd.js",
]
CSS_URL = re.compile(r"""(?:url\(\s*['"]?|@import\s+['"])\s*((?:https?:)?//[^'")\s]+)""", re.I)


def is_remote(url: str | None) -> bool:
    if not url:
        return False
    url = url.strip()
    return url.startswith("//") or urlparse(url).scheme in {"http", "https", "ftp", "ws", "wss"}


class PageParser(HTMLParser):
    """페이지에서 자원 로드, 인라인 스크립트, <html lang> 을 모읍니다."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lang: str | None = None
        self.loads: list[tuple[str, str]] = []  # (태그 설명, 주소)
        self.inline_scripts: list[str] = []
        self.script_srcs: list[str] = []
        self._script_type: str | None = None
        self._script_body: list[str] = []
        self.author_texts: list[str] = []
        self._in_author = False

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        attrs = {k: (v or "") for k, v in attrs_list}
        if tag == "html":
            self.lang = attrs.get("lang")
        if tag == "script":
            if "src" in attrs:
                self.loads.append(("script src", attrs["src"]))
                self.script_srcs.append(attrs["src"])
                self._script_type = None
            else:
                self._script_type = attrs.get("type", "").strip().lower()
                self._script_body = []
        elif tag == "link":
            rels = set(attrs.get("rel", "").lower().split())
            if rels & RESOURCE_LINK_RELS:
                self.loads.append((f"link rel={attrs.get('rel')}", attrs.get("href", "")))
        elif tag in {"img", "iframe", "embed", "source", "audio", "video", "track", "input"}:
            for key in ("src", "poster"):
                if key in attrs:
                    self.loads.append((f"{tag} {key}", attrs[key]))
            for part in attrs.get("srcset", "").split(","):
                if part.strip():
                    self.loads.append((f"{tag} srcset", part.split()[0]))
        elif tag == "object" and "data" in attrs:
            self.loads.append(("object data", attrs["data"]))
        if "style" in attrs:
            for url in CSS_URL.findall(attrs["style"]):
                self.loads.append((f"{tag} style", url))
        if "component-author" in attrs.get("class", "").split():
            self._in_author = True
            self.author_texts.append("")

    def handle_endtag(self, tag: str) -> None:
        if tag == "script" and self._script_type is not None:
            self.inline_scripts.append(self._script_type + "\0" + "".join(self._script_body))
            self._script_type = None
        if tag == "p" and self._in_author:
            self._in_author = False

    def handle_data(self, data: str) -> None:
        if self._script_type is not None:
            self._script_body.append(data)
        if self._in_author:
            self.author_texts[-1] += data


class AttributeParser(HTMLParser):
    """모든 속성 값과 스크립트 본문을 (어디, 값) 으로 모읍니다 (본문 글자는 뺌)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.values: list[tuple[str, str]] = []
        self._in_script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.values.extend((f"{tag} {key}", value or "") for key, value in attrs)
        self._in_script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._in_script = False

    def handle_data(self, data: str) -> None:
        if self._in_script:
            self.values.append(("script", data))


def parse(path: Path) -> PageParser:
    parser = PageParser()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser


@pytest.fixture(scope="module")
def built_pages(html_dir: Path) -> dict[str, PageParser]:
    pages = {p.relative_to(html_dir).as_posix(): parse(p) for p in sorted(html_dir.rglob("*.html"))}
    assert pages, f"{html_dir} 에 HTML 이 없습니다"
    return pages


def test_every_toc_page_is_built(html_dir: Path, toc_docnames: list[str]) -> None:
    missing = [d for d in toc_docnames if not (html_dir / f"{d}.html").is_file()]
    assert not missing, f"목차에 있지만 빌드되지 않은 페이지 (in _toc.yml but not built): {missing}"
    assert (html_dir / "index.html").is_file()


def test_no_resource_is_loaded_from_another_host(built_pages: dict[str, PageParser]) -> None:
    remote = [
        f"{page}: <{what}> {url}"
        for page, parsed in built_pages.items()
        for what, url in parsed.loads
        if is_remote(url)
    ]
    assert not remote, "CDN 이나 다른 호스트에서 불러오는 자원 (remote resources):\n" + "\n".join(remote)


def test_inline_scripts_mention_no_remote_url(built_pages: dict[str, PageParser]) -> None:
    bad = []
    thebe_seen = False
    for page, parsed in built_pages.items():
        for entry in parsed.inline_scripts:
            script_type, body = entry.split("\0", 1)
            if script_type not in EXECUTABLE_SCRIPT_TYPES:
                continue  # 위젯 상태 JSON, thebe 설정 등 실행되지 않는 데이터 (not executed)
            thebe_seen |= "const THEBE_JS_URL = " in body
            for url in REMOTE_URL.findall(body):
                bad.append(f"{page}: {url}")
    assert not bad, "인라인 스크립트 안의 외부 주소 (remote URLs in inline scripts):\n" + "\n".join(bad)
    # 예전에 유일한 예외였던 sphinx-thebe 설정이 여전히 검사 대상인지 확인 (the check still sees it)
    assert thebe_seen, "THEBE_JS_URL 인라인 설정이 없습니다: sphinx-thebe 나 attn_site/thebe_local.py 가 바뀌었는지 보세요"


def test_launch_urls_appear_only_in_link_hrefs(html_dir: Path) -> None:
    """실행 단추의 외부 주소(Binder, Colab, 저장소)는 <a href> 에만 있습니다: 스크립트나 다른 속성에는 없음."""
    bad, in_links = [], 0
    for path in sorted(html_dir.rglob("*.html")):
        parser = AttributeParser()
        parser.feed(path.read_text(encoding="utf-8"))
        for where, value in parser.values:
            for url in REMOTE_URL.findall(value):
                host = urlparse(url if "//" in url[:8] else "https:" + url).hostname or ""
                if host in LAUNCH_HOSTS and where != "a href":
                    bad.append(f"{path.relative_to(html_dir)}: <{where}> {url}")
                in_links += host in LAUNCH_HOSTS and where == "a href"
    assert not bad, "링크가 아닌 곳의 실행 주소 (launch URLs outside link hrefs):\n" + "\n".join(bad)
    assert in_links, "실행 단추 링크를 하나도 찾지 못했습니다: 검사가 아무것도 보지 않습니다"


def test_css_files_load_nothing_remote(html_dir: Path) -> None:
    bad = []
    for css in sorted(html_dir.rglob("*.css")):
        for url in CSS_URL.findall(css.read_text(encoding="utf-8", errors="replace")):
            bad.append(f"{css.relative_to(html_dir)}: {url}")
    assert not bad, "CSS 안의 외부 자원 (remote url()/@import in CSS):\n" + "\n".join(bad)


def test_pages_are_korean(built_pages: dict[str, PageParser], toc_docnames: list[str]) -> None:
    for docname in toc_docnames:
        assert built_pages[f"{docname}.html"].lang == "ko", f"{docname}.html 의 <html lang> 이 ko 가 아닙니다"


def test_vendored_assets_are_published(html_dir: Path) -> None:
    missing = [rel for rel in VENDORED if not (html_dir / rel).is_file()]
    assert not missing, f"사이트에 없는 자산 (missing from the site): {missing}"
    fonts = list((html_dir / "_static/vendor/html-manager").glob("*.woff2"))
    assert fonts, "html-manager 의 글꼴(font-awesome woff2)이 사이트에 없습니다"


def test_every_page_loads_offline_setup_before_mathjax_and_widgets(
    built_pages: dict[str, PageParser], toc_docnames: list[str]
) -> None:
    for docname in toc_docnames:
        srcs = [urlparse(s).path for s in built_pages[f"{docname}.html"].script_srcs]
        setup = [i for i, s in enumerate(srcs) if s.endswith("_static/js/offline-setup.js")]
        assert len(setup) == 1, f"{docname}: offline-setup.js 가 한 번 있어야 합니다: {srcs}"
        later = [s for s in srcs if re.search(r"vendor/(mathjax|requirejs|html-manager)/", s)]
        for src in later:
            assert srcs.index(src) > setup[0], f"{docname}: {src} 가 offline-setup.js 보다 먼저 옵니다"


def test_mathjax_config_comes_before_offline_setup(html_dir: Path, toc_docnames: list[str]) -> None:
    """MathJax 설정 다음에 offline-setup.js, 그리고 MathJax 는 페이지에 없음 (수식은 빌드 때 SVG).

    offline-setup.js 의 호환층이 Live Code 나 위젯의 첫 조판 요청 때 MathJax 를 불러옵니다.
    """
    for docname in toc_docnames:
        html = (html_dir / f"{docname}.html").read_text(encoding="utf-8")
        assert "vendor/mathjax/tex-chtml.js" not in html, f"{docname}: 페이지가 MathJax 를 싣습니다"
        config = html.find("window.MathJax = ")
        if config == -1:
            continue  # 수식도 위젯도 없는 페이지 (no math on this page)
        setup = html.find("_static/js/offline-setup.js")
        assert -1 < config < setup, f"{docname}: 스크립트 순서가 틀렸습니다"


def test_no_cdn_defaults_remain(html_dir: Path) -> None:
    for page in html_dir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert "data-jupyter-widgets-cdn=" not in html, f"{page}: 위젯 CDN 속성이 남아 있습니다"
        for cdn in ("cdn.jsdelivr.net", "cdnjs.cloudflare.com", "unpkg.com/@jupyter-widgets"):
            assert cdn not in html, f"{page}: {cdn} 가 남아 있습니다"


def test_author_footer_reads_naturally_in_korean(built_pages: dict[str, PageParser], toc_docnames: list[str]) -> None:
    for docname in toc_docnames:
        texts = [" ".join(t.split()) for t in built_pages[f"{docname}.html"].author_texts]
        assert texts, f"{docname}: 지은이 꼬리말이 없습니다 (no author footer)"
        for text in texts:
            assert text.startswith("지은이: "), f"{docname}: 꼬리말이 어색합니다: {text!r}"
            assert "으로" not in text and "By" not in text, f"{docname}: {text!r}"


def test_no_unrendered_myst_roles_or_directives_in_pages(html_dir: Path, toc_docnames: list[str]) -> None:
    """셀 출력의 마크다운(display(Markdown(...)))은 CommonMark로만 그려지므로 {cite:p}`...`, {ref}`...`,
    ```{admonition} 같은 MyST 문법이 글자 그대로 남습니다. 그런 것은 마크다운 셀에 쓰세요."""
    role = re.compile(r"\{(cite:p|cite:t|cite|ref|doc|numref|eq|term)\}\s*(?:`|<code)")
    leftovers = {}
    for doc in toc_docnames:
        text = re.sub(r"<pre.*?</pre>", " ", (html_dir / f"{doc}.html").read_text(encoding="utf-8"), flags=re.S)
        found = role.findall(text) + re.findall(r"```\{[a-z-]+\}|<code[^>]*>\{[a-z-]+\}", text)
        if found:
            leftovers[doc] = found
    assert not leftovers, leftovers
