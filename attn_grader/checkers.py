"""채점 과제(``assignments/attention_hw.ipynb``)의 공개 채점기, 1~4장: 단일 헤드, 멀티헤드, 마스크, 스케일링.

문제마다 참조, 틀린 참조 목록, 비교할 경우를 정해서 ``engine._run``에 넘깁니다. 문제는 책이 보여 준 코드를
그대로 옮기는 것이 아니라 같은 기술을 새 경우에 쓰게 합니다(시퀀스가 먼저인 배치, ``nn.MultiheadAttention``의
묶인 투영과 ``key_padding_mask`` 극성, 덧셈 마스크, 임의의 배율). otter 없이도 쓸 수 있습니다::

    from attn_grader.checkers import check_key_padding_mask
    check_key_padding_mask(my_fn)          # 노트북에서는 한국어 보고서가 보입니다
    check_key_padding_mask(my_fn).passed   # True / False

5~7장의 채점기는 ``checkers_models.py``에 있고, 숨은 테스트 자체는 채점 zip에만 있습니다.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor, nn

from attn_lib.masks import padding_mask
from attn_course.practice.engine import CheckResult, _Case, _gen, _run
from attn_course.practice.hints import MISTAKES
from .references import _saturation_experiment, _torch_mha_variant, reference_saturation

__all__ = [
    "check_query_for_shares", "check_split_merge_seq", "check_torch_mha_forward",
    "check_key_padding_mask", "check_alibi_causal_mask", "check_saturation",
]


def check_query_for_shares(fn: Callable[..., Any], *, seed: int = 0) -> CheckResult:
    """``fn(shares, S, c=20.0) -> 쿼리 (S,)``를 채점합니다. 키는 위치의 원-핫 ``torch.eye(S)``입니다.

    쿼리와 키의 점수(스케일링 없음)에 소프트맥스를 취한 가중치가 ``shares``의 위치에서는 그 몫과, 나머지 위치에서는
    0과 1e-5 안에서 같아야 합니다. 몫은 모두 0보다 크고 합이 1입니다. ``seed=0``은 공개 경우, 다른 시드는 그 시드로
    뽑은 위치·몫·``c``의 경우입니다.

    Returns:
        ``CheckResult`` (알아챈 실수: share_log, share_offset, share_inf).

    Shape:
        - shares: ``{위치: 몫}`` (몫의 합 1), 반환: ``(S,)``
    """
    if not callable(fn):
        return _run("query_for_shares", fn, lambda *a: None, [], [])

    def weights_of(make: Callable[..., Any]) -> Callable[..., Any]:
        def run(shares: dict[int, float], S: int, c: float | None = None) -> Tensor | None:
            q = make(dict(shares), S) if c is None else make(dict(shares), S, c=c)
            if q is None or q is Ellipsis:
                return None
            scores = torch.as_tensor(q, dtype=torch.float64) @ torch.eye(S, dtype=torch.float64)  # (S,) @ (S, S) -> (S,)
            return torch.softmax(scores, dim=-1)
        return run

    def ref(shares: dict[int, float], S: int, c: float | None = None) -> Tensor:
        w = torch.zeros(S, dtype=torch.float64)
        for j, p in shares.items():
            w[j] = p
        return w

    def scores_from(rule: Callable[[float], float]) -> Callable[..., Any]:
        def make(shares: dict[int, float], S: int, c: float = 20.0) -> Tensor:
            q = torch.zeros(S, dtype=torch.float64)
            for j, p in shares.items():
                q[j] = rule(p)
            return q
        return weights_of(make)

    variants = [("share_log", scores_from(lambda p: 20.0 + p)), ("share_log", scores_from(lambda p: 20.0 * p)),
                ("share_offset", scores_from(math.log))]
    if seed == 0:
        cases = [_Case(f"shares={s}, S={S}", (s, S)) for s, S in
                 [({0: 0.5, 3: 0.5}, 5), ({1: 0.2, 2: 0.3, 4: 0.5}, 6), ({2: 1.0}, 3), ({0: 0.75, 1: 0.25}, 2)]]
    else:
        rng = random.Random(seed)
        cases = []
        for i in range(4):
            S = rng.randint(2, 9)
            chosen = sorted(rng.sample(range(S), rng.randint(1, min(4, S))))
            raw = [rng.randint(1, 9) for _ in chosen]
            shares = {j: r / sum(raw) for j, r in zip(chosen, raw)}
            c = 30.0 if i == 3 else None  # 마지막 경우는 c를 넘김
            cases.append(_Case(f"몫 {len(shares)}개, S={S}" + ("" if c is None else f", c={c:g}"), (shares, S), {"c": c}))
    result = _run("query_for_shares", weights_of(fn), ref, variants, cases)
    if result.passed or result.mistake is not None:
        return result
    try:  # 쿼리에 -inf가 있으면 원-핫 키와의 내적에서 -inf × 0 = NaN
        q = fn(dict(cases[0].args[0]), cases[0].args[1])
    except Exception:  # 오류는 이미 보고서에 있음
        return result
    if isinstance(q, Tensor) and q.is_floating_point() and torch.isinf(q).any():
        return CheckResult(result.question, False, f"{cases[0].label}에서 틀렸습니다.\n힌트: {MISTAKES['share_inf']}",
                           "share_inf", result.cases)
    return result


def check_split_merge_seq(split_fn: Callable[[Tensor, int], Tensor], merge_fn: Callable[[Tensor], Tensor], *,
                          seed: int = 0) -> CheckResult:
    """시퀀스가 먼저인 배치의 ``split_fn(x, num_heads)``와 ``merge_fn(x)``를 채점합니다 (split 다음 merge는 원래대로).

    Returns:
        ``CheckResult`` (알아챈 실수: split_order_seq, merge_order_seq, merge_view, batch_first).

    Shape:
        - split: ``(L, B, E) -> (B, H, L, Dh)``
        - merge: ``(B, H, L, Dh) -> (L, B, E)``
    """
    g = _gen(seed)
    if seed == 0:
        xs = [(torch.randn(5, 2, 12, generator=g), 3), (torch.randn(4, 3, 8, generator=g), 2),
              (torch.randn(2, 1, 6, generator=g), 6)]
    else:  # 시드로 뽑은 모양 (L, B, H, Dh)
        rng = random.Random(seed)
        shapes = [(rng.randint(1, 7), rng.randint(1, 3), rng.randint(2, 5), rng.randint(1, 4)) for _ in range(3)]
        xs = [(torch.randn(L, B, H * Dh, generator=g), H) for L, B, H, Dh in shapes]

    def split_ref(x: Tensor, h: int) -> Tensor:
        L, B, E = x.shape
        return x.view(L, B, h, E // h).permute(1, 2, 0, 3)  # (L, B, E) -> (L, B, H, Dh) -> (B, H, L, Dh)

    def split_no_permute(x: Tensor, h: int) -> Tensor:
        L, B, E = x.shape
        return x.reshape(B, h, L, E // h)  # (L, B, E) -> (B, H, L, Dh), 축을 옮기지 않은 잘못

    def split_batch_first(x: Tensor, h: int) -> Tensor:
        L, B, E = x.shape
        return x.view(L, B, h, E // h).transpose(1, 2)  # (L, B, E) -> (L, H, B, Dh): (B, L, E)로 본 잘못

    def merge_ref(x: Tensor) -> Tensor:
        B, H, L, Dh = x.shape
        return x.permute(2, 0, 1, 3).reshape(L, B, H * Dh)  # (B, H, L, Dh) -> (L, B, H, Dh) -> (L, B, E)

    def merge_no_permute(x: Tensor) -> Tensor:
        B, H, L, Dh = x.shape
        return x.reshape(L, B, H * Dh)  # (B, H, L, Dh) -> (L, B, E), 축을 옮기지 않은 잘못

    def merge_dh_first(x: Tensor) -> Tensor:
        B, H, L, Dh = x.shape
        return x.permute(2, 0, 3, 1).reshape(L, B, H * Dh)  # (B, H, L, Dh) -> (L, B, Dh, H) -> (L, B, E)

    def merge_batch_first(x: Tensor) -> Tensor:
        B, H, L, Dh = x.shape
        return x.transpose(1, 2).reshape(B, L, H * Dh)  # (B, H, L, Dh) -> (B, L, H, Dh) -> (B, L, E)

    split_cases = [_Case(f"split(x{tuple(x.shape)}, num_heads={h})", (x, h)) for x, h in xs]
    result = _run("split_heads_seq", split_fn, split_ref,
                  [("split_order_seq", split_no_permute), ("batch_first", split_batch_first)], split_cases)
    if not result.passed:
        return result
    # 어텐션 출력처럼 메모리상 연속인 (B, H, L, Dh)를 넘깁니다 (그래야 permute 뒤 view가 실패함)
    merge_cases = [_Case(f"merge(x{tuple(split_ref(x, h).shape)})", (split_ref(x, h).contiguous(),)) for x, h in xs]
    result = _run("merge_heads_seq", merge_fn, merge_ref, [("merge_order_seq", merge_no_permute),
                  ("merge_order_seq", merge_dh_first), ("batch_first", merge_batch_first)], merge_cases)
    return CheckResult("split/merge (L, B, E)", result.passed, result.message, result.mistake, 2 * len(xs))


def check_torch_mha_forward(fn: Callable[..., Any], *, seed: int = 0) -> CheckResult:
    """``fn(x, mha, key_padding_mask=None) -> (output, weights)``가 ``nn.MultiheadAttention``과 같은지 채점합니다.

    ``mha``는 ``batch_first=False``(기본값)인 셀프 어텐션 모듈이고, ``key_padding_mask``는 PyTorch 극성
    (``True`` = 무시)입니다. 비교 대상은 ``mha(x, x, x, key_padding_mask=..., need_weights=True,
    average_attn_weights=False)``입니다.

    Returns:
        ``CheckResult`` (알아챈 실수: no_scale, in_proj_order, kpm_polarity, softmax_axis, merge_order_seq,
        no_out_proj, batch_first).

    Shape:
        - x: ``(L, B, E)``, key_padding_mask: ``(B, S)`` (``S = L``)
        - 반환: output ``(L, B, E)``, weights ``(B, H, L, S)``
    """
    g = _gen(seed)
    cases = []
    for L, B, E, H, lengths, left in [(4, 2, 8, 2, None, False), (5, 3, 12, 3, [5, 2, 4], False),
                                      (3, 2, 16, 4, [3, 1], True)]:
        with torch.random.fork_rng(devices=[]):  # 학생 커널의 전역 난수 상태는 그대로
            torch.manual_seed(seed + E)
            mha = nn.MultiheadAttention(E, H)
        kpm = None if lengths is None else ~padding_mask(lengths, L)[:, 0, 0]
        kpm = kpm.flip(-1) if left and kpm is not None else kpm
        label = f"L={L}, B={B}, E={E}, H={H}" + (f", key_padding_mask({'왼쪽' if left else '오른쪽'} 패딩 {lengths})" if lengths else "")
        cases.append(_Case(label, (torch.randn(L, B, E, generator=g), mha), {"key_padding_mask": kpm}))

    def ref(x: Tensor, mha: nn.MultiheadAttention, key_padding_mask: Tensor | None = None) -> tuple[Tensor, Tensor]:
        return mha(x, x, x, key_padding_mask=key_padding_mask, need_weights=True, average_attn_weights=False)

    names = ["no_scale", "in_proj_order", "kpm_polarity", "softmax_axis", "merge_order_seq", "no_out_proj"]
    with torch.no_grad():
        result = _run("nn.MultiheadAttention 손으로", fn, ref, [(n, _torch_mha_variant(n)) for n in names], cases)
        if result.passed or result.mistake is not None:
            return result
        try:  # (B, L, E)로 본 잘못은 가중치 모양이 (L, H, B, B)로 나옴
            _, weights = fn(*cases[0].args, **cases[0].kwargs)
        except Exception:  # 오류는 이미 보고서에 있음
            return result
    L, B = cases[0].args[0].shape[:2]
    if isinstance(weights, Tensor) and tuple(weights.shape) == (L, cases[0].args[1].num_heads, B, B):
        return CheckResult(result.question, False, f"{cases[0].label}에서 틀렸습니다.\n힌트: {MISTAKES['batch_first']}",
                           "batch_first", result.cases)
    return result


def check_key_padding_mask(fn: Callable[..., Tensor], *, seed: int = 0) -> CheckResult:
    """``fn(lengths, S, side="right") -> (B, S)``: ``nn.MultiheadAttention``의 ``key_padding_mask``(True = 무시)를 채점합니다.

    ``side="left"``면 ``[PAD]``가 앞에 붙어 실제 토큰이 오른쪽 끝 ``lengths[b]``칸에 있습니다.

    Returns:
        ``CheckResult`` (알아챈 실수: kpm_polarity_build, kpm_shape, padding_side, mask_float).

    Shape:
        - lengths: 길이 ``B``, 반환: ``(B, S)`` bool, ``True`` = 패딩(무시)
    """
    def ref(lengths: list[int], S: int, side: str = "right") -> Tensor:
        pad = ~padding_mask(lengths, S)[:, 0, 0]  # (B, 1, 1, S) -> (B, S), True = 오른쪽 패딩 자리
        return pad.flip(-1) if side == "left" else pad

    variants = [("kpm_polarity_build", lambda n, S, side="right": ~ref(n, S, side)),
                ("kpm_shape", lambda n, S, side="right": ref(n, S, side)[:, None, None, :]),  # (B, S) -> (B, 1, 1, S)
                ("padding_side", lambda n, S, side="right": ref(n, S, "left" if side == "right" else "right")),
                ("mask_float", lambda n, S, side="right": ref(n, S, side).float())]
    settings = [([3, 1], 4, "right"), ([5, 2, 0], 5, "left"), ([2, 3], 4, "left"), ([4, 1], 6, "right")]
    if seed != 0:  # 시드로 뽑은 길이 (0과 S를 하나씩 넣음)
        rng = random.Random(seed)
        settings = []
        for side in ("right", "left", "left", "right"):
            S = rng.randint(2, 8)
            settings.append(([rng.randint(0, S) for _ in range(rng.randint(1, 3))] + [rng.choice([0, S])], S, side))
    cases = [_Case(f"lengths={n}, S={S}, side={side!r}", (n, S), {"side": side}) for n, S, side in settings]
    return _run("key_padding_mask", fn, ref, variants, cases)


def check_alibi_causal_mask(fn: Callable[[int, float], Tensor], *, seed: int = 0) -> CheckResult:
    """``fn(L, slope) -> (L, L)`` 덧셈 마스크를 채점합니다: ``j <= i``면 ``-slope * (i - j)``, ``j > i``면 ``-inf``.

    Returns:
        ``CheckResult`` (알아챈 실수: additive_no_block, bias_sign, finite_block, causal_direction, mask_bool_not_additive).

    Shape:
        - 반환: ``(L, L)`` float (행 = 쿼리 i, 열 = 키 j)
    """
    def distance(L: int) -> Tensor:
        pos = torch.arange(L)
        return (pos[:, None] - pos[None, :]).float()  # (L, 1) - (1, L) -> (L, L): i - j

    def ref(L: int, slope: float, fill: float = float("-inf"), sign: float = -1.0, future: bool = True) -> Tensor:
        d = distance(L)
        blocked = d < 0 if future else d > 0  # 미래(j > i) 또는 잘못된 방향
        return (sign * slope * d.abs()).masked_fill(blocked, fill)

    variants = [("additive_no_block", lambda L, s: -s * distance(L).abs()),
                ("bias_sign", lambda L, s: ref(L, s, sign=1.0)),
                ("finite_block", lambda L, s: ref(L, s, fill=-1e9)),
                ("finite_block", lambda L, s: ref(L, s, fill=-1e4)),
                ("finite_block", lambda L, s: ref(L, s, fill=torch.finfo(torch.float32).min)),
                ("causal_direction", lambda L, s: ref(L, s, future=False)),
                ("mask_bool_not_additive", lambda L, s: distance(L) >= 0)]
    settings = [(4, 1.0), (5, 0.5), (6, 0.25), (1, 2.0)]
    if seed != 0:
        rng = random.Random(seed)
        settings = [(rng.randint(2, 9), rng.choice([0.0625, 0.125, 0.25, 0.5, 1.0, 2.0])) for _ in range(4)]
    cases = [_Case(f"L={L}, slope={s}", (L, s)) for L, s in settings]
    return _run("alibi_causal_mask", fn, ref, variants, cases)


def check_saturation(fn: Callable[..., float], *, seed: int = 0) -> CheckResult:
    """``fn(d_k, scale, seed=0) -> 비율``을 ``reference_saturation``(약속된 실험)과 비교합니다.

    Returns:
        ``CheckResult`` (알아챈 실수: scale_ignored, softmax_axis, draw_order).

    Shape:
        - 반환: 파이썬 실수 (0~1)
    """
    variants = [("scale_ignored", lambda d, s, seed=0: reference_saturation(d, 1.0 / math.sqrt(d), seed)),
                ("scale_ignored", lambda d, s, seed=0: reference_saturation(d, 1.0, seed)),
                ("softmax_axis", lambda d, s, seed=0: _saturation_experiment(d, s, seed, dim=0)),
                ("draw_order", lambda d, s, seed=0: _saturation_experiment(d, s, seed, keys_first=True))]
    settings = [(64, 1.0, 0), (64, 0.125, 0), (256, 1 / 256, 1), (16, 2.0, 2), (256, 1.0, 3)]
    if seed != 0:
        rng = random.Random(seed)
        settings = []
        for _ in range(5):
            d = rng.choice([16, 32, 64, 128, 256])
            settings.append((d, rng.choice([1.0, d ** -0.5, 1 / d, 2.0]), rng.randint(0, 999)))
    cases = [_Case(f"d_k={d}, scale={s:g}, seed={sd}", (d, s), {"seed": sd}) for d, s, sd in settings]
    return _run("measure_saturation", fn, reference_saturation, variants, cases)
