"""스윕의 성공 비율 그림 (seaborn): 학습률(로그 눈금)에 따른 성공 비율, 설정마다 선 하나와 95 % 구간의 띠.

표(성공 비율과 윌슨 구간)는 실험 쪽(``attn_course.experiments.success_rows``)이 계산하고, 여기서는 그리기만 합니다
(viz는 experiments를 import하지 않음). 학습률 격자에서 이웃하지 않은 학습률은 선으로 잇지 않습니다: 돌리지 않은
학습률을 가로지르는 선은 없는 값을 보여 주기 때문입니다.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import seaborn as sns
from matplotlib.figure import Figure
from matplotlib.ticker import FixedLocator, NullFormatter

from .figures import PALETTE, TEXT_PT, set_alt
from .phone import fit_width, in_phone_layout, reflowable
from .sweep_plots import _rows_frame

__all__ = ["plot_success_rates"]

_COLUMNS = ("설정", "학습률", "성공 비율", "구간 아래", "구간 위")


def _table(rows: object) -> pd.DataFrame:
    frame = _rows_frame(rows, "rows", "성공 비율 표(DataFrame 또는 사전 목록)여야", _COLUMNS, "rows에",
                        "설정, 학습률, 성공 비율, 구간 아래, 구간 위가 필요")
    values = frame[["성공 비율", "구간 아래", "구간 위"]].to_numpy(float)
    if not np.all((values >= 0) & (values <= 1)) or not np.all(values[:, 1] <= values[:, 0] + 1e-12) \
            or not np.all(values[:, 0] <= values[:, 2] + 1e-12) or not (frame["학습률"] > 0).all():
        raise ValueError("성공 비율과 구간은 0~1이고 구간 아래 <= 성공 비율 <= 구간 위, 학습률은 양수여야 합니다.")
    return frame


@reflowable
def plot_success_rates(
    rows: object,
    *,
    grid: Sequence[float] | None = None,
    half_rates: Mapping[str, float | None] | None = None,
    title: str | None = None,
) -> Figure:
    """학습률에 따른 성공 비율. 설정마다 선(``sns.lineplot``)과 95 % 구간의 띠, 0.5 가로 점선.

    Args:
        rows: 설정과 학습률마다 한 행: ``설정``(이름), ``학습률``, ``성공 비율``, ``구간 아래``, ``구간 위``.
        grid: 학습률 격자 (이웃한 학습률만 선으로 이음; 기본은 ``rows``에 있는 학습률 전체).
        half_rates: 선택. 설정 이름 -> 성공 비율이 0.5로 떨어지는 학습률. 0.5 선 위에 마름모로 찍습니다.
        title: 제목.

    Returns:
        matplotlib ``Figure`` (한국어 대체 텍스트 포함). 선의 gid는 ``"rate-{설정}-{구간 번호}"``, 띠는
        ``"band-{설정}-{구간 번호}"``, 마름모는 ``"half-{설정}"``입니다.

    Shape:
        - rows: ``(설정 수 x 학습률 수)``행 이하
    """
    frame = _table(rows)
    grid = sorted(frame["학습률"].unique()) if grid is None else sorted(float(r) for r in grid)
    index = {r: i for i, r in enumerate(grid)}
    if not set(frame["학습률"]) <= set(index):
        raise ValueError(f"grid에 없는 학습률이 rows에 있습니다: {sorted(set(frame['학습률']) - set(index))}")
    order = list(dict.fromkeys(frame["설정"]))
    colors = {name: PALETTE[i % len(PALETTE)] for i, name in enumerate(order)}
    frame = frame.sort_values(["설정", "학습률"]).copy()
    # 이웃한 격자 칸끼리만 같은 조각: 칸 번호에서 순번을 빼면 이어진 칸들은 같은 값이 됨
    frame["조각"] = [f"{name}-{index[r] - k}" for name, part in frame.groupby("설정", sort=False)
                     for k, r in enumerate(part["학습률"])]
    size = (fit_width(6.4), 5.2 if in_phone_layout() else 4.3)
    fig, ax = plt.subplots(figsize=size, layout="constrained")
    plt.close(fig)  # pyplot 자동 표시에서 빼기
    ax.axhline(0.5, color="#555555", linestyle=":", linewidth=1.1, zorder=1, gid="half-line")
    for name in order:
        part = frame[frame["설정"] == name]
        dashed = "·" in name
        for k, (piece, seg) in enumerate(part.groupby("조각", sort=False)):
            x, y = seg["학습률"].to_numpy(), seg["성공 비율"].to_numpy()
            low, high = seg["구간 아래"].to_numpy(), seg["구간 위"].to_numpy()
            if len(seg) > 1:  # 이어진 칸: 띠
                ax.fill_between(x, low, high, color=colors[name], alpha=0.15, linewidth=0, gid=f"band-{name}-{k}")
            else:  # 홀로 떨어진 학습률: 띠 대신 세로 막대
                ax.errorbar(x, y, yerr=[np.maximum(y - low, 0), np.maximum(high - y, 0)], color=colors[name], linewidth=1.2, capsize=3,
                            linestyle="none", gid=f"band-{name}-{k}")
            sns.lineplot(x=x, y=y, ax=ax, color=colors[name], linestyle="--" if dashed else "-",
                         marker="s" if dashed else "o", markersize=6 if dashed else 5, linewidth=1.8,
                         label=name if k == 0 else None, gid=f"rate-{name}-{k}")
    for name, rate in (half_rates or {}).items():
        if rate is not None:
            ax.plot([rate], [0.5], marker="D", markersize=8, color=colors.get(name, "#333333"),
                    markeredgecolor="white", linestyle="none", zorder=4, gid=f"half-{name}")
    ax.set_xscale("log")
    # 학습률이 8개 이하면 모두 이름을 적고, 더 많으면 1, 2, 5 x 10^k인 것만 (나머지는 이름 없는 작은 눈금)
    labelled = grid if len(grid) <= 8 else [r for r in grid if f"{r:.0e}"[0] in "125" and float(f"{r:.0e}") == r]
    ax.xaxis.set_major_locator(FixedLocator(labelled or grid))
    ax.set_xticks(labelled or grid, [f"{r:g}" for r in labelled or grid])
    ax.xaxis.set_minor_locator(FixedLocator(grid))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_xlim(grid[0] / 1.15, grid[-1] * 1.15)
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel("학습률 (로그 눈금, 눈금 = 돌린 학습률)")
    ax.set_ylabel("성공 비율 (띠: 95 % 구간)")
    ax.grid(True, axis="y", alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    ax.get_legend().remove()
    fig.legend(handles, labels, loc="outside lower center", ncols=2 if in_phone_layout() else min(4, len(labels)),
               fontsize=TEXT_PT["legend"], frameon=False)
    if title:
        ax.set_title(title)
    parts = []
    for name in order:
        part = frame[frame["설정"] == name]
        best = part[part["성공 비율"] == part["성공 비율"].max()]["학습률"]
        half = (half_rates or {}).get(name)
        where = f"{best.min():g}" if best.min() == best.max() else f"{best.min():g}~{best.max():g}"
        parts.append(f"{name}: 최고 {part['성공 비율'].max():.1f}(학습률 {where})"
                     + (f", 0.5 지점 약 {half:.2g}" if half else "")
                     + f", {part['학습률'].max():g}에서 {part.loc[part['학습률'].idxmax(), '성공 비율']:.1f}")
    set_alt(fig, f"학습률 {grid[0]:g}~{grid[-1]:g}의 성공 비율: " + "; ".join(parts) + ".")
    return fig
