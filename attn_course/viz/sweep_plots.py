"""학습 실험의 그림: 스윕(seaborn), 학습 기록, 헤드 수별 정확도.

- ``plot_head_accuracy``: 헤드 수별 시드 정확도와 정보 한계선 (한계 이름은 ``CEILING_LABELS``).

- ``plot_sweep``: ``sweep_records``의 행들로 학습률(로그 눈금)에 따른 정확도를 그립니다. 설정(헤드 수,
  스텝 수)마다 선 하나, 선은 시드들의 평균, 띠는 시드들의 최솟값~최댓값, 점은 시드 하나하나입니다.
- ``plot_training_history``: ``TrainingHistory`` 여러 개를 여섯 칸(학습 배치 정확도, 첫 토큰 몫, 이전 토큰 몫,
  포화된 행의 비율, 기울기 노름, AdamW가 움직인 크기)에 나란히 그립니다.
- 성공 비율 그림(``plot_success_rates``)은 ``success_plots``에 있습니다.

seaborn의 ``set_theme``은 글꼴을 되돌리므로 부르지 않습니다. 글꼴은 ``figures``가 import될 때 한 번
설정되고, 여기서는 축 하나하나에 seaborn 함수만 씁니다.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure

from attn_lib._checks import describe
from .describe_values import describe_accuracy
from .figures import PALETTE, TEXT_PT, _attach, _float_array, plain_log_ticks, set_alt
from .phone import PHONE_FIGURE_WIDTH_IN, fit_width, in_phone_layout, reflowable

__all__ = ["plot_sweep", "plot_training_history", "sweep_label", "plot_head_accuracy", "CEILING_LABELS"]

_REQUIRED = ("헤드 수", "학습률", "스텝", "시드", "정확도")


def sweep_label(num_heads: int, steps: int, base_steps: int) -> str:
    """그림과 표에서 설정 하나를 부르는 이름: ``"헤드 1개"``, 스텝이 다르면 ``"헤드 1개 · 900스텝"``.

    Shape:
        - 해당 없음 (문자열)
    """
    return f"헤드 {num_heads}개" + ("" if steps == base_steps else f" · {steps}스텝")


def _rows_frame(rows: object, name: str, what: str, required: Sequence[str], where: str, hint: str) -> pd.DataFrame:
    """표 인자(DataFrame 또는 사전 목록)를 DataFrame 복사본으로. 꼴이나 열이 틀리면 한국어 오류.

    ``what``은 조사까지 적습니다(예: ``"...의 목록이어야"``): 오류 문장이 "<name>는 <what> 하는데 ..."가 됩니다.
    """
    if isinstance(rows, pd.DataFrame):
        frame = rows.copy()
    elif isinstance(rows, Sequence) and rows and all(isinstance(r, Mapping) for r in rows):
        frame = pd.DataFrame(list(rows))
    else:
        raise TypeError(f"{name}는 {what} 하는데 {describe(rows)}이(가) 들어왔습니다.")
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise ValueError(f"{where} {missing} 열이 없습니다 ({hint}).")
    return frame


def _frame(records: Sequence[Mapping[str, float | int]]) -> pd.DataFrame:
    frame = _rows_frame(records, "records", "sweep_records가 만든 행(사전)의 목록이어야", _REQUIRED, "records의 행에",
                        "sweep_records(runs)를 넘기세요")
    if not frame["정확도"].between(0, 1).all() or not (frame["학습률"] > 0).all():
        raise ValueError("정확도는 0~1, 학습률은 양수여야 합니다.")
    return frame


@reflowable
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
    fig, ax = plt.subplots(figsize=(fit_width(6.4), 4.0), layout="constrained")
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
    ax.legend(loc="lower left", fontsize=TEXT_PT["legend"], frameon=True)
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


@reflowable
def plot_training_history(histories: Mapping[str, object], *, title: str | None = None) -> Figure:
    """학습 중 기록 여러 개를 여섯 칸에 나란히: 학습 배치 정확도, 첫 토큰 몫과 이전 토큰 몫(각각 헤드 가운데
    가장 큰 값), 포화된 행의 비율, ``W_q``/``W_k``에 닿은 기울기의 노름(로그), AdamW가 움직인 크기 ``|Δθ|/lr``(로그).

    로그 눈금 칸은 값을 그대로 그립니다 (바닥값으로 올리지 않음). 0 이하의 값은 로그 눈금에 그릴 수 없어 빼고,
    뺀 개수를 대체 텍스트에 적습니다.

    Args:
        histories: 이름 -> ``TrainingHistory`` (``train_with_history``, ``SweepRun.history`` 등).
        title: 그림 전체의 제목.

    Returns:
        matplotlib ``Figure`` (한국어 대체 텍스트 포함).

    Shape:
        - 각 기록: 길이 ``N``의 필드들 (``N``은 기록마다 달라도 됨)
    """
    if not isinstance(histories, Mapping) or not histories:
        raise ValueError(f"histories는 비어 있지 않은 사전(이름 -> TrainingHistory)이어야 하는데 {describe(histories)}이(가) 들어왔습니다.")
    fields = ("step", "train_accuracy", "first_share", "previous_share", "saturated", "grad_norm", "update_per_lr")
    for name, h in histories.items():  # TrainingHistory(실험 쪽 자료형)를 import하지 않고 필드로 확인
        if not all(hasattr(h, f) for f in fields) or not h.step:
            raise TypeError(f"histories[{name!r}]는 기록이 있는 TrainingHistory여야 하는데 {describe(h)}이(가) 들어왔습니다.")
    panels = [
        ("학습 배치 정확도", lambda h: list(h.train_accuracy), False),
        ("첫 토큰 몫 (가장 큰 헤드)", lambda h: [max(s) for s in h.first_share], False),
        ("이전 토큰 몫 (가장 큰 헤드)", lambda h: [max(s) for s in h.previous_share], False),
        ("포화된 행의 비율 (최댓값 ≥ 0.99)", lambda h: list(h.saturated), False),
        ("W_q, W_k에 닿은 기울기 노름", lambda h: list(h.grad_norm), True),
        ("AdamW가 움직인 크기 |Δθ| / lr", lambda h: list(h.update_per_lr), True),
    ]
    # 휴대폰용 그림은 패널 여섯을 한 열로 (phone_layout)
    shape, size = ((6, 1), (PHONE_FIGURE_WIDTH_IN, 13.0)) if in_phone_layout() else ((3, 2), (6.5, 7.4))
    fig, axes = plt.subplots(*shape, figsize=size, layout="constrained", sharex=True, squeeze=False)
    plt.close(fig)
    dropped = 0
    for ax, (label, pick, log) in zip(axes.flat, panels):
        shown = []
        for i, (name, h) in enumerate(histories.items()):
            values = np.asarray(pick(h), dtype=float)
            if log:
                dropped += int((values <= 0).sum())
                values = np.where(values > 0, values, np.nan)  # 로그 눈금에 그릴 수 없는 0은 빼고 그림
            shown.append(values)
            if log:  # matplotlib은 NaN에서 선을 끊음 (seaborn은 NaN을 빼고 양옆을 이어 버림)
                ax.plot(list(h.step), values, color=PALETTE[i % len(PALETTE)], label=name, linewidth=1.5)
            else:
                sns.lineplot(x=list(h.step), y=values, ax=ax, color=PALETTE[i % len(PALETTE)], label=name, linewidth=1.5)
        ax.set_title(label, fontsize=TEXT_PT["panel_title"])
        ax.set_yscale("log" if log else "linear")
        if log:
            plain_log_ticks(ax.yaxis, 10, np.concatenate(shown))
        else:
            ax.set_ylim(-0.03, 1.03)
        if ax.get_legend() is not None:
            ax.get_legend().remove()
    for ax in axes[-1]:
        ax.set_xlabel("학습 스텝")
    handles, labels = axes[0, 0].get_legend_handles_labels()
    ncols = 1 if in_phone_layout() else min(2, len(labels))  # 휴대폰: 긴 이름이 그림 너비를 넘지 않게 한 줄에 하나
    fig.legend(handles, labels, loc="outside lower center", ncols=ncols, fontsize=TEXT_PT["legend"])
    if title:
        fig.suptitle(title)
    parts = []
    for name, h in histories.items():
        grad = np.asarray(h.grad_norm, dtype=float)
        smallest = grad[grad > 0].min() if (grad > 0).any() else float("nan")
        parts.append(f"{name}: 정확도 {h.train_accuracy[-1]:.2f}, 몫(첫/이전) {max(h.first_share[-1]):.2f}/"
                     f"{max(h.previous_share[-1]):.2f}, 포화 {h.saturated[-1]:.2f}, 기울기 최대 {grad.max():.2g} "
                     f"최소 {smallest:.2g} 끝 {grad[-1]:.2g}")
    note = f" 0 이하라 로그 눈금에서 뺀 값 {dropped}개." if dropped else ""
    set_alt(fig, "학습 중 기록, 마지막 값: " + "; ".join(parts) + "." + note)
    return fig


#: ``relation_ceilings()``의 키를 그림에 적을 이름. 모르는 키는 그대로 적습니다.
CEILING_LABELS = {
    "first_only": "첫 토큰만 알 때 최대",
    "previous_only": "이전 토큰만 알 때 최대",
    "unordered_pair": "순서 없는 쌍만 알 때 최대",
}


def _accuracy_values(values: object, name: str) -> np.ndarray:
    """정확도 목록을 1차원 float 배열로 (비었거나 0~1 밖이면 오류)."""
    arr = _float_array(values, name, "정확도(수)")
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name}은(는) 비어 있지 않은 1차원 정확도 목록이어야 하는데 모양이 {arr.shape}입니다.")
    if not np.all(np.isfinite(arr) & (arr >= 0.0) & (arr <= 1.0)):
        raise ValueError(f"{name}의 정확도는 0~1 사이여야 하는데 {arr.tolist()}이(가) 들어왔습니다.")
    return arr


@reflowable
def plot_head_accuracy(
    table: Mapping[int, Sequence[float]],
    *,
    ceilings: Mapping[str, float] | None = None,
    title: str | None = None,
    ax: matplotlib.axes.Axes | None = None,
) -> Figure:
    """헤드 수마다 시드별 정확도(점)와 평균(가로 막대)을 그리고, 정보 한계를 점선으로 긋습니다.

    ``compare_heads``가 돌려준 표를 그대로 넘기면 됩니다. 헤드 수는 가로축에 같은 간격으로 놓고,
    같은 헤드 수의 점들은 겹치지 않게 좌우로 조금씩 벌려(시드 순서대로) 찍습니다. 세로축은 0~1로 고정합니다
    (1.0인 점이 잘리지 않게 위에 조금 여유를 둠).
    ``ceilings``에 ``relation_ceilings()``의 결과를 넘기면 ``first_only`` 같은 키를
    "첫 토큰만 알 때 최대"처럼 한국어 이름으로 바꿔 적습니다(``CEILING_LABELS``).

    Args:
        table: 헤드 수 -> 시드별 정확도 목록 (각 값은 0~1).
        ceilings: 선택. 이름 -> 최고 정확도(0~1). 이름마다 가로 점선 하나.
        title: 제목.
        ax: 그릴 축. 주면 그 축의 그림을 돌려줍니다.

    Returns:
        matplotlib ``Figure``. 점 묶음의 gid는 ``"seeds-{H}"``, 평균 막대는 ``"mean-{H}"``,
        한계선은 ``"ceiling-{이름}"``입니다.

    Shape:
        - table: ``{H: (시드 수,)}``, ceilings: ``{이름: 실수}``
    """
    if not isinstance(table, Mapping) or not table:
        raise ValueError(f"table은 비어 있지 않은 사전(헤드 수 -> 정확도 목록)이어야 하는데 {describe(table)}이(가) 들어왔습니다.")
    for h in table:
        if isinstance(h, bool) or not isinstance(h, (int, np.integer)) or h < 1:
            raise ValueError(f"table의 키는 1 이상의 정수(헤드 수)여야 하는데 {h!r}이(가) 들어왔습니다.")
    rows = {int(h): _accuracy_values(v, f"table[{h}]") for h, v in sorted(table.items())}
    lines = {}
    for name, value in (ceilings or {}).items():
        if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)) or not 0.0 <= value <= 1.0:
            raise ValueError(f"ceilings[{name!r}]은(는) 0~1 사이의 실수여야 하는데 {value!r}이(가) 들어왔습니다.")
        lines[str(name)] = float(value)
    own_figure = ax is None
    if ax is None:
        fig, ax = plt.subplots(figsize=(fit_width(6.4), 4.2), layout="constrained")
        plt.close(fig)  # pyplot 자동 표시에서 빼기
    fig = ax.figure
    styles = ("--", ":", "-.", (0, (5, 1, 1, 1)))
    for i, (name, value) in enumerate(lines.items()):
        ax.axhline(value, linestyle=styles[i % len(styles)], color="#555555", linewidth=1.3,
                   label=f"{CEILING_LABELS.get(name, name)} ({value:.3f})", gid=f"ceiling-{name}", zorder=1)
    for i, (h, accs) in enumerate(rows.items()):
        n = len(accs)
        offsets = np.linspace(-0.12, 0.12, n) if n > 1 else np.zeros(1)
        ax.scatter(i + offsets, accs, s=36, color=PALETTE[0], edgecolor="white", linewidth=0.6, zorder=3,
                   clip_on=False, gid=f"seeds-{h}", label="시드별 정확도" if i == 0 else None)
        mean = float(accs.mean())
        ax.plot([i - 0.25, i + 0.25], [mean, mean], color="black", linewidth=2.2, zorder=2,
                gid=f"mean-{h}", label="평균" if i == 0 else None)
        ax.annotate(f"평균 {mean:.3f}", (i + 0.27, mean), xytext=(3, 0), textcoords="offset points",
                    va="center", fontsize=TEXT_PT["annotation"], bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0, "alpha": 0.85})
    ax.set_xticks(range(len(rows)), [str(h) for h in rows])
    ax.set_xlim(-0.6, len(rows) - 0.25)  # 마지막 "평균" 글자가 들어갈 자리
    ax.set_ylim(0.0, 1.04)  # 정확도 1.0인 점이 위 테두리에 잘리지 않도록 조금 여유를 둠
    ax.set_yticks(np.linspace(0.0, 1.0, 6))
    ax.set_xlabel("헤드 수 H")
    ax.set_ylabel("평가 정확도")
    ax.grid(True, axis="y", alpha=0.3)
    if own_figure:
        fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=2, fontsize=TEXT_PT["legend"], frameon=False)
    else:
        ax.legend(fontsize=TEXT_PT["legend"], framealpha=0.9)
    if title:
        ax.set_title(title)
    summary = describe_accuracy(rows, {CEILING_LABELS.get(n, n): v for n, v in lines.items()})
    _attach(fig, own_figure, "헤드 수별 평가 정확도(점 = 시드, 가로 막대 = 평균, 점선 = 정보 한계)", summary, title,
            "정확도")
    return fig
