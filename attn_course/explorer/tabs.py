"""헤드 탭(``head_tabs``): 헤드마다 탭 하나에 히트맵 그림(PNG)과 그 헤드의 글 요약을 담는 탭.

노트북(Jupyter, Colab)에서는 ipywidgets의 ``Tab`` 위젯이고, 웹사이트에서는 같은 내용의 정적 HTML 탭입니다
(``HeadTabs._repr_mimebundle_``가 둘을 함께 내고 웹사이트는 ``text/html``을 고름). 정적 탭은 라디오 단추와
CSS만으로 바뀌므로 자바스크립트도 위젯 관리자(gzip 900 KB가 넘는 html-manager)도 필요 없고, 키보드(화살표)로도
움직입니다. ipywidgets의 ``Image``에는 대체 텍스트(alt)가 없어서, 탭마다 ``HTML`` 위젯 하나에
``<img alt="...">``(PNG는 data URI)와 보이는 요약(``<figcaption>``)을 함께 넣습니다.
"""

from __future__ import annotations

import base64
import hashlib
import html
import math
from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure
from torch import Tensor

from ..viz.describe import describe_heads
from ..viz.figure_output import png_bytes, render_png
from ..viz.figures import get_alt
from ..viz.plots import plot_head_heatmaps

__all__ = ["HeadTabs", "head_tabs", "figure_png"]


def figure_png(fig: Figure, *, dpi: int = 100) -> bytes:
    """그림을 PNG 바이트로 바꿉니다 (그림의 대체 텍스트가 있으면 PNG의 ``Description``에 넣음).

    Shape:
        - 해당 없음 (그림 -> 바이트)
    """
    return png_bytes(fig, dpi=dpi, bbox_inches=None)


#: head_tabs 탭 하나의 HTML: 그림(대체 텍스트 포함)과 보이는 요약 한 줄
_HEAD_TAB_HTML = (
    '<figure class="attn-head-tab" style="margin:0">'
    '<div class="attn-figure-scroll" style="max-width:100%;overflow-x:auto">'
    '<img src="data:image/png;base64,{png}" alt="{alt}" width="{width}" height="{height}" data-min-text-px="{text_px:.2f}" '
    'style="display:block;max-width:100%;height:auto;min-width:{min_width}px"></div>'
    '<figcaption class="attn-head-summary" style="margin-top:0.3em;white-space:normal;line-height:1.5">'
    "{summary}</figcaption></figure>"
)


#: 정적 탭의 공통 CSS: 단추는 탭 모양, 패널은 숨김 (고른 단추의 패널을 보이는 규칙은 탭마다 id로 _static_tabs_html이 더함)
_STATIC_TABS_CSS = """
.attn-head-tabs { margin: 0.5rem 0 1rem; }
.attn-head-tabs-bar { display: flex; flex-wrap: wrap; gap: 0.25rem; border-bottom: 1px solid #bbb; margin: 0; padding: 0;
  border-top: 0; border-left: 0; border-right: 0; }
.attn-head-tabs-bar legend { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
.attn-head-tabs-bar input { position: absolute; opacity: 0; width: 1px; height: 1px; }
.attn-head-tabs-bar label { padding: 0.35rem 0.8rem; border: 1px solid #bbb; border-bottom: 0; border-radius: 4px 4px 0 0;
  cursor: pointer; background: #f3f3f3; color: #222; margin: 0; }
.attn-head-tabs-bar input:checked + label { background: #fff; font-weight: 700; border-color: #0072B2;
  box-shadow: inset 0 3px 0 #0072B2; }
.attn-head-tabs-bar input:focus-visible + label { outline: 3px solid #0072B2; outline-offset: 1px; }
.attn-head-tabs-panel { display: none; padding-top: 0.5rem; }
"""


def _static_tabs_html(panels: Sequence[str], titles: Sequence[str]) -> str:
    """정적 웹사이트용 탭 HTML: 라디오 단추 묶음(탭 이름)과 패널. 자바스크립트 없이 CSS(``:has``)로 바뀝니다.

    라디오 단추이므로 Tab 키로 묶음에 들어가 화살표 키로 헤드를 바꾸고, 화면 낭독기는 "헤드 고르기" 묶음으로 읽습니다.

    Shape:
        - panels, titles: 길이 ``H``
    """
    uid = "attn-head-tabs-" + hashlib.sha1("".join(panels).encode("utf-8")).hexdigest()[:12]
    # 고른 단추(h번째)의 패널(h번째)만 보이기. id를 쓰므로 한 페이지에 탭이 여럿이어도 섞이지 않습니다.
    rules = ", ".join(f"#{uid}:has(#{uid}-{h}:checked) #{uid}-panel-{h}" for h in range(len(panels)))
    bar = "".join(
        f'<input type="radio" name="{uid}" id="{uid}-{h}" value="{h}"{" checked" if h == 0 else ""}>'
        f'<label for="{uid}-{h}">{html.escape(title)}</label>' for h, title in enumerate(titles))
    body = "".join(f'<div class="attn-head-tabs-panel" id="{uid}-panel-{h}">{panel}</div>'
                   for h, panel in enumerate(panels))
    return (f"<style>{_STATIC_TABS_CSS}{rules} {{ display: block; }}</style>"
            f'<div class="attn-head-tabs" id="{uid}" lang="ko">'
            f'<fieldset class="attn-head-tabs-bar"><legend>헤드 고르기</legend>{bar}</fieldset>{body}</div>')


class HeadTabs(widgets.Tab):
    """헤드 탭 위젯. 노트북에서는 보통의 ``ipywidgets.Tab``이고, 웹사이트(``text/html``을 고르는 myst-nb)에서는
    같은 그림과 요약을 담은 정적 HTML 탭으로 보입니다.

    Shape:
        - 해당 없음 (위젯)
    """

    def _repr_mimebundle_(self, **kwargs: object) -> dict:
        # ipywidgets 8 만 이 길로 옵니다. 7(Colab)은 위젯의 _ipython_display_ 가 먼저 불려 위젯 보기만 보냅니다.
        bundle = super()._repr_mimebundle_(**kwargs)
        titles = [self.get_title(h) for h in range(len(self.children))]
        bundle["text/html"] = _static_tabs_html([child.value for child in self.children], titles)
        return bundle


def head_tabs(
    weights: Tensor | np.ndarray,
    query_labels: Sequence[str] | None = None,
    key_labels: Sequence[str] | None = None,
    *,
    dpi: int = 100,
) -> widgets.Tab:
    """헤드마다 탭 하나씩, 그 헤드의 히트맵을 보여 주는 탭 위젯을 만듭니다.

    Args:
        weights: 한 문장의 헤드별 가중치.
        query_labels: 쿼리 이름 (길이 ``L``).
        key_labels: 키 이름 (길이 ``S``).
        dpi: 그림 해상도.

    Returns:
        ``ipywidgets.Tab`` (탭 제목 "헤드 0", "헤드 1", ...). 탭마다 ``ipywidgets.HTML`` 하나:
        ``<img alt>``의 대체 텍스트는 그 헤드 그림의 ``get_alt``, 그림 아래의 ``<figcaption>``은
        ``describe_heads``의 그 헤드 줄("헤드 2: 대부분의 쿼리(...)가 이전 토큰에 집중 (...)")입니다.
        실제 클래스는 ``HeadTabs``(웹사이트에서는 같은 내용의 정적 HTML 탭).

    Shape:
        - weights: ``(H, L, S)``
    """
    if getattr(weights, "ndim", 0) != 3:
        raise ValueError(f"weights는 (H, L, S)여야 하는데 shape={tuple(getattr(weights, 'shape', ()))}입니다.")
    summaries = describe_heads(weights, query_labels, key_labels)
    children = []
    for h in range(weights.shape[0]):
        fig = plot_head_heatmaps(weights[h], query_labels, key_labels, head_names=[f"헤드 {h}"])
        rendered = render_png(fig, dpi=dpi, bbox_inches=None)  # 2배 화소, 1배 크기는 width
        png = base64.b64encode(rendered.data).decode("ascii")
        # 가장 작은 글자가 10 CSS px 아래로 줄지 않는 너비 (attn_site/figure_alt.py 의 그림과 같은 규칙)
        min_width = min(rendered.css_width, math.ceil(rendered.css_width * 10 / rendered.min_text_px))
        children.append(widgets.HTML(
            _HEAD_TAB_HTML.format(png=png, alt=html.escape(get_alt(fig)), summary=html.escape(summaries[h]),
                                  width=rendered.css_width, height=rendered.css_height,
                                  text_px=rendered.min_text_px, min_width=min_width),
            layout=widgets.Layout(max_width="100%")))
    tabs = HeadTabs(children=children)
    for h in range(len(children)):  # set_title: ipywidgets 8(titles)과 7(Colab, _titles) 모두에 있는 API
        tabs.set_title(h, f"헤드 {h}")
    return tabs
