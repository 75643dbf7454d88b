"""어텐션 탐색기: 조작기를 바꾼 뒤 새 그림(PNG)이 준비될 때까지의 시간, 순진한 방식과 비교.

- 순진한 방식 (많은 튜토리얼): 바뀔 때마다 새 그림을 만들고 헤드마다 ``sns.heatmap(annot=True)``,
  가중치 전체에 ``plt.hist``, 기본 dpi로 PNG 저장. 가중치 계산은 탐색기와 같은 모델.
- 탐색기 (``attn_lib.AttentionExplorer``): 위젯 조작기의 값을 바꾸면(슬라이더를 움직인 것과 같은
  콜백) 다시 계산하고 그림을 다시 그려 ``ipywidgets.Image``에 넣은 뒤 돌아옵니다. 그림은 헤드 수와
  토큰마다 하나를 다시 쓰고, 바뀌는 요소만 그립니다. 결과 그림을 저장해 두었다가 쓰지 않습니다.

같은 실행에서 두 방식을 번갈아 재지 않고 차례로 잽니다. 벽시계 시간은 기계의 부하에 따라 흔들리므로
시작과 끝의 부하(``os.getloadavg``)를 같이 적습니다. 테스트가 아니라 표입니다.

    .venv/bin/python benchmarks/bench_explorer.py                    # 전체 (순진한 방식 3회씩, 몇 분)
    .venv/bin/python benchmarks/bench_explorer.py --naive-repeats 1  # 빨리
"""

from __future__ import annotations

import argparse
import io
import math
import os
import statistics
import sys
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import seaborn as sns  # noqa: E402
import torch  # noqa: E402

from attn_course import AttentionExplorer, setup_korean_font  # noqa: E402
from attn_course.explorer.model import ExplorerModel  # noqa: E402

WORDS = ("오늘 아침 나는 작은 도서관에서 오래된 책을 빌려 창가 자리에 앉아 천천히 읽다가 문득 웃었다 정말").split()
# 조작기 변경 순서: 마스크, 위치, 창, 스케일링, 시드를 번갈아 (d_k와 헤드 수는 표의 값에 고정; 창 조작기의 0 = 전체).
# 창(그 자체로 인과)이 켜져 있을 때 마스크를 없음 <-> 인과로 바꾸면 그림이 그대로이므로 창을 끈 뒤에 바꿉니다.
CHANGES = [("mask", "causal"), ("position", "rope"), ("window", 3), ("scaled", False), ("window", 0), ("seed", 1),
           ("mask", "none"), ("position", "none"), ("scaled", True), ("seed", 0)]


def naive_update(model: ExplorerModel, tokens: list[str], d_k: int, heads: int, mask: str, scaled: bool,
                 position: str = "none", window: int | None = None) -> bytes:
    """튜토리얼에 흔한 방식: 새 그림, 헤드마다 sns.heatmap(annot=True), plt.hist, 기본 dpi PNG."""
    weights, *_ = model.weights(tokens, d_k=d_k, num_heads=heads, mask=mask, scaled=scaled, position=position,
                                window=window)
    w = weights.numpy()
    ncols = min(heads, 4)
    nrows = math.ceil(heads / ncols)
    fig, axes = plt.subplots(nrows + 1, ncols, figsize=(4 * ncols, 3.6 * (nrows + 1)), squeeze=False)
    for h, ax in enumerate(axes[:nrows].flat):
        if h < heads:
            sns.heatmap(w[h], annot=True, fmt=".2f", cmap="viridis", vmin=0, vmax=1, ax=ax,
                        xticklabels=tokens, yticklabels=tokens, annot_kws={"fontsize": 6})
            ax.set_title(f"헤드 {h}")
        else:
            ax.set_axis_off()
    for ax in axes[nrows, 1:]:
        ax.set_axis_off()
    plt.sca(axes[nrows, 0])
    plt.hist(w.ravel(), bins=20, range=(0, 1), log=True)
    plt.title("포화 히스토그램")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")  # 기본 dpi (figure.dpi = 100)
    plt.close(fig)
    return buffer.getvalue()


def time_naive(tokens: list[str], d_k: int, heads: int, repeats: int) -> list[float]:
    model = ExplorerModel(0)
    times = []
    for i in range(repeats):
        key, value = CHANGES[i % len(CHANGES)]
        settings = {"mask": "none", "scaled": True, "position": "none", "window": 0, key: value}
        model = ExplorerModel(value) if key == "seed" else model
        start = time.perf_counter()
        naive_update(model, tokens, d_k, heads, settings["mask"], settings["scaled"], settings["position"],
                     settings["window"] or None)
        times.append((time.perf_counter() - start) * 1000)
    return times


def time_explorer(tokens: list[str], d_k: int, heads: int, repeats: int) -> list[float]:
    explorer = AttentionExplorer(tokens=tokens, seed=0, d_k=d_k, num_heads=heads)
    for key, value in CHANGES:  # 준비: 쓰일 그림을 한 번씩 만들어 둠 (처음 그림은 수백 ms)
        explorer.controls[key].value = value
    times = []
    for i in range(repeats):
        key, value = CHANGES[i % len(CHANGES)]
        before = explorer.image
        start = time.perf_counter()
        explorer.controls[key].value = value  # 슬라이더·단추를 움직인 것과 같은 콜백
        elapsed = (time.perf_counter() - start) * 1000
        if explorer.image == before or explorer.error:
            raise RuntimeError(f"그림이 바뀌지 않았습니다: {key}={value!r} {explorer.error}")
        times.append(elapsed)
    return times


def fmt(times: list[float]) -> str:
    return f"{statistics.median(times):,.1f} / {min(times):,.1f} / {max(times):,.1f}"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--naive-repeats", type=int, default=3, help="순진한 방식 반복 수 (기본 3)")
    parser.add_argument("--repeats", type=int, default=60, help="탐색기 반복 수 (기본 60)")
    args = parser.parse_args(argv[1:])
    setup_korean_font()
    load_start = os.getloadavg()
    print(f"CPU {os.cpu_count()}개, torch 스레드 {torch.get_num_threads()}, matplotlib {matplotlib.__version__}, "
          f"seaborn {sns.__version__}")
    print(f"부하 (load average 1/5/15분) 시작: {load_start[0]:.2f} / {load_start[1]:.2f} / {load_start[2]:.2f}")
    print(f"반복: 순진한 방식 {args.naive_repeats}회, 탐색기 {args.repeats}회 (조작기: 마스크, 위치, 스케일링, 창, 시드를 번갈아)")
    print()
    verdict = []
    for d_k in (64, 512):
        print(f"d_k = {d_k}")
        print("| 헤드 x 토큰 | 순진한 방식 ms (중앙값 / 최소 / 최대) | 탐색기 ms (중앙값 / 최소 / 최대) | 배율 (중앙값) |")
        print("|---|---|---|---|")
        for heads in (4, 8, 16):
            for L in (8, 16):
                tokens = WORDS[:L]
                naive = time_naive(tokens, d_k, heads, args.naive_repeats)
                ours = time_explorer(tokens, d_k, heads, args.repeats)
                ratio = statistics.median(naive) / statistics.median(ours)
                print(f"| {heads} x {L} | {fmt(naive)} | {fmt(ours)} | {ratio:,.0f}x |", flush=True)
                if (d_k, heads, L) == (64, 8, 16):
                    verdict = [statistics.median(ours), ratio]
        print()
    load_end = os.getloadavg()
    print(f"부하 끝: {load_end[0]:.2f} / {load_end[1]:.2f} / {load_end[2]:.2f}")
    median, ratio = verdict
    ok = median < 50 and ratio >= 30
    print(f"목표 (8헤드 x 16토큰, d_k=64): 중앙값 {median:.1f} ms < 50 ms, 배율 {ratio:,.0f}x >= 30x -> "
          + ("충족" if ok else "미달"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
