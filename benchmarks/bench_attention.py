"""attn_lib.MultiHeadAttention (헤드를 한 번에 계산) 대 헤드마다 도는 순진한 루프.

같은 실행 안에서 두 구현을 같은 입력과 같은 가중치로 재고, 결과가 같은지도 확인합니다.
벽시계 시간은 기계 상태에 따라 흔들리므로 테스트가 아니라 표로만 봅니다.

    .venv/bin/python benchmarks/bench_attention.py
"""

from __future__ import annotations

import math
import statistics
import time

import torch

from attn_lib import MultiHeadAttention


def naive_per_head_loop(mha: MultiHeadAttention, x: torch.Tensor) -> torch.Tensor:
    """튜토리얼에 흔한 방식: 배치와 헤드마다 파이썬 루프로 따로 계산 (비교 기준)."""
    B, L, E = x.shape
    Dh = mha.head_dim
    q, k, v = mha.W_q(x), mha.W_k(x), mha.W_v(x)
    rows = []
    for b in range(B):
        heads = []
        for h in range(mha.num_heads):
            sl = slice(h * Dh, (h + 1) * Dh)
            w = torch.softmax(q[b, :, sl] @ k[b, :, sl].T / math.sqrt(Dh), dim=-1)  # (L, Dh) @ (Dh, L) -> (L, L)
            heads.append(w @ v[b, :, sl])  # (L, L) @ (L, Dh) -> (L, Dh)
        rows.append(torch.cat(heads, dim=-1))  # H x (L, Dh) -> (L, E)
    return mha.W_o(torch.stack(rows))  # B x (L, E) -> (B, L, E)


def timeit(fn, repeat: int) -> list[float]:
    fn()  # 준비 실행 (warm-up)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return times


def main() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(2)
    print("| B | L | E | H | 순진한 루프 ms (중앙값) | attn_lib ms (중앙값 / 최소 / 최대) | 배율 |")
    print("|---|---|---|---|---|---|---|")
    for B, L, E, H in [(8, 32, 64, 4), (8, 32, 64, 8), (8, 128, 256, 8), (4, 256, 512, 16)]:
        mha = MultiHeadAttention(E, H).eval()
        x = torch.randn(B, L, E)
        with torch.no_grad():
            torch.testing.assert_close(mha(x)[0], naive_per_head_loop(mha, x), atol=1e-4, rtol=1e-4)
            naive = timeit(lambda: naive_per_head_loop(mha, x), repeat=15)
            ours = timeit(lambda: mha(x), repeat=15)
        n, o = statistics.median(naive), statistics.median(ours)
        print(f"| {B} | {L} | {E} | {H} | {n:.2f} | {o:.2f} / {min(ours):.2f} / {max(ours):.2f} | {n / o:.1f}x |")


if __name__ == "__main__":
    main()
