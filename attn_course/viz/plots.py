"""그림: 헤드별 히트맵, 포화 히스토그램, 포화 격자 (matplotlib만 사용).

측정 곡선과 지표 패널(``plot_curves``, ``plot_metric_panels``)은 ``curves``에 있습니다.

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

from attn_lib._checks import describe
from .describe import describe_heads
from .describe_values import describe_saturation
from .figures import HEATMAP_CMAP, PALETTE, TEXT_PT, _ALT_PARTS, _attach, _check_cmap, _labels, _to_numpy
from .layout import grid_layout
from .phone import fit_width, in_phone_layout, panel_columns, reflowable
from attn_lib.metrics import attention_entropy, saturation

__all__ = [
    "plot_head_heatmaps",
    "plot_saturation_histogram",
    "plot_saturation_grid",
]


@reflowable
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
        ncols: 한 줄에 놓을 헤드 수 (기본: 그림 너비가 ``MAX_FIGURE_WIDTH_IN`` 안에 드는 가장 많은 수, 최대 4).
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
    longest = max((len(s) for s in qlab + klab), default=1)
    rotate = longest > 2
    phone = in_phone_layout()  # 휴대폰용 그림: 색 막대를 옆이 아니라 아래에 (가로 폭을 칸에 씀)
    grid = grid_layout(H, L, S, longest, annotate=annotate, ncols=ncols, extra_w=0.0 if phone else 0.9,
                       extra_h=(0.45 if title else 0.1) + (0.5 if phone else 0.0), rotate=rotate)
    ncols, nrows = grid.ncols, grid.nrows
    fig, axes = plt.subplots(nrows, ncols, figsize=grid.figsize, squeeze=False, layout="constrained")
    plt.close(fig)  # pyplot 자동 표시에서 빼기: 돌려준 그림만 한 번 보이도록
    image = None
    for h, ax in enumerate(axes.flat):
        if h >= H:
            ax.set_axis_off()
            continue
        image = ax.imshow(w[h], cmap=cmap, vmin=0.0, vmax=vmax, aspect="auto", interpolation="nearest")
        ax.set_title(names[h], fontsize=TEXT_PT["panel_title"])
        bottom = h // ncols == nrows - 1 or h + ncols >= H  # 아래에 패널이 없는 칸만 가로 눈금 이름
        first = h % ncols == 0  # 첫 열만 세로 눈금 이름 (모든 헤드의 쿼리 이름이 같음)
        ax.set_xticks(range(S), klab if bottom else [""] * S, rotation=60 if rotate else 0,
                      ha="right" if rotate else "center", rotation_mode="anchor" if rotate else "default",
                      fontsize=TEXT_PT["tick"])
        ax.set_yticks(range(L), qlab if first else [""] * L, fontsize=TEXT_PT["tick"])
        if first:
            ax.set_ylabel("쿼리")
        if bottom:
            ax.set_xlabel("키")
        if annotate:
            for i in range(L):
                for j in range(S):
                    ax.text(j, i, f"{w[h, i, j]:.2f}", ha="center", va="center", fontsize=TEXT_PT["annotation"],
                            color="black" if w[h, i, j] > 0.6 * vmax else "white")
    fig.colorbar(image, ax=axes, shrink=0.8, label="어텐션 가중치", location="bottom" if phone else "right")
    if title:
        fig.suptitle(title)
    kind = f"헤드별 어텐션 가중치 히트맵 {H}개" if H > 1 else "어텐션 가중치 히트맵"
    lines = describe_heads(w, qlab if query_labels is not None else None, klab if key_labels is not None else None,
                           head_names=names)
    _attach(fig, True, f"{kind}(행 = 쿼리 {L}개, 열 = 키 {S}개, 밝을수록 큰 가중치)", "; ".join(lines), title)
    return fig


@reflowable
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
        fig, ax = plt.subplots(figsize=(fit_width(6.0), 3.6), layout="constrained")
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
    ax.legend(loc="upper center", fontsize=TEXT_PT["legend"], framealpha=0.9)
    if title:
        ax.set_title(title)
    summary = "; ".join(f"'{name}' {describe_saturation(w.detach(), threshold)}" if name
                        else describe_saturation(w.detach(), threshold) for name, w in series.items())
    kind = "어텐션 가중치 히스토그램" + (f" {len(series)}개 겹침" if not single else "")
    _attach(fig, own_figure, f"{kind}(가로축 = 가중치 0~1, 세로축 = 개수)", summary, title, "히스토그램")
    return fig


@reflowable
def plot_saturation_grid(
    panels: Mapping[str, Tensor],
    *,
    ncols: int = 2,
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
    ncols = panel_columns(min(ncols, len(panels)))  # 휴대폰용 그림은 한 열
    nrows = math.ceil(len(panels) / ncols)
    fig, axes = plt.subplots(nrows, ncols, figsize=(fit_width(3.25 * ncols), 2.8 * nrows + 0.5), squeeze=False,
                             sharex=True, sharey=True, layout="constrained")
    plt.close(fig)  # pyplot 자동 표시에서 빼기
    for i, (ax, (name, w)) in enumerate(zip(axes.flat, panels.items())):
        plot_saturation_histogram(w, bins=bins, threshold=threshold, title=str(name), log=log, ax=ax)
        for patch in ax.patches:
            patch.set_facecolor(colors[i])
            patch.set_edgecolor(colors[i])
        ax.legend(loc="upper center", fontsize=TEXT_PT["legend"], framealpha=0.9)  # 바뀐 색으로 범례를 다시 만듦
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
