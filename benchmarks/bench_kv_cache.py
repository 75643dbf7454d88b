"""KV 캐시와 어텐션 메모리 (7장): 같은 실행 안에서 순진한 기준과 비교한 배율.

1. 디코딩 속도: 캐시 없이(단계마다 전체를 다시 계산, 기준) 대 ``KVCache``와 함께. 토큰/초와 배율, 두 출력의 최대 차이.
2. 어텐션 한 번의 추가 최대 메모리(크기·경로마다 새 프로세스, ``VmHWM``)와 시간(이 프로세스, 중앙값):
   가중치를 만드는 명시적 경로(기준) 대 PyTorch 융합 CPU 커널(``is_causal=True``, 마스크 텐서).

    .venv/bin/python benchmarks/bench_kv_cache.py
"""

from __future__ import annotations

import torch

from attn_course import TinyDecoder, attention_memory, attention_time, decoding_speed

LENGTHS = [256, 512, 1024]
SIZES = [256, 512, 1024, 2048, 4096]
MiB = 2 ** 20


def decoding_table() -> None:
    print("1. 디코딩 속도: TinyDecoder(E=64, H=4, 층 2개), 배치 1, 스레드 1, 길이마다 한 번")
    print(f"{'Hkv':>4} {'T':>6} {'캐시 없이 tok/s':>16} {'캐시와 함께 tok/s':>18} {'배율':>8} {'최대 차이':>10} {'캐시 KiB':>9}")
    for num_kv_heads in (4, 1):
        model = TinyDecoder(embed_dim=64, num_heads=4, num_kv_heads=num_kv_heads, num_layers=2)
        for r in decoding_speed(model, LENGTHS):
            assert r["최대 차이"] < 1e-5, r
            print(f"{num_kv_heads:>4} {r['T']:>6} {r['캐시 없이 (토큰/초)']:>16,.0f} {r['캐시와 함께 (토큰/초)']:>18,.0f} "
                  f"{r['배율']:>7.1f}x {r['최대 차이']:>10.1e} {r['캐시 바이트'] / 1024:>9,.0f}")


def memory_table() -> None:
    print("\n2. 어텐션 한 번 (B=1, H=8, Dh=64, 인과): 추가 최대 메모리 MiB (새 프로세스마다) / 시간 ms (중앙값 3번)")
    paths = ("explicit", "fused_causal", "fused_mask")  # 블록 단위 경로는 bench_blockwise.py 가 잼
    memory = {(r["경로"], r["L"]): r for r in attention_memory(SIZES, paths)}
    timing = {(r["경로"], r["L"]): r["시간 (초)"] * 1000 for r in attention_time(SIZES, paths, repeats=3)}
    print(f"{'L':>6} | {'명시적 MiB':>10} {'융합 MiB':>9} {'마스크 MiB':>10} {'배율':>7} | "
          f"{'명시적 ms':>9} {'융합 ms':>8} {'마스크 ms':>9} {'배율':>7}")
    for L in SIZES:
        m = {p: memory[p, L]["추가 최대 메모리 (바이트)"] / MiB for p in ("explicit", "fused_causal", "fused_mask")}
        t = {p: timing[p, L] for p in ("explicit", "fused_causal", "fused_mask")}
        print(f"{L:>6} | {m['explicit']:>10,.1f} {m['fused_causal']:>9,.1f} {m['fused_mask']:>10,.1f} "
              f"{m['explicit'] / max(m['fused_causal'], 1e-9):>6,.0f}x | "
              f"{t['explicit']:>9,.1f} {t['fused_causal']:>8,.1f} {t['fused_mask']:>9,.1f} "
              f"{t['explicit'] / t['fused_causal']:>6,.1f}x")
    print(f"(메모리 측정 방법: {memory['explicit', SIZES[0]]['방법']}; 배율 = 명시적 ÷ 융합 is_causal; "
          f"torch {torch.__version__}, 스레드 {torch.get_num_threads()}개)")


if __name__ == "__main__":
    decoding_table()
    memory_table()
