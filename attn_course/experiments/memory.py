"""어텐션 한 번의 최대 메모리와 시간: 가중치를 만드는 명시적 경로 대 PyTorch의 융합 CPU 커널.

메모리는 크기와 경로마다 **새 프로세스**(forkserver가 fork한 자식)에서 잽니다. 한 프로세스에서 이어서 재면 앞에서 잡았다 놓은 메모리를
뒤에서 다시 쓰므로 최대 메모리가 섞이기 때문입니다. 값은 리눅스가 센 프로세스의 최대 상주 메모리(``VmHWM``,
``ru_maxrss``와 같은 값)입니다. 다만 ``import torch``가 잠깐 쓴 메모리가 이미 최댓값으로 남아 있어서 그보다 작은
증가는 보이지 않으므로, 호출 직전에 그 최댓값을 지금 값으로 되돌리고(``/proc/self/clear_refs``) 잽니다.
기울기를 기록하지 않는(추론) 호출입니다. 학습이라면 명시적 경로는 역전파를 위해 ``(B, H, L, S)`` 가중치도 저장합니다.

시간은 ``attention_time``이 이 프로세스에서, 스레드 하나로 잽니다: 경로마다 같은 크기의 입력으로 한 번 데운 뒤,
경로를 번갈아 가며 ``repeats``번 재어 중앙값을 씁니다 (번갈아 재면 다른 작업이 끼어든 때가 한 경로에 몰리지 않음).

``attention_cost``가 두 측정을 한 표로 모으고, 7장의 그림(``attn_course.plot_attention_cost``)은 그 표 하나에서
그립니다. 경로는 ``PATHS``(이름 -> 표와 그림에 쓰는 한국어 이름)와 ``_CALLS``(이름 -> 호출)에 한 줄씩 있으므로,
경로를 하나 더하면(예: 블록 단위로 직접 계산하는 경로) 표와 그림에 선이 하나 더 생깁니다.

- ``"explicit"``: ``attn_lib.scaled_dot_product_attention(q, k, v, causal_mask(L))``. 점수와 가중치
  ``(B, H, L, L)``를 만들고 가중치를 돌려줍니다.
- ``"fused_causal"``: ``F.scaled_dot_product_attention(q, k, v, is_causal=True)``. 마스크 텐서가 없습니다.
- ``"fused_mask"``: ``F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask(L))``. 같은 인과 마스크를
  ``(L, L)`` bool 텐서로 넘깁니다.
- ``"blockwise"``: 이 책의 ``blockwise_attention``(온라인 소프트맥스, 파이썬 루프)을 쿼리 ``BLOCK``개씩 부릅니다.
  쿼리 블록 ``[a, b)``는 키 ``[0, b)``만 보므로(대각선 위의 키 블록은 건너뜀) 그 블록의 인과 마스크는
  ``cache_causal_mask(b - a, b)``(오른쪽 아래에 맞춤, ``(BLOCK, b)`` bool)입니다. ``(L, L)`` 텐서를 만들지 않습니다.

핵심 모듈만 import합니다.
"""

from __future__ import annotations

import math
import multiprocessing
import re
import resource
import statistics
import time
from collections.abc import Callable, Sequence

import torch
import torch.nn.functional as F

from attn_lib._checks import check_positive_int, single_thread
from attn_lib.attention import scaled_dot_product_attention
from attn_lib.blockwise import blockwise_attention
from attn_lib.kv_cache import cache_causal_mask
from attn_lib.masks import causal_mask

__all__ = ["PATHS", "attention_cost", "attention_memory", "attention_time", "loglog_slope", "measure_in_this_process"]


def _explicit(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple:
    return scaled_dot_product_attention(q, k, v, causal_mask(q.shape[-2]))  # (B, H, L, Dh), (B, H, L, L)


def _fused_causal(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple:
    return (F.scaled_dot_product_attention(q, k, v, is_causal=True),)  # (B, H, L, Dh)


def _fused_mask(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple:
    return (F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask(q.shape[-2])),)  # (L, L) 마스크 -> (B, H, L, Dh)


#: ``"blockwise"`` 경로의 쿼리 블록과 키 블록 크기
BLOCK = 128


def _blockwise(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple:
    L = q.shape[-2]
    out = torch.empty_like(q)  # (B, H, L, Dh)
    for start in range(0, L, BLOCK):
        stop = min(start + BLOCK, L)
        mask = cache_causal_mask(stop - start, stop)  # (b, stop): 쿼리 start..stop-1 은 키 0..자기 자신까지
        # (B, H, b, Dh), 키·밸류 (B, H, stop, Dh) -> (B, H, b, Dh)
        out[..., start:stop, :] = blockwise_attention(q[..., start:stop, :], k[..., :stop, :], v[..., :stop, :], mask,
                                                      block_size=BLOCK)[0]
    return (out,)


#: 경로 이름 -> 표와 그림에 쓰는 한국어 이름 (순서 = 그림의 선 순서와 색)
PATHS: dict[str, str] = {
    "explicit": "명시적 경로",
    "fused_causal": "융합 커널, is_causal",
    "fused_mask": "융합 커널, 마스크 텐서",
    "blockwise": "블록 단위 (직접 구현)",
}
_CALLS: dict[str, Callable[[torch.Tensor, torch.Tensor, torch.Tensor], tuple]] = {
    "explicit": _explicit,
    "fused_causal": _fused_causal,
    "fused_mask": _fused_mask,
    "blockwise": _blockwise,
}


def _check_path(path: object, what: str = "path") -> str:
    if path not in _CALLS:
        raise ValueError(f"{what}의 값은 {tuple(PATHS)} 가운데 하나여야 하는데 {path!r}이(가) 들어왔습니다.")
    return path  # type: ignore[return-value]


def _status_bytes(field: str) -> int:
    with open("/proc/self/status", encoding="ascii") as f:
        return int(re.search(rf"^{field}:\s+(\d+) kB", f.read(), re.M).group(1)) * 1024


def _reset_peak() -> bool:
    """리눅스의 최대 상주 메모리(VmHWM)를 지금 값으로 되돌립니다 (``/proc/self/clear_refs``에 5). 안 되면 False."""
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _inputs(L: int, num_heads: int, head_dim: int, batch_size: int) -> tuple[torch.Tensor, ...]:
    g = torch.Generator().manual_seed(0)
    return tuple(torch.randn(batch_size, num_heads, L, head_dim, generator=g) for _ in range(3))  # (B, H, L, Dh)


@torch.no_grad()
def measure_in_this_process(path: str, L: int, num_heads: int, head_dim: int, batch_size: int) -> dict:
    """지금 프로세스에서 한 경로의 호출 하나가 더 쓴 최대 메모리를 잽니다 (``attention_memory``가 새 프로세스마다 부름).

    입력을 만들고 작은 입력으로 한 번 데운 뒤, 최대 상주 메모리를 지금 값으로 되돌리고(``clear_refs``) 호출합니다.
    호출 뒤의 최대 상주 메모리 ``VmHWM``에서 호출 전 상주 메모리 ``VmRSS``를 뺀 값이 결과입니다. 되돌리기가 안 되는
    시스템에서는 ``ru_maxrss``의 차이를 쓰고 ``"방법"``에 적습니다 (이때는 그 전의 최댓값보다 작은 증가는 0으로 보임).

    Returns:
        ``{"경로", "L", "추가 최대 메모리 (바이트)", "가중치 바이트", "방법"}``.

    Shape:
        - q, k, v: ``(B, H, L, Dh)`` float32 (시드 0)
    """
    call = _CALLS[_check_path(path)]
    for value, name in ((L, "L"), (num_heads, "num_heads"), (head_dim, "head_dim"), (batch_size, "batch_size")):
        check_positive_int(value, name)
    q, k, v = _inputs(L, num_heads, head_dim, batch_size)
    call(*(t[..., :16, :].contiguous() for t in (q, k, v)))  # (B, H, 16, Dh): 커널과 스레드 풀을 데움
    if _reset_peak():
        method = "VmHWM - VmRSS (clear_refs로 되돌린 뒤)"
        before = _status_bytes("VmRSS")
        result = call(q, k, v)
        extra = _status_bytes("VmHWM") - before
    else:
        method = "ru_maxrss 차이"
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB -> 바이트
        result = call(q, k, v)
        extra = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    weight_bytes = result[1].nbytes if len(result) > 1 else 0
    return {"경로": path, "L": L, "추가 최대 메모리 (바이트)": extra, "가중치 바이트": weight_bytes, "방법": method}


def attention_memory(
    lengths: Sequence[int], paths: Sequence[str] = tuple(PATHS), *, num_heads: int = 8, head_dim: int = 64,
    batch_size: int = 1, workers: int = 2,
) -> list[dict]:
    """길이와 경로마다 새 프로세스에서 ``measure_in_this_process``를 부르고 결과를 모읍니다.

    새 프로세스는 ``multiprocessing``의 forkserver가 만듭니다: 이 모듈을 한 번 불러 둔 서버 프로세스가 측정마다
    자식을 fork하므로, 자식마다 ``import torch``를 다시 하지 않습니다. 서버는 torch 계산을 하지 않으므로 자식의
    스레드 풀은 새로 시작합니다 (계산을 한 프로세스를 fork하면 스레드 풀이 멈출 수 있음). 자식 하나가 측정 하나만
    하고 끝나므로(``maxtasksperchild=1``) 앞의 측정이 놓은 메모리가 뒤의 측정에 섞이지 않고, 프로세스마다 메모리를
    따로 세므로 ``workers``개를 함께 돌려도 값이 섞이지 않습니다 (시간은 여기서 재지 않음).

    Returns:
        ``measure_in_this_process``의 결과 목록 (``lengths`` x ``paths`` 순서).

    Shape:
        - 자식마다 q, k, v: ``(batch_size, num_heads, L, head_dim)``
    """
    check_positive_int(workers, "workers")
    jobs = [(_check_path(p, "paths"), int(L), int(num_heads), int(head_dim), int(batch_size))
            for L in lengths for p in paths]
    for _, L, *_ in jobs:
        check_positive_int(L, "lengths의 값")
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload([__name__])
    with context.Pool(min(workers, len(jobs)) or 1, maxtasksperchild=1) as pool:
        return pool.starmap(measure_in_this_process, jobs, chunksize=1)


def attention_time(lengths: Sequence[int], paths: Sequence[str] = tuple(PATHS), *, num_heads: int = 8,
                   head_dim: int = 64, batch_size: int = 1, repeats: int = 5, warmup: int = 1) -> list[dict]:
    """같은 입력으로 경로마다 호출 시간을 잽니다 (이 프로세스, 스레드 하나).

    길이마다 경로마다 같은 크기의 입력으로 ``warmup``번 데운 뒤, 경로를 번갈아 가며 ``repeats``번 재고
    중앙값을 씁니다. 가장 짧은 값과 가장 긴 값도 함께 돌려주므로 흔들림을 볼 수 있습니다.

    Returns:
        ``{"경로", "L", "시간 (초)", "가장 짧은 시간 (초)", "가장 긴 시간 (초)", "반복"}`` 목록 (``lengths`` x ``paths`` 순서).

    Shape:
        - q, k, v: ``(batch_size, num_heads, L, head_dim)`` float32
    """
    check_positive_int(repeats, "repeats")
    if isinstance(warmup, bool) or not isinstance(warmup, int) or warmup < 0:
        raise ValueError(f"warmup은 0 이상의 정수여야 하는데 {warmup!r}이(가) 들어왔습니다.")
    paths = [_check_path(p, "paths") for p in paths]
    rows = []
    with torch.no_grad(), single_thread():
        for L in lengths:
            check_positive_int(L, "lengths의 값")
            q, k, v = _inputs(L, num_heads, head_dim, batch_size)
            for p in paths:
                for _ in range(warmup):
                    _CALLS[p](q, k, v)  # 데우기: 같은 크기로 (메모리 할당과 커널 선택까지)
            times: dict[str, list[float]] = {p: [] for p in paths}
            for _ in range(repeats):
                for p in paths:
                    start = time.perf_counter()
                    _CALLS[p](q, k, v)
                    times[p].append(time.perf_counter() - start)
            for p in paths:
                rows.append({"경로": p, "L": L, "시간 (초)": statistics.median(times[p]),
                             "가장 짧은 시간 (초)": min(times[p]), "가장 긴 시간 (초)": max(times[p]), "반복": repeats})
    return rows


def attention_cost(
    lengths: Sequence[int], paths: Sequence[str] = tuple(PATHS), *, num_heads: int = 8, head_dim: int = 64,
    batch_size: int = 1, repeats: int = 5, workers: int = 2,
) -> list[dict]:
    """길이와 경로마다 메모리(``attention_memory``)와 시간(``attention_time``)을 재어 한 표로 모읍니다.

    메모리를 먼저 (자식 프로세스에서) 다 잰 뒤 시간을 잽니다: 자식 프로세스가 도는 동안 시간을 재지 않도록.

    Returns:
        ``{"경로", "이름", "L", "추가 최대 메모리 (바이트)", "가중치 바이트", "시간 (초)", "가장 짧은 시간 (초)",
        "가장 긴 시간 (초)", "반복"}`` 목록 (``lengths`` x ``paths`` 순서). ``"이름"``은 ``PATHS``의 한국어 이름.

    Shape:
        - q, k, v: ``(batch_size, num_heads, L, head_dim)``
    """
    memory = attention_memory(lengths, paths, num_heads=num_heads, head_dim=head_dim, batch_size=batch_size,
                              workers=workers)
    timing = attention_time(lengths, paths, num_heads=num_heads, head_dim=head_dim, batch_size=batch_size,
                            repeats=repeats)
    times = {(r["경로"], r["L"]): r for r in timing}
    rows = []
    for m in memory:
        t = times[(m["경로"], m["L"])]
        rows.append({"경로": m["경로"], "이름": PATHS[m["경로"]], "L": m["L"],
                     "추가 최대 메모리 (바이트)": m["추가 최대 메모리 (바이트)"], "가중치 바이트": m["가중치 바이트"],
                     **{key: t[key] for key in ("시간 (초)", "가장 짧은 시간 (초)", "가장 긴 시간 (초)", "반복")}})
    return rows


def loglog_slope(x: Sequence[float], y: Sequence[float]) -> float:
    """로그-로그 눈금에서 ``y``가 ``x``에 대해 늘어나는 기울기 (최소제곱 직선): ``y ∝ x^기울기``.

    기울기 1이면 ``x``를 두 배로 할 때 ``y``도 두 배, 2이면 네 배입니다. 그림의 기울기 이름표와 같은 계산입니다.

    Shape:
        - x, y: ``(N,)``, N >= 2, 모두 양수
    """
    xs, ys = [float(v) for v in x], [float(v) for v in y]
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError(f"x와 y는 길이가 같고 2 이상이어야 하는데 {len(xs)}, {len(ys)}입니다.")
    if min(xs) <= 0 or min(ys) <= 0:
        raise ValueError("로그-로그 기울기는 양수에서만 잽니다: x와 y에 0이나 음수가 있습니다.")
    lx, ly = [math.log2(v) for v in xs], [math.log2(v) for v in ys]
    return statistics.linear_regression(lx, ly).slope
