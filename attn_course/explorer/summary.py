"""탐색기의 글 요약: 헤드마다 한 줄(``describe.describe_heads``), 그 제목과 HTML.

정적 탐색기와 살아 있는 탐색기(``live.AttentionExplorer``)가 같은 제목과 같은 HTML 모양을 씁니다.
그림 아래의 ``.attn-explorer-summary``(``aria-live="polite"``)에 헤드마다 한 줄씩 보이고, 조작기를
바꾸면 바뀝니다. 정적 탐색기는 커널이 없으므로 빌드할 때 격자점마다 파이썬이 글을 계산해
명세의 ``usermeta.attnSummary``에 넣어 둡니다(``summary_table``). 헤드가 포개져 있으므로 헤드 ``h``의
줄은 헤드 수와 상관없이 ``(d_k, 마스크, 스케일링)``마다 하나이고, 같은 줄은 한 번만 저장합니다.
"""

from __future__ import annotations

import html
from collections.abc import Sequence

from .model import (DK_CHOICES, MASK_LABELS, MASKS, MAX_HEADS, POSITION_LABELS, POSITIONS, WINDOW_LABELS, WINDOWS,
                    ExplorerModel, shown_tokens)
from ..viz.describe import describe_heads

__all__ = ["summary_key", "summary_table", "summary_caption", "summary_html"]


def summary_key(d_k: int, mask: str, scaled: bool, shift: int = 0, position: str = "none",
                window: int | None = None) -> str:
    """요약 표의 열쇠 ``"<d_k>|<마스크>|<1 또는 0>"``, 키·밸류 헤드를 나누면 끝에 ``"|<shift>"``
    (``shift = log2(H / Hkv)``), RoPE면 ``"|rope"``, 창이 있으면 ``"|w<창>"`` (브라우저의 불러오기 스크립트도
    같은 꼴로 만듭니다).

    Shape:
        - 해당 없음 (글)
    """
    return (f"{d_k}|{mask}|{int(bool(scaled))}" + (f"|{shift}" if shift else "")
            + ("|rope" if position == "rope" else "") + (f"|w{window}" if window else ""))


def summary_caption(d_k: int, num_heads: int, mask: str, scaled: bool, num_kv_heads: int | None = None,
                    position: str = "none", window: int | None = None) -> str:
    """요약 목록 위의 제목: 지금 설정을 말합니다 (키·밸류 헤드를 나누면 그 수도, RoPE와 창은 켰을 때만).

    Shape:
        - 해당 없음 (글)
    """
    kv = "" if num_kv_heads in (None, num_heads) else f", KV 헤드 {num_kv_heads}개"
    return (f"헤드별 요약 (d_k = {d_k}, 헤드 {num_heads}개{kv}, 마스크 {MASK_LABELS[mask]}, "
            f"스케일링 {'켬' if scaled else '끔'}"
            + (f", 위치 {POSITION_LABELS[position]}" if position != "none" else "")
            + (f", 창 {WINDOW_LABELS[window]}" if window else "") + ")")


def summary_html(caption: str, lines: Sequence[str], *, element_id: str | None = None, state: str = "") -> str:
    """글 요약 HTML: 제목 한 줄과 헤드마다 ``<li>`` 하나, ``aria-live="polite"``로 바뀌면 화면 낭독기가 읽음.

    정적 탐색기와 살아 있는 탐색기(``live.AttentionExplorer``)가 같은 모양을 씁니다.

    Shape:
        - lines: 길이 ``H``
    """
    attrs = (f' id="{html.escape(element_id)}"' if element_id else "") + (f' data-key="{html.escape(state)}"' if state else "")
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return (f'<div class="attn-explorer-summary"{attrs} aria-live="polite">'
            f'<p class="attn-explorer-summary-caption">{html.escape(caption)}</p>'
            f'<ul class="attn-explorer-summary-list">{items}</ul></div>')


def summary_table(tokens: Sequence[str], seed: int) -> dict:
    """격자점마다 ``describe_heads``의 줄: ``{"lines": [...], "index": {열쇠: [줄 번호 x MAX_HEADS]}}``.

    헤드 ``h``의 줄은 ``lines[index[summary_key(d_k, mask, scaled, shift, position, window)][h]]``이고
    (``shift = log2(H / Hkv)``, 쿼리 헤드 ``h``가 키 헤드 ``h >> shift``를 씀), 헤드 수 ``k``를 고르면 앞의
    ``k``줄이 ``describe_heads(가중치, 보이는 토큰, 보이는 토큰)``과 같습니다(보이는 토큰: 패딩 마스크면
    ``[PAD]``까지). 같은 줄은 ``lines``에 한 번만 있습니다.

    RoPE나 창을 켠 설정은 키·밸류 헤드를 나누지 않은 것(``shift = 0``)만 넣습니다: 모두 넣으면 요약이 네 배가 되어
    정적 탐색기의 데이터 예산(gzip 250 KB)을 넘습니다. 열쇠가 없는 설정에서는 불러오기 스크립트가 안내 한 줄을 보입니다.

    Args:
        tokens: 실제 토큰 (``[PAD]`` 없음).
        seed: 탐색기 모델의 시드.

    Returns:
        JSON으로 바꿀 수 있는 사전.

    Shape:
        - index의 각 값: 길이 ``MAX_HEADS``
    """
    model = ExplorerModel(seed)
    lines: dict[str, int] = {}
    index = {}
    for d_k in DK_CHOICES:
        for mask in MASKS:
            shown = shown_tokens(tokens, mask)
            for scaled in (True, False):
                for position in POSITIONS:
                    for window in WINDOWS:
                        plain = position == "none" and window is None
                        for shift in range(MAX_HEADS.bit_length() if plain else 1):
                            weights, *_ = model.weights(shown, d_k=d_k, num_heads=MAX_HEADS, mask=mask, scaled=scaled,
                                                        num_kv_heads=MAX_HEADS >> shift, position=position,
                                                        window=window)
                            rows = describe_heads(weights, shown, shown)
                            index[summary_key(d_k, mask, scaled, shift, position, window)] = [
                                lines.setdefault(line, len(lines)) for line in rows]
    return {"lines": list(lines), "index": index}
