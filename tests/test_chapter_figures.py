"""헷갈리던 그림 두 개를 고친 것 (이슈 27, 3항).

- 4장의 온도 그림: 앞 그림에서 규칙(1/√d_k, 스케일링 없음)을 뜻하던 파랑·주황을 d_k = 16, 512 에 다시 쓰지 않음
  (``plot_curves``/``plot_metric_panels`` 의 ``styles``).
- 6장의 패딩 행: 축 이름 ``·`` 와 빈 행이 빠진 데이터처럼 보이던 것을 ``[PAD]`` 이름과 빈 행 위의 글로
  (``token_labels(pad_label=...)``, ``plot_batch_heatmaps(skipped_note=...)``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import matplotlib
import pytest
import torch
from matplotlib.patches import Rectangle

from attn_lib import padding_mask
from attn_course import PALETTE, plot_batch_heatmaps, plot_curves, plot_metric_panels, token_labels
from attn_course.experiments.seq2seq import EOS, IGNORE_INDEX, PAD
from attn_course.viz.figures import get_alt
from attn_course.viz.phone import phone_layout
from conftest import all_texts, raises_korean

ROOT = Path(__file__).resolve().parents[1]


def cells(name: str) -> list[str]:
    nb = json.loads((ROOT / "chapters" / name).read_text(encoding="utf-8"))
    return ["".join(c["source"]) for c in nb["cells"] if c["cell_type"] == "code"]


# ---------------------------------------------------------------------------------------
# 곡선의 색·표식·선 모양 (styles)
# ---------------------------------------------------------------------------------------


def test_plot_curves_styles_set_colour_marker_and_line_per_curve():
    styles = {"b": {"color": PALETTE[4], "marker": "s", "linestyle": ":", "markerfacecolor": "none"}}
    fig = plot_curves([1, 2, 4], {"a": [1, 2, 3], "b": [3, 2, 1]}, xlabel="x", ylabel="y", styles=styles)
    lines = {line.get_label(): line for line in fig.axes[0].get_lines()}
    assert matplotlib.colors.to_hex(lines["a"].get_color()) == PALETTE[0].lower()  # 적지 않은 곡선은 기본값
    assert lines["a"].get_marker() == "o" and lines["a"].get_linestyle() == "-"
    b = lines["b"]
    assert matplotlib.colors.to_hex(b.get_color()) == PALETTE[4].lower()
    assert b.get_marker() == "s" and b.get_linestyle() == ":" and b.get_markerfacecolor() == "none"


def test_plot_metric_panels_uses_the_same_styles_in_every_panel_and_the_legend():
    styles = {"d = 16": {"color": PALETTE[4]}, "d = 512": {"color": PALETTE[7], "marker": "s"}}
    fig = plot_metric_panels([1, 2, 4], {p: {"d = 16": [1, 2, 3], "d = 512": [1, 2, 3]} for p in ("가", "나", "다")},
                             xlabel="c", styles=styles)
    for ax in fig.axes:
        if not ax.get_lines():
            continue
        got = {line.get_label(): matplotlib.colors.to_hex(line.get_color()) for line in ax.get_lines()}
        assert got == {"d = 16": PALETTE[4].lower(), "d = 512": PALETTE[7].lower()}
    legend = fig.legends[0]
    assert {t.get_text(): matplotlib.colors.to_hex(h.get_color()) for t, h in zip(legend.get_texts(), legend.legend_handles)} \
        == {"d = 16": PALETTE[4].lower(), "d = 512": PALETTE[7].lower()}


def test_styles_with_unknown_names_or_wrong_types_raise_korean_errors():
    raises_korean(ValueError, lambda: plot_curves([1, 2], {"a": [1, 2]}, xlabel="x", ylabel="y",
                                                  styles={"없는 곡선": {"color": "k"}}), "없는 곡선", "series")
    raises_korean(TypeError, lambda: plot_curves([1, 2], {"a": [1, 2]}, xlabel="x", ylabel="y",
                                                 styles={"a": "k"}), "styles")


def test_chapter_4_temperature_figure_does_not_reuse_the_rule_colours():
    code = cells("04_scaling.ipynb")
    setup = next(c for c in code if "RULE_COLOR = {" in c)
    namespace = {"PALETTE": PALETTE}
    exec(re.search(r"^RULE_COLOR = \{.*?\}$", setup, re.M | re.S).group(0), namespace)
    rule_colours = {matplotlib.colors.to_hex(c) for c in namespace["RULE_COLOR"].values()}
    figure = next(c for c in code if "온도를 바꾸면" in c)
    assert "styles=" in figure
    exec(figure[:figure.index("plot_metric_panels(")], namespace)  # by_d_k 정의와 DK_STYLES (그리지는 않음)
    styles = namespace["DK_STYLES"]
    assert set(styles) == {16, 512}
    colours = {matplotlib.colors.to_hex(s["color"]) for s in styles.values()}
    assert len(colours) == 2 and colours.isdisjoint(rule_colours), (colours, rule_colours)
    # 두 곡선이 겹쳐도 둘 다 보이게: 표식과 선 모양이 다름
    assert styles[16].get("marker", "o") != styles[512].get("marker", "o")
    assert styles[16].get("linestyle", "-") != styles[512].get("linestyle", "-")


# ---------------------------------------------------------------------------------------
# 6장의 패딩 행
# ---------------------------------------------------------------------------------------


def test_token_labels_names_padding_as_asked_and_keeps_the_short_default():
    tokens = torch.tensor([3, EOS, PAD, IGNORE_INDEX])
    assert token_labels(tokens) == ["A", "</s>", "·", "·"]
    assert token_labels(tokens, pad_label="[PAD]") == ["A", "</s>", "[PAD]", "[PAD]"]
    raises_korean(TypeError, lambda: token_labels(tokens, pad_label=""), "pad_label")


def reversal_weights() -> tuple[torch.Tensor, torch.Tensor, list[list[str]], list[list[str]]]:
    """6장 그림과 같은 모양: 시퀀스 길이 8, 5, 3, 텐서 길이 9, 디코더 쪽 패딩 행은 NaN."""
    T, lengths = 9, torch.tensor([8, 5, 3])
    w = torch.zeros(3, T, T)
    for b, n in enumerate(lengths.tolist()):
        for i in range(n + 1):
            w[b, i, max(0, n - 1 - i)] = 1.0
        w[b, n + 1:] = float("nan")
    labels = [list("CIDGIEOB"[:n]) + ["</s>"] + ["[PAD]"] * (T - n - 1) for n in lengths.tolist()]
    return w, padding_mask(lengths + 1, T), labels, labels


def test_skipped_rows_are_named_on_the_figure_not_left_as_a_blank():
    w, mask, rows, cols = reversal_weights()
    note = "[PAD] 행: 그리지 않음"
    fig = plot_batch_heatmaps(w, rows, cols, mask=mask, annotate=True, skipped_note=note)
    panels = [ax for ax in fig.axes if ax.images and ax.get_title().startswith("시퀀스")]
    assert len(panels) == 3
    for ax, n in zip(panels, (8, 5, 3)):
        notes = [t for t in ax.texts if t.get_text() == note]
        assert len(notes) == (0 if n == 8 else 1)  # 빈 행이 있는 패널마다 하나
        for t in notes:  # 빈 행 묶음(n + 1 .. 8)의 가운데
            assert t.get_position() == pytest.approx((4.0, (n + 1 + 8) / 2))
        assert not [t for t in ax.texts if t.get_text() == "nan"]  # 그리지 않은 칸에 값을 적지 않음
        hatched = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_hatch()]
        assert all(p.get_y() + 0.5 <= n for p in hatched), "그리지 않은 행에 빗금"
        assert len(hatched) == (n + 1) * (8 - n)  # 실제 행의 [PAD] 열만 빗금
    assert f"그리지 않은 행 8개: {note}" in get_alt(fig)
    assert "[PAD]" in all_texts(fig) and "·" not in all_texts(fig)


def test_skipped_note_must_be_text_and_ncols_is_kept_except_on_phones():
    w, mask, rows, cols = reversal_weights()
    raises_korean(TypeError, lambda: plot_batch_heatmaps(w, rows, cols, skipped_note=3), "skipped_note")
    fig = plot_batch_heatmaps(w, rows, cols, mask=mask, annotate=False, skipped_note="빈 행", ncols=2)
    panels = [ax for ax in fig.axes if ax.images]
    assert len({round(ax.get_position().x0, 3) for ax in panels}) == 2  # 2열 (2 x 2 격자)
    assert fig.get_size_inches()[0] * 100 <= 688  # 노트북 본문 폭 안
    with phone_layout():
        phone = plot_batch_heatmaps(w, rows, cols, mask=mask, annotate=False, skipped_note="빈 행", ncols=2)
    assert len({round(ax.get_position().x0, 3) for ax in phone.axes if ax.images}) == 1  # 휴대폰용 그림은 한 열


def test_chapter_6_figures_name_padding_and_the_undrawn_rows():
    code = cells("06_cross_attention.ipynb")
    drawing = [c for c in code if re.search(r"\bplot_\w+\(", c) and "token_labels(" in c]
    assert len(drawing) >= 3
    for c in drawing:
        calls = re.findall(r"token_labels\([^()]*(?:\([^()]*\)[^()]*)*\)", c)
        assert calls and all('pad_label="[PAD]"' in call for call in calls), calls
    nan_rows = [c for c in code if 'float("nan")' in c and "plot_batch_heatmaps(" in c]
    assert len(nan_rows) == 1 and "skipped_note=" in nan_rows[0]
