"""그림을 웹과 노트북에 내보내기: 2배 화소 PNG, 가장 작은 글자 크기, 짧은 제목, IPython 표시 함수.

그림은 1인치 = ``CSS_DPI``(100) CSS px 크기로 보이고, PNG는 그 ``PIXEL_RATIO``(2)배 화소로 그립니다
(고해상도 화면에서도 선명하게). PNG에는 글 묶음 네 개를 넣습니다.

- ``Description``: 대체 텍스트 (``get_alt``)
- ``Title``: 그림 제목 (``suptitle`` 또는 축이 하나일 때 그 축의 제목, 수식은 ``plain_text``로 풀어 씀)
- ``Min text px``: 그림 안의 보이는 글자(눈금, 제목, 축 이름, 범례, 칸 안의 값) 가운데 가장 작은 글자의 크기,
  1배 크기에서의 CSS px (= pt × ``CSS_DPI`` / 72)
- ``Pixel ratio``: PNG 화소 / CSS px

빌드할 때 ``attn_site/figure_alt.py``가 이 글을 읽어 ``<img alt width data-min-text-px>``, 그림 번호와 짧은 설명
("그림 6.1 ...")을 만들고, 그림이 글자가 10 CSS px보다 작아지도록 줄어들지 않게 합니다.
노트북(Jupyter, Colab)에서는 출력 메타데이터의 ``width``가 같은 1배 크기를 알려 줍니다.

책을 빌드할 때(``ATTN_PHONE_FIGURES=1``)는 그림 함수가 적어 둔 방법으로 휴대폰용 그림(한 열, 좁은 너비;
``phone``)을 한 번 더 그려 PNG 의 ``phOn`` 덩어리에 넣습니다. ``attn_site/figure_alt.py`` 가 그것을 꺼내
``<picture>`` 의 좁은 화면용 그림으로 씁니다.
"""

from __future__ import annotations

import io
import sys
import zlib
from binascii import b2a_base64
from dataclasses import dataclass

from matplotlib.figure import Figure
from matplotlib.text import Text
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from attn_lib._checks import describe
from .describe import plain_text
from .figures import get_alt
from .phone import phone_figures_requested, redraw_for_phone

__all__ = [
    "CSS_DPI",
    "PIXEL_RATIO",
    "PNG_COLORS",
    "RenderedFigure",
    "render_png",
    "png_bytes",
    "min_text_px",
    "figure_title",
    "install_alt_formatter",
    "with_phone_png",
    "PHONE_CHUNK",
]

#: 1배 크기에서 그림 1인치가 차지하는 CSS px (matplotlib 기본 dpi와 같음).
CSS_DPI = 100
#: PNG 화소 / CSS px: 2면 고해상도(레티나) 화면에서도 글자가 흐리지 않습니다.
PIXEL_RATIO = 2
#: PNG 팔레트의 색 수 (2배 화소로 커진 파일을 다시 줄임)
PNG_COLORS = 256


@dataclass(frozen=True)
class RenderedFigure:
    """PNG 하나와 그 그림을 보일 크기.

    Attributes:
        data: PNG 바이트 (글 묶음 포함).
        css_width: 1배 크기의 너비 (CSS px, 정수).
        css_height: 1배 크기의 높이 (CSS px, 정수).
        min_text_px: 1배 크기에서 가장 작은 글자의 크기 (CSS px). 글자가 없으면 ``None``.
        alt: 대체 텍스트 (없으면 ``None``).
        title: 그림 제목 (없으면 ``None``).

    Shape:
        - 해당 없음
    """

    data: bytes
    css_width: int
    css_height: int
    min_text_px: float | None
    alt: str | None
    title: str | None


def _check_figure(fig: object) -> Figure:
    if not isinstance(fig, Figure):
        raise TypeError(f"fig는 matplotlib Figure여야 하는데 {describe(fig)}이(가) 들어왔습니다.")
    return fig


def min_text_px(fig: Figure, dpi: float = CSS_DPI) -> float | None:
    """그림 안의 보이는 글자 가운데 가장 작은 글자의 크기 (``dpi`` 크기에서의 px = pt × dpi / 72).

    눈금 이름은 그림을 그려 보아야 생기므로 먼저 화소 없이 배치만 합니다(``draw_without_rendering``).
    숨긴 글자, 빈 글자, 숨긴 축(``set_axis_off``)의 글자는 세지 않습니다.

    Returns:
        px (소수), 글자가 하나도 없으면 ``None``.

    Raises:
        TypeError: ``fig``가 ``Figure``가 아닐 때.

    Shape:
        - 해당 없음 (그림 -> 수)
    """
    _check_figure(fig)
    fig.draw_without_rendering()
    sizes = []
    for text in fig.findobj(Text):
        if not text.get_visible() or not text.get_text().strip():
            continue
        axes = text.axes
        if axes is not None and (not axes.get_visible() or not axes.axison) and text not in axes.texts:
            continue  # 숨긴 축의 눈금·축 이름 (축 안에 적은 글은 셈)
        sizes.append(text.get_fontsize())
    return min(sizes) * dpi / 72 if sizes else None


def figure_title(fig: Figure) -> str | None:
    """그림 제목: ``suptitle``, 없으면 보이는 축이 하나일 때 그 축의 제목 (수식은 ``plain_text``로 풀어 씀).

    Shape:
        - 해당 없음
    """
    _check_figure(fig)
    sup = getattr(fig, "_suptitle", None)
    if sup is not None and sup.get_text().strip():
        return plain_text(sup.get_text())
    shown = [ax for ax in fig.axes if ax.get_visible() and ax.axison and ax.get_label() != "<colorbar>"]
    if len(shown) == 1 and shown[0].get_title().strip():
        return plain_text(shown[0].get_title())
    return None


def render_png(fig: Figure, *, dpi: float = CSS_DPI, pixel_ratio: float = PIXEL_RATIO,
               bbox_inches: str | None = "tight", colors: int | None = PNG_COLORS) -> RenderedFigure:
    """그림을 ``dpi × pixel_ratio`` 해상도의 PNG로 그리고, 보일 크기와 글자 크기를 함께 돌려줍니다.

    Args:
        fig: 그림.
        dpi: 1배 크기의 해상도 (CSS px / 인치).
        pixel_ratio: PNG 화소 / CSS px (1이면 예전처럼 1배 PNG).
        bbox_inches: ``"tight"``면 IPython 인라인 표시처럼 여백을 잘라 냄, ``None``이면 그림 크기 그대로.
        colors: 팔레트 색 수 (기본 256, ``None``이면 줄이지 않은 RGB).

    Returns:
        ``RenderedFigure``.

    Raises:
        TypeError: ``fig``가 ``Figure``가 아닐 때.
        ValueError: ``dpi``나 ``pixel_ratio``가 양수가 아닐 때.

    Shape:
        - 해당 없음 (그림 -> 바이트)
    """
    _check_figure(fig)
    if not dpi > 0 or not pixel_ratio > 0:
        raise ValueError(f"dpi와 pixel_ratio는 양수여야 하는데 dpi={dpi!r}, pixel_ratio={pixel_ratio!r}입니다.")
    alt, title, smallest = get_alt(fig), figure_title(fig), min_text_px(fig, dpi)
    metadata = {"Pixel ratio": f"{pixel_ratio:g}"}
    if alt:
        metadata["Description"] = alt
    if title:
        metadata["Title"] = title
    if smallest is not None:
        metadata["Min text px"] = f"{smallest:.2f}"
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi * pixel_ratio, bbox_inches=bbox_inches)
    image = Image.open(buffer).convert("RGB")
    if colors:
        # 색 256개 팔레트 PNG: 2배 화소 RGBA의 약 1/3 크기. 선과 글자의 가장자리, 색 막대도 눈으로는 같아 보입니다.
        image = image.quantize(colors=colors, method=Image.Quantize.FASTOCTREE, dither=Image.Dither.NONE)
    info = PngInfo()
    for key, value in metadata.items():
        info.add_itxt(key, value)  # 한글은 Latin-1이 아니므로 UTF-8 글 묶음(iTXt)
    out = io.BytesIO()
    image.save(out, format="png", optimize=True, pnginfo=info, dpi=(dpi * pixel_ratio,) * 2)
    width, height = image.size
    return RenderedFigure(out.getvalue(), round(width / pixel_ratio), round(height / pixel_ratio), smallest, alt, title)


def png_bytes(fig: Figure, *, dpi: float = CSS_DPI, pixel_ratio: float = PIXEL_RATIO,
              bbox_inches: str | None = "tight", colors: int | None = PNG_COLORS) -> bytes:
    """그림을 PNG 바이트로 바꿉니다 (``render_png(...).data``). 대체 텍스트는 PNG의 ``Description``에 들어갑니다.

    한글은 Latin-1이 아니어서 Pillow가 UTF-8 글 묶음(iTXt)으로 씁니다. ``attn_site/figure_alt.py``가 빌드할 때
    이 글을 읽어 ``<img alt>``로 옮깁니다.

    Shape:
        - 해당 없음 (그림 -> 바이트)
    """
    return render_png(fig, dpi=dpi, pixel_ratio=pixel_ratio, bbox_inches=bbox_inches, colors=colors).data


#: 휴대폰용 PNG 를 넣는 PNG 덩어리 종류: 부가(소문자)·사적(소문자)·예약(대문자)·복사 가능(소문자).
#: 브라우저와 이미지 도구는 모르는 부가 덩어리를 건너뜁니다. ``attn_site/figure_alt.py`` 가 빌드할 때 꺼내 따로 둡니다.
PHONE_CHUNK = b"phOn"


def with_phone_png(data: bytes, phone: bytes) -> bytes:
    """PNG ``data`` 의 끝(IEND 앞)에 휴대폰용 PNG ``phone`` 을 ``PHONE_CHUNK`` 덩어리로 넣습니다.

    Shape:
        - 해당 없음 (바이트 -> 바이트)
    """
    if not data.startswith(b"\x89PNG") or data[-12:-8] != b"\x00\x00\x00\x00" or data[-8:-4] != b"IEND":
        raise ValueError("data는 IEND로 끝나는 PNG여야 합니다.")
    chunk = len(phone).to_bytes(4, "big") + PHONE_CHUNK + phone + zlib.crc32(PHONE_CHUNK + phone).to_bytes(4, "big")
    return data[:-12] + chunk + data[-12:]


def _ipython_png(fig: Figure) -> str | tuple[str, dict] | None:
    """IPython ``image/png`` 표시 함수: base64 PNG(2배 화소)와 메타데이터 ``{"width": 1배 너비, "alt": ...}``.

    인라인 백엔드의 기본 함수(``print_figure(fmt="png", bbox_inches="tight")``)와 같은 그림을 2배 화소로 그립니다.
    ``width``가 있어서 Jupyter와 웹페이지가 그림을 1배 크기로 보입니다.
    """
    if not fig.axes and not fig.lines:
        return None  # 빈 그림은 보이지 않음 (IPython과 같음)
    rendered = render_png(fig)
    png = rendered.data
    if phone_figures_requested():  # 책을 빌드할 때만: 휴대폰용 그림을 PNG 안에 함께 넣음
        phone = redraw_for_phone(fig)
        if phone is not None:
            small = render_png(phone)
            if small.css_width < rendered.css_width:
                png = with_phone_png(png, small.data)
    data = b2a_base64(png, newline=False).decode("ascii")
    metadata = {"width": rendered.css_width}
    if rendered.alt:
        metadata["alt"] = rendered.alt
    return data, metadata


def install_alt_formatter(shell: object | None = None) -> bool:
    """IPython의 ``Figure`` PNG 표시 함수를 이 모듈의 것으로 바꿉니다 (여러 번 불러도 됨).

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
