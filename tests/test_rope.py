"""회전 위치 임베딩(RoPE): ``apply_rope``의 배치와 값, 점수가 거리에만 달리는지, 모듈·KV 캐시·GQA와 함께.

참조 구현 두 가지와 맞춰 봅니다.

- 손으로 계산한 작은 경우: Llama의 Hugging Face 코드(``rotate_half``)와 같은 앞뒤 절반 배치를 식 그대로 적음.
- ``rotary-embedding-torch`` (PyPI, 테스트만 쓰는 의존성): 유지되는 RoPE 구현으로, Su et al. 2021처럼 이웃한 짝을
  돌립니다. 그래서 특징 순열 하나를 사이에 두고 비교합니다.

``transformers``의 ``apply_rotary_pos_emb``는 이 기계의 PyPI 미러에서 torch를 바꾸지 않고 설치되지만, 패키지 11개와
약 160 MB를 더해서 테스트 의존성으로 두지 않았습니다. 한 번 맞춰 본 결과(transformers 5.17.0)는 위치 0..63에서 최대
차이 4.3e-6, 위치 1000..1063에서 7.8e-5였고, 차이는 전부 transformers가 각도를 float32로 계산하기 때문이었습니다
(같은 식을 float64 각도로 계산하면 차이 1e-13 이하).
"""

from __future__ import annotations

import math

import pytest
import torch
from rotary_embedding_torch import RotaryEmbedding, apply_rotary_emb

from attn_lib import KVCache, MultiHeadAttention, apply_rope, causal_mask, scaled_dot_product_attention


def interleave_to_halves(head_dim: int) -> torch.Tensor:
    """이웃 배치의 특징 ``2i``를 ``i``로, ``2i+1``을 ``i + Dh/2``로: ``x_halves = x_pairs[..., P]``가 되는 ``P``."""
    return torch.cat([torch.arange(0, head_dim, 2), torch.arange(1, head_dim, 2)])


def rope_interleaved_complex(x: torch.Tensor, positions: torch.Tensor, base: float = 10000.0) -> torch.Tensor:
    """Su et al. 2021의 배치를 복소수로: 짝 ``(x_2i, x_2i+1)``을 ``x_2i + i x_2i+1``로 보고 ``e^{i m theta_i}``를 곱함."""
    head_dim = x.shape[-1]
    theta = base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)
    angles = positions.double()[:, None] * theta[None, :]
    z = torch.view_as_complex(x.double().reshape(*x.shape[:-1], head_dim // 2, 2).contiguous())
    return torch.view_as_real(z * torch.polar(torch.ones_like(angles), angles)).flatten(-2).to(x.dtype)


def test_hand_checked_small_case_in_the_split_halves_layout():
    """Dh=4, base=100: theta = (1, 0.1). 특징 (0, 2)가 한 평면(각도 m), (1, 3)이 다른 평면(각도 0.1 m)."""
    x = torch.tensor([[1.0, 2.0, 3.0, 4.0]] * 3, dtype=torch.float64)  # (L=3, Dh=4)
    out = apply_rope(x, torch.tensor([0, 2, -1]), base=100.0)
    torch.testing.assert_close(out[0], x[0], rtol=0, atol=0)  # 위치 0은 그대로
    for row, m in ((1, 2), (2, -1)):
        a, b = m * 1.0, m * 0.1
        expected = [1 * math.cos(a) - 3 * math.sin(a), 2 * math.cos(b) - 4 * math.sin(b),
                    3 * math.cos(a) + 1 * math.sin(a), 4 * math.cos(b) + 2 * math.sin(b)]
        torch.testing.assert_close(out[row], torch.tensor(expected, dtype=torch.float64), rtol=0, atol=1e-12)


@pytest.mark.parametrize("head_dim", [8, 64])
def test_apply_rope_matches_rotary_embedding_torch_up_to_the_pair_permutation(head_dim):
    g = torch.Generator().manual_seed(0)
    x = torch.randn(2, 3, 40, head_dim, generator=g)  # (B, H, L, Dh)
    positions = torch.arange(40)
    reference = apply_rotary_emb(RotaryEmbedding(dim=head_dim)(positions), x)  # 이웃한 짝을 돌림
    P = interleave_to_halves(head_dim)
    ours = apply_rope(x[..., P], positions)[..., torch.argsort(P)]
    torch.testing.assert_close(ours, reference, atol=2e-5, rtol=0)
    # 순열 없이 비교하면 다릅니다: 두 배치는 정말로 다른 특징을 짝짓습니다.
    assert (apply_rope(x, positions) - reference).abs().max() > 0.1


def test_split_halves_and_interleaved_pairs_give_the_same_scores_after_permuting_the_projections():
    g = torch.Generator().manual_seed(1)
    head_dim, E, L = 16, 32, 12
    W_q, W_k = torch.randn(head_dim, E, generator=g, dtype=torch.float64), torch.randn(head_dim, E, generator=g, dtype=torch.float64)
    x = torch.randn(L, E, generator=g, dtype=torch.float64)
    positions = torch.arange(L)
    P = interleave_to_halves(head_dim)
    # 이웃 배치 모델: 투영한 뒤 이웃한 짝을 돌림
    q, k = rope_interleaved_complex(x @ W_q.T, positions), rope_interleaved_complex(x @ W_k.T, positions)
    # 같은 모델을 앞뒤 절반 배치로: 투영 행렬의 출력 행을 P로 섞은 것(HF 변환 스크립트의 permute)
    q2, k2 = apply_rope(x @ W_q[P].T, positions), apply_rope(x @ W_k[P].T, positions)
    torch.testing.assert_close(q2, q[..., P], atol=1e-12, rtol=0)  # 특징은 순열만큼 자리가 바뀜
    torch.testing.assert_close(q2 @ k2.T, q @ k.T, atol=1e-10, rtol=0)  # 점수는 그대로
    unpermuted = apply_rope(x @ W_q.T, positions) @ apply_rope(x @ W_k.T, positions).T
    assert (unpermuted - q @ k.T).abs().max() > 1e-3  # 투영을 섞지 않으면 점수가 다름


def test_scores_depend_only_on_the_offset_between_positions():
    g = torch.Generator().manual_seed(2)
    head_dim, n = 32, 24
    q, k = torch.randn(head_dim, generator=g, dtype=torch.float64), torch.randn(head_dim, generator=g, dtype=torch.float64)
    by_offset = {}  # 거리 d = i - j -> 위치 0에서 시작했을 때의 점수
    for start in (0, 7, 10_000):
        positions = torch.arange(start, start + n)
        rq = apply_rope(q.expand(n, head_dim), positions)  # 같은 쿼리 벡터를 위치 start..start+n-1에
        rk = apply_rope(k.expand(n, head_dim), positions)
        scores = rq @ rk.T  # (n, n): scores[i, j] = <rope(q, start+i), rope(k, start+j)>
        for d in range(-n + 1, n):
            diagonal = torch.diagonal(scores, offset=-d)  # i - j = d 인 칸들
            expected = by_offset.setdefault(d, diagonal[0])
            torch.testing.assert_close(diagonal, expected.expand_as(diagonal), atol=1e-9, rtol=0)
    values = torch.stack(list(by_offset.values()))
    assert values.std() > 0.1  # 거리에 따라 점수가 실제로 달라짐 (상수면 검사가 무의미)


def test_rotation_keeps_the_length_of_each_vector():
    x = torch.randn(5, 9, 16, generator=torch.Generator().manual_seed(3), dtype=torch.float64)
    torch.testing.assert_close(apply_rope(x, torch.arange(9) * 37).norm(dim=-1), x.norm(dim=-1), atol=1e-12, rtol=0)


def test_half_precision_is_rotated_in_float32_and_returned_in_its_dtype():
    x = torch.randn(2, 7, 8, generator=torch.Generator().manual_seed(4))
    out = apply_rope(x.bfloat16(), torch.arange(7))
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out.float(), apply_rope(x, torch.arange(7)), atol=3e-2, rtol=0)


def manual_rope_attention(mha: MultiHeadAttention, x: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """모듈 밖에서 같은 계산: 쿼리·키만 돌리고 밸류는 그대로."""
    positions = torch.arange(x.shape[1])
    q = apply_rope(mha.split_heads(mha.W_q(x)), positions, base=mha.rope_base)
    k = apply_rope(mha.split_heads(mha.W_k(x)), positions, base=mha.rope_base)
    v = mha.split_heads(mha.W_v(x))
    heads, _ = scaled_dot_product_attention(q, k, v, mask, enable_gqa=True)
    return mha.W_o(mha.merge_heads(heads))


@pytest.mark.parametrize("num_kv_heads", [4, 2])
def test_module_rotates_queries_and_keys_per_head_but_not_values(num_kv_heads):
    torch.manual_seed(5)
    mha = MultiHeadAttention(32, 4, num_kv_heads=num_kv_heads, rope_base=10000.0).eval()
    x = torch.randn(2, 10, 32)
    with torch.no_grad():
        out, _ = mha(x, attn_mask=causal_mask(10))
        torch.testing.assert_close(out, manual_rope_attention(mha, x, causal_mask(10)), atol=1e-5, rtol=0)
        plain = MultiHeadAttention(32, 4, num_kv_heads=num_kv_heads).eval()
        plain.load_state_dict(mha.state_dict())
        assert (plain(x, attn_mask=causal_mask(10))[0] - out).abs().max() > 1e-3  # RoPE가 실제로 무엇을 바꿈
    assert "rope_base=10000" in repr(mha)


def decode(mha: MultiHeadAttention, x: torch.Tensor, cache: KVCache, prefill: int) -> torch.Tensor:
    """앞 ``prefill``개를 한 번에, 나머지를 한 토큰씩 캐시와 함께."""
    outs = []
    if prefill:
        outs.append(mha(x[:, :prefill], kv_cache=cache)[0])
    for t in range(prefill, x.shape[1]):
        outs.append(mha(x[:, t : t + 1], kv_cache=cache)[0])
    return torch.cat(outs, dim=1)


@pytest.mark.parametrize("num_kv_heads", [4, 2, 1])
@pytest.mark.parametrize("prefill", [0, 1, 6])
def test_decoding_with_cache_rope_and_gqa_equals_the_full_forward(num_kv_heads, prefill):
    torch.manual_seed(6)
    mha = MultiHeadAttention(32, 4, num_kv_heads=num_kv_heads, rope_base=500000.0).eval()
    x = torch.randn(2, 11, 32)
    cache = KVCache()
    with torch.no_grad():
        full, _ = mha(x, attn_mask=causal_mask(11))
        out = decode(mha, x, cache, prefill)
        torch.testing.assert_close(out, full, atol=1e-5, rtol=0)
        # 캐시에 든 것은 돌린 뒤의 키 (자기 위치로 한 번만 돌림), 밸류는 돌리지 않은 것
        rotated = apply_rope(mha.split_heads(mha.W_k(x)), torch.arange(11), base=500000.0)
        torch.testing.assert_close(cache.key, rotated, atol=1e-6, rtol=0)
        torch.testing.assert_close(cache.value, mha.split_heads(mha.W_v(x)), atol=1e-6, rtol=0)
    assert cache.key.shape == (2, num_kv_heads, 11, 8) and cache.seen == len(cache) == 11
