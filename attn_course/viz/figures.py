"""그림의 바탕: 한글 글꼴, 공통 색, 대체 텍스트(alt), 입력 확인 도우미 (matplotlib만 사용, 그림 함수는 없음).

그림 코드는 세 모듈에 나뉘어 있습니다. 이 모듈이 아래층이고, 나머지 둘은 이 모듈만 함께 씁니다.

- ``figures`` (이 모듈): 한글 글꼴 설정(``setup_korean_font``, ``korean_font_path``), 글자 크기(``TEXT_PT``),
  공통 색(``PALETTE``, ``HEATMAP_CMAP``, ``SAFE_CMAPS``), 대체 텍스트(``set_alt``, ``get_alt``),
  그림 함수들이 함께 쓰는 입력 확인 도우미.
- ``figure_output``: 그림을 PNG로 (2배 화소, ``png_bytes``), 가장 작은 글자 크기 재기, IPython 표시 함수.
- ``plots``: 어텐션 가중치와 측정값 그림 (헤드별 히트맵, 포화 히스토그램, 곡선, 지표 패널, 포화 격자).
- ``mask_plots``: 마스크 격자, 문장별 히트맵, 헤드 수별 정확도 그림 (``MASK_COLORS``, ``CEILING_LABELS``).

이 모듈을 import하면(``attn_lib``나 두 그림 모듈을 import해도 따라서) 한글 글꼴이 한 번 설정됩니다.
챕터에 글꼴 코드를 붙여 넣지 마세요. ``sns.set_theme()``처럼 글꼴을 되돌리는 코드를 부른 뒤에는
``setup_korean_font()``를 다시 부르세요.

대체 텍스트(alt): 그림 함수는 모두 "<무슨 그림인가>: <데이터 요약>" 꼴의 한국어 글을 그림에 붙입니다
(``get_alt``). 요약은 ``describe`` 모듈이 그린 데이터에서 계산합니다. ``attn_lib``를 IPython 안에서
import하면 ``Figure``의 ``image/png`` 표시 함수가 ``figure_output``의 것으로 바뀌어, PNG에 그 글을 ``Description``으로
넣고 출력 메타데이터에 ``{"alt": ..., "width": ...}``를 적습니다. 책을 빌드하면 ``attn_site/figure_alt.py``가 그 글을
``<img alt="...">``로 옮깁니다. matplotlib으로 직접 그린 그림에는 ``set_alt(fig, 글)``로, 데이터에서
계산한 글을 붙이세요(숫자를 손으로 적지 않습니다).
"""

from __future__ import annotations

import importlib.util
import math
import re
from collections.abc import Sequence
from pathlib import Path

import matplotlib
import numpy as np
import torch
from matplotlib import font_manager
from matplotlib.figure import Figure
from torch import Tensor

from attn_lib._checks import describe
from .describe import plain_text

__all__ = [
    "setup_korean_font",
    "korean_font_path",
    "HEATMAP_CMAP",
    "SAFE_CMAPS",
    "PALETTE",
    "TEXT_PT",
    "MAX_FIGURE_WIDTH_IN",
    "set_alt",
    "get_alt",
    "tick_label",
    "plain_log_ticks",
]

#: 색각 이상이 있어도 구분되는 색 (Okabe-Ito 팔레트).
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#E69F00", "#CC79A7", "#56B4E9", "#F0E442", "#000000")
#: 히트맵 색지도: 밝기가 단조 증가하고 색각 이상에도 읽히는 viridis.
HEATMAP_CMAP = "viridis"
#: 히트맵에 쓸 수 있는 색지도: 지각적으로 고르고(밝기가 단조) 색각 이상에도 읽히는 것만 (뒤집은 ``_r``도 됨).
#: jet, rainbow처럼 밝기가 오르내리는 무지개 색지도는 없는 경계를 만들고 색각 이상이면 읽을 수 없습니다.
SAFE_CMAPS = ("viridis", "cividis", "magma", "inferno", "plasma")

#: 그림 글자 크기(pt). 그림은 1인치 = 100 CSS px로 보이므로(``figure_output.CSS_DPI``) 1 pt = 100/72 px입니다.
#: 가장 작은 글자(칸 안의 값, ``annotation``) 8 pt = 11.1 px, 눈금 9 pt = 12.5 px: 그림이 줄어들지 않으면
#: 모두 10 CSS px 이상입니다 (이슈 13, 4항). 그림 함수는 이 값만 씁니다(숫자로 적은 fontsize 없음).
TEXT_PT = {"annotation": 8.0, "tick": 9.0, "legend": 9.0, "label": 10.0, "panel_title": 10.0, "title": 11.0,
           "suptitle": 12.0}
#: 그림 너비의 상한(인치 = 100 CSS px): 노트북 화면의 본문 폭(688 px)에 여백(bbox)까지 줄이지 않고 들어가는 너비.
MAX_FIGURE_WIDTH_IN = 6.6
_TEXT_RC = {
    "font.size": TEXT_PT["label"],
    "xtick.labelsize": TEXT_PT["tick"],
    "ytick.labelsize": TEXT_PT["tick"],
    "axes.labelsize": TEXT_PT["label"],
    "axes.titlesize": TEXT_PT["title"],
    "figure.titlesize": TEXT_PT["suptitle"],
    "legend.fontsize": TEXT_PT["legend"],
    "legend.title_fontsize": TEXT_PT["legend"],
}

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
    """matplotlib에 한글 글꼴을 등록하고 ``font.family``로 지정합니다. 글자 크기(``TEXT_PT``)도 맞춥니다.

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
    matplotlib.rcParams.update(_TEXT_RC)  # 글자 크기 (TEXT_PT): 가장 작은 글자도 10 CSS px 이상
    # 같은 이름의 글꼴이 시스템에도 있으면 matplotlib이 그쪽을 고를 수 있으니, 실제로 고른 파일을 기록
    _font_path = Path(font_manager.findfont(font_manager.FontProperties(family=family), fallback_to_default=False))
    return _font_path


def korean_font_path() -> Path:
    """지금 쓰는 한글 글꼴 파일의 경로 (테스트가 글리프를 확인할 때 씀).

    Shape:
        - 해당 없음
    """
    return _font_path if _font_path is not None else setup_korean_font()


# 글꼴은 attn_course.setup() 이나 첫 그림이 등록합니다 (import 할 때는 전역 설정을 바꾸지 않음)


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
    _install_formatter()
    return fig


def _install_formatter() -> None:
    """IPython 표시 함수를 맞춥니다 (``figure_output``이 이 모듈을 import하므로 여기서는 늦게 import)."""
    from .figure_output import install_alt_formatter

    install_alt_formatter()


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
        _install_formatter()


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


def _float_array(values: object, name: str, what: str) -> np.ndarray:
    """텐서나 수의 목록을 float64 배열로 (수가 아니면 ``what``을 말하는 TypeError)."""
    if isinstance(values, Tensor):
        values = values.detach().to("cpu", torch.float64).numpy()
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name}은(는) {what}의 목록이어야 하는데 {describe(values)}이(가) 들어왔습니다.") from None


def tick_label(v: float) -> str:
    """로그 눈금 이름: 8 -> "8", 0.125 -> "1/8", 그 밖에는 짧은 실수."""
    if v >= 1 and float(v).is_integer():
        return str(int(v))
    if 0 < v < 1 and float(1 / v).is_integer() and 1 / v <= 64:
        return f"1/{int(round(1 / v))}"
    return f"{v:g}"


def plain_log_ticks(axis: matplotlib.axis.Axis, base: int, values: np.ndarray) -> None:
    """로그 축의 눈금 이름을 mathtext 없이 ``0.01``, ``1/8``처럼 적습니다.

    matplotlib 기본값은 ``10^{-2}``를 mathtext로 그리는데, 한글 글꼴에 없는 빼기 기호(U+2212)를 써서
    "glyph 없음" 경고가 납니다. 값의 범위가 300배보다 좁으면 1, 2, 5 눈금을 둡니다.
    """
    positive = values[np.isfinite(values) & (values > 0)]
    span = math.log(positive.max() / positive.min(), base) if positive.size else 0.0
    subs = (1.0, 2.0, 5.0) if base == 10 and span < 2.5 else (1.0,)
    axis.set_major_locator(matplotlib.ticker.LogLocator(base=base, subs=subs))
    label = tick_label if base == 2 else (lambda v: f"{v:g}")
    axis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda v, _pos: label(v)))
    axis.set_minor_formatter(matplotlib.ticker.NullFormatter())
