"""살아 있는 어텐션 탐색기(``AttentionExplorer``): ipywidgets 조작기로 바꾸며 다시 계산하고 다시 그립니다.

조작기로 d_k, 헤드 수, 마스크, 스케일링, 시드, 문장을 바꾸면 헤드별 히트맵과 포화 히스토그램
(그리기는 ``live_figure``)과 헤드별 글 요약(``summary``)이 바뀝니다. 커널이 있어야 다시 계산하므로,
웹사이트에서는 같은 출력에 담긴 정적 탐색기(``static.explorer_html``, Vega-Lite)가 대신 보입니다.
"""

from __future__ import annotations

import html
from collections import OrderedDict
from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np
from torch import Tensor

from .model import (
    DK_CHOICES,
    MASK_LABELS,
    MASKS,
    MAX_HEADS,
    POSITION_LABELS,
    POSITIONS,
    WINDOW_LABELS,
    WINDOWS,
    ExplorerModel,
    kv_head_choices,
    single_thread,
)
from .model import shown_tokens as explorer_tokens  # 메서드 shown_tokens 와 이름이 겹치지 않게
from ..viz.describe import describe_heads
from attn_lib.metrics import attention_entropy, saturation
from .live_figure import _HIST_BINS, _ExplorerFigure
from .live_layout import DEFAULT_WIDTH
from .settings import _validate, kv_readout
from .static import explorer_html
from .summary import summary_caption, summary_html
from .texts import LIVE_CONTROL_HELP, live_control_help_html, live_how_to_read_html

__all__ = ["AttentionExplorer", "kv_readout"]

#: 조작기의 툴팁 속성: ipywidgets 8 은 ``tooltip``, 7(Colab 이 설치해 둔 7.7)은 ``description_tooltip``
#: (8 에서는 ``description_tooltip`` 이 경고를 내는 옛 이름이라 둘을 가립니다)
_TOOLTIP = "tooltip" if widgets.IntSlider.class_traits().get("tooltip") is not None else "description_tooltip"
_FIGURE_CACHE = 8  # (헤드 수, 보이는 토큰)마다 그림 하나, 최근 것 몇 개만 보관
_SETTINGS = ("tokens", "d_k", "num_heads", "num_kv_heads", "mask", "scaled", "position", "window", "seed")
#: 창 조작기(ToggleButtons)의 값: ``None``(전체)은 선택 위젯에서 "고른 것 없음"이라 0으로 둡니다
_WINDOW_WIDGET = {None: 0}


class AttentionExplorer:
    """어텐션 탐색기: d_k, 헤드 수, 마스크, 스케일링, 위치(RoPE), 창, 시드, 문장을 바꾸며 헤드별 히트맵과 포화 히스토그램을 봅니다.

    모델은 ``model.ExplorerModel``입니다(학습하지 않은 무작위 투영). 가중치는
    ``scaled_dot_product_attention``을 탐색기 자신의 쿼리·키에 적용한 값이고 ``weights``에 남습니다.
    조작기를 바꾸면 그림을 새로 만들지 않고 값만 바꿔 다시 그립니다(헤드 수와 보이는 토큰마다 그림 하나).
    잘못된 값(토큰 17개, 빈 문장 등)은 예외 대신 위젯에 한국어 안내를 띄우고 마지막 그림을 그대로 둡니다.

    노트북에서 이 객체를 셀의 마지막 식으로 두면 살아 있는 위젯이 보이고, 빌드된 웹사이트에서는
    같은 출력에 담긴 커널 없는 정적 탐색기(Vega-Lite, ``static.explorer_html``)가 보입니다. 그림 아래에는
    헤드마다 한 줄씩 글 요약(``summary``, ``describe_heads``)이 보이고 그림과 함께 바뀝니다.

    Args:
        tokens: 문장(공백으로 나눔) 또는 토큰 목록, 16개까지. 정적 탐색기는 8개까지.
        seed: 모델 시드.
        d_k: 헤드 하나의 쿼리·키 너비 ``Dh`` (1, 2, 4, ..., 512).
        num_heads: 헤드 수 ``H`` (1~16).
        num_kv_heads: 키·밸류 헤드 수 ``Hkv`` (``H``를 나누는 수; ``None``이면 ``H``). ``Hkv < H``면 그룹 쿼리
            어텐션: 헤드 ``H / Hkv``개가 키 하나를 나눠 쓰고, 그림의 헤드 제목이 그룹을 색으로 보여 줍니다.
            헤드 수를 바꿨을 때 나누어떨어지지 않으면 헤드 수로 돌아갑니다.
        mask: ``"none"``, ``"causal"``, ``"padding"``, ``"causal+padding"`` (또는 없음/인과/패딩/인과+패딩).
        scaled: ``1/sqrt(d_k)`` 스케일링 여부.
        position: 위치 정보 ``"none"``(없음) 또는 ``"rope"`` (``model.ExplorerModel.queries_keys``).
        window: 창 ``None``(전체) 또는 ``3``: 쿼리마다 자기와 앞쪽 두 키만 (``model.explorer_mask``, 마스크와 함께 걸림).
        dpi: 그림 해상도.
        width: 그림이 들어갈 폭 (CSS px, 기본 ``DEFAULT_WIDTH`` = 840: 1280 px 화면의 JupyterLab 셀 폭 848 px 안). 한 줄에 놓는
            헤드 수를 이 폭 안에 드는 만큼으로 고릅니다(토큰 이름, 헤드 제목, 색 막대의 실제 폭으로; ``live_layout``).
            좁은 노트북(휴대폰의 Colab, 나란히 띄운 창)에서는 줄이세요 (예: 360). 그림은 이 폭보다 넓어지지
            않으므로(한 열로도 넘칠 때만 한 열 폭) 줄어 보이지 않고 글자 크기가 그대로입니다. 노트북의 실제 폭은
            커널이 알 수 없어서 저절로 맞추지는 못합니다 (폭이 더 좁은 칸에서는 칸 폭에 맞춰 줄어듦).

    Shape:
        - weights: ``(H, L, S)`` (패딩 마스크면 ``L = S = P``, [PAD] 포함)
        - query, key: ``(H, L, Dh)``, ``(H, S, Dh)``
        - summary: 길이 ``H``인 글 목록
    """

    def __init__(
        self,
        tokens: str | Sequence[str] = "나는 어제 도서관에서 책을 빌렸다",
        *,
        seed: int = 0,
        d_k: int = 64,
        num_heads: int = 4,
        num_kv_heads: int | None = None,
        mask: str = "none",
        scaled: bool = True,
        position: str = "none",
        window: int | None = None,
        dpi: int = 88,
        width: int = DEFAULT_WIDTH,
    ) -> None:
        settings = _validate({"tokens": tokens, "seed": seed, "d_k": d_k, "num_heads": num_heads,
                              "num_kv_heads": num_heads if num_kv_heads is None else num_kv_heads,
                              "mask": mask, "scaled": scaled, "position": position, "window": window})
        self._settings = settings
        self._dpi = dpi
        if isinstance(width, bool) or not isinstance(width, int) or width < 200:
            raise ValueError(f"width는 200 이상의 정수(CSS px)여야 하는데 {width!r}이(가) 들어왔습니다.")
        self._width = width
        self._model = ExplorerModel(settings["seed"])
        self._figures: OrderedDict[tuple, _ExplorerFigure] = OrderedDict()
        self.error = ""
        self._suspended = False
        style = {"description_width": "initial"}
        self.controls = {
            "tokens": widgets.Text(" ".join(settings["tokens"]), description="문장", continuous_update=False,
                                   style=style, layout=widgets.Layout(width="30em")),
            "d_k": widgets.SelectionSlider(options=[(str(v), v) for v in DK_CHOICES], value=settings["d_k"],
                                           description="d_k", style=style),
            "num_heads": widgets.IntSlider(settings["num_heads"], min=1, max=MAX_HEADS, description="헤드 수",
                                           style=style),
            "num_kv_heads": widgets.Dropdown(options=kv_head_choices(settings["num_heads"]),
                                             value=settings["num_kv_heads"], description="KV 헤드 수", style=style,
                                             layout=widgets.Layout(width="11em")),
            "mask": widgets.ToggleButtons(options=[(MASK_LABELS[m], m) for m in MASKS], value=settings["mask"],
                                          description="마스크", style={**style, "button_width": "6.5em"}),
            "scaled": widgets.Checkbox(settings["scaled"], description="1/√d_k 스케일링", indent=False),
            "position": widgets.ToggleButtons(options=[(POSITION_LABELS[p], p) for p in POSITIONS],
                                              value=settings["position"], description="위치",
                                              style={**style, "button_width": "5em"}),
            "window": widgets.ToggleButtons(options=[(WINDOW_LABELS[w], _WINDOW_WIDGET.get(w, w)) for w in WINDOWS],
                                            value=_WINDOW_WIDGET.get(settings["window"], settings["window"]),
                                            description="창", style={**style, "button_width": "4em"}),
            "seed": widgets.IntText(settings["seed"], description="시드", style=style,
                                    layout=widgets.Layout(width="9em")),
        }
        for name, _, text in LIVE_CONTROL_HELP:  # 마우스를 올리면 한 줄 설명 (아래 "조작기 설명"과 같은 글)
            setattr(self.controls[name], _TOOLTIP, text)
        for control in self.controls.values():
            control.observe(self._on_control, names="value")
        # 정적 탐색기와 같은 글 (texts): 조작기 아래에 접힌 "조작기 설명", 그림 아래에 "이 그림을 읽는 법"
        self._help = widgets.HTML(live_control_help_html())
        self._how_to_read = widgets.HTML(live_how_to_read_html())
        self._message = widgets.HTML("")
        self._kv_readout = widgets.HTML("")  # KV 캐시 바이트 읽기 (정적 탐색기와 같은 글)
        # 그림 아래의 글 요약 (헤드마다 describe_heads 한 줄, 정적 탐색기와 같은 모양)
        self._summary = widgets.HTML("", layout=widgets.Layout(max_width="100%"))
        # align_self: VBox(세로 flex)가 그림을 칸 너비로 늘려 흐리게 만들지 않도록 원래 크기로
        self._image = widgets.Image(format="png", layout=widgets.Layout(max_width="100%", height="auto",
                                                                         align_self="flex-start"))
        c = self.controls
        self.widget = widgets.VBox([
            widgets.HBox([c["tokens"], c["seed"]]),
            widgets.HBox([c["d_k"], c["num_heads"], c["num_kv_heads"], c["scaled"]]),
            c["mask"],
            widgets.HBox([c["position"], c["window"]], layout=widgets.Layout(flex_flow="row wrap")),
            self._help, self._message, self._image, self._how_to_read, self._kv_readout, self._summary,
        ])
        self._redraw()

    # -- 상태 ---------------------------------------------------------------------------
    @property
    def state(self) -> dict:
        """지금 그려진 설정과 마지막 안내(오류가 없으면 빈 문자열).

        Shape:
            - 해당 없음 (사전)
        """
        return {**self._settings, "tokens": list(self._settings["tokens"]), "error": self.error}

    @property
    def image(self) -> bytes:
        """지금 보이는 그림의 PNG 바이트.

        Shape:
            - 해당 없음 (바이트)
        """
        return self._image.value

    def shown_tokens(self) -> list[str]:
        """히트맵의 축에 보이는 토큰 (패딩 마스크면 ``[PAD]``까지).

        Shape:
            - 반환: 길이 ``L`` (패딩 마스크면 ``P``)
        """
        return explorer_tokens(self._settings["tokens"], self._settings["mask"])

    # -- 계산과 그리기 ---------------------------------------------------------------------
    def forward(self, **settings: object) -> Tensor:
        """주어진 설정(생략하면 지금 설정)의 어텐션 가중치를 그리지 않고 계산합니다.

        Args:
            **settings: ``d_k``, ``num_heads``, ``num_kv_heads``, ``mask``, ``scaled``, ``position``, ``window``,
                ``seed``, ``tokens`` 중 일부.

        Returns:
            어텐션 가중치.

        Raises:
            ValueError: 설정 값이 잘못되었을 때.

        Shape:
            - 반환: ``(H, L, S)``
        """
        s = _validate({**self._settings, **settings})
        model = self._model if s["seed"] == self._model.seed else ExplorerModel(s["seed"])
        tokens = explorer_tokens(s["tokens"], s["mask"])
        weights, _, _, _ = model.weights(tokens, d_k=s["d_k"], num_heads=s["num_heads"], mask=s["mask"],
                                         scaled=s["scaled"], num_kv_heads=s["num_kv_heads"], position=s["position"],
                                         window=s["window"])
        return weights

    def _redraw(self) -> None:
        s = self._settings
        if self._model.seed != s["seed"]:
            self._model = ExplorerModel(s["seed"])
        tokens = self.shown_tokens()
        weights, query, key, attn_mask = self._model.weights(
            tokens, d_k=s["d_k"], num_heads=s["num_heads"], mask=s["mask"], scaled=s["scaled"],
            num_kv_heads=s["num_kv_heads"], position=s["position"], window=s["window"])
        self.weights, self.query, self.key, self.attn_mask = weights, query, key, attn_mask
        w = weights.numpy()
        allowed = np.ones(w.shape, dtype=bool) if attn_mask is None else np.broadcast_to(attn_mask.numpy(), w.shape)
        counts, _ = np.histogram(w[allowed], bins=_HIST_BINS)
        with single_thread():
            share, entropy = float(saturation(weights)), float(attention_entropy(weights).mean())
        stats = f"포화 행 {share:.0%}, 평균 엔트로피 {entropy:.2f} nat"
        self._image.value = self._figure(s["num_heads"], tokens, s["num_kv_heads"]).render(
            w, counts, stats, None if attn_mask is None else attn_mask.numpy())
        self.summary = describe_heads(w, tokens, tokens)
        self._summary.value = summary_html(
            summary_caption(s["d_k"], s["num_heads"], s["mask"], s["scaled"], s["num_kv_heads"], s["position"],
                            s["window"]), self.summary)
        self._kv_readout.value = f'<p class="attn-explorer-kv">{html.escape(kv_readout(s))}</p>'

    def _figure(self, num_heads: int, tokens: list[str], num_kv_heads: int | None = None) -> _ExplorerFigure:
        num_kv_heads = num_heads if num_kv_heads is None else num_kv_heads
        key = (num_heads, tuple(tokens), num_kv_heads)
        if key in self._figures:
            self._figures.move_to_end(key)
        else:
            self._figures[key] = _ExplorerFigure(num_heads, tokens, self._dpi, num_kv_heads, self._width)
            while len(self._figures) > _FIGURE_CACHE:
                self._figures.popitem(last=False)
        return self._figures[key]

    def _show_error(self, message: str) -> None:
        self.error = message
        self._message.value = f'<span style="color:#D55E00">⚠ {html.escape(message)} (마지막 그림을 그대로 둡니다)</span>'

    # -- 조작 ---------------------------------------------------------------------------
    def set(self, **changes: object) -> dict:
        """설정을 바꾸고 다시 그립니다. 새 그림(PNG)이 만들어진 뒤에 돌아옵니다.

        잘못된 값이면 아무것도 바꾸지 않고 위젯에 한국어 안내를 띄웁니다(예외 없음).

        ``num_heads``만 바꾸면, 지금이 보통의 멀티헤드 어텐션(``num_kv_heads == num_heads``)이었거나 지금의
        ``num_kv_heads``가 새 헤드 수를 나누지 않을 때 ``num_kv_heads``가 새 헤드 수를 따라갑니다.

        Args:
            **changes: ``tokens``, ``d_k``, ``num_heads``, ``num_kv_heads``, ``mask``, ``scaled``, ``position``,
                ``window``, ``seed`` 중 일부.

        Returns:
            새 상태 (``state``와 같음; 잘못된 값이면 ``error``에 안내).

        Raises:
            TypeError: 모르는 설정 이름이 들어왔을 때 (코드의 오타).

        Shape:
            - 해당 없음 (사전)
        """
        unknown = sorted(set(changes) - set(_SETTINGS))
        if unknown:
            raise TypeError(f"AttentionExplorer.set이 모르는 설정 {unknown}. 쓸 수 있는 이름: {list(_SETTINGS)}")
        merged = {**self._settings, **changes}
        old_heads, old_kv, heads = self._settings["num_heads"], self._settings["num_kv_heads"], merged["num_heads"]
        if "num_kv_heads" not in changes and isinstance(heads, int) and heads > 0 and \
                (old_kv == old_heads or heads % old_kv != 0):
            merged["num_kv_heads"] = heads  # 멀티헤드였거나 나누어떨어지지 않으면 새 헤드 수를 따라감
        try:
            settings = _validate(merged)
        except (TypeError, ValueError) as exc:
            if "tokens" in changes and isinstance(changes["tokens"], str):
                self._set_controls({"tokens": changes["tokens"]})  # 잘못 적은 글을 그대로 보여 줌
            self._show_error(str(exc))
            return self.state
        self._settings = settings
        self._set_controls({**settings, "tokens": " ".join(settings["tokens"]),
                            "window": _WINDOW_WIDGET.get(settings["window"], settings["window"])})
        self._message.value = ""
        self.error = ""
        self._redraw()
        return self.state

    def _set_controls(self, values: dict) -> None:
        self._suspended = True
        try:
            if "num_heads" in values:  # KV 헤드 수의 선택지는 헤드 수의 약수 (값보다 먼저 바꿈)
                choices = kv_head_choices(values["num_heads"])
                if tuple(self.controls["num_kv_heads"].options) != choices:
                    self.controls["num_kv_heads"].options = choices
            for name, value in values.items():
                self.controls[name].value = value
        finally:
            self._suspended = False

    def _on_control(self, change: dict) -> None:
        if self._suspended:
            return
        values = {name: control.value for name, control in self.controls.items()}
        values["window"] = values["window"] or None  # 조작기의 0 = 전체
        if change.get("owner") is self.controls["num_heads"]:
            values.pop("num_kv_heads")  # 헤드 수를 바꾸면 KV 헤드 수는 set이 맞춤 (나누지 않으면 헤드 수로)
        try:
            self.set(**values)
        except Exception as exc:  # 위젯 콜백에서는 어떤 예외도 노트북으로 올려 보내지 않습니다
            self._show_error(f"예상하지 못한 오류: {exc!r}")

    # -- 표시 ---------------------------------------------------------------------------
    def __repr__(self) -> str:
        s = self._settings
        return (f"AttentionExplorer(tokens={' '.join(s['tokens'])!r}, seed={s['seed']}, d_k={s['d_k']}, "
                f"num_heads={s['num_heads']}, num_kv_heads={s['num_kv_heads']}, mask={s['mask']!r}, "
                f"scaled={s['scaled']}, position={s['position']!r}, window={s['window']})")

    def _repr_mimebundle_(self, **kwargs: object) -> dict:
        """Jupyter는 위젯 보기를, 웹사이트(myst-nb, text/html 우선)는 정적 탐색기를 고릅니다."""
        if not hasattr(self.widget, "_repr_mimebundle_"):
            # ipywidgets 7 (Colab): 위젯 보기만. 7 의 Widget._ipython_display_ 가 보내는 것과 같은 묶음입니다.
            # 정적 탐색기(text/html)는 책 사이트의 vendor 파일을 싣므로 Colab 에서는 쓸 수 없어 넣지 않습니다.
            return {"text/plain": repr(self), "application/vnd.jupyter.widget-view+json": {
                "version_major": 2, "version_minor": 0, "model_id": self.widget.model_id}}
        bundle = self.widget._repr_mimebundle_(**kwargs)
        s = self._settings
        bundle["text/html"] = explorer_html(s["tokens"], s["seed"], d_k=s["d_k"], num_heads=s["num_heads"],
                                            mask=s["mask"], scaled=s["scaled"], num_kv_heads=s["num_kv_heads"],
                                            position=s["position"], window=s["window"])
        bundle["text/plain"] = repr(self)
        return bundle
