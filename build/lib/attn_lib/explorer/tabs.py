"""헤드 탭(``head_tabs``): 헤드마다 탭 하나에 히트맵 그림(PNG)과 그 헤드의 글 요약을 담는 ipywidgets 위젯.

그림이 위젯 상태에 저장되므로, 커널이 없는 정적 웹사이트에서도 탭을 눌러 헤드를 바꿔 볼 수 있습니다.
ipywidgets의 ``Image``에는 대체 텍스트(alt)가 없어서, 탭마다 ``HTML`` 위젯 하나에
``<img alt="...">``(PNG는 data URI)와 보이는 요약(``<figcaption>``)을 함께 넣습니다.
"""

from __future__ import annotations

import base64
import html
from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure
from torch import Tensor

from ..viz.describe import describe_heads
from ..viz.figures import get_alt, png_bytes
from ..viz.plots import plot_head_heatmaps

__all__ = ["head_tabs", "figure_png"]


def figure_png(fig: Figure, *, dpi: int = 100) -> bytes:
    """그림을 PNG 바이트로 바꿉니다 (그림의 대체 텍스트가 있으면 PNG의 ``Description``에 넣음).

    Shape:
        - 해당 없음 (그림 -> 바이트)
    """
    return png_bytes(fig, dpi=dpi, bbox_inches=None)


#: head_tabs 탭 하나의 HTML: 그림(대체 텍스트 포함)과 보이는 요약 한 줄
_HEAD_TAB_HTML = (
    '<figure class="attn-head-tab" style="margin:0">'
    '<img src="data:image/png;base64,{png}" alt="{alt}" style="max-width:100%;height:auto">'
    '<figcaption class="attn-head-summary" style="margin-top:0.3em;white-space:normal;line-height:1.5">'
    "{summary}</figcaption></figure>"
)


def head_tabs(
    weights: Tensor | np.ndarray,
    query_labels: Sequence[str] | None = None,
    key_labels: Sequence[str] | None = None,
    *,
    dpi: int = 100,
) -> widgets.Tab:
    """헤드마다 탭 하나씩, 그 헤드의 히트맵을 보여 주는 탭 위젯을 만듭니다.

    Args:
        weights: 한 문장의 헤드별 가중치.
        query_labels: 쿼리 이름 (길이 ``L``).
        key_labels: 키 이름 (길이 ``S``).
        dpi: 그림 해상도.

    Returns:
        ``ipywidgets.Tab`` (탭 제목 "헤드 0", "헤드 1", ...). 탭마다 ``ipywidgets.HTML`` 하나:
        ``<img alt>``의 대체 텍스트는 그 헤드 그림의 ``get_alt``, 그림 아래의 ``<figcaption>``은
        ``describe_heads``의 그 헤드 줄("헤드 2: 대부분의 쿼리(...)가 이전 토큰에 집중 (...)")입니다.

    Shape:
        - weights: ``(H, L, S)``
    """
    if getattr(weights, "ndim", 0) != 3:
        raise ValueError(f"weights는 (H, L, S)여야 하는데 shape={tuple(getattr(weights, 'shape', ()))}입니다.")
    summaries = describe_heads(weights, query_labels, key_labels)
    children = []
    for h in range(weights.shape[0]):
        fig = plot_head_heatmaps(weights[h], query_labels, key_labels, head_names=[f"헤드 {h}"])
        png = base64.b64encode(figure_png(fig, dpi=dpi)).decode("ascii")
        children.append(widgets.HTML(
            _HEAD_TAB_HTML.format(png=png, alt=html.escape(get_alt(fig)), summary=html.escape(summaries[h])),
            layout=widgets.Layout(max_width="100%")))
    tabs = widgets.Tab(children=children)
    tabs.titles = tuple(f"헤드 {h}" for h in range(len(children)))
    return tabs
