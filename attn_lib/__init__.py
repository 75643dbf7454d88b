"""attn_lib: 멀티헤드 어텐션 한국어 강좌의 작은 PyTorch 라이브러리.

모듈은 한 방향으로만 서로를 부릅니다:
widgets -> plots, mask_plots -> figures -> (head_sweep -> head_training -> toy, describe) -> metrics -> attention/masks.
챕터는 여기서 다시 내보낸 이름을 씁니다::

    from attn_lib import MultiHeadAttention, causal_mask, plot_head_heatmaps
"""

from .attention import MultiHeadAttention, count_parameters, scaled_dot_product_attention
from .describe import describe_head, describe_heads
from .masks import (
    causal_mask,
    combine_masks,
    future_leak,
    padding_mask,
    to_torch_key_padding_mask,
    to_torch_mha_mask,
)
from .figures import set_alt, setup_korean_font
from .mask_plots import plot_batch_heatmaps, plot_head_accuracy, plot_mask
from .metrics import attention_entropy, max_weight, saturation, softmax_jacobian_norm
from .plots import (
    plot_curves,
    plot_head_heatmaps,
    plot_metric_panels,
    plot_saturation_grid,
    plot_saturation_histogram,
)
from .scaling import (
    learn_temperature,
    random_attention_gradients,
    retrieval_batch,
    retrieval_loss,
    sample_dot_products,
    scale_for,
    scaling_summary,
)
from .seq2seq import (
    ReversalBatch,
    Seq2SeqConfig,
    Seq2SeqModel,
    alignment_accuracy,
    evaluate_seq2seq,
    greedy_decode,
    make_reversal_batch,
    token_labels,
    train_seq2seq,
)
from .toy import (
    HeadToyModel,
    ToyConfig,
    head_relation_shares,
    lookup_table,
    make_task_batch,
    name_head_relations,
    relation_ceilings,
)
from .head_training import (
    TrainingHistory,
    compare_heads,
    continue_training,
    evaluate_head_model,
    head_experiment,
    train_head_model,
    train_with_history,
)
from .head_sweep import SweepJob, SweepRun, run_sweep, sweep_jobs, sweep_records
from .sweep_plots import plot_sweep, plot_training_history
from .widgets import AttentionExplorer, head_tabs

__all__ = [
    "scaled_dot_product_attention",
    "MultiHeadAttention",
    "count_parameters",
    "causal_mask",
    "padding_mask",
    "combine_masks",
    "to_torch_mha_mask",
    "to_torch_key_padding_mask",
    "future_leak",
    "attention_entropy",
    "saturation",
    "max_weight",
    "softmax_jacobian_norm",
    "plot_head_heatmaps",
    "plot_saturation_histogram",
    "plot_curves",
    "plot_metric_panels",
    "plot_saturation_grid",
    "plot_mask",
    "plot_batch_heatmaps",
    "plot_head_accuracy",
    "plot_sweep",
    "plot_training_history",
    "set_alt",
    "describe_head",
    "describe_heads",
    "scale_for",
    "sample_dot_products",
    "random_attention_gradients",
    "scaling_summary",
    "retrieval_batch",
    "retrieval_loss",
    "learn_temperature",
    "setup_korean_font",
    "head_tabs",
    "AttentionExplorer",
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
    "compare_heads",
    "head_experiment",
    "head_relation_shares",
    "lookup_table",
    "make_task_batch",
    "name_head_relations",
    "relation_ceilings",
    "train_head_model",
    "Seq2SeqConfig",
    "Seq2SeqModel",
    "ReversalBatch",
    "make_reversal_batch",
    "token_labels",
    "greedy_decode",
    "alignment_accuracy",
    "evaluate_seq2seq",
    "train_seq2seq",
]

__version__ = "0.1.0"
