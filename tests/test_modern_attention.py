"""오늘의 모델이 쓰는 어텐션: GQA/MQA, KV 캐시, 어텐션 드롭아웃, 반정밀도와 torch.compile 의 수치.

모든 비교의 기준은 PyTorch 자신입니다 (``F.scaled_dot_product_attention(enable_gqa=True)``,
``Tensor.repeat_interleave``, ``nn.MultiheadAttention``, float64 로 계산한 어텐션).
"""

from __future__ import annotations

import numpy as np
import pytest
import torch
import torch.nn.functional as F
from torch import nn

from attn_lib import (
    KVCache,
    MultiHeadAttention,
    causal_mask,
    count_parameters,
    padding_mask,
    repeat_kv,
    scaled_dot_product_attention,
)

ATOL = 1e-5


def rand(*shape, seed=0, dtype=torch.float32, requires_grad=False):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=g, dtype=dtype).requires_grad_(requires_grad)


# ---- repeat_kv 와 enable_gqa ---------------------------------------------------------------------------
@pytest.mark.parametrize("n_rep", [1, 2, 4])
def test_repeat_kv_equals_repeat_interleave(n_rep):
    x = rand(2, 3, 5, 4)
    out = repeat_kv(x, n_rep)
    assert out.shape == (2, 3 * n_rep, 5, 4)
    assert torch.equal(out, x.repeat_interleave(n_rep, dim=-3))
    # 틀린 변형(repeat: 헤드 순서가 0,1,2,0,1,2)은 n_rep > 1 에서 달라야 합니다.
    if n_rep > 1:
        assert not torch.equal(out, x.repeat(1, n_rep, 1, 1))


@pytest.mark.parametrize("kv_heads", [8, 4, 2, 1])
@pytest.mark.parametrize("masked", [False, True])
def test_enable_gqa_matches_pytorch_outputs_weights_and_gradients(kv_heads, masked):
    q = rand(2, 8, 5, 16, seed=1, requires_grad=True)
    k = rand(2, kv_heads, 7, 16, seed=2, requires_grad=True)
    v = rand(2, kv_heads, 7, 16, seed=3, requires_grad=True)
    mask = padding_mask([7, 4], 7) if masked else None  # (B, 1, 1, S)
    out, weights = scaled_dot_product_attention(q, k, v, mask, enable_gqa=True)
    ref = F.scaled_dot_product_attention(q, k, v, attn_mask=mask, enable_gqa=True)
    torch.testing.assert_close(out, ref, atol=ATOL, rtol=0)
    assert weights.shape == (2, 8, 5, 7)  # 쿼리 헤드마다
    # 가중치는 반복한 키로 직접 계산한 것과 같아야 합니다.
    n_rep = 8 // kv_heads
    scores = q @ k.repeat_interleave(n_rep, dim=-3).transpose(-2, -1) / 4.0
    if masked:
        scores = scores.masked_fill(~mask, float("-inf"))
    torch.testing.assert_close(weights, scores.softmax(-1), atol=ATOL, rtol=0)
    grads = torch.autograd.grad(out.square().sum(), (q, k, v))
    ref_grads = torch.autograd.grad(ref.square().sum(), (q, k, v))
    for g, r in zip(grads, ref_grads):
        torch.testing.assert_close(g, r, atol=1e-4, rtol=1e-4)


def test_enable_gqa_rejects_heads_that_do_not_divide():
    with pytest.raises(ValueError, match="나누어떨어져야"):
        scaled_dot_product_attention(rand(1, 6, 3, 4), rand(1, 4, 3, 4), rand(1, 4, 3, 4), enable_gqa=True)
    with pytest.raises(ValueError, match="헤드 축"):
        scaled_dot_product_attention(rand(3, 4), rand(3, 4), rand(3, 4), enable_gqa=True)
    # enable_gqa 없이 헤드 수가 다르면 브로드캐스트 오류 (PyTorch 도 거부)
    with pytest.raises(ValueError, match="브로드캐스트"):
        scaled_dot_product_attention(rand(1, 4, 3, 4), rand(1, 2, 3, 4), rand(1, 2, 3, 4))


# ---- MultiHeadAttention(num_kv_heads=...) ----------------------------------------------------------------
@pytest.mark.parametrize("kv_heads", [None, 4, 2, 1])
def test_parameter_count_follows_the_formula(kv_heads):
    E, H = 32, 4
    hkv = H if kv_heads is None else kv_heads
    Dh = E // H
    m = MultiHeadAttention(E, H, num_kv_heads=kv_heads)
    assert count_parameters(m) == 2 * E * E + 2 * E * hkv * Dh + 2 * E + 2 * hkv * Dh
    assert m.W_k.weight.shape == (hkv * Dh, E)
    if kv_heads is None:  # 오늘의 동작 그대로
        assert count_parameters(m) == 4 * E * E + 4 * E


@pytest.mark.parametrize("kv_heads", [4, 2, 1])
def test_gqa_module_matches_pytorch_sdpa_with_the_same_weights(kv_heads):
    torch.manual_seed(0)
    E, H = 32, 4
    m = MultiHeadAttention(E, H, num_kv_heads=kv_heads).eval()
    x = rand(2, 6, E, seed=5)
    out, weights = m(x, attn_mask=causal_mask(6))
    q = m.W_q(x).view(2, 6, H, -1).transpose(1, 2)
    k = m.W_k(x).view(2, 6, kv_heads, -1).transpose(1, 2)
    v = m.W_v(x).view(2, 6, kv_heads, -1).transpose(1, 2)
    ref = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
    ref = m.W_o(ref.transpose(1, 2).reshape(2, 6, E))
    torch.testing.assert_close(out, ref, atol=ATOL, rtol=0)
    assert weights.shape == (2, H, 6, 6)


def test_num_kv_heads_must_divide_num_heads():
    with pytest.raises(ValueError, match="num_kv_heads"):
        MultiHeadAttention(32, 4, num_kv_heads=3)
    with pytest.raises(TypeError):
        MultiHeadAttention(32, 4, num_kv_heads=2.0)


# ---- KV 캐시 -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("kv_heads", [4, 2, 1])
def test_token_by_token_decoding_with_cache_equals_one_causal_forward(kv_heads):
    torch.manual_seed(1)
    m = MultiHeadAttention(32, 4, num_kv_heads=kv_heads).eval()
    x = rand(2, 9, 32, seed=7)
    full, full_w = m(x, attn_mask=causal_mask(9))
    cache = KVCache()
    steps = [m(x[:, t:t + 1], kv_cache=cache) for t in range(9)]
    out = torch.cat([o for o, _ in steps], dim=1)
    torch.testing.assert_close(out, full, atol=ATOL, rtol=0)
    # 마지막 단계의 가중치는 전체 순전파의 마지막 행과 같습니다.
    torch.testing.assert_close(steps[-1][1][:, :, 0], full_w[:, :, -1], atol=ATOL, rtol=0)
    assert len(cache) == 9
    Dh = 32 // 4
    assert cache.nbytes == 2 * 2 * kv_heads * 9 * Dh * 4  # key + value, float32
    assert cache.key.shape == (2, kv_heads, 9, Dh)  # 반복 전 모양으로 저장


@pytest.mark.parametrize("kv_heads", [4, 1])
def test_prefill_then_single_steps_equals_one_causal_forward(kv_heads):
    torch.manual_seed(2)
    m = MultiHeadAttention(32, 4, num_kv_heads=kv_heads).eval()
    x = rand(1, 10, 32, seed=8)
    full, _ = m(x, attn_mask=causal_mask(10))
    cache = KVCache()
    pre, pre_w = m(x[:, :6], kv_cache=cache)  # 프리필: 6개를 한꺼번에
    assert pre_w.shape == (1, 4, 6, 6) and torch.all(pre_w[0, 0].triu(1) == 0)  # 캐시 끝에 맞춘 인과 마스크
    two, _ = m(x[:, 6:8], kv_cache=cache)  # 두 개를 한꺼번에
    rest = [m(x[:, t:t + 1], kv_cache=cache)[0] for t in (8, 9)]
    torch.testing.assert_close(torch.cat([pre, two, *rest], dim=1), full, atol=ATOL, rtol=0)


def test_cache_with_padding_mask_matches_full_forward():
    torch.manual_seed(3)
    m = MultiHeadAttention(16, 2).eval()
    x = rand(2, 5, 16, seed=9)
    keep = padding_mask([5, 3], 5)  # (B, 1, 1, S)
    full, _ = m(x, attn_mask=causal_mask(5) & keep)
    cache = KVCache()
    outs = [m(x[:, t:t + 1], attn_mask=keep[..., :t + 1], kv_cache=cache)[0] for t in range(5)]
    torch.testing.assert_close(torch.cat(outs, dim=1), full, atol=ATOL, rtol=0)


def test_cache_errors_are_korean_and_leave_the_cache_unchanged():
    m = MultiHeadAttention(16, 2)
    cache = KVCache()
    m(rand(2, 3, 16), kv_cache=cache)
    before = (cache.key.clone(), len(cache))
    with pytest.raises(ValueError, match="셀프 어텐션"):
        m(rand(2, 1, 16), key=rand(2, 4, 16), kv_cache=cache)
    with pytest.raises(ValueError, match="배치"):
        m(rand(3, 1, 16), kv_cache=cache)  # 다른 배치 크기
    with pytest.raises(ValueError, match="캐시"):
        MultiHeadAttention(16, 2, num_kv_heads=1)(rand(2, 1, 16), kv_cache=cache)  # 다른 헤드 배치
    with pytest.raises(ValueError, match="attn_mask"):
        m(rand(2, 1, 16), attn_mask=torch.ones(1, 2, dtype=torch.bool), kv_cache=cache)  # S 가 맞지 않음
    with pytest.raises(TypeError, match="KVCache"):
        m(rand(2, 1, 16), kv_cache={})
    assert len(cache) == before[1] and torch.equal(cache.key, before[0])
    cache.reset()
    assert len(cache) == 0 and cache.nbytes == 0


# ---- 어텐션 드롭아웃 -------------------------------------------------------------------------------------
def test_dropout_scales_survivors_and_returns_weights_before_dropout():
    torch.manual_seed(4)
    m = MultiHeadAttention(16, 2, dropout=0.25)
    x = rand(1, 6, 16, seed=10)
    torch.manual_seed(123)
    out, weights = m(x)  # 학습 모드
    torch.testing.assert_close(weights.sum(-1), torch.ones(1, 2, 6))  # 드롭아웃 전 확률
    # 같은 난수로 직접 계산: 살아남은 가중치는 1/(1-p)배
    q, k, v = (m.split_heads(lin(x)) for lin in (m.W_q, m.W_k, m.W_v))
    torch.manual_seed(123)
    dropped = F.dropout(weights, 0.25)
    kept = dropped != 0
    torch.testing.assert_close(dropped[kept], weights[kept] / 0.75)
    torch.testing.assert_close(out, m.W_o(m.merge_heads(dropped @ v)), atol=ATOL, rtol=0)
    assert 0 < (~kept).float().mean() < 0.6
    # 평가 모드에서는 드롭아웃이 없고, nn.MultiheadAttention(eval)과 같습니다.
    ref = nn.MultiheadAttention(16, 2, dropout=0.25, batch_first=True)
    mine = MultiHeadAttention.from_torch(ref)
    mine.dropout = 0.25
    ref.eval(), mine.eval()
    torch.testing.assert_close(mine(x)[0], ref(x, x, x)[0], atol=ATOL, rtol=0)
    a, b = mine(x)[0], mine(x)[0]
    assert torch.equal(a, b)


def test_dropout_keeps_the_expected_output():
    """1/(1-p) 로 키우기 때문에 드롭아웃한 출력의 평균은 드롭아웃 없는 출력과 같습니다 (기댓값 보존)."""
    torch.manual_seed(5)
    q, k, v = rand(1, 4, 8, seed=11), rand(1, 6, 8, seed=12), rand(1, 6, 8, seed=13)
    clean, _ = scaled_dot_product_attention(q, k, v)
    torch.manual_seed(0)
    mean = torch.stack([scaled_dot_product_attention(q, k, v, dropout_p=0.5)[0] for _ in range(4000)]).mean(0)
    assert (mean - clean).abs().max() < 0.05
    # 키우지 않는 틀린 변형(F.dropout 뒤 (1-p) 를 곱함)은 평균이 절반으로 줄어 거부됩니다.
    assert (0.5 * mean - clean).abs().max() > 0.1


@pytest.mark.parametrize("p", [-0.1, 1.0, True, "0.1"])
def test_bad_dropout_is_rejected_in_korean(p):
    with pytest.raises(ValueError, match="0 이상 1 미만"):
        MultiHeadAttention(8, 2, dropout=p)


# ---- 수치: 반정밀도, scale, S = 0, torch.compile ------------------------------------------------------------
def test_float16_does_not_overflow_where_pytorch_stays_finite():
    q = torch.full((1, 1, 2, 64), 32.0, dtype=torch.float16)  # 날것의 내적 65,536 > float16 최댓값 65,504
    v = rand(1, 1, 2, 64, seed=14).half()
    assert torch.isinf((q @ q.transpose(-2, -1))).all()  # 순진한 순서는 넘칩니다
    out, weights = scaled_dot_product_attention(q, q, v)
    ref = F.scaled_dot_product_attention(q, q, v)
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()
    torch.testing.assert_close(out, ref, atol=1e-3, rtol=1e-3)


@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_half_precision_error_within_twice_pytorchs(dtype):
    g = torch.Generator().manual_seed(0)
    q, k = (torch.randn(2, 4, 16, 64, generator=g) * 3.5 for _ in range(2))  # 점수 표준편차 약 12, 최대 약 100
    q, k, v = q.to(dtype), k.to(dtype), torch.randn(2, 4, 16, 64, generator=g).to(dtype)
    ref = F.scaled_dot_product_attention(q.double(), k.double(), v.double())  # 같은 반올림 입력의 float64 값
    mine = (scaled_dot_product_attention(q, k, v)[0].double() - ref).abs().max()
    torch_err = (F.scaled_dot_product_attention(q, k, v).double() - ref).abs().max()
    assert mine <= 2 * torch_err, (mine, torch_err)
    # 반정밀도로 그대로 누산하는 틀린 변형은 이 기준을 넘어야 합니다 (테스트가 실패할 수 있음을 확인).
    naive = torch.softmax((q @ k.transpose(-2, -1)) / 8, dim=-1) @ v
    assert (naive.double() - ref).abs().max() > 2 * torch_err
    out, w = scaled_dot_product_attention(q, k, v)
    assert out.dtype == w.dtype == dtype


@pytest.mark.parametrize("scale", [np.float32(0.5), np.float64(0.5), torch.tensor(0.5), torch.tensor([0.5]), 0.5])
def test_any_real_positive_scalar_scale_is_accepted(scale):
    q, k, v = rand(3, 4, seed=15), rand(5, 4, seed=16), rand(5, 2, seed=17)
    out, _ = scaled_dot_product_attention(q, k, v, scale=scale)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v, scale=0.5), atol=ATOL, rtol=0)


@pytest.mark.parametrize("scale", [0.0, -1.0, float("nan"), float("inf"), True, torch.tensor([0.5, 0.5]),
                                   torch.tensor(True), "0.5", 1j])
def test_bad_scales_are_rejected_in_korean(scale):
    with pytest.raises(ValueError, match="scale"):
        scaled_dot_product_attention(rand(3, 4), rand(5, 4), rand(5, 2), scale=scale)


@pytest.mark.parametrize("with_mask", [False, True])
def test_zero_length_keys_give_zeros_like_pytorch(with_mask):
    q, k, v = rand(2, 3, 4), rand(2, 0, 4), rand(2, 0, 5)
    mask = torch.ones(3, 0, dtype=torch.bool) if with_mask else None
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert torch.equal(out, F.scaled_dot_product_attention(q, k, v, attn_mask=mask))
    assert torch.equal(out, torch.zeros(2, 3, 5)) and weights.shape == (2, 3, 0)


def test_torch_compile_fullgraph_keeps_the_dead_row_rule():
    mask = causal_mask(4).clone()
    mask[0] = False  # 볼 키가 없는 행
    compiled = torch.compile(scaled_dot_product_attention, fullgraph=True, backend="eager")
    x = rand(1, 2, 4, 8, seed=18, requires_grad=True)
    out, weights = compiled(x, x, x, mask)
    eager_out, _ = scaled_dot_product_attention(x, x, x, mask)
    torch.testing.assert_close(out, eager_out)
    assert torch.equal(out[..., 0, :], torch.zeros(1, 2, 8)) and torch.equal(weights[..., 0, :], torch.zeros(1, 2, 4))
    (grad,) = torch.autograd.grad(out.sum(), x)
    assert torch.isfinite(grad).all()
    module = torch.compile(MultiHeadAttention(8, 2, num_kv_heads=1).eval(), fullgraph=True, backend="eager")
    assert module(rand(1, 4, 8), attn_mask=causal_mask(4))[0].shape == (1, 4, 8)


def test_pyproject_requires_a_torch_with_enable_gqa():
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "attn_lib" / "pyproject.toml").read_text(encoding="utf-8")
    (spec,) = re.findall(r'"torch>=([0-9.]+)"', text)
    assert tuple(int(p) for p in spec.split(".")[:2]) >= (2, 5)
