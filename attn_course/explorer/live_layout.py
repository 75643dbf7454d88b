"""살아 있는 탐색기 그림의 배치: 글자의 실제 폭으로 헤드 열 수와 모든 축의 자리를 픽셀로 정합니다.

정적 탐색기(``static_layout``)와 같은 규칙입니다. 한 줄의 폭은 쿼리 축(토큰 이름과 축 이름 "쿼리") + 열마다
헤드 패널 하나(히트맵과 그 위의 제목 "헤드 3 · KV 그룹 1" 가운데 넓은 것) + 열 사이 간격 + 색 막대(눈금, 이름,
"회색: 가려진 칸" 범례)입니다. 글자 폭은 그림을 그릴 글꼴과 dpi로 잽니다(Agg 렌더러). 그림이 들어갈 폭
(``width``, CSS px; 위젯의 PNG는 1픽셀 = 1 CSS px로 보임) 안에 드는 가장 많은 열(최대 ``MAX_COLUMNS``)을 고르고,
히트맵은 늘 같은 크기로 그립니다. (matplotlib의 constrained layout은 폭이 모자라면 히트맵을 줄였습니다: 토큰
5개에서 목표 141 px가 60~107 px로.)

이 모듈은 matplotlib만 씁니다. 조작기가 늘어 보이는 글이 바뀌면(예: 다른 제목) ``live_layout``의 인자로 넘깁니다.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from matplotlib.backends.backend_agg import RendererAgg
from matplotlib.font_manager import FontProperties

from .spec import MAX_COLUMNS
from .texts import MASKED_LEGEND

__all__: list[str] = []  # 탐색기 안에서만 쓰는 배치 계산

#: 노트북 출력 칸의 기본 폭 (CSS px): 1280 x 800 화면의 JupyterLab 4 에서 왼쪽 파일 목록을 연 채 잰 셀 폭이 848 px
#: (닫으면 1100 px)이므로 그 안에 드는 폭. 더 좁은 곳(휴대폰의 Colab, 나란히 띄운 창)은 ``width`` 로 줄입니다.
DEFAULT_WIDTH = 840
#: 글자 크기 (pt)
TITLE_PT, LABEL_PT, SMALL_PT, STATS_PT = 10, 9, 8, 10
#: 색 막대 길이의 상한 (인치)
BAR_MAX_IN = 2.6
#: 히스토그램 그림 영역의 높이 (인치)
HIST_HEIGHT_IN = 0.95
#: 히스토그램 오른쪽 위 글의 가장 넓은 모양 (폭을 잡는 데만 씀)
WIDEST_STATS = "포화 행 100%, 평균 엔트로피 0.00 nat"

Rect = tuple[float, float, float, float]  # (왼쪽, 위, 폭, 높이) 픽셀, 위에서부터 잼


@dataclass(frozen=True)
class LiveLayout:
    """그림 하나의 배치 (픽셀). ``frac``이 matplotlib의 그림 좌표(왼쪽 아래 기준 비율)로 바꿉니다.

    Shape:
        - heat: 길이 ``H`` (헤드마다 히트맵 자리)
    """

    ncols: int
    width: int
    height: int
    heat: tuple[Rect, ...]
    colorbar: Rect
    hist: Rect
    tick_pt: float
    angle: int
    bottom: tuple[bool, ...]  # 헤드마다: 아래쪽 눈금(키 이름)을 적는지
    left: tuple[bool, ...]  # 헤드마다: 왼쪽 눈금(쿼리 이름)을 적는지
    needs: tuple[int, ...]  # 열 수 1, 2, ...마다 그림에 필요한 폭 (px): 고른 열 수는 width 안에 드는 가장 큰 것

    def frac(self, rect: Rect) -> Rect:
        x, y, w, h = rect
        return (x / self.width, 1.0 - (y + h) / self.height, w / self.width, h / self.height)


class _Measure:
    """그림 글꼴로 글자 크기를 픽셀로 잽니다 (같은 글은 한 번만)."""

    def __init__(self, dpi: float) -> None:
        self.dpi = dpi
        self.renderer = RendererAgg(1, 1, dpi)
        self.cache: dict[tuple[str, float, str], tuple[float, float]] = {}

    def px(self, points: float) -> float:
        return points * self.dpi / 72.0

    def size(self, text: str, points: float, weight: str = "normal") -> tuple[float, float]:
        key = (text, points, weight)
        if key not in self.cache:
            w, h, _ = self.renderer.get_text_width_height_descent(text, FontProperties(size=points, weight=weight),
                                                                  ismath=False)
            self.cache[key] = (w, h)
        return self.cache[key]

    def line(self, points: float) -> float:
        """한 줄 높이 (글자 상자): 한글과 아래로 내려가는 글자가 모두 드는 높이."""
        return self.size("Ag한", points)[1] + 2.0


def panel_px(n_tokens: int, dpi: float) -> int:
    """히트맵 한 변의 픽셀: 토큰 5개면 칸 하나 약 21 px, 16개면 약 10 px (dpi 88; 예전 그림이 실제로 그리던 크기)."""
    return round(dpi * max(1.2, 0.1 * n_tokens + 0.25))


def head_title(h: int, group: int) -> str:
    """헤드 ``h``의 제목 (그룹 쿼리 어텐션이면 KV 그룹까지). 정적 탐색기의 제목과 같은 글."""
    return f"헤드 {h}" if group == 1 else f"헤드 {h} · KV 그룹 {h // group}"


def live_layout(num_heads: int, labels: Sequence[str], dpi: float, group: int = 1, width: int = DEFAULT_WIDTH,
                top_count: int = 1) -> LiveLayout:
    """헤드 ``num_heads``개, 토큰 ``labels``의 그림 배치: 폭 ``width`` 안에 드는 가장 많은 열.

    Args:
        num_heads: 헤드 수 ``H``.
        labels: 축에 적는 토큰 (길이 ``L``).
        dpi: 그림 해상도.
        group: 그룹 크기 ``G = H / Hkv`` (1이면 보통의 멀티헤드, 제목에 KV 그룹이 없음).
        width: 그림이 들어갈 폭 (CSS px). 한 열로도 넘치면 한 열.
        top_count: 히스토그램 세로축의 가장 큰 위 끝 (눈금 글자의 폭).

    Returns:
        ``LiveLayout`` (열 수, 그림 크기, 축마다의 자리).

    Shape:
        - labels: 길이 ``L``
    """
    m = _Measure(dpi)
    H, L = num_heads, len(labels)
    tick_pt, angle = (SMALL_PT, 60) if L <= 10 else (7, 90)  # 토큰이 많으면 작은 글씨, 세로 눈금
    panel = panel_px(L, dpi)
    margin, gap, row_gap = m.px(6), m.px(9), m.px(6)
    tick_pad, label_pad, title_pad = m.px(2), m.px(4), m.px(3)  # tick_params(pad=2), axes.labelpad, 제목 pad=3
    # 쿼리 축: 축 이름(세로 글) + 간격 + 가장 넓은 토큰 + 눈금 간격
    label_w = max(m.size(t, tick_pt)[0] for t in labels)
    y_block = m.line(LABEL_PT) + label_pad + label_w + tick_pad
    # 키 축(아래): 기울인 토큰 + 축 이름 "키"
    label_h = m.size("Ag한", tick_pt)[1]
    slant = math.radians(angle)
    x_block = tick_pad + label_w * math.sin(slant) + label_h * math.cos(slant) + label_pad + m.line(LABEL_PT)
    weight = "normal" if group == 1 else "bold"
    title_w = max(m.size(head_title(h, group), TITLE_PT, weight)[0] for h in range(H))
    column = max(panel, math.ceil(title_w))  # 헤드 패널 한 칸의 폭 (히트맵은 가운데)
    x0 = margin + max(0.0, y_block - (column - panel) / 2)  # 첫 열 상자의 왼쪽 (넓은 제목은 쿼리 축 위로 나갈 수 있음)
    # 색 막대: 간격 + 막대 + 눈금(길이 3.5pt, 간격 3.5pt, "1.0") + 이름, 또는 그 아래 범례 가운데 넓은 것
    bar_w, bar_gap = m.px(9), m.px(10)
    bar_block = bar_w + m.px(7) + m.size("1.0", SMALL_PT)[0] + label_pad + m.line(LABEL_PT)
    legend_w = m.px(SMALL_PT) * (0.4 * 2 + 1.2 + 0.4) + m.size(MASKED_LEGEND, SMALL_PT)[0]
    right = bar_gap + max(bar_block, legend_w)
    # 히스토그램이 가장 좁을 때: 세로축(이름, 눈금 글자) + 오른쪽 위 글 또는 가로축 이름
    hist_left = m.line(LABEL_PT) + label_pad + m.size(str(top_count), SMALL_PT)[0] + m.px(7)
    hist_inner = max(m.size(WIDEST_STATS, STATS_PT)[0] * 1.03 + m.px(10),
                     m.size("어텐션 가중치 (가려진 칸 제외)", LABEL_PT)[0])
    end_pad = m.size("1.0", SMALL_PT)[0] / 2 + 2  # 가로축 끝 눈금 글자의 반
    hist_need = margin + hist_left + hist_inner + end_pad + margin

    def total(c: int) -> float:
        return max(x0 + c * column + (c - 1) * gap + right + margin, hist_need)

    needs = tuple(math.ceil(total(c)) for c in range(1, min(H, MAX_COLUMNS) + 1))
    ncols = max([c for c, need in enumerate(needs, start=1) if need <= width] or [1])
    nrows = -(-H // ncols)
    fig_w = needs[ncols - 1]
    bottom = tuple(h + ncols >= H for h in range(H))  # 아래에 빈칸이 있는 헤드도 키 이름을 적음
    heat, y = [], margin
    for r in range(nrows):
        top = y + m.line(TITLE_PT) + title_pad
        for h in range(r * ncols, min(H, (r + 1) * ncols)):
            heat.append((x0 + (h % ncols) * (column + gap) + (column - panel) / 2, top, panel, panel))
        y = top + panel + (x_block if any(bottom[r * ncols:(r + 1) * ncols]) else 0.0) + row_gap
    first_top, last_bottom = heat[0][1], heat[-1][1] + panel
    bar_h = min(last_bottom - first_top, dpi * BAR_MAX_IN)  # 헤드가 여러 줄이어도 막대는 이 길이까지 (위에 붙임)
    colorbar = (x0 + ncols * column + (ncols - 1) * gap + bar_gap, first_top, bar_w, bar_h)
    hist_top = y + m.line(TITLE_PT) + title_pad
    hist_h = dpi * HIST_HEIGHT_IN
    hist_x = margin + hist_left
    hist = (hist_x, hist_top, fig_w - margin - end_pad - hist_x, hist_h)
    fig_h = math.ceil(hist_top + hist_h + m.px(7) + m.line(SMALL_PT) + label_pad + m.line(LABEL_PT) + margin)
    return LiveLayout(ncols=ncols, width=fig_w, height=fig_h, heat=tuple(heat), colorbar=colorbar, hist=hist,
                      tick_pt=tick_pt, angle=angle, bottom=bottom, left=tuple(h % ncols == 0 for h in range(H)),
                      needs=needs)
