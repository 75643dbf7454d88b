"""내 어텐션을 참조와 나란히: 학생의 ``attention_fn``이 만든 가중치를 참조 구현 옆에 그리고 차이와 힌트를 보여 줍니다.

``attention_fn``은 ``scaled_dot_product_attention``과 같은 꼴 ``(query, key, value, attn_mask=None) -> (output,
weights)``입니다. 쿼리와 키는 탐색기의 작은 모델(``ExplorerModel(seed).queries_keys``)에서, 마스크는 탐색기의
마스크 이름(``explorer_mask``)에서 만들어 탐색기와 같은 설정(``d_k``, 헤드 수, 마스크)으로 비교합니다. 참조는
``attn_lib.scaled_dot_product_attention``이고, 힌트는 채점기(``check_attention``)가 찾은 첫 실수의 것입니다.

- ``compare_attention``: 한 설정에서 계산만 하고 ``AttentionComparison``을 돌려줍니다(``.figure()``로 그림).
- ``compare_attention_live``: 커널에서 ``d_k``, 헤드 수, 마스크를 바꾸며 다시 그리는 ipywidgets 보기.

탐색기는 이 모듈(채점기)을 import하지 않습니다. 방향은 practice -> explorer, viz, attn_lib 뿐입니다.
"""

from __future__ import annotations

import html
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import matplotlib.pyplot as plt
import torch
from matplotlib.figure import Figure
from torch import Tensor

from attn_lib._checks import describe
from attn_lib.attention import scaled_dot_product_attention
from ..explorer.model import DK_CHOICES, MASKS, ExplorerModel, explorer_mask
from ..viz import HEATMAP_CMAP, TEXT_PT, png_bytes, set_alt
from ..viz.layout import grid_layout
from .engine import CheckResult
from .hints import MISTAKES
from .practice import check_attention

__all__ = ["AttentionComparison", "compare_attention", "compare_attention_live"]

#: 기본 문장 (탐색기와 같음)
DEFAULT_TOKENS = "나는 어제 도서관에서 책을 빌렸다"
#: 마스크 이름의 한국어 (탐색기의 마스크 이름과 같은 네 가지)
MASK_NAMES = {"none": "없음", "causal": "인과", "padding": "패딩", "causal+padding": "인과+패딩"}
#: 비교에서 고를 수 있는 헤드 수의 최댓값 (헤드마다 그림 세 장)
MAX_COMPARE_HEADS = 8
_PAD = "[PAD]"  # 패딩 마스크일 때 붙이는 자리 (두 칸)
ALT_LIMIT = 300


def _first_sentence(text: str) -> str:
    end = text.find("다.")
    return text[: end + 2] if end >= 0 else text


def _draw_columns(columns: list[tuple[str, Tensor]], tokens: list[str], title: str) -> Figure:
    """헤드마다 한 줄, 열마다 한 칸인 히트맵 격자를 그립니다 (모든 칸이 같은 색 눈금 [0, 1])."""
    H, L, S = columns[0][1].shape
    grid = grid_layout(H * len(columns), L, S, max(len(t) for t in tokens), annotate=False, ncols=len(columns),
                       extra_w=0.9, extra_h=0.45)
    fig, axes = plt.subplots(H, len(columns), figsize=grid.figsize, squeeze=False, layout="constrained")
    plt.close(fig)  # pyplot 자동 표시에서 빼기: 돌려준 그림만 한 번 보이도록
    image = None
    for h in range(H):
        for c, (name, values) in enumerate(columns):
            ax = axes[h, c]
            image = ax.imshow(values[h].detach().float().numpy(), cmap=HEATMAP_CMAP, vmin=0.0, vmax=1.0,
                              aspect="auto", interpolation="nearest")
            ax.set_title(f"헤드 {h} · {name}", fontsize=TEXT_PT["panel_title"])
            ax.set_xticks(range(S), tokens if h == H - 1 else [""] * S, rotation=60, ha="right", rotation_mode="anchor",
                          fontsize=TEXT_PT["tick"])  # 마지막 줄과 첫 열에만 토큰 이름
            ax.set_yticks(range(L), tokens if c == 0 else [""] * L, fontsize=TEXT_PT["tick"])
    fig.colorbar(image, ax=axes, shrink=0.8, label="가중치 (차이는 절댓값)")
    fig.suptitle(title)
    return fig


@dataclass
class AttentionComparison:
    """한 설정에서 학생 함수와 참조의 어텐션 가중치, 그 차이, 채점기의 결과.

    Attributes:
        tokens: 보이는 토큰 (패딩 마스크면 ``[PAD]`` 두 칸 포함).
        d_k, num_heads, mask: 비교한 설정.
        reference: 참조 가중치.
        student: 학생 가중치 (오류가 났거나 모양이 틀리면 ``None``).
        error: 학생 함수가 낸 오류나 모양 문제를 적은 한국어 글 (없으면 ``None``).
        check: ``check_attention(attention_fn)``의 결과 (첫 실수와 힌트).

    Shape:
        - reference, student, difference: ``(H, L, S)``
    """

    tokens: list[str]
    d_k: int
    num_heads: int
    mask: str
    reference: Tensor
    student: Tensor | None
    error: str | None
    check: CheckResult

    @property
    def difference(self) -> Tensor | None:
        """학생과 참조 가중치의 차이의 절댓값 (NaN은 NaN 그대로).

        Shape:
            - 반환: ``(H, L, S)`` 또는 ``None``
        """
        return None if self.student is None else (self.student.double() - self.reference.double()).abs()

    @property
    def max_difference(self) -> float:
        """가장 큰 차이 (NaN이 있으면 ``nan``, 학생 가중치가 없으면 ``nan``).

        Shape:
            - 반환: 파이썬 실수
        """
        diff = self.difference
        return float("nan") if diff is None else float(diff.max())

    @property
    def hint(self) -> str:
        """채점기가 찾은 첫 실수의 한국어 힌트 (통과했으면 통과했다는 글).

        Shape:
            - 반환: 한국어 문자열
        """
        if self.check.passed:
            return f"채점기의 {self.check.cases}가지 경우를 모두 통과했습니다. 위 설정에서도 참조와 같아야 합니다."
        if self.check.mistake is not None:
            return MISTAKES[self.check.mistake]
        return self.check.message

    def figure(self) -> Figure:
        """헤드마다 한 줄에 세 칸(내 구현, 참조, 차이의 절댓값)을 같은 색 눈금 [0, 1]에 그립니다.

        학생 가중치가 없으면(오류) 참조 칸만 그립니다. 학생 가중치는 행의 합이 1이 아닐 수 있어서
        (틀린 구현) 검사 없이 그대로 그리고, NaN 칸은 비워 둡니다. 대체 텍스트는 300자 이하의 한국어 요약입니다.

        Shape:
            - 그림: 헤드 ``H``줄 × 3칸 (오류면 × 1칸)
        """
        H = self.num_heads
        title = f"내 어텐션과 참조 (d_k = {self.d_k}, 헤드 {H}개, 마스크 {MASK_NAMES[self.mask]})"
        if self.student is None:
            columns = [("참조", self.reference)]
            title += ": 내 함수는 오류"
            summary = f"내 함수는 가중치를 내지 못했습니다({self.error})"
        else:
            diff = self.difference
            columns = [("내 구현", self.student), ("참조", self.reference), ("|차이|", diff)]
            summary = self._difference_summary(torch.nan_to_num(diff, nan=1.0))
        fig = _draw_columns(columns, self.tokens, title)
        what = (f"내 어텐션 함수와 참조(attn_lib)의 가중치 히트맵을 헤드 {H}개마다 나란히 그린 그림"
                + ("" if self.student is None else ", 셋째 칸은 차이의 절댓값"))
        alt = f"{what}: {summary}. 힌트: {_first_sentence(self.hint)}"
        return set_alt(fig, alt if len(alt) <= ALT_LIMIT else alt[: ALT_LIMIT - 1] + "…")

    def _difference_summary(self, diff: Tensor) -> str:
        nan = int(torch.isnan(self.student).sum())
        if float(diff.max()) < 1e-5 and not nan:
            return "모든 칸에서 참조와 같음"
        h, i, _ = (int(v) for v in torch.unravel_index(diff.argmax(), diff.shape))
        text = f"최대 차이 {float(diff.max()):.2f}, 헤드 {h}의 쿼리 '{self.tokens[i]}' 행"
        return text + (f", NaN {nan}칸" if nan else "")


def _settings(tokens: str | Sequence[str], d_k: int, num_heads: int, mask: str) -> list[str]:
    words = tokens.split() if isinstance(tokens, str) else [str(t) for t in tokens]
    if not 1 <= len(words) <= 12:
        raise ValueError(f"토큰은 1개 이상 12개 이하여야 하는데 {len(words)}개가 들어왔습니다.")
    if d_k not in DK_CHOICES:
        raise ValueError(f"d_k는 {DK_CHOICES} 중 하나여야 하는데 {d_k!r}이(가) 들어왔습니다.")
    if isinstance(num_heads, bool) or not isinstance(num_heads, int) or not 1 <= num_heads <= MAX_COMPARE_HEADS:
        raise ValueError(f"num_heads는 1 이상 {MAX_COMPARE_HEADS} 이하의 정수여야 하는데 {num_heads!r}이(가) 들어왔습니다.")
    if mask not in MASKS:
        raise ValueError(f"mask는 {MASKS} 중 하나여야 하는데 {mask!r}이(가) 들어왔습니다.")
    return words + [_PAD, _PAD] if "padding" in mask else words


def compare_attention(attention_fn: Callable[..., Any], *, tokens: str | Sequence[str] = DEFAULT_TOKENS, d_k: int = 64,
                      num_heads: int = 2, mask: str = "causal", seed: int = 0,
                      check: CheckResult | None = None) -> AttentionComparison:
    """``attention_fn``과 참조의 어텐션 가중치를 탐색기의 설정 하나에서 계산해 비교합니다.

    Args:
        attention_fn: ``(query, key, value, attn_mask=None) -> (output, weights)`` 꼴의 학생 함수.
        tokens: 문장(공백으로 나눔)이나 토큰 목록 (12개 이하).
        d_k: 헤드 하나의 쿼리·키 너비 (탐색기의 ``DK_CHOICES`` 중 하나).
        num_heads: 헤드 수 (1~8).
        mask: ``"none"``, ``"causal"``, ``"padding"``, ``"causal+padding"``.
        seed: 탐색기 모델의 시드.
        check: 이미 계산한 ``check_attention(attention_fn)`` (없으면 계산).

    Returns:
        ``AttentionComparison`` (``.figure()``, ``.hint``, ``.max_difference``).

    Raises:
        TypeError: ``attention_fn``을 부를 수 없을 때.
        ValueError: 설정이 범위 밖일 때.

    Shape:
        - query ``(H, L, Dh)``, key ``(H, S, Dh)``, value ``(H, S, Dh)``, attn_mask ``(H, L, S)``로 브로드캐스트
        - 가중치 ``(H, L, S)``
    """
    if not callable(attention_fn):
        raise TypeError(f"attention_fn은 (query, key, value, attn_mask=None)를 받는 함수여야 하는데 {describe(attention_fn)}이(가) 들어왔습니다.")
    shown = _settings(tokens, d_k, num_heads, mask)
    n = sum(t != _PAD for t in shown)
    query, key = ExplorerModel(seed).queries_keys(shown, d_k, num_heads)  # (H, L, Dh), (H, S, Dh)
    value = torch.randn(num_heads, len(shown), d_k, generator=torch.Generator().manual_seed(seed))  # (H, S, Dv)
    attn_mask = explorer_mask(mask, len(shown), n)
    _, reference = scaled_dot_product_attention(query, key, value, attn_mask)
    student, error = None, None
    try:
        result = attention_fn(query, key, value, attn_mask)
        weights = result[1] if isinstance(result, (tuple, list)) and len(result) == 2 else None
        if not isinstance(weights, Tensor):
            error = f"(output, weights) 튜플이어야 하는데 {describe(result)}이(가) 나왔습니다"
        elif weights.shape != reference.shape:
            error = f"가중치 모양이 {tuple(reference.shape)}이어야 하는데 {tuple(weights.shape)}입니다"
        else:
            student = weights.detach()
    except Exception as exc:  # 학생 코드의 어떤 오류든 글로 바꿉니다
        error = f"{type(exc).__name__}: {exc}"
    return AttentionComparison(shown, d_k, num_heads, mask, reference, student, error,
                               check if check is not None else check_attention(attention_fn))


def compare_attention_live(attention_fn: Callable[..., Any], *, tokens: str | Sequence[str] = DEFAULT_TOKENS,
                           d_k: int = 64, num_heads: int = 2, mask: str = "causal", seed: int = 0) -> Any:
    """커널에서 ``d_k``, 헤드 수, 마스크를 바꾸며 내 어텐션과 참조를 다시 그리는 ipywidgets 보기를 돌려줍니다.

    채점기는 처음에 한 번만 돌리고(설정과 상관없음), 조작할 때마다 그림과 차이 요약만 다시 계산합니다.

    Returns:
        ``ipywidgets.VBox`` (``.comparison``에 마지막 ``AttentionComparison``, ``.controls``에 조작기 dict).

    Shape:
        - 그림: 헤드 ``H``줄 × 3칸
    """
    import ipywidgets as widgets  # 커널에서 보기를 만들 때만 필요합니다

    first = compare_attention(attention_fn, tokens=tokens, d_k=d_k, num_heads=num_heads, mask=mask, seed=seed)
    controls = {
        "d_k": widgets.Dropdown(options=list(DK_CHOICES), value=d_k, description="d_k"),
        "num_heads": widgets.IntSlider(value=num_heads, min=1, max=MAX_COMPARE_HEADS, description="헤드 수"),
        "mask": widgets.Dropdown(options=[(MASK_NAMES[m], m) for m in MASKS], value=mask, description="마스크"),
    }
    image, text = widgets.Image(format="png"), widgets.HTML()
    box = widgets.VBox([widgets.HBox(list(controls.values())), image, text])

    def redraw(_: Any = None) -> None:
        box.comparison = compare_attention(attention_fn, tokens=tokens, d_k=controls["d_k"].value,
                                           num_heads=controls["num_heads"].value, mask=controls["mask"].value,
                                           seed=seed, check=first.check)
        fig = box.comparison.figure()
        image.value = png_bytes(fig)
        diff = box.comparison.max_difference
        gap = box.comparison.error or ("NaN이 있음" if math.isnan(diff) else f"가장 큰 차이 {diff:.3g}")
        text.value = f"<p><b>{html.escape(gap)}</b></p><p>힌트: {html.escape(box.comparison.hint)}</p>"

    for control in controls.values():
        control.observe(redraw, names="value")
    box.controls = controls
    redraw()
    return box
