"""attn_course: 멀티헤드 어텐션 강좌의 도구. 그림, 어텐션 탐색기, 장의 실험, 연습 문제와 자기 점검.

핵심 계산은 ``attn_lib``(torch만 필요한 작은 라이브러리)에 있고, 이 패키지는 그 위에서 장이 보여 주는 것을 만듭니다.
``attn_lib``만 import하고, 채점기(``attn_harness``, ``attn_grader``)는 import하지 않습니다.

- ``viz/``: 그림(히트맵, 곡선, 마스크 격자, 스윕)과 한글 글꼴·색·대체 텍스트, 헤드의 글 요약.
- ``explorer/``: 어텐션 탐색기. 계산 모델, 커널 없는 정적 보기(Vega-Lite), ipywidgets 보기, 10장의 단계 보기.
- ``experiments/``: 장에서 쓰는 작은 학습 실험(헤드 수 비교와 스윕, 인코더-디코더, 스케일링 측정). 숫자만 돌려줌.
- ``practice/``: 연습 페이지의 채점기와 한국어 힌트, 과제 노트북의 자기 점검(``korean_grader``). 채점 과제의 참조
  구현은 여기 없습니다: 자기 점검은 공개 명세에 적힌 공개 경우의 기대 출력과 비교합니다.

import해도 전역 설정을 바꾸지 않습니다. 장의 첫 코드 셀이 ``setup()``을 부릅니다::

    import attn_course
    attn_course.setup()   # 한글 글꼴, 그림 PNG 의 대체 텍스트
    from attn_course import plot_head_heatmaps
"""

from __future__ import annotations

from .viz import (
    CEILING_LABELS,
    PALETTE,
    describe_head,
    describe_heads,
    plot_batch_heatmaps,
    plot_curves,
    plot_head_accuracy,
    plot_head_heatmaps,
    plot_mask,
    plot_metric_panels,
    plot_saturation_grid,
    plot_saturation_histogram,
    plot_success_rates,
    plot_sweep,
    plot_attention_cost,
    plot_training_history,
    set_alt,
    setup_korean_font,
    sweep_label,
    with_particle,
)
from .experiments import (
    HEAD_SWEEP_GRID,
    HEAD_SWEEP_RATES,
    SUCCESS_ACCURACY,
    HeadToyModel,
    SeedBatchResult,
    ReversalBatch,
    Seq2SeqConfig,
    Seq2SeqModel,
    SweepJob,
    SweepRun,
    ToyConfig,
    TinyDecoder,
    TrainingHistory,
    alignment_accuracy,
    attention_cost,
    attention_memory,
    attention_time,
    compare_heads,
    continue_seed_batches,
    continue_training,
    decode_with_cache,
    decode_without_cache,
    decoding_speed,
    evaluate_head_model,
    evaluate_seq2seq,
    greedy_decode,
    half_success_position,
    half_success_rate,
    head_experiment,
    head_relation_shares,
    learn_temperature,
    loglog_slope,
    lookup_table,
    make_reversal_batch,
    make_task_batch,
    name_head_relations,
    random_attention_gradients,
    relation_ceilings,
    retrieval_batch,
    retrieval_loss,
    run_seed_batches,
    run_sweep,
    sample_dot_products,
    scale_for,
    scaling_summary,
    success_rows,
    sweep_jobs,
    sweep_records,
    token_labels,
    train_head_model,
    train_seed_batch,
    train_seq2seq,
    train_with_history,
    wilson_interval,
)
from .experiments.sinks import (
    SinkConfig,
    SinkLM,
    backcopy_batch,
    first_token_mass,
    stream_cache_bytes,
    streaming_losses,
    train_sink_lm,
)
from .explorer import AttentionExplorer, head_tabs
from .explorer.model import DK_CHOICES, ExplorerModel, parse_tokens
from .explorer.stepper import online_softmax_steps, stepper_example, stepper_html


def setup() -> None:
    """장의 첫 셀이 부르는 준비: matplotlib에 한글 글꼴을 등록하고, IPython 안이면 그림 PNG에 대체 텍스트를 싣는
    표시 함수를 등록합니다. 여러 번 불러도 됩니다.

    Shape:
        - 해당 없음 (전역 설정)
    """
    from .viz.figure_output import install_alt_formatter

    setup_korean_font()
    install_alt_formatter()


__version__ = "0.2.0"

__all__ = [
    "setup",
    # viz
    "plot_head_heatmaps",
    "plot_saturation_histogram",
    "plot_curves",
    "plot_metric_panels",
    "plot_saturation_grid",
    "plot_mask",
    "plot_batch_heatmaps",
    "plot_head_accuracy",
    "plot_sweep",
    "plot_success_rates",
    "plot_training_history",
    "plot_attention_cost",
    "sweep_label",
    "set_alt",
    "describe_head",
    "describe_heads",
    "setup_korean_font",
    "with_particle",
    "PALETTE",
    "CEILING_LABELS",
    # explorer
    "head_tabs",
    "AttentionExplorer",
    # experiments: 스케일링 측정
    "scale_for",
    "sample_dot_products",
    "random_attention_gradients",
    "scaling_summary",
    "retrieval_batch",
    "retrieval_loss",
    "learn_temperature",
    # experiments: 헤드 수 비교와 스윕
    "HeadToyModel",
    "ToyConfig",
    "TrainingHistory",
    "train_with_history",
    "continue_training",
    "evaluate_head_model",
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
    "compare_heads",
    "head_experiment",
    "head_relation_shares",
    "lookup_table",
    "make_task_batch",
    "name_head_relations",
    "relation_ceilings",
    "train_head_model",
    # experiments: 시퀀스 뒤집기 인코더-디코더
    "Seq2SeqConfig",
    "Seq2SeqModel",
    "ReversalBatch",
    "make_reversal_batch",
    "token_labels",
    "greedy_decode",
    "alignment_accuracy",
    "evaluate_seq2seq",
    "train_seq2seq",
    # experiments: KV 캐시 디코딩과 어텐션 메모리
    "TinyDecoder",
    "decode_without_cache",
    "decode_with_cache",
    "decoding_speed",
    "attention_memory",
    "attention_time",
    "attention_cost",
    "loglog_slope",
    # experiments: 9장의 주의 싱크
    "SinkConfig",
    "SinkLM",
    "backcopy_batch",
    "first_token_mass",
    "stream_cache_bytes",
    "streaming_losses",
    "train_sink_lm",
    # explorer: 계산 모델과 4장, 10장의 보기
    "DK_CHOICES",
    "ExplorerModel",
    "parse_tokens",
    "online_softmax_steps",
    "stepper_example",
    "stepper_html",
]
