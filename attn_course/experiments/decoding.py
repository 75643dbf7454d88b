"""KV 캐시 실험: 한 토큰씩 만드는 작은 디코더와, 캐시가 있을 때와 없을 때의 속도.

``TinyDecoder``는 인과 셀프 어텐션 층 몇 개(잔차 연결, LayerNorm, MLP)만 쌓은 디코더입니다. 토큰 대신
``(B, T, E)`` 벡터 시퀀스를 받습니다. 생성(디코딩)할 때 한 단계가 하는 계산은 입력이 토큰이든 벡터든 같으므로,
어휘와 샘플링을 빼고 어텐션이 하는 일만 남겼습니다. 가중치는 학습하지 않은 무작위 값입니다.

- 캐시 없이(``decode_without_cache``): 단계 ``t``마다 지금까지의 ``t + 1``개 위치 전체를 인과 마스크와 함께
  처음부터 다시 계산하고 마지막 위치의 출력만 씁니다. ``greedy_decode``(6장)가 하는 방식입니다.
- 캐시와 함께(``decode_with_cache``): 층마다 ``KVCache`` 하나를 두고, 새 위치 하나만 넣습니다.

두 방법 모두 다음 입력은 미리 정해 둔 ``inputs``에서 가져옵니다(교사 강요와 같은 방식). 그래야 두 방법의
출력을 한 번의 전체 순전파와 비트 가까이 비교할 수 있습니다. 모델이 만든 출력에서 다음 입력을 고르는 일은
단계마다 작은 계산 하나라 속도 비교에 거의 영향을 주지 않습니다.
핵심 모듈만 import합니다.
"""

from __future__ import annotations

import statistics
import time

import torch
from torch import Tensor, nn

from attn_lib._checks import check_positive_int, describe, single_thread
from attn_lib.attention import MultiHeadAttention
from attn_lib.kv_cache import KVCache
from attn_lib.masks import causal_mask

__all__ = ["TinyDecoder", "decode_without_cache", "decode_with_cache", "decoding_speed"]


class TinyDecoder(nn.Module):
    """인과 셀프 어텐션 층 ``num_layers``개를 쌓은 작은 디코더 (pre-LayerNorm, 잔차 연결, MLP).

    Args:
        embed_dim: 모델 너비 ``E``.
        num_heads: 쿼리 헤드 수 ``H``.
        num_kv_heads: 키·밸류 헤드 수 ``Hkv`` (``None``이면 ``H``: 보통의 멀티헤드 어텐션).
        num_layers: 층 수.
        seed: 무작위 초기값의 시드 (전역 난수 상태는 바꾸지 않음).

    Shape:
        - x: ``(B, T, E)`` -> ``(B, T, E)``
    """

    def __init__(
        self, embed_dim: int = 64, num_heads: int = 4, num_kv_heads: int | None = None, num_layers: int = 2,
        seed: int = 0,
    ) -> None:
        super().__init__()
        check_positive_int(num_layers, "num_layers")
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.attn = nn.ModuleList(
                MultiHeadAttention(embed_dim, num_heads, num_kv_heads=num_kv_heads) for _ in range(num_layers))
            self.norm1 = nn.ModuleList(nn.LayerNorm(embed_dim) for _ in range(num_layers))
            self.norm2 = nn.ModuleList(nn.LayerNorm(embed_dim) for _ in range(num_layers))
            self.mlp = nn.ModuleList(
                nn.Sequential(nn.Linear(embed_dim, 4 * embed_dim), nn.GELU(), nn.Linear(4 * embed_dim, embed_dim))
                for _ in range(num_layers))
        self.embed_dim = embed_dim
        self.eval()

    def new_caches(self) -> list[KVCache]:
        """층마다 빈 ``KVCache`` 하나씩.

        Shape:
            - 반환: 길이 ``num_layers``
        """
        return [KVCache() for _ in self.attn]

    def forward(self, x: Tensor, caches: list[KVCache] | None = None) -> Tensor:
        """캐시가 없으면 ``x`` 전체를 인과 마스크와 함께, 있으면 ``x``를 캐시 뒤에 이어지는 새 위치로 계산합니다.

        Shape:
            - x: ``(B, T, E)`` (캐시와 함께면 새 위치 ``T``개, 보통 1)
            - 반환: ``(B, T, E)``
        """
        if not isinstance(x, Tensor) or x.dim() != 3 or x.shape[-1] != self.embed_dim:
            raise ValueError(f"x는 (B, T, E={self.embed_dim}) 텐서여야 하는데 {describe(x)}이(가) 들어왔습니다.")
        if caches is not None and len(caches) != len(self.attn):
            raise ValueError(f"caches는 층마다 하나씩 {len(self.attn)}개여야 하는데 {len(caches)}개입니다.")
        mask = causal_mask(x.shape[1], device=x.device) if caches is None else None  # (T, T); 캐시면 모듈이 겁니다
        for i, attn in enumerate(self.attn):
            cache = None if caches is None else caches[i]
            h, _ = attn(self.norm1[i](x), attn_mask=mask, kv_cache=cache)  # (B, T, E)
            x = x + h
            x = x + self.mlp[i](self.norm2[i](x))  # (B, T, E) -> (B, T, 4E) -> (B, T, E)
        return x


def _check_inputs(model: object, inputs: object) -> None:
    if not isinstance(model, TinyDecoder):
        raise TypeError(f"model은 TinyDecoder여야 하는데 {describe(model)}이(가) 들어왔습니다.")
    if not isinstance(inputs, Tensor) or inputs.dim() != 3 or inputs.shape[1] < 1:
        raise ValueError(f"inputs는 (B, T, E) 텐서(T >= 1)여야 하는데 {describe(inputs)}이(가) 들어왔습니다.")


@torch.no_grad()
def decode_without_cache(model: TinyDecoder, inputs: Tensor) -> Tensor:
    """캐시 없이 한 위치씩: 단계 ``t``마다 ``inputs[:, :t+1]`` 전체를 다시 계산해 마지막 출력만 남깁니다.

    Shape:
        - inputs: ``(B, T, E)``
        - 반환: ``(B, T, E)`` (위치 ``t``의 출력)
    """
    _check_inputs(model, inputs)
    outs = [model(inputs[:, : t + 1])[:, -1:] for t in range(inputs.shape[1])]  # T x (B, 1, E)
    return torch.cat(outs, dim=1)  # T x (B, 1, E) -> (B, T, E)


@torch.no_grad()
def decode_with_cache(model: TinyDecoder, inputs: Tensor, prefill: int = 0) -> tuple[Tensor, list[KVCache]]:
    """KV 캐시와 함께: 앞 ``prefill``개 위치를 한 번에 넣고(프롬프트), 나머지는 한 위치씩 넣습니다.

    Returns:
        ``(출력, 층별 캐시)``. 캐시에는 ``T``개 위치의 키·밸류가 쌓여 있습니다.

    Shape:
        - inputs: ``(B, T, E)``
        - 반환: ``(B, T, E)``, 캐시마다 key ``(B, Hkv, T, Dh)``
    """
    _check_inputs(model, inputs)
    if isinstance(prefill, bool) or not isinstance(prefill, int) or not 0 <= prefill <= inputs.shape[1]:
        raise ValueError(f"prefill은 0 이상 T(={inputs.shape[1]}) 이하의 정수여야 하는데 {prefill!r}이(가) 들어왔습니다.")
    caches = model.new_caches()
    outs = [model(inputs[:, :prefill], caches)] if prefill else []  # (B, P, E)
    outs += [model(inputs[:, t : t + 1], caches) for t in range(prefill, inputs.shape[1])]  # (T-P) x (B, 1, E)
    return torch.cat(outs, dim=1), caches  # -> (B, T, E)


def decoding_speed(
    model: TinyDecoder, lengths: list[int], *, batch_size: int = 1, repeats: int = 3, warmup: int = 1, seed: int = 0,
) -> list[dict[str, float | int]]:
    """길이마다 캐시 없이와 캐시와 함께 ``T``개 위치를 만드는 시간을 재고(스레드 하나), 두 출력이 같은지도 확인합니다.

    길이마다 두 방법을 ``warmup``번씩 돌려 데운 뒤, 두 방법을 번갈아 ``repeats``번 재어 중앙값을 씁니다
    (번갈아 재면 다른 작업이 끼어든 때가 한 방법에 몰리지 않음). 가장 짧은 값과 가장 긴 값도 돌려줍니다.

    Returns:
        길이마다 ``{"T", "캐시 없이 (토큰/초)", "캐시와 함께 (토큰/초)", "배율", "최대 차이", "캐시 바이트",
        "캐시 없이 (초)", "캐시와 함께 (초)", "캐시와 함께: 가장 짧은 시간 (초)", "캐시와 함께: 가장 긴 시간 (초)",
        "반복"}``. 토큰/초와 배율은 중앙값 시간으로 계산합니다.

    Shape:
        - 입력은 길이마다 ``(batch_size, T, E)``의 무작위 벡터 (``seed``로 고정)
    """
    check_positive_int(repeats, "repeats")
    check_positive_int(batch_size, "batch_size")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup은 0 이상의 정수여야 하는데 {warmup!r}이(가) 들어왔습니다.")
    rows = []
    with single_thread(seed):
        for T in lengths:
            check_positive_int(T, "lengths의 값")
            inputs = torch.randn(batch_size, T, model.embed_dim, generator=torch.Generator().manual_seed(seed))
            for _ in range(warmup):
                decode_without_cache(model, inputs)
                decode_with_cache(model, inputs)
            times: dict[str, list[float]] = {"without": [], "with": []}
            for _ in range(repeats):
                start = time.perf_counter()
                slow = decode_without_cache(model, inputs)
                times["without"].append(time.perf_counter() - start)
                start = time.perf_counter()
                fast, caches = decode_with_cache(model, inputs)
                times["with"].append(time.perf_counter() - start)
            without, with_cache = statistics.median(times["without"]), statistics.median(times["with"])
            rows.append({
                "T": T,
                "캐시 없이 (토큰/초)": batch_size * T / without,
                "캐시와 함께 (토큰/초)": batch_size * T / with_cache,
                "배율": without / with_cache,
                "최대 차이": (slow - fast).abs().max().item(),
                "캐시 바이트": sum(c.nbytes for c in caches),
                "캐시 없이 (초)": without,
                "캐시와 함께 (초)": with_cache,
                "캐시와 함께: 가장 짧은 시간 (초)": min(times["with"]),
                "캐시와 함께: 가장 긴 시간 (초)": max(times["with"]),
                "반복": repeats,
            })
    return rows
