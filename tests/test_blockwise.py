"""블록 단위 어텐션(온라인 소프트맥스): PyTorch의 어텐션과 같은 출력, CPU 플래시 커널과 같은 로그합지수.

볼 키가 없는 행의 약속: 출력은 0 (``attn_lib.scaled_dot_product_attention``, PyTorch 2.13의
``F.scaled_dot_product_attention``과 같음), 로그합지수는 ``-inf`` (``torch.logsumexp``와 같음). PyTorch의 CPU 플래시
커널(``aten._scaled_dot_product_flash_attention_for_cpu``)은 그 행의 logsumexp로 0을 돌려주므로 그 행만 따로 봅니다.
최대 메모리 비율은 ``make bench`` (benchmarks/bench_blockwise.py)에 있습니다.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from attn_lib import (
    blockwise_attention,
    cache_causal_mask,
    padding_mask,
    scaled_dot_product_attention,
    sliding_window_mask,
)


def qkv(B=2, H=3, L=37, S=70, Dh=16, Dv=None, dtype=torch.float64, seed=0):
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(B, H, L, Dh, generator=g, dtype=dtype), torch.randn(B, H, S, Dh, generator=g, dtype=dtype),
            torch.randn(B, H, S, Dv or Dh, generator=g, dtype=dtype))


def masks(L: int, S: int) -> dict[str, torch.Tensor | None]:
    g = torch.Generator().manual_seed(1)
    random = torch.rand(2, 3, L, S, generator=g) > 0.6
    random[0, 1, 4] = False  # 볼 키가 없는 행
    random[1, :, 0] = False
    additive = torch.randn(L, S, generator=g, dtype=torch.float64)
    additive[3] = float("-inf")  # 덧셈 마스크로 가린 행
    additive[:, ::5] = float("-inf")
    return {
        "없음": None,
        "인과(오른쪽 아래)": cache_causal_mask(L, S),
        "슬라이딩 윈도 + 싱크": sliding_window_mask(L, S, 9, sink=2),
        "패딩 (B, 1, 1, S)": padding_mask([S, 0], S),  # 두 번째 문장은 모든 키가 패딩
        "무작위 bool (빈 행 포함)": random,
        "덧셈 마스크 (-inf 행 포함)": additive,
    }


@pytest.mark.parametrize("block_size", [1, 16, 64, 1000])  # 70을 나누지 않는 16, 64; S보다 큰 1000
@pytest.mark.parametrize("mask_name", list(masks(37, 70)))
def test_blockwise_equals_torch_sdpa(block_size, mask_name):
    q, k, v = qkv(Dv=12)
    mask = masks(37, 70)[mask_name]
    out, lse = blockwise_attention(q, k, v, mask, block_size=block_size)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=mask)
    torch.testing.assert_close(out, expected, atol=1e-12, rtol=0)
    torch.testing.assert_close(out, scaled_dot_product_attention(q, k, v, mask)[0], atol=1e-12, rtol=0)
    assert out.shape == (2, 3, 37, 12) and lse.shape == (2, 3, 37)
    if mask is not None:
        allowed = mask > float("-inf") if mask.is_floating_point() else mask
        dead = ~torch.broadcast_to(allowed, (2, 3, 37, 70)).any(dim=-1)
        assert dead.any() == (mask_name not in ("인과(오른쪽 아래)", "슬라이딩 윈도 + 싱크"))
        assert torch.equal(out[dead], torch.zeros_like(out[dead]))  # 볼 키가 없는 행은 0
        assert torch.isneginf(lse[dead]).all() and torch.isfinite(lse[~dead]).all()


def explicit_lse(q, k, mask) -> torch.Tensor:
    scores = (q @ k.transpose(-2, -1)) / q.shape[-1] ** 0.5
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else scores + mask
    return torch.logsumexp(scores, dim=-1)


@pytest.mark.parametrize("mask_name", list(masks(37, 70)))
def test_log_sum_exp_matches_the_cpu_flash_kernel(mask_name):
    q, k, v = qkv(dtype=torch.float32)
    mask = masks(37, 70)[mask_name]
    out, lse = blockwise_attention(q, k, v, mask, block_size=16)
    torch.testing.assert_close(lse.double(), explicit_lse(q.double(), k.double(), mask), atol=1e-5, rtol=0)
    # 플래시 커널은 bool 마스크를 받지 않으므로(쿼리와 같은 dtype만) 덧셈 마스크로 바꿔 넘깁니다.
    additive = None if mask is None else (
        torch.zeros(mask.shape).masked_fill(~mask, float("-inf")) if mask.dtype == torch.bool else mask.float())
    flash_out, flash_lse = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu(q, k, v, attn_mask=additive)
    dead = torch.isneginf(lse)
    torch.testing.assert_close(lse[~dead], flash_lse[~dead], atol=1e-5, rtol=0)
    assert torch.equal(flash_lse[dead], torch.zeros_like(flash_lse[dead]))  # 플래시 커널: 빈 행의 logsumexp = 0
    torch.testing.assert_close(out, flash_out, atol=1e-5, rtol=0)  # 빈 행의 출력은 둘 다 0


def test_block_size_does_not_change_the_result():
    q, k, v = qkv(L=5, S=33)
    results = [blockwise_attention(q, k, v, block_size=b) for b in (1, 2, 7, 32, 33, 64)]
    for out, lse in results[1:]:
        torch.testing.assert_close(out, results[0][0], atol=1e-13, rtol=0)
        torch.testing.assert_close(lse, results[0][1], atol=1e-13, rtol=0)


def test_large_scores_do_not_overflow_because_of_the_running_maximum():
    q, k, v = qkv(L=4, S=50, dtype=torch.float32)
    q = q * 60.0  # 점수가 수백: exp를 그대로 하면 float32가 넘침
    out, lse = blockwise_attention(q, k, v, block_size=8)
    assert torch.isfinite(out).all() and torch.isfinite(lse).all() and lse.max() > 100
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v), atol=1e-4, rtol=0)


def test_gradients_match_torch_sdpa():
    q, k, v = (t.requires_grad_() for t in qkv(L=9, S=21))
    mask = cache_causal_mask(9, 21)
    grad = torch.randn(2, 3, 9, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(3))
    ours = torch.autograd.grad(blockwise_attention(q, k, v, mask, block_size=4)[0], (q, k, v), grad)
    theirs = torch.autograd.grad(F.scaled_dot_product_attention(q, k, v, attn_mask=mask), (q, k, v), grad)
    for a, b in zip(ours, theirs):
        torch.testing.assert_close(a, b, atol=1e-10, rtol=0)


def test_half_precision_accumulates_in_float32():
    q, k, v = qkv(L=8, S=40, dtype=torch.float32)
    out, lse = blockwise_attention(q.bfloat16(), k.bfloat16(), v.bfloat16(), block_size=16)
    assert out.dtype == torch.bfloat16 and lse.dtype == torch.float32
    torch.testing.assert_close(out.float(), F.scaled_dot_product_attention(q, k, v), atol=3e-2, rtol=0)


class LargestResult(TorchFunctionMode):
    """torch 함수와 텐서 연산이 만든 모든 텐서를 보고, 마지막 두 축이 (L, S)인 것이 있었는지 기록합니다."""

    def __init__(self, L: int, S: int) -> None:
        super().__init__()
        self.L, self.S, self.seen_LS, self.largest = L, S, False, 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        result = func(*args, **(kwargs or {}))
        for t in result if isinstance(result, (tuple, list)) else (result,):
            if isinstance(t, torch.Tensor) and t.dim() >= 2:
                self.seen_LS |= tuple(t.shape[-2:]) == (self.L, self.S)
                self.largest = max(self.largest, t.numel())
        return result


def test_never_builds_an_L_by_S_tensor_while_the_explicit_path_does():
    L, S, block = 96, 160, 32
    q, k, v = qkv(B=1, H=2, L=L, S=S, dtype=torch.float32)
    with LargestResult(L, S) as explicit:
        scaled_dot_product_attention(q, k, v)
    assert explicit.seen_LS  # 검사가 (L, S) 텐서를 실제로 알아봄
    with LargestResult(L, S) as blockwise:
        blockwise_attention(q, k, v, block_size=block)
    assert not blockwise.seen_LS
    assert blockwise.largest == 1 * 2 * L * block  # 가장 큰 것은 블록의 점수 (B, H, L, block_size)
