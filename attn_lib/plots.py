"""그림: 헤드별 히트맵과 포화 히스토그램 (matplotlib만 사용).

이 모듈을 import하면 한글 글꼴이 한 번 설정됩니다. 챕터에 글꼴 코드를 붙여 넣지 마세요.
``sns.set_theme()``처럼 글꼴을 되돌리는 코드를 부른 뒤에는 ``setup_korean_font()``를 다시 부르세요.

그림 함수는 모두 ``Figure``를 돌려줍니다. pyplot의 자동 표시 목록에서는 빼 두었으므로
노트북 셀의 마지막 식으로 두거나 ``display(fig)``로 한 번만 보입니다.
"""

from __future__ import annotations

import importlib.util
import math
from collections.abc import Mapping, Sequence
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib import font_manager
from matplotlib.figure import Figure
from torch import Tensor

from ._checks import describe
from .metrics import attention_entropy, saturation

__all__ = [
    "setup_korean_font",
    "korean_font_path",
    "plot_head_heatmaps",
    "plot_saturation_histogram",
    "HEATMAP_CMAP",
    "PALETTE",
]

#: 색각 이상이 있어도 구분되는 색 (Okabe-Ito 팔레트).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
#: 히트맵 색지도: 밝기가 단조 증가하고 색각 이상에도 읽히는 viridis.
HEATMAP_CMAP = "viridis"

_SYSTEM_KOREAN_FONTS = ("NanumGothic", "Noto Sans CJK KR", "Noto Sans KR", "Malgun Gothic", "AppleGothic")
_font_path: Path | None = None


def _bundled_font_files() -> list[Path]:
    """koreanize-matplotlib 패키지에 든 나눔고딕 파일 (패키지를 import하지 않고 찾음).

    그 패키지는 import할 때 distutils를 불러 경고를 낼 수 있어서 파일만 씁니다.
    """
    spec = importlib.util.find_spec("koreanize_matplotlib")
    if spec is None or spec.origin is None:
        return []
    return sorted((Path(spec.origin).parent / "fonts").glob("NanumGothic*.ttf"))


def setup_korean_font() -> Path:
    """matplotlib에 한글 글꼴을 등록하고 ``font.family``로 지정합니다.

    PyPI 패키지 ``koreanize-matplotlib``에 든 나눔고딕을 먼저 쓰고, 없으면 시스템에 설치된
    한글 글꼴을 찾습니다. 라틴 문자와 기호는 DejaVu Sans로 대체(fallback)합니다.

    Returns:
        쓰게 된 글꼴 파일 경로.

    Raises:
        RuntimeError: 한글 글꼴을 하나도 찾지 못했을 때 (설치 방법을 알려 줌).

    Shape:
        - 해당 없음 (전역 설정)
    """
    global _font_path
    family = None
    for path in _bundled_font_files():
        font_manager.fontManager.addfont(str(path))
        if path.name == "NanumGothic.ttf":
            family, _font_path = "NanumGothic", path
    if family is None:
        installed = {f.name: f.fname for f in font_manager.fontManager.ttflist}
        for name in _SYSTEM_KOREAN_FONTS:
            if name in installed:
                family, _font_path = name, Path(installed[name])
                break
    if family is None:
        raise RuntimeError(
            "한글 글꼴을 찾지 못했습니다. `pip install koreanize-matplotlib`로 설치한 뒤 커널을 다시 시작하세요."
        )
    matplotlib.rcParams["font.family"] = [family, "DejaVu Sans"]
    matplotlib.rcParams["axes.unicode_minus"] = False  # 나눔고딕에 없는 U+2212 대신 '-'를 씀
    # 같은 이름의 글꼴이 시스템에도 있으면 matplotlib이 그쪽을 고를 수 있으니, 실제로 고른 파일을 기록
    _font_path = Path(font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False))
    return _font_path


def korean_font_path() -> Path:
    """지금 쓰는 한글 글꼴 파일의 경로 (테스트가 글리프를 확인할 때 씀).

    Shape:
        - 해당 없음
    """
    return _font_path if _font_path is not None else setup_korean_font()


setup_korean_font()


def _to_numpy(weights: Tensor | np.ndarray, name: str = "weights") -> np.ndarray:
    if isinstance(weights, Tensor):
        if not torch.is_floating_point(weights):
            raise TypeError(f"{name}은(는) 실수 텐서여야 하는데 dtype={weights.dtype}이(가) 들어왔습니다.")
        return weights.detach().to("cpu", torch.float32).numpy()
    if isinstance(weights, np.ndarray):
        return weights.astype(np.float32, copy=False)
    raise TypeError(f"{name}은(는) torch.Tensor 또는 numpy 배열이어야 하는데 {describe(weights)}이(가) 들어왔습니다.")


def _labels(labels: Sequence[str] | None, n: int, name: str) -> list[str]:
    if labels is None:
        return [str(i) for i in range(n)]
    labels = [str(x) for x in labels]
    if len(labels) != n:
        raise ValueError(f"{name}의 개수는 {n}이어야 하는데 {len(labels)}개가 들어왔습니다.")
    return labels


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
        cmap: 색지도 (기본 viridis).
        vmax: 색 범위의 최댓값.

    Returns:
        matplotlib ``Figure``.

    Shape:
        - weights: ``(H, L, S)`` 또는 ``(L, S)``
    """
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
    return fig
