"""휴대폰용 그림: 같은 그림 함수를 좁은 너비(한 열)로 다시 불러 세로로 긴 그림을 만듭니다.

웹의 그림은 1인치 = 100 CSS px 로 보이고, 글자가 10 CSS px 아래로 작아지지 않게 그림이 줄어들지 않습니다.
그래서 노트북 폭(6.6인치)으로 그린 그림은 390 px 휴대폰(본문 칸 358 px)에서 제 상자 안에서 옆으로 밀어야
다 보입니다. 이 모듈은 그림 함수가 "어떻게 다시 그릴지"를 그림에 적어 두게 하고(``reflowable``),
책을 빌드할 때(환경 변수 ``ATTN_PHONE_FIGURES=1``) 표시 함수가 그 그림을 ``phone_layout()`` 안에서 한 번 더
그립니다. 그 안에서는 그림 너비의 상한이 ``PHONE_FIGURE_WIDTH_IN`` 이고 여러 패널은 한 열로 쌓입니다.
``attn_site/figure_alt.py`` 가 두 PNG 를 ``<picture>`` 로 묶어, 좁은 화면은 휴대폰용 그림을 받습니다.

노트북(Jupyter, Colab)에서는 아무 일도 하지 않습니다 (환경 변수가 없으면 휴대폰용 그림을 그리지 않음).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any, TypeVar

from matplotlib.figure import Figure

from .figures import MAX_FIGURE_WIDTH_IN

__all__ = [
    "PHONE_FIGURE_WIDTH_IN",
    "PHONE_ENV",
    "phone_layout",
    "in_phone_layout",
    "figure_width_limit",
    "fit_width",
    "panel_columns",
    "reflowable",
    "redraw_for_phone",
    "phone_figures_requested",
]

#: 휴대폰용 그림 너비의 상한 (인치 = 100 CSS px). 390 px 화면의 본문 칸 358 px 에 여백(bbox)까지 들어가는 너비.
PHONE_FIGURE_WIDTH_IN = 3.4
#: 이 환경 변수가 "1" 이면 표시 함수가 휴대폰용 그림도 그립니다 (Makefile 이 책을 빌드할 때 켭니다).
PHONE_ENV = "ATTN_PHONE_FIGURES"
_REDRAW = "_attn_redraw"
_phone = False

F = TypeVar("F", bound=Callable[..., Any])


@contextmanager
def phone_layout() -> Iterator[None]:
    """이 안에서 그린 그림은 휴대폰 너비(``PHONE_FIGURE_WIDTH_IN``)와 한 열 배치를 씁니다.

    Shape:
        - 해당 없음 (전역 설정을 잠시 바꿈)
    """
    global _phone
    before, _phone = _phone, True
    try:
        yield
    finally:
        _phone = before


def in_phone_layout() -> bool:
    """지금 ``phone_layout()`` 안인지.

    Shape:
        - 해당 없음
    """
    return _phone


def figure_width_limit() -> float:
    """그림 너비의 상한 (인치): 평소 ``MAX_FIGURE_WIDTH_IN``, 휴대폰 배치에서는 ``PHONE_FIGURE_WIDTH_IN``.

    Shape:
        - 해당 없음
    """
    return PHONE_FIGURE_WIDTH_IN if _phone else MAX_FIGURE_WIDTH_IN


def fit_width(width_in: float) -> float:
    """그림 함수가 정한 너비를 지금의 상한 안으로 (휴대폰 배치가 아니면 그대로).

    Shape:
        - 해당 없음 (인치 -> 인치)
    """
    return min(float(width_in), figure_width_limit())


def panel_columns(ncols: int) -> int:
    """패널을 놓을 열 수: 휴대폰 배치에서는 1 (세로로 쌓음), 아니면 그대로.

    Shape:
        - 해당 없음
    """
    return 1 if _phone else int(ncols)


def reflowable(func: F) -> F:
    """그림 함수 꾸밈: 돌려준 그림에 "같은 인자로 다시 그리는 법"을 적어 둡니다 (휴대폰용 그림에 씀).

    휴대폰 배치 안에서 부른 것(다시 그린 그림)과 ``ax=`` 로 남의 그림에 그린 것에는 적지 않습니다.

    Shape:
        - 해당 없음
    """

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        fig = func(*args, **kwargs)
        # ax= 로 남의 그림에 그렸으면 그 그림 전체를 다시 그릴 수 없으므로 적지 않습니다
        if isinstance(fig, Figure) and not _phone and kwargs.get("ax") is None:
            setattr(fig, _REDRAW, functools.partial(func, *args, **kwargs))
        return fig

    return wrapper  # type: ignore[return-value]


def redraw_for_phone(fig: Figure) -> Figure | None:
    """``fig`` 를 휴대폰 배치로 다시 그린 새 그림 (다시 그리는 법이 없으면 ``None``).

    새 그림은 pyplot 에서 닫아 두므로 노트북 셀의 출력으로 따로 나오지 않습니다. 다 쓰면 버리면 됩니다.

    Shape:
        - 해당 없음 (그림 -> 그림)
    """
    redraw = getattr(fig, _REDRAW, None)
    if redraw is None:
        return None
    import matplotlib.pyplot as plt

    with phone_layout():
        phone = redraw()
    if not isinstance(phone, Figure):
        return None
    plt.close(phone)
    return phone


def phone_figures_requested() -> bool:
    """책을 빌드하는 중이라 휴대폰용 그림도 그려야 하는지 (환경 변수 ``ATTN_PHONE_FIGURES``).

    Shape:
        - 해당 없음
    """
    return os.environ.get(PHONE_ENV, "") == "1"
