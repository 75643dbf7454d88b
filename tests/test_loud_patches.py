"""테마·Sphinx 의 출력을 고치는 곳은 찾는 모양이 없으면 조용히 넘어가지 않고 Sphinx 경고를 냅니다 (-W: 빌드 실패).

Every patch of theme or Sphinx output warns when its pattern no longer matches (README "Upgrade notes"):

- 빌드가 끝난 뒤(build-finished): ``korean_ui`` 의 ``UI_STRINGS`` 와 copybutton.js, ``site_speed`` 의 테마 스크립트·상자
  tabindex·스타일시트 묶음·검색 색인, ``icon_fonts`` 의 Font Awesome 규칙, ``code_spans`` 의 pygments.css.
- 렌더링 때(html-page-context): ``thebe_local`` 의 sphinx-thebe 설정, ``launch_links`` 의 Binder 단추,
  ``korean_ui`` 의 실행 단추 툴팁.

끝으로 작은 Sphinx 프로젝트를 실제로 빌드해, 맞지 않는 고치기의 경고가 ``-W`` 에서 빌드를 실패시키는 것을 봅니다.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from attn_site import code_spans, icon_fonts, korean_ui, launch_links, site_speed, thebe_local

ROOT = Path(__file__).resolve().parents[1]


class Recorder:
    """``logger.warning`` 만 기록하는 가짜 로거."""

    def __init__(self) -> None:
        self.warnings: list[str] = []

    def warning(self, msg: str, *args: Any, **kwargs: Any) -> None:
        self.warnings.append(msg % args if args else msg)

    def info(self, *args: Any, **kwargs: Any) -> None:
        pass


@pytest.fixture
def record(monkeypatch: pytest.MonkeyPatch) -> Any:
    def patch(module: Any) -> Recorder:
        recorder = Recorder()
        monkeypatch.setattr(module, "logger", recorder)
        return recorder
    return patch


def fake_app(tmp_path: Path, **config: Any) -> Any:
    outdir = tmp_path / "html"
    outdir.mkdir(exist_ok=True)
    doctrees = tmp_path / "doctrees"
    return SimpleNamespace(outdir=str(outdir), doctreedir=str(doctrees), builder=SimpleNamespace(format="html"),
                           config=SimpleNamespace(language="ko", **config))


def test_ui_strings_warn_for_every_entry_that_matched_nothing(tmp_path: Path, record: Any) -> None:
    log = record(korean_ui)
    app = fake_app(tmp_path)
    english = next(iter(korean_ui.UI_STRINGS))
    (Path(app.outdir) / "a.html").write_text(f"<p>{english}</p>", encoding="utf-8")
    korean_ui._RENDERED.add("a")
    korean_ui.korean_ui_strings(app, None)
    assert korean_ui.UI_STRINGS[english] in (Path(app.outdir) / "a.html").read_text(encoding="utf-8")
    unmatched = [e for e in korean_ui.UI_STRINGS if e != english]
    assert len(log.warnings) == len(unmatched) and all(repr(e) in " ".join(log.warnings) for e in unmatched)
    # 증분 빌드: 다시 쓰지 않은 페이지(이미 한국어)는 이전 기록으로 셉니다 -> 같은 경고만, 맞았던 항목은 조용
    korean_ui._RENDERED.clear()
    log.warnings.clear()
    korean_ui.korean_ui_strings(app, None)
    assert len(log.warnings) == len(unmatched)


def test_copybutton_warns_when_the_file_or_its_shape_is_missing(tmp_path: Path, record: Any) -> None:
    log = record(korean_ui)
    app = fake_app(tmp_path)
    korean_ui.korean_copybutton(app, None)
    assert log.warnings and "copybutton.js" in log.warnings[-1]
    static = Path(app.outdir) / "_static"
    static.mkdir()
    (static / "copybutton.js").write_text("const msgs = {}\n", encoding="utf-8")
    korean_ui.korean_copybutton(app, None)
    assert len(log.warnings) == 2 and "messages" in log.warnings[-1]


def test_site_speed_warns_when_theme_output_changed(tmp_path: Path, record: Any) -> None:
    log = record(site_speed)
    out = tmp_path / "html"
    out.mkdir()
    (out / "index.html").write_text("<html><head></head><body><article><p>x</p></article></body></html>", encoding="utf-8")
    (out / "search.html").write_text("<html><head><script src='searchindex.js'></script></head></html>", encoding="utf-8")
    site_speed.check_patches(out)
    joined = "\n".join(log.warnings)
    assert len(log.warnings) == 3 and "tabindex" in joined and "묶은" in joined and "searchindex" in joined
    log.warnings.clear()
    (out / "index.html").write_text(
        '<html><head><link rel="stylesheet" type="text/css" href="_static/styles/bundle-0123abcd.css" /></head>'
        '<body><article><pre tabindex="0">x</pre></article></body></html>', encoding="utf-8")
    (out / "search.html").write_text('<script data-search-index="searchindex.js"></script>', encoding="utf-8")
    site_speed.check_patches(out)
    assert log.warnings == []


def test_theme_script_patch_warns_when_its_loop_is_gone(tmp_path: Path, record: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    log = record(site_speed)
    static = tmp_path / "theme"
    (static / "scripts").mkdir(parents=True)
    (static / "scripts" / "pydata-sphinx-theme.js").write_text("console.log('new theme')", encoding="utf-8")
    monkeypatch.setattr(icon_fonts, "theme_static", lambda: static)
    assert site_speed.lazy_theme_measurements(tmp_path) is False
    assert log.warnings and "tabindex" in log.warnings[0]


def test_icon_fonts_warn_when_font_awesome_rules_changed(tmp_path: Path, record: Any,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    log = record(icon_fonts)
    static = tmp_path / "theme"
    (static / "styles").mkdir(parents=True)
    (static / "styles" / "pydata-sphinx-theme.css").write_text(".fa-x::before{content:'x'}", encoding="utf-8")
    monkeypatch.setattr(icon_fonts, "theme_static", lambda: static)
    icon_fonts.shrink_icons(fake_app(tmp_path), None)
    assert log.warnings and "Font Awesome" in log.warnings[0]


def test_code_spans_warn_when_pygments_css_changed(tmp_path: Path, record: Any) -> None:
    log = record(code_spans)
    app = fake_app(tmp_path)
    (Path(app.outdir) / "_static").mkdir()
    (Path(app.outdir) / "_static" / "pygments.css").write_text("/* empty */", encoding="utf-8")
    code_spans.unwrap_all(app, None)
    assert log.warnings and "pygments.css" in log.warnings[0]


def test_thebe_local_warns_when_sphinx_thebe_config_is_not_found(record: Any) -> None:
    log = record(thebe_local)
    app = SimpleNamespace(builder=SimpleNamespace(format="html"))
    scripts = [SimpleNamespace(filename="_static/sphinx-thebe.js", attributes={}),
               SimpleNamespace(filename=None, attributes={"body": "const THEBE_URL = 'x'"})]
    thebe_local.use_local_thebe(app, "chapters/x", "page.html", {"script_files": scripts, "pathto": str}, None)
    assert log.warnings and "sphinx-thebe" in log.warnings[0]


def test_launch_links_and_korean_tooltips_warn_when_the_launch_buttons_changed(record: Any,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    log = record(korean_ui)
    app = SimpleNamespace(config=SimpleNamespace(language="ko"))
    context = {"header_buttons": [{"label": "launch-buttons", "buttons": [{"text": "Deepnote", "url": "x"}]}]}
    korean_ui.korean_launch_buttons(app, "chapters/x", "page.html", context, None)
    assert log.warnings and "Deepnote" in log.warnings[0]

    warnings: list[str] = []
    monkeypatch.setattr("sphinx.util.logging.getLogger",
                        lambda name: SimpleNamespace(warning=lambda m, *a: warnings.append(m % a)))
    app = SimpleNamespace(config=SimpleNamespace(
        html_theme_options={"launch_buttons": {"binderhub_url": "https://mybinder.org"},
                            "repository_url": "https://github.com/o/r", "repository_branch": "main"},
        binder_env_branch="binder-env"))
    launch_links.nbgitpuller_binder_button(app, "chapters/x", "page.html", context, None)
    assert warnings and "Binder" in warnings[0]


def test_an_unmatched_patch_fails_a_real_sphinx_build_under_W(tmp_path: Path) -> None:
    """작은 Sphinx 프로젝트(테마 alabaster, korean_ui 확장)를 실제로 빌드합니다. 이 프로젝트에는 테마의 실행 단추 그림도
    copybutton.js 도 없으므로 고치기가 맞지 않아 경고가 나고, 같은 빌드가 -W 에서는 실패합니다."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "conf.py").write_text(textwrap.dedent(f"""
        extensions = ["attn_site.korean_ui"]
        language = "ko"
        html_theme = "alabaster"
    """), encoding="utf-8")
    (src / "index.rst").write_text("제목\n====\n\n본문.\n", encoding="utf-8")

    def build(*flags: str) -> subprocess.CompletedProcess:
        out = tmp_path / f"out{len(flags)}"
        return subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-q", *flags, str(src), str(out)],
                              capture_output=True, text=True, timeout=300)

    loose = build()
    assert loose.returncode == 0, loose.stderr
    assert "UI_STRINGS" in loose.stderr and "copybutton.js" in loose.stderr, loose.stderr
    strict = build("-W")
    assert strict.returncode != 0, "맞지 않은 고치기의 경고가 -W 빌드를 실패시키지 않았습니다"
