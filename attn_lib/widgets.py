"""ipywidgets 연결부: 노트북과 정적 사이트 모두에서 움직이는 위젯.

``head_tabs``는 헤드마다 탭 하나에 히트맵 그림(PNG)을 담습니다. 그림이 위젯 상태에
저장되므로, 커널이 없는 정적 웹사이트에서도 탭을 눌러 헤드를 바꿔 볼 수 있습니다.
"""

from __future__ import annotations

import io
from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np
from torch import Tensor

from .plots import plot_head_heatmaps

__all__ = ["head_tabs", "figure_png"]


def figure_png(fig, *, dpi: int = 100) -> bytes:
    """그림을 PNG 바이트로 바꿉니다.

    Shape:
        - 해당 없음 (그림 -> 바이트)
    """
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


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
        ``ipywidgets.Tab`` (탭 제목 "헤드 0", "헤드 1", ...).

    Shape:
        - weights: ``(H, L, S)``
    """
    if getattr(weights, "ndim", 0) != 3:
        raise ValueError(f"weights는 (H, L, S)여야 하는데 shape={tuple(getattr(weights, 'shape', ()))}입니다.")
    children = []
    for h in range(weights.shape[0]):
        fig = plot_head_heatmaps(weights[h], query_labels, key_labels, head_names=[f"헤드 {h}"])
        children.append(widgets.Image(value=figure_png(fig, dpi=dpi), format="png",
                                      layout=widgets.Layout(max_width="100%", height="auto")))
    tabs = widgets.Tab(children=children)
    tabs.titles = tuple(f"헤드 {h}" for h in range(len(children)))
    return tabs
