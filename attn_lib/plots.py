"""그림: 헤드별 히트맵, 포화 히스토그램, 측정 곡선, 지표 패널, 포화 격자 (matplotlib만 사용).

마스크와 배치, 헤드 수 실험의 그림(``plot_mask``, ``plot_batch_heatmaps``, ``plot_head_accuracy``)은
``mask_plots``에, 한글 글꼴과 공통 색(``PALETTE``, ``HEATMAP_CMAP``)과 대체 텍스트 장치(``set_alt``, ``get_alt``)는
``figures``에 있습니다. 이 모듈을 import하면 ``figures``를 거쳐 한글 글꼴이 한 번 설정됩니다.

그림 함수는 모두 ``Figure``를 돌려줍니다. pyplot의 자동 표시 목록에서는 빼 두었으므로
노트북 셀의 마지막 식으로 두거나 ``display(fig)``로 한 번만 보입니다. 그림 함수는 모두 데이터에서 계산한
한국어 대체 텍스트(``get_alt``)를 그림에 붙입니다.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure
from torch import Tensor

from ._checks import describe
from .describe import describe_curves, describe_heads, describe_saturation, plain_text
from .figures import (
    HEATMAP_CMAP, PALETTE, _ALT_PARTS, _attach, _check_cmap, _float_array, _labels, _to_numpy, plain_log_ticks, tick_label,
)
from .metrics import attention_entropy, saturation

__all__ = [
    "plot_head_heatmaps",
    "plot_saturation_histogram",
    "plot_curves",
    "plot_metric_panels",
    "plot_saturation_grid",
]


def plot_head_heatmaps(
    weights: Tensor | np.ndarray,
    query_labels: Sequence[str] | None = None,
    key_labels: Sequence[str] | None = None,
    *,
    title: str | None = None,
    ncols: int | None = None,
    annotate: bool = False,
    head_names: Sequence[str] | None = None,
    cmap: str = HEATMAP_CMAP,
    vmax: float = 1.0,
) -> Figure:
    """헤드마다 어텐션 가중치 히트맵을 하나씩 그립니다 (행 = 쿼리, 열 = 키).

    색의 범위는 모든 헤드가 같은 ``[0, vmax]``라서 헤드끼리 바로 비교할 수 있습니다.

    Args:
        weights: 한 문장의 헤드별 가중치. 2차원이면 헤드 하나로 봅니다.
        query_labels: 행(쿼리) 이름, 길이 ``L``. 생략하면 위치 번호.
        key_labels: 열(키) 이름, 길이 ``S``. 생략하면 위치 번호.
        title: 그림 전체 제목.
        ncols: 한 줄에 놓을 헤드 수 (기본 ``min(H, 4)``).
        annotate: 칸마다 값을 적을지 (칸이 많으면 느리고 읽기 어려움).
        head_names: 헤드별 제목 (기본 "헤드 0", "헤드 1", ...).
        cmap: 색지도 (기본 viridis; ``SAFE_CMAPS`` 중 하나).
        vmax: 색 범위의 최댓값.

    Returns:
        matplotlib ``Figure``. 대체 텍스트(``get_alt``)에 헤드마다 ``describe_heads``의 요약이 있습니다.

    Raises:
        ValueError: 모양이나 이름 개수가 틀렸을 때, 색지도가 ``SAFE_CMAPS``가 아닐 때.

    Shape:
        - weights: ``(H, L, S)`` 또는 ``(L, S)``
    """
    _check_cmap(cmap)
    w = _to_numpy(weights)
    if w.ndim == 2:
        w = w[None]  # (L, S) -> (1, L, S)
    if w.ndim != 3:
        raise ValueError(f"weights는 (H, L, S) 또는 (L, S)여야 하는데 shape={w.shape}입니다. 배치 축은 [0]으로 고르세요.")
    H, L, S = w.shape
    qlab = _labels(query_labels, L, "query_labels")
    klab = _labels(key_labels, S, "key_labels")
    names = _labels(head_names, H, "head_names") if head_names is not None else [f"헤드 {h}" for h in range(H)]
    ncols = min(H, 4) if ncols is None else max(1, min(int(ncols), H))
    nrows = math.ceil(H / ncols)
    longest = max((len(s) for s in qlab + klab), default=1)
    cell = 0.32 + 0.02 * min(longest, 8)
    panel_w, panel_h = max(2.0, cell * S + 0.9), max(1.8, cell * L + 0.9)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(panel_w * ncols + 0.9, panel_h * nrows + (0.5 if title else 0.2)),
        squeeze=False, layout="constrained",
    )
    plt.close(fig)  # pyplot 자동 표시에서 빼기: 돌려준 그림만 한 번 보이도록
    image = None
    for h, ax in enumerate(axes.flat):
        if h >= H:
            ax.set_axis_off()
            continue
        image = ax.imshow(w[h], cmap=cmap, vmin=0.0, vmax=vmax, aspect="auto", interpolation="nearest")
        ax.set_title(names[h], fontsize=10)
        ax.set_xticks(range(S), klab, rotation=60 if longest > 2 else 0, ha="right" if longest > 2 else "center", fontsize=8)
        ax.set_yticks(range(L), qlab, fontsize=8)
        if h % ncols == 0:
            ax.set_ylabel("쿼리")
        if h // ncols == nrows - 1 or h + ncols >= H:
            ax.set_xlabel("키")
        if annotate:
            for i in range(L):
                for j in range(S):
                    ax.text(j, i, f"{w[h, i, j]:.2f}", ha="center", va="center", fontsize=7,
                            color="black" if w[h, i, j] > 0.6 * vmax else "white")
    fig.colorbar(image, ax=axes, shrink=0.8, label="어텐션 가중치")
    if title:
        fig.suptitle(title)
    kind = f"헤드별 어텐션 가중치 히트맵 {H}개" if H > 1 else "어텐션 가중치 히트맵"
    lines = describe_heads(w, qlab if query_labels is not None else None, klab if key_labels is not None else None,
                           head_names=names)
    _attach(fig, True, f"{kind}(행 = 쿼리 {L}개, 열 = 키 {S}개, 밝을수록 큰 가중치)", "; ".join(lines), title)
    return fig


def plot_saturation_histogram(
    weights: Tensor | Mapping[str, Tensor],
    *,
    bins: int = 20,
    threshold: float = 0.99,
    title: str | None = None,
    log: bool = True,
    ax: matplotlib.axes.Axes | None = None,
) -> Figure:
    """어텐션 가중치 전체의 히스토그램과 포화 지표를 그립니다.

    소프트맥스가 포화되면 가중치가 0과 1 근처로 몰립니다. 그림 안에 시리즈마다
    포화된 행의 비율(``saturation``)과 평균 행 엔트로피(``attention_entropy``)를 적습니다.
    여러 시리즈를 ``{"스케일링 있음": w1, "스케일링 없음": w2}``처럼 넘기면 겹쳐 그립니다.

    Args:
        weights: 가중치 텐서, 또는 이름 -> 가중치 사전.
        bins: ``[0, 1]`` 구간을 나눌 칸 수.
        threshold: 포화로 볼 행 최댓값 기준.
        title: 제목.
        log: 세로축을 로그 눈금으로 (0 근처 막대가 다른 막대를 가리지 않게).
        ax: 그릴 축. 주면 그 축의 그림을 돌려줍니다.

    Returns:
        matplotlib ``Figure``.

    Shape:
        - weights (각 시리즈): ``(..., L, S)``
    """
    series = dict(weights) if isinstance(weights, Mapping) else {"": weights}
    if not series:
        raise ValueError("weights 사전이 비어 있습니다.")
    for name, w in series.items():
        if not isinstance(w, Tensor) or not torch.is_floating_point(w) or w.dim() < 2:
            raise TypeError(f"시리즈 {name!r}은(는) (..., L, S) 실수 텐서여야 하는데 {describe(w)}이(가) 들어왔습니다.")
    own_figure = ax is None
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.0, 3.6), layout="constrained")
        plt.close(fig)
    fig = ax.figure
    edges = np.linspace(0.0, 1.0, bins + 1)
    single = len(series) == 1
    for i, (name, w) in enumerate(series.items()):
        w = w.detach().float()
        sat = float(saturation(w, threshold))
        ent = float(attention_entropy(w).mean())
        stats = f"포화 행 {sat:.0%}, 평균 엔트로피 {ent:.2f} nat"
        ax.hist(_to_numpy(w).ravel(), bins=edges, histtype="stepfilled" if single else "step",
                linewidth=1.8, color=PALETTE[i % len(PALETTE)], alpha=0.85 if single else 1.0,
                label=f"{name}: {stats}" if name else stats, log=log)
    ax.set_xlim(0.0, 1.0)
    ax.set_xlabel(f"어텐션 가중치 (포화: 행 최댓값 ≥ {threshold:g})")
    ax.set_ylabel("개수 (로그 눈금)" if log else "개수")
    ax.legend(loc="upper center", fontsize=8, framealpha=0.9)
    if title:
        ax.set_title(title)
    summary = "; ".join(f"'{name}' {describe_saturation(w.detach(), threshold)}" if name
                        else describe_saturation(w.detach(), threshold) for name, w in series.items())
    kind = "어텐션 가중치 히스토그램" + (f" {len(series)}개 겹침" if not single else "")
    _attach(fig, own_figure, f"{kind}(가로축 = 가중치 0~1, 세로축 = 개수)", summary, title, "히스토그램")
    return fig


def _as_curve(values: object, n: int, name: str) -> np.ndarray:
    arr = _float_array(values, name, "수")
    if arr.ndim == 0:
        return np.full(n, float(arr))
    if arr.shape != (n,):
        raise ValueError(f"{name}의 길이는 x와 같은 {n}이어야 하는데 모양이 {arr.shape}입니다.")
    return arr


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
    ax: matplotlib.axes.Axes | None = None,
) -> Figure:
    """``x``에 대한 측정 곡선(점과 선)과 참고선(이론값, 점선)을 한 축에 그립니다.

    측정 곡선의 색은 넘긴 순서대로 ``PALETTE``에서 고르므로, 여러 그림에서 같은 순서로 넘기면
    같은 규칙이 같은 색이 됩니다. 참고선은 검은 점선 계열이고, 값 하나(상수)를 넘기면 가로선이 됩니다.
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
        ax: 그릴 축. 주면 그 축의 그림을 돌려줍니다.

    Returns:
        matplotlib ``Figure``.

    Shape:
        - x: ``(N,)``, series와 reference의 각 값: ``(N,)`` 또는 상수
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
    own_figure = ax is None
    if ax is None:
        fig, ax = plt.subplots(figsize=(6.0, 3.8), layout="constrained")
        plt.close(fig)  # pyplot 자동 표시에서 빼기
    fig = ax.figure
    styles = ("--", ":", "-.", (0, (5, 1, 1, 1)))
    for i, (name, ys) in enumerate(refs.items()):
        ax.plot(xs, ys, linestyle=styles[i % len(styles)], color="#333333", linewidth=1.4, label=name, zorder=1)
    for i, (name, ys) in enumerate(curves.items()):
        ax.plot(xs, ys, marker="o", markersize=4, linewidth=1.6, color=PALETTE[i % len(PALETTE)], label=name, zorder=2)
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
        ax.legend(fontsize=8, framealpha=0.9)
    if title:
        ax.set_title(title)
    # 상수 하나로 받은 참고선은 "상수"로 적음
    given = {str(k): v for k, v in (reference or {}).items()}
    constants = {k: v[0] if np.ndim(given[k]) == 0 else v for k, v in refs.items()}
    summary = describe_curves(xs, curves, constants)
    _attach(fig, own_figure, f"선 그래프(가로축 {plain_text(xlabel)}, 세로축 {plain_text(ylabel)})", summary, title,
            plain_text(ylabel))
    return fig


def plot_metric_panels(
    x: Sequence[float],
    panels: Mapping[str, Mapping[str, Sequence[float]]],
    *,
    xlabel: str,
    ncols: int = 3,
    logx: bool = False,
    logy: Sequence[str] = (),
    reference: Mapping[str, Mapping[str, Sequence[float] | float]] | None = None,
    title: str | None = None,
) -> Figure:
    """지표 여러 개를 같은 ``x``에 대해 나란히 그립니다 (패널 하나 = 지표 하나).

    패널마다 ``plot_curves``를 부릅니다. 측정 곡선의 범례는 그림 아래에 한 번만 두고,
    패널별 참고선은 그 패널 안에 범례로 적습니다.

    Args:
        x: 가로축 값.
        panels: 지표 이름(세로축 이름) -> {곡선 이름 -> 값}. 모든 패널의 곡선 이름이 같아야 색이 맞습니다.
        xlabel: 가로축 이름.
        ncols: 한 줄에 놓을 패널 수.
        logx: 가로축을 밑이 2인 로그 눈금으로.
        logy: 세로축을 로그 눈금으로 그릴 지표 이름들.
        reference: 지표 이름 -> {참고선 이름 -> 값 또는 상수}.
        title: 그림 전체 제목.

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
    ncols = min(ncols, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.3 * ncols, 3.3 * nrows + 0.6), squeeze=False, layout="constrained")
    plt.close(fig)  # pyplot 자동 표시에서 빼기
    for ax, (name, curves) in zip(axes.flat, panels.items()):
        refs = (reference or {}).get(name)
        plot_curves(x, curves, xlabel=xlabel, ylabel=name, logx=logx, logy=name in logy, reference=refs, legend=False, ax=ax)
        if refs:
            handles = [h for h in ax.get_lines() if h.get_label() in refs]
            ax.legend(handles=handles, fontsize=8, framealpha=0.9)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_axis_off()
    first = axes.flat[0]
    names = {str(k) for k in next(iter(panels.values()))}
    handles = [h for h in first.get_lines() if h.get_label() in names]
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), fontsize=9, frameon=False)
    if title:
        fig.suptitle(title)
    _attach(fig, True, f"지표 그래프 {len(panels)}개(가로축 {plain_text(xlabel)})", " ".join(getattr(fig, _ALT_PARTS)),
            title)
    return fig


def plot_saturation_grid(
    panels: Mapping[str, Tensor],
    *,
    ncols: int = 3,
    colors: Sequence[str] | None = None,
    bins: int = 20,
    threshold: float = 0.99,
    log: bool = True,
    title: str | None = None,
) -> Figure:
    """``plot_saturation_histogram``을 격자로 여러 개 그립니다 (패널 하나 = 가중치 텐서 하나).

    세로축 눈금을 모든 패널이 함께 써서 막대 높이를 바로 비교할 수 있습니다. 패널마다 범례에
    포화된 행의 비율과 평균 엔트로피가 적힙니다.

    Args:
        panels: 패널 제목 -> 가중치 텐서. 넣은 순서대로 왼쪽 위부터 채웁니다.
        ncols: 한 줄에 놓을 패널 수.
        colors: 패널마다 색 (길이가 panels와 같음). 생략하면 ``PALETTE[0]``.
        bins: ``[0, 1]`` 구간을 나눌 칸 수.
        threshold: 포화로 볼 행 최댓값 기준.
        log: 세로축을 로그 눈금으로.
        title: 그림 전체 제목.

    Returns:
        matplotlib ``Figure``.

    Shape:
        - panels의 각 값: ``(..., L, S)``
    """
    if not isinstance(panels, Mapping) or not panels:
        raise ValueError(f"panels는 비어 있지 않은 사전(제목 -> 가중치)이어야 하는데 {describe(panels)}이(가) 들어왔습니다.")
    if isinstance(ncols, bool) or not isinstance(ncols, int) or ncols < 1:
        raise ValueError(f"ncols는 1 이상의 정수여야 하는데 {ncols!r}이(가) 들어왔습니다.")
    colors = [PALETTE[0]] * len(panels) if colors is None else [str(c) for c in colors]
    if len(colors) != len(panels):
        raise ValueError(f"colors의 개수는 panels와 같은 {len(panels)}이어야 하는데 {len(colors)}개가 들어왔습니다.")
    ncols = min(ncols, len(panels))
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.3 * ncols, 3.2 * nrows + 0.4), squeeze=False,
                             sharex=True, sharey=True, layout="constrained")
    plt.close(fig)  # pyplot 자동 표시에서 빼기
    for i, (ax, (name, w)) in enumerate(zip(axes.flat, panels.items())):
        plot_saturation_histogram(w, bins=bins, threshold=threshold, title=str(name), log=log, ax=ax)
        for patch in ax.patches:
            patch.set_facecolor(colors[i])
            patch.set_edgecolor(colors[i])
        ax.legend(loc="upper center", fontsize=8, framealpha=0.9)  # 바뀐 색으로 범례를 다시 만듦
        if i % ncols:
            ax.set_ylabel("")
        if i + ncols < len(panels):
            ax.set_xlabel("")
    for ax in list(axes.flat)[len(panels):]:
        ax.set_axis_off()
    if title:
        fig.suptitle(title)
    _attach(fig, True, f"포화 히스토그램 {len(panels)}개(가로축 = 가중치 0~1, 세로축 = 개수)",
            " ".join(getattr(fig, _ALT_PARTS)), title)
    return fig
