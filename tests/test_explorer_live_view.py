"""살아 있는 탐색기의 보기가 정적 탐색기와 같은 약속을 지키는지 (이슈 13 항목 5).

- 마스크로 가려진 칸은 회색(``MASKED_COLOR``)이고, 가려지지 않은 가중치 0 칸은 회색이 아닌지 (PNG 픽셀로)
- 히스토그램의 세로축이 보통(선형) 눈금의 "칸 수"이고, 위 끝이 막대에 맞춰 바뀌는지 (막대 높이도 픽셀로)
- 눈금 띠를 보관했다 다시 쓸 때 이전 눈금이 남지 않는지 (새로 만든 그림과 바이트까지 같음)
- 조작기 설명과 "이 그림을 읽는 법"이 위젯 트리에 있고, 정적 탐색기와 같은 글인지
- 장의 글이 d_k 조작기를 실제 조작기 이름으로 부르는지
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import ipywidgets as widgets
import matplotlib
import numpy as np
import pytest
from matplotlib.patches import Patch
from matplotlib.text import Text
from PIL import Image

from attn_course import AttentionExplorer
from attn_course.explorer.live_figure import _HIST_BINS, _HIST_ROOM, _ExplorerFigure, _count_top
from attn_course.explorer.spec import MASKED_COLOR
from attn_course.explorer.static import explorer_html
from attn_course.explorer.texts import CONTROL_HELP, HOW_TO_READ, LIVE_CONTROL_HELP, MASKED_LEGEND

ROOT = Path(__file__).resolve().parents[1]
SENTENCE = "나는 어제 도서관에서 책을 빌렸다"
GREY = tuple(round(c * 255) for c in matplotlib.colors.to_rgb(MASKED_COLOR))


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def cell_colour(figure: _ExplorerFigure, image: np.ndarray, head: int, q: int, k: int) -> tuple[int, ...]:
    """헤드 ``head``의 칸 (q, k) 가운데 픽셀의 색."""
    rs, cs, rows, cols = figure.cells[head]
    r = rs.start + int(np.flatnonzero(rows == q).mean())
    c = cs.start + int(np.flatnonzero(cols == k).mean())
    return tuple(int(v) for v in image[r, c])


# ---------------------------------------------------------------------------------------
# 가려진 칸은 회색
# ---------------------------------------------------------------------------------------


def test_masked_cells_are_grey_and_unmasked_zero_weight_cells_are_not():
    figure = _ExplorerFigure(2, ["가", "나", "다"], 88)
    weights = np.zeros((2, 3, 3))  # (H, L, S): 모든 칸 가중치 0
    weights[:, 2, 0] = 1.0
    allowed = np.tril(np.ones((3, 3), dtype=bool))  # 인과: 위 삼각형이 가려짐
    image = pixels(figure.render(weights, np.histogram(weights[:, allowed], _HIST_BINS)[0], "", allowed))
    zero = tuple(int(v) for v in figure.lut[0])  # viridis 0 (진한 보라)
    for h in range(2):
        for q in range(3):
            for k in range(3):
                colour = cell_colour(figure, image, h, q, k)
                if not allowed[q, k]:
                    assert colour == GREY, (h, q, k, colour)
                elif (q, k) == (2, 0):
                    assert colour == tuple(int(v) for v in figure.lut[255]), (h, q, k, colour)
                else:  # 가려지지 않은 가중치 0 칸: 진한 보라, 회색 아님
                    assert colour == zero != GREY, (h, q, k, colour)
    # 마스크가 없으면 같은 가중치라도 회색 칸이 없음
    image = pixels(figure.render(weights, np.histogram(weights, _HIST_BINS)[0], "", None))
    assert all(cell_colour(figure, image, h, q, k) != GREY for h in range(2) for q in range(3) for k in range(3))


@pytest.mark.parametrize("window", [None, 3])
@pytest.mark.parametrize("mask", ["none", "causal", "padding", "causal+padding"])
def test_live_explorer_greys_exactly_the_masked_cells(mask, window):
    """창(3)은 마스크와 함께 걸립니다: 회색 칸이 정확히 두 조건 중 하나라도 막은 칸이고, RoPE를 켜도 같습니다."""
    ex = AttentionExplorer(tokens=SENTENCE, num_heads=4, mask=mask, window=window,
                           position="rope" if window else "none")
    figure = ex._figure(4, ex.shown_tokens())
    image = pixels(ex.image)
    H, L, S = ex.weights.shape
    allowed = np.ones((H, L, S), dtype=bool) if ex.attn_mask is None else \
        np.broadcast_to(ex.attn_mask.numpy(), (H, L, S))
    grey = np.array([[[cell_colour(figure, image, h, q, k) == GREY for k in range(S)] for q in range(L)]
                     for h in range(H)])
    assert (grey == ~allowed).all(), f"{mask}: 회색 칸과 가려진 칸이 다릅니다"
    assert (ex.weights.numpy()[~allowed] == 0).all()  # 가려진 칸의 가중치는 여전히 0 (회색은 그리기만)
    assert (mask == "none" and window is None) == (not grey.any())
    if window is not None:  # 창 밖(대각선 위, 또는 두 칸보다 먼 과거)은 모두 회색
        q, k = np.arange(L)[:, None], np.arange(L)[None, :]
        assert grey[:, (k > q) | (q - k >= window)].all()


def test_grey_has_a_legend_under_the_colour_bar():
    ex = AttentionExplorer(tokens=SENTENCE, num_heads=4)
    fig = ex._figure(4, ex.shown_tokens()).fig
    legends = [a.get_legend() for a in fig.axes if a.get_legend() is not None]
    assert len(legends) == 1
    (handle,), (text,) = legends[0].legend_handles, legends[0].get_texts()
    assert text.get_text() == MASKED_LEGEND == "회색: 가려진 칸"
    assert isinstance(handle, Patch) and matplotlib.colors.to_hex(handle.get_facecolor()) == MASKED_COLOR


# ---------------------------------------------------------------------------------------
# 선형 "칸 수" 축
# ---------------------------------------------------------------------------------------


def test_count_top_is_a_round_number_leaving_room_for_the_text():
    for count in [1, 2, 3, 7, 10, 37, 78, 79, 100, 144, 999, 4096]:
        top = _count_top(count)
        assert count <= top * _HIST_ROOM < 1.5 * max(count, 2), (count, top)
        mantissa = top / 10 ** int(np.floor(np.log10(top)))
        assert round(mantissa, 6) in {1, 1.5, 2, 3, 4, 5, 6, 8}, (count, top)


@pytest.mark.parametrize("settings", [{"mask": "none"}, {"mask": "causal", "d_k": 512, "scaled": False},
                                      {"num_heads": 16, "mask": "padding"}, {"num_heads": 1, "d_k": 1}])
def test_count_axis_is_linear_labelled_and_fits_the_bars(settings):
    ex = AttentionExplorer(tokens=SENTENCE, **settings)
    figure = ex._figure(ex.state["num_heads"], ex.shown_tokens(), ex.state["num_kv_heads"])
    assert figure.hist.get_yscale() == "linear"
    assert figure.hist.get_ylabel() == "칸 수"
    texts = [t.get_text() for t in figure.fig.findobj(Text)]
    assert not [t for t in texts if "로그" in t], texts
    w = ex.weights.numpy()
    allowed = np.ones(w.shape, dtype=bool) if ex.attn_mask is None else np.broadcast_to(ex.attn_mask.numpy(), w.shape)
    counts = np.histogram(w[allowed], bins=_HIST_BINS)[0]
    bottom, top = figure.hist.get_ylim()
    assert bottom == 0 and top == _count_top(counts.max())
    # 가장 큰 막대의 픽셀 높이 = 축 높이 × (개수 / 위 끝), 1픽셀 안에서
    image = pixels(ex.image)
    i = int(counts.argmax())
    column = image[:figure.bar_floor, (figure.bar_x[i] + figure.bar_x[i + 1]) // 2]
    bar = tuple(int(round(v)) for v in figure.bar_rgb)
    drawn = int((column == bar).all(axis=1).sum())
    box = figure.hist.get_window_extent()
    assert abs(drawn - box.height * counts.max() / top) <= 1.5, (drawn, box.height, counts.max(), top)
    assert counts.max() / top >= _HIST_ROOM / 1.5  # 막대가 축 높이의 절반쯤 아래로 줄지 않음


def test_changing_the_count_axis_leaves_no_stale_ticks():
    ex = AttentionExplorer(tokens=SENTENCE, num_heads=4)
    first = ex.image
    ex.set(mask="causal", d_k=512, scaled=False)  # 막대 하나가 커져 위 끝이 바뀜
    figure = ex._figure(4, ex.shown_tokens())
    assert figure.top != _count_top(4 * 5 * 5)
    changed = ex.image
    fresh = AttentionExplorer(tokens=SENTENCE, num_heads=4, mask="causal", d_k=512, scaled=False)
    assert changed == fresh.image  # 보관한 띠로 그려도 처음부터 그린 그림과 바이트까지 같음
    ex.set(mask="none", d_k=64, scaled=True)
    assert ex.image == first  # 돌아오면 처음 그림 그대로 (이전 눈금이 남지 않음)
    band = figure.band
    assert not np.array_equal(pixels(first)[band], pixels(changed)[band])  # 눈금 글자가 실제로 바뀜


# ---------------------------------------------------------------------------------------
# 조작기 설명과 읽는 법
# ---------------------------------------------------------------------------------------


def widget_tree(widget: widgets.Widget) -> list[widgets.Widget]:
    found = [widget]
    for child in getattr(widget, "children", ()):
        found += widget_tree(child)
    return found


def plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_control_captions_and_reading_guide_are_in_the_widget_tree():
    ex = AttentionExplorer(tokens=SENTENCE)
    tree = widget_tree(ex.widget)
    html = [w for w in tree if isinstance(w, widgets.HTML)]
    help_box = [w for w in html if "조작기 설명" in w.value]
    how_box = [w for w in html if "이 그림을 읽는 법" in w.value]
    assert len(help_box) == 1 and len(how_box) == 1
    help_text, how_text = plain(help_box[0].value), plain(how_box[0].value)
    for name, label, line in LIVE_CONTROL_HELP:
        assert f"{label}: {line}" in help_text
        assert ex.controls[name].tooltip == line  # 마우스를 올려도 같은 한 줄
        assert ex.controls[name].description == label  # 설명의 이름이 조작기에 보이는 이름 그대로
    assert set(ex.controls) == {name for name, _, _ in LIVE_CONTROL_HELP}  # 조작기마다 한 줄, 빠짐없이
    for line in HOW_TO_READ:
        assert line in how_text
    assert "내려받" not in how_text  # 내려받기 메뉴는 정적 탐색기에만
    # 자리: 설명은 조작기 아래·그림 위, 읽는 법은 그림 바로 아래
    order = list(ex.widget.children)
    assert order.index(help_box[0]) < order.index(ex._image) == order.index(how_box[0]) - 1
    assert all(order.index(help_box[0]) > i for i, child in enumerate(order)
               if any(c in widget_tree(child) for c in ex.controls.values()))


def test_static_and_live_explorers_share_the_same_sentences():
    page = plain(explorer_html(SENTENCE.split(), 0))
    for _, label, line in CONTROL_HELP:
        assert f"{label}: {line}" in page
    for line in HOW_TO_READ:
        assert line in page
    assert {row[1:] for row in CONTROL_HELP} <= {row[1:] for row in LIVE_CONTROL_HELP}


# ---------------------------------------------------------------------------------------
# 장의 글
# ---------------------------------------------------------------------------------------


def test_chapters_name_the_d_k_control_as_it_is():
    # 웹사이트(정적 탐색기)의 d_k 조작기는 선택 상자, 노트북은 슬라이더: "d_k 슬라이더"라고만 부르면 웹사이트에서 틀림
    bad = []
    for path in sorted(ROOT.glob("chapters/**/*.ipynb")) + sorted(ROOT.glob("chapters/**/*.md")):
        text = path.read_text(encoding="utf-8")
        bad += [f"{path.name}: {m.group(0)}" for m in re.finditer(r"d_k\$?`?\s*슬라이더", text)]
    assert not bad, bad


def test_chapters_do_not_describe_masked_cells_as_the_darkest_colour():
    text = (ROOT / "chapters" / "03_masks.ipynb").read_text(encoding="utf-8")
    assert "가장 어두운 색(가중치 0)" not in text and "회색(가려진 칸" in text


# ---------------------------------------------------------------------------------------
# 배치: 글자의 실제 폭으로 고른 열 수 (이슈 27)
# ---------------------------------------------------------------------------------------

LONG = [f"토큰{i}" for i in range(16)]


def layout_cases() -> list[tuple[int, int, list[str]]]:
    """(헤드 수, KV 헤드 수, 토큰): 헤드 1~16 x 나누는 KV 헤드 수 모두 x 문장 세 가지 (짧은 한국어, [PAD], 16개)."""
    from attn_course.explorer.model import kv_head_choices, shown_tokens

    sentences = [SENTENCE.split(), shown_tokens(SENTENCE.split(), "padding"), LONG]
    return [(h, kv, s) for h in range(1, 17) for kv in kv_head_choices(h) for s in sentences]


@pytest.mark.parametrize("width", [300, 360, 600, 860, 1200])
def test_live_layout_chooses_the_most_columns_that_fit_the_width(width):
    from attn_course.explorer.live_layout import live_layout, panel_px
    from attn_course.explorer.spec import MAX_COLUMNS

    for heads, kv, labels in layout_cases():
        lay = live_layout(heads, labels, 88, heads // kv, width, top_count=_count_top(heads * len(labels) ** 2))
        where = f"폭 {width}, 헤드 {heads}, KV {kv}, 토큰 {len(labels)}: {lay.ncols}열, 그림 {lay.width} px"
        assert lay.width == lay.needs[lay.ncols - 1] and list(lay.needs) == sorted(lay.needs), where
        assert lay.width <= width or lay.ncols == 1, where  # 한 열로도 넘칠 때만 넓음
        if lay.ncols < min(heads, MAX_COLUMNS):
            assert lay.needs[lay.ncols] > width, where  # 한 열 더 놓으면 넘침 (열을 아끼지 않음)
        side = panel_px(len(labels), 88)
        assert all(w == h == side for _, _, w, h in lay.heat), where  # 히트맵은 늘 같은 크기 (줄이지 않음)
        assert len({round(x) for x, _, _, _ in lay.heat}) == lay.ncols, where
        for x, y, w, h in (*lay.heat, lay.colorbar, lay.hist):
            assert 0 <= x and x + w <= lay.width and 0 <= y and y + h <= lay.height, where
    # 휴대폰 폭(358 px 상자)에서도 헤드 하나짜리 짧은 문장은 그 안에 듦
    assert live_layout(1, SENTENCE.split(), 88, 1, 358).width <= 358


def inset(box, px: float = 1.0):
    """상자를 사방으로 ``px``씩 줄인 것 (글 상자의 안티에일리어싱 테두리가 맞닿는 것은 겹침으로 보지 않음)."""
    from matplotlib.transforms import Bbox

    return Bbox.from_extents(box.x0 + px, box.y0 + px, box.x1 - px, box.y1 - px)


@pytest.mark.parametrize("heads, kv, tokens, mask, width", [
    (1, 1, SENTENCE, "none", 360),
    (3, 3, SENTENCE, "causal", 600),  # 마지막 줄이 빈 칸: 윗줄 헤드도 키 이름을 적음
    (8, 2, SENTENCE, "causal", 860),
    (16, 2, SENTENCE, "padding", 360),
    (16, 2, SENTENCE, "none", 860),  # 두 자리 번호의 "KV 그룹" 제목이 히트맵보다 넓음: 열 간격은 제목으로
    (16, 16, " ".join(LONG), "none", 860),
])
def test_live_figure_text_stays_inside_and_never_overlaps(heads, kv, tokens, mask, width):
    """그린 그림에서: 모든 글이 그림 안에 있고, 글끼리(같은 축의 눈금 글자끼리는 빼고) 겹치지 않고, 히트맵을 덮지 않고,
    그림이 폭 안에 듭니다. (배치는 글자를 재어 정한 것이므로, 재는 법이 그리는 법과 어긋나면 여기서 걸림.)"""
    from attn_course.explorer.live_layout import head_title

    ex = AttentionExplorer(tokens=tokens, num_heads=heads, num_kv_heads=kv, mask=mask, width=width)
    figure = ex._figure(heads, ex.shown_tokens(), kv)
    W, H = figure.fig.canvas.get_width_height()
    assert pixels(ex.image).shape[:2] == (H, W) and W <= width
    renderer = figure.fig.canvas.get_renderer()
    texts = [t for t in figure.fig.findobj(Text) if t.get_visible() and t.get_text() and not t.get_animated()]
    assert {t.get_text() for t in texts} >= {head_title(h, heads // kv) for h in range(heads)} | {"쿼리", "키"}
    heat = [ax.get_window_extent() for ax in figure.heat_axes]
    boxes = [(t, inset(t.get_window_extent(renderer))) for t in texts]
    for t, box in boxes:
        assert box.x0 >= -1 and box.y0 >= -1 and box.x1 <= W + 1 and box.y1 <= H + 1, (t.get_text(), box, W, H)
        for cell in heat:
            assert not box.overlaps(cell), (t.get_text(), box, cell)
    tick_axes = {id(t): a for a in figure.fig.axes for t in (*a.get_xticklabels(), *a.get_yticklabels())}
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            if id(a) in tick_axes and tick_axes.get(id(b)) is tick_axes[id(a)]:
                continue  # 같은 축의 기울인 눈금 글자는 상자(축에 나란한 사각형)가 비스듬히 겹칠 수 있음
            assert not box_a.overlaps(box_b), (a.get_text(), b.get_text(), box_a, box_b)


def test_live_explorer_width_narrows_the_figure_without_shrinking_the_heatmaps():
    from attn_course.explorer.live_layout import DEFAULT_WIDTH

    wide = AttentionExplorer(tokens=SENTENCE, num_heads=8, mask="padding")
    narrow = AttentionExplorer(tokens=SENTENCE, num_heads=8, mask="padding", width=360)
    (wh, ww), (nh, nw) = pixels(wide.image).shape[:2], pixels(narrow.image).shape[:2]
    assert ww <= DEFAULT_WIDTH and nw <= 360 < ww and nh > wh  # 좁으면 열이 줄고 그림이 길어짐
    figures = [ex._figure(8, ex.shown_tokens()) for ex in (wide, narrow)]
    assert figures[0].layout.ncols > figures[1].layout.ncols
    sizes = {round(ax.get_window_extent().width) for f in figures for ax in f.heat_axes}
    assert len(sizes) == 1  # 히트맵 크기는 같음
    with pytest.raises(ValueError, match="width"):
        AttentionExplorer(tokens=SENTENCE, width=100)


def test_position_and_window_controls_sit_in_one_wrapping_row_under_the_mask():
    """위치·창 조작기는 마스크 바로 아래 한 줄(좁으면 줄바꿈)에 있고, 설명 줄이 창과 마스크를 함께 거는 방식을 말합니다."""
    ex = AttentionExplorer(tokens=SENTENCE)
    order = list(ex.widget.children)
    row = order[order.index(ex.controls["mask"]) + 1]
    assert isinstance(row, widgets.HBox) and list(row.children) == [ex.controls["position"], ex.controls["window"]]
    assert row.layout.flex_flow == "row wrap"
    lines = {name: line for name, _, line in LIVE_CONTROL_HELP}
    assert "인과·패딩 마스크와는 함께 걸려" in lines["window"] and "d_k = 1" in lines["position"]
    png = ex.image
    ex.controls["position"].value = "rope"
    assert ex.image != png and ex.state["position"] == "rope"
