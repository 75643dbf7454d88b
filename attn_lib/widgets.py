"""ipywidgets 연결부: 노트북과 정적 사이트 모두에서 움직이는 위젯.

``head_tabs``는 헤드마다 탭 하나에 히트맵 그림(PNG)과 그 헤드의 글 요약을 담습니다. 그림이 위젯
상태에 저장되므로, 커널이 없는 정적 웹사이트에서도 탭을 눌러 헤드를 바꿔 볼 수 있습니다.
ipywidgets의 ``Image``에는 대체 텍스트(alt)가 없어서, 탭마다 ``HTML`` 위젯 하나에
``<img alt="...">``(PNG는 data URI)와 보이는 요약(``<figcaption>``)을 함께 넣습니다.

``AttentionExplorer``는 조작기로 d_k, 헤드 수, 마스크, 스케일링을 바꾸며 헤드별 히트맵과 포화
히스토그램을 다시 그리는 탐색기입니다. 커널이 있어야 다시 계산하므로, 웹사이트에서는 같은 출력에
담긴 정적 탐색기(``static_explorer``)가 대신 보입니다.
"""

from __future__ import annotations

import base64
import html
import struct
import zlib
from collections import OrderedDict
from collections.abc import Sequence

import ipywidgets as widgets
import matplotlib
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.cm import ScalarMappable
from matplotlib.colors import Normalize
from matplotlib.figure import Figure
from torch import Tensor

from .explorer_model import (
    DK_CHOICES,
    MASK_LABELS,
    MASKS,
    MAX_HEADS,
    ExplorerModel,
    parse_tokens,
    single_thread,
)
from .explorer_model import shown_tokens as explorer_tokens  # 메서드 shown_tokens 와 이름이 겹치지 않게
from .describe import describe_heads
from .metrics import attention_entropy, saturation
from .figures import HEATMAP_CMAP, PALETTE, get_alt, png_bytes
from .plots import plot_head_heatmaps
from .static_explorer import explorer_html, summary_caption, summary_html

__all__ = ["head_tabs", "figure_png", "AttentionExplorer"]


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


# ---------------------------------------------------------------------------------------
# 어텐션 탐색기 (AttentionExplorer)
# ---------------------------------------------------------------------------------------

_HIST_BINS = np.linspace(0.0, 1.0, 21)  # 히스토그램 칸 20개, 폭 0.05
_HIST_FLOOR = 0.8  # 로그 눈금 막대의 바닥 (개수 0인 칸은 높이 0)
_FIGURE_CACHE = 8  # (헤드 수, 보이는 토큰)마다 그림 하나, 최근 것 몇 개만 보관
_SETTINGS = ("tokens", "d_k", "num_heads", "mask", "scaled", "seed")


class _ExplorerFigure:
    """헤드 수와 토큰이 정해진 그림 하나. 바뀌는 것만 다시 그립니다.

    처음 한 번만 배경(축, 눈금, 토큰 이름, 색 막대, 제목)을 통째로 그리고 픽셀로 복사해 둡니다.
    그다음부터는 배경을 되돌리고, 히트맵 칸과 히스토그램 막대는 픽셀 버퍼에 직접 칠하고(색은
    imshow와 같은 색지도 표), 글 한 줄(포화 비율과 엔트로피)만 matplotlib이 그린 뒤 PNG로 만듭니다.
    칸마다 글자를 적지 않습니다(칸 하나에 약 0.5 ms). 지금 설정은 그림 위의 조작기가 보여 줍니다.
    """

    def __init__(self, num_heads: int, labels: Sequence[str], dpi: int) -> None:
        H, L = num_heads, len(labels)
        ncols = min(H, 4)
        nrows = -(-H // ncols)
        panel = max(1.6, 0.12 * L + 0.3)  # 인치: 토큰 16개면 칸 하나가 dpi 88에서 약 12픽셀
        tick_size, angle = (8, 60) if L <= 10 else (7, 90)  # 토큰이 많으면 작은 글씨, 세로 눈금
        longest = max(len(t) for t in labels)
        tick_room = 0.3 + 0.1 * longest * (1.0 if angle == 90 else 0.87)  # 아래 눈금 글자가 차지하는 높이
        self.fig = Figure(figsize=(panel * ncols + 1.1, panel * nrows + tick_room + 1.6), dpi=dpi,
                          layout="constrained")
        FigureCanvasAgg(self.fig)  # pyplot 밖의 그림: 노트북에 저절로 나타나지 않음
        grid = self.fig.add_gridspec(nrows + 1, ncols, height_ratios=[panel] * nrows + [1.2])
        self.heat_axes = []
        for h in range(H):
            ax = self.fig.add_subplot(grid[h // ncols, h % ncols])
            # 그리지 않는 이미지(animated): 축 범위와 방향을 imshow 그대로 잡고, 값도 같이 들고 있음
            ax.imshow(np.zeros((L, L)), cmap=HEATMAP_CMAP, vmin=0.0, vmax=1.0, aspect="auto",
                      interpolation="nearest", animated=True)
            ax.set_box_aspect(1)  # 칸은 정사각형
            ax.set_title(f"헤드 {h}", fontsize=10, pad=3)
            bottom, left = h + ncols >= H, h % ncols == 0
            ax.set_xticks(range(L), labels if bottom else [], rotation=angle, ha="right" if angle < 90 else "center",
                          fontsize=tick_size)
            ax.set_yticks(range(L), labels if left else [], fontsize=tick_size)
            ax.tick_params(length=0, pad=2)
            if bottom:
                ax.set_xlabel("키", fontsize=9)
            if left:
                ax.set_ylabel("쿼리", fontsize=9)
            self.heat_axes.append(ax)
        self.fig.colorbar(ScalarMappable(Normalize(0.0, 1.0), cmap=HEATMAP_CMAP), ax=self.heat_axes,
                          shrink=0.9, label="어텐션 가중치")
        self.hist = self.fig.add_subplot(grid[nrows, :])
        self.hist.set_xlim(0.0, 1.0)
        self.hist.set_yscale("log")
        self.hist.set_ylim(_HIST_FLOOR, H * L * L * 20)  # 위쪽 띠는 막대가 닿지 않음: 글 자리
        self.hist.set_xlabel("어텐션 가중치 (가려진 칸 제외)", fontsize=9)
        self.hist.set_ylabel("개수 (로그 눈금)", fontsize=9)
        self.hist.tick_params(labelsize=8)
        self.hist.set_title("포화 히스토그램", fontsize=10, pad=3)
        self.stats = self.hist.text(0.99, 0.93, "", transform=self.hist.transAxes, ha="right", va="top",
                                    fontsize=10, animated=True)
        self.lut = (matplotlib.colormaps[HEATMAP_CMAP](np.arange(256))[:, :3] * 255).round().astype(np.uint8)
        self.bar_rgb = np.array(matplotlib.colors.to_rgb(PALETTE[0])) * 255
        self.background = None

    def _layout(self) -> None:
        """처음 한 번: 배경을 그리고, 히트맵 칸과 막대가 차지할 픽셀 위치를 계산합니다."""
        canvas = self.fig.canvas
        canvas.draw()  # 배경 전체 (animated 요소는 빠짐)
        self.fig.set_layout_engine("none")  # 배치를 고정: 다음부터는 배경을 그대로 씀
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
        (x0, y_floor), (x1, _) = to_px([(0.0, _HIST_FLOOR), (1.0, _HIST_FLOOR)])
        self.bar_x = np.round(x0 + (x1 - x0) * _HIST_BINS).astype(int)
        self.bar_floor = height - int(round(y_floor))
        self.height = height

    def render(self, weights: np.ndarray, counts: np.ndarray, stats: str) -> bytes:
        """배경 위에 새 값을 칠하고 PNG 바이트를 돌려줍니다."""
        canvas = self.fig.canvas
        if self.background is None:
            self._layout()
        else:
            canvas.restore_region(self.background)
        pixels = np.asarray(canvas.buffer_rgba())  # (높이, 너비, 4), 캔버스의 버퍼 그 자체
        # imshow와 같은 색: 값 v의 색은 표의 int(v * 256)번째 (1.0은 255번째)
        colors = self.lut[np.minimum((weights * 256).astype(np.int16), 255)]  # (H, L, S) -> (H, L, S, 3)
        for image, w, rgb, (rs, cs, rows, cols) in zip((ax.images[0] for ax in self.heat_axes), weights, colors,
                                                       self.cells):
            image.set_data(w)
            pixels[rs, cs, :3] = rgb.take(rows, axis=0).take(cols, axis=1)  # (L, S, 3) -> (픽셀 행, 픽셀 열, 3)
        tops = self.hist.transData.transform(
            np.stack([_HIST_BINS[:-1], np.maximum(counts, _HIST_FLOOR)], axis=1))[:, 1]
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


class AttentionExplorer:
    """어텐션 탐색기: d_k, 헤드 수, 마스크, 스케일링, 시드, 문장을 바꾸며 헤드별 히트맵과 포화 히스토그램을 봅니다.

    모델은 ``explorer_model.ExplorerModel``입니다(학습하지 않은 무작위 투영). 가중치는
    ``scaled_dot_product_attention``을 탐색기 자신의 쿼리·키에 적용한 값이고 ``weights``에 남습니다.
    조작기를 바꾸면 그림을 새로 만들지 않고 값만 바꿔 다시 그립니다(헤드 수와 보이는 토큰마다 그림 하나).
    잘못된 값(토큰 17개, 빈 문장 등)은 예외 대신 위젯에 한국어 안내를 띄우고 마지막 그림을 그대로 둡니다.

    노트북에서 이 객체를 셀의 마지막 식으로 두면 살아 있는 위젯이 보이고, 빌드된 웹사이트에서는
    같은 출력에 담긴 커널 없는 정적 탐색기(Vega-Lite, ``static_explorer``)가 보입니다. 그림 아래에는
    헤드마다 한 줄씩 글 요약(``summary``, ``describe_heads``)이 보이고 그림과 함께 바뀝니다.

    Args:
        tokens: 문장(공백으로 나눔) 또는 토큰 목록, 16개까지. 정적 탐색기는 8개까지.
        seed: 모델 시드.
        d_k: 헤드 하나의 쿼리·키 너비 ``Dh`` (1, 2, 4, ..., 512).
        num_heads: 헤드 수 ``H`` (1~16).
        mask: ``"none"``, ``"causal"``, ``"padding"``, ``"causal+padding"`` (또는 없음/인과/패딩/인과+패딩).
        scaled: ``1/sqrt(d_k)`` 스케일링 여부.
        dpi: 그림 해상도.

    Shape:
        - weights: ``(H, L, S)`` (패딩 마스크면 ``L = S = P``, [PAD] 포함)
        - query, key: ``(H, L, Dh)``, ``(H, S, Dh)``
        - summary: 길이 ``H``인 글 목록
    """

    def __init__(
        self,
        tokens: str | Sequence[str] = "나는 어제 도서관에서 책을 빌렸다",
        *,
        seed: int = 0,
        d_k: int = 64,
        num_heads: int = 4,
        mask: str = "none",
        scaled: bool = True,
        dpi: int = 88,
    ) -> None:
        settings = _validate({"tokens": tokens, "seed": seed, "d_k": d_k, "num_heads": num_heads,
                              "mask": mask, "scaled": scaled})
        self._settings = settings
        self._dpi = dpi
        self._model = ExplorerModel(settings["seed"])
        self._figures: OrderedDict[tuple, _ExplorerFigure] = OrderedDict()
        self.error = ""
        self._suspended = False
        style = {"description_width": "initial"}
        self.controls = {
            "tokens": widgets.Text(" ".join(settings["tokens"]), description="문장", continuous_update=False,
                                   style=style, layout=widgets.Layout(width="30em")),
            "d_k": widgets.SelectionSlider(options=[(str(v), v) for v in DK_CHOICES], value=settings["d_k"],
                                           description="d_k", style=style),
            "num_heads": widgets.IntSlider(settings["num_heads"], min=1, max=MAX_HEADS, description="헤드 수",
                                           style=style),
            "mask": widgets.ToggleButtons(options=[(MASK_LABELS[m], m) for m in MASKS], value=settings["mask"],
                                          description="마스크", style={**style, "button_width": "6.5em"}),
            "scaled": widgets.Checkbox(settings["scaled"], description="1/√d_k 스케일링", indent=False),
            "seed": widgets.IntText(settings["seed"], description="시드", style=style,
                                    layout=widgets.Layout(width="9em")),
        }
        for control in self.controls.values():
            control.observe(self._on_control, names="value")
        self._message = widgets.HTML("")
        # 그림 아래의 글 요약 (헤드마다 describe_heads 한 줄, 정적 탐색기와 같은 모양)
        self._summary = widgets.HTML("", layout=widgets.Layout(max_width="100%"))
        # align_self: VBox(세로 flex)가 그림을 칸 너비로 늘려 흐리게 만들지 않도록 원래 크기로
        self._image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%", height="auto",
                                                                         align_self="flex-start"))
        c = self.controls
        self.widget = widgets.VBox([
            widgets.HBox([c["tokens"], c["seed"]]),
            widgets.HBox([c["d_k"], c["num_heads"], c["scaled"]]),
            c["mask"], self._message, self._image, self._summary,
        ])
        self._redraw()

    # -- 상태 ---------------------------------------------------------------------------
    @property
    def state(self) -> dict:
        """지금 그려진 설정과 마지막 안내(오류가 없으면 빈 문자열).

        Shape:
            - 해당 없음 (사전)
        """
        return {**self._settings, "tokens": list(self._settings["tokens"]), "error": self.error}

    @property
    def image(self) -> bytes:
        """지금 보이는 그림의 PNG 바이트.

        Shape:
            - 해당 없음 (바이트)
        """
        return self._image.value

    def shown_tokens(self) -> list[str]:
        """히트맵의 축에 보이는 토큰 (패딩 마스크면 ``[PAD]``까지).

        Shape:
            - 반환: 길이 ``L`` (패딩 마스크면 ``P``)
        """
        return explorer_tokens(self._settings["tokens"], self._settings["mask"])

    # -- 계산과 그리기 ---------------------------------------------------------------------
    def forward(self, **settings: object) -> Tensor:
        """주어진 설정(생략하면 지금 설정)의 어텐션 가중치를 그리지 않고 계산합니다.

        Args:
            **settings: ``d_k``, ``num_heads``, ``mask``, ``scaled``, ``seed``, ``tokens`` 중 일부.

        Returns:
            어텐션 가중치.

        Raises:
            ValueError: 설정 값이 잘못되었을 때.

        Shape:
            - 반환: ``(H, L, S)``
        """
        s = _validate({**self._settings, **settings})
        model = self._model if s["seed"] == self._model.seed else ExplorerModel(s["seed"])
        tokens = explorer_tokens(s["tokens"], s["mask"])
        weights, _, _, _ = model.weights(tokens, d_k=s["d_k"], num_heads=s["num_heads"], mask=s["mask"],
                                         scaled=s["scaled"])
        return weights

    def _redraw(self) -> None:
        s = self._settings
        if self._model.seed != s["seed"]:
            self._model = ExplorerModel(s["seed"])
        tokens = self.shown_tokens()
        weights, query, key, attn_mask = self._model.weights(
            tokens, d_k=s["d_k"], num_heads=s["num_heads"], mask=s["mask"], scaled=s["scaled"])
        self.weights, self.query, self.key, self.attn_mask = weights, query, key, attn_mask
        w = weights.numpy()
        allowed = np.ones(w.shape, dtype=bool) if attn_mask is None else np.broadcast_to(attn_mask.numpy(), w.shape)
        counts, _ = np.histogram(w[allowed], bins=_HIST_BINS)
        with single_thread():
            share, entropy = float(saturation(weights)), float(attention_entropy(weights).mean())
        stats = f"포화 행 {share:.0%}, 평균 엔트로피 {entropy:.2f} nat"
        self._image.value = self._figure(s["num_heads"], tokens).render(w, counts, stats)
        self.summary = describe_heads(w, tokens, tokens)
        self._summary.value = summary_html(summary_caption(s["d_k"], s["num_heads"], s["mask"], s["scaled"]),
                                           self.summary)

    def _figure(self, num_heads: int, tokens: list[str]) -> _ExplorerFigure:
        key = (num_heads, tuple(tokens))
        if key in self._figures:
            self._figures.move_to_end(key)
        else:
            self._figures[key] = _ExplorerFigure(num_heads, tokens, self._dpi)
            while len(self._figures) > _FIGURE_CACHE:
                self._figures.popitem(last=False)
        return self._figures[key]

    def _show_error(self, message: str) -> None:
        self.error = message
        self._message.value = f'<span style="color:#D55E00">⚠ {html.escape(message)} (마지막 그림을 그대로 둡니다)</span>'

    # -- 조작 ---------------------------------------------------------------------------
    def set(self, **changes: object) -> dict:
        """설정을 바꾸고 다시 그립니다. 새 그림(PNG)이 만들어진 뒤에 돌아옵니다.

        잘못된 값이면 아무것도 바꾸지 않고 위젯에 한국어 안내를 띄웁니다(예외 없음).

        Args:
            **changes: ``tokens``, ``d_k``, ``num_heads``, ``mask``, ``scaled``, ``seed`` 중 일부.

        Returns:
            새 상태 (``state``와 같음; 잘못된 값이면 ``error``에 안내).

        Raises:
            TypeError: 모르는 설정 이름이 들어왔을 때 (코드의 오타).

        Shape:
            - 해당 없음 (사전)
        """
        unknown = sorted(set(changes) - set(_SETTINGS))
        if unknown:
            raise TypeError(f"AttentionExplorer.set이 모르는 설정 {unknown}. 쓸 수 있는 이름: {list(_SETTINGS)}")
        try:
            settings = _validate({**self._settings, **changes})
        except (TypeError, ValueError) as exc:
            if "tokens" in changes and isinstance(changes["tokens"], str):
                self._set_controls({"tokens": changes["tokens"]})  # 잘못 적은 글을 그대로 보여 줌
            self._show_error(str(exc))
            return self.state
        self._settings = settings
        self._set_controls({**settings, "tokens": " ".join(settings["tokens"])})
        self._message.value = ""
        self.error = ""
        self._redraw()
        return self.state

    def _set_controls(self, values: dict) -> None:
        self._suspended = True
        try:
            for name, value in values.items():
                self.controls[name].value = value
        finally:
            self._suspended = False

    def _on_control(self, change: dict) -> None:
        if self._suspended:
            return
        values = {name: control.value for name, control in self.controls.items()}
        try:
            self.set(**values)
        except Exception as exc:  # 위젯 콜백에서는 어떤 예외도 노트북으로 올려 보내지 않습니다
            self._show_error(f"예상하지 못한 오류: {exc!r}")

    # -- 표시 ---------------------------------------------------------------------------
    def __repr__(self) -> str:
        s = self._settings
        return (f"AttentionExplorer(tokens={' '.join(s['tokens'])!r}, seed={s['seed']}, d_k={s['d_k']}, "
                f"num_heads={s['num_heads']}, mask={s['mask']!r}, scaled={s['scaled']})")

    def _repr_mimebundle_(self, **kwargs: object) -> dict:
        """Jupyter는 위젯 보기를, 웹사이트(myst-nb, text/html 우선)는 정적 탐색기를 고릅니다."""
        bundle = self.widget._repr_mimebundle_(**kwargs)
        s = self._settings
        bundle["text/html"] = explorer_html(s["tokens"], s["seed"], d_k=s["d_k"], num_heads=s["num_heads"],
                                            mask=s["mask"], scaled=s["scaled"])
        bundle["text/plain"] = repr(self)
        return bundle


def _validate(settings: dict) -> dict:
    """탐색기 설정을 검사하고 정규화합니다 (잘못되면 한국어 ValueError/TypeError)."""
    out = dict(settings)
    out["tokens"] = tuple(parse_tokens(settings["tokens"]))
    d_k = settings["d_k"]
    if isinstance(d_k, bool) or d_k not in DK_CHOICES:
        raise ValueError(f"d_k는 {', '.join(map(str, DK_CHOICES))} 중 하나여야 하는데 {d_k!r}이(가) 들어왔습니다.")
    heads = settings["num_heads"]
    if isinstance(heads, bool) or not isinstance(heads, int) or not 1 <= heads <= MAX_HEADS:
        raise ValueError(f"헤드 수는 1~{MAX_HEADS} 사이의 정수여야 하는데 {heads!r}이(가) 들어왔습니다.")
    mask = {label: name for name, label in MASK_LABELS.items()}.get(settings["mask"], settings["mask"])
    if mask not in MASKS:
        raise ValueError(f"마스크는 {', '.join(MASKS)} (없음/인과/패딩/인과+패딩) 중 하나여야 하는데 "
                         f"{settings['mask']!r}이(가) 들어왔습니다.")
    out["mask"] = mask
    if not isinstance(settings["scaled"], (bool, np.bool_)):
        raise ValueError(f"scaled는 True 또는 False여야 하는데 {settings['scaled']!r}이(가) 들어왔습니다.")
    out["scaled"] = bool(settings["scaled"])
    seed = settings["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
        raise ValueError(f"시드는 0 이상 2^31 미만의 정수여야 하는데 {seed!r}이(가) 들어왔습니다.")
    return out
