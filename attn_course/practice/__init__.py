"""연습 문제: 연습 페이지(11장)의 채점기와 한국어 힌트, 내 어텐션을 참조와 나란히 그리는 보기, 과제 노트북의 자기 점검.

학생 함수를 참조 구현, 그리고 잘 알려진 잘못을 흉내 낸 틀린 참조들과 비교합니다. 모듈마다 하는 일:

- ``hints.py``: 알려진 실수 표 ``MISTAKES``(한국어 힌트). 자기 점검과 채점이 같은 표를 씁니다.
- ``engine.py``: ``CheckResult``, ``ExerciseFailure``, 비교 도구(``_run``, ``_same``).
- ``references.py``: 연습 페이지의 참조(라이브러리의 어텐션)와 순진한 구현.
- ``practice.py``, ``practice_models.py``, ``practice_long.py``: 연습 페이지의 채점기 (1~4장, 5~7장, 8·10장).
- ``compare.py``: 내 어텐션 함수의 가중치를 참조와 나란히 그리고 차이와 힌트를 보여 주는 보기 (``compare_attention``,
  ``compare_attention_live``).
- ``spec.py``: 채점 과제의 공개 명세(부분: 값, 선택지, 채점기)와 형식 규칙.
- ``selfcheck.py``: 과제 노트북의 ``grader``(``korean_grader``). 공개 명세에 적힌 공개 경우의 입력, 기대 출력, 알려진 틀린
  풀이의 출력과 비교합니다 (채점 과제의 참조 구현은 이 패키지에 없음: 강사의 ``attn_grader``에만).
- ``codec.py``: 값을 JSON으로 적고 되살리기 (공개 명세, 채점 샌드박스와 채점 프로세스 사이).
- ``calls.py``: 학생 함수가 실행 중에 실제로 부른 어텐션 함수를 기록 (``library_calls``, ``check_no_library_calls``).

노트북은 이 폴더에서 import합니다: ``from attn_course.practice import check_attention``.
"""

from __future__ import annotations

from .engine import MISTAKES, CheckResult, ExerciseFailure
from .calls import FORBIDDEN_ATTENTION, check_no_library_calls, library_calls
from .practice import (
    check_attention,
    check_concat_heads,
    check_future_weight,
    check_head_loop,
    check_packed_mask,
    check_param_count,
    check_softmax_jacobian,
    check_temperature_softmax,
)
from .practice_models import check_cache_causal_mask, check_cross_attention, check_kv_head_of, check_relation_shares
from .practice_long import check_online_softmax_stats, check_rope_decode_scores
from .compare import AttentionComparison, compare_attention, compare_attention_live
from .selfcheck import korean_grader

__all__ = [
    "MISTAKES",
    "CheckResult",
    "ExerciseFailure",
    "korean_grader",
    "FORBIDDEN_ATTENTION",
    "library_calls",
    "check_no_library_calls",
    # 연습 페이지
    "check_concat_heads",
    "check_param_count",
    "check_head_loop",
    "check_attention",
    "check_packed_mask",
    "check_future_weight",
    "check_temperature_softmax",
    "check_softmax_jacobian",
    "check_relation_shares",
    "check_cross_attention",
    "check_cache_causal_mask",
    "check_kv_head_of",
    "check_rope_decode_scores",
    "check_online_softmax_stats",
    # 내 어텐션과 참조를 나란히
    "AttentionComparison",
    "compare_attention",
    "compare_attention_live",
]
