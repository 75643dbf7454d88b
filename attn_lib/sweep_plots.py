"""스윕과 학습 기록의 그림 (seaborn): 학습률에 따른 정확도, 학습 중 포화와 기울기.

- ``plot_sweep``: ``sweep_records``의 행들로 학습률(로그 눈금)에 따른 정확도를 그립니다. 설정(헤드 수,
  스텝 수)마다 선 하나, 선은 시드들의 평균, 띠는 시드들의 최솟값~최댓값, 점은 시드 하나하나입니다.
- ``plot_training_history``: ``TrainingHistory`` 여러 개를 네 칸(첫 토큰 몫, 포화된 행의 비율, 기울기 노름,
  AdamW가 움직인 크기)에 나란히 그립니다.

seaborn의 ``set_theme``은 글꼴을 되돌리므로 부르지 않습니다. 글꼴은 ``figures``가 import될 때 한 번
설정되고, 여기서는 축 하나하나에 seaborn 함수만 씁니다.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

from ._checks import describe
from .figures import PALETTE, plain_log_ticks, set_alt
from .head_training import TrainingHistory

__all__ = ["plot_sweep", "plot_training_history", "sweep_label"]

_REQUIRED = ("헤드 수", "학습률", "스텝", "시드", "정확도")


def sweep_label(num_heads: int, steps: int, base_steps: int) -> str:
    """그림과 표에서 설정 하나를 부르는 이름: ``"헤드 1개"``, 스텝이 다르면 ``"헤드 1개 · 900스텝"``.

    Shape:
        - 해당 없음 (문자열)
    """
    return f"헤드 {num_heads}개" + ("" if steps == base_steps else f" · {steps}스텝")


def _frame(records: Sequence[Mapping[str, float | int]]) -> pd.DataFrame:
    if isinstance(records, pd.DataFrame):
        frame = records.copy()
    elif isinstance(records, Sequence) and records and all(isinstance(r, Mapping) for r in records):
        frame = pd.DataFrame(list(records))
    else:
        raise TypeError(f"records는 sweep_records가 만든 행(사전)의 목록이어야 하는데 {describe(records)}이(가) 들어왔습니다.")
    missing = [c for c in _REQUIRED if c not in frame.columns]
    if missing:
        raise ValueError(f"records의 행에 {missing} 열이 없습니다 (sweep_records(runs)를 넘기세요).")
    if not frame["정확도"].between(0, 1).all() or not (frame["학습률"] > 0).all():
        raise ValueError("정확도는 0~1, 학습률은 양수여야 합니다.")
    return frame


def plot_sweep(
    records: Sequence[Mapping[str, float | int]],
    *,
    ceilings: Mapping[str, float] | None = None,
    title: str | None = None,
) -> Figure:
    """학습률(로그 눈금)에 따른 평가 정확도. 설정마다 선 하나, 시드들은 띠(최솟값~최댓값)와 점.

    Args:
        records: ``sweep_records(runs)``의 행들 (또는 같은 열의 ``DataFrame``).
        ceilings: 이름 -> 정확도. 가로 점선으로 그립니다 (예: ``{"첫 토큰만 알 때 최대": 0.31}``).
        title: 제목.

    Returns:
        matplotlib ``Figure`` (한국어 대체 텍스트 포함).

    Shape:
        - records: 실행마다 한 행 (``헤드 수``, ``학습률``, ``스텝``, ``시드``, ``정확도``)
    """
    frame = _frame(records)
    base_steps = int(frame["스텝"].mode().iloc[0])
    frame["설정"] = [sweep_label(int(h), int(s), base_steps) for h, s in zip(frame["헤드 수"], frame["스텝"])]
    order = sorted(frame["설정"].unique(), key=lambda name: (name.count("·"), int(name.split()[1][:-1])))
    colors = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(order)}
    dashes = {name: (4, 2) if "·" in name else "" for name in order}
    fig, ax = plt.subplots(figsize=(6.4, 4.0), layout="constrained")
    plt.close(fig)  # pyplot 자동 표시에서 빼기
    sns.lineplot(
        data=frame, x="학습률", y="정확도", hue="설정", hue_order=order, palette=colors, style="설정",
        style_order=order, dashes=dashes, markers=False, estimator="mean", errorbar=("pi", 100), ax=ax,
        err_kws={"alpha": 0.15, "linewidth": 0},
    )
    for line, name in zip(ax.get_lines(), order):  # seaborn은 hue_order 순서로 선을 하나씩 그림
        line.set_gid(f"mean-{name}")
    # 시드 하나하나: 설정마다 로그 눈금에서 조금씩 옆으로 비켜 찍어 겹치지 않게 합니다.
    for i, name in enumerate(order):
        part = frame[frame["설정"] == name]
        shift = 10 ** ((i - (len(order) - 1) / 2) * 0.025)
        ax.scatter(part["학습률"] * shift, part["정확도"], s=16, color=colors[name], alpha=0.85, zorder=3,
                   clip_on=False, linewidths=0, gid=f"seeds-{name}")
    for j, (label, value) in enumerate((ceilings or {}).items()):
        ax.axhline(float(value), color="#333333", linestyle=("--", ":")[j % 2], linewidth=1.1,
                   label=f"{label} ({value:.3f})", gid=f"ceiling-{j}")
    rates = sorted(frame["학습률"].unique())
    ax.set_xscale("log")
    ax.set_xticks(rates, [f"{r:g}" for r in rates])
    ax.minorticks_off()
    ax.set_ylim(0, 1.03)
    ax.set_xlabel("학습률 (로그 눈금)")
    ax.set_ylabel("평가 정확도")
    ax.legend(loc="lower left", fontsize=8.5, frameon=True)
    if title:
        ax.set_title(title)
    worst = frame.groupby("설정")["정확도"].min()
    solved = {
        name: [r for r in rates if frame[(frame["설정"] == name) & (frame["학습률"] == r)]["정확도"].min() >= 0.95]
        for name in order
    }
    set_alt(fig, f"학습률 {len(rates)}개({rates[0]:g}~{rates[-1]:g})에 따른 평가 정확도, 시드 {frame['시드'].nunique()}개. "
                 "모든 시드가 0.95 이상인 학습률: "
                 + "; ".join(f"{n}: {', '.join(f'{r:g}' for r in solved[n]) or '없음'}" for n in order)
                 + ". 가장 낮은 정확도: " + ", ".join(f"{n} {worst[n]:.2f}" for n in order) + ".")
    return fig


def plot_training_history(histories: Mapping[str, TrainingHistory], *, title: str | None = None) -> Figure:
    """학습 중 기록 여러 개를 네 칸에 나란히: 첫 토큰 몫(헤드 가운데 가장 큰 값), 포화된 행의 비율,
    ``W_q``/``W_k``에 닿은 기울기의 노름(로그), AdamW가 움직인 크기 ``|Δθ|/lr``(로그).

    Args:
        histories: 이름 -> ``TrainingHistory`` (``train_with_history``나 ``SweepRun.history``).
        title: 그림 전체의 제목.

    Returns:
        matplotlib ``Figure`` (한국어 대체 텍스트 포함).

    Shape:
        - 각 기록: 길이 ``N``의 필드들 (``N``은 기록마다 달라도 됨)
    """
    if not isinstance(histories, Mapping) or not histories:
        raise ValueError(f"histories는 비어 있지 않은 사전(이름 -> TrainingHistory)이어야 하는데 {describe(histories)}이(가) 들어왔습니다.")
    for name, h in histories.items():
        if not isinstance(h, TrainingHistory) or not h.step:
            raise TypeError(f"histories[{name!r}]는 기록이 있는 TrainingHistory여야 하는데 {describe(h)}이(가) 들어왔습니다.")
    panels = [
        ("첫 토큰 몫 (가장 큰 헤드)", lambda h: [max(s) for s in h.first_share], False),
        ("포화된 행의 비율 (최댓값 ≥ 0.99)", lambda h: list(h.saturated), False),
        ("W_q, W_k에 닿은 기울기 노름", lambda h: list(h.grad_norm), True),
        ("AdamW가 움직인 크기 |Δθ| / lr", lambda h: list(h.update_per_lr), True),
    ]
    fig, axes = plt.subplots(2, 2, figsize=(7.2, 5.2), layout="constrained", sharex=True)
    plt.close(fig)
    for ax, (label, pick, log) in zip(axes.flat, panels):
        for i, (name, h) in enumerate(histories.items()):
            values = np.asarray(pick(h), dtype=float)
            if log:
                values = np.maximum(values, 1e-8)  # 0은 로그 눈금에 그릴 수 없어 바닥값으로
            sns.lineplot(x=list(h.step), y=values, ax=ax, color=PALETTE[i % len(PALETTE)], label=name, linewidth=1.5)
        ax.set_title(label, fontsize=10)
        ax.set_yscale("log" if log else "linear")
        if log:
            plain_log_ticks(ax.yaxis, 10, np.concatenate([np.maximum(np.asarray(pick(h), float), 1e-8) for h in histories.values()]))
        else:
            ax.set_ylim(-0.03, 1.03)
        ax.get_legend().remove()
    for ax in axes[1]:
        ax.set_xlabel("학습 스텝")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="outside lower center", ncols=min(3, len(labels)), fontsize=9)
    if title:
        fig.suptitle(title)
    parts = []
    for name, h in histories.items():
        grad = np.asarray(h.grad_norm)
        parts.append(f"{name}: 마지막 포화 비율 {h.saturated[-1]:.2f}, 기울기 노름 최대 {grad.max():.2g} 마지막 {grad[-1]:.2g}")
    set_alt(fig, "학습 중 첫 토큰 몫, 포화된 행의 비율, 기울기 노름, AdamW 이동 크기: " + "; ".join(parts) + ".")
    return fig

