"""긴 문맥: 슬라이딩 윈도 마스크와, 어텐션 싱크를 남기는 롤링 KV 캐시.

롤링 캐시(``KVCache(max_len, sink)``)로 한 토큰씩 만든 결과가 같은 창 + 싱크 마스크를 건 전체 어텐션과 같은지,
캐시 메모리가 묶이는지, 다음 위치가 캐시 길이가 아니라 지금까지 본 토큰 수인지 확인합니다.
"""

from __future__ import annotations

import pytest
import torch

from attn_lib import KVCache, MultiHeadAttention, cache_causal_mask, causal_mask, sliding_window_mask
from attn_lib.masks import position_mask


def brute_force_window(L: int, S: int, window: int, sink: int) -> torch.Tensor:
    mask = torch.zeros(L, S, dtype=torch.bool)
    for i in range(L):
        p = S - L + i  # 쿼리 i의 전체 위치 (오른쪽 아래에 맞춤)
        for j in range(S):
            mask[i, j] = j <= p and (p - window < j or j < sink)
    return mask


@pytest.mark.parametrize("L,S,window,sink", [
    (6, 6, 3, 0), (6, 6, 3, 2), (1, 9, 4, 1), (3, 9, 2, 0), (4, 4, 10, 0), (7, 3, 2, 1), (5, 8, 1, 3),
])
def test_sliding_window_mask_follows_its_definition(L, S, window, sink):
    got = sliding_window_mask(L, S, window, sink=sink)
    assert got.shape == (L, S) and got.dtype == torch.bool
    assert torch.equal(got, brute_force_window(L, S, window, sink))


def test_sliding_window_mask_is_aligned_like_the_cache_mask():
    for L, S in [(1, 8), (3, 8), (8, 8)]:
        assert torch.equal(sliding_window_mask(L, S, S), cache_causal_mask(L, S))  # 창이 모두 덮으면 인과 마스크
    band = sliding_window_mask(6, 6, 2)
    ones = torch.ones(6, 6, dtype=torch.bool)
    assert torch.equal(band, ones.tril() & ones.triu(-1))  # L == S: 대각선과 그 왼쪽 한 칸
    assert band.sum(dim=-1).tolist() == [1, 2, 2, 2, 2, 2]  # 행마다 자기 자신 + 바로 앞 하나


def test_position_mask_with_gaps_matches_a_sliding_window_restricted_to_the_kept_keys():
    """롤링 캐시의 키는 위치가 건너뜁니다 (싱크 0, 1 다음에 최근 7, 8, 9)."""
    keys = torch.tensor([0, 1, 7, 8, 9])
    queries = torch.tensor([9])
    full = sliding_window_mask(10, 10, 3, sink=2)
    assert torch.equal(position_mask(queries, keys, window=3, sink=2), full[9:, keys])
    assert position_mask(queries, keys, window=3, sink=2).tolist() == [[True, True, True, True, True]]


def rolling_decode(mha: MultiHeadAttention, x: torch.Tensor, cache: KVCache, prefill: int, chunk: int = 1):
    outs, sizes = [], []
    if prefill:
        outs.append(mha(x[:, :prefill], kv_cache=cache)[0])
        sizes.append((len(cache), cache.nbytes))
    for t in range(prefill, x.shape[1], chunk):
        outs.append(mha(x[:, t : t + chunk], kv_cache=cache)[0])
        sizes.append((len(cache), cache.nbytes))
    return torch.cat(outs, dim=1), sizes


@pytest.mark.parametrize("max_len,sink,prefill,chunk", [
    (6, 2, 0, 1),   # 싱크 2개 + 최근 4개, 처음부터 한 토큰씩
    (6, 0, 0, 1),   # 싱크 없는 순수 슬라이딩 윈도
    (5, 1, 9, 1),   # 캐시보다 긴 프리필: 프리필 안의 앞쪽 쿼리도 창 + 싱크만 봄
    (7, 3, 2, 3),   # 여러 토큰씩 붙이기
    (1, 0, 0, 1),   # 창 1: 자기 자신만
])
@pytest.mark.parametrize("num_kv_heads,rope_base", [(4, None), (2, 10000.0), (1, 10000.0)])
def test_rolling_cache_with_sinks_equals_full_attention_under_the_window_plus_sink_mask(
        max_len, sink, prefill, chunk, num_kv_heads, rope_base):
    torch.manual_seed(7)
    T = 17
    mha = MultiHeadAttention(32, 4, num_kv_heads=num_kv_heads, rope_base=rope_base).eval()
    x = torch.randn(2, T, 32)
    cache = KVCache(max_len=max_len, sink=sink)
    with torch.no_grad():
        full, _ = mha(x, attn_mask=sliding_window_mask(T, T, max_len - sink, sink=sink))
        out, sizes = rolling_decode(mha, x, cache, prefill, chunk)
        torch.testing.assert_close(out, full, atol=1e-5, rtol=0)
        # 같은 모델의 보통 인과 어텐션과는 다릅니다 (롤링 캐시가 실제로 키를 버림)
        assert (out - mha(x, attn_mask=causal_mask(T))[0]).abs().max() > 1e-3
    assert cache.seen == T and len(cache) == max_len
    assert cache.positions().tolist() == list(range(sink)) + list(range(T - (max_len - sink), T))
    assert all(n <= max_len for n, _ in sizes)
    per_token = cache.nbytes // max_len
    assert max(b for _, b in sizes) == cache.nbytes == 2 * 2 * num_kv_heads * max_len * 8 * 4
    assert per_token == 2 * 2 * num_kv_heads * 8 * 4


def test_rolling_cache_memory_stays_bounded_while_a_plain_cache_grows():
    torch.manual_seed(8)
    mha = MultiHeadAttention(16, 2, rope_base=10000.0).eval()
    x = torch.randn(1, 64, 16)
    rolling, plain = KVCache(max_len=8, sink=2), KVCache()
    with torch.no_grad():
        for t in range(64):
            mha(x[:, t : t + 1], kv_cache=rolling)
            mha(x[:, t : t + 1], kv_cache=plain)
    assert rolling.nbytes == 8 * plain.nbytes // 64 and len(rolling) == 8 and rolling.seen == 64
    assert len(plain) == plain.seen == 64


def test_next_position_comes_from_tokens_seen_not_from_the_cache_length():
    """롤링 캐시에서 ``len(cache)``를 위치로 쓰면 틀린다는 것을 직접 보입니다."""
    torch.manual_seed(9)
    mha = MultiHeadAttention(16, 2, rope_base=100.0).eval()
    x = torch.randn(1, 12, 16)
    cache = KVCache(max_len=4, sink=1)
    with torch.no_grad():
        for t in range(11):
            mha(x[:, t : t + 1], kv_cache=cache)
        assert (cache.seen, len(cache)) == (11, 4)
        right, _ = mha(x[:, 11:12], kv_cache=cache)
        full, _ = mha(x, attn_mask=sliding_window_mask(12, 12, 3, sink=1))
        torch.testing.assert_close(right, full[:, 11:12], atol=1e-5, rtol=0)
        cache.seen = 4  # 위치를 캐시 길이로 착각하게 만들면 (그리고 싱크·최근 위치도 그에 맞게 바뀌면)
        wrong, _ = mha(x[:, 11:12], kv_cache=cache)
    assert (wrong - right).abs().max() > 1e-3


def test_plain_cache_mask_is_unchanged_by_the_rolling_option():
    cache = KVCache()
    k = torch.randn(1, 2, 3, 4)
    cache.update(k, k)
    assert cache.positions().tolist() == [0, 1, 2] and cache.seen == 3
    cache.reset()
    assert (len(cache), cache.seen, cache.nbytes) == (0, 0, 0)
    assert "max_len=4, sink=1" in repr(KVCache(max_len=4, sink=1))
