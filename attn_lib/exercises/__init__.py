"""연습 문제의 채점기와 한국어 힌트, otter-grader 연결.

학생 함수를 참조 구현, 그리고 잘 알려진 잘못을 흉내 낸 틀린 참조들과 비교합니다.
핵심 모듈(그리고 필요하면 viz, explorer)만 import합니다. 모듈마다 하는 일:

- ``engine.py``: 알려진 실수 표 ``MISTAKES``(한국어 힌트), ``CheckResult``, ``ExerciseFailure``, 비교 도구(``_run``).
- ``references.py``: 비교에 쓰는 참조 구현과 틀린 참조, 포화 측정의 약속된 실험 ``reference_saturation``.
- ``checkers.py``: 책의 장과 채점 과제의 채점기 (``check_attention``, ``check_causal_mask`` 등).
- ``practice.py``: 연습 페이지의 채점기 (``check_param_count``, ``check_head_loop`` 등).
- ``grading.py``: otter-grader 결과를 한국어로 감싸는 ``korean_grader``.
- ``calls.py``: 학생 함수가 실행 중에 실제로 부른 어텐션 함수를 기록 (``library_calls``, ``check_no_library_calls``).

노트북과 테스트는 모듈이 아니라 이 폴더에서 import합니다: ``from attn_lib.exercises import check_attention``.
"""

from __future__ import annotations

from .engine import MISTAKES, CheckResult, ExerciseFailure
from .grading import install_public_tests, korean_grader
from .calls import FORBIDDEN_ATTENTION, check_no_library_calls, library_calls
from .references import reference_saturation
from .checkers import (
    check_attention_weights,
    check_head_dim,
    check_shape_answer,
    check_split_merge,
    check_attention,
    check_causal_mask,
    check_padding_mask,
    check_combined_mask,
    check_scale,
    check_saturation,
    check_cross_attention,
)
from .practice import (
    check_param_count,
    check_head_loop,
    check_left_padding_mask,
    check_temperature_softmax,
)

__all__ = [
    "MISTAKES",
    "CheckResult",
    "ExerciseFailure",
    "korean_grader",
    "install_public_tests",
    "FORBIDDEN_ATTENTION",
    "library_calls",
    "check_no_library_calls",
    "reference_saturation",
    "check_attention_weights",
    "check_head_dim",
    "check_shape_answer",
    "check_split_merge",
    "check_attention",
    "check_causal_mask",
    "check_padding_mask",
    "check_combined_mask",
    "check_scale",
    "check_saturation",
    "check_cross_attention",
    "check_param_count",
    "check_head_loop",
    "check_left_padding_mask",
    "check_temperature_softmax",
]
