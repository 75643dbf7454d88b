"""공용 pytest 픽스처 (shared pytest fixtures).

- 저장소 경로와 목차: ``repo_root``, ``toc_docnames``
- 빌드된 사이트: ``html_dir`` (``_build/html``; 없으면 ``make book`` 하라는 메시지로 실패)
- 로컬 HTTP 서버: ``site_url`` (127.0.0.1, 빈 포트, ``_build/html`` 을 보여 줌)
- 헤드리스 Chromium: ``browser``, ``open_offline_page`` (테스트마다 새 페이지),
  ``offline_browser`` (모듈 단위); 127.0.0.1 밖 요청은 모두 막고 기록합니다.

새 픽스처는 이 파일의 알맞은 절에 더하세요. 테스트 하나만 쓰는 도우미는 그 테스트 파일에 둡니다.
"""

from __future__ import annotations

import functools
import http.server
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import urlparse

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
HTML_DIR = ROOT / "_build" / "html"
SCREENSHOT_DIR = ROOT / "_build" / "screenshots"

# ---------------------------------------------------------------------------------------
# 표시(marker)와 빠른 고리 (markers for `make test-fast`, xdist groups for `make test`)
# ---------------------------------------------------------------------------------------

#: 파일 단위 표시: 파일마다 고치지 않고 여기서 붙입니다 (테스트 파일 머리의 pytestmark 도 그대로 쓰임).
#: - training: 작은 모델을 학습하거나 장의 학습 실험을 다시 돌림 (몇 분)
#: - grading: otter 로 과제를 만들거나 채점함 (dist/, 커널을 띄움)
#: - slow: 노트북을 실행하거나 wheel·venv 를 만듦
#: 새 파일이 이런 일을 하면 여기에 더하세요. `make test-fast` 는 이 셋과 site, browser 를 뺍니다.
FILE_MARKERS: dict[str, tuple[str, ...]] = {
    "test_head_sweep.py": ("training",),
    "test_seq2seq.py": ("training",),
    "test_sinks.py": ("training",),
    "test_assignments.py": ("grading", "slow"),
    "test_grading_sandbox.py": ("grading", "slow"),
    "test_grading_forgery.py": ("grading", "slow"),
    "test_coursework_compare.py": ("grading",),
    "test_notebooks.py": ("slow",),
    "test_packaging.py": ("slow",),
    "test_colab.py": ("slow",),
}
#: 이 픽스처를 쓰는 테스트는 빌드된 사이트(site)나 브라우저(browser)가 필요합니다
SITE_FIXTURES = frozenset({"html_dir", "site_url"})
BROWSER_FIXTURES = frozenset({"browser", "open_offline_page", "offline_browser", "screenshot_dir"})
#: `make test` 는 pytest-xdist 로 두 코어를 씁니다 (-n 2 --dist loadfile: 파일마다 한 작업자라 모듈 픽스처와 파일 안의
#: 순서가 그대로). 채점(grading)과 학습(training) 파일은 그 뒤에 따로 한 프로세스에서 차례로 돕니다 (Makefile).
#: (--dist loadgroup 과 xdist_group 은 이 환경의 pytest 9.2 + pytest-xdist 3.8 에서 묶지 못해 쓰지 않습니다.)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        for name in FILE_MARKERS.get(item.path.name, ()):
            item.add_marker(getattr(pytest.mark, name))
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & BROWSER_FIXTURES or item.get_closest_marker("browser"):
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.site)
        elif fixtures & SITE_FIXTURES:
            item.add_marker(pytest.mark.site)


@pytest.fixture(scope="session", autouse=True)
def _course_setup() -> None:
    """장의 첫 셀처럼 ``attn_course.setup()``을 한 번 (한글 글꼴, 그림 PNG 의 대체 텍스트).

    ``import attn_course``만으로는 전역 설정이 바뀌지 않으므로(tests/test_packaging.py), 그림을 그리는 테스트도 장과
    같은 준비에서 돕니다."""
    import attn_course

    attn_course.setup()


# ---------------------------------------------------------------------------------------
# 목차 (table of contents)
# ---------------------------------------------------------------------------------------


def read_toc_docnames(toc_path: Path = ROOT / "_toc.yml") -> list[str]:
    """``_toc.yml`` 의 모든 문서 이름 (확장자 없음, 예: ``chapters/02_multi_head``), 목차 순서대로."""
    toc = yaml.safe_load(toc_path.read_text(encoding="utf-8"))
    names = [toc["root"]]

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            if "file" in node:
                names.append(node["file"])
            for key in ("parts", "chapters", "sections"):
                for child in node.get(key, []) or []:
                    walk(child)
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(toc)
    return [re.sub(r"\.(md|ipynb)$", "", n) for n in names]


@pytest.fixture(scope="session")
def repo_root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def toc_docnames() -> list[str]:
    return read_toc_docnames()


# ---------------------------------------------------------------------------------------
# 빌드된 사이트 (built site)
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def html_dir() -> Path:
    """``_build/html``. 건너뛰지 않습니다: `make test` 는 항상 먼저 빌드하므로 없으면 실패입니다."""
    if not (HTML_DIR / "index.html").is_file():
        pytest.fail(
            f"빌드된 사이트가 없습니다: {HTML_DIR / 'index.html'}. 먼저 `make book` 을 실행하세요 "
            "(`make test` 는 자동으로 빌드합니다). / The built site is missing: run `make book` "
            "first (`make test` builds it for you).",
            pytrace=False,
        )
    return HTML_DIR


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@pytest.fixture(scope="session")
def site_url(html_dir: Path) -> Iterator[str]:
    """``_build/html`` 을 127.0.0.1 의 빈 포트에서 보여 주는 서버 주소 (끝에 ``/``)."""
    handler = functools.partial(_QuietHandler, directory=str(html_dir))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------------------------------
# 브라우저 (headless Chromium through Playwright; never `playwright install`)
# ---------------------------------------------------------------------------------------

CHROMIUM_PATH = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP_VIEWPORT = {"width": 1280, "height": 800}
PHONE_VIEWPORT = {"width": 390, "height": 844}
#: ``open_offline_page(**VIEWPORT_OPTIONS[이름])``: 휴대폰(터치, 모바일)과 노트북 화면
VIEWPORT_OPTIONS = {
    "phone": {"viewport": PHONE_VIEWPORT, "is_mobile": True, "has_touch": True},
    "laptop": {"viewport": DESKTOP_VIEWPORT},
}
LOCAL_HOSTS = {"127.0.0.1"}


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    if not Path(CHROMIUM_PATH).exists():
        pytest.fail(
            f"Chromium 이 없습니다 ({CHROMIUM_PATH}). `make test` 가 설치하거나 설치 명령을 알려 줍니다: "
            "sudo apt-get update && sudo apt-get install -y chromium fonts-nanum",
            pytrace=False,
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        chromium = pw.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS, headless=True)
        try:
            yield chromium
        finally:
            chromium.close()


@dataclass
class OfflinePage:
    """브라우저 페이지 하나와 그동안 기록한 것 (a page plus what happened while it ran)."""

    page: Any
    base_url: str
    external_requests: list[str] = field(default_factory=list)  # 막은 요청 (aborted)
    page_errors: list[str] = field(default_factory=list)  # 잡히지 않은 JS 예외
    console_errors: list[str] = field(default_factory=list)
    failed_local: list[str] = field(default_factory=list)  # 로컬 요청 실패, HTTP >= 400
    local_responses: dict[str, int] = field(default_factory=dict)  # 경로 -> 상태 코드

    def goto(self, docname_or_path: str, **kwargs: Any) -> Any:
        path = docname_or_path if docname_or_path.endswith(".html") else f"{docname_or_path}.html"
        kwargs.setdefault("wait_until", "networkidle")
        return self.page.goto(self.base_url + path, **kwargs)


class OfflineBrowser:
    """브라우저 컨텍스트를 열고 닫습니다. 127.0.0.1 밖으로 가는 요청은 모두 막고 기록합니다.

    Opens browser contexts in which every request whose host is not 127.0.0.1 is aborted and
    recorded, so a page that works here works with no network at all.
    """

    def __init__(self, browser: Any, site_url: str) -> None:
        self.browser = browser
        self.site_url = site_url
        self._contexts: list[Any] = []

    def open(self, viewport: dict[str, int] | None = None, **context_options: Any) -> OfflinePage:
        context = self.browser.new_context(viewport=viewport or DESKTOP_VIEWPORT, **context_options)
        self._contexts.append(context)
        page = context.new_page()
        probe = OfflinePage(page=page, base_url=self.site_url)

        def route(route: Any) -> None:
            url = route.request.url
            if urlparse(url).hostname in LOCAL_HOSTS:
                route.continue_()
            else:
                probe.external_requests.append(url)
                route.abort()

        def on_response(response: Any) -> None:
            if urlparse(response.url).hostname in LOCAL_HOSTS:
                path = urlparse(response.url).path
                probe.local_responses[path] = response.status
                if response.status >= 400:
                    probe.failed_local.append(f"{response.status} {path}")

        def on_request_failed(request: Any) -> None:
            if urlparse(request.url).hostname in LOCAL_HOSTS:
                probe.failed_local.append(f"{request.failure} {urlparse(request.url).path}")

        context.route("**/*", route)
        page.on("pageerror", lambda exc: probe.page_errors.append(str(exc)))
        page.on("console", lambda msg: probe.console_errors.append(msg.text) if msg.type == "error" else None)
        page.on("response", on_response)
        page.on("requestfailed", on_request_failed)
        return probe

    def close(self) -> None:
        for context in self._contexts:
            context.close()
        self._contexts.clear()


# ---------------------------------------------------------------------------------------
# 브라우저 콘솔 허용 목록 (the only console/page errors a page may produce)
# ---------------------------------------------------------------------------------------

#: 페이지 오류(잡히지 않은 예외)와 콘솔 오류 가운데 허용하는 것: 정확한 글 -> 허용하는 까닭.
#: 우리 내용(장, attn_lib, attn_site)에서 나오는 글은 여기에 넣지 않습니다. 고칠 수 없는
#: 테마/도구의 메시지만, 한 줄씩 까닭과 함께 둡니다. 목록에 있는데 어느 페이지에서도 나오지 않으면
#: test_browser.py 의 마지막 테스트가 실패합니다 (낡은 항목을 지우라는 뜻).
#: Allowed messages, matched exactly; each needs a reason, none may come from our own content.
#: 지금은 비어 있습니다: sphinx-thebe 0.3.1 의 `THEBE_JS_URL` 이중 선언은 attn_site/thebe_local.py 가,
#: pydata-sphinx-theme 의 "Got invalid theme mode" 는 attn_site/korean_ui.py 가 고쳤습니다.
ALLOWED_BROWSER_MESSAGES: dict[str, str] = {}

#: 이번 테스트 실행에서 실제로 본 허용 메시지 (stale-entry check)
SEEN_ALLOWED_MESSAGES: set[str] = set()


def scroll_to_explorers(page: Any) -> int:
    """정적 탐색기는 화면 가까이 와야 그려지므로(IntersectionObserver), 하나씩 화면으로 가져와 다 그려질 때까지
    기다립니다. 탐색기 수를 돌려줍니다."""
    explorers = page.locator(".attn-explorer")
    for i in range(explorers.count()):
        explorers.nth(i).scroll_into_view_if_needed()
        page.wait_for_function("(i) => document.querySelectorAll('.attn-explorer')[i].hasAttribute('data-ready')",
                               arg=i, timeout=60_000)
    return explorers.count()


def unexpected_messages(probe: "OfflinePage") -> list[str]:
    """페이지 오류와 콘솔 오류 가운데 허용 목록에 없는 것 (본 허용 메시지는 기록)."""
    out = []
    for message in [*probe.page_errors, *probe.console_errors]:
        if message in ALLOWED_BROWSER_MESSAGES:
            SEEN_ALLOWED_MESSAGES.add(message)
        else:
            out.append(message)
    return out


@pytest.fixture
def open_offline_page(browser: Any, site_url: str) -> Iterator[Callable[..., OfflinePage]]:
    """``open_offline_page(viewport=..., **context_options)`` -> :class:`OfflinePage` (이 테스트 동안만)."""
    opener = OfflineBrowser(browser, site_url)
    yield opener.open
    opener.close()


@pytest.fixture(scope="module")
def offline_browser(browser: Any, site_url: str) -> Iterator[OfflineBrowser]:
    """모듈 전체에서 같이 쓰는 :class:`OfflineBrowser` (한 번 연 페이지를 여러 테스트가 볼 때)."""
    opener = OfflineBrowser(browser, site_url)
    yield opener
    opener.close()


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    SCREENSHOT_DIR.mkdir(parents=True, exist_ok=True)
    return SCREENSHOT_DIR


# ---------------------------------------------------------------------------------------
# 오류 메시지 검사 (Korean error messages)
# ---------------------------------------------------------------------------------------

HANGUL = re.compile(r"[가-힣]")


def raises_korean(exc_type: type[BaseException], fn: Callable[[], Any], *must_contain: str) -> str:
    """``fn()``이 ``exc_type``을 내고, 메시지가 한국어이며 ``must_contain``을 모두 담는지 확인합니다."""
    with pytest.raises(exc_type) as info:
        fn()
    msg = str(info.value)
    assert HANGUL.search(msg), f"한국어 메시지가 아님: {msg}"
    for part in must_contain:
        assert part in msg, f"{part!r}이(가) 메시지에 없음: {msg}"
    return msg


# ---------------------------------------------------------------------------------------
# 손으로 만든 헤드 가중치 (constructed attention weights for summary and alt-text tests)
# ---------------------------------------------------------------------------------------


def previous_head(L: int, share: float) -> Any:
    """인과 마스크 아래 이전 토큰 헤드 ``(L, L)``: 행 0은 자기 자신(볼 수 있는 키가 하나), 나머지는 i-1에 share."""
    import torch

    w = torch.zeros(L, L)
    w[0, 0] = 1.0
    for i in range(1, L):
        w[i, i - 1], w[i, i] = share, 1.0 - share
    return w


def first_head(L: int, share: float) -> Any:
    """첫 토큰 헤드 ``(L, L)``: 모든 행이 키 0에 share, 나머지를 고르게 나눔."""
    import torch

    w = torch.full((L, L), (1.0 - share) / (L - 1))
    w[:, 0] = share
    return w


# ---------------------------------------------------------------------------------------
# 그림 검사 (figures)
# ---------------------------------------------------------------------------------------


def all_texts(fig: Any) -> list[str]:
    """그림 안의 비어 있지 않은 글자(제목, 축 이름, 눈금, 범례...)를 모두 모읍니다."""
    from matplotlib.text import Text

    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def render_without_warnings(fig: Any) -> None:
    """그림을 그리되, 이 블록 안에서만 경고('Glyph ... missing' 등)를 오류로 바꿉니다."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig.canvas.draw()


@pytest.fixture(scope="session")
def assignment_dist() -> Path:
    """연습판 채점 과제의 배포판 (``make assignments``와 같은 코드로 임시 폴더에; 입력이 같으면 작업자끼리 나눠 씀)."""
    from grading_support import build_dist_once

    return build_dist_once()
