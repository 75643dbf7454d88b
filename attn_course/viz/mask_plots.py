"""마스크 그림: bool 마스크 격자, 시퀀스별 어텐션 히트맵 (matplotlib만 사용).

- ``plot_mask``: 마스크를 두 색(``MASK_COLORS``) 격자로 (배치면 시퀀스마다 패널 하나).
- ``plot_batch_heatmaps``: 한 헤드의 가중치를 시퀀스마다 히트맵으로 (``mask``를 주면 차단된 칸에 빗금).

헤드 수별 정확도 그림(``plot_head_accuracy``)은 학습 실험 그림과 함께 ``sweep_plots``에,
헤드별 히트맵과 포화 그림은 ``plots``에, 곡선은 ``curves``에, 한글 글꼴과 공통 색과 대체 텍스트 장치는 ``figures``에
있습니다. 이 모듈을 import하면 ``figures``를 거쳐 한글 글꼴이 한 번 설정됩니다.

그림 함수는 모두 ``Figure``를 돌려줍니다. pyplot의 자동 표시 목록에서는 빼 두었으므로
노트북 셀의 마지막 식으로 두거나 ``display(fig)``로 한 번만 보입니다. 그림 함수는 모두 데이터에서 계산한
한국어 대체 텍스트(``get_alt``)를 그림에 붙입니다.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure
from torch import Tensor

from attn_lib._checks import describe
from .describe import describe_head
from .describe_values import describe_mask
from .figures import HEATMAP_CMAP, PALETTE, TEXT_PT, _attach, _check_cmap, _labels, _to_numpy
from .layout import grid_layout
from .phone import in_phone_layout, reflowable

__all__ = ["plot_mask", "plot_batch_heatmaps", "MASK_COLORS"]


#: 마스크 그림의 두 색: 참여 가능은 파랑(Okabe-Ito), 차단은 밝은 회색.
#: 색상뿐 아니라 밝기도 크게 달라서 색각 이상이 있거나 흑백으로 인쇄해도 구분됩니다.
MASK_COLORS = {"참여 가능": PALETTE[0], "차단": "#DDDDDD"}


def _panel_labels(labels: object, panels: int, n: int, name: str) -> list[list[str]]:
    """공통 이름 목록(문자열 목록) 또는 패널별 이름 목록(목록의 목록)을 패널별 목록으로 맞춥니다."""
    if labels is None:
        return [[str(i) for i in range(n)] for _ in range(panels)]
    labels = list(labels)
    if labels and all(not isinstance(x, str) and isinstance(x, Sequence) for x in labels):
        if len(labels) != panels:
            raise ValueError(f"{name}을(를) 패널별로 주려면 {panels}개여야 하는데 {len(labels)}개가 들어왔습니다.")
        return [_labels(x, n, f"{name}[{i}]") for i, x in enumerate(labels)]
    shared = _labels(labels, n, name)
    return [shared for _ in range(panels)]


def _as_panels(x: Tensor, name: str) -> Tensor:
    """``(L, S)``, ``(B, L, S)``, ``(B, 1, L, S)``를 패널 축이 맨 앞인 ``(P, L, S)``로 맞춥니다."""
    if x.dim() == 2:
        return x[None]  # (L, S) -> (1, L, S)
    if x.dim() == 3:
        return x
    if x.dim() == 4:
        if x.shape[1] != 1:
            raise ValueError(
                f"{name}의 헤드 축이 {x.shape[1]}입니다. 헤드를 하나 골라 {name}[:, h:h+1]처럼 (B, 1, L, S)로 넘기세요."
            )
        return x[:, 0]  # (B, 1, L, S) -> (B, L, S)
    raise ValueError(f"{name}은(는) (L, S), (B, L, S), (B, 1, L, S) 중 하나여야 하는데 shape={tuple(x.shape)}입니다.")


def _panel_axes(panels: int, rows: int, cols: int, qlab: list[list[str]], klab: list[list[str]],
                title: str | None, extra_w: float, annotate: bool = False,
                legend: bool = True, ncols: int | None = None) -> tuple[Figure, np.ndarray, bool]:
    """패널 격자를 만듭니다. 열 수와 칸 크기는 ``grid_layout``이 그림 너비 상한 안에서 고릅니다 (최대 3열)."""
    longest = max((len(s) for labs in qlab + klab for s in labs), default=1)
    phone = in_phone_layout() and extra_w > 0  # 휴대폰용 그림: 색 막대를 아래에 (plot_batch_heatmaps)
    grid = grid_layout(panels, rows, cols, longest, annotate=annotate, ncols=ncols, max_cols=3,
                       extra_w=0.0 if phone else extra_w,
                       extra_h=(0.45 if title else 0.0) + (0.35 if legend else 0.0) + (0.5 if phone else 0.0),
                       rotate=longest > 2,
                       shared_labels=False)
    fig, axes = plt.subplots(grid.nrows, grid.ncols, figsize=grid.figsize, squeeze=False, layout="constrained")
    plt.close(fig)  # pyplot 자동 표시에서 빼기: 돌려준 그림만 한 번 보이도록
    for ax in list(axes.flat)[panels:]:
        ax.set_axis_off()
    return fig, axes, longest > 2


def _decorate(ax: matplotlib.axes.Axes, qlab: list[str], klab: list[str], rotate: bool, first_col: bool) -> None:
    ax.set_xticks(range(len(klab)), klab, rotation=60 if rotate else 0, ha="right" if rotate else "center",
                  rotation_mode="anchor" if rotate else "default", fontsize=TEXT_PT["tick"])
    ax.set_yticks(range(len(qlab)), qlab, fontsize=TEXT_PT["tick"])
    ax.set_xticks(np.arange(-0.5, len(klab)), minor=True)
    ax.set_yticks(np.arange(-0.5, len(qlab)), minor=True)
    ax.grid(which="minor", color="white", linewidth=1.2)
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel("키")
    if first_col:
        ax.set_ylabel("쿼리")


def _runs(rows: np.ndarray) -> list[tuple[int, int]]:
    """참인 자리가 이어진 묶음마다 (처음, 끝) 번호."""
    out: list[tuple[int, int]] = []
    for i in np.flatnonzero(rows):
        if out and out[-1][1] == i - 1:
            out[-1] = (out[-1][0], int(i))
        else:
            out.append((int(i), int(i)))
    return out


@reflowable
def plot_mask(
    mask: Tensor,
    query_labels: Sequence[str] | Sequence[Sequence[str]] | None = None,
    key_labels: Sequence[str] | Sequence[Sequence[str]] | None = None,
    *,
    title: str | None = None,
    panel_titles: Sequence[str] | None = None,
) -> Figure:
    """bool 마스크를 두 색 격자로 그립니다 (행 = 쿼리, 열 = 키, 파랑 = 참여 가능, 회색 = 차단).

    배치 마스크 ``(B, 1, L, S)``는 시퀀스마다 패널 하나로 그립니다. 패딩 마스크 ``(B, 1, 1, S)``처럼
    쿼리 축이 1이면 한 줄만 그리고 그 줄의 이름을 "모든 쿼리"로 적습니다(브로드캐스트로 모든
    쿼리가 같은 줄을 씁니다). 시퀀스마다 토큰이 다르면 이름을 패널별 목록의 목록으로 넘기세요.

    Args:
        mask: bool 마스크 (``True`` = 참여 가능).
        query_labels: 행 이름. 길이 ``L`` 목록 하나(모든 패널 공통) 또는 패널별 목록의 목록.
        key_labels: 열 이름. 길이 ``S`` 목록 하나 또는 패널별 목록의 목록.
        title: 그림 전체 제목.
        panel_titles: 패널별 제목 (기본: 패널이 여럿이면 "시퀀스 0", "시퀀스 1", ...).

    Returns:
        matplotlib ``Figure``. 범례에 "참여 가능"과 "차단"이 있습니다.

    Shape:
        - mask: ``(L, S)``, ``(B, L, S)``, ``(B, 1, L, S)`` 또는 ``(B, 1, 1, S)``
    """
    if not isinstance(mask, Tensor) or mask.dtype != torch.bool:
        raise TypeError(
            f"mask는 bool 텐서여야 하는데 {describe(mask)}이(가) 들어왔습니다. "
            "덧셈 마스크(float)라면 mask == 0처럼 참여 가능한 자리를 bool로 만들어 넘기세요."
        )
    m = _as_panels(mask, "mask").cpu().numpy()
    P, Lm, S = m.shape
    if Lm == 1 and query_labels is None:
        query_labels = ["모든 쿼리"]
    qlab = _panel_labels(query_labels, P, Lm, "query_labels")
    klab = _panel_labels(key_labels, P, S, "key_labels")
    names = _labels(panel_titles, P, "panel_titles") if panel_titles is not None else (
        [f"시퀀스 {b}" for b in range(P)] if P > 1 else [""]
    )
    fig, axes, rotate = _panel_axes(P, Lm, S, qlab, klab, title, 0.0)
    cmap = matplotlib.colors.ListedColormap([MASK_COLORS["차단"], MASK_COLORS["참여 가능"]])
    ncols = axes.shape[1]
    for p, ax in enumerate(list(axes.flat)[:P]):
        ax.imshow(m[p].astype(np.int8), cmap=cmap, vmin=0, vmax=1, aspect="auto", interpolation="nearest")
        _decorate(ax, qlab[p], klab[p], rotate, p % ncols == 0)
        if names[p]:
            ax.set_title(names[p], fontsize=TEXT_PT["panel_title"])
    handles = [matplotlib.patches.Patch(facecolor=color, edgecolor="#888888", label=label)
               for label, color in MASK_COLORS.items()]
    fig.legend(handles=handles, loc="outside lower center", ncols=2, fontsize=TEXT_PT["legend"], frameon=False)
    if title:
        fig.suptitle(title)
    summaries = [describe_mask(torch.from_numpy(m[p]), None, klab[p] if key_labels is not None else None)
                 for p in range(P)]
    summary = "; ".join(f"{names[p]}: {s}" if names[p] else s for p, s in enumerate(summaries))
    kind = f"마스크 그림 {P}개" if P > 1 else "마스크 그림"
    rows = f"쿼리 {Lm}개" if Lm > 1 else "모든 쿼리(한 줄)"
    _attach(fig, True, f"{kind}(행 = {rows}, 열 = 키 {S}개, 파랑 = 참여 가능, 회색 = 차단)", summary, title)
    return fig


@reflowable
def plot_batch_heatmaps(
    weights: Tensor,
    query_labels: Sequence[str] | Sequence[Sequence[str]] | None = None,
    key_labels: Sequence[str] | Sequence[Sequence[str]] | None = None,
    *,
    mask: Tensor | None = None,
    title: str | None = None,
    panel_titles: Sequence[str] | None = None,
    annotate: bool = True,
    cmap: str = HEATMAP_CMAP,
    vmax: float = 1.0,
    skipped_note: str | None = None,
    ncols: int | None = None,
) -> Figure:
    """배치의 시퀀스마다 (헤드 하나의) 어텐션 가중치 히트맵을 하나씩 그립니다.

    ``plot_head_heatmaps``가 한 시퀀스의 헤드들을 나란히 놓는다면, 이 함수는 한 헤드의 시퀀스들을
    나란히 놓습니다. 시퀀스마다 토큰이 다를 수 있어서 이름을 패널별로 받습니다. ``mask``를 주면
    차단된 칸에 빗금을 긋고 값은 적지 않아, 0이 마스크 때문인지 한눈에 보입니다.

    Args:
        weights: 헤드 하나의 가중치. 멀티헤드 결과라면 ``weights[:, h]``로 헤드를 고르세요.
        query_labels: 행 이름. 목록 하나(공통) 또는 패널별 목록의 목록.
        key_labels: 열 이름. 목록 하나(공통) 또는 패널별 목록의 목록.
        mask: 선택. 가중치에 쓴 bool 마스크 (``True`` = 참여 가능). ``(B, L, S)``로 브로드캐스트되어야 합니다.
        title: 그림 전체 제목.
        panel_titles: 패널별 제목 (기본 "시퀀스 0", "시퀀스 1", ...).
        annotate: 참여 가능한 칸마다 값을 적을지.
        cmap: 색지도 (기본 viridis; ``SAFE_CMAPS`` 중 하나).
        vmax: 색 범위의 최댓값.
        skipped_note: 값이 모두 NaN인 행(일부러 그리지 않은 행, 예: 디코더 쪽 패딩 위치)이 무엇인지 그 빈자리 가운데에
            적을 글. 주면 그 행에는 빗금도 긋지 않습니다. 없으면 빈 행이 빠진 데이터처럼 보이므로, NaN 행을
            그릴 때는 주세요.
        ncols: 한 줄에 놓을 패널 수 (기본: 그림 너비 상한 안에 드는 만큼, 최대 3; 휴대폰용 그림은 늘 들어가는 만큼).

    Returns:
        matplotlib ``Figure``. 대체 텍스트에 시퀀스마다 ``describe_head``의 요약이 있습니다.

    Shape:
        - weights: ``(B, L, S)``, ``(B, 1, L, S)`` 또는 ``(L, S)``
        - mask: ``(L, S)``, ``(B, 1, 1, S)``, ``(B, 1, L, S)`` 등 ``(B, L, S)``로 브로드캐스트되는 모양
    """
    _check_cmap(cmap)
    w = _to_numpy(_as_panels(weights, "weights") if isinstance(weights, Tensor) else weights)
    if w.ndim != 3:
        raise ValueError(f"weights는 (B, L, S) 모양이어야 하는데 shape={w.shape}입니다.")
    P, L, S = w.shape
    blocked = np.zeros((P, L, S), dtype=bool)
    if mask is not None:
        if not isinstance(mask, Tensor) or mask.dtype != torch.bool:
            raise TypeError(f"mask는 bool 텐서여야 하는데 {describe(mask)}이(가) 들어왔습니다.")
        m = mask[:, 0] if mask.dim() == 4 and mask.shape[1] == 1 else mask  # (B, 1, L|1, S) -> (B, L|1, S)
        try:
            blocked = ~torch.broadcast_to(m, (P, L, S)).cpu().numpy()
        except RuntimeError:
            raise ValueError(
                f"mask shape={tuple(mask.shape)}이(가) 가중치 (B, L, S)=({P}, {L}, {S})로 브로드캐스트되지 않습니다."
            ) from None
    qlab = _panel_labels(query_labels, P, L, "query_labels")
    klab = _panel_labels(key_labels, P, S, "key_labels")
    names = _labels(panel_titles, P, "panel_titles") if panel_titles is not None else [f"시퀀스 {b}" for b in range(P)]
    if skipped_note is not None and (not isinstance(skipped_note, str) or not skipped_note.strip()):
        raise TypeError(f"skipped_note는 비어 있지 않은 글이어야 하는데 {describe(skipped_note)}이(가) 들어왔습니다.")
    skipped = np.isnan(w).all(axis=2) if skipped_note else np.zeros((P, L), dtype=bool)  # (B, L): 그리지 않은 행
    blocked &= ~skipped[:, :, None]  # 그리지 않은 행에는 빗금도 없음: (B, L, S) & (B, L, 1) -> (B, L, S)
    fig, axes, rotate = _panel_axes(P, L, S, qlab, klab, title, 0.9, annotate=annotate, legend=mask is not None,
                                    ncols=ncols)
    ncols = axes.shape[1]
    image = None
    for p, ax in enumerate(list(axes.flat)[:P]):
        image = ax.imshow(w[p], cmap=cmap, vmin=0.0, vmax=vmax, aspect="auto", interpolation="nearest")
        _decorate(ax, qlab[p], klab[p], rotate, p % ncols == 0)
        ax.set_title(names[p], fontsize=TEXT_PT["panel_title"])
        for first, last in _runs(skipped[p]):  # 빈 행 묶음마다 가운데에 그 자리가 무엇인지
            ax.text((S - 1) / 2, (first + last) / 2, skipped_note, ha="center", va="center", color="#444444",
                    fontsize=TEXT_PT["annotation"], linespacing=1.3)
        for i, j in zip(*np.nonzero(blocked[p])):
            ax.add_patch(matplotlib.patches.Rectangle(
                (j - 0.5, i - 0.5), 1, 1, fill=False, hatch="////", edgecolor="#BBBBBB", linewidth=0))
        if annotate:
            for i, j in zip(*np.nonzero(~blocked[p] & ~skipped[p][:, None])):  # (L, S) & (L, 1) -> (L, S)
                ax.text(j, i, f"{w[p, i, j]:.2f}", ha="center", va="center", fontsize=TEXT_PT["annotation"],
                        color="black" if w[p, i, j] > 0.6 * vmax else "white")
    fig.colorbar(image, ax=axes, shrink=0.8, label="어텐션 가중치",
                 location="bottom" if in_phone_layout() else "right")  # 휴대폰용 그림은 아래 (_panel_axes)
    if mask is not None:
        hatch = matplotlib.patches.Patch(facecolor="#440154", edgecolor="#BBBBBB", hatch="////", label="차단 (가중치 0)")
        fig.legend(handles=[hatch], loc="outside lower center", fontsize=TEXT_PT["legend"], frameon=False)
    if title:
        fig.suptitle(title)
    summary = "; ".join(f"{names[p]}: {describe_head(w[p], qlab[p] if query_labels is not None else None, klab[p] if key_labels is not None else None)}"
                        for p in range(P))
    hatched = f", 빗금 = 차단된 칸 {int(blocked.sum())}개" if mask is not None else ""
    if skipped.any():
        note = " ".join(skipped_note.split())
        hatched += f", 그리지 않은 행 {int(skipped.sum())}개: {note}"
    _attach(fig, True, f"시퀀스별 어텐션 가중치 히트맵 {P}개(행 = 쿼리 {L}개, 열 = 키 {S}개{hatched})", summary, title)
    return fig
