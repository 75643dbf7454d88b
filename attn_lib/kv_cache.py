"""KV 캐시: 생성(디코딩) 중에 지난 토큰의 키와 밸류를 모아 두는 그릇.

글을 한 토큰씩 만들 때, 캐시가 없으면 새 토큰마다 앞의 모든 토큰의 키와 밸류를 다시 계산합니다.
지난 토큰의 키·밸류는 바뀌지 않으므로(인과 마스크 때문에 뒤 토큰을 보지 않음) 한 번 계산해 여기에 쌓아 두고,
새 토큰의 쿼리는 쌓인 키 전부를 봅니다. ``MultiHeadAttention.forward(..., kv_cache=cache)``가 씁니다.

캐시는 헤드를 나눈 뒤, 그룹 쿼리 어텐션의 반복(``repeat_kv``) **전** 모양 ``(B, Hkv, S, Dh)``로 저장합니다.
키·밸류 헤드 수 ``Hkv``를 줄이는 것(MQA, GQA)이 곧 캐시 메모리를 줄이는 것입니다.
``KVCache(max_len, sink)``는 롤링 캐시입니다: 맨 앞 ``sink``개(어텐션 싱크)와 가장 최근 토큰만 ``max_len``개까지
남기고 나머지를 버리므로 메모리가 길이와 상관없이 묶입니다.
이 모듈은 torch와 ``_checks``, ``masks``만 씁니다.
"""

from __future__ import annotations

import torch
from torch import Tensor

from ._checks import check_nonnegative_int, check_positive_int, describe
from .masks import position_mask

__all__ = ["KVCache", "cache_causal_mask", "append_to_cache"]


class KVCache:
    """셀프 어텐션 한 층의 키·밸류 캐시. ``KVCache()``로 비어 있게 만들고, 모듈이 제자리에서 채웁니다.

    ``max_len``을 주면 **롤링 캐시**입니다. 토큰을 붙인 뒤 맨 앞 ``sink``개와 가장 최근 ``max_len - sink``개만
    남깁니다(StreamingLLM, Xiao et al. 2023의 "어텐션 싱크 + 최근 창"). 그래서 ``len(cache) <= max_len``이고
    ``nbytes``가 몇 토큰을 만들든 ``max_len``개 분량을 넘지 않습니다. 모듈은 캐시가 남기는 키만 보도록 마스크를
    겁니다: 위치 ``p``의 쿼리는 키 ``j < sink``와 ``p - (max_len - sink) < j <= p``를 봅니다
    (``sliding_window_mask(..., window=max_len - sink, sink=sink)``와 같은 규칙).

    ``seen``은 지금까지 붙인 토큰의 총수입니다. 버린 토큰도 세므로, 롤링 캐시에서 다음 토큰의 위치(RoPE가 쓰는
    위치)는 ``len(cache)``가 아니라 ``seen``입니다(롤링 캐시의 길이는 ``max_len``에서 멈춤). 남아 있는 키들의 위치는
    ``positions()``가 돌려줍니다.

    **RoPE를 쓰는 모듈과 함께일 때** (``MultiHeadAttention(..., rope_base=...)``): 캐시는 **돌린 뒤의** 키를
    저장합니다. 키는 붙일 때 자기 위치 ``seen + i``로 한 번만 돌리고 새 쿼리도 자기 위치로 돌리므로, 점수는 두
    토큰의 실제 거리에 달립니다. 그래서 모두 남기는 캐시로 만든 결과는 전체를 한 번에 계산한 결과와 같고, 롤링
    캐시로 만든 결과는 창 + 싱크 마스크를 건 전체 어텐션과 같습니다(테스트가 확인). StreamingLLM의 코드
    (``streaming_llm/pos_shift/modify_llama.py``)는 반대로 돌리기 **전의** 키를 캐시하고, 단계마다 캐시 안의 자리
    ``0 .. S-1``로 키 전체를 다시 돌립니다. 그러면 싱크까지의 거리가 ``max_len``을 넘지 않아 모델이 학습 때보다 긴
    거리를 만나지 않지만, 단계마다 캐시 전체를 다시 돌려야 하고 결과는 어떤 마스크를 건 전체 어텐션과도 같지
    않습니다. 이 라이브러리는 전체 어텐션과 맞춰 볼 수 있는 쪽을 골랐습니다.

    Args:
        max_len: 선택. 남길 토큰의 최대 수 (싱크 포함, 1 이상). ``None``이면 모두 남깁니다.
        sink: 버리지 않을 맨 앞 토큰 수 (0 이상, ``max_len``보다 작게; ``max_len`` 없이는 0).

    Attributes:
        key, value: 지금 남아 있는 키와 밸류 (비어 있으면 ``None``).
        seen: 지금까지 붙인 토큰 수.

    Shape:
        - key: ``(B, Hkv, S, Dh)``, value: ``(B, Hkv, S, Dv)`` (``S`` = ``len(cache)``, 남아 있는 토큰 수)
    """

    def __init__(self, max_len: int | None = None, sink: int = 0) -> None:
        if max_len is not None:
            check_positive_int(max_len, "max_len")
        check_nonnegative_int(sink, "sink")
        if sink and (max_len is None or sink >= max_len):
            raise ValueError(
                f"sink(={sink})는 max_len(={max_len})보다 작아야 합니다: 싱크 말고도 새 토큰 자신이 들어갈 자리가 "
                "최소 하나 있어야 합니다. 싱크는 롤링 캐시(max_len을 준 캐시)에서만 뜻이 있습니다."
            )
        self.max_len, self.sink = max_len, sink
        self.key: Tensor | None = None
        self.value: Tensor | None = None
        self.seen = 0

    def __len__(self) -> int:
        """캐시에 남아 있는 토큰 수 ``S`` (비어 있으면 0).

        Shape:
            - 반환: 파이썬 정수 ``S`` (롤링 캐시면 ``<= max_len``)
        """
        return 0 if self.key is None else self.key.shape[-2]

    def __repr__(self) -> str:
        layout = "비어 있음" if self.key is None else f"key{tuple(self.key.shape)}, value{tuple(self.value.shape)}"
        rolling = "" if self.max_len is None else f", max_len={self.max_len}, sink={self.sink}, seen={self.seen}"
        return f"KVCache({layout}{rolling}, nbytes={self.nbytes})"

    @property
    def nbytes(self) -> int:
        """키와 밸류가 차지하는 바이트 수 (``key.nbytes + value.nbytes``; 비어 있으면 0).

        Shape:
            - 반환: 파이썬 정수, ``2 * B * Hkv * S * Dh * (원소 하나의 바이트)`` (``Dv == Dh``일 때)
        """
        if self.key is None:
            return 0
        return self.key.nbytes + self.value.nbytes

    def positions(self) -> Tensor:
        """남아 있는 키 각각의 전체 시퀀스에서의 위치 (오름차순).

        버린 토큰이 없으면 ``0 .. S-1``이고, 롤링 캐시가 버리기 시작하면 싱크 ``0 .. sink-1`` 다음에 최근
        ``seen - (S - sink) .. seen - 1``이 옵니다.

        Shape:
            - 반환: ``(S,)`` 정수 텐서
        """
        n = len(self)
        device = None if self.key is None else self.key.device
        sinks = min(self.sink, n)
        head = torch.arange(sinks, device=device)  # (sinks,)
        return torch.cat([head, torch.arange(self.seen - (n - sinks), self.seen, device=device)])  # (S,)

    def reset(self) -> None:
        """캐시를 비웁니다 (새 문장을 만들기 전에).

        Shape:
            - 이후 ``len(cache) == 0``, ``nbytes == 0``, ``seen == 0``
        """
        self.key = self.value = None
        self.seen = 0

    def update(self, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor]:
        """새 토큰의 키·밸류를 길이 축 끝에 붙이고, 붙인 전체를 돌려줍니다 (롤링 캐시는 그다음에 잘라 둠).

        돌려주는 것은 **자르기 전** 전체(지금까지 남아 있던 것 + 새 토큰)입니다: 한 번에 여러 토큰을 붙이면 앞쪽
        새 토큰의 쿼리는 뒤쪽 새 토큰 때문에 밀려날 키도 봐야 하기 때문입니다. 캐시에 남는 것은 자른 뒤의
        싱크 + 최근 ``max_len - sink``개입니다.

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
            full_key, full_value = key, value
        else:
            old = (self.key.shape[0], self.key.shape[1], self.key.shape[-1])
            new = (key.shape[0], key.shape[1], key.shape[-1])
            if old != new or key.dtype != self.key.dtype or value.shape[-1] != self.value.shape[-1]:
                raise ValueError(
                    "KV 캐시에 쌓인 것과 (배치 B, 키·밸류 헤드 수 Hkv, 너비 Dh, dtype)이 같아야 하는데 "
                    f"캐시는 key{tuple(self.key.shape)} {self.key.dtype}, 새 키는 {describe(key)}입니다. "
                    "다른 배치나 다른 모듈에 쓰려면 새 KVCache()를 만들거나 cache.reset()으로 비우세요."
                )
            full_key = torch.cat([self.key, key], dim=-2)  # (B, Hkv, S, Dh) + (B, Hkv, L, Dh) -> (B, Hkv, S+L, Dh)
            full_value = torch.cat([self.value, value], dim=-2)  # (B, Hkv, S, Dv) + (B, Hkv, L, Dv) -> (B, Hkv, S+L, Dv)
        self.seen += key.shape[-2]
        self.key, self.value = self.evict(full_key), self.evict(full_value)
        return full_key, full_value

    def evict(self, x: Tensor) -> Tensor:
        """롤링 캐시: 맨 앞 ``sink``개와 마지막 ``max_len - sink``개만 남긴 복사본 (넘치지 않으면 그대로).

        Shape:
            - x: ``(B, Hkv, n, D)``
            - 반환: ``(B, Hkv, min(n, max_len), D)``
        """
        n = x.shape[-2]
        if self.max_len is None or n <= self.max_len:
            return x
        recent = self.max_len - self.sink
        return torch.cat([x[..., : self.sink, :], x[..., n - recent :, :]], dim=-2)  # (..., n, D) -> (..., max_len, D)


def cache_causal_mask(L: int, S: int, *, device: torch.device | str | None = None) -> Tensor:
    """캐시 끝에 맞춘 인과 마스크: 새 쿼리 ``i``(전체에서 ``S - L + i``번째 토큰)는 키 ``0..S-L+i``를 봅니다.

    ``L == S``(캐시가 비어 있던 첫 호출)이면 ``causal_mask(L)``과 같습니다. ``True`` = 참여 가능.
    ``L`` 또는 ``S``가 0이면 빈 마스크입니다.

    Shape:
        - 반환: ``(L, S)``
    """
    check_nonnegative_int(L, "L")
    check_nonnegative_int(S, "S")
    return torch.ones(L, S, dtype=torch.bool, device=device).tril(diagonal=S - L)  # (L, S), 오른쪽 아래에 맞춤


def append_to_cache(
    cache: KVCache, key: Tensor, value: Tensor, attn_mask: Tensor | None
) -> tuple[Tensor, Tensor, Tensor]:
    """새 키·밸류를 캐시에 붙이고, 캐시 끝에 맞춘 인과 마스크를 사용자의 마스크와 합쳐 돌려줍니다.

    롤링 캐시(``max_len``)이면 인과 마스크 대신 창 + 싱크 마스크(``position_mask``)를 겁니다: 붙인 직후의 전체
    ``S + L``개 키 가운데, 새 쿼리마다 캐시가 남길 키만 보입니다.

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
    if cache.max_len is None:  # 모두 남기는 캐시: 키의 위치가 0..S+L-1로 이어져 있음
        causal = cache_causal_mask(L, total, device=key.device)  # (L, S+L)
    else:  # 롤링 캐시: 남은 키의 위치(싱크, 최근)와 새 토큰의 위치로 창 + 싱크 마스크
        new_positions = torch.arange(cache.seen, cache.seen + L, device=key.device)  # (L,)
        key_positions = torch.cat([cache.positions().to(key.device), new_positions])  # (S,) + (L,) -> (S+L,)
        causal = position_mask(new_positions, key_positions, window=cache.max_len - cache.sink, sink=cache.sink)
    key, value = cache.update(key, value)  # (B, Hkv, S, Dh) + (B, Hkv, L, Dh) -> (B, Hkv, S+L, Dh)
    if attn_mask is None:
        return key, value, causal
    if attn_mask.dtype == torch.bool:
        return key, value, attn_mask & causal  # 둘 다 True(참여)인 곳만 참여
    blocked = torch.full((), float("-inf"), dtype=attn_mask.dtype, device=attn_mask.device)
    return key, value, torch.where(causal, attn_mask, blocked)  # 덧셈 마스크: 미래 키는 -inf
