"""어텐션 탐색기: 계산 모델(model), 커널 없이 움직이는 정적 보기(static, Vega-Lite), ipywidgets 보기(live).

모듈마다 일 하나:

- ``model``: 탐색기의 계산 모델 (무작위 투영, 마스크, 가중치). 그림 라이브러리를 쓰지 않음.
- ``static_data``: 정적 탐색기에 미리 계산해 넣는 점수 격자.
- ``summary``: 헤드별 글 요약과 그 제목·HTML (정적·살아 있는 탐색기가 같이 씀).
- ``spec``: 정적 탐색기의 Vega-Lite 명세 (조작기, 브라우저에서 하는 계산, 그림).
- ``static_layout``: 정적 탐색기의 배치 (한 줄의 헤드 수를 패널의 실제 폭으로 고르는 자바스크립트).
- ``static``: 정적 탐색기의 HTML (명세와 불러오기 스크립트를 페이지에 실음).
- ``texts``: 조작기 설명과 "이 그림을 읽는 법" 글 (정적·살아 있는 탐색기가 같이 씀).
- ``tabs``: 헤드마다 탭 하나인 위젯 ``head_tabs``와 그림 -> PNG.
- ``live_layout``: 살아 있는 탐색기 그림의 배치 (글자의 실제 폭으로 열 수와 축의 자리를 픽셀로).
- ``live_figure``: 살아 있는 탐색기의 빠른 그림 (바뀌는 칸만 픽셀로 칠함).
- ``settings``: 살아 있는 탐색기의 설정 검사와 KV 캐시 읽기 글.
- ``live``: 살아 있는 탐색기 ``AttentionExplorer``.

viz와 핵심 모듈만 import합니다.
"""

from __future__ import annotations

from .model import (
    EMBED_WIDTH,
    MAX_HEADS,
    MAX_DK,
    MAX_TOKENS,
    DK_CHOICES,
    MASKS,
    MASK_LABELS,
    POSITIONS,
    POSITION_LABELS,
    WINDOWS,
    WINDOW_LABELS,
    PAD_TOKEN,
    KV_BYTES_PER_ELEMENT,
    kv_head_choices,
    check_kv_heads,
    kv_cache_bytes_per_token,
    ExplorerModel,
    parse_tokens,
    padded_length,
    shown_tokens,
    explorer_mask,
    single_thread,
)
from .static_data import (
    STATIC_MAX_TOKENS,
    STATIC_HEADS,
    STATIC_SHIFTS,
    static_grid,
)
from .summary import (
    summary_key,
    summary_table,
    summary_caption,
    summary_html,
)
from .spec import (
    SATURATION_THRESHOLD,
    param_names,
    explorer_spec,
)
from .static import explorer_html
from .tabs import (
    head_tabs,
    figure_png,
)
from .live import AttentionExplorer

__all__ = [
    "EMBED_WIDTH",
    "MAX_HEADS",
    "MAX_DK",
    "MAX_TOKENS",
    "DK_CHOICES",
    "MASKS",
    "MASK_LABELS",
    "POSITIONS",
    "POSITION_LABELS",
    "WINDOWS",
    "WINDOW_LABELS",
    "PAD_TOKEN",
    "KV_BYTES_PER_ELEMENT",
    "kv_head_choices",
    "check_kv_heads",
    "kv_cache_bytes_per_token",
    "ExplorerModel",
    "parse_tokens",
    "padded_length",
    "shown_tokens",
    "explorer_mask",
    "single_thread",
    "STATIC_MAX_TOKENS",
    "STATIC_HEADS",
    "STATIC_SHIFTS",
    "SATURATION_THRESHOLD",
    "static_grid",
    "param_names",
    "explorer_spec",
    "explorer_html",
    "summary_key",
    "summary_table",
    "summary_caption",
    "summary_html",
    "head_tabs",
    "figure_png",
    "AttentionExplorer",
]
