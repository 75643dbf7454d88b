"""한국어 화면 글: 빌드 뒤 HTML 을 고치던 표(``attn_site/korean_ui.py`` 의 ``UI_STRINGS``)에서 뺀 글은 모두 렌더링 때
번역됩니다 (번역 목록 ``locales/ko/LC_MESSAGES/sphinx.po``, ``_templates/`` 의 덮어쓴 템플릿, ``korean_ui`` 의
실행 단추 툴팁과 차례 제목).

Every string removed from the after-build table is translated in the built HTML by the catalog, a template
override or a render-time hook: the English is on no page and the Korean is on some page.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import pytest

from attn_site import korean_ui

ROOT = Path(__file__).resolve().parents[1]

#: 표에서 뺀 항목 (영어 조각 -> 빌드된 HTML 에 있어야 할 한국어 조각, 누가 번역하는가)
REMOVED_FROM_TABLE: dict[str, tuple[str, str]] = {
    '<a href="#main-content">Skip to main content</a>': ('<a href="#main-content">본문으로 건너뛰기</a>', "sphinx.po"),
    "</i>Back to top</button>": ("맨 위로", "sphinx.po"),
    'title="Toggle primary sidebar"': ('title="장 목록 열기·닫기"', "_templates/toggle-primary-sidebar.html"),
    'title="Toggle secondary sidebar"': ('title="이 페이지 차례 열기·닫기"', "_templates/toggle-secondary-sidebar.html"),
    'aria-label="Site navigation"': ('aria-label="장 목록"', "sphinx.po"),
    'aria-label="Main"': ('<nav class="bd-links bd-docs-nav" aria-label="장 목록">', "_templates/sbt-sidebar-nav.html"),
    '<nav aria-label="Page">': ('<nav aria-label="이 페이지 차례">', "_templates/layout.html"),
    'aria-label="On this page"': ('aria-label="이 페이지 차례"', "sphinx.po"),
    'aria-label="Version warning"': ('aria-label="버전 알림"', "sphinx.po"),
    "<h2> Table of contents </h2>": ("<h2> 차례 </h2>", "korean_ui.korean_theme_options"),
    'title="next page"': ('title="다음 페이지"', "sphinx.po"),
    'title="previous page"': ('title="이전 페이지"', "sphinx.po"),
    'title="Link to this heading"': ('title="이 제목으로 가는 링크"', "sphinx.po"),
    'title="Link to this image"': ('title="이 그림으로 가는 링크"', "sphinx.po"),
    'title="Link to this table"': ('title="이 표로 가는 링크"', "sphinx.po"),
    'title="Link to this code"': ('title="이 코드로 가는 링크"', "sphinx.po"),
    'aria-label="Launch interactive content"': ('aria-label="실행 환경에서 열기"', "korean_ui.korean_launch_buttons"),
    'title="Launch on Binder"': ('title="Binder에서 실행"', "korean_ui.korean_launch_buttons"),
    'title="Launch on Colab"': ('title="Colab에서 실행"', "korean_ui.korean_launch_buttons"),
    'title="Launch Thebe"': ('title="이 페이지에서 코드 실행 (Thebe, Binder 서버)"', "korean_ui.korean_launch_buttons"),
    "Please activate JavaScript to enable the search functionality.":
        ("검색하려면 브라우저에서 자바스크립트를 켜 주세요.", "sphinx.po"),
    "© Copyright": ("© 2026.", "sphinx.po"),
    "&#169; Copyright": ("© 2026.", "sphinx.po"),
}


def test_removed_entries_are_not_in_the_table() -> None:
    """번역을 다른 곳이 맡은 글은 표에 다시 넣지 않습니다 (넣으면 표가 다시 자랍니다)."""
    assert not set(REMOVED_FROM_TABLE) & set(korean_ui.UI_STRINGS)
    assert len(korean_ui.UI_STRINGS) <= 2, f"표가 다시 커졌습니다: {sorted(korean_ui.UI_STRINGS)}"


def test_catalog_msgids_are_the_themes_own_strings() -> None:
    """번역 목록의 msgid 가 지금 설치된 테마·Sphinx 의 원본에 글자 그대로 있습니다 (올린 뒤 낡은 msgid 를 잡음)."""
    import pydata_sphinx_theme
    import sphinx

    po = (ROOT / "locales" / "ko" / "LC_MESSAGES" / "sphinx.po").read_text(encoding="utf-8")
    msgids = [m for m in re.findall(r'^msgid "(.+)"$', po, re.M)]
    sources = "".join(p.read_text(encoding="utf-8", errors="ignore") for base in (
        Path(pydata_sphinx_theme.__file__).parent / "theme", Path(sphinx.__file__).parent / "writers")
        for p in base.rglob("*") if p.suffix in {".html", ".py"})
    for msgid in msgids:
        needle = msgid.replace("%(copyright)s", "{{ copyright }}")
        assert needle in sources, f"sphinx.po 의 msgid {msgid!r} 가 테마나 Sphinx 에 없습니다 (올린 뒤 바뀜?)"
    assert len(msgids) >= 13


#: 이 책에는 (아직) 나오지 않는 글: 캡션 달린 표·코드 상자가 없어 그 ¶ 링크가 없습니다. 빌드가 만든 sphinx.mo 가
#: 번역하는지만 봅니다 (그런 상자가 생기면 위의 사이트 검사가 그대로 잡습니다).
NOT_ON_ANY_PAGE = {'title="Link to this table"': "Link to this table", 'title="Link to this code"': "Link to this code"}


@pytest.mark.site
def test_built_catalog_translates_every_msgid(html_dir: Path) -> None:
    """빌드가 sphinx.po 를 sphinx.mo 로 바꿨고, 그 .mo 가 모든 msgid 를 한국어로 돌려줍니다."""
    import gettext

    mo = ROOT / "locales" / "ko" / "LC_MESSAGES" / "sphinx.mo"
    assert mo.is_file(), "빌드가 locales/ko/LC_MESSAGES/sphinx.mo 를 만들지 않았습니다 (locale_dirs?)"
    with mo.open("rb") as f:
        catalog = gettext.GNUTranslations(f)
    po = (ROOT / "locales" / "ko" / "LC_MESSAGES" / "sphinx.po").read_text(encoding="utf-8")
    for msgid in re.findall(r'^msgid "(.+)"$', po, re.M):
        assert re.search(r"[가-힣©]", catalog.gettext(msgid)) and catalog.gettext(msgid) != msgid, msgid
    for english, msgid in NOT_ON_ANY_PAGE.items():
        assert catalog.gettext(msgid) in REMOVED_FROM_TABLE[english][0]


@lru_cache(maxsize=1)
def site_pages(html_dir: Path) -> dict[str, str]:
    return {p.relative_to(html_dir).as_posix(): p.read_text(encoding="utf-8") for p in html_dir.rglob("*.html")}


@pytest.mark.site
@pytest.mark.parametrize("english", sorted(REMOVED_FROM_TABLE))
def test_every_string_removed_from_the_table_is_translated_in_the_built_html(english: str, html_dir: Path) -> None:
    korean, by = REMOVED_FROM_TABLE[english]
    pages = site_pages(html_dir)
    left = sorted(name for name, text in pages.items() if english in text)
    assert not left, f"{english!r} 가 영어로 남았습니다 ({by} 가 번역해야 함): {left[:5]}"
    if english in NOT_ON_ANY_PAGE:
        return  # 이 책에는 그런 상자가 없음: test_built_catalog_translates_every_msgid 가 번역을 봅니다
    assert any(korean in text for text in pages.values()), f"{korean!r} 가 빌드된 사이트 어디에도 없습니다 ({by})"
