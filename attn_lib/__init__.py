"""attn_lib: 멀티헤드 어텐션 한국어 강좌의 작은 PyTorch 라이브러리.

읽는 순서 (어디서부터 읽을까):

1. ``attention.py``: ``scaled_dot_product_attention``과 ``MultiHeadAttention``. 2장의 아홉 단계를 위에서 아래로
   그대로 따라갑니다. 여기부터 읽으세요.
2. ``masks.py``: 인과 마스크, 패딩 마스크, 두 마스크 합치기, PyTorch 모듈과의 극성 변환 (3장),
   슬라이딩 윈도 마스크.
3. ``metrics.py``: 엔트로피, 포화, 소프트맥스 야코비안 노름 (4장).
4. ``kv_cache.py``: 디코딩 때 지난 토큰의 키·밸류를 쌓아 두는 ``KVCache`` (싱크를 남기는 롤링 캐시도).
5. ``rope.py``: 회전 위치 임베딩 ``apply_rope`` (``MultiHeadAttention(..., rope_base=...)``가 씀).
6. ``blockwise.py``: 키를 블록으로 나눠 온라인 소프트맥스로 계산하는 ``blockwise_attention``.
7. ``_checks.py``: 위 모듈들이 함께 쓰는 입력 검사와 한국어 오류 메시지.

이 일곱 파일이 학생이 읽을 핵심입니다. 나머지 폴더는 강좌의 도구이고, 핵심만 import합니다.

- ``viz/``: 그림(히트맵, 곡선, 마스크 격자, 스윕)과 한글 글꼴·색·대체 텍스트, 헤드의 글 요약.
- ``explorer/``: 어텐션 탐색기. 계산 모델, 커널 없는 정적 보기(Vega-Lite), ipywidgets 보기.
- ``experiments/``: 장에서 쓰는 작은 학습 실험(헤드 수 비교와 스윕, 인코더-디코더, 스케일링 측정). 숫자만 돌려줌.
- ``exercises/``: 연습 문제 채점기와 한국어 힌트, otter-grader 연결.

import는 한 방향으로만 흐릅니다: viz -> 핵심, explorer -> viz·핵심, experiments -> 핵심,
exercises -> explorer·viz·핵심. 핵심은 어떤 폴더도 import하지 않습니다 (``tests/test_hygiene.py``가 확인).
챕터는 어느 폴더에 있든 여기서 다시 내보낸 이름을 씁니다::

    from attn_lib import MultiHeadAttention, causal_mask, plot_head_heatmaps
"""

from .attention import MultiHeadAttention, count_parameters, repeat_kv, scaled_dot_product_attention
from .blockwise import blockwise_attention
from .kv_cache import KVCache, cache_causal_mask
from .masks import (
    causal_mask,
    combine_masks,
    future_leak,
    padding_mask,
    sliding_window_mask,
    to_torch_key_padding_mask,
    to_torch_mha_mask,
)
from .rope import apply_rope
from .metrics import attention_entropy, max_weight, saturation, softmax_jacobian_norm
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
from .explorer import AttentionExplorer, head_tabs

__all__ = [
    # 핵심: 어텐션
    "scaled_dot_product_attention",
    "MultiHeadAttention",
    "count_parameters",
    "repeat_kv",
    "KVCache",
    "cache_causal_mask",
    # 핵심: 위치와 긴 문맥
    "apply_rope",
    "blockwise_attention",
    # 핵심: 마스크
    "causal_mask",
    "padding_mask",
    "sliding_window_mask",
    "combine_masks",
    "to_torch_mha_mask",
    "to_torch_key_padding_mask",
    "future_leak",
    # 핵심: 지표
    "attention_entropy",
    "saturation",
    "max_weight",
    "softmax_jacobian_norm",
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
]

__version__ = "0.1.0"
