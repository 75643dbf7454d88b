"""라이브러리 호출 검사(attn_course.practice.calls): 이름이 아니라 실제 호출을 봅니다."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

import attn_lib
from attn_lib import scaled_dot_product_attention as library_alias
from attn_course.practice import FORBIDDEN_ATTENTION, check_no_library_calls, library_calls

Q, K, V = torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 4)
SDPA_NAME = "scaled_dot_product_" + "attention"


def scaled_dot_product_attention(query, key, value, attn_mask=None):  # 학생이 붙인 자연스러운 이름
    weights = torch.softmax(query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1]), dim=-1)
    return weights @ value, weights


def by_getattr(query, key, value, attn_mask=None):
    return getattr(F, SDPA_NAME)(query, key, value), None


def by_alias(query, key, value, attn_mask=None):
    return library_alias(query, key, value)


def by_torch_module(query, key, value, attn_mask=None):
    return nn.MultiheadAttention(4, 1, batch_first=True).eval()(query, key, value)


def by_library_module(query, key, value, attn_mask=None):
    return attn_lib.MultiHeadAttention(4, 1)(query, key, value)


def by_getattr_on_attn_lib(query, key, value, attn_mask=None):
    return getattr(attn_lib, SDPA_NAME)(query, key, value)


@pytest.mark.parametrize("fn, expected", [
    (by_getattr, {"F.scaled_dot_product_attention"}),
    (by_alias, {"attn_lib.scaled_dot_product_attention"}),
    (by_getattr_on_attn_lib, {"attn_lib.scaled_dot_product_attention"}),
    (by_torch_module, {"nn.MultiheadAttention"}),
    (by_library_module, {"attn_lib.MultiHeadAttention", "attn_lib.scaled_dot_product_attention"}),
])
def test_forbidden_calls_are_caught_whatever_the_name(fn, expected):
    result, hits = library_calls(fn, Q, K, V)
    assert set(hits) == expected
    assert result[0].shape == (2, 3, 4)  # 계산은 그대로 합니다
    with pytest.raises(AssertionError, match="직접 구현해야 하는 문제입니다"):
        check_no_library_calls(fn, Q, K, V)


def test_a_student_function_named_like_the_library_passes():
    result, hits = library_calls(scaled_dot_product_attention, Q, K, V)
    assert hits == []
    torch.testing.assert_close(result[0], F.scaled_dot_product_attention(Q, K, V))
    check_no_library_calls(scaled_dot_product_attention, Q, K, V)


def test_recording_stops_after_the_call_and_errors_pass_through():
    def broken(query, key, value):
        raise ZeroDivisionError("학생 코드의 오류")

    import sys

    before = sys.getprofile()
    with pytest.raises(ZeroDivisionError):
        library_calls(broken, Q, K, V)
    assert sys.getprofile() is before
    _, hits = library_calls(lambda: None)
    assert hits == [] and F.scaled_dot_product_attention(Q, K, V).shape == (2, 3, 4)  # 바깥 호출은 기록 안 됨


def test_forbidden_list_names_every_kind():
    assert set(FORBIDDEN_ATTENTION) == {"F.scaled_dot_product_attention", "nn.MultiheadAttention",
                                        "attn_lib.scaled_dot_product_attention", "attn_lib.MultiHeadAttention",
                                        # 이슈 29의 채점 문제(8.1 RoPE, 10.1 합치기)가 직접 만들게 하는 것들
                                        "attn_lib.apply_rope", "attn_lib.rotate_half", "attn_lib.blockwise_attention"}
