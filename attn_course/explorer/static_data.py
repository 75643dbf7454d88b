"""정적 탐색기의 데이터: 빌드할 때 미리 계산해 페이지에 넣는 점수 격자.

정적 웹사이트에는 커널이 없으므로 ipywidgets 조작기는 아무것도 다시 계산하지 못합니다.
그래서 빌드할 때(노트북을 실행할 때) 페이지의 고정된 문장과 시드에 대해 브라우저에 필요한 것을
미리 계산해 둡니다. 저장하는 것은 스케일링·마스크·소프트맥스 **전**의 내적 ``Q K^T``뿐입니다.

- 격자: ``d_k`` = 1, 2, 4, ..., 512 (10개) x (쿼리 헤드 ``h``, 키 헤드 ``g``) 쌍 x ``P x P``
  (``P``는 ``[PAD]``까지 붙인 길이). 헤드 수는 포개져 있어서(앞쪽 ``h``개 헤드) 따로 저장하지 않습니다.
  보통의 멀티헤드 어텐션은 ``g = h``이고, 키·밸류 헤드를 나누면(그룹 쿼리 어텐션) ``g = h >> shift``
  (``shift = log2(H / Hkv)``, 0~4)입니다. 겹치는 쌍은 한 번만 저장하므로 ``d_k``마다 65쌍입니다.
- RoPE(``position="rope"``)의 점수는 ``r = 1``인 행으로 따로 저장합니다 (``d_k >= 2``만; ``d_k = 1``은 돌릴 짝이
  없어 ``r = 0`` 행을 씀). 키·밸류 헤드를 나누지 않은 쌍(``g = h``, 16쌍)만 저장하므로 정적 탐색기는 RoPE를 고르면
  KV 헤드 수를 헤드 수로 봅니다 (65쌍을 다 넣으면 gzip으로 약 130 KB가 더 들어 예산을 넘음). 창은 마스크라서 점수를 더 저장하지 않습니다(브라우저가 마스크로 계산).
- ``[PAD]`` 키 열의 점수는 0으로 적습니다: ``[PAD]``는 패딩 마스크일 때만 보이고 그때 늘 가려지므로 값을 쓰지
  않습니다. 0은 한 글자라 gzip이 잘 줄여, RoPE 행을 더해도 데이터가 예산(gzip 250 KB) 안에 듭니다.
- 나머지(스케일링, 마스크, 소프트맥스, 그리기)는 브라우저의 Vega-Lite가 합니다(``spec.explorer_spec``).
  격자점마다의 글 요약은 ``summary.summary_table``이 만듭니다.
"""

from __future__ import annotations

from collections.abc import Sequence

from .model import DK_CHOICES, MAX_HEADS, ExplorerModel, padded_length, shown_tokens

#: 정적 탐색기의 그룹 크기 ``G = H / Hkv``의 log2 (0이면 보통의 멀티헤드 어텐션, 4면 헤드 16개가 키 하나)
STATIC_SHIFTS = tuple(range(MAX_HEADS.bit_length()))

__all__ = ["STATIC_MAX_TOKENS", "STATIC_HEADS", "STATIC_SHIFTS", "static_grid"]

#: 정적 탐색기 문장의 최대 토큰 수 (페이지당 데이터 예산 500 KB 안에 들도록)
STATIC_MAX_TOKENS = 8
#: 정적 탐색기의 헤드 수 선택지 (앞쪽 h개 헤드)
STATIC_HEADS = (1, 2, 4, 8, 16)
#: 저장하는 점수의 소수점 자릿수. 점수 오차 5e-4는 가중치 오차 1.25e-4 이하입니다(소프트맥스 기울기 <= 1/4).
SCORE_DECIMALS = 3


def static_grid(tokens: Sequence[str], seed: int) -> dict:
    """브라우저에 넘길 격자: ``d_k``마다 모든 헤드의 ``Q K^T`` (패딩까지 붙인 문장).

    Args:
        tokens: 실제 토큰 (``STATIC_MAX_TOKENS``개 이하, ``[PAD]`` 없음).
        seed: 탐색기 모델의 시드.

    Returns:
        ``{"tokens", "n", "P", "seed", "rows"}``. ``rows``는 ``(d_k, 쿼리 헤드 h, 키 헤드 g, RoPE r)``마다 하나씩
        ``{"dk": d_k, "h": h, "g": g, "r": 0 또는 1, "s": [...]}``이고, ``s``는 쿼리 헤드 ``h``와 키 헤드 ``g``의
        ``(P, P)`` 점수를 행 우선으로 편 목록입니다 (``[PAD]`` 키 열은 0).

    Shape:
        - rows[i]["s"]: 길이 ``P * P`` (쿼리, 키 순서)
    """
    tokens = list(tokens)
    n = len(tokens)
    if not 1 <= n <= STATIC_MAX_TOKENS:
        raise ValueError(f"정적 탐색기의 문장은 토큰 1~{STATIC_MAX_TOKENS}개여야 하는데 {n}개입니다.")
    P = padded_length(n)
    padded = shown_tokens(tokens, "padding")
    model = ExplorerModel(seed)
    rows = []
    for rope in (0, 1):
        for d_k in DK_CHOICES[1:] if rope else DK_CHOICES:
            seen = set()
            for shift in STATIC_SHIFTS:
                # (MAX_HEADS, P, P): 쿼리 헤드 h, 키 헤드 h >> shift
                scores = model.raw_scores(padded, d_k, shift, "rope" if rope else "none")
                scores[:, :, n:] = 0  # [PAD] 키 열: 늘 가려지므로 값이 필요 없음
                flat = scores.reshape(MAX_HEADS, P * P).tolist()  # (MAX_HEADS, P, P) -> (MAX_HEADS, P * P)
                for h, head_scores in enumerate(flat):
                    # RoPE 점수는 h = g 쌍만 (키·밸류 헤드를 나눈 쌍까지 넣으면 데이터가 예산을 넘음)
                    if (h, h >> shift) not in seen and not (rope and shift):
                        seen.add((h, h >> shift))
                        rows.append({"dk": d_k, "h": h, "g": h >> shift, "r": rope,
                                     "s": [round(v, SCORE_DECIMALS) or 0 for v in head_scores]})
    return {"tokens": padded, "n": n, "P": P, "seed": seed, "rows": rows}


def _static_heads(num_heads: int) -> int:
    """정적 탐색기 선택지 중 ``num_heads`` 이하인 가장 큰 값."""
    return max(h for h in STATIC_HEADS if h <= max(1, num_heads))
