"""attn_lib.exercises 채점기: 참조는 통과, 알려진 틀린 풀이는 실패하고 그 실수를 한국어로 짚음."""

from __future__ import annotations

import math

import pytest
import torch

from attn_lib import exercises as ex
from attn_lib.exercises.grading import _korean_summary
from attn_lib.attention import scaled_dot_product_attention
from attn_lib.masks import causal_mask, padding_mask


def good_attention(query, key, value, attn_mask=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf"))
    dead = torch.isneginf(scores.amax(dim=-1, keepdim=True))
    weights = torch.softmax(scores.masked_fill(dead, 0.0), dim=-1).masked_fill(dead, 0.0)
    return weights @ value, weights


def naive(query, key, value, attn_mask=None, *, scale=None, dim=-1, invert=False, after=False):
    scale = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    scores = query @ key.transpose(-2, -1) * scale
    mask = None if attn_mask is None else (~attn_mask if invert else attn_mask)
    if mask is not None and not after:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=dim)
    if mask is not None and after:
        weights = weights * mask
    return weights @ value, weights


def test_reference_solutions_pass():
    assert ex.check_attention(good_attention).passed
    assert ex.check_attention(good_attention, seed=5, dtype=torch.float64).passed
    assert ex.check_attention(lambda q, k, v, m=None: scaled_dot_product_attention(q, k, v, m)).passed


@pytest.mark.parametrize("mistake,fn", [
    ("no_scale", lambda q, k, v, m=None: naive(q, k, v, m, scale=1.0) if m is None else good_attention(q * math.sqrt(q.shape[-1]), k, v, m)),
    ("softmax_axis", lambda q, k, v, m=None: naive(q, k, v, m, dim=-2)),
    ("mask_inverted", lambda q, k, v, m=None: good_attention(q, k, v, None if m is None else ~m)),
    ("nan_rows", lambda q, k, v, m=None: naive(q, k, v, m)),
    ("mask_after_softmax", lambda q, k, v, m=None: naive(q, k, v, m, after=True)),
], ids=lambda x: x if isinstance(x, str) else "")
def test_attention_mistakes_get_targeted_korean_hint(mistake, fn):
    result = ex.check_attention(fn)
    assert not result.passed
    assert result.mistake == mistake
    assert ex.MISTAKES[mistake] in repr(result)
    with pytest.raises(ex.ExerciseFailure, match="힌트"):
        result.raise_if_failed()


def test_unimplemented_and_crashing_functions_are_reported_not_raised():
    assert ex.check_attention(lambda q, k, v, m=None: None).mistake == "not_implemented"
    result = ex.check_attention(lambda q, k, v, m=None: 1 / 0)
    assert not result.passed and "ZeroDivisionError" in result.message
    assert "함수가 필요한데" in ex.check_attention(Ellipsis).message


def split(x, h):
    B, L, E = x.shape
    return x.view(B, L, h, E // h).transpose(1, 2)


def test_split_merge_and_the_two_merge_mistakes():
    def merge(x):
        B, H, L, Dh = x.shape
        return x.transpose(1, 2).contiguous().view(B, L, H * Dh)

    def merge_no_transpose(x):
        B, H, L, Dh = x.shape
        return x.reshape(B, L, H * Dh)

    def merge_view(x):
        B, H, L, Dh = x.shape
        return x.transpose(1, 2).view(B, L, H * Dh)

    def split_wrong(x, h):
        B, L, E = x.shape
        return x.reshape(B, h, L, E // h)

    assert ex.check_split_merge(split, merge).passed
    assert ex.check_split_merge(split, merge_no_transpose).mistake == "merge_order"
    assert ex.check_split_merge(split, merge_view).mistake == "merge_view"
    assert ex.check_split_merge(split_wrong, merge).mistake == "split_order"


def test_attention_weights_mistakes():
    assert ex.check_attention_weights(lambda q, k: naive(q, k, k)[1]).passed
    assert ex.check_attention_weights(lambda q, k: naive(q, k, k, scale=1.0)[1]).mistake == "no_scale"
    assert ex.check_attention_weights(lambda q, k: naive(q, k, k, scale=1 / q.shape[-1])[1]).mistake == "scale_dk"
    assert ex.check_attention_weights(lambda q, k: naive(q, k, k, dim=-2)[1]).mistake == "softmax_axis"


def test_mask_checkers():
    assert ex.check_causal_mask(causal_mask).passed
    assert ex.check_causal_mask(lambda L: ~causal_mask(L)).mistake == "mask_inverted"
    assert ex.check_causal_mask(lambda L: torch.ones(L, L, dtype=torch.bool).tril(-1)).mistake == "causal_strict"
    assert ex.check_causal_mask(lambda L: torch.ones(L, L).tril()).mistake == "mask_float"
    assert ex.check_padding_mask(padding_mask).passed
    assert ex.check_padding_mask(lambda n, S: ~padding_mask(n, S)).mistake == "mask_inverted"
    assert ex.check_padding_mask(lambda n, S: padding_mask(n, S)[:, 0, 0]).mistake == "padding_shape"
    assert ex.check_combined_mask(lambda c, p: c & p).passed
    assert ex.check_combined_mask(lambda c, p: c | p).mistake == "combine_or"


def test_scaling_checkers():
    assert ex.check_scale(lambda d: 1 / math.sqrt(d)).passed
    assert ex.check_scale(lambda d: 1 / d).mistake == "scale_dk"
    assert ex.check_scale(lambda d: math.sqrt(d)).mistake == "scale_sqrt"
    assert ex.check_saturation(ex.reference_saturation).passed
    assert ex.check_saturation(lambda d, s, seed=0: ex.reference_saturation(d, True, seed)).mistake == "scaled_flag"
    # 스케일링하지 않으면 큰 d_k에서 포화가 훨씬 많아야 실험이 뜻이 있음
    assert ex.reference_saturation(256, False) > 0.5 > ex.reference_saturation(256, True)


def test_cross_attention_checker():
    def good(mha, x, mem, n):
        return mha(x, mem, mem, attn_mask=padding_mask(n, mem.shape[1]))

    assert ex.check_cross_attention(good).passed
    assert ex.check_cross_attention(lambda mha, x, mem, n: mha(x, mem, mem)).mistake == "cross_no_mask"
    assert ex.check_cross_attention(lambda mha, x, mem, n: mha(mem, x, x)).mistake == "cross_swapped"
    causal = lambda mha, x, mem, n: mha(x, mem, mem, attn_mask=padding_mask(n, mem.shape[1]) & causal_mask(x.shape[1], mem.shape[1]))  # noqa: E731
    assert ex.check_cross_attention(causal).mistake == "cross_causal"


def test_practice_checkers_and_head_dim_and_shape_answers():
    assert ex.check_param_count(lambda e: 4 * e * e + 4 * e).passed
    assert ex.check_param_count(lambda e: 4 * e * e).mistake == "param_no_bias"
    assert ex.check_temperature_softmax(lambda s, T: torch.softmax(s * T, -1)).mistake == "temperature_mul"
    assert not ex.check_head_dim(lambda e, h: e // h).passed  # ValueError를 일으키지 않음

    def head_dim(e, h):
        if e % h:
            raise ValueError("나누어떨어지지 않음")
        return e // h

    assert ex.check_head_dim(head_dim).passed
    assert ex.check_shape_answer((1, 2, 3, 4), 4).passed
    assert not ex.check_shape_answer(..., 4).passed
    assert not ex.check_shape_answer([1, 2, 3, 4], 4).passed


def test_report_is_korean_and_html_escapes():
    result = ex.check_attention(lambda q, k, v, m=None: naive(q, k, v, m, dim=-2))
    assert "아직 틀렸습니다" in repr(result) and "<pre" in result._repr_html_()
    assert "통과" in repr(ex.check_attention(good_attention))


class _Case:
    def __init__(self, hidden, passed, message=""):
        self.test_case = type("TC", (), {"hidden": hidden})()
        self.passed = passed
        self.message = message


def test_korean_summary_never_says_all_passed_when_hidden_tests_exist():
    tf = type("TF", (), {"name": "q2_4", "test_case_results": [_Case(False, True)]})()
    text = _korean_summary(tf, hidden_tests=True)
    assert "숨은 테스트는 제출한 뒤에 채점됩니다" in text and "All" not in text
    failing = type("TF", (), {"name": "q2_4", "test_case_results": [
        _Case(False, False, "Traceback...\nattn_lib.exercises.ExerciseFailure: [x] 아직 틀렸습니다.\n힌트: 축")]})()
    assert "힌트: 축" in _korean_summary(failing, hidden_tests=True)
