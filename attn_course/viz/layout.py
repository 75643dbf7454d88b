"""격자 그림의 크기: 히트맵 칸 크기와 열 수를 그림 너비 상한(``MAX_FIGURE_WIDTH_IN``) 안에서 고릅니다.

헤드별 히트맵(``plots``)과 마스크·시퀀스별 히트맵(``mask_plots``)이 함께 씁니다. 그림은 1인치 = 100 CSS px로
보이므로 상한 6.6인치는 노트북 화면의 본문 폭(688 px)에 줄이지 않고 들어가는 너비입니다. 패널이 많으면 한 줄로
길게 늘어놓지 않고 2×2처럼 여러 줄로 접습니다.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .figures import TEXT_PT
from .phone import figure_width_limit, in_phone_layout

__all__ = ["GridLayout", "grid_layout"]

#: 칸 안에 값을 적을 때와 아닐 때의 칸 크기(인치): 기본값과 가장 작은 값
_CELL = {True: (0.46, 0.38), False: (0.30, 0.18)}
_CHAR_IN = TEXT_PT["tick"] / 72 * 0.95  # 눈금 글자 하나의 대략적인 너비 (한글 기준, 인치)


@dataclass(frozen=True)
class GridLayout:
    """격자 그림의 배치: 열 수, 줄 수, 칸 크기(인치), 그림 크기(인치).

    Shape:
        - 해당 없음
    """

    ncols: int
    nrows: int
    cell: float
    figsize: tuple[float, float]


def grid_layout(panels: int, rows: int, cols: int, longest: int, *, annotate: bool, ncols: int | None = None,
                max_cols: int = 4, extra_w: float = 0.0, extra_h: float = 0.0, rotate: bool = True,
                shared_labels: bool = True) -> GridLayout:
    """히트맵 ``panels``개(각각 ``rows`` × ``cols`` 칸)를 놓을 열 수와 칸 크기를 고릅니다.

    ``ncols``를 주지 않으면 그림 너비가 상한(``MAX_FIGURE_WIDTH_IN``, 휴대폰 배치에서는 ``PHONE_FIGURE_WIDTH_IN``) 안에 들면서 칸이 가장 작은 크기보다 작아지지
    않는 가장 많은 열 수(최대 ``max_cols``)를 고릅니다. 눈금 이름은 첫 열(세로)과 마지막 줄(가로)에만 적는다고
    보고(``shared_labels``; 패널마다 이름이 다르면 ``False``로 모든 패널에) 여백을 셉니다.

    Args:
        panels: 패널 수.
        rows: 패널 하나의 줄(쿼리) 수.
        cols: 패널 하나의 칸(키) 수.
        longest: 가장 긴 눈금 이름의 글자 수.
        annotate: 칸 안에 값을 적는지 (칸이 더 커야 함).
        ncols: 열 수를 정해 줄 때.
        max_cols: 고를 수 있는 가장 많은 열 수.
        extra_w: 색 막대 등 더 필요한 너비(인치).
        extra_h: 제목, 범례 등 더 필요한 높이(인치).
        rotate: 가로 눈금 이름을 기울여 적는지 (높이 계산에 씀).
        shared_labels: 눈금 이름을 첫 열과 마지막 줄에만 적는지 (아니면 패널마다).

    Returns:
        ``GridLayout``.

    Raises:
        ValueError: 패널·줄·칸 수가 1보다 작을 때.

    Shape:
        - 해당 없음
    """
    if min(panels, rows, cols) < 1:
        raise ValueError(f"panels, rows, cols는 1 이상이어야 하는데 {panels}, {rows}, {cols}입니다.")
    best, smallest = _CELL[bool(annotate)]
    label_w = 0.45 + _CHAR_IN * min(longest, 10)  # 세로 눈금 이름과 "쿼리"
    label_h = 0.45 + (_CHAR_IN * 0.87 * min(longest, 10) if rotate else 0.15)  # 기울인 가로 눈금 이름과 "키"
    gap = 0.2

    def width(n: int, cell: float) -> float:
        return (label_w if shared_labels else n * label_w) + n * (cell * cols + gap) + extra_w

    limit = figure_width_limit()  # 휴대폰 배치(phone_layout)에서는 더 좁음
    if in_phone_layout():
        ncols = None  # 부른 쪽이 정한 열 수는 넓은 화면용: 휴대폰에서는 들어가는 만큼만
    if ncols is None:
        ncols = 1
        for n in range(min(panels, max_cols), 0, -1):
            if width(n, smallest) <= limit:
                ncols = n
                break
    ncols = max(1, min(int(ncols), panels))
    fit = (limit - width(ncols, 0.0)) / (ncols * cols)
    cell = max(smallest, min(best, fit))
    nrows = math.ceil(panels / ncols)
    row_labels = label_h if shared_labels else nrows * label_h
    height = row_labels + nrows * (cell * rows + 0.35) + extra_h  # 0.35: 패널 제목
    return GridLayout(ncols, nrows, cell, (round(width(ncols, cell), 2), round(height, 2)))
