"""탐색기 설정의 검사(``_validate``)와 KV 캐시 읽기 글(``kv_readout``). 살아 있는 탐색기가 씁니다.

torch, ipywidgets, matplotlib을 쓰지 않습니다.
"""

from __future__ import annotations

import numpy as np

from .model import (
    DK_CHOICES,
    KV_BYTES_PER_ELEMENT,
    MASK_LABELS,
    MASKS,
    MAX_HEADS,
    check_kv_heads,
    check_position,
    check_window,
    kv_cache_bytes_per_token,
    parse_tokens,
)

__all__ = ["kv_readout"]


def kv_readout(settings: dict) -> str:
    """KV 캐시 읽기 한 줄 (정적 탐색기의 글과 같음): 토큰 하나, 층 하나가 캐시에 더하는 바이트.

    Shape:
        - 해당 없음 (글)
    """
    kv, heads, d_k = settings["num_kv_heads"], settings["num_heads"], settings["d_k"]
    return (f"KV 캐시: 토큰 하나, 층 하나에 2 × KV 헤드 {kv} × d_k {d_k} × {KV_BYTES_PER_ELEMENT}바이트 = "
            f"{kv_cache_bytes_per_token(kv, d_k):,}바이트 (float32; 헤드마다 따로 두면 "
            f"{kv_cache_bytes_per_token(heads, d_k):,}바이트)")


def _validate(settings: dict) -> dict:
    """탐색기 설정을 검사하고 정규화합니다 (잘못되면 한국어 ValueError/TypeError)."""
    out = dict(settings)
    out["tokens"] = tuple(parse_tokens(settings["tokens"]))
    d_k = settings["d_k"]
    if isinstance(d_k, bool) or d_k not in DK_CHOICES:
        raise ValueError(f"d_k는 {', '.join(map(str, DK_CHOICES))} 중 하나여야 하는데 {d_k!r}이(가) 들어왔습니다.")
    heads = settings["num_heads"]
    if isinstance(heads, bool) or not isinstance(heads, int) or not 1 <= heads <= MAX_HEADS:
        raise ValueError(f"헤드 수는 1~{MAX_HEADS} 사이의 정수여야 하는데 {heads!r}이(가) 들어왔습니다.")
    mask = {label: name for name, label in MASK_LABELS.items()}.get(settings["mask"], settings["mask"])
    if mask not in MASKS:
        raise ValueError(f"마스크는 {', '.join(MASKS)} (없음/인과/패딩/인과+패딩) 중 하나여야 하는데 "
                         f"{settings['mask']!r}이(가) 들어왔습니다.")
    out["mask"] = mask
    out["num_kv_heads"] = check_kv_heads(heads, settings.get("num_kv_heads", heads))
    if not isinstance(settings["scaled"], (bool, np.bool_)):
        raise ValueError(f"scaled는 True 또는 False여야 하는데 {settings['scaled']!r}이(가) 들어왔습니다.")
    out["scaled"] = bool(settings["scaled"])
    out["position"] = check_position(settings.get("position", "none"))
    out["window"] = check_window(settings.get("window"))
    seed = settings["seed"]
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**31:
        raise ValueError(f"시드는 0 이상 2^31 미만의 정수여야 하는데 {seed!r}이(가) 들어왔습니다.")
    return out
