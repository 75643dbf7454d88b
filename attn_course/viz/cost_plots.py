"""그림: 어텐션 경로마다 길이 ``L``에 대한 메모리와 시간 (로그-로그 눈금, 선마다 기울기 이름표).

7장의 ``attn_course.experiments.attention_cost``가 만든 표(행 = 경로 x 길이) 하나를 받아 그립니다. 선은 표에 있는
경로마다 하나이므로, 실험 쪽에 경로가 하나 늘면(예: 블록 단위로 직접 계산하는 경로) 같은 그림에 선이 하나 늡니다.
기울기는 로그-로그 눈금에서 최소제곱 직선의 기울기입니다 (``attn_course.experiments.loglog_slope``와 같은 계산):
1이면 ``L``을 두 배로 할 때 두 배, 2이면 네 배.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from attn_lib._checks import describe
from .describe import format_number
from .figures import PALETTE, TEXT_PT, _attach, tick_label
from .phone import fit_width, in_phone_layout, panel_columns, reflowable

__all__ = ["COST_PANELS", "plot_attention_cost"]

#: 패널: (표의 열, 세로축 이름, 단위 배율). 바이트는 MiB로, 초는 ms로 그립니다.
COST_PANELS = (
    ("추가 최대 메모리 (바이트)", "호출 하나가 더 쓴 최대 메모리 (MiB)", 1 / 2**20),
    ("시간 (초)", "호출 하나의 시간 (ms, 중앙값)", 1000.0),
)


def _slope(x: np.ndarray, y: np.ndarray) -> float:
    return float(np.polyfit(np.log2(x), np.log2(y), 1)[0])


def _spread_labels(ys: list[float], gap: float) -> list[float]:
    """세로 위치(로그 눈금의 log10 값)들이 ``gap``보다 가깝지 않게 위아래로 벌립니다 (순서는 그대로)."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    placed = [ys[i] for i in order]
    for j in range(1, len(placed)):
        placed[j] = max(placed[j], placed[j - 1] + gap)
    out = [0.0] * len(ys)
    for j, i in enumerate(order):
        out[i] = placed[j]
    return out


@reflowable
def plot_attention_cost(
    rows: Sequence[Mapping[str, object]],
    *,
    title: str | None = None,
    ncols: int = 2,
) -> Figure:
    """경로마다 ``L``에 대한 메모리와 시간을 로그-로그 눈금의 두 패널에 그리고, 선 끝에 기울기를 적습니다.

    Args:
        rows: ``attention_cost``의 행 목록. 행마다 ``"이름"``(또는 ``"경로"``), ``"L"``,
            ``"추가 최대 메모리 (바이트)"``, ``"시간 (초)"``가 있어야 합니다. 경로는 처음 나온 순서대로 색을 받습니다.
        title: 그림 전체 제목.
        ncols: 한 줄에 놓을 패널 수 (휴대폰용 그림은 1).

    Returns:
        matplotlib ``Figure``.

    Shape:
        - rows: 경로 수 x 길이 수 개의 행. 경로마다 길이가 2개 이상이어야 기울기를 잽니다.
    """
    if isinstance(rows, Mapping) or not isinstance(rows, Sequence) or not rows:
        raise ValueError(f"rows는 비어 있지 않은 행 목록이어야 하는데 {describe(rows)}이(가) 들어왔습니다.")
    need = {"L", *(column for column, _, _ in COST_PANELS)}
    lines: dict[str, list[Mapping[str, object]]] = {}
    for row in rows:
        if not isinstance(row, Mapping) or not need <= set(row) or not ({"이름", "경로"} & set(row)):
            raise ValueError(f"rows의 행마다 '이름'(또는 '경로')과 {sorted(need)}이(가) 있어야 합니다: {row!r}")
        lines.setdefault(str(row.get("이름", row.get("경로"))), []).append(row)
    ncols = panel_columns(min(int(ncols), len(COST_PANELS)))
    nrows = math.ceil(len(COST_PANELS) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(fit_width(3.3 * ncols), 3.1 * nrows + 0.9), squeeze=False,
                             layout="constrained")
    plt.close(fig)  # pyplot 자동 표시에서 빼기
    all_lengths = sorted({float(r["L"]) for r in rows})
    summary = []
    for ax, (column, ylabel, factor) in zip(axes.flat, COST_PANELS):
        ends, texts, colors, parts = [], [], [], []
        for i, (name, path_rows) in enumerate(lines.items()):
            path_rows = sorted(path_rows, key=lambda r: float(r["L"]))
            x = np.array([float(r["L"]) for r in path_rows])
            y = np.array([float(r[column]) * factor for r in path_rows])
            shown = y > 0  # 로그 눈금에 0은 그릴 수 없음
            color = PALETTE[i % len(PALETTE)]
            ax.plot(x[shown], y[shown], marker="o", markersize=4, linewidth=1.6, color=color, label=name)
            slope = _slope(x[shown], y[shown]) if shown.sum() >= 2 else float("nan")
            if shown.any():
                ends.append(math.log10(y[shown][-1]))
                texts.append(f"기울기 {slope:.1f}")
                colors.append(color)
            parts.append(f"'{name}' {format_number(y[0])}에서 {format_number(y[-1])}까지(기울기 {slope:.1f})")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xticks(all_lengths, [tick_label(v) for v in all_lengths])
        ax.minorticks_off()
        ax.yaxis.set_major_formatter(plt.FuncFormatter(lambda v, _pos: f"{v:g}"))
        ax.set_xlim(all_lengths[0] / 1.3, all_lengths[-1] * (4.0 if in_phone_layout() else 3.2))
        ax.set_xlabel("길이 L (로그 눈금)")
        ax.set_ylabel(ylabel)
        ax.grid(True, which="major", alpha=0.3)
        low, high = ax.get_ylim()
        gap = 0.075 * (math.log10(high) - math.log10(low))
        for y_log, text, color in zip(_spread_labels(ends, gap), texts, colors):
            ax.annotate(text, (all_lengths[-1] * 1.15, 10**y_log), color=color, va="center", ha="left",
                        fontsize=TEXT_PT["annotation"])
        summary.append(f"{ylabel}: " + ", ".join(parts))
    for ax in list(axes.flat)[len(COST_PANELS):]:
        ax.set_axis_off()
    handles = [h for h in axes.flat[0].get_lines()]
    fig.legend(handles=handles, loc="outside lower center", ncols=1 if in_phone_layout() else min(len(handles), 2),
               fontsize=TEXT_PT["legend"], frameon=False)
    if title:
        fig.suptitle(title)
    lengths_text = f"L {tick_label(all_lengths[0])}~{tick_label(all_lengths[-1])}"
    _attach(fig, True, f"로그-로그 선 그래프 {len(COST_PANELS)}개(가로축 {lengths_text})", "; ".join(summary), title)
    return fig
