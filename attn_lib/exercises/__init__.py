"""연습 문제의 채점기와 한국어 힌트, otter-grader 연결, 내 어텐션을 참조와 나란히 그리는 보기.

학생 함수를 참조 구현, 그리고 잘 알려진 잘못을 흉내 낸 틀린 참조들과 비교합니다.
핵심 모듈(그리고 viz, explorer의 계산 모델)만 import합니다. 모듈마다 하는 일:

- ``hints.py``: 알려진 실수 표 ``MISTAKES``(한국어 힌트).
- ``engine.py``: ``CheckResult``, ``ExerciseFailure``, 비교 도구(``_run``).
- ``references.py``: 비교에 쓰는 참조 구현과 틀린 참조, 포화 측정의 약속된 실험 ``reference_saturation``.
- ``checkers.py``, ``checkers_models.py``, ``checkers_long.py``: 채점 과제의 채점기 (1~4장, 5~7장, 8·10장).
- ``answers.py``: 값과 선택지를 묻는 문제의 채점 도우미 (``check_value``, ``check_choice``; 답과 힌트는 숨은 테스트가 넘김).
- ``practice.py``, ``practice_models.py``, ``practice_long.py``: 연습 페이지의 채점기 (1~4장, 5~7장, 8·10장).
- ``compare.py``: 내 어텐션 함수의 가중치를 참조와 나란히 그리고 차이와 힌트를 보여 주는 보기 (``compare_attention``,
  ``compare_attention_live``).
- ``spec.py``: 채점 과제의 문제 명세(부분: 값, 선택지, 채점기)와 형식 규칙. 한 명세가 자기 점검, 채점, Gradescope zip을 움직임.
- ``selfcheck.py``: 학생 노트북의 ``grader``(``korean_grader``): 채점과 같은 공개 규칙으로 점검.
- ``codec.py``, ``harness.py``, ``judge.py``: 채점. 샌드박스 안의 하네스가 학생 값만 JSON으로 내보내고, 밖의 채점
  프로세스가 그 값을 (학생 코드 없이) 채점기 재생과 정답 비교로 점수 매김. 채점 명령은 ``scripts/grade.py``.
- ``calls.py``: 학생 함수가 실행 중에 실제로 부른 어텐션 함수를 기록 (``library_calls``, ``check_no_library_calls``).

노트북과 테스트는 모듈이 아니라 이 폴더에서 import합니다: ``from attn_lib.exercises import check_attention``.
"""

from __future__ import annotations

from .engine import MISTAKES, CheckResult, ExerciseFailure
from .calls import FORBIDDEN_ATTENTION, check_no_library_calls, library_calls
from .answers import check_choice, check_value
from .references import reference_saturation
from .checkers import (
    check_alibi_causal_mask,
    check_key_padding_mask,
    check_query_for_shares,
    check_saturation,
    check_split_merge_seq,
    check_torch_mha_forward,
)
from .checkers_models import check_ablate_head, check_cached_step, check_cross_kv, check_gqa_attention
from .checkers_long import check_merge_softmax_states, check_rope_pairs
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

#: 채점 과제의 명세가 이름으로 부르는 공개 채점기 (``spec.check("check_xxx", ...)``; 모두 ``seed=`` 인자를 받음)
CHECKERS = {fn.__name__: fn for fn in (
    check_query_for_shares, check_split_merge_seq, check_torch_mha_forward, check_key_padding_mask,
    check_alibi_causal_mask, check_saturation, check_ablate_head, check_cross_kv, check_gqa_attention, check_cached_step,
    check_rope_pairs, check_merge_softmax_states)}

__all__ = [
    "MISTAKES",
    "CheckResult",
    "ExerciseFailure",
    "korean_grader",
    "CHECKERS",
    "FORBIDDEN_ATTENTION",
    "library_calls",
    "check_no_library_calls",
    "check_value",
    "check_choice",
    "reference_saturation",
    # 채점 과제 (1~4장)
    "check_query_for_shares",
    "check_split_merge_seq",
    "check_torch_mha_forward",
    "check_key_padding_mask",
    "check_alibi_causal_mask",
    "check_saturation",
    # 채점 과제 (5~7장)
    "check_ablate_head",
    "check_cross_kv",
    "check_gqa_attention",
    "check_cached_step",
    # 채점 과제 (8장, 10장)
    "check_rope_pairs",
    "check_merge_softmax_states",
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
