"""7장의 메모리·시간 그림(attn_course.viz.plot_attention_cost)과 1장의 봉우리 표시(plot_curves(marks=...)).

- 그림은 표(attention_cost의 행) 하나에서 그리고, 표에 경로가 늘면 선이 늡니다(블록 단위 경로가 나중에 같은 그림에 들어가도록).
- 기울기 이름표는 로그-로그 최소제곱 기울기이고 ``loglog_slope``와 같은 값입니다.
- 글자는 1배에서 10 CSS px 이상, 노트북 본문 폭(688 px) 안, 휴대폰용 그림은 한 열로 358 px 본문 칸에 들어갑니다.
"""

from __future__ import annotations

import math
import re

import pytest

from attn_course import loglog_slope, plot_attention_cost, plot_curves
from attn_course.viz.figure_output import render_png
from attn_course.viz.figures import get_alt
from attn_course.viz.phone import redraw_for_phone

PHONE_COLUMN_PX, LAPTOP_COLUMN_PX = 358, 688


def _rows(paths=("명시적 경로", "융합 커널, is_causal")):
    rows = []
    for i, name in enumerate(paths):
        for L in (256, 512, 1024, 2048):
            rows.append({"이름": name, "L": L, "추가 최대 메모리 (바이트)": (L / 256) ** (2 - i) * 2**20 * (4 - i),
                         "시간 (초)": (L / 256) ** 2 * 1e-3 * (3 - i)})
    return rows


def test_slope_labels_are_the_loglog_slopes() -> None:
    fig = plot_attention_cost(_rows(), title="비용")
    labels = sorted(t.get_text() for ax in fig.axes for t in ax.texts)
    assert labels == ["기울기 1.0", "기울기 2.0", "기울기 2.0", "기울기 2.0"]
    assert loglog_slope([256, 512, 1024], [1, 4, 16]) == pytest.approx(2.0)
    assert "기울기 2.0" in get_alt(fig) and "명시적 경로" in get_alt(fig)


def test_a_new_path_in_the_table_adds_a_line_to_the_same_figure() -> None:
    two = plot_attention_cost(_rows())
    three = plot_attention_cost(_rows(("명시적 경로", "융합 커널, is_causal", "블록 단위 (직접 구현)")))
    assert [len(ax.get_lines()) for ax in two.axes] == [2, 2]
    assert [len(ax.get_lines()) for ax in three.axes] == [3, 3]


def test_cost_figure_is_legible_on_a_laptop_and_has_a_one_column_phone_version() -> None:
    fig = plot_attention_cost(_rows(("명시적 경로", "융합 커널, is_causal", "융합 커널, 마스크 텐서")), title="비용")
    wide = render_png(fig)
    assert wide.min_text_px >= 10 and wide.css_width <= LAPTOP_COLUMN_PX
    phone = redraw_for_phone(fig)
    assert phone is not None
    small = render_png(phone)
    assert small.min_text_px >= 10 and small.css_width * 10 / small.min_text_px <= PHONE_COLUMN_PX
    assert small.css_height > wide.css_height  # 패널이 한 열로 쌓임


@pytest.mark.parametrize("rows, words", [
    ([], "비어"),
    ([{"L": 1}], "있어야"),
])
def test_cost_figure_rejects_bad_rows_in_korean(rows, words) -> None:
    with pytest.raises(ValueError, match=words):
        plot_attention_cost(rows)


def test_plot_curves_marks_points_and_names_them_in_the_alt_text() -> None:
    xs = [0, 1 / 3, 0.5, 2 / 3, 1]
    ys = [0, math.sqrt(2) / 3, 0, math.sqrt(2) / 3, 0]
    fig = plot_curves(xs, {"구별 여유": ys}, xlabel="p", ylabel="여유",
                      marks={"p = 1/3": (1 / 3, ys[1]), "p = 2/3": (2 / 3, ys[3])})
    assert sorted(t.get_text() for t in fig.axes[0].texts) == ["p = 1/3", "p = 2/3"]
    assert re.search(r"표시한 점: p = 1/3 \(0\.333, 0\.471\), p = 2/3", get_alt(fig))
    assert render_png(fig).min_text_px >= 10
    with pytest.raises(ValueError, match="점 하나"):
        plot_curves(xs, {"a": ys}, xlabel="p", ylabel="y", marks={"틀림": (1, 2, 3)})


def test_blockwise_path_is_in_the_table_and_computes_causal_attention_without_an_L_by_S_tensor() -> None:
    import torch
    import torch.nn.functional as F
    from torch.overrides import TorchFunctionMode

    from attn_course.experiments import memory

    assert list(memory.PATHS)[-1] == "blockwise" and memory.PATHS["blockwise"] == "블록 단위 (직접 구현)"
    L = 2 * memory.BLOCK + 37  # 마지막 쿼리 블록이 작음
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(1, 2, L, 16, generator=g, dtype=torch.float64) for _ in range(3))
    shapes = []

    class Shapes(TorchFunctionMode):
        def __torch_function__(self, func, types, args=(), kwargs=None):
            result = func(*args, **(kwargs or {}))
            for t in result if isinstance(result, (tuple, list)) else (result,):
                if isinstance(t, torch.Tensor):
                    shapes.append(tuple(t.shape))
            return result

    with torch.no_grad(), Shapes():
        (out,) = memory._CALLS["blockwise"](q, k, v)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, is_causal=True), atol=1e-12, rtol=0)
    assert shapes and not any(s[-2:] == (L, L) for s in shapes if len(s) >= 2)
    rows = memory.attention_time([32, 64], ("blockwise", "fused_causal"), num_heads=1, head_dim=8, repeats=1)
    assert [r["경로"] for r in rows] == ["blockwise", "fused_causal"] * 2
