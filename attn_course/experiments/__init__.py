"""작은 학습 실험: 헤드 수 비교 과제(toy)와 학습(training), 시드 묶음 학습(seed_batch), 스윕(sweep)과 성공 비율(success), 시퀀스 뒤집기 인코더-디코더(seq2seq),
스케일링 측정(scaling),
KV 캐시 디코딩(decoding)과 어텐션 메모리(memory). 숫자만 돌려주고 그림은 viz가 그립니다. 핵심 모듈만 import합니다.
"""

from __future__ import annotations

from .toy import (
    ToyConfig,
    HeadToyModel,
    lookup_table,
    make_task_batch,
    relation_ceilings,
    head_relation_shares,
    name_head_relations,
    IGNORE_INDEX,
)
from .training import (
    TrainingHistory,
    train_head_model,
    train_with_history,
    continue_training,
    evaluate_head_model,
    head_experiment,
    compare_heads,
)
from .seed_batch import (
    SeedBatchResult,
    train_seed_batch,
)
from .sweep import (
    SweepJob,
    SweepRun,
    sweep_jobs,
    run_sweep,
    run_seed_batches,
    continue_seed_batches,
    sweep_records,
)
from .success import (
    SUCCESS_ACCURACY,
    HEAD_SWEEP_GRID,
    HEAD_SWEEP_RATES,
    wilson_interval,
    success_rows,
    half_success_position,
    half_success_rate,
)
from .seq2seq import (
    Seq2SeqConfig,
    ReversalBatch,
    Seq2SeqModel,
    make_reversal_batch,
    token_labels,
)
from .seq2seq_training import (
    greedy_decode,
    alignment_accuracy,
    evaluate_seq2seq,
    train_seq2seq,
)
from .scaling import (
    SCALE_RULES,
    scale_for,
    sample_dot_products,
    random_attention_gradients,
    scaling_summary,
)
from .decoding import (
    TinyDecoder,
    decode_without_cache,
    decode_with_cache,
    decoding_speed,
)
from .memory import (
    attention_cost,
    attention_memory,
    attention_time,
    loglog_slope,
)
from .temperature import (
    retrieval_batch,
    retrieval_loss,
    learn_temperature,
)

__all__ = [
    "ToyConfig",
    "HeadToyModel",
    "lookup_table",
    "make_task_batch",
    "relation_ceilings",
    "head_relation_shares",
    "name_head_relations",
    "IGNORE_INDEX",
    "TrainingHistory",
    "train_head_model",
    "train_with_history",
    "continue_training",
    "evaluate_head_model",
    "head_experiment",
    "compare_heads",
    "SweepJob",
    "SweepRun",
    "sweep_jobs",
    "run_sweep",
    "sweep_records",
    "SeedBatchResult",
    "train_seed_batch",
    "run_seed_batches",
    "continue_seed_batches",
    "SUCCESS_ACCURACY",
    "HEAD_SWEEP_GRID",
    "HEAD_SWEEP_RATES",
    "wilson_interval",
    "success_rows",
    "half_success_position",
    "half_success_rate",
    "Seq2SeqConfig",
    "ReversalBatch",
    "Seq2SeqModel",
    "make_reversal_batch",
    "token_labels",
    "greedy_decode",
    "alignment_accuracy",
    "evaluate_seq2seq",
    "train_seq2seq",
    "SCALE_RULES",
    "scale_for",
    "sample_dot_products",
    "random_attention_gradients",
    "scaling_summary",
    "retrieval_batch",
    "retrieval_loss",
    "learn_temperature",
    "TinyDecoder",
    "decode_without_cache",
    "decode_with_cache",
    "decoding_speed",
    "attention_cost",
    "attention_memory",
    "attention_time",
    "loglog_slope",
]
