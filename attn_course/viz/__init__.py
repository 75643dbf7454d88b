"""그림과 그림의 글 (matplotlib, seaborn): 한글 글꼴·색·대체 텍스트, 히트맵과 곡선, 마스크 그림, 헤드의 글 요약.

수학은 ``attn_lib``의 핵심 모듈(attention, masks, metrics)에 있고, 이 폴더는 그 결과를 그림으로 그립니다.
핵심 모듈만 import합니다 (탐색기, 실험, 연습은 import하지 않음).
"""

from __future__ import annotations

from .describe import (
    UNIFORM_ENTROPY,
    describe_head,
    describe_heads,
    format_number,
    plain_text,
)
from .describe_values import (
    describe_saturation,
    describe_curves,
    describe_accuracy,
    describe_mask,
)
from .figures import (
    setup_korean_font,
    korean_font_path,
    HEATMAP_CMAP,
    SAFE_CMAPS,
    PALETTE,
    set_alt,
    get_alt,
    tick_label,
    plain_log_ticks,
    TEXT_PT,
    MAX_FIGURE_WIDTH_IN,
)
from .figure_output import (
    CSS_DPI,
    PIXEL_RATIO,
    png_bytes,
    render_png,
    min_text_px,
    install_alt_formatter,
)
from .plots import (
    plot_head_heatmaps,
    plot_saturation_histogram,
    plot_saturation_grid,
)
from .curves import (
    plot_curves,
    plot_metric_panels,
)
from .mask_plots import (
    plot_mask,
    plot_batch_heatmaps,
    MASK_COLORS,
)
from .cost_plots import (
    plot_attention_cost,
)
from .particles import (
    with_particle,
    particle_for,
    final_sound,
)
from .success_plots import plot_success_rates
from .sweep_plots import (
    plot_sweep,
    plot_training_history,
    sweep_label,
    plot_head_accuracy,
    CEILING_LABELS,
)

__all__ = [
    "UNIFORM_ENTROPY",
    "describe_head",
    "describe_heads",
    "describe_saturation",
    "describe_curves",
    "describe_accuracy",
    "describe_mask",
    "format_number",
    "plain_text",
    "setup_korean_font",
    "korean_font_path",
    "HEATMAP_CMAP",
    "SAFE_CMAPS",
    "PALETTE",
    "set_alt",
    "get_alt",
    "png_bytes",
    "install_alt_formatter",
    "tick_label",
    "plain_log_ticks",
    "TEXT_PT",
    "MAX_FIGURE_WIDTH_IN",
    "CSS_DPI",
    "PIXEL_RATIO",
    "render_png",
    "min_text_px",
    "plot_head_heatmaps",
    "plot_saturation_histogram",
    "plot_curves",
    "plot_metric_panels",
    "plot_saturation_grid",
    "plot_mask",
    "plot_batch_heatmaps",
    "plot_head_accuracy",
    "CEILING_LABELS",
    "MASK_COLORS",
    "plot_success_rates",
    "plot_sweep",
    "plot_attention_cost",
    "with_particle",
    "particle_for",
    "final_sound",
    "plot_training_history",
    "sweep_label",
]
