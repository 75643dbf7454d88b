"""KV 캐시: 생성(디코딩) 중에 지난 토큰의 키와 밸류를 모아 두는 그릇.

글을 한 토큰씩 만들 때, 캐시가 없으면 새 토큰마다 앞의 모든 토큰의 키와 밸류를 다시 계산합니다.
지난 토큰의 키·밸류는 바뀌지 않으므로(인과 마스크 때문에 뒤 토큰을 보지 않음) 한 번 계산해 여기에 쌓아 두고,
새 토큰의 쿼리는 쌓인 키 전부를 봅니다. ``MultiHeadAttention.forward(..., kv_cache=cache)``가 씁니다.

캐시는 헤드를 나눈 뒤, 그룹 쿼리 어텐션의 반복(``repeat_kv``) **전** 모양 ``(B, Hkv, S, Dh)``로 저장합니다.
키·밸류 헤드 수 ``Hkv``를 줄이는 것(MQA, GQA)이 곧 캐시 메모리를 줄이는 것입니다.
이 모듈은 torch와 ``_checks``만 씁니다.
"""

from __future__ import annotations

import torch
from torch import Tensor

from ._checks import describe

__all__ = ["KVCache", "cache_causal_mask", "append_to_cache"]


class KVCache:
    """셀프 어텐션 한 층의 키·밸류 캐시. ``KVCache()``로 비어 있게 만들고, 모듈이 제자리에서 채웁니다.

    Attributes:
        key, value: 지금까지 쌓인 키와 밸류 (비어 있으면 ``None``).

    Shape:
        - key: ``(B, Hkv, S, Dh)``, value: ``(B, Hkv, S, Dv)`` (``S`` = ``len(cache)``, 지금까지의 토큰 수)
    """

    def __init__(self) -> None:
        self.key: Tensor | None = None
        self.value: Tensor | None = None

    def __len__(self) -> int:
        """캐시에 든 토큰 수 ``S`` (비어 있으면 0).

        Shape:
            - 반환: 파이썬 정수 ``S``
        """
        return 0 if self.key is None else self.key.shape[-2]

    def __repr__(self) -> str:
        layout = "비어 있음" if self.key is None else f"key{tuple(self.key.shape)}, value{tuple(self.value.shape)}"
        return f"KVCache({layout}, nbytes={self.nbytes})"

    @property
    def nbytes(self) -> int:
        """키와 밸류가 차지하는 바이트 수 (``key.nbytes + value.nbytes``; 비어 있으면 0).

        Shape:
            - 반환: 파이썬 정수, ``2 * B * Hkv * S * Dh * (원소 하나의 바이트)`` (``Dv == Dh``일 때)
        """
        if self.key is None:
            return 0
        return self.key.nbytes + self.value.nbytes

    def reset(self) -> None:
        """캐시를 비웁니다 (새 문장을 만들기 전에).

        Shape:
            - 이후 ``len(cache) == 0``, ``nbytes == 0``
        """
        self.key = self.value = None

    def update(self, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
        """새 토큰의 키·밸류를 길이 축 끝에 붙이고, 쌓인 전체를 돌려줍니다.

        Args:
            key: 새 토큰들의 키.
            value: 새 토큰들의 밸류.

        Returns:
            ``(전체 key, 전체 value)``.

        Shape:
            - key: ``(B, Hkv, L, Dh)``, value: ``(B, Hkv, L, Dv)`` (``L`` = 새 토큰 수)
            - 반환: ``(B, Hkv, S + L, Dh)``, ``(B, Hkv, S + L, Dv)``

        Raises:
            ValueError: 이미 쌓인 캐시와 배치 크기, 헤드 수, 너비, dtype이 다를 때.
        """
        if self.key is None:
            self.key, self.value = key, value
            return key, value
        old, new = (self.key.shape[0], self.key.shape[1], self.key.shape[-1]), (key.shape[0], key.shape[1], key.shape[-1])
        if old != new or key.dtype != self.key.dtype or value.shape[-1] != self.value.shape[-1]:
            raise ValueError(
                "KV 캐시에 쌓인 것과 (배치 B, 키·밸류 헤드 수 Hkv, 너비 Dh, dtype)이 같아야 하는데 "
                f"캐시는 key{tuple(self.key.shape)} {self.key.dtype}, 새 키는 {describe(key)}입니다. "
                "다른 배치나 다른 모듈에 쓰려면 새 KVCache()를 만들거나 cache.reset()으로 비우세요."
            )
        self.key = torch.cat([self.key, key], dim=-2)  # (B, Hkv, S, Dh) + (B, Hkv, L, Dh) -> (B, Hkv, S+L, Dh)
        self.value = torch.cat([self.value, value], dim=-2)  # (B, Hkv, S, Dv) + (B, Hkv, L, Dv) -> (B, Hkv, S+L, Dv)
        return self.key, self.value


def cache_causal_mask(L: int, S: int, *, device: torch.device | str | None = None) -> Tensor:
    """캐시 끝에 맞춘 인과 마스크: 새 쿼리 ``i``(전체에서 ``S - L + i``번째 토큰)는 키 ``0..S-L+i``를 봅니다.

    ``L == S``(캐시가 비어 있던 첫 호출)이면 ``causal_mask(L)``과 같습니다. ``True`` = 참여 가능.

    Shape:
        - 반환: ``(L, S)``
    """
    return torch.ones(L, S, dtype=torch.bool, device=device).tril(diagonal=S - L)  # (L, S), 오른쪽 아래에 맞춤


def append_to_cache(
    cache: KVCache, key: Tensor, value: Tensor, attn_mask: Tensor | None
) -> tuple[Tensor, Tensor, Tensor]:
    """새 키·밸류를 캐시에 붙이고, 캐시 끝에 맞춘 인과 마스크를 사용자의 마스크와 합쳐 돌려줍니다.

    ``MultiHeadAttention.forward``가 한 줄로 부르는 도우미입니다. 마스크가 맞지 않으면 캐시를 바꾸기 **전에**
    한국어 오류를 냅니다.

    Args:
        cache: ``KVCache``.
        key, value: 새 토큰들의 키·밸류 (헤드를 나눈 뒤).
        attn_mask: ``None`` 또는 전체 길이 ``S + L``에 맞춘 bool(``True`` = 참여)/덧셈 마스크 (패딩 등).

    Returns:
        ``(전체 key, 전체 value, 마스크)``. 마스크는 인과 마스크와 ``attn_mask``를 모두 지킵니다.

    Shape:
        - key: ``(B, Hkv, L, Dh)``, value: ``(B, Hkv, L, Dv)``
        - attn_mask: ``(..., L, S + L)``로 브로드캐스트되는 모양
        - 반환: ``(B, Hkv, S + L, Dh)``, ``(B, Hkv, S + L, Dv)``, ``(..., L, S + L)``
    """
    if not isinstance(cache, KVCache):
        raise TypeError(f"kv_cache는 attn_lib.KVCache여야 하는데 {describe(cache)}이(가) 들어왔습니다.")
    L, total = key.shape[-2], len(cache) + key.shape[-2]
    if attn_mask is not None:
        if not isinstance(attn_mask, Tensor) or attn_mask.dim() < 2 or \
                attn_mask.shape[-1] not in (1, total) or attn_mask.shape[-2] not in (1, L):
            raise ValueError(
                f"KV 캐시와 함께 쓰는 attn_mask는 (새 쿼리 L={L}, 전체 키 S={total}) 꼴의 마지막 두 축을 가져야 하는데 "
                f"{describe(attn_mask)}이(가) 들어왔습니다. 인과 마스크는 모듈이 캐시 끝에 맞춰 스스로 겁니다."
            )
    key, value = cache.update(key, value)  # (B, Hkv, S, Dh) + (B, Hkv, L, Dh) -> (B, Hkv, S+L, Dh)
    causal = cache_causal_mask(L, total, device=key.device)  # (L, S+L)
    if attn_mask is None:
        return key, value, causal
    if attn_mask.dtype == torch.bool:
        return key, value, attn_mask & causal  # 둘 다 True(참여)인 곳만 참여
    blocked = torch.full((), float("-inf"), dtype=attn_mask.dtype, device=attn_mask.device)
    return key, value, torch.where(causal, attn_mask, blocked)  # 덧셈 마스크: 미래 키는 -inf
