"""살아 있는 탐색기의 그림: 배경은 한 번만 그리고, 바뀌는 칸과 막대만 픽셀로 칠해 PNG로 만듭니다.

``live.AttentionExplorer``가 조작기를 움직일 때마다 부르는 그리기 부분입니다. 그림을 matplotlib으로
처음부터 다시 그리는 대신, 헤드 수와 토큰이 정해진 그림(``_ExplorerFigure``)마다 배경을 픽셀로 복사해
두고 값만 바꿔 칠합니다. PNG도 필터 없는 최소 구성으로 직접 만듭니다(``_png_rgb``). 배치(한 줄의 헤드 수와
축마다의 자리)는 ``live_layout``이 글자의 실제 폭으로, 그림이 들어갈 폭 안에서 정합니다.

정적 탐색기(``spec``)와 같은 약속: 마스크로 가려진 칸은 회색(``MASKED_COLOR``, 색 막대 아래 범례
"회색: 가려진 칸"), 히스토그램의 세로축은 보통(선형) 눈금의 "칸 수"입니다. 세로축의 위 끝은 가장 큰
막대에 맞춰 1, 1.5, 2, 3, 4, 5, 6, 8 × 10^k 가운데서 고르고(``_count_top``), 눈금이 있는 히스토그램
띠만 위 끝마다 한 번 그려 픽셀로 보관합니다.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence

import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.ticker import MaxNLocator

from ..viz.figures import HEATMAP_CMAP, PALETTE
from .live_layout import DEFAULT_WIDTH, LABEL_PT, SMALL_PT, STATS_PT, TITLE_PT, head_title, live_layout
from .spec import MASKED_COLOR
from .texts import MASKED_LEGEND

__all__: list[str] = []  # 탐색기 안에서만 쓰는 그리기 부품 (공개 이름 없음)

_HIST_BINS = np.linspace(0.0, 1.0, 21)  # 히스토그램 칸 20개, 폭 0.05
_HIST_ROOM = 0.78  # 가장 큰 막대가 세로축의 이만큼까지만: 위쪽 띠는 글(포화 비율, 엔트로피) 자리
_TOP_STEPS = (1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 8.0)  # 세로축 위 끝의 가수: 막대가 축 높이의 절반 아래로 줄지 않음


def _count_top(max_count: int) -> int:
    """세로축(칸 수)의 위 끝: ``max_count / _HIST_ROOM`` 이상인 가장 작은 ``m × 10^k`` (``m``은 ``_TOP_STEPS``)."""
    need = max(int(max_count), 1) / _HIST_ROOM
    scale = 1
    while True:
        for m in _TOP_STEPS:
            if m * scale >= need:
                return max(int(round(m * scale)), 2)
        scale *= 10


class _ExplorerFigure:
    """헤드 수와 토큰이 정해진 그림 하나. 바뀌는 것만 다시 그립니다.

    처음 한 번만 배경(축, 눈금, 토큰 이름, 색 막대, 제목)을 통째로 그리고 픽셀로 복사해 둡니다.
    그다음부터는 배경을 되돌리고, 히트맵 칸과 히스토그램 막대는 픽셀 버퍼에 직접 칠하고(색은
    imshow와 같은 색지도 표; 가려진 칸은 회색), 글 한 줄(포화 비율과 엔트로피)만 matplotlib이 그린 뒤
    PNG로 만듭니다. 히스토그램의 세로축 위 끝이 바뀌면 그 띠(축, 눈금, 글자)를 위 끝마다 한 번만 그려
    보관하고(``bands``), 그다음부터는 픽셀로 붙입니다.
    칸마다 글자를 적지 않습니다(칸 하나에 약 0.5 ms). 지금 설정은 그림 위의 조작기가 보여 줍니다.
    """

    def __init__(self, num_heads: int, labels: Sequence[str], dpi: int, num_kv_heads: int | None = None,
                 width: int = DEFAULT_WIDTH) -> None:
        H, L = num_heads, len(labels)
        group = H // (H if num_kv_heads is None else num_kv_heads)  # 그룹 크기 G: 헤드 G개가 키·밸류 하나를 나눠 씀
        # 배치: 글자의 실제 폭으로 폭 width 안에 드는 열 수와 축마다의 자리를 픽셀로 정함 (live_layout)
        self.layout = layout = live_layout(H, labels, dpi, group, width, top_count=_count_top(H * L * L))
        self.fig = Figure(figsize=(layout.width / dpi, layout.height / dpi), dpi=dpi)
        FigureCanvasAgg(self.fig)  # pyplot 밖의 그림: 노트북에 저절로 나타나지 않음
        self.heat_axes = []
        for h in range(H):
            ax = self.fig.add_axes(layout.frac(layout.heat[h]))
            # 그리지 않는 이미지(animated): 축 범위와 방향을 imshow 그대로 잡고, 값도 같이 들고 있음
            ax.imshow(np.zeros((L, L)), cmap=HEATMAP_CMAP, vmin=0.0, vmax=1.0, aspect="auto",
                      interpolation="nearest", animated=True)
            if group == 1:
                ax.set_title(head_title(h, group), fontsize=TITLE_PT, pad=3)
            else:  # 같은 키·밸류를 쓰는 헤드 묶음을 번갈아 다른 색으로 (그룹이 눈에 보이게)
                ax.set_title(head_title(h, group), fontsize=TITLE_PT, pad=3, fontweight="bold",
                             color=PALETTE[0] if (h // group) % 2 == 0 else PALETTE[1])
            bottom, left = layout.bottom[h], layout.left[h]
            ax.set_xticks(range(L), labels if bottom else [], rotation=layout.angle,
                          ha="right" if layout.angle < 90 else "center", fontsize=layout.tick_pt)
            ax.set_yticks(range(L), labels if left else [], fontsize=layout.tick_pt)
            ax.tick_params(length=0, pad=2)
            if bottom:
                ax.set_xlabel("키", fontsize=LABEL_PT)
            if left:
                ax.set_ylabel("쿼리", fontsize=LABEL_PT)
            self.heat_axes.append(ax)
        bar = self.fig.colorbar(ScalarMappable(Normalize(0.0, 1.0), cmap=HEATMAP_CMAP),
                                cax=self.fig.add_axes(layout.frac(layout.colorbar)))
        bar.set_label("어텐션 가중치", fontsize=LABEL_PT)
        bar.ax.tick_params(labelsize=SMALL_PT)
        # 가려진 칸의 색 (가중치 0의 진한 보라와 다름): 색 막대 바로 아래, 막대의 왼쪽 끝에 맞춘 범례 하나
        bar.ax.legend(handles=[Patch(facecolor=MASKED_COLOR, edgecolor="#888888", linewidth=0.5,
                                     label=MASKED_LEGEND)],
                      loc="upper left", bbox_to_anchor=(0.0, -0.02), fontsize=SMALL_PT, frameon=False,
                      handlelength=1.2, handletextpad=0.4, borderaxespad=0.0)
        self.hist = self.fig.add_axes(layout.frac(layout.hist))
        self.hist.set_xlim(0.0, 1.0)
        # 처음 배치는 가장 큰 위 끝(칸 전부가 한 막대)으로: 눈금 글자가 가장 넓을 때의 자리를 잡아 둠
        self.top = _count_top(H * L * L)
        self.hist.set_ylim(0, self.top)
        self.hist.yaxis.set_major_locator(MaxNLocator(nbins=4, integer=True))
        self.hist.set_xlabel("어텐션 가중치 (가려진 칸 제외)", fontsize=LABEL_PT)
        self.hist.set_ylabel("칸 수", fontsize=LABEL_PT)
        self.hist.tick_params(labelsize=SMALL_PT)
        self.hist.set_title("포화 히스토그램", fontsize=TITLE_PT, pad=3)
        self.stats = self.hist.text(0.99, 0.93, "", transform=self.hist.transAxes, ha="right", va="top",
                                    fontsize=STATS_PT, animated=True)
        self.lut = (matplotlib.colormaps[HEATMAP_CMAP](np.arange(256))[:, :3] * 255).round().astype(np.uint8)
        self.bar_rgb = np.array(matplotlib.colors.to_rgb(PALETTE[0])) * 255
        self.masked_rgb = (np.array(matplotlib.colors.to_rgb(MASKED_COLOR)) * 255).round().astype(np.uint8)
        self.background = None
        self.bands: dict[int, np.ndarray] = {}  # 세로축 위 끝 -> 그 눈금으로 그린 히스토그램 띠의 픽셀

    def _layout(self) -> None:
        """처음 한 번: 배경을 그리고, 히트맵 칸과 막대가 차지할 픽셀 위치를 계산합니다."""
        canvas = self.fig.canvas
        canvas.draw()  # 배경 전체 (animated 요소는 빠짐)
        self.background = canvas.copy_from_bbox(self.fig.bbox)
        height = canvas.get_width_height()[1]
        self.cells = []  # 헤드마다 (행 조각, 열 조각, 픽셀 행 -> 쿼리, 픽셀 열 -> 키)
        for ax in self.heat_axes:
            L, S = ax.images[0].get_array().shape
            box = ax.get_window_extent()
            c0, c1 = int(round(box.x0)), int(round(box.x1))
            r0, r1 = height - int(round(box.y1)), height - int(round(box.y0))
            rows = np.minimum(((np.arange(r0, r1) + 0.5 - r0) * L / (r1 - r0)).astype(int), L - 1)
            cols = np.minimum(((np.arange(c0, c1) + 0.5 - c0) * S / (c1 - c0)).astype(int), S - 1)
            self.cells.append((slice(r0, r1), slice(c0, c1), rows, cols))
        to_px = self.hist.transData.transform
        (x0, y_floor), (x1, _) = to_px([(0.0, 0.0), (1.0, 0.0)])
        self.bar_x = np.round(x0 + (x1 - x0) * _HIST_BINS).astype(int)
        self.bar_floor = height - int(round(y_floor))
        self.height = height
        # 히스토그램 띠: 축과 눈금 글자, 제목, 축 이름이 모두 드는 사각형 (다른 그림 요소와 겹치지 않음)
        band = self.hist.get_tightbbox(canvas.get_renderer())
        width = canvas.get_width_height()[0]
        self.band = (slice(max(height - int(np.ceil(band.y1)) - 2, 0), min(height - int(band.y0) + 2, height)),
                     slice(max(int(band.x0) - 2, 0), min(int(np.ceil(band.x1)) + 2, width)))
        self.bands[self.top] = np.array(np.asarray(canvas.buffer_rgba())[self.band])

    def _set_top(self, top: int, pixels: np.ndarray) -> None:
        """히스토그램 세로축의 위 끝을 ``top``으로: 그 눈금의 띠를 (처음이면 그려서) 픽셀에 붙입니다."""
        if top not in self.bands:
            pixels[self.band] = 255  # 흰 바탕 (그림의 바탕색)
            self.hist.set_ylim(0, top)
            self.fig.draw_artist(self.hist)  # 축, 눈금, 글자 (animated인 글 한 줄은 빠짐)
            self.bands[top] = np.array(pixels[self.band])
        pixels[self.band] = self.bands[top]
        self.hist.set_ylim(0, top)
        self.top = top

    def render(self, weights: np.ndarray, counts: np.ndarray, stats: str, allowed: np.ndarray | None = None) -> bytes:
        """배경 위에 새 값을 칠하고 PNG 바이트를 돌려줍니다.

        Args:
            weights: 헤드별 어텐션 가중치.
            counts: 히스토그램 칸(``_HIST_BINS``)마다 가려지지 않은 칸의 수.
            stats: 히스토그램 오른쪽 위의 글 한 줄.
            allowed: 참여 가능한 칸(``True``), ``None``이면 전부. ``False``인 칸은 회색(``MASKED_COLOR``).

        Shape:
            - weights: ``(H, L, S)``
            - counts: ``(20,)``
            - allowed: ``(H, L, S)``로 브로드캐스트되는 bool (보통 ``(L, S)``)
        """
        canvas = self.fig.canvas
        if self.background is None:
            self._layout()
        else:
            canvas.restore_region(self.background)
        pixels = np.asarray(canvas.buffer_rgba())  # (높이, 너비, 4), 캔버스의 버퍼 그 자체
        self._set_top(_count_top(counts.max()), pixels)  # 배경의 띠는 처음 배치의 눈금: 늘 지금 것을 붙임
        # imshow와 같은 색: 값 v의 색은 표의 int(v * 256)번째 (1.0은 255번째)
        colors = self.lut[np.minimum((weights * 256).astype(np.int16), 255)]  # (H, L, S) -> (H, L, S, 3)
        if allowed is not None:  # 가려진 칸은 회색: 가중치 0(진한 보라)과 구별
            colors[~np.broadcast_to(allowed, weights.shape)] = self.masked_rgb
        for image, w, rgb, (rs, cs, rows, cols) in zip((ax.images[0] for ax in self.heat_axes), weights, colors,
                                                       self.cells):
            image.set_data(w)
            pixels[rs, cs, :3] = rgb.take(rows, axis=0).take(cols, axis=1)  # (L, S, 3) -> (픽셀 행, 픽셀 열, 3)
        tops = self.hist.transData.transform(np.stack([_HIST_BINS[:-1], counts], axis=1))[:, 1]  # (20, 2) -> (20,)
        for i, top in enumerate(tops):
            top_row = self.height - int(round(top))
            if top_row < self.bar_floor:
                pixels[top_row:self.bar_floor, self.bar_x[i]:self.bar_x[i + 1], :3] = self.bar_rgb
        self.stats.set_text(stats)
        self.fig.draw_artist(self.stats)
        return _png_rgb(pixels)


def _png_chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def _png_rgb(rgba: np.ndarray) -> bytes:
    """RGBA 픽셀을 RGB PNG로: 행 필터 없음, zlib 수준 1.

    PIL의 PNG 저장은 행마다 필터를 골라 보느라 압축보다 필터에 더 오래 걸립니다(이 그림에서 약 10 ms).
    히트맵은 넓은 단색 칸이라 필터 없이도 잘 줄어듭니다. 형식은 PNG 명세의 최소 구성(IHDR, IDAT, IEND).
    """
    height, width, _ = rgba.shape
    raw = np.empty((height, 1 + 3 * width), dtype=np.uint8)  # 행마다 필터 바이트(0) 하나 + RGB
    raw[:, 0] = 0
    raw[:, 1:].reshape(height, width, 3)[...] = rgba[:, :, :3]  # (높이, 3 * 너비) -> (높이, 너비, 3)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8비트, RGB, 비월 없음
    return (b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", header) + _png_chunk(b"IDAT", zlib.compress(raw, 1))
            + _png_chunk(b"IEND", b""))
