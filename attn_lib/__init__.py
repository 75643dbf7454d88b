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

이 일곱 파일이 이 패키지의 전부입니다. 의존성은 torch 하나이고, import해도 전역 설정(matplotlib, IPython)을
바꾸지 않습니다. 강좌의 다른 코드는 누가 돌리느냐에 따라 따로 있는 패키지입니다 (저장소 최상위의 같은 이름 폴더):

- ``attn_course``: 그림, 어텐션 탐색기, 장의 실험, 연습 문제와 자기 점검(한국어 힌트). 장은 ``attn_course.setup()``을
  불러 한글 글꼴과 그림의 대체 텍스트를 켭니다.
- ``attn_harness``: 채점 샌드박스 안에서 학생 노트북을 실행하고 학생 함수를 부르는 쪽 (강사만 씀).
- ``attn_grader``: 문제 명세, 참조 구현, 숨은 경우, 판정, ``make grade`` (강사만 씀; 학생 설치에는 없음).
- ``attn_site``: 사이트를 빌드하는 Sphinx 확장.

import는 한 방향으로만 흐릅니다: attn_lib 은 아무것도 import하지 않고, attn_course -> attn_lib,
attn_harness -> attn_course, attn_grader -> attn_harness·attn_course (``tests/test_import_graph.py``가 확인).
장은 핵심 이름을 여기서 씁니다::

    from attn_lib import MultiHeadAttention, causal_mask
    from attn_course import plot_head_heatmaps
"""

from .attention import MultiHeadAttention, count_parameters, repeat_kv, scaled_dot_product_attention, softmax_or_zero
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
from .rope import apply_rope, rope_frequencies
from .metrics import attention_entropy, max_weight, saturation, softmax_jacobian_norm

#: 강좌의 모든 패키지(attn_lib, attn_course, attn_harness, attn_grader, attn_site)가 함께 쓰는 판 번호
__version__ = "0.2.0"

__all__ = [
    # 어텐션
    "scaled_dot_product_attention",
    "softmax_or_zero",
    "MultiHeadAttention",
    "count_parameters",
    "repeat_kv",
    "KVCache",
    "cache_causal_mask",
    # 위치와 긴 문맥
    "apply_rope",
    "rope_frequencies",
    "blockwise_attention",
    # 마스크
    "causal_mask",
    "padding_mask",
    "sliding_window_mask",
    "combine_masks",
    "to_torch_mha_mask",
    "to_torch_key_padding_mask",
    "future_leak",
    # 지표
    "attention_entropy",
    "saturation",
    "max_weight",
    "softmax_jacobian_norm",
]
