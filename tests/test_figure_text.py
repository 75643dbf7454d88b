"""읽을 수 있는 그림 (이슈 13, 4항): 그림 속 가장 작은 글자가 보이는 크기에서 10 CSS px 이상.

- 라이브러리: 그림 함수마다 1배 크기에서 가장 작은 글자 ≥ 10 CSS px, 너비 ≤ 노트북 화면의 본문 폭(688 px),
  PNG 는 2배 화소이고 글 묶음에 가장 작은 글자 크기(``Min text px``)와 제목(``Title``)이 있음.
- 브라우저(browser), 휴대폰(390 px)과 노트북(1280 px), 목차의 모든 페이지: 본문의 보이는 그림마다
  ``data-min-text-px × (보이는 너비 / 1배 너비) ≥ 10``, PNG 화소가 1배 너비의 2배, 노트북 출력 그림은
  "그림 N.k ..." 캡션과 300자 이하의 alt 를 가짐, 페이지는 옆으로 밀리지 않음.
  5장과 6장 그림의 휴대폰 스크린숏을 ``_build/screenshots/`` 에 남깁니다.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any, Callable

import pytest
import torch
from PIL import Image

from attn_lib import causal_mask, padding_mask
from attn_course import (
    plot_batch_heatmaps,
    plot_curves,
    plot_head_accuracy,
    plot_head_heatmaps,
    plot_mask,
    plot_metric_panels,
    plot_saturation_grid,
    plot_saturation_histogram,
)
from attn_course.viz.figure_output import PIXEL_RATIO, render_png
from conftest import VIEWPORT_OPTIONS, OfflinePage, read_toc_docnames

TOC_DOCNAMES = read_toc_docnames()
MIN_PX = 10.0
LAPTOP_COLUMN_PX = 688  # 1280 px 화면에서 노트북 출력 상자의 너비 (tests/test_site_layout.py 와 같은 테마)
TOKENS = ["<s>", "A", "B", "C", "D", "E", "F", "</s>", "<pad>"]


def _weights(*shape: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(sum(shape))
    return torch.softmax(2 * torch.randn(*shape, generator=g), dim=-1)


FIGURES: dict[str, Callable[[], Any]] = {
    "헤드 4개 히트맵": lambda: plot_head_heatmaps(_weights(4, 9, 9), TOKENS, TOKENS, ncols=2, title="크로스 어텐션"),
    "값을 적은 히트맵": lambda: plot_head_heatmaps(_weights(4, 5, 5), annotate=True, title="무작위 헤드"),
    "시퀀스별 히트맵": lambda: plot_batch_heatmaps(_weights(3, 9, 9), TOKENS, TOKENS, mask=padding_mask([9, 6, 4], 9)),
    "마스크": lambda: plot_mask(causal_mask(6), title="인과 마스크"),
    "히스토그램": lambda: plot_saturation_histogram(_weights(2, 6, 6), title="분포"),
    "포화 격자 3×2": lambda: plot_saturation_grid({f"$d_k$ = {2 ** i}": _weights(2, 6, 6) for i in range(6)}),
    "곡선": lambda: plot_curves([1, 2, 4, 8], {"측정": [1, 2, 3, 4]}, xlabel="$d_k$", ylabel="분산", logx=True),
    "지표 패널 3개": lambda: plot_metric_panels([1, 2, 4], {n: {"a": [1, 2, 3], "b": [3, 2, 1]} for n in "가나다"},
                                          xlabel="$d_k$", logx=True),
    "헤드 수별 정확도": lambda: plot_head_accuracy({1: [0.3, 0.4], 2: [0.9, 1.0]}, ceilings={"first_only": 0.31}),
}


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_figure_text_is_legible_at_1x_and_fits_a_laptop_column(name: str) -> None:
    rendered = render_png(FIGURES[name]())
    assert rendered.min_text_px is not None and rendered.min_text_px >= MIN_PX, (
        f"{name}: 가장 작은 글자가 {rendered.min_text_px} CSS px (10 이상이어야 함)")
    assert rendered.css_width <= LAPTOP_COLUMN_PX, f"{name}: 너비 {rendered.css_width} px > {LAPTOP_COLUMN_PX} px"
    image = Image.open(io.BytesIO(rendered.data))
    assert image.size[0] == pytest.approx(rendered.css_width * PIXEL_RATIO, abs=1), f"{name}: 2배 화소가 아님"
    assert float(image.text["Min text px"]) == pytest.approx(rendered.min_text_px, abs=0.01)


def test_min_text_px_sees_the_smallest_text_and_ignores_hidden_axes() -> None:
    import matplotlib.pyplot as plt

    fig, (ax, hidden) = plt.subplots(1, 2)
    plt.close(fig)
    ax.plot([1, 2])
    ax.tick_params(labelsize=12)
    ax.set_title("제목", fontsize=14)
    hidden.set_axis_off()  # 숨긴 축의 눈금(기본 크기)은 세지 않음
    rendered = render_png(fig)
    assert rendered.min_text_px == pytest.approx(12 * 100 / 72)
    ax.annotate("작은 글", (0, 1), fontsize=6)
    assert render_png(fig).min_text_px == pytest.approx(6 * 100 / 72)


# ---------------------------------------------------------------------------------------
# 브라우저: 모든 페이지, 휴대폰과 노트북
# ---------------------------------------------------------------------------------------

READ_IMAGES_JS = r"""
() => {
  const article = document.querySelector('article.bd-article') || document.querySelector('main');
  const out = [];
  for (const img of article.querySelectorAll('img')) {
    if (!img.getClientRects().length || img.clientWidth === 0) continue;  // 숨은 탭 패널의 그림
    const figure = img.closest('figure');
    const caption = figure && figure.querySelector('figcaption');
    // <picture>: 좁은 화면에서는 <source> 의 휴대폰용 그림이 보이고, 크기와 글자 크기도 그 <source> 에 있음
    const source = img.parentElement.tagName === 'PICTURE' ? img.parentElement.querySelector('source') : null;
    const phone = !!source && img.currentSrc.split('/').pop() === source.getAttribute('srcset').split('/').pop();
    const shownFrom = phone ? source : img;
    const box = img.closest('.attn-figure-scroll');
    out.push({
      src: (img.getAttribute('src') || '').slice(0, 80),
      alt: img.getAttribute('alt') || '',
      width: Number(shownFrom.getAttribute('width') || 0),
      naturalWidth: img.naturalWidth,
      shown: img.getBoundingClientRect().width,
      minText: Number(shownFrom.dataset.minTextPx || 0),
      hasPhone: !!source,
      phone: phone,
      sideways: box ? box.scrollWidth - box.clientWidth : 0,
      output: !!img.closest('.cell_output'),
      tab: !!img.closest('.attn-head-tab'),
      caption: caption ? caption.textContent.replace(/\s+/g, ' ').trim() : '',
    });
  }
  return {images: out, pageWidth: document.documentElement.scrollWidth, viewport: window.innerWidth};
}
"""


def _read(probe: OfflinePage, docname: str) -> dict[str, Any]:
    response = probe.goto(docname)
    assert response is not None and response.ok, f"{docname}: HTTP {response and response.status}"
    # 본문 그림은 loading="lazy" (attn_site/site_speed.py): 화면 밖 그림도 지금 받게 한 뒤 다 올 때까지 기다립니다
    probe.page.evaluate("() => document.querySelectorAll('img[loading=lazy]').forEach(i => { i.loading = 'eager'; })")
    probe.page.wait_for_function("() => [...document.images].every(i => i.complete)", timeout=30_000)
    return probe.page.evaluate(READ_IMAGES_JS)


def figure_offenders(docname: str, found: dict[str, Any]) -> list[str]:
    """그림마다 규칙을 어긴 것을 한국어로 (비었으면 통과)."""
    bad = []
    number = docname.rsplit("/", 1)[-1].split("_")[0]
    for img in found["images"]:
        where = f"{docname}: {img['caption'][:40] or img['src']}"
        if not img["minText"] or not img["width"]:
            bad.append(f"{where}: 그림 속 글자 크기(data-min-text-px)나 1배 너비(width)를 모름")
            continue
        shown_px = img["minText"] * img["shown"] / img["width"]
        if shown_px < MIN_PX - 0.01:
            bad.append(f"{where}: 가장 작은 글자가 {shown_px:.1f} CSS px로 보임 "
                       f"(1배 {img['minText']:.1f} px, 너비 {img['width']} px를 {img['shown']:.0f} px로 줄임)")
        if img["naturalWidth"] < PIXEL_RATIO * img["width"] - 1:
            bad.append(f"{where}: PNG가 {img['naturalWidth']} 화소로 1배 너비 {img['width']} px의 2배가 아님")
        if img["output"] and not img["tab"]:
            # "그림 6.1 ..." (attn_site/figure_alt.py): 캡션을 직접 단 그림(mystnb.figure)도 장 번호가 붙은 같은 꼴
            if not re.match(rf"그림 {int(number)}\.\d+ \S" if number.isdigit() else r"그림 \d", img["caption"]):
                bad.append(f"{where}: '그림 N.k ...' 캡션이 없음 ({img['caption'][:30]!r})")
            if len(img["alt"]) > 300:
                bad.append(f"{where}: alt가 {len(img['alt'])}자 (300자 이하여야 함)")
    if found["pageWidth"] > found["viewport"] + 1:
        bad.append(f"{docname}: 페이지가 옆으로 밀림 (문서 너비 {found['pageWidth']} px > 화면 {found['viewport']} px)")
    return bad


@pytest.mark.browser
@pytest.mark.parametrize("viewport", ["phone", "laptop"])
def test_every_figure_shows_its_text_at_10_css_px_or_more(
    viewport: str, open_offline_page: Callable[..., OfflinePage]
) -> None:
    probe = open_offline_page(**VIEWPORT_OPTIONS[viewport])
    offenders, seen = [], 0
    for docname in TOC_DOCNAMES:
        found = _read(probe, docname)
        seen += len(found["images"])
        offenders += figure_offenders(docname, found)
    assert seen >= 25, f"본문 그림이 {seen}개뿐입니다: 선택자가 그림을 찾지 못한 것은 아닌지"
    assert not offenders, f"{viewport}: 읽기 어려운 그림 {len(offenders)}개\n" + "\n".join(offenders)


@pytest.mark.browser
@pytest.mark.parametrize("viewport", ["phone", "laptop"])
def test_phone_gets_the_one_column_figures_and_the_laptop_the_wide_ones(
    viewport: str, open_offline_page: Callable[..., OfflinePage]
) -> None:
    """휴대폰용 그림(attn_course/viz/phone.py, attn_site/figure_alt.py 의 <picture>)은 휴대폰에서만 보이고, 보이면
    그림 상자가 옆으로 넘어가지 않습니다. 노트북 화면은 넓은 그림을 그대로 받습니다."""
    probe = open_offline_page(**VIEWPORT_OPTIONS[viewport])
    with_phone, wrong = 0, []
    for docname in TOC_DOCNAMES:
        for img in _read(probe, docname)["images"]:
            if not img["hasPhone"]:
                continue
            with_phone += 1
            where = f"{docname}: {img['caption'][:40]}"
            if img["phone"] != (viewport == "phone"):
                wrong.append(f"{where}: {'휴대폰용' if img['phone'] else '넓은'} 그림이 보임")
            elif viewport == "phone" and img["sideways"] > 1:
                wrong.append(f"{where}: 휴대폰용 그림인데 상자가 {img['sideways']:.0f} px 옆으로 넘어감")
    assert with_phone >= 20, f"휴대폰용 그림이 있는 그림이 {with_phone}개뿐입니다 (make book 이 ATTN_PHONE_FIGURES=1 로 그렸는지)"
    assert not wrong, f"{viewport}: \n" + "\n".join(wrong)


@pytest.mark.browser
@pytest.mark.parametrize("docname, shot", [("chapters/05_training_heads", "figure-05-phone.png"),
                                           ("chapters/06_cross_attention", "figure-06-phone.png")])
def test_phone_screenshot_of_a_chapter_figure(
    docname: str, shot: str, open_offline_page: Callable[..., OfflinePage], screenshot_dir: Path
) -> None:
    probe = open_offline_page(**VIEWPORT_OPTIONS["phone"])
    _read(probe, docname)
    figure = probe.page.locator("figure.attn-figure").nth(1 if "05" in docname else 0)
    figure.scroll_into_view_if_needed()
    figure.screenshot(path=str(screenshot_dir / shot))
    box = figure.locator(".attn-figure-scroll")
    overflow = box.evaluate("b => b.scrollWidth - b.clientWidth")
    assert overflow >= 0 and figure.locator("figcaption").inner_text().startswith("그림 ")
