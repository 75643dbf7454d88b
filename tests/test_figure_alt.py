"""그림의 한국어 대체 텍스트(alt)와 글 요약: 라이브러리, IPython 표시, Sphinx 확장, 빌드된 사이트.

- attn_course.viz.plots와 attn_course.viz.mask_plots의 그림 함수마다: alt가 한국어이고, 데이터에서 따로 계산한 숫자를 담고, 입력이 다르면 다름
- IPython의 ``image/png`` 표시: 메타데이터 ``{"alt": ...}``와 PNG 안의 ``Description``이 같은 글
- ``attn_site/figure_alt.py``: PNG의 글을 ``<img alt>``로 옮기고(300자 넘는 설명은 그림 아래 ``<details>``),
  "그림 N.k" 캡션을 달고, 글이 없으면 경고
- 히트맵 색지도: 색각 이상에도 읽히는 지각적으로 고른 색지도만 (jet, rainbow는 거절)
- 빌드된 사이트(site): 노트북 출력 그림마다 한국어 alt, 파일 경로가 아님, 페이지 안과 책 전체에서 서로 다름,
  실행 캐시의 출력 메타데이터와 같음; head_tabs의 탭마다 alt와 보이는 요약; 정적 탐색기의 글 요약
- 브라우저(browser): 정적 탐색기의 조작기를 바꾸면 요약과 캔버스의 aria-label이 바뀌고 describe_heads와 같음
"""

from __future__ import annotations

import ast
import base64
import hashlib
import html as html_lib
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Callable

import matplotlib.pyplot as plt
import nbformat
import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from attn_lib import attention_entropy, causal_mask, padding_mask, saturation
from attn_course import (
    AttentionExplorer,
    describe_heads,
    head_tabs,
    plot_batch_heatmaps,
    plot_curves,
    plot_head_accuracy,
    plot_head_heatmaps,
    plot_mask,
    plot_metric_panels,
    plot_saturation_grid,
    plot_saturation_histogram,
    set_alt,
)
from attn_course.viz import curves, mask_plots, plots, sweep_plots
from attn_course.viz.describe import format_number
from attn_course.explorer.model import MAX_HEADS, ExplorerModel, padded_length, shown_tokens
from attn_course.viz.figure_output import install_alt_formatter, png_bytes
from attn_course.viz.figures import HEATMAP_CMAP, SAFE_CMAPS, get_alt
from attn_course.explorer.static import explorer_html
from attn_course.explorer.summary import summary_caption, summary_key, summary_table
from attn_site import figure_alt
from conftest import OfflinePage, first_head, previous_head, raises_korean, read_toc_docnames, scroll_to_explorers

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "_build" / ".jupyter_cache"
HANGUL = re.compile(r"[가-힣]")
TOKENS = ["나는", "어제", "도서관에서", "책을", "빌렸다"]
TOC_DOCNAMES = read_toc_docnames()
BAD_CMAPS = {"jet", "rainbow", "hsv", "gist_rainbow", "nipy_spectral", "gist_ncar", "turbo", "Spectral"}




def random_weights(*shape: int, seed: int = 0, temperature: float = 1.0) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.softmax(torch.randn(*shape, generator=g) / temperature, dim=-1)


def check_alt(fig: Figure, numbers: list[str]) -> str:
    """alt가 한국어이고, 데이터에서 따로 계산한 숫자를 모두 담고, 파일 경로가 아닌지."""
    alt = get_alt(fig)
    assert alt and HANGUL.search(alt), f"한국어 alt가 없습니다: {alt!r}"
    assert ".png" not in alt and "_images" not in alt
    for number in numbers:
        assert number in alt, f"데이터의 값 {number!r}이(가) alt에 없습니다: {alt}"
    return alt


# ---------------------------------------------------------------------------------------
# 그림 함수마다: (그림을 만드는 함수, alt에 있어야 할 숫자) 두 벌
# ---------------------------------------------------------------------------------------


def _heads(case: int):
    w = torch.stack([previous_head(5, 0.8), first_head(5, 0.9)]) if case == 0 else \
        torch.stack([first_head(5, 0.7), torch.eye(5)])
    top = [float(w[0, 1:].amax(-1).mean()), float(w[1].amax(-1).mean())]  # 이전 토큰 헤드는 행 0을 뺌
    expected = [f"{top[0]:.2f}", f"{top[1]:.2f}", "5개 중 4개" if case == 0 else "모든 쿼리(5개)"]
    return lambda: plot_head_heatmaps(w, TOKENS, TOKENS, title=f"헤드 그림 {case}"), expected


def _histogram(case: int):
    w = random_weights(4, 6, 6, seed=case, temperature=0.2 if case else 1.0)
    ent = float(attention_entropy(w).mean())
    return lambda: plot_saturation_histogram({"가중치": w}), [f"{float(saturation(w)):.0%}", f"{ent:.2f} nat"]


def _curves(case: int):
    x, y = [1, 2, 4, 8], [[2.5, 1.25, 0.5, 0.25], [0.1, 0.4, 0.2, 0.3]][case]
    return (lambda: plot_curves(x, {"손실": y}, xlabel="$d_k$", ylabel="손실", reference={"기준": 1.5}, logx=True),
            [format_number(y[0]), format_number(y[-1]), format_number(max(y)), "1.5"])


def _panels(case: int):
    x = [0.5, 1.0, 2.0]
    a, b = [[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]][case], [0.2, 0.7, 0.1]
    return (lambda: plot_metric_panels(x, {"엔트로피": {"d_k = 16": a}, "포화": {"d_k = 16": b}}, xlabel="배율 c"),
            [format_number(a[0]), format_number(a[-1]), format_number(max(b)), "[엔트로피]", "[포화]"])


def _grid(case: int):
    w1, w2 = random_weights(2, 5, 5, seed=case), random_weights(2, 5, 5, seed=9, temperature=0.1)
    return (lambda: plot_saturation_grid({"스케일링 있음": w1, "스케일링 없음": w2}),
            [f"{float(saturation(w)):.0%}" for w in (w1, w2)] + [f"{float(attention_entropy(w1).mean()):.2f} nat"])


def _mask(case: int):
    m = causal_mask(5) if case == 0 else padding_mask([3, 5], 5)
    if m.dim() == 2:
        return lambda: plot_mask(m, key_labels=TOKENS), [f"참여 가능 {int(m.sum())}칸 / {m.numel()}칸"]
    # 패널(문장)마다 그 문장의 마스크에서 센 칸 수
    return lambda: plot_mask(m, key_labels=TOKENS), [f"시퀀스 {b}: 참여 가능 {int(p.sum())}칸 / {p.numel()}칸"
                                                     for b, p in enumerate(m)]


def _batch(case: int):
    w = torch.stack([previous_head(5, 0.8), first_head(5, 0.6 + 0.2 * case)])
    return (lambda: plot_batch_heatmaps(w, TOKENS, TOKENS, mask=causal_mask(5) if case else None),
            [f"{float(w[1, :, 0].mean()):.2f}", "시퀀스 0", "시퀀스 1"])


def _accuracy(case: int):
    table = {1: [0.3, 0.32, 0.35], 2: [[1.0, 0.97, 0.99], [0.8, 0.9, 0.85]][case]}
    return (lambda: plot_head_accuracy(table, ceilings={"first_only": 0.3125}),
            [f"{np.mean(table[1]):.3f}", f"{np.mean(table[2]):.3f}", "0.312"])


CASES: dict[str, Callable[[int], tuple[Callable[[], Figure], list[str]]]] = {
    "plot_head_heatmaps": _heads,
    "plot_saturation_histogram": _histogram,
    "plot_curves": _curves,
    "plot_metric_panels": _panels,
    "plot_saturation_grid": _grid,
    "plot_mask": _mask,
    "plot_batch_heatmaps": _batch,
    "plot_head_accuracy": _accuracy,
}


def test_every_plot_function_has_a_case():
    covered_elsewhere = {"plot_sweep", "plot_training_history"}  # tests/test_head_sweep.py 가 alt 를 검사
    assert set(CASES) | covered_elsewhere == {
        name for module in (plots, curves, mask_plots, sweep_plots) for name in module.__all__ if name.startswith("plot_")
    }


@pytest.mark.parametrize("name", sorted(CASES))
def test_alt_is_korean_carries_the_data_and_differs_between_inputs(name):
    alts = []
    for case in (0, 1):
        make, numbers = CASES[name](case)
        alts.append(check_alt(make(), numbers))
    assert alts[0] != alts[1], f"{name}: 입력이 달라도 alt가 같습니다: {alts[0]}"


def test_alt_starts_with_the_title_and_what_the_figure_is():
    alt = get_alt(plot_head_heatmaps(torch.eye(3)[None], title=r"온도 $T = \sqrt{d_k}$"))
    assert alt.startswith("온도 T = √d_k — 어텐션 가중치 히트맵(행 = 쿼리 3개, 열 = 키 3개")
    assert alt.endswith("헤드 0: 모든 쿼리(3개)가 자기 자신에 집중 (평균 가중치 1.00)")


def test_panels_drawn_on_a_users_axes_are_joined():
    fig, axes = plt.subplots(1, 2)
    plt.close(fig)
    plot_curves([1, 2, 3], {"a": [1, 2, 3]}, xlabel="x", ylabel="첫째", ax=axes[0])
    plot_saturation_histogram(torch.eye(3), title="둘째", ax=axes[1])
    assert get_alt(fig) == ("[첫째] 'a' 처음 1, 끝 3 (가로축 1~3), 계속 증가 "
                            "[둘째] 포화 행 100% (행 3개 중 3개), 평균 엔트로피 0.00 nat (log S = 1.10의 0%), "
                            "0.05 미만 칸 67%, 0.95 이상 칸 33%")
    assert get_alt(plt.figure()) is None


def test_set_alt_accepts_computed_korean_and_rejects_the_rest():
    fig, ax = plt.subplots()
    plt.close(fig)
    values = [3.0, 1.0, 2.0]
    ax.plot(values)
    assert set_alt(fig, f"직접 그린 선 그래프: 처음 {values[0]:g}, 끝 {values[-1]:g}") is fig
    assert get_alt(fig) == "직접 그린 선 그래프: 처음 3, 끝 2"
    raises_korean(TypeError, lambda: set_alt("그림", "글"), "Figure")
    raises_korean(ValueError, lambda: set_alt(fig, "line plot"), "한국어")
    raises_korean(ValueError, lambda: set_alt(fig, "   "), "한국어")
    raises_korean(TypeError, lambda: set_alt(fig, None), "str")


def test_head_tabs_panels_carry_alt_and_a_visible_summary():
    w = torch.stack([previous_head(5, 0.8), first_head(5, 0.9), torch.eye(5)])
    tabs = head_tabs(w, TOKENS, TOKENS)
    lines = describe_heads(w, TOKENS, TOKENS)
    for h, child in enumerate(tabs.children):
        alt = html_lib.unescape(re.search(r'<img [^>]*alt="([^"]*)"', child.value).group(1))
        caption = html_lib.unescape(re.search(r"<figcaption[^>]*>(.*?)</figcaption>", child.value).group(1))
        assert caption == lines[h]
        assert HANGUL.search(alt) and alt.endswith(lines[h]) and alt != caption  # alt = 무슨 그림 + 같은 요약
        png = base64.b64decode(re.search(r"base64,([A-Za-z0-9+/=]+)", child.value).group(1))
        assert figure_alt.png_text(png)["Description"] == alt  # 내려받은 PNG에도 같은 글


# ---------------------------------------------------------------------------------------
# PNG 안의 글과 IPython 표시
# ---------------------------------------------------------------------------------------


def test_png_carries_the_alt_as_utf8_text_chunk():
    fig = plot_head_heatmaps(torch.eye(4)[None], ["가", "나", "다", "라"], ["가", "나", "다", "라"])
    data = png_bytes(fig)
    assert b"iTXt" in data  # 한글은 Latin-1이 아니어서 UTF-8 글 묶음
    assert figure_alt.png_text(data) ["Description"] == get_alt(fig)
    plain, ax = plt.subplots()
    plt.close(plain)
    ax.plot([1, 2])
    assert "Description" not in figure_alt.png_text(png_bytes(plain))


def _shell():
    from IPython.core.formatters import DisplayFormatter

    return SimpleNamespace(display_formatter=DisplayFormatter())


def test_ipython_png_output_has_alt_metadata_and_the_same_text_in_the_png():
    from IPython.core.pylabtools import select_figure_formats

    shell = _shell()
    select_figure_formats(shell, {"png"})  # 인라인 백엔드가 하듯 matplotlib의 기본 표시 함수를 먼저 등록
    fig = plot_head_heatmaps(torch.stack([previous_head(5, 0.8), first_head(5, 0.9)]), TOKENS, TOKENS)
    data, metadata = shell.display_formatter.format(fig)
    assert "alt" not in metadata.get("image/png", {})  # 기본 함수는 alt를 싣지 않음: 바꿔야 하는 이유
    assert install_alt_formatter(shell)
    data, metadata = shell.display_formatter.format(fig)
    png = base64.b64decode(data["image/png"])
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    width = figure_alt.png_size(png)[0]
    assert metadata["image/png"] == {"alt": get_alt(fig), "width": round(width / 2)}  # 2배 화소를 1배 크기로
    assert figure_alt.png_text(png)["Description"] == get_alt(fig)
    plain = plt.figure()
    plt.close(plain)
    plain.add_subplot().plot([1, 2])
    data, metadata = shell.display_formatter.format(plain)
    assert "image/png" in data and "alt" not in metadata["image/png"]  # alt 없는 그림 (빌드가 경고함)
    assert install_alt_formatter() is False  # 실행 중인 IPython 셸이 없으면 아무것도 하지 않음


# ---------------------------------------------------------------------------------------
# Sphinx 확장
# ---------------------------------------------------------------------------------------


def _run_extension(tmp_path: Path, png: bytes, caplog) -> Any:
    from docutils import nodes

    out = tmp_path / "_build" / "jupyter_execute"
    out.mkdir(parents=True)
    (out / "x.png").write_bytes(png)
    app = SimpleNamespace(env=SimpleNamespace(docname="chapters/demo"), srcdir=str(tmp_path),
                          outdir=str(tmp_path / "_build" / "html"))
    tree = nodes.container()
    image = nodes.image(uri="/_build/jupyter_execute/x.png")
    other = nodes.image(uri="/logo.png")  # 노트북 출력이 아닌 그림은 건드리지 않음
    tree += [image, other]
    caplog.set_level("WARNING")
    figure_alt.set_output_image_alt(app, tree)
    made = list(tree.findall(figure_alt.legible_image))
    return (made[0] if made else image), other


def test_extension_moves_the_png_text_into_the_image_alt(tmp_path, caplog):
    fig = plot_mask(causal_mask(4), title="인과 마스크")
    image, other = _run_extension(tmp_path, png_bytes(fig), caplog)
    assert image["alt"] == get_alt(fig) and "alt" not in other
    assert not [r for r in caplog.records if "대체 텍스트" in r.getMessage()]
    figure = image.parent.parent  # <figure> > 옆으로 넘기는 상자 > <img>
    caption = [n for n in figure.children if n.tagname == "caption"][0]
    assert caption.astext() == "그림 1 인과 마스크"  # docname chapters/demo 에는 장 번호가 없음
    assert image["min_text_px"] >= 10 and abs(image["css_width"] * 2 - figure_alt.png_size(png_bytes(fig))[0]) <= 1


def test_extension_numbers_a_captioned_figure_like_the_others(tmp_path, caplog):
    """mystnb.figure 로 캡션을 단 그림도 "그림 N.k" (Sphinx numfig 의 장 번호 없는 "그림 1" 이 아님)."""
    from docutils import nodes

    out = tmp_path / "_build" / "jupyter_execute"
    out.mkdir(parents=True)
    (out / "x.png").write_bytes(png_bytes(plot_mask(causal_mask(4), title="인과 마스크")))
    app = SimpleNamespace(env=SimpleNamespace(docname="chapters/08_demo"), srcdir=str(tmp_path),
                          outdir=str(tmp_path / "_build" / "html"))
    tree = nodes.container()
    written = nodes.figure("", nodes.image(uri="/_build/jupyter_execute/x.png"), nodes.caption("", "틀린 구현과 참조"),
                           ids=["fig-demo"], names=["fig-demo"])
    tree += written
    figure_alt.set_output_image_alt(app, tree)
    figure = tree.children[0]
    assert type(figure) is figure_alt.attn_figure, "Sphinx 가 따로 번호를 매기는 nodes.figure 가 남았습니다"
    caption = [n for n in figure.children if n.tagname == "caption"][0]
    assert caption.astext() == "그림 8.1 틀린 구현과 참조"
    assert figure["ids"] == ["fig-demo"] and figure["names"] == ["fig-demo"]
    assert list(figure.findall(figure_alt.legible_image))


def test_extension_keeps_long_descriptions_in_details_and_alt_under_300(tmp_path, caplog):
    w = torch.softmax(torch.randn(8, 6, 6, generator=torch.Generator().manual_seed(0)), dim=-1)
    fig = plot_head_heatmaps(w, TOKENS + ["끝"], TOKENS + ["끝"], title="헤드 여덟 개")
    full = get_alt(fig)
    assert len(full) > 300
    image, _ = _run_extension(tmp_path, png_bytes(fig), caplog)
    assert len(image["alt"]) <= 300 and image["alt"] == figure_alt.short_alt(full)
    assert full.startswith(image["alt"].split(" …")[0]) and "그림 아래" in image["alt"]
    details = [n for n in image.parent.parent.parent.children if n.tagname == "raw"]
    assert details and html_lib.escape(full) in details[0].astext() and "설명 자세히" in details[0].astext()


def test_extension_warns_when_a_notebook_image_has_no_korean_alt(tmp_path, caplog):
    fig, ax = plt.subplots()
    plt.close(fig)
    ax.plot([1, 2])
    image, _ = _run_extension(tmp_path, png_bytes(fig), caplog)
    assert "alt" not in image
    warnings = [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]
    assert any("대체 텍스트" in m and "x.png" in m for m in warnings), warnings


# ---------------------------------------------------------------------------------------
# 색지도
# ---------------------------------------------------------------------------------------


def test_heatmaps_use_a_perceptually_uniform_colour_blind_safe_map():
    assert HEATMAP_CMAP in SAFE_CMAPS and not set(SAFE_CMAPS) & BAD_CMAPS
    w = torch.stack([previous_head(5, 0.8), first_head(5, 0.9)])
    for fig in (plot_head_heatmaps(w), plot_batch_heatmaps(w)):
        names = {im.get_cmap().name for ax in fig.axes for im in ax.images}
        assert names and names <= set(SAFE_CMAPS), names
    html = explorer_html(TOKENS, 0)
    schemes = set(re.findall(r'"scheme":"([^"]+)"', html))
    assert schemes and schemes <= set(SAFE_CMAPS), schemes


@pytest.mark.parametrize("cmap", ["jet", "rainbow", "hsv", "nipy_spectral"])
def test_rainbow_colormaps_are_rejected_in_korean(cmap):
    w = torch.stack([previous_head(5, 0.8), first_head(5, 0.9)])
    raises_korean(ValueError, lambda: plot_head_heatmaps(w, cmap=cmap), cmap, "viridis")
    raises_korean(ValueError, lambda: plot_batch_heatmaps(w, cmap=cmap), cmap)


def test_no_rainbow_colormap_is_named_in_the_library_or_chapters():
    found = []
    for path in sorted((ROOT / "attn_lib").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in BAD_CMAPS:
                found.append(f"{path.name}:{node.lineno} {node.value}")
    for nb in sorted((ROOT / "chapters").glob("**/*.ipynb")):
        for cell in nbformat.read(nb, as_version=4).cells:
            if cell.cell_type == "code":
                found += [f"{nb.name}: {m}" for m in re.findall(r"cmap\s*=\s*['\"](\w+)['\"]", cell.source)
                          if m not in SAFE_CMAPS]
    assert not found, found


# ---------------------------------------------------------------------------------------
# 탐색기의 글 요약 (파이썬 쪽)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("mask", ["none", "causal", "padding", "causal+padding"])
def test_static_summary_table_is_describe_heads_at_every_head_count(mask):
    tokens = TOKENS
    table = summary_table(tokens, 3)
    meta = {"tokens": tokens, "seed": 3, "P": padded_length(len(tokens))}
    for d_k, scaled in [(1, True), (64, False), (512, True)]:
        rows = table["index"][summary_key(d_k, mask, scaled)]
        assert len(rows) == MAX_HEADS
        for heads in (1, 4, 16):  # 헤드가 포개져 있어서 앞의 heads줄이 그 헤드 수의 요약
            assert [table["lines"][i] for i in rows[:heads]] == expected_summary(meta, d_k, heads, mask, scaled)


def test_explorer_html_shows_the_initial_summary_with_aria_live():
    html = explorer_html(TOKENS, 0, d_k=512, num_heads=8, mask="causal", scaled=False)
    [(meta, key, lines, opening)] = explorer_blocks(html)
    assert key == "512|causal|0|8" and 'aria-live="polite"' in opening
    assert lines == expected_summary(meta, 512, 8, "causal", False)
    assert summary_caption(512, 8, "causal", False) in html_lib.unescape(html)
    spec = json.loads(re.search(r'-spec">(.*?)</script>', html).group(1))
    assert spec["usermeta"]["attnSummary"]["index"]["512|causal|0"]  # 브라우저가 쓰는 표가 명세 안에 있음


def test_live_explorer_shows_the_same_summary():
    ex = AttentionExplorer(tokens=TOKENS, seed=0, num_heads=4, d_k=64)
    assert ex.summary == describe_heads(ex.weights, TOKENS, TOKENS)
    before = ex._summary.value
    assert all(html_lib.escape(line) in before for line in ex.summary) and 'aria-live="polite"' in before
    ex.set(mask="padding", d_k=512, scaled=False)
    shown = ex.shown_tokens()
    assert ex.summary == describe_heads(ex.weights, shown, shown) and ex._summary.value != before


# ---------------------------------------------------------------------------------------
# 빌드된 사이트 (HTML만 읽음)
# ---------------------------------------------------------------------------------------


class _ImageCollector(HTMLParser):
    """본문(<main>/.bd-article) 안의 <img>를 모으고, 노트북 출력(.cell_output) 안인지 기록합니다."""

    VOID = {"img", "br", "hr", "meta", "link", "input", "source", "wbr", "area", "base", "col", "embed", "track"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, set[str]]] = []
        self.images: list[dict[str, Any]] = []

    def handle_starttag(self, tag: str, attrs_list: list[tuple[str, str | None]]) -> None:
        attrs = {k: v or "" for k, v in attrs_list}
        classes = set(attrs.get("class", "").split())
        if tag == "img":
            in_body = any(t == "main" or "bd-article" in c for t, c in self.stack)
            in_output = any("cell_output" in c for _, c in self.stack)
            self.images.append({**attrs, "in_body": in_body, "in_output": in_output})
        if tag not in self.VOID:
            self.stack.append((tag, classes))

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, -1, -1):
            if self.stack[i][0] == tag:
                del self.stack[i:]
                break


def output_images(html_dir: Path, docname: str) -> list[dict[str, Any]]:
    parser = _ImageCollector()
    parser.feed((html_dir / f"{docname}.html").read_text(encoding="utf-8"))
    return [img for img in parser.images if img["in_body"] and img["in_output"]]


@pytest.fixture(scope="module")
def book_images(html_dir: Path) -> dict[str, list[dict[str, Any]]]:
    images = {d: output_images(html_dir, d) for d in TOC_DOCNAMES}
    assert sum(map(len, images.values())) >= 20, "노트북 그림이 너무 적습니다: 파서가 본문을 찾지 못한 것은 아닌지"
    return images


@pytest.mark.site
def test_every_notebook_image_has_distinct_korean_alt_text(book_images):
    seen: dict[str, str] = {}
    for docname, images in book_images.items():
        page_alts = []
        for img in images:
            alt, src = img.get("alt", ""), img.get("src", "")
            assert HANGUL.search(alt), f"{docname}: {src}의 alt가 한국어가 아닙니다: {alt!r}"
            assert alt != src and ".png" not in alt and "_images/" not in alt, f"{docname}: alt가 파일 경로: {alt!r}"
            assert re.search(r"\d", alt), f"{docname}: alt에 데이터의 숫자가 없습니다: {alt!r}"
            page_alts.append(alt)
        assert len(set(page_alts)) == len(page_alts), f"{docname}: 같은 alt가 두 번 이상 있습니다"
        for alt in page_alts:
            assert alt not in seen, f"{docname}와 {seen.get(alt)}에 같은 alt: {alt[:120]}"
            seen[alt] = docname


def cached_outputs(name: str) -> list[dict]:
    from jupyter_cache import get_cache

    source = nbformat.read(ROOT / f"{name}.ipynb", as_version=4)
    try:
        _, executed = get_cache(str(CACHE)).merge_match_into_notebook(source)
    except KeyError:
        pytest.fail(f"{name}: 지금 원본과 맞는 실행 결과가 캐시에 없습니다 (다시 빌드하세요)")
    return [o for c in executed.cells if c.cell_type == "code" for o in c.outputs]


@pytest.mark.site
def test_html_alt_equals_the_alt_saved_in_the_notebook_output(book_images):
    """빌드가 쓴 alt는 노트북 출력 메타데이터의 alt(그리고 PNG 안의 글)와 같습니다 (파일 이름 = PNG의 sha256)."""
    checked = 0
    for docname, images in book_images.items():
        if not images:
            continue
        saved = {}
        for output in cached_outputs(docname):
            png = output.get("data", {}).get("image/png")
            if png:
                data = base64.b64decode(png)
                alt = output.get("metadata", {}).get("image/png", {}).get("alt")
                assert alt and figure_alt.png_text(data).get("Description") == alt, f"{docname}: 출력에 alt가 없음"
                saved[hashlib.sha256(data).hexdigest()] = alt
        for img in images:
            if img["src"].startswith("data:") or Path(img["src"]).stem.startswith("inline-"):
                # 헤드 탭의 그림 (HTML 출력 안의 data URI 를 빌드가 _images/inline-*.png 로 옮김; test_head_tabs_* 가 봄)
                continue
            digest = Path(img["src"]).stem
            assert img["alt"] == figure_alt.short_alt(saved[digest]), f"{docname}: {digest}"
            assert len(img["alt"]) <= figure_alt.ALT_LIMIT, f"{docname}: alt {len(img['alt'])}자"
            checked += 1
    assert checked >= 20


@pytest.mark.site
def test_head_tabs_on_the_static_site_carry_alt_and_a_visible_summary(html_dir: Path):
    # 웹사이트의 헤드 탭은 위젯이 아니라 정적 HTML 탭 (HeadTabs 의 text/html): 위젯 관리자 없이 바뀜
    pages = [d for d in TOC_DOCNAMES if 'class="attn-head-tabs"' in (html_dir / f"{d}.html").read_text(encoding="utf-8")]
    assert "chapters/02_multi_head" in pages
    for docname in pages:
        page = (html_dir / f"{docname}.html").read_text(encoding="utf-8")
        assert '"TabModel"' not in page, f"{docname}: 탭 위젯의 상태가 페이지에 남았습니다"
        for block in re.findall(r'<div class="attn-head-tabs".*?</figure></div></div>', page, re.S):
            titles = [html_lib.unescape(t) for t in re.findall(r"<label for=\"[^\"]+\">(.*?)</label>", block)]
            panels = re.findall(r'<div class="attn-head-tabs-panel"[^>]*>(.*?)</figure></div>', block, re.S)
            assert len(titles) == len(panels) >= 2
            alts, captions = [], []
            for h, value in enumerate(panels):
                alt = html_lib.unescape(re.search(r'<img [^>]*alt="([^"]*)"', value).group(1))
                caption = html_lib.unescape(re.search(r"<figcaption[^>]*>(.*?)</figcaption>", value).group(1))
                assert caption.startswith(f"헤드 {h}: ") and HANGUL.search(caption[6:]), caption
                assert titles[h] == f"헤드 {h}"
                assert alt.endswith(caption) and re.search(r"\d", alt) and ".png" not in alt
                alts.append(alt)
                captions.append(caption)
            assert len(set(alts)) == len(alts) and len(set(captions)) == len(captions)


def explorer_blocks(html: str) -> list[tuple[dict, str, list[str], str]]:
    """페이지의 정적 탐색기마다 (meta, data-key, 요약 줄, 요약 div 여는 태그)."""
    out = []
    for uid in re.findall(r'<div class="attn-explorer" id="(attn-explorer-[0-9a-f]+)"', html):
        meta = json.loads(re.search(rf'id="{uid}-meta"[^>]*>(.*?)</script>', html, re.S).group(1))
        opening = re.search(rf'<div class="attn-explorer-summary" id="{uid}-summary"[^>]*>', html).group(0)
        block = re.search(rf'id="{uid}-summary".*?</ul>', html, re.S).group(0)
        lines = [html_lib.unescape(li) for li in re.findall(r"<li>(.*?)</li>", block)]
        out.append((meta, re.search(r'data-key="([^"]+)"', opening).group(1), lines, opening))
    return out


def expected_summary(meta: dict, dk: int, heads: int, mask: str, scaled: bool, kv: int | None = None) -> list[str]:
    tokens = shown_tokens(meta["tokens"], mask)
    weights, *_ = ExplorerModel(meta["seed"]).weights(tokens, d_k=dk, num_heads=heads, mask=mask, scaled=scaled,
                                                      num_kv_heads=kv)
    return describe_heads(weights, tokens, tokens)


@pytest.mark.site
def test_static_explorer_summary_matches_describe_heads(html_dir: Path):
    found = found_kv = 0
    for docname in TOC_DOCNAMES:
        for meta, key, lines, opening in explorer_blocks((html_dir / f"{docname}.html").read_text(encoding="utf-8")):
            # data-key: d_k|마스크|스케일링[|shift]|헤드 수, 그룹 크기 H / Hkv = 2^shift (summary_key)
            dk, mask, scaled, *shift, heads = key.split("|")
            kv = int(heads) >> int(shift[0]) if shift else None
            assert 'aria-live="polite"' in opening
            assert lines == expected_summary(meta, int(dk), int(heads), mask, scaled == "1", kv), docname
            found_kv += kv is not None
            found += 1
    assert found >= 1 and found_kv >= 1  # 7장 탐색기는 그룹 쿼리 어텐션(KV 헤드 2개)으로 시작


# ---------------------------------------------------------------------------------------
# 브라우저 (정적 사이트, 네트워크 없음)
# ---------------------------------------------------------------------------------------

READ_SUMMARY_JS = """
async ([id, pt]) => {
  const view = window.__attnExplorers[id];
  const names = JSON.parse(document.getElementById(id + "-meta").textContent).params;
  view.signal(names.dk, pt.dk).signal(names.heads, pt.heads).signal(names.mask, pt.mask).signal(names.scaled, pt.scaled);
  await view.runAsync();
  const box = document.getElementById(id + "-summary");
  const canvas = document.querySelector("#" + id + " .attn-explorer-view canvas");
  return {lines: Array.from(box.querySelectorAll("li")).map(li => li.textContent),
          caption: box.querySelector(".attn-explorer-summary-caption").textContent,
          live: box.getAttribute("aria-live"), role: canvas.getAttribute("role"),
          label: canvas.getAttribute("aria-label"), describedby: canvas.getAttribute("aria-describedby")};
}
"""


@pytest.mark.browser
def test_explorer_summary_follows_the_controls_in_the_browser(
    open_offline_page: Callable[..., OfflinePage], screenshot_dir: Path
) -> None:
    probe = open_offline_page()
    probe.goto("chapters/02_multi_head")
    page = probe.page
    scroll_to_explorers(page)  # 화면 가까이 와야 그려짐
    uid = page.locator(".attn-explorer").first.get_attribute("id")
    meta = json.loads(page.locator(f"#{uid}-meta").text_content())
    points = [{"dk": 64, "heads": 4, "mask": "none", "scaled": True},
              {"dk": 512, "heads": 8, "mask": "causal", "scaled": False},
              {"dk": 2, "heads": 2, "mask": "padding", "scaled": True},
              {"dk": 16, "heads": 16, "mask": "causal+padding", "scaled": False}]
    labels = set()
    for pt in points:
        got = page.evaluate(READ_SUMMARY_JS, [uid, pt])
        assert got["lines"] == expected_summary(meta, pt["dk"], pt["heads"], pt["mask"], pt["scaled"]), pt
        assert got["caption"] == summary_caption(pt["dk"], pt["heads"], pt["mask"], pt["scaled"])
        assert got["live"] == "polite" and got["role"] == "img" and got["describedby"] == f"{uid}-summary"
        assert f"d_k = {pt['dk']}" in got["label"] and f"히트맵 {pt['heads']}개" in got["label"]
        labels.add(got["label"])
    assert len(labels) == len(points)
    summary = page.locator(f"#{uid}-summary")
    summary.scroll_into_view_if_needed()
    page.locator(f"#{uid}").screenshot(path=str(screenshot_dir / "figure_alt__explorer_summary.png"))
    assert summary.is_visible()


@pytest.mark.browser
def test_head_tabs_panels_show_alt_and_summary_in_the_browser(
    open_offline_page: Callable[..., OfflinePage], screenshot_dir: Path
) -> None:
    probe = open_offline_page()
    probe.goto("chapters/02_multi_head")
    page = probe.page
    tab = page.locator(".attn-head-tabs").first
    items = tab.locator("label")
    seen = []
    for h in range(items.count()):
        if h == 2:  # 키보드로도: 고른 단추에서 → 키
            tab.locator("input:checked").focus()
            page.keyboard.press("ArrowRight")
        else:
            items.nth(h).click()
        panels = tab.locator(".attn-head-tab:visible")
        assert panels.count() == 1, f"헤드 {h}: 보이는 패널 {panels.count()}개"
        img, caption = panels.locator("img"), panels.locator("figcaption")
        assert caption.inner_text().startswith(f"헤드 {h}: ")
        alt = img.get_attribute("alt")
        assert HANGUL.search(alt) and alt.endswith(caption.inner_text())
        # 본문 그림은 loading="lazy": 방금 보인 패널의 그림은 화면에 들어온 뒤 비동기로 읽힙니다. 다 읽을 때까지 기다려
        # (깨진 그림은 error 로 False) 확인합니다.
        img.scroll_into_view_if_needed()
        assert img.evaluate(
            """i => i.complete ? i.naturalWidth > 0 : new Promise(done => {
                   i.addEventListener("load", () => done(i.naturalWidth > 0), {once: true});
                   i.addEventListener("error", () => done(false), {once: true});
               })"""
        ), f"헤드 {h}: 그림을 읽지 못했습니다"
        seen.append(alt)
        if h == 1:
            tab.scroll_into_view_if_needed()
            tab.screenshot(path=str(screenshot_dir / "figure_alt__head_tabs.png"))
    assert len(seen) >= 2 and len(set(seen)) == len(seen)
