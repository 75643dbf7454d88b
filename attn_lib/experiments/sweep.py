"""헤드 수 x 학습률 x 시드(x 스텝 수) 스윕: 한 설정에서 나온 결론을 믿지 않고 여러 설정에서 다시 잽니다.

``sweep_jobs``로 설정 목록을 만들고 ``run_sweep``으로 학습합니다. 실행 하나는 스레드 하나를 쓰고 시드로
정해지므로, 프로세스 여러 개(``workers``)에 나눠 돌려도 숫자가 한 비트도 바뀌지 않습니다. 2코어 기계에서
``workers=2``면 걸리는 시간이 거의 절반입니다.

결과(``SweepRun``)에는 정확도, 평가 시퀀스에서 잰 헤드별 몫, 학습 중 기록(``TrainingHistory``), 걸린 시간,
그리고 모델을 다시 만들 수 있는 파라미터가 들어 있습니다. 표와 그림은 부르는 쪽(장, ``plots``)이 만듭니다.
"""

from __future__ import annotations

import dataclasses
import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Sequence

import torch
from torch import Tensor

from .._checks import check_positive_float, check_positive_int, check_seed, describe
from .training import TrainingHistory, train_with_history
from .toy import HeadToyModel, ToyConfig, head_relation_shares, make_task_batch

__all__ = ["SweepJob", "SweepRun", "sweep_jobs", "run_sweep", "sweep_records"]


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
    config = ToyConfig() if config is None else config
    if not isinstance(config, ToyConfig):
        raise TypeError(f"config는 ToyConfig여야 하는데 {describe(config)}이(가) 들어왔습니다.")
    if not all(isinstance(j, SweepJob) for j in jobs):
        raise TypeError("jobs는 SweepJob의 목록이어야 합니다 (sweep_jobs로 만드세요).")
    check_positive_int(record_every, "record_every")
    if workers is None:
        workers = min(4, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1)
    check_positive_int(workers, "workers")
    workers = min(workers, len(jobs)) or 1
    if workers == 1:
        return [_run_one(job, config, record_every) for job in jobs]
    # 오래 걸리는 실행(스텝이 많은 것)부터 나눠 주어 끝나는 시각을 맞춥니다. spawn: 부모의 스레드 상태를
    # 물려받지 않는 새 프로세스 (fork는 torch 스레드 풀과 함께 쓰면 멈출 수 있음).
    order = sorted(range(len(jobs)), key=lambda i: -jobs[i].steps * (1 + 0.1 * jobs[i].num_heads) * (jobs[i].embed_dim or 32))
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        futures = {i: pool.submit(_run_one, jobs[i], config, record_every) for i in order}
        results = {i: future.result() for i, future in futures.items()}
    return [results[i] for i in range(len(jobs))]


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
