"""휴대폰용 그림 (attn_course/viz/phone.py, figure_output.with_phone_png, attn_site/figure_alt.py 의 <picture>).

그림 함수는 돌려준 그림에 "같은 인자로 다시 그리는 법"을 적어 두고, 책을 빌드할 때 표시 함수가 그 그림을
휴대폰 배치(너비 상한 3.4인치 = 340 CSS px, 패널은 한 열)로 한 번 더 그려 PNG 에 넣습니다. 빌드 확장은 그것을
꺼내 좁은 화면용 ``<source>`` 로 씁니다. 휴대폰용 그림도 글자가 10 CSS px 아래로 줄지 않아야 하고, 휴대폰
본문 칸(358 px)에 들어가지 않으면 쓰지 않습니다.
"""

from __future__ import annotations

import base64
import io
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
import torch
from PIL import Image

from attn_course import plot_curves, plot_head_heatmaps, plot_metric_panels
from attn_course.viz import figure_output
from attn_course.viz.figure_output import render_png, with_phone_png
from attn_course.viz.layout import grid_layout
from attn_course.viz.phone import PHONE_ENV, PHONE_FIGURE_WIDTH_IN, in_phone_layout, phone_layout, redraw_for_phone
from attn_site import figure_alt, figure_png

TOKENS = ["그", "고양이", "는", "매트", "위", "에", "앉았다", "."]
PHONE_COLUMN_PX = 358


def _heads(h: int = 4, n: int = 8) -> torch.Tensor:
    return torch.softmax(torch.randn(h, n, n, generator=torch.Generator().manual_seed(0)), dim=-1)


def test_phone_layout_narrows_the_grid_and_ignores_a_desktop_column_count() -> None:
    wide = grid_layout(4, 8, 8, 3, annotate=False, ncols=2, extra_w=0.9)
    with phone_layout():
        assert in_phone_layout()
        narrow = grid_layout(4, 8, 8, 3, annotate=False, ncols=2)
    assert not in_phone_layout()
    assert wide.ncols == 2 and narrow.ncols == 1 and narrow.nrows == 4
    assert narrow.figsize[0] <= PHONE_FIGURE_WIDTH_IN + 1e-9 < wide.figsize[0]


def test_plot_functions_can_be_redrawn_for_a_phone() -> None:
    fig = plot_head_heatmaps(_heads(), TOKENS, TOKENS, title="헤드 네 개", ncols=2)
    phone = redraw_for_phone(fig)
    assert phone is not None and phone is not fig
    desktop, small = render_png(fig), render_png(phone)
    assert small.css_width < desktop.css_width and small.css_height > desktop.css_height  # 한 열로 쌓임
    assert small.min_text_px >= 10 and small.css_width * 10 / small.min_text_px <= PHONE_COLUMN_PX
    assert redraw_for_phone(phone) is None, "다시 그린 그림에는 다시 그리는 법을 적지 않습니다"
    assert phone not in [plt.figure(n) for n in plt.get_fignums()], "휴대폰용 그림이 노트북 출력으로 새어 나감"


def test_line_and_panel_figures_fit_the_phone_column() -> None:
    x = [1, 2, 4, 8]
    for fig in (plot_curves(x, {"측정": [1, 2, 3, 4]}, xlabel="d_k", ylabel="분산"),
                plot_metric_panels(x, {"엔트로피": {"a": [1, 2, 3, 4]}, "포화": {"a": [0, 1, 0, 1]},
                                       "기울기": {"a": [4, 3, 2, 1]}}, xlabel="d_k")):
        small = render_png(redraw_for_phone(fig))
        assert small.css_width * 10 / small.min_text_px <= PHONE_COLUMN_PX, small.css_width


def test_a_figure_drawn_into_someone_elses_axes_is_not_redrawn() -> None:
    fig, ax = plt.subplots()
    plt.close(fig)
    plot_curves([1, 2], {"a": [1, 2]}, xlabel="x", ylabel="y", ax=ax)
    assert redraw_for_phone(fig) is None


def test_display_embeds_the_phone_png_only_when_building_the_book(monkeypatch: pytest.MonkeyPatch) -> None:
    fig = plot_head_heatmaps(_heads(), TOKENS, TOKENS, ncols=2)
    monkeypatch.delenv(PHONE_ENV, raising=False)
    plain = base64.b64decode(figure_output._ipython_png(fig)[0])
    assert figure_png.png_chunk(plain, figure_png.PHONE_CHUNK)[1] == b""
    monkeypatch.setenv(PHONE_ENV, "1")
    data = base64.b64decode(figure_output._ipython_png(fig)[0])
    desktop, phone = figure_png.png_chunk(data, figure_png.PHONE_CHUNK)
    assert phone and desktop == plain, "넓은 그림은 그대로이고 휴대폰용 그림만 덧붙어야 합니다"
    Image.open(io.BytesIO(data)).load()  # 덩어리를 넣은 PNG 도 그대로 열림
    assert figure_png.png_size(phone)[0] < figure_png.png_size(desktop)[0]


def test_with_phone_png_rejects_what_is_not_a_png() -> None:
    with pytest.raises(ValueError, match="PNG"):
        with_phone_png(b"not a png", b"x")


def _phone_figure(tmp_path: Path, phone_fig) -> tuple[Path, bytes]:
    wide = render_png(plot_head_heatmaps(_heads(), TOKENS, TOKENS, ncols=2)).data
    path = tmp_path / "abc.png"
    path.write_bytes(with_phone_png(wide, render_png(phone_fig).data))
    return path, wide


def test_build_splits_the_phone_png_into_its_own_file(tmp_path: Path) -> None:
    fig = plot_head_heatmaps(_heads(), TOKENS, TOKENS, ncols=2)
    path, wide = _phone_figure(tmp_path, redraw_for_phone(fig))
    data, phone = figure_png.split_phone_png(path, path.read_bytes())
    assert data == wide == path.read_bytes(), "넓은 화면용 PNG 에서 휴대폰용 그림을 지워야 합니다"
    assert figure_png.phone_path(path).read_bytes() == phone
    assert figure_png.split_phone_png(path, path.read_bytes()) == (wide, phone), "두 번째 빌드는 옆 파일을 읽음"


def test_phone_source_is_used_only_when_it_fits_the_phone_column(tmp_path: Path) -> None:
    fig = plot_head_heatmaps(_heads(), TOKENS, TOKENS, ncols=2)
    for phone_fig, expected in ((redraw_for_phone(fig), True), (fig, False)):  # 넓은 그림을 "휴대폰용"으로: 거절
        image = figure_alt.legible_image("", uri="x.png")
        image["min_width"] = 536
        figure_png.phone_source(image, render_png(phone_fig).data, tmp_path / "x-phone.png")
        assert bool(image.get("phone")) is expected
        if expected:
            assert image["phone"]["min_width"] <= PHONE_COLUMN_PX
