"""연습 채점기(attn_course.practice)와 채점 과제의 채점기(attn_grader): 마스터 풀이는 통과, 알려진 틀린 풀이는 실패하고 그 실수를 한국어 힌트로 짚음.

채점 과제의 풀이는 ``assignments/attention_hw.ipynb``의 풀이 셀을 그대로 실행해 얻습니다(테스트에 사본을 두지 않음).
틀린 풀이는 문제마다 알려진 실수를 하나씩 흉내 냅니다. ``MISTAKES``의 모든 힌트가 적어도 한 틀린 풀이에서 나오는지도
확인합니다. 값과 선택지 문제의 힌트(숨은 테스트에만 있음)는 ``tests/test_assignments.py``가 확인합니다.
"""

from __future__ import annotations

import copy
import json
import math
import sys
from pathlib import Path

import nbformat
import pytest
import torch
import torch.nn as nn

from attn_lib import apply_rope, cache_causal_mask, causal_mask, padding_mask, scaled_dot_product_attention
import types

import attn_course.practice as _practice
from attn_grader.answers import check_choice, check_value
from attn_grader.references import reference_saturation
from attn_grader.registry import CHECKERS

# 연습 채점기와 채점 과제의 채점기를 한 이름 아래에 (이 테스트는 둘을 같은 규칙으로 봄)
ex = types.SimpleNamespace(**{n: getattr(_practice, n) for n in _practice.__all__}, **CHECKERS, CHECKERS=CHECKERS,
                           check_value=check_value, check_choice=check_choice, reference_saturation=reference_saturation)

ROOT = Path(__file__).resolve().parents[1]
MASTER = ROOT / "assignments" / "attention_hw.ipynb"


@pytest.fixture(scope="module")
def master() -> dict:
    """연습판으로 값을 채운 마스터 노트북의 풀이 셀(# BEGIN SOLUTION ~ # END SOLUTION)을 차례로 실행한 이름공간."""
    from attn_grader.master import render

    from attn_lib import repeat_kv

    # 마스터의 첫 셀이 import 하는 이름들
    ns: dict = {"copy": copy, "math": math, "torch": torch, "nn": nn, "F": torch.nn.functional,
                "repeat_kv": repeat_kv, "scaled_dot_product_attention": scaled_dot_product_attention}
    inside = False
    for cell in render(nbformat.read(MASTER, as_version=4), None, MASTER.stem).nb.cells:
        if cell.cell_type == "raw":
            inside = {"# BEGIN SOLUTION": True, "# END SOLUTION": False}.get(cell.source.strip(), inside)
        elif cell.cell_type == "code" and inside:
            exec(compile(cell.source, str(MASTER), "exec"), ns)  # 저장소의 마스터 노트북 (신뢰)
    return ns


GRADED = {  # 채점기 이름 -> 마스터 이름공간에서 채점기를 부르는 함수
    "query_for_shares": lambda ns, *f: ex.check_query_for_shares(*(f or (ns["query_for_shares"],))),
    "split_merge_seq": lambda ns, *f: ex.check_split_merge_seq(*(f or (ns["split_heads_seq"], ns["merge_heads_seq"]))),
    "torch_mha_forward": lambda ns, *f: ex.check_torch_mha_forward(*(f or (ns["torch_mha_forward"],))),
    "key_padding_mask": lambda ns, *f: ex.check_key_padding_mask(*(f or (ns["key_padding_mask_for"],))),
    "alibi_causal_mask": lambda ns, *f: ex.check_alibi_causal_mask(*(f or (ns["alibi_causal_mask"],))),
    "saturation": lambda ns, *f: ex.check_saturation(*(f or (ns["measure_saturation"],))),
    "ablate_head": lambda ns, *f: ex.check_ablate_head(*(f or (ns["ablate_head"],))),
    "cross_kv": lambda ns, *f: ex.check_cross_kv(*(f or (ns["precompute_cross_kv"], ns["cross_step"]))),
    "gqa_attention": lambda ns, *f: ex.check_gqa_attention(*(f or (ns["gqa_attention"],))),
    "cached_step": lambda ns, *f: ex.check_cached_step(*(f or (ns["cached_step"],))),
    "rope_pairs": lambda ns, *f: ex.check_rope_pairs(*(f or (ns["rope_pairs"],))),
    "merge_softmax_states": lambda ns, *f: ex.check_merge_softmax_states(*(f or (ns["merge_softmax_states"],))),
}


@pytest.mark.parametrize("name", sorted(GRADED))
def test_master_solution_passes_its_checker(master, name):
    result = GRADED[name](master)
    assert result.passed, result.report()
    assert "통과" in repr(result)


@pytest.mark.parametrize("seed", [7, 123456789])
@pytest.mark.parametrize("name", sorted(GRADED))
def test_master_solution_passes_hidden_seeds_whose_cases_differ_from_the_public_ones(master, name, seed):
    """채점 때 학생마다 다른 숨은 시드: 마스터는 통과하고, 채점기가 보는 경우의 설명이 공개 시드와 다릅니다."""
    fns = {"query_for_shares": ("query_for_shares",), "split_merge_seq": ("split_heads_seq", "merge_heads_seq"),
           "torch_mha_forward": ("torch_mha_forward",), "key_padding_mask": ("key_padding_mask_for",),
           "alibi_causal_mask": ("alibi_causal_mask",), "saturation": ("measure_saturation",),
           "ablate_head": ("ablate_head",), "cross_kv": ("precompute_cross_kv", "cross_step"),
           "gqa_attention": ("gqa_attention",), "cached_step": ("cached_step",), "rope_pairs": ("rope_pairs",),
           "merge_softmax_states": ("merge_softmax_states",)}[name]
    checker = ex.CHECKERS["check_" + name]
    seen = []

    def spy(fn):
        def call(*args, **kwargs):
            seen.append(repr([a.sum().item() if isinstance(a, torch.Tensor) else a for a in args
                              if not isinstance(a, torch.nn.Module)]))
            return fn(*args, **kwargs)
        return call

    assert checker(*(spy(master[f]) for f in fns), seed=seed).passed
    hidden = list(seen)
    seen.clear()
    assert checker(*(spy(master[f]) for f in fns), seed=0).passed
    assert hidden and hidden != seen, "숨은 시드의 경우가 공개 경우와 같습니다"


# ---- 알려진 틀린 풀이 (문제마다 실수 하나씩) ------------------------------------------------------


def shares_rule(rule):
    def fn(shares, S, c=20.0):
        q = torch.zeros(S)
        for j, p in shares.items():
            q[j] = rule(p, c)
        return q
    return fn


def shares_inf(shares, S, c=20.0):
    """고르지 않은 위치를 -inf로 둔 쿼리: 원-핫 키와의 내적에서 -inf × 0 = NaN."""
    q = torch.full((S,), float("-inf"))
    for j, p in shares.items():
        q[j] = math.log(p)
    return q


def ablate_output_columns(mha, h):
    """W_v 대신 W_o 의 헤드 h 열을 지운 사본 (출력은 같지만 묻는 것과 다름)."""
    m = copy.deepcopy(mha)
    with torch.no_grad():
        m.W_o.weight[:, h * m.head_dim:(h + 1) * m.head_dim] = 0
    return m


def split_ok(x, h):
    L, B, E = x.shape
    return x.view(L, B, h, E // h).permute(1, 2, 0, 3)


def merge_view(x):
    B, H, L, Dh = x.shape
    return x.permute(2, 0, 1, 3).view(L, B, H * Dh)


def merge_no_permute(x):
    B, H, L, Dh = x.shape
    return x.reshape(L, B, H * Dh)


def split_no_permute(x, h):
    L, B, E = x.shape
    return x.reshape(B, h, L, E // h)


def split_batch_first(x, h):
    B, L, E = x.shape
    return x.view(B, L, h, E // h).transpose(1, 2)


def mha_hand(*, scale=True, polarity=True, dim=-1, out_proj=True, merge=True, order=(0, 1, 2), batch_first=False):
    def fn(x, mha, key_padding_mask=None):
        if batch_first:
            x = x.transpose(0, 1)
        L, B, E = x.shape
        H = mha.num_heads
        Dh = E // H
        parts = (x @ mha.in_proj_weight.T + mha.in_proj_bias).split(E, dim=-1)
        q, k, v = (split_ok(parts[i], H) for i in order)
        s = q @ k.transpose(-2, -1) / (math.sqrt(Dh) if scale else 1.0)
        if key_padding_mask is not None:
            m = key_padding_mask if polarity else ~key_padding_mask
            s = s.masked_fill(m[:, None, None, :], float("-inf"))
        w = s.softmax(dim=dim)
        heads = w @ v
        merged = heads.permute(2, 0, 1, 3).reshape(L, B, E) if merge else heads.reshape(L, B, E)
        out = merged @ mha.out_proj.weight.T + mha.out_proj.bias if out_proj else merged
        if batch_first:
            return out, w
        return out, w
    return fn


def kpm(*, invert=False, shape4=False, side_swap=False, as_float=False, as_int=False):
    def fn(lengths, S, side="right"):
        if side_swap:
            side = "left" if side == "right" else "right"
        n = torch.tensor(lengths)[:, None]
        pos = torch.arange(S)[None, :]
        m = pos < S - n if side == "left" else pos >= n
        if invert:
            m = ~m
        if shape4:
            m = m[:, None, None, :]
        return m.float() if as_float else (m.long() if as_int else m)
    return fn


def alibi(*, block=True, sign=-1.0, fill=float("-inf"), direction=True, as_bool=False):
    def fn(L, slope):
        i = torch.arange(L)[:, None]
        j = torch.arange(L)[None, :]
        if as_bool:
            return j <= i
        b = sign * slope * (i - j).abs().float()
        if not block:
            return b
        blocked = (j > i) if direction else (j < i)
        return b.masked_fill(blocked, fill)
    return fn


def saturation(*, ignore_scale=False, dim=-1, keys_first=False):
    def fn(d_k, scale, seed=0):
        g = torch.Generator().manual_seed(seed)
        if keys_first:
            k = torch.randn(16, d_k, generator=g); q = torch.randn(256, d_k, generator=g)
        else:
            q = torch.randn(256, d_k, generator=g); k = torch.randn(16, d_k, generator=g)
        s = q @ k.T * (1 / math.sqrt(d_k) if ignore_scale else scale)
        w = torch.softmax(s, dim=dim)
        return float((w.amax(dim=-1) >= 0.99).float().mean())
    return fn


def ablate(*, in_place=False, columns=False, bias=True, shift=0):
    def fn(mha, h):
        m = mha if in_place else copy.deepcopy(mha)
        h = (h + shift) % m.num_heads
        s = slice(h * m.head_dim, (h + 1) * m.head_dim)
        with torch.no_grad():
            if columns:
                m.W_v.weight[:, s] = 0
            else:
                m.W_v.weight[s] = 0
            if bias:
                m.W_v.bias[s] = 0
        return m
    return fn


def precompute_ok(mha, enc):
    return mha.split_heads(mha.W_k(enc)), mha.split_heads(mha.W_v(enc))


def precompute_flat(mha, enc):
    return mha.W_k(enc), mha.W_v(enc)


def step(*, mask="ok", out_proj=True, recompute=False):
    def fn(mha, y, K, V, m):
        if recompute:
            K = mha.split_heads(mha.W_k(torch.zeros(y.shape[0], K.shape[2], y.shape[2])))
        q = mha.split_heads(mha.W_q(y))
        L, S = y.shape[1], K.shape[2]
        mm = {"ok": m, "none": None, "causal": m & causal_mask(L, S), "inverted": ~m}[mask]
        heads, w = scaled_dot_product_attention(q, K, V, mm)
        merged = mha.merge_heads(heads)
        return (mha.W_o(merged) if out_proj else merged), w
    return fn


def gqa(*, interleave=True, scale=True, invert=False, dim=-1):
    def fn(q, k, v, m=None):
        G = q.shape[1] // k.shape[1]
        if interleave:
            k, v = k.repeat_interleave(G, dim=1), v.repeat_interleave(G, dim=1)
        else:
            k, v = k.repeat(1, G, 1, 1), v.repeat(1, G, 1, 1)
        s = q @ k.transpose(-2, -1) / (math.sqrt(q.shape[-1]) if scale else 1.0)
        if m is not None:
            s = s.masked_fill(m if invert else ~m, float("-inf"))
        w = s.softmax(dim=dim)
        return w @ v, w
    return fn


def cache(*, append=True, prepend=False, topleft=False):
    def fn(mha, x_new, pk, pv):
        kn, vn = mha.split_heads(mha.W_k(x_new)), mha.split_heads(mha.W_v(x_new))
        if prepend:
            k, v = torch.cat([kn, pk], dim=-2), torch.cat([vn, pv], dim=-2)
        else:
            k, v = torch.cat([pk, kn], dim=-2), torch.cat([pv, vn], dim=-2)
        ka, va = (k, v) if append else (pk, pv)
        mask = causal_mask(1, ka.shape[-2]) if topleft else None
        heads, _ = scaled_dot_product_attention(mha.split_heads(mha.W_q(x_new)), ka, va, mask,
                                                enable_gqa=mha.num_kv_heads != mha.num_heads)
        return mha.W_o(mha.merge_heads(heads)), k, v
    return fn


def rope(*, layout="pairs", sign=1.0, offset=True, exponent=2.0):
    """8.1의 풀이를 실수 하나와 함께 (layout: 짝 배치, sign: 회전 방향, offset: start를 쓰는지, exponent: 주파수의 지수)."""
    def fn(x, start, base=10000.0):
        L, dh = x.shape[-2:]
        pos = torch.arange(L, dtype=torch.float64) + (start if offset else 0)
        angle = sign * pos[:, None] * base ** (-exponent * torch.arange(dh // 2, dtype=torch.float64) / dh)  # (L, Dh/2)
        c, s = angle.cos().to(x.dtype), angle.sin().to(x.dtype)
        if layout == "halves":
            a, b = x[..., : dh // 2], x[..., dh // 2:]
            return torch.cat([a * c - b * s, a * s + b * c], dim=-1)
        out = x.clone()
        out[..., 0::2] = x[..., 0::2] * c - x[..., 1::2] * s
        out[..., 1::2] = x[..., 0::2] * s + x[..., 1::2] * c
        return out
    return fn


def merge(*, rescale=True, rescale_output=True, inverse=False, average=False, normalize=True, guard=True):
    """10.1의 풀이를 실수 하나와 함께."""
    def fn(m1, l1, o1, m2, l2, o2):
        m = torch.max(m1, m2)
        ref = torch.where(torch.isinf(m) & guard, torch.zeros_like(m), m)
        f1 = torch.exp(ref - m1) if inverse else torch.exp(m1 - ref)
        f2 = torch.exp(ref - m2) if inverse else torch.exp(m2 - ref)
        a1, a2 = (l1 * f1, l2 * f2) if rescale else (l1, l2)
        total = a1 + a2
        if average:
            return m, total, (o1 + o2) / 2
        w1, w2 = (a1, a2) if rescale_output else (l1, l2)
        mixed = w1[..., None] * o1 + w2[..., None] * o2
        if not normalize:
            return m, total, mixed
        return m, total, mixed / (torch.where(total == 0, torch.ones_like(total), total) if guard else total)[..., None]
    return fn


WRONG = [
    ("query_for_shares", (shares_rule(lambda p, c: c + p),), "share_log"),
    ("query_for_shares", (shares_rule(lambda p, c: c * p),), "share_log"),
    ("query_for_shares", (shares_rule(lambda p, c: math.log(p)),), "share_offset"),
    ("query_for_shares", (shares_inf,), "share_inf"),
    ("split_merge_seq", (split_no_permute, None), "split_order_seq"),
    ("split_merge_seq", (split_batch_first, None), "batch_first"),
    ("split_merge_seq", (split_ok, merge_no_permute), "merge_order_seq"),
    ("split_merge_seq", (split_ok, merge_view), "merge_view"),
    ("torch_mha_forward", (mha_hand(scale=False),), "no_scale"),
    ("torch_mha_forward", (mha_hand(polarity=False),), "kpm_polarity"),
    ("torch_mha_forward", (mha_hand(dim=-2),), "softmax_axis"),
    ("torch_mha_forward", (mha_hand(out_proj=False),), "no_out_proj"),
    ("torch_mha_forward", (mha_hand(merge=False),), "merge_order_seq"),
    ("torch_mha_forward", (mha_hand(order=(1, 0, 2)),), "in_proj_order"),
    ("torch_mha_forward", (mha_hand(batch_first=True),), "batch_first"),
    ("key_padding_mask", (kpm(invert=True),), "kpm_polarity_build"),
    ("key_padding_mask", (kpm(as_int=True),), "mask_float"),
    ("key_padding_mask", (kpm(shape4=True),), "kpm_shape"),
    ("key_padding_mask", (kpm(side_swap=True),), "padding_side"),
    ("key_padding_mask", (kpm(as_float=True),), "mask_float"),
    ("alibi_causal_mask", (alibi(block=False),), "additive_no_block"),
    ("alibi_causal_mask", (alibi(sign=1.0),), "bias_sign"),
    ("alibi_causal_mask", (alibi(fill=-1e9),), "finite_block"),
    ("alibi_causal_mask", (alibi(direction=False),), "causal_direction"),
    ("alibi_causal_mask", (alibi(as_bool=True),), "mask_bool_not_additive"),
    ("saturation", (saturation(ignore_scale=True),), "scale_ignored"),
    ("saturation", (saturation(dim=0),), "softmax_axis"),
    ("saturation", (saturation(keys_first=True),), "draw_order"),
    ("ablate_head", (ablate(in_place=True),), "ablate_in_place"),
    ("ablate_head", (ablate(columns=True),), "ablate_columns"),
    ("ablate_head", (ablate(bias=False),), "ablate_bias"),
    ("ablate_head", (ablate(shift=1),), "ablate_wrong_head"),
    ("ablate_head", (ablate_output_columns,), "ablate_output_proj"),
    ("cross_kv", (precompute_flat, step()), "cross_kv_layout"),
    ("cross_kv", (precompute_ok, step(recompute=True)), "cross_recompute"),
    ("cross_kv", (precompute_ok, step(mask="none")), "cross_no_mask"),
    ("cross_kv", (precompute_ok, step(mask="causal")), "cross_causal"),
    ("cross_kv", (precompute_ok, step(mask="inverted")), "mask_inverted"),
    ("cross_kv", (precompute_ok, step(out_proj=False)), "no_W_o"),
    ("gqa_attention", (gqa(interleave=False),), "gqa_group_order"),
    ("gqa_attention", (gqa(scale=False),), "no_scale"),
    ("gqa_attention", (gqa(invert=True),), "mask_inverted"),
    ("gqa_attention", (gqa(dim=-2),), "softmax_axis"),
    ("cached_step", (cache(append=False),), "cache_forgot_new"),
    ("cached_step", (cache(prepend=True),), "cache_order"),
    ("cached_step", (cache(topleft=True),), "cache_topleft_mask"),
    ("rope_pairs", (rope(layout="halves"),), "rope_half_layout"),
    ("rope_pairs", (rope(sign=-1.0),), "rope_direction"),
    ("rope_pairs", (rope(offset=False),), "rope_no_offset"),
    ("rope_pairs", (rope(exponent=1.0),), "rope_frequency"),
    ("merge_softmax_states", (merge(guard=False),), "merge_empty_nan"),
    ("merge_softmax_states", (merge(rescale=False),), "merge_no_rescale"),
    ("merge_softmax_states", (merge(rescale_output=False),), "merge_output_not_rescaled"),
    ("merge_softmax_states", (merge(inverse=True),), "merge_inverse_factor"),
    ("merge_softmax_states", (merge(average=True),), "merge_plain_average"),
    ("merge_softmax_states", (merge(normalize=False),), "merge_unnormalized"),
]


@pytest.mark.parametrize("name, fns, mistake", WRONG, ids=[f"{n}-{m}" for n, _, m in WRONG])
def test_each_known_mistake_fails_with_its_korean_hint(master, name, fns, mistake):
    if name == "split_merge_seq" and fns[1] is None:
        fns = (fns[0], master["merge_heads_seq"])
    result = GRADED[name](master, *fns)
    assert not result.passed and result.mistake == mistake, result.report()
    assert ex.MISTAKES[mistake] in result.report()
    with pytest.raises(ex.ExerciseFailure, match="힌트"):
        result.raise_if_failed()


# ---- 연습 페이지와 '내 어텐션' 보기의 채점기 -----------------------------------------------------


def good_attention(query, key, value, attn_mask=None):
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf"))
    dead = torch.isneginf(scores).all(dim=-1, keepdim=True)
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


def relation_shares(w, start=2):
    t = torch.arange(start, w.shape[-1])
    return torch.stack([w[:, :, start:, 0].mean((0, 2)), w[:, :, t, (t - 1).clamp(min=0)].mean((0, 2))], -1)


def same_sequence(lengths):
    ids = torch.repeat_interleave(torch.arange(len(lengths)), torch.tensor(lengths))
    return ids[:, None] == ids[None, :]


def packed(lengths):
    return same_sequence(lengths) & causal_mask(sum(lengths))


PRACTICE = [  # (채점기, 맞는 풀이, [(틀린 풀이, 실수)])
    (ex.check_attention, good_attention, [
        (lambda q, k, v, m=None: naive(q, k, v, m, scale=1.0) if m is None else good_attention(q * math.sqrt(q.shape[-1]), k, v, m), "no_scale"),
        (lambda q, k, v, m=None: naive(q, k, v, m, dim=-2), "softmax_axis"),
        (lambda q, k, v, m=None: good_attention(q, k, v, None if m is None else ~m), "mask_inverted"),
        (lambda q, k, v, m=None: naive(q, k, v, m), "nan_rows"),
        (lambda q, k, v, m=None: naive(q, k, v, m, after=True), "mask_after_softmax")]),
    (ex.check_concat_heads, lambda a, b, v: torch.cat([a @ v, b @ v], dim=-1), [
        (lambda a, b, v: a @ v + b @ v, "concat_sum"), (lambda a, b, v: torch.stack([a @ v, b @ v]), "concat_stack")]),
    (ex.check_param_count, lambda e: 4 * e * e + 4 * e, [(lambda e: 4 * e * e, "param_no_bias"), (lambda e: 3 * e * e + 3 * e, "param_no_out")]),
    (ex.check_head_loop, lambda q, k, v: torch.stack([scaled_dot_product_attention(q[:, h], k[:, h], v[:, h])[0] for h in range(q.shape[1])], 1),
     [(lambda q, k, v: torch.softmax(q @ k.transpose(-2, -1), -1) @ v, "no_scale")]),
    (ex.check_packed_mask, packed, [(lambda n: causal_mask(sum(n)), "packed_cross"), (same_sequence, "packed_no_causal"),
                                    (lambda n: ~packed(n), "mask_inverted"), (lambda n: packed(n).float(), "mask_float")]),
    (ex.check_future_weight, lambda w: (w * torch.ones(w.shape[-1], w.shape[-1]).triu(1)).sum(-1), [(lambda w: w.triu().sum(-1), "future_diagonal")]),
    (ex.check_temperature_softmax, lambda s, T: torch.softmax(s / T, -1), [(lambda s, T: torch.softmax(s * T, -1), "temperature_mul"),
                                                                           (lambda s, T: torch.softmax(s / T, -2), "softmax_axis")]),
    (ex.check_softmax_jacobian, lambda p: torch.diag_embed(p) - p[..., :, None] * p[..., None, :],
     [(lambda p: p[..., :, None] * p[..., None, :] - torch.diag_embed(p), "jacobian_sign")]),
    (ex.check_relation_shares, relation_shares, [(lambda w: relation_shares(w, 0), "share_positions")]),
    (ex.check_cross_attention, lambda mha, x, mem, n: mha(x, mem, mem, attn_mask=padding_mask(n, mem.shape[1])), [
        (lambda mha, x, mem, n: mha(x, mem, mem), "cross_no_mask"), (lambda mha, x, mem, n: mha(mem, x, x), "cross_swapped"),
        (lambda mha, x, mem, n: mha(x, mem, mem, attn_mask=padding_mask(n, mem.shape[1]) & causal_mask(x.shape[1], mem.shape[1])), "cross_causal")]),
    (ex.check_cache_causal_mask, lambda L, S: torch.ones(L, S, dtype=torch.bool).tril(S - L),
     [(lambda L, S: causal_mask(L, S), "cache_mask_topleft"), (lambda L, S: ~cache_causal_mask(L, S), "mask_inverted")]),
    (ex.check_kv_head_of, lambda h, H, Hkv: h // (H // Hkv), [(lambda h, H, Hkv: h % Hkv, "gqa_group_order")]),
]
def rope_decode(*, at=None, rotate_key=True, rerotate=False):
    """연습 8장: 위치 S의 새 토큰이 캐시와 자기 키에 주는 점수 (실수 하나와 함께)."""
    def fn(q_new, k_new, k_cache):
        S = k_cache.shape[-2]
        pos = torch.tensor([S if at is None else at])
        keys = torch.cat([k_cache, apply_rope(k_new, pos) if rotate_key else k_new], dim=-2)
        if rerotate:
            keys = apply_rope(keys, torch.arange(S + 1))
        return apply_rope(q_new, pos) @ keys.transpose(-2, -1) / math.sqrt(q_new.shape[-1])
    return fn


def online(*, rescale=True, inverse=False):
    """연습 10장: 블록씩 읽는 최댓값과 합 (실수 하나와 함께; 처음 m은 -inf)."""
    def fn(scores, block_size):
        m = torch.full(scores.shape[:-1], float("-inf"), dtype=scores.dtype)
        total = torch.zeros(scores.shape[:-1], dtype=scores.dtype)
        for i in range(0, scores.shape[-1], block_size):
            block = scores[..., i:i + block_size]
            new = torch.max(m, block.max(dim=-1).values)
            alpha = torch.exp(new - m) if inverse else torch.exp(m - new)
            total = (total * alpha if rescale else total) + torch.exp(block - new[..., None]).sum(dim=-1)
            m = new
        return m, total
    return fn


PRACTICE.append((ex.check_rope_decode_scores, rope_decode(), [
    (rope_decode(at=0), "rope_no_offset"), (rope_decode(rerotate=True), "rope_rerotated_cache"),
    (rope_decode(rotate_key=False), "rope_new_key_unrotated")]))
PRACTICE.append((ex.check_online_softmax_stats, online(), [
    (online(rescale=False), "online_no_rescale"), (online(inverse=True), "online_inverse_factor")]))
PRACTICE_WRONG = [(check, fn, mistake) for check, _, wrongs in PRACTICE for fn, mistake in wrongs]


@pytest.mark.parametrize("check, good", [(c, g) for c, g, _ in PRACTICE], ids=[c.__name__ for c, _, _ in PRACTICE])
def test_practice_checkers_pass_a_right_solution(check, good):
    assert check(good).passed, check(good).report()


@pytest.mark.parametrize("check, fn, mistake", PRACTICE_WRONG, ids=[f"{c.__name__}-{m}" for c, _, m in PRACTICE_WRONG])
def test_practice_checkers_name_the_known_mistake(check, fn, mistake):
    result = check(fn)
    assert not result.passed and result.mistake == mistake, result.report()
    assert ex.MISTAKES[mistake] in result.report()


def test_every_hint_in_the_table_is_produced_by_some_known_mistake():
    produced = {m for _, _, m in WRONG} | {m for _, _, m in PRACTICE_WRONG} | {"not_implemented", "merge_view"}
    assert produced == set(ex.MISTAKES), f"틀린 풀이가 없는 힌트: {sorted(set(ex.MISTAKES) - produced)}"


def test_unimplemented_crashing_and_missing_functions_are_reported_not_raised(master):
    assert ex.check_attention(lambda q, k, v, m=None: None).mistake == "not_implemented"
    assert ex.check_torch_mha_forward(lambda x, mha, key_padding_mask=None: ...).mistake == "not_implemented"
    result = ex.check_gqa_attention(lambda q, k, v, m=None: 1 / 0)
    assert not result.passed and "ZeroDivisionError" in result.message
    assert "함수가 필요한데" in ex.check_cached_step(Ellipsis).message
    assert "함수가 필요한데" in ex.check_cross_kv(Ellipsis, master["cross_step"]).message


def test_saturation_experiment_means_something():
    # 스케일링하지 않으면 큰 d_k에서 포화가 훨씬 많고, 1/d_k면 포화가 사라져야 문제가 뜻이 있음
    assert ex.reference_saturation(256, 1.0) > 0.5 > ex.reference_saturation(256, 1 / 16) >= ex.reference_saturation(256, 1 / 256) == 0.0


# ---- 값과 선택지 ---------------------------------------------------------------------------------


def test_check_value_passes_close_answers_and_gives_the_known_hint():
    ex.check_value((0.25, 0.25, 0.5), (0.25, 0.25, 0.5), name="x")
    ex.check_value([0.1800004, 0.4714], (0.18, 0.4714), name="x", tol=1e-3)
    ex.check_value({(1, 2), (0, 1)}, {(0, 1), (1, 2)}, name="x")
    with pytest.raises(ex.ExerciseFailure, match="힌트: 제곱근"):
        ex.check_value((0.0324, 0.2222), (0.18, 0.4714), name="x", tol=1e-3, hints={(0.0324, 0.2222): "제곱근"})
    with pytest.raises(ex.ExerciseFailure, match="힌트: 기본"):
        ex.check_value(3, 2, name="x", hints={1: "하나"}, default="기본")
    with pytest.raises(ex.ExerciseFailure, match="아직 답을 적지 않았습니다"):
        ex.check_value(..., 2, name="x")
    with pytest.raises(ex.ExerciseFailure):
        ex.check_value(True, 1, name="x")  # bool은 수가 아님


def test_check_choice_names_every_wrongly_included_or_left_out_letter():
    ex.check_choice("dcb", "bcd", name="x", options="abcd", hints={})
    ex.check_choice(["b", "c", "d"], "bcd", name="x", options="abcd", hints={})
    hints = {c: f"{c}의 힌트" for c in "abcd"}
    with pytest.raises(ex.ExerciseFailure) as info:
        ex.check_choice("abc", "bcd", name="x", options="abcd", hints=hints)
    assert "a의 힌트" in str(info.value) and "d의 힌트" in str(info.value) and "b의 힌트" not in str(info.value)
    with pytest.raises(ex.ExerciseFailure, match="고를 수 있는 글자"):
        ex.check_choice("bz", "bcd", name="x", options="abcd", hints=hints)


# ---- 보고서와 otter 요약 --------------------------------------------------------------------------


def test_report_is_korean_and_html_escapes():
    result = ex.check_attention(lambda q, k, v, m=None: naive(q, k, v, m, dim=-2))
    assert "아직 틀렸습니다" in repr(result) and "<pre" in result._repr_html_()
    assert "통과" in repr(ex.check_attention(good_attention))





def test_the_long_context_references_agree_with_the_library():
    """8.1의 참조(이웃한 짝)는 apply_rope(앞뒤 절반)에 특징 순열을 건 것과 같고, 10.1의 틀린 참조들의 바탕인 합치기
    공식(인자 기본값)은 키 전체에서 잰 상태와 같습니다: 채점기의 참조가 책의 라이브러리와 어긋나지 않습니다."""
    from attn_grader.checkers_long import _merge, _pairs_to_halves, _rope_pairs, _state

    gen = torch.Generator().manual_seed(0)
    for dh, start, base in [(2, 0, 10000.0), (8, 5, 10000.0), (16, 300, 500.0)]:
        x = torch.randn(2, 3, 4, dh, generator=gen, dtype=torch.float64)
        perm = _pairs_to_halves(dh)
        halves = apply_rope(x[..., perm], torch.arange(start, start + 4), base=base)
        torch.testing.assert_close(halves[..., torch.argsort(perm)], _rope_pairs(x, start, base))
    scores = torch.randn(2, 5, 9, generator=gen, dtype=torch.float64) * 3
    scores[:, 0, :4] = float("-inf")  # 첫 묶음을 볼 수 없는 행
    scores[:, 4, :] = float("-inf")  # 키가 하나도 없는 행
    values = torch.randn(2, 9, 3, generator=gen, dtype=torch.float64)
    merged = _merge(*_state(scores[..., :4], values[:, :4]), *_state(scores[..., 4:], values[:, 4:]))
    full = _state(scores, values)
    for got, want in zip(merged, full):
        torch.testing.assert_close(got, want)
    assert torch.isneginf(full[0][:, 4]).all() and (full[1][:, 4] == 0).all() and (full[2][:, 4] == 0).all()
