"""블록 단위 어텐션(온라인 소프트맥스)의 최대 메모리: 가중치를 만드는 명시적 경로와 같은 방법으로 잽니다.

메모리는 7장과 같은 방법입니다(``attn_lib/experiments/memory.py``): 크기와 경로마다 새 프로세스에서, 작은 입력으로
한 번 데운 뒤 최대 상주 메모리를 지금 값으로 되돌리고(``clear_refs``) 호출 하나가 더 쓴 ``VmHWM - VmRSS``를 잽니다.
명시적 경로와 융합 커널은 ``attention_memory``가 그대로 재고, 블록 단위 경로는 같은 도우미(``_reset_peak``,
``_status_bytes``)로 같은 순서를 밟습니다. 세 경로 모두 인과 마스크를 씁니다: 명시적 경로와 블록 단위 경로는
호출 안에서 ``causal_mask(L)``을 ``(L, L)`` bool 텐서로 만들고(둘 다 같은 16 MiB), 융합 경로는 ``is_causal=True``.
블록 단위 경로의 값은 프로세스마다 흔들리므로 세 번 재어 중앙값과 최댓값을 적고, 기준은 최댓값으로 판정합니다.
그 값의 절반쯤은 텐서가 아니라 glibc 힙입니다: 블록마다 8 MiB짜리 임시 텐서를 만들고 놓는데, glibc는 mmap으로 받은
큰 조각을 한 번 놓으면 mmap 문턱을 그 크기로 올려 다음 조각부터 힙에서 주고, 놓은 힙은 조각나 돌려주지 못합니다.
그래서 같은 호출을 ``MALLOC_MMAP_THRESHOLD_=65536``(문턱 고정)으로 한 번 더 재어, 살아 있는 텐서만의 최대에 가까운
값을 참고로 적습니다. 명시적 경로는 512 MiB짜리 텐서가 문턱과 상관없이 mmap이라 두 방법의 차이가 작습니다
(L=4096에서 2,082 대 2,066 MiB로 잰 적 있음).
기준(이슈 28): B=1, H=8, L=S=4096, Dh=64, 블록 64에서 블록 단위 경로가 명시적 경로의 10 % 이하.

    .venv/bin/python benchmarks/bench_blockwise.py
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

from attn_lib import blockwise_attention, causal_mask, scaled_dot_product_attention
from attn_course import attention_memory
from attn_course.experiments.memory import _reset_peak, _status_bytes

B, H, DH = 1, 8, 64
SIZES = [1024, 4096]
BLOCKS = [64, 256]
RUNS = 3  # 블록 단위 경로의 메모리를 잴 새 프로세스 수
TARGET = (4096, 64, 0.10)  # (L, block_size, 명시적 경로 대비 최대 비율)
MiB = 2 ** 20
HERE = str(Path(__file__).resolve().parent)


@torch.no_grad()
def measure_blockwise(L: int, block_size: int) -> dict:
    """``measure_in_this_process``와 같은 순서로 블록 단위 경로 한 번의 추가 최대 메모리를 잽니다 (새 프로세스에서)."""
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(B, H, L, DH, generator=g) for _ in range(3))  # (B, H, L, Dh)
    small = [t[..., :16, :].contiguous() for t in (q, k, v)]  # (B, H, 16, Dh): 데우기
    blockwise_attention(*small, causal_mask(16), block_size=block_size)
    if not _reset_peak():
        raise RuntimeError("/proc/self/clear_refs 에 쓸 수 없어 7장과 같은 방법으로 잴 수 없습니다.")
    before = _status_bytes("VmRSS")
    blockwise_attention(q, k, v, causal_mask(L), block_size=block_size)
    return {"L": L, "block": block_size, "추가 최대 메모리 (바이트)": _status_bytes("VmHWM") - before}


def blockwise_memory(L: int, block_size: int, env: dict | None = None) -> dict:
    code = (f"import json, sys\nsys.path.insert(0, {HERE!r})\n"
            "from bench_blockwise import measure_blockwise\n"
            f"print(json.dumps(measure_blockwise({L}, {block_size}), ensure_ascii=False))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          env=None if env is None else {**os.environ, **env})
    if proc.returncode != 0:
        raise RuntimeError(f"블록 단위 측정 프로세스가 실패했습니다 (L={L}, 블록 {block_size}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


@torch.no_grad()
def median_ms(fn, repeats: int = 3) -> float:
    fn()  # 데우기
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


@torch.no_grad()
def check_values(L: int = 512) -> float:
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(B, H, L, DH, generator=g) for _ in range(3))
    mask = causal_mask(L)
    return float((blockwise_attention(q, k, v, mask, block_size=64)[0] - scaled_dot_product_attention(q, k, v, mask)[0])
                 .abs().max())


def main() -> int:
    torch.set_num_threads(2)
    diff = check_values()
    print(f"값 확인: 블록 단위 대 명시적 경로, L=512 인과, 최대 차이 {diff:.1e}")
    if diff > 1e-5:
        return 1
    print(f"\n어텐션 한 번 (B={B}, H={H}, Dh={DH}, 인과, float32, 추론): 추가 최대 메모리 MiB (새 프로세스마다), "
          "시간 ms (중앙값 3번, 데운 뒤)")
    ref = {(r["경로"], r["L"]): r for r in attention_memory(SIZES, ("explicit", "fused_causal"), num_heads=H,
                                                            head_dim=DH, batch_size=B, workers=1)}
    print(f"{'L':>6} {'경로':<16} {'MiB':>9} {'최대 MiB':>9} {'명시적 대비':>10} {'ms':>9}")
    verdict = None
    for L in SIZES:
        g = torch.Generator().manual_seed(0)
        q, k, v = (torch.randn(B, H, L, DH, generator=g) for _ in range(3))
        explicit = ref["explicit", L]["추가 최대 메모리 (바이트)"]
        timings = {"explicit": median_ms(lambda: scaled_dot_product_attention(q, k, v, causal_mask(L))),
                   "fused_causal": median_ms(lambda: torch.nn.functional.scaled_dot_product_attention(
                       q, k, v, is_causal=True))}
        fused = ref["fused_causal", L]["추가 최대 메모리 (바이트)"]
        rows = [("명시적", explicit, explicit, timings["explicit"]), ("융합 is_causal", fused, fused, timings["fused_causal"])]
        for block in BLOCKS:
            runs = [blockwise_memory(L, block)["추가 최대 메모리 (바이트)"] for _ in range(RUNS)]
            ms = median_ms(lambda: blockwise_attention(q, k, v, causal_mask(L), block_size=block))
            rows.append((f"블록 단위 {block}", statistics.median(runs), max(runs), ms))
            if (L, block) == TARGET[:2]:
                verdict = max(runs) / explicit
                fixed = blockwise_memory(L, block, {"MALLOC_MMAP_THRESHOLD_": "65536"})["추가 최대 메모리 (바이트)"]
                rows.append(("  (mmap 문턱 고정)", fixed, fixed, None))  # 참고: 시간은 재지 않음
        for name, typical, worst, ms in rows:
            ms_text = "-" if ms is None else f"{ms:,.1f}"
            print(f"{L:>6} {name:<16} {typical / MiB:>9,.1f} {worst / MiB:>9,.1f} {worst / explicit:>10.1%} {ms_text:>9}")
    print(f"(측정 방법: {ref['explicit', SIZES[0]]['방법']}; 명시적·융합은 한 번, 블록 단위는 {RUNS}번의 중앙값과 최대; "
          f"비율은 최대 기준; torch {torch.__version__}, 스레드 {torch.get_num_threads()}개)")
    L, block, limit = TARGET
    ok = verdict is not None and verdict <= limit
    print(f"\n기준: L=S={L}, 블록 {block}에서 블록 단위(최대) ÷ 명시적 = {verdict:.1%} (한계 {limit:.0%}) -> "
          f"{'통과' if ok else '실패'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
