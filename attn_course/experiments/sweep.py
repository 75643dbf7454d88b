"""헤드 수 x 학습률 x 시드(x 스텝 수) 스윕: 한 설정에서 나온 결론을 믿지 않고 여러 설정에서 다시 잽니다.

``sweep_jobs``로 설정 목록을 만들고 ``run_sweep``(실행마다 모델 하나) 또는 ``run_seed_batches``(같은 설정의 시드들을
한 묶음으로, ``seed_batch``)로 학습합니다. 실행 하나(묶음 하나)는 스레드 하나를 쓰고 시드로 정해지므로, 프로세스
여러 개(``workers``)에 나눠 돌려도 숫자가 한 비트도 바뀌지 않습니다. 2코어 기계에서 ``workers=2``면 걸리는 시간이
거의 절반입니다. 두 함수는 덧셈 순서가 달라 같은 시드라도 마지막 비트가 다르고, 긴 학습에서는 그 차이가 커질 수
있습니다(``seed_batch`` 참고): 한 장 안에서는 한 함수만 씁니다.

결과(``SweepRun``)에는 정확도, 평가 시퀀스에서 잰 헤드별 몫, 학습 중 기록(``TrainingHistory``), 걸린 시간,
그리고 모델을 다시 만들 수 있는 파라미터가 들어 있습니다. 표와 그림은 부르는 쪽(장, ``plots``)이 만듭니다.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import signal
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Sequence

import torch
from torch import Tensor

from attn_lib._checks import check_positive_float, check_positive_int, check_seed, describe
from .seed_batch import SeedBatchResult, train_seed_batch
from .training import TrainingHistory, train_with_history
from .toy import HeadToyModel, ToyConfig, head_relation_shares, make_task_batch

__all__ = ["SweepJob", "SweepRun", "sweep_jobs", "run_sweep", "run_seed_batches", "continue_seed_batches", "sweep_records"]


@dataclass(frozen=True)
class SweepJob:
    """실행 하나의 설정(헤드 수, 학습률, 스텝 수, 시드, 너비). 나머지는 ``run_sweep``에 준 ``ToyConfig``를 따릅니다.

    Shape:
        - 해당 없음 (스칼라 다섯 개)
    """

    num_heads: int
    lr: float
    steps: int
    seed: int
    embed_dim: int | None = None  # None이면 run_sweep에 준 ToyConfig의 너비
    num_kv_heads: int | None = None  # None이면 run_sweep에 준 ToyConfig의 값 (기본: 쿼리 헤드 수와 같음)


@dataclass(frozen=True)
class SweepRun:
    """실행 하나의 결과.

    Attributes:
        job: 설정.
        accuracy: 평가 시퀀스의 채점 위치 전체에서 잰 정확도.
        first_share, previous_share: 평가 시퀀스 전체에서 잰 헤드별 "첫 토큰"/"이전 토큰" 몫.
        history: 학습 중 기록.
        seconds: 이 실행의 학습과 평가에 걸린 시간(초, 실행한 프로세스에서 잼).
        state: 모델 파라미터 (``model()``로 다시 만듦).

    Shape:
        - ``first_share``, ``previous_share``: 길이 ``H``
    """

    job: SweepJob
    accuracy: float
    first_share: tuple[float, ...]
    previous_share: tuple[float, ...]
    history: TrainingHistory
    seconds: float
    state: dict[str, Tensor]

    def model(self, config: ToyConfig | None = None) -> HeadToyModel:
        """학습된 모델을 다시 만듭니다 (eval 모드).

        Shape:
            - 모델 입력 ``(B, L)`` -> ``(logits (B, L, V), weights (B, H, L, L))``
        """
        config = ToyConfig() if config is None else config
        config = _job_config(self.job, config)
        model = HeadToyModel(config, self.job.num_heads)
        model.load_state_dict(self.state)
        return model.eval()


def sweep_jobs(
    head_counts: Sequence[int], learning_rates: Sequence[float], seeds: Sequence[int], steps: int,
    embed_dim: int | None = None,
) -> list[SweepJob]:
    """모든 조합(헤드 수 x 학습률 x 시드)의 설정 목록. ``embed_dim``을 주면 너비도 바꿉니다.

    Shape:
        - 반환: 길이 ``len(head_counts) * len(learning_rates) * len(seeds)``
    """
    check_positive_int(steps, "steps")
    if embed_dim is not None:
        check_positive_int(embed_dim, "embed_dim")
    for lr in learning_rates:
        check_positive_float(lr, "learning_rates의 값")
    for h in head_counts:
        check_positive_int(h, "num_heads")
    for s in seeds:
        check_seed(s)
    return [SweepJob(h, float(lr), steps, s, embed_dim) for h in head_counts for lr in learning_rates for s in seeds]


def _job_config(job: SweepJob, config: ToyConfig) -> ToyConfig:
    if job.embed_dim is not None:
        config = dataclasses.replace(config, embed_dim=job.embed_dim)
    if job.num_kv_heads is not None:
        config = dataclasses.replace(config, num_kv_heads=job.num_kv_heads)
    return config


def _run_one(job: SweepJob, config: ToyConfig, record_every: int) -> SweepRun:
    start = time.perf_counter()
    cfg = _job_config(job, dataclasses.replace(config, lr=job.lr, steps=job.steps))
    model, accuracy, history = train_with_history(job.num_heads, job.seed, cfg, record_every)
    tokens, _ = make_task_batch(cfg.test_size, cfg, torch.Generator().manual_seed(cfg.test_seed))  # (B, L)
    with torch.no_grad():
        shares = head_relation_shares(model(tokens)[1])  # (B, H, L, L) -> (H, 2)
    return SweepRun(job, accuracy, tuple(shares[:, 0].tolist()), tuple(shares[:, 1].tolist()), history,
                    time.perf_counter() - start, {k: v.clone() for k, v in model.state_dict().items()})


def _check_sweep_args(jobs: Sequence[SweepJob], config: ToyConfig | None, record_every: int) -> ToyConfig:
    config = ToyConfig() if config is None else config
    if not isinstance(config, ToyConfig):
        raise TypeError(f"config는 ToyConfig여야 하는데 {describe(config)}이(가) 들어왔습니다.")
    if not all(isinstance(j, SweepJob) for j in jobs):
        raise TypeError("jobs는 SweepJob의 목록이어야 합니다 (sweep_jobs로 만드세요).")
    check_positive_int(record_every, "record_every")
    return config


def run_sweep(
    jobs: Sequence[SweepJob], config: ToyConfig | None = None, record_every: int = 10, workers: int | None = None
) -> list[SweepRun]:
    """설정마다 모델 하나를 학습합니다. 결과는 ``jobs``와 같은 순서입니다.

    Args:
        jobs: ``sweep_jobs``가 만든 설정 목록.
        config: 나머지 하이퍼파라미터 (기본 ``ToyConfig()``; ``lr``과 ``steps``는 설정마다 바뀜).
        record_every: 학습 중 기록 간격(스텝).
        workers: 프로세스 수. ``None``이면 이 프로세스가 쓸 수 있는 CPU 수(최대 4), 1이면 이 프로세스에서 차례로.

    Shape:
        - 반환: 길이 ``len(jobs)``인 ``list[SweepRun]``
    """
    config = _check_sweep_args(jobs, config, record_every)
    costs = [job.steps * (1 + 0.1 * job.num_heads) * (job.embed_dim or config.embed_dim) for job in jobs]
    return _pool_map(_run_one, [(job, config, record_every) for job in jobs], costs, workers)


def _pool_map(fn, tasks: list[tuple], costs: list[float], workers: int | None) -> list:
    """``[fn(*task) for task in tasks]``를 프로세스 ``workers``개에 나눠 계산합니다 (결과 순서는 그대로)."""
    if workers is None:
        workers = min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    check_positive_int(workers, "workers")
    workers = min(workers, len(tasks)) or 1
    if workers == 1:
        return [fn(*task) for task in tasks]
    # 오래 걸리는 일부터 나눠 주어 끝나는 시각을 맞춥니다.
    order = sorted(range(len(tasks)), key=lambda i: -costs[i])
    pool = _pool(workers)
    futures = {i: pool.submit(fn, *tasks[i]) for i in order}
    results = {i: future.result() for i, future in futures.items()}
    return [results[i] for i in range(len(tasks))]


_POOLS: dict[int, ProcessPoolExecutor] = {}


def _pool(workers: int) -> ProcessPoolExecutor:
    """프로세스 ``workers``개의 풀. 한 번 만든 풀은 다시 씁니다 (새 프로세스가 torch와 attn_lib을 불러오는 데 몇 초
    걸리므로, 한 장에서 스윕을 여러 번 부를 때 그 시간을 한 번만 씀). 인터프리터가 끝날 때 함께 닫힙니다.
    spawn: 부모의 스레드 상태를 물려받지 않는 새 프로세스 (fork는 torch 스레드 풀과 함께 쓰면 멈출 수 있음)."""
    pool = _POOLS.get(workers)
    if pool is None or getattr(pool, "_broken", False) or getattr(pool, "_shutdown_thread", False):
        pool = _POOLS[workers] = ProcessPoolExecutor(
            max_workers=workers, mp_context=multiprocessing.get_context("spawn"), initializer=_ignore_interrupt)
    return pool


def _ignore_interrupt() -> None:
    """일꾼 프로세스는 SIGINT를 무시합니다. Jupyter 커널은 끝날 때 자식 프로세스에 SIGINT, SIGTERM을 차례로 보내는데,
    SIGINT를 받으면 일꾼마다 KeyboardInterrupt 트레이스백을 찍기 때문입니다 (SIGTERM에는 조용히 끝남)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_batch(setting: SweepJob, seeds: list[int], steps: list[int], config: ToyConfig,
               record_every: int) -> SeedBatchResult:
    cfg = _job_config(setting, dataclasses.replace(config, lr=setting.lr, steps=max(steps)))
    return train_seed_batch(setting.num_heads, seeds, cfg, record_every, also_at=[s for s in steps if s != max(steps)])


def run_seed_batches(
    jobs: Sequence[SweepJob], config: ToyConfig | None = None, record_every: int = 10, workers: int | None = None
) -> list[SweepRun]:
    """``run_sweep``과 같은 설정 목록을 받아, 시드만 다른 설정들을 묶음 하나로 학습합니다 (``train_seed_batch``).

    묶음 안의 시드는 서로 섞이지 않으므로, 어떤 시드와 함께 묶여도 결과가 비트까지 같습니다. 스텝 수만 다른 설정들
    (같은 시드들)은 가장 긴 학습 한 번으로 돌리고 짧은 쪽은 그 중간 결과로 씁니다 (학습률이 스텝마다 같으므로 따로
    학습한 것과 비트까지 같음). 묶음들은 프로세스 ``workers``개에 나눠 돌립니다. ``SweepRun.seconds``는 묶음이 그
    결과를 낼 때까지 걸린 시간을 시드 수로 나눈 값입니다.

    Shape:
        - 반환: 길이 ``len(jobs)``인 ``list[SweepRun]`` (``jobs``와 같은 순서)
    """
    config = _check_sweep_args(jobs, config, record_every)
    by_setting: dict[SweepJob, dict[int, list[int]]] = {}  # 스텝과 시드를 뺀 설정 -> 스텝 수 -> 시드들
    for job in jobs:
        by_setting.setdefault(dataclasses.replace(job, seed=0, steps=1), {}).setdefault(job.steps, []).append(job.seed)
    tasks = []  # (설정, 시드들, 스텝 수들): 시드들이 같은 스텝 수끼리 한 묶음
    for setting, seeds_by_steps in by_setting.items():
        groups: dict[tuple[int, ...], list[int]] = {}
        for steps, seeds in seeds_by_steps.items():
            groups.setdefault(tuple(seeds), []).append(steps)
        tasks += [(setting, list(seeds), sorted(steps)) for seeds, steps in groups.items()]
    # 묶음의 시간 어림: 스텝 x 시드 x (헤드 4개가 1개의 약 1.5배) x 너비
    costs = [max(st) * len(se) * (1 + 0.2 * s.num_heads) * (s.embed_dim or config.embed_dim) for s, se, st in tasks]
    results = _pool_map(_run_batch, [(s, se, st, config, record_every) for s, se, st in tasks], costs, workers)
    runs: dict[SweepJob, SweepRun] = {}
    for (setting, seeds, steps), result in zip(tasks, results):
        for count in steps:
            part = result if count == max(steps) else result.earlier[count]
            for n, seed in enumerate(part.seeds):
                job = dataclasses.replace(setting, seed=seed, steps=count)
                runs[job] = SweepRun(job, part.accuracy[n], part.first_share[n], part.previous_share[n],
                                     part.history[n], part.seconds / len(part.seeds), part.state[n])
    return [runs[job] for job in jobs]


def continue_seed_batches(
    groups: Sequence[Sequence[SweepRun]], config: ToyConfig, query_scales: Sequence[float] = (1.0,),
    record_every: int = 10, workers: int | None = None,
) -> list[list[SeedBatchResult]]:
    """학습된 실행 묶음들을 ``config.steps`` 스텝 더 학습합니다. 묶음 하나 x ``query_scales``의 값 하나마다 시드 묶음 하나.

    ``continue_training``을 실행마다 부른 것과 같은 뜻입니다: 옵티마이저 상태는 새로 시작하고, 학습 데이터는
    ``seed + 10_000``으로 뽑고, 시작 전에 ``W_q``(가중치와 편향)에 ``query_scale``을 곱합니다. 원래 실행은 그대로입니다.

    Args:
        groups: 실행 묶음들. 한 묶음 안의 실행은 헤드 수와 너비가 같고 시드가 서로 달라야 합니다.
        config: 이어서 학습할 설정 (``lr``, ``steps`` 등).
        query_scales: ``W_q``에 곱할 값들.
        record_every: 학습 중 기록 간격(스텝).
        workers: 프로세스 수 (``run_sweep``과 같음).

    Shape:
        - 반환: ``results[g][k]`` = 묶음 ``g``를 ``query_scales[k]``로 이어서 학습한 결과
    """
    if not isinstance(config, ToyConfig):
        raise TypeError(f"config는 ToyConfig여야 하는데 {describe(config)}이(가) 들어왔습니다.")
    if not groups or not all(group and all(isinstance(r, SweepRun) for r in group) for group in groups):
        raise TypeError("groups는 SweepRun 목록(비어 있지 않음)들의 목록이어야 합니다.")
    for group in groups:
        kinds = {(r.job.num_heads, r.job.embed_dim, r.job.num_kv_heads) for r in group}
        if len(kinds) != 1:
            raise ValueError(f"한 묶음의 실행은 헤드 수와 너비가 같아야 하는데 {sorted(kinds, key=str)}이(가) 섞여 있습니다.")
    for scale in query_scales:
        check_positive_float(scale, "query_scales의 값")
    # 헤드 수와 너비가 같은 묶음들은 한 묶음으로 이어 붙여 학습하고(시드가 겹쳐도 됨: 시작 파라미터가 다름), 나눠 돌려줍니다.
    merged: dict[tuple, list[int]] = {}
    for i, group in enumerate(groups):
        merged.setdefault((group[0].job.num_heads, group[0].job.embed_dim, group[0].job.num_kv_heads), []).append(i)
    tasks = [(groups[idx[0]][0].job.num_heads, [r.job.seed for i in idx for r in groups[i]],
              _job_config(groups[idx[0]][0].job, config), record_every, [r.state for i in idx for r in groups[i]],
              float(scale)) for idx in merged.values() for scale in query_scales]
    results = _pool_map(_continue_batch, tasks, [len(t[1]) * (1 + 0.1 * t[0]) for t in tasks], workers)
    out: list[list[SeedBatchResult]] = [[] for _ in groups]
    for k, idx in enumerate(merged.values()):
        for j in range(len(query_scales)):
            result, offset = results[k * len(query_scales) + j], 0
            for i in idx:
                n = len(groups[i])
                out[i].append(_slice(result, offset, offset + n))
                offset += n
    return out


def _slice(result: SeedBatchResult, start: int, stop: int) -> SeedBatchResult:
    """묶음 결과에서 시드 ``start:stop``만 (시간은 시드 수에 비례해 나눔)."""
    n = len(result.seeds)
    return dataclasses.replace(
        result, seeds=result.seeds[start:stop], accuracy=result.accuracy[start:stop],
        first_share=result.first_share[start:stop], previous_share=result.previous_share[start:stop],
        history=result.history[start:stop], state=result.state[start:stop], seconds=result.seconds * (stop - start) / n)


def _continue_batch(num_heads, seeds, config, record_every, states, scale) -> SeedBatchResult:
    return train_seed_batch(num_heads, seeds, config, record_every, start_states=states, query_scale=scale,
                            data_offset=10_000)


def sweep_records(runs: Sequence[SweepRun], config: ToyConfig | None = None) -> list[dict[str, float | int]]:
    """표(예: ``pandas.DataFrame(sweep_records(runs))``)로 만들기 쉬운 행 목록.

    Shape:
        - 반환: 실행마다 ``{"헤드 수", "KV 헤드 수", "학습률", "스텝", "시드", "너비", "정확도", "첫 토큰 몫", "이전 토큰 몫", "초"}``
          (``너비``는 설정에 없으면 ``config``의 너비)
    """
    width = (ToyConfig() if config is None else config).embed_dim
    return [
        {
            "헤드 수": r.job.num_heads,
            "KV 헤드 수": r.job.num_heads if r.job.num_kv_heads is None else r.job.num_kv_heads,
            "학습률": r.job.lr, "스텝": r.job.steps, "시드": r.job.seed,
            "너비": width if r.job.embed_dim is None else r.job.embed_dim,
            "정확도": r.accuracy, "첫 토큰 몫": max(r.first_share), "이전 토큰 몫": max(r.previous_share),
            "초": r.seconds,
        }
        for r in runs
    ]
