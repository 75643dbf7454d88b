"""그림: 헤드별 히트맵과 포화 히스토그램 (matplotlib만 사용).

이 모듈을 import하면 한글 글꼴이 한 번 설정됩니다. 챕터에 글꼴 코드를 붙여 넣지 마세요.
``sns.set_theme()``처럼 글꼴을 되돌리는 코드를 부른 뒤에는 ``setup_korean_font()``를 다시 부르세요.

그림 함수는 모두 ``Figure``를 돌려줍니다. pyplot의 자동 표시 목록에서는 빼 두었으므로
노트북 셀의 마지막 식으로 두거나 ``display(fig)``로 한 번만 보입니다.

대체 텍스트(alt): 그림 함수는 모두 "<무슨 그림인가>: <데이터 요약>" 꼴의 한국어 글을 그림에 붙입니다
(``get_alt``). 요약은 ``describe`` 모듈이 그린 데이터에서 계산합니다. 이 모듈을 IPython 안에서
import하면 ``Figure``의 ``image/png`` 표시 함수를 바꿔, PNG에 그 글을 ``Description``으로 넣고
출력 메타데이터에 ``{"alt": ...}``를 적습니다. 책을 빌드하면 ``_ext/figure_alt.py``가 그 글을
``<img alt="...">``로 옮깁니다. matplotlib으로 직접 그린 그림에는 ``set_alt(fig, 글)``로, 데이터에서
계산한 글을 붙이세요(숫자를 손으로 적지 않습니다).
"""

from __future__ import annotations

import importlib.util
import io
import math
import re
import sys
from binascii import b2a_base64
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
from .describe import (
    describe_accuracy,
    describe_curves,
    describe_head,
    describe_heads,
    describe_mask,
    describe_saturation,
    plain_text,
)
from .metrics import attention_entropy, saturation

__all__ = [
    "setup_korean_font",
    "korean_font_path",
    "plot_head_heatmaps",
    "plot_saturation_histogram",
    "plot_curves",
    "plot_metric_panels",
    "plot_saturation_grid",
    "plot_mask",
    "plot_batch_heatmaps",
    "plot_head_accuracy",
    "CEILING_LABELS",
    "MASK_COLORS",
    "HEATMAP_CMAP",
    "SAFE_CMAPS",
    "PALETTE",
    "set_alt",
    "get_alt",
    "png_bytes",
    "install_alt_formatter",
]

#: 색각 이상이 있어도 구분되는 색 (Okabe-Ito 팔레트).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
#: 히트맵 색지도: 밝기가 단조 증가하고 색각 이상에도 읽히는 viridis.
HEATMAP_CMAP = "viridis"
#: 히트맵에 쓸 수 있는 색지도: 지각적으로 고르고(밝기가 단조) 색각 이상에도 읽히는 것만 (뒤집은 ``_r``도 됨).
#: jet, rainbow처럼 밝기가 오르내리는 무지개 색지도는 없는 경계를 만들고 색각 이상이면 읽을 수 없습니다.
SAFE_CMAPS = ("viridis", "cividis", "magma", "inferno", "plasma")

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


# ---------------------------------------------------------------------------------------
# 대체 텍스트 (alt)
# ---------------------------------------------------------------------------------------

_ALT = "_attn_alt"  # 그림 전체의 대체 텍스트 (set_alt)
_ALT_PARTS = "_attn_alt_parts"  # 남의 축(ax=...)에 그린 패널들의 요약 (set_alt가 없을 때 이어 붙임)
_HANGUL = re.compile(r"[가-힣]")


def set_alt(fig: Figure, text: str) -> Figure:
    """그림에 한국어 대체 텍스트(alt)를 붙입니다. 노트북과 웹페이지에서 그림의 ``alt``가 됩니다.

    글은 데이터에서 계산하세요 (``attn_lib.describe``의 함수들, 또는 f-문자열에 계산한 값).
    IPython 안이면 ``Figure``의 PNG 표시 함수도 이 모듈의 것으로 맞춥니다(``install_alt_formatter``).

    Args:
        fig: matplotlib 그림.
        text: "<무슨 그림인가>: <데이터 요약>" 꼴의 한국어 글.

    Returns:
        같은 ``fig`` (셀의 마지막 식으로 둘 수 있게).

    Raises:
        TypeError: ``fig``가 ``Figure``가 아니거나 ``text``가 문자열이 아닐 때.
        ValueError: ``text``에 한글이 없을 때 (빈 글 포함).

    Shape:
        - 해당 없음 (그림에 글을 붙임)
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig는 matplotlib Figure여야 하는데 {describe(fig)}이(가) 들어왔습니다.")
    if not isinstance(text, str):
        raise TypeError(f"대체 텍스트는 str이어야 하는데 {describe(text)}이(가) 들어왔습니다.")
    text = " ".join(text.split())
    if not _HANGUL.search(text):
        raise ValueError(f"대체 텍스트는 한국어 글이어야 하는데 {text!r}이(가) 들어왔습니다.")
    setattr(fig, _ALT, text)
    install_alt_formatter()
    return fig


def get_alt(fig: Figure) -> str | None:
    """그림의 대체 텍스트 (``set_alt``로 붙인 글, 없으면 패널 요약을 이은 글, 그것도 없으면 ``None``).

    Shape:
        - 해당 없음
    """
    if not isinstance(fig, Figure):
        raise TypeError(f"fig는 matplotlib Figure여야 하는데 {describe(fig)}이(가) 들어왔습니다.")
    parts = getattr(fig, _ALT_PARTS, None)
    return getattr(fig, _ALT, None) or (" ".join(parts) if parts else None)


def _attach(fig: Figure, own_figure: bool, what: str, summary: str, title: str | None = None,
            panel: str | None = None) -> None:
    """그림 함수의 마지막 단계: 그림을 만들었으면 alt로, 남의 축에 그렸으면 패널 요약으로 붙입니다.

    alt는 "<제목> — <무슨 그림인가>: <요약>", 패널 요약은 "[<제목 또는 panel>] <요약>"입니다.
    """
    if own_figure:
        set_alt(fig, f"{plain_text(title)} — {what}: {summary}" if title else f"{what}: {summary}")
    else:
        label = plain_text(title) if title else (panel or what)
        fig.__dict__.setdefault(_ALT_PARTS, []).append(f"[{label}] {summary}")
        install_alt_formatter()


def png_bytes(fig: Figure, *, dpi: float | None = None, bbox_inches: str | None = "tight") -> bytes:
    """그림을 PNG 바이트로 바꾸고, 대체 텍스트를 PNG의 ``Description`` 글 묶음에 넣습니다.

    한글은 Latin-1이 아니어서 Pillow가 UTF-8 글 묶음(iTXt)으로 씁니다. ``_ext/figure_alt.py``가 빌드할 때
    이 글을 읽어 ``<img alt>``로 옮깁니다.

    Args:
        fig: 그림.
        dpi: 해상도 (기본: 그림의 dpi).
        bbox_inches: ``"tight"``면 IPython 인라인 표시처럼 여백을 잘라 냄, ``None``이면 그림 크기 그대로.

    Returns:
        PNG 바이트.

    Shape:
        - 해당 없음 (그림 -> 바이트)
    """
    alt = get_alt(fig)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi or fig.dpi, bbox_inches=bbox_inches,
                metadata={"Description": alt} if alt else None)
    return buffer.getvalue()


def _ipython_png(fig: Figure) -> str | tuple[str, dict] | None:
    """IPython ``image/png`` 표시 함수: base64 PNG와, alt가 있으면 메타데이터 ``{"alt": ...}``.

    인라인 백엔드의 기본 함수(``print_figure(fmt="png", bbox_inches="tight")``)와 같은 그림을 만듭니다.
    IPython의 표시 함수는 ``(데이터, 메타데이터)`` 쌍을 돌려줄 수 있습니다.
    """
    if not fig.axes and not fig.lines:
        return None  # 빈 그림은 보이지 않음 (IPython과 같음)
    data = b2a_base64(png_bytes(fig), newline=False).decode("ascii")
    alt = get_alt(fig)
    return (data, {"alt": alt}) if alt else data


def install_alt_formatter(shell: object | None = None) -> bool:
    """IPython의 ``Figure`` PNG 표시 함수를 대체 텍스트를 싣는 함수로 바꿉니다 (여러 번 불러도 됨).

    matplotlib 인라인 백엔드는 처음 그림을 만들 때 자기 표시 함수를 등록하므로, 그림 함수가 끝날 때마다
    (``set_alt``) 다시 확인합니다. 셀 끝의 자동 표시(``flush_figures``가 부르는 ``display(fig)``)와
    셀의 마지막 식(``fig``) 모두 이 함수를 거칩니다.

    Args:
        shell: IPython 셸 (기본: 지금 실행 중인 셸). IPython 밖이면 아무것도 하지 않습니다.

    Returns:
        등록했으면(또는 이미 되어 있으면) ``True``, IPython 밖이면 ``False``.

    Shape:
        - 해당 없음
    """
    if shell is None:
        ipython = sys.modules.get("IPython")  # IPython을 새로 import하지 않음
        shell = ipython.get_ipython() if ipython is not None else None
        if shell is None:
            return False
    formatter = shell.display_formatter.formatters["image/png"]
    if formatter.type_printers.get(Figure) is not _ipython_png:
        formatter.for_type(Figure, _ipython_png)
    return True


install_alt_formatter()


def _to_numpy(weights: Tensor | np.ndarray, name: str = "weights") -> np.ndarray:
    if isinstance(weights, Tensor):
        if not torch.is_floating_point(weights):
            raise TypeError(f"{name}은(는) 실수 텐서여야 하는데 dtype={weights.dtype}이(가) 들어왔습니다.")
        return weights.detach().to("cpu", torch.float32).numpy()
    if isinstance(weights, np.ndarray):
        return weights.astype(np.float32, copy=False)
    raise TypeError(f"{name}은(는) torch.Tensor 또는 numpy 배열이어야 하는데 {describe(weights)}이(가) 들어왔습니다.")


def _check_cmap(cmap: str) -> str:
    """히트맵 색지도가 ``SAFE_CMAPS``(또는 그 ``_r``)인지 확인합니다."""
    if not isinstance(cmap, str) or cmap.removesuffix("_r") not in SAFE_CMAPS:
        raise ValueError(f"히트맵 색지도는 {', '.join(SAFE_CMAPS)} 중 하나여야 하는데 {cmap!r}이(가) 들어왔습니다. "
                         "무지개 색지도(jet, rainbow 등)는 밝기가 오르내려 색각 이상이 있으면 읽을 수 없습니다.")
    return cmap


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


def _tick_label(v: float) -> str:
    """로그 눈금 이름: 8 -> "8", 0.125 -> "1/8", 그 밖에는 짧은 실수."""
    if v >= 1 and float(v).is_integer():
        return str(int(v))
    if 0 < v < 1 and float(1 / v).is_integer() and 1 / v <= 64:
        return f"1/{int(round(1 / v))}"
    return f"{v:g}"


def _plain_log_ticks(axis: matplotlib.axis.Axis, base: int, values: np.ndarray) -> None:
    """로그 축의 눈금 이름을 mathtext 없이 ``0.01``, ``1/8``처럼 적습니다.

    matplotlib 기본값은 ``10^{-2}``를 mathtext로 그리는데, 한글 글꼴에 없는 빼기 기호(U+2212)를 써서
    "glyph 없음" 경고가 납니다. 값의 범위가 300배보다 좁으면 1, 2, 5 눈금을 둡니다.
    """
    positive = values[np.isfinite(values) & (values > 0)]
    span = math.log(positive.max() / positive.min(), base) if positive.size else 0.0
    subs = (1.0, 2.0, 5.0) if base == 10 and span < 2.5 else (1.0,)
    axis.set_major_locator(matplotlib.ticker.LogLocator(base=base, subs=subs))
    label = _tick_label if base == 2 else (lambda v: f"{v:g}")
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _pos: label(v)))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())


def _float_array(values: object, name: str, what: str) -> np.ndarray:
    """텐서나 수의 목록을 float64 배열로 (수가 아니면 ``what``을 말하는 TypeError)."""
    if isinstance(values, Tensor):
        values = values.detach().to("cpu", torch.float64).numpy()
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name}은(는) {what}의 목록이어야 하는데 {describe(values)}이(가) 들어왔습니다.") from None


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
            ax.set_xticks(xs, [_tick_label(v) for v in xs])
            ax.minorticks_off()
        else:
            _plain_log_ticks(ax.xaxis, 2, xs)
    if logy:
        ax.set_yscale("log")
        _plain_log_ticks(ax.yaxis, 10, np.concatenate([*curves.values(), *refs.values()]))
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
                title: str | None, extra_w: float) -> tuple[Figure, np.ndarray, bool]:
    longest = max((len(s) for labs in qlab + klab for s in labs), default=1)
    cell = 0.34 + 0.03 * min(longest, 8)
    ncols = min(panels, 3)
    nrows = math.ceil(panels / ncols)
    panel_w = max(2.2, cell * cols + 0.5 + 0.09 * longest)
    panel_h = max(1.3, cell * rows + 0.4 + 0.08 * longest)
    fig, axes = plt.subplots(
        nrows, ncols, figsize=(panel_w * ncols + extra_w, panel_h * nrows + (0.9 if title else 0.6)),
        squeeze=False, layout="constrained",
    )
    plt.close(fig)  # pyplot 자동 표시에서 빼기: 돌려준 그림만 한 번 보이도록
    for ax in list(axes.flat)[panels:]:
        ax.set_axis_off()
    return fig, axes, longest > 2


def _decorate(ax: matplotlib.axes.Axes, qlab: list[str], klab: list[str], rotate: bool, first_col: bool) -> None:
    ax.set_xticks(range(len(klab)), klab, rotation=60 if rotate else 0, ha="right" if rotate else "center", fontsize=8)
    ax.set_yticks(range(len(qlab)), qlab, fontsize=8)
    ax.set_xticks(np.arange(-0.5, len(klab)), minor=True)
    ax.set_yticks(np.arange(-0.5, len(qlab)), minor=True)
    ax.grid(which="minor", color="white", linewidth=1.2)
    ax.tick_params(which="minor", length=0)
    ax.set_xlabel("키")
    if first_col:
        ax.set_ylabel("쿼리")


def plot_mask(
    mask: Tensor,
    query_labels: Sequence[str] | Sequence[Sequence[str]] | None = None,
    key_labels: Sequence[str] | Sequence[Sequence[str]] | None = None,
    *,
    title: str | None = None,
    panel_titles: Sequence[str] | None = None,
) -> Figure:
    """bool 마스크를 두 색 격자로 그립니다 (행 = 쿼리, 열 = 키, 파랑 = 참여 가능, 회색 = 차단).

    배치 마스크 ``(B, 1, L, S)``는 문장마다 패널 하나로 그립니다. 패딩 마스크 ``(B, 1, 1, S)``처럼
    쿼리 축이 1이면 한 줄만 그리고 그 줄의 이름을 "모든 쿼리"로 적습니다(브로드캐스트로 모든
    쿼리가 같은 줄을 씁니다). 문장마다 토큰이 다르면 이름을 패널별 목록의 목록으로 넘기세요.

    Args:
        mask: bool 마스크 (``True`` = 참여 가능).
        query_labels: 행 이름. 길이 ``L`` 목록 하나(모든 패널 공통) 또는 패널별 목록의 목록.
        key_labels: 열 이름. 길이 ``S`` 목록 하나 또는 패널별 목록의 목록.
        title: 그림 전체 제목.
        panel_titles: 패널별 제목 (기본: 패널이 여럿이면 "문장 0", "문장 1", ...).

    Returns:
        matplotlib ``Figure``. 범례에 "참여 가능"과 "차단"이 있습니다.

    Shape:
        - mask: ``(L, S)``, ``(B, L, S)``, ``(B, 1, L, S)`` 또는 ``(B, 1, 1, S)``
    """
    if not isinstance(mask, Tensor) or mask.dtype != torch.bool:
        raise TypeError(
            f"mask는 bool 텐서여야 하는데 {describe(mask)}이(가) 들어왔습니다. "
            "실수 마스크라면 mask == 0처럼 참여 가능한 자리를 bool로 만들어 넘기세요."
        )
    m = _as_panels(mask, "mask").cpu().numpy()
    P, Lm, S = m.shape
    if Lm == 1 and query_labels is None:
        query_labels = ["모든 쿼리"]
    qlab = _panel_labels(query_labels, P, Lm, "query_labels")
    klab = _panel_labels(key_labels, P, S, "key_labels")
    names = _labels(panel_titles, P, "panel_titles") if panel_titles is not None else (
        [f"문장 {b}" for b in range(P)] if P > 1 else [""]
    )
    fig, axes, rotate = _panel_axes(P, Lm, S, qlab, klab, title, 0.0)
    cmap = matplotlib.colors.ListedColormap([MASK_COLORS["차단"], MASK_COLORS["참여 가능"]])
    ncols = axes.shape[1]
    for p, ax in enumerate(list(axes.flat)[:P]):
        ax.imshow(m[p].astype(np.int8), cmap=cmap, vmin=0, vmax=1, aspect="auto", interpolation="nearest")
        _decorate(ax, qlab[p], klab[p], rotate, p % ncols == 0)
        if names[p]:
            ax.set_title(names[p], fontsize=10)
    handles = [matplotlib.patches.Patch(facecolor=color, edgecolor="#888888", label=label)
               for label, color in MASK_COLORS.items()]
    fig.legend(handles=handles, loc="outside lower center", ncols=2, fontsize=9, frameon=False)
    if title:
        fig.suptitle(title)
    summaries = [describe_mask(torch.from_numpy(m[p]), None, klab[p] if key_labels is not None else None)
                 for p in range(P)]
    summary = "; ".join(f"{names[p]}: {s}" if names[p] else s for p, s in enumerate(summaries))
    kind = f"마스크 그림 {P}개" if P > 1 else "마스크 그림"
    rows = f"쿼리 {Lm}개" if Lm > 1 else "모든 쿼리(한 줄)"
    _attach(fig, True, f"{kind}(행 = {rows}, 열 = 키 {S}개, 파랑 = 참여 가능, 회색 = 차단)", summary, title)
    return fig


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
) -> Figure:
    """배치의 문장마다 (헤드 하나의) 어텐션 가중치 히트맵을 하나씩 그립니다.

    ``plot_head_heatmaps``가 한 문장의 헤드들을 나란히 놓는다면, 이 함수는 한 헤드의 문장들을
    나란히 놓습니다. 문장마다 토큰이 다를 수 있어서 이름을 패널별로 받습니다. ``mask``를 주면
    차단된 칸에 빗금을 긋고 값은 적지 않아, 0이 마스크 때문인지 한눈에 보입니다.

    Args:
        weights: 헤드 하나의 가중치. 멀티헤드 결과라면 ``weights[:, h]``로 헤드를 고르세요.
        query_labels: 행 이름. 목록 하나(공통) 또는 패널별 목록의 목록.
        key_labels: 열 이름. 목록 하나(공통) 또는 패널별 목록의 목록.
        mask: 선택. 가중치에 쓴 bool 마스크 (``True`` = 참여 가능). ``(B, L, S)``로 브로드캐스트되어야 합니다.
        title: 그림 전체 제목.
        panel_titles: 패널별 제목 (기본 "문장 0", "문장 1", ...).
        annotate: 참여 가능한 칸마다 값을 적을지.
        cmap: 색지도 (기본 viridis; ``SAFE_CMAPS`` 중 하나).
        vmax: 색 범위의 최댓값.

    Returns:
        matplotlib ``Figure``. 대체 텍스트에 문장마다 ``describe_head``의 요약이 있습니다.

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
    names = _labels(panel_titles, P, "panel_titles") if panel_titles is not None else [f"문장 {b}" for b in range(P)]
    fig, axes, rotate = _panel_axes(P, L, S, qlab, klab, title, 0.9)
    ncols = axes.shape[1]
    image = None
    for p, ax in enumerate(list(axes.flat)[:P]):
        image = ax.imshow(w[p], cmap=cmap, vmin=0.0, vmax=vmax, aspect="auto", interpolation="nearest")
        _decorate(ax, qlab[p], klab[p], rotate, p % ncols == 0)
        ax.set_title(names[p], fontsize=10)
        for i, j in zip(*np.nonzero(blocked[p])):
            ax.add_patch(matplotlib.patches.Rectangle(
                (j - 0.5, i - 0.5), 1, 1, fill=False, hatch="////", edgecolor="#BBBBBB", linewidth=0))
        if annotate:
            for i, j in zip(*np.nonzero(~blocked[p])):
                ax.text(j, i, f"{w[p, i, j]:.2f}", ha="center", va="center", fontsize=7,
                        color="black" if w[p, i, j] > 0.6 * vmax else "white")
    fig.colorbar(image, ax=axes, shrink=0.8, label="어텐션 가중치")
    if mask is not None:
        hatch = matplotlib.patches.Patch(facecolor="#440154", edgecolor="#BBBBBB", hatch="////", label="차단 (가중치 0)")
        fig.legend(handles=[hatch], loc="outside lower center", fontsize=9, frameon=False)
    if title:
        fig.suptitle(title)
    summary = "; ".join(f"{names[p]}: {describe_head(w[p], qlab[p] if query_labels is not None else None, klab[p] if key_labels is not None else None)}"
                        for p in range(P))
    hatched = f", 빗금 = 차단된 칸 {int(blocked.sum())}개" if mask is not None else ""
    _attach(fig, True, f"문장별 어텐션 가중치 히트맵 {P}개(행 = 쿼리 {L}개, 열 = 키 {S}개{hatched})", summary, title)
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
        fig, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
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
                    va="center", fontsize=8, bbox={"facecolor": "white", "edgecolor": "none", "pad": 1.0, "alpha": 0.85})
    ax.set_xticks(range(len(rows)), [str(h) for h in rows])
    ax.set_xlim(-0.6, len(rows) - 0.25)  # 마지막 "평균" 글자가 들어갈 자리
    ax.set_ylim(0.0, 1.04)  # 정확도 1.0인 점이 위 테두리에 잘리지 않도록 조금 여유를 둠
    ax.set_yticks(np.linspace(0.0, 1.0, 6))
    ax.set_xlabel("헤드 수 H")
    ax.set_ylabel("평가 정확도")
    ax.grid(True, axis="y", alpha=0.3)
    if own_figure:
        fig.legend(*ax.get_legend_handles_labels(), loc="outside lower center", ncols=2, fontsize=8, frameon=False)
    else:
        ax.legend(fontsize=8, framealpha=0.9)
    if title:
        ax.set_title(title)
    summary = describe_accuracy(rows, {CEILING_LABELS.get(n, n): v for n, v in lines.items()})
    _attach(fig, own_figure, "헤드 수별 평가 정확도(점 = 시드, 가로 막대 = 평균, 점선 = 정보 한계)", summary, title,
            "정확도")
    return fig
