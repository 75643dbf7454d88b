"""그림: 측정 곡선과 지표 패널 (matplotlib만 사용).

- ``plot_curves``: 가로축 값에 대한 측정 곡선(점과 선)과 참고선(이론값, 점선). 로그 눈금은 mathtext 없이 적음.
  곡선의 색은 기본으로 ``PALETTE`` 순서이고, ``styles``로 곡선마다 색·표식·선 모양을 정할 수 있습니다
  (한 장 안에서 같은 색이 다른 뜻으로 쓰이지 않게).
- ``plot_metric_panels``: 설정마다 지표 여러 개를 나란히 놓은 패널 (스케일링 장의 엔트로피·포화·기울기).

헤드별 히트맵과 포화 그림은 ``plots``에 있습니다. 그림 함수는 데이터에서 계산한 한국어 대체 텍스트를 붙입니다.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from torch import Tensor

from attn_lib._checks import describe
from .describe import format_number, plain_text
from .describe_values import describe_curves
from .figures import PALETTE, TEXT_PT, _ALT_PARTS, _attach, _float_array, plain_log_ticks, tick_label
from .phone import fit_width, panel_columns, reflowable

__all__ = ["plot_curves", "plot_metric_panels"]


def _as_curve(values: object, n: int, name: str) -> np.ndarray:
    arr = _float_array(values, name, "수")
    if arr.ndim == 0:
        return np.full(n, float(arr))
    if arr.shape != (n,):
        raise ValueError(f"{name}의 길이는 x와 같은 {n}이어야 하는데 모양이 {arr.shape}입니다.")
    return arr


def _check_styles(styles: object, curves: Mapping[str, object]) -> dict[str, dict[str, object]]:
    """``styles``가 곡선 이름 -> 인자 사전인지, 이름이 ``series``에 있는지 확인합니다 (한국어 오류)."""
    if styles is None:
        return {}
    if not isinstance(styles, Mapping) or not all(isinstance(v, Mapping) for v in styles.values()):
        raise TypeError(f"styles는 곡선 이름 -> 선 모양 사전이어야 하는데 {describe(styles)}이(가) 들어왔습니다.")
    unknown = sorted(str(k) for k in styles if str(k) not in curves)
    if unknown:
        raise ValueError(f"styles의 이름은 series에 있어야 하는데 {unknown}이(가) 없습니다. 있는 이름: {list(curves)}")
    return {str(k): dict(v) for k, v in styles.items()}


@reflowable
def plot_curves(
    x: Sequence[float],
    series: Mapping[str, Sequence[float]],
    *,
    xlabel: str,
    ylabel: str,
    title: str | None = None,
    logx: bool = False,
    logy: bool = False,
    reference: Mapping[str, Sequence[float] | float] | None = None,
    legend: bool = True,
    marks: Mapping[str, tuple[float, float]] | None = None,
    ax: matplotlib.axes.Axes | None = None,
    styles: Mapping[str, Mapping[str, object]] | None = None,
) -> Figure:
    """``x``에 대한 측정 곡선(점과 선)과 참고선(이론값, 점선)을 한 축에 그립니다.

    측정 곡선의 색은 넘긴 순서대로 ``PALETTE``에서 고르므로, 여러 그림에서 같은 순서로 넘기면
    같은 규칙이 같은 색이 됩니다. 앞 그림과 다른 것을 나누는 곡선이면 ``styles``로 다른 색을 주세요
    (앞 그림의 파랑·주황이 뜻하던 것과 헷갈리지 않게). 참고선은 검은 점선 계열이고, 값 하나(상수)를
    넘기면 가로선이 됩니다.
    ``logx``면 밑이 2인 로그 눈금에 ``x`` 값마다 눈금을 둡니다(``1/8``처럼 적음).

    Args:
        x: 가로축 값.
        series: 이름 -> 측정값 (길이가 ``x``와 같음).
        xlabel: 가로축 이름.
        ylabel: 세로축 이름.
        title: 제목.
        logx: 가로축을 밑이 2인 로그 눈금으로.
        logy: 세로축을 로그 눈금으로.
        reference: 이름 -> 이론값(길이가 ``x``와 같은 목록, 또는 상수 하나).
        legend: 범례를 그릴지.
        marks: 이름 -> ``(x, y)``: 곡선 위의 점(봉우리 같은 곳)에 점을 찍고 그 위에 이름을 적습니다.
        ax: 그릴 축. 주면 그 축의 그림을 돌려줍니다.
        styles: 곡선 이름 -> 선 모양 (matplotlib ``plot``의 인자: ``color``, ``marker``, ``linestyle``,
            ``markerfacecolor`` 등). 적지 않은 곡선과 인자는 기본값(``PALETTE`` 순서의 색, 점과 실선).

    Returns:
        matplotlib ``Figure``.

    Shape:
        - x: ``(N,)``, series와 reference의 각 값: ``(N,)`` 또는 상수, marks의 각 값: ``(2,)``
    """
    try:
        xs = np.asarray(x.detach().cpu() if isinstance(x, Tensor) else x, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"x는 수의 목록이어야 하는데 {describe(x)}이(가) 들어왔습니다.") from None
    if xs.ndim != 1 or len(xs) == 0:
        raise ValueError(f"x는 비어 있지 않은 1차원 목록이어야 하는데 모양이 {xs.shape}입니다.")
    if not isinstance(series, Mapping) or not series:
        raise ValueError(f"series는 비어 있지 않은 사전(이름 -> 값)이어야 하는데 {describe(series)}이(가) 들어왔습니다.")
    curves = {str(k): _as_curve(v, len(xs), f"series[{k!r}]") for k, v in series.items()}
    refs = {str(k): _as_curve(v, len(xs), f"reference[{k!r}]") for k, v in (reference or {}).items()}
    points = {}
    for k, v in (marks or {}).items():
        point = _float_array(v, f"marks[{k!r}]", "점")
        if point.shape != (2,):
            raise ValueError(f"marks[{k!r}]는 (x, y) 점 하나여야 하는데 모양이 {point.shape}입니다.")
        points[str(k)] = (float(point[0]), float(point[1]))
    styles = _check_styles(styles, curves)
    own_figure = ax is None
    if ax is None:
        fig, ax = plt.subplots(figsize=(fit_width(6.0), 3.8), layout="constrained")
        plt.close(fig)  # pyplot 자동 표시에서 빼기
    fig = ax.figure
    dashes = ("--", ":", "-.", (0, (5, 1, 1, 1)))
    for i, (name, ys) in enumerate(refs.items()):
        ax.plot(xs, ys, linestyle=dashes[i % len(dashes)], color="#333333", linewidth=1.4, label=name, zorder=1)
    for i, (name, ys) in enumerate(curves.items()):
        style = {"marker": "o", "markersize": 4, "linewidth": 1.6, "color": PALETTE[i % len(PALETTE)],
                 **styles.get(name, {})}
        ax.plot(xs, ys, label=name, zorder=2, **style)
    for name, (mx, my) in points.items():
        ax.plot([mx], [my], marker="o", markersize=7, markerfacecolor="white", markeredgecolor="#333333",
                markeredgewidth=1.4, linestyle="none", zorder=3)
        ax.annotate(name, (mx, my), xytext=(0, 9), textcoords="offset points", ha="center", va="bottom",
                    fontsize=TEXT_PT["annotation"], color="#333333", zorder=3)
    if logx:
        ax.set_xscale("log", base=2)
        if len(xs) <= 12:
            ax.set_xticks(xs, [tick_label(v) for v in xs])
            ax.minorticks_off()
        else:
            plain_log_ticks(ax.xaxis, 2, xs)
    if logy:
        ax.set_yscale("log")
        plain_log_ticks(ax.yaxis, 10, np.concatenate([*curves.values(), *refs.values()]))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.grid(True, which="major", alpha=0.3)
    if legend:
        # 표시한 점의 이름은 범례가 피해 가지 않으므로(loc="best"는 선만 봄), 점이 있으면 범례를 위쪽 가운데에 둡니다
        ax.legend(fontsize=TEXT_PT["legend"], framealpha=0.9, loc="upper center" if points else "best",
                  bbox_to_anchor=(0.5, 0.9) if points else None)
    if title:
        ax.set_title(title)
    # 상수 하나로 받은 참고선은 "상수"로 적음
    given = {str(k): v for k, v in (reference or {}).items()}
    constants = {k: v[0] if np.ndim(given[k]) == 0 else v for k, v in refs.items()}
    summary = describe_curves(xs, curves, constants)
    if points:
        summary += "; 표시한 점: " + ", ".join(f"{plain_text(k)} ({format_number(mx)}, {format_number(my)})"
                                             for k, (mx, my) in points.items())
    _attach(fig, own_figure, f"선 그래프(가로축 {plain_text(xlabel)}, 세로축 {plain_text(ylabel)})", summary, title,
            plain_text(ylabel))
    return fig


@reflowable
def plot_metric_panels(
    x: Sequence[float],
    panels: Mapping[str, Mapping[str, Sequence[float]]],
    *,
    xlabel: str,
    ncols: int = 2,
    logx: bool = False,
    logy: Sequence[str] = (),
    reference: Mapping[str, Mapping[str, Sequence[float] | float]] | None = None,
    title: str | None = None,
    styles: Mapping[str, Mapping[str, object]] | None = None,
) -> Figure:
    """지표 여러 개를 같은 ``x``에 대해 나란히 그립니다 (패널 하나 = 지표 하나).

    패널마다 ``plot_curves``를 부릅니다. 측정 곡선의 범례는 그림 아래에 한 번만 두고,
    패널별 참고선은 그 패널 안에 범례로 적습니다.

    Args:
        x: 가로축 값.
        panels: 지표 이름(세로축 이름) -> {곡선 이름 -> 값}. 모든 패널의 곡선 이름이 같아야 색이 맞습니다.
        xlabel: 가로축 이름.
        ncols: 한 줄에 놓을 패널 수 (기본 2: 패널이 3~4개면 2×2 격자).
        logx: 가로축을 밑이 2인 로그 눈금으로.
        logy: 세로축을 로그 눈금으로 그릴 지표 이름들.
        reference: 지표 이름 -> {참고선 이름 -> 값 또는 상수}.
        title: 그림 전체 제목.
        styles: 곡선 이름 -> 선 모양 (모든 패널에 같게; ``plot_curves``의 ``styles``).

    Returns:
        matplotlib ``Figure``.

    Shape:
        - x: ``(N,)``, 각 곡선: ``(N,)``
    """
    if not isinstance(panels, Mapping) or not panels:
        raise ValueError(f"panels는 비어 있지 않은 사전이어야 하는데 {describe(panels)}이(가) 들어왔습니다.")
    if isinstance(ncols, bool) or not isinstance(ncols, int) or ncols < 1:
        raise ValueError(f"ncols는 1 이상의 정수여야 하는데 {ncols!r}이(가) 들어왔습니다.")
    unknown = sorted(set(logy) - set(panels)) + sorted(set(reference or {}) - set(panels))
    if unknown:
        raise ValueError(f"logy와 reference의 이름은 panels에 있어야 하는데 {unknown}이(가) 없습니다. 있는 이름: {list(panels)}")
    ncols = panel_columns(min(ncols, len(panels)))  # 휴대폰용 그림은 한 열
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(fit_width(3.25 * ncols), 2.9 * nrows + 0.8), squeeze=False, layout="constrained")
    plt.close(fig)  # pyplot 자동 표시에서 빼기
    for ax, (name, curves) in zip(axes.flat, panels.items()):
        refs = (reference or {}).get(name)
        plot_curves(x, curves, xlabel=xlabel, ylabel=name, logx=logx, logy=name in logy, reference=refs, legend=False,
                    ax=ax, styles=styles)
        if refs:
            handles = [h for h in ax.get_lines() if h.get_label() in refs]
            ax.legend(handles=handles, fontsize=TEXT_PT["legend"], framealpha=0.9)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_axis_off()
    first = axes.flat[0]
    names = {str(k) for k in next(iter(panels.values()))}
    handles = [h for h in first.get_lines() if h.get_label() in names]
    fig.legend(handles=handles, loc="outside lower center", ncols=min(len(handles), 2), fontsize=TEXT_PT["legend"],
               frameon=False)
    if title:
        fig.suptitle(title)
    _attach(fig, True, f"지표 그래프 {len(panels)}개(가로축 {plain_text(xlabel)})", " ".join(getattr(fig, _ALT_PARTS)),
            title)
    return fig
