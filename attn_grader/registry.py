"""채점 과제의 채점기 목록: 명세가 이름으로 부르는 채점기 (``spec.check("check_xxx", ...)``; 모두 ``seed=`` 인자를 받음).

채점기(참조 구현, 틀린 참조, 숨은 경우를 뽑는 코드)는 이 패키지에만 있고, 채점 프로세스에서만 돕니다.
"""

from __future__ import annotations

from .checkers import (
    check_alibi_causal_mask,
    check_key_padding_mask,
    check_query_for_shares,
    check_saturation,
    check_split_merge_seq,
    check_torch_mha_forward,
)
from .checkers_long import check_merge_softmax_states, check_rope_pairs
from .checkers_models import check_ablate_head, check_cached_step, check_cross_kv, check_gqa_attention

__all__ = ["CHECKERS"]

#: 채점기 이름 -> 채점기
CHECKERS = {fn.__name__: fn for fn in (
    check_query_for_shares, check_split_merge_seq, check_torch_mha_forward, check_key_padding_mask,
    check_alibi_causal_mask, check_saturation, check_ablate_head, check_cross_kv, check_gqa_attention, check_cached_step,
    check_rope_pairs, check_merge_softmax_states)}
