"""attn_lib: 멀티헤드 어텐션 한국어 강좌의 작은 PyTorch 라이브러리.

모듈은 한 방향으로만 서로를 부릅니다: widgets -> plots -> metrics -> attention/masks.
챕터는 여기서 다시 내보낸 이름을 씁니다::

    from attn_lib import MultiHeadAttention, causal_mask, plot_head_heatmaps
"""

from .attention import MultiHeadAttention, count_parameters, scaled_dot_product_attention
from .masks import causal_mask, combine_masks, padding_mask, to_torch_key_padding_mask, to_torch_mha_mask
from .metrics import attention_entropy, max_weight, saturation
from .plots import plot_head_heatmaps, plot_saturation_histogram, setup_korean_font
from .widgets import head_tabs

__all__ = [
    "scaled_dot_product_attention",
    "MultiHeadAttention",
    "count_parameters",
    "causal_mask",
    "padding_mask",
    "combine_masks",
    "to_torch_mha_mask",
    "to_torch_key_padding_mask",
    "attention_entropy",
    "saturation",
    "max_weight",
    "plot_head_heatmaps",
    "plot_saturation_histogram",
    "setup_korean_font",
    "head_tabs",
]

__version__ = "0.1.0"
