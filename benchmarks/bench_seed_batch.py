"""시드 묶음 학습(train_seed_batch) 대 시드마다 따로 학습(train_with_history): 모델 하나에 드는 시간.

5장이 스윕을 시드 묶음으로 돌리는 까닭을 잽니다. 같은 프로세스, 스레드 하나에서 두 방식을 번갈아 재고
(준비 실행 한 번 뒤 반복, 중앙값), 벽시계 시간과 CPU 시간을 함께 적습니다. 다른 작업이 코어를 쓰면 벽시계 시간이
늘어나므로 CPU 시간도 봅니다. 시간은 테스트가 아니라 표로만 봅니다.

    .venv/bin/python benchmarks/bench_seed_batch.py
"""

from __future__ import annotations

import statistics
import time

from attn_course import ToyConfig, train_seed_batch, train_with_history

STEPS = 100  # 5장의 300스텝 가운데 앞 100스텝 (모델 하나의 시간은 스텝 수에 비례)
SEEDS = list(range(10))
REPEAT = 3


def measure(fn) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    cfg = ToyConfig(steps=STEPS, lr=0.008)
    print(f"스텝 {STEPS}, 시드 {len(SEEDS)}개, 스레드 1. 칸: 모델 하나에 드는 시간(초, 반복 {REPEAT}번의 중앙값)")
    print("| 헤드 수 | 따로: 벽시계 | 따로: CPU | 묶음: 벽시계 | 묶음: CPU | CPU 배율 |")
    print("|---|---|---|---|---|---|")
    for heads in (1, 2, 4):
        separate = lambda: [train_with_history(heads, s, cfg) for s in SEEDS[:3]]  # noqa: E731 (시드 3개로 충분)
        batched = lambda: train_seed_batch(heads, SEEDS, cfg)  # noqa: E731
        separate(), batched()  # 준비 실행 (warm-up)
        rows = {"따로": [], "묶음": []}
        for _ in range(REPEAT):  # 번갈아 재서 기계 상태의 변화가 한쪽에만 몰리지 않게
            wall, cpu = measure(separate)
            rows["따로"].append((wall / 3, cpu / 3))
            wall, cpu = measure(batched)
            rows["묶음"].append((wall / len(SEEDS), cpu / len(SEEDS)))
        med = {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in rows.items()}
        print(f"| {heads} | {med['따로'][0]:.3f} | {med['따로'][1]:.3f} | {med['묶음'][0]:.3f} | {med['묶음'][1]:.3f} "
              f"| {med['따로'][1] / med['묶음'][1]:.1f} |")


if __name__ == "__main__":
    main()
