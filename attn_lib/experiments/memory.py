"""어텐션 한 번의 최대 메모리와 시간: 가중치를 만드는 명시적 경로 대 PyTorch의 융합 CPU 커널.

메모리는 크기와 경로마다 **새 프로세스**에서 잽니다. 한 프로세스에서 이어서 재면 앞에서 잡았다 놓은 메모리를
뒤에서 다시 쓰므로 최대 메모리가 섞이기 때문입니다. 값은 리눅스가 센 프로세스의 최대 상주 메모리(``VmHWM``,
``ru_maxrss``와 같은 값)입니다. 다만 ``import torch``가 잠깐 쓴 메모리가 이미 최댓값으로 남아 있어서 그보다 작은
증가는 보이지 않으므로, 호출 직전에 그 최댓값을 지금 값으로 되돌리고(``/proc/self/clear_refs``) 잽니다.
기울기를 기록하지 않는(추론) 호출입니다. 학습이라면 명시적 경로는 역전파를 위해 ``(B, H, L, S)`` 가중치도 저장합니다.
시간은 ``attention_time``이 한 프로세스에서 잽니다.

경로(``PATHS``):

- ``"explicit"``: ``attn_lib.scaled_dot_product_attention(q, k, v, causal_mask(L))``. 점수와 가중치
  ``(B, H, L, L)``를 만들고 가중치를 돌려줍니다.
- ``"fused_causal"``: ``F.scaled_dot_product_attention(q, k, v, is_causal=True)``. 마스크 텐서가 없습니다.
- ``"fused_mask"``: ``F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask(L))``. 같은 인과 마스크를
  ``(L, L)`` bool 텐서로 넘깁니다.

핵심 모듈만 import합니다.
"""

from __future__ import annotations

import json
import re
import resource
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

from .._checks import check_positive_int
from ..attention import scaled_dot_product_attention
from ..masks import causal_mask

__all__ = ["PATHS", "attention_memory", "attention_time", "measure_in_this_process"]

PATHS = ("explicit", "fused_causal", "fused_mask")


def _call(path: str, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> tuple:
    L = q.shape[-2]
    if path == "explicit":
        return scaled_dot_product_attention(q, k, v, causal_mask(L))  # (B, H, L, Dh), (B, H, L, L)
    if path == "fused_causal":
        return (F.scaled_dot_product_attention(q, k, v, is_causal=True),)  # (B, H, L, Dh)
    return (F.scaled_dot_product_attention(q, k, v, attn_mask=causal_mask(L)),)  # (L, L) 마스크 -> (B, H, L, Dh)


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
    if path not in PATHS:
        raise ValueError(f"path는 {PATHS} 가운데 하나여야 하는데 {path!r}이(가) 들어왔습니다.")
    for value, name in ((L, "L"), (num_heads, "num_heads"), (head_dim, "head_dim"), (batch_size, "batch_size")):
        check_positive_int(value, name)
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(batch_size, num_heads, L, head_dim, generator=g) for _ in range(3))  # (B, H, L, Dh)
    _call(path, *(t[..., :16, :].contiguous() for t in (q, k, v)))  # (B, H, 16, Dh): 커널과 스레드 풀을 데움
    if _reset_peak():
        method = "VmHWM - VmRSS (clear_refs로 되돌린 뒤)"
        before = _status_bytes("VmRSS")
        result = _call(path, q, k, v)
        extra = _status_bytes("VmHWM") - before
    else:
        method = "ru_maxrss 차이"
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # Linux: KiB -> 바이트
        result = _call(path, q, k, v)
        extra = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    weight_bytes = result[1].nbytes if len(result) > 1 else 0
    return {"경로": path, "L": L, "추가 최대 메모리 (바이트)": extra, "가중치 바이트": weight_bytes, "방법": method}


def attention_memory(
    lengths: list[int], paths: tuple[str, ...] = PATHS, *, num_heads: int = 8, head_dim: int = 64,
    batch_size: int = 1, workers: int = 2,
) -> list[dict]:
    """길이와 경로마다 새 파이썬 프로세스를 띄워 ``measure_in_this_process``를 부르고 결과를 모읍니다.

    프로세스마다 메모리를 따로 세므로 ``workers``개를 함께 띄워도 값이 섞이지 않습니다 (시간은 여기서 재지 않음).

    Returns:
        ``measure_in_this_process``의 결과 목록 (``lengths`` x ``paths`` 순서).

    Shape:
        - 자식마다 q, k, v: ``(batch_size, num_heads, L, head_dim)``
    """
    check_positive_int(workers, "workers")
    jobs = [(int(L), p) for L in lengths for p in paths]
    for L, p in jobs:
        check_positive_int(L, "lengths의 값")
        if p not in PATHS:
            raise ValueError(f"paths의 값은 {PATHS} 가운데 하나여야 하는데 {p!r}이(가) 들어왔습니다.")
    rows: list[dict] = []
    for i in range(0, len(jobs), workers):
        running = []
        for L, p in jobs[i : i + workers]:
            code = ("import json\nfrom attn_lib.experiments.memory import measure_in_this_process as m\n"
                    f"print(json.dumps(m({p!r}, {L}, {int(num_heads)}, {int(head_dim)}, {int(batch_size)}), "
                    "ensure_ascii=False))\n")
            running.append((L, p, subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                                                    stderr=subprocess.PIPE, text=True)))
        for L, p, proc in running:
            out, err = proc.communicate()
            if proc.returncode != 0:
                raise RuntimeError(f"메모리 측정 프로세스가 실패했습니다 (경로 {p}, L={L}):\n{err[-2000:]}")
            rows.append(json.loads(out.strip().splitlines()[-1]))
    return rows


def attention_time(lengths: list[int], paths: tuple[str, ...] = PATHS, *, num_heads: int = 8, head_dim: int = 64,
                   batch_size: int = 1, repeats: int = 3) -> list[dict]:
    """같은 입력으로 경로마다 호출 시간을 잽니다 (이 프로세스에서, torch 기본 스레드 수, ``repeats``번의 중앙값).

    Returns:
        ``{"경로", "L", "시간 (초)"}`` 목록 (``lengths`` x ``paths`` 순서).

    Shape:
        - q, k, v: ``(batch_size, num_heads, L, head_dim)`` float32
    """
    check_positive_int(repeats, "repeats")
    rows = []
    with torch.no_grad():
        for L in lengths:
            check_positive_int(L, "lengths의 값")
            g = torch.Generator().manual_seed(0)
            q, k, v = (torch.randn(batch_size, num_heads, L, head_dim, generator=g) for _ in range(3))
            for p in paths:
                _call(p, *(t[..., :16, :].contiguous() for t in (q, k, v)))  # 데우기
                times = []
                for _ in range(repeats):
                    start = time.perf_counter()
                    _call(p, q, k, v)
                    times.append(time.perf_counter() - start)
                rows.append({"경로": p, "L": L, "시간 (초)": statistics.median(times)})
    return rows
