"""채점 과제의 공개 채점기, 5~7장: 헤드 끄기, 크로스 어텐션의 키·밸류 재사용, 그룹 쿼리 어텐션, KV 캐시 한 단계.

모듈을 받는 문제들이라, 채점기는 경우마다 같은 시드로 새 모듈을 만들고(학생 커널의 전역 난수 상태는 건드리지
않음) 책의 ``MultiHeadAttention`` 전체 계산과 비교합니다. 1~4장은 ``checkers.py``에 있습니다.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import torch
from torch import Tensor

from attn_lib.attention import MultiHeadAttention, repeat_kv, scaled_dot_product_attention
from attn_lib.masks import causal_mask, padding_mask
from attn_course.practice.engine import CheckResult, _Case, _gen, _run
from attn_course.practice.hints import MISTAKES
from attn_course.practice.references import _naive

__all__ = ["check_ablate_head", "check_cross_kv", "check_gqa_attention", "check_cached_step"]


def _module(E: int, H: int, seed: int, num_kv_heads: int | None = None) -> MultiHeadAttention:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seed)
        return MultiHeadAttention(E, H, num_kv_heads=num_kv_heads).eval()


def _without_kv(mha: MultiHeadAttention) -> MultiHeadAttention:
    """``W_k``, ``W_v``가 NaN을 내는 사본: 단계 함수가 두 투영을 다시 부르면 출력에 NaN이 남습니다.

    (호출을 엿보는 hook 대신 값으로 드러나게 해서, 채점 프로세스가 기록된 출력만으로 같은 판정을 내립니다.)
    """
    poisoned = copy.deepcopy(mha)
    for lin in (poisoned.W_k, poisoned.W_v):
        lin.weight.fill_(float("nan"))
    return poisoned


def _heads(mha: MultiHeadAttention, h: int) -> slice:
    return slice(h * mha.head_dim, (h + 1) * mha.head_dim)


def check_ablate_head(fn: Callable[[MultiHeadAttention, int], Any], *, seed: int = 0) -> CheckResult:
    """``fn(mha, h) -> 새 모듈``: 헤드 ``h``의 밸류 투영을 0으로 만들어 헤드를 끈 **사본**을 채점합니다.

    돌려준 모듈의 출력이 ``W_o``에서 헤드 ``h``의 열을 0으로 만든 것과 같아야 하고, 넘겨받은 모듈은 그대로여야 합니다.

    Returns:
        ``CheckResult`` (알아챈 실수: ablate_in_place, ablate_columns, ablate_bias, ablate_wrong_head).

    Shape:
        - x: ``(B, L, E)``, 돌려준 모듈의 출력: ``(B, L, E)``
    """
    g = _gen(seed)
    specs = [(8, 2, 0), (12, 3, 2), (16, 4, 1)]
    if seed != 0:  # 시드로 고른 헤드
        specs = [(E, H, int(torch.randint(H, (1,), generator=g))) for E, H in ((8, 2), (12, 3), (24, 6))]
    cases = [_Case(f"E={E}, H={H}, h={h}", (E, H, h, torch.randn(2, 5, E, generator=g))) for E, H, h in specs]
    with torch.no_grad():
        for case in cases:  # 먼저 제자리에서 바꾸는지, W_v 밖의 투영을 고쳤는지 봅니다
            E, H, h, _ = case.args
            mha = _module(E, H, seed + E)
            before = {k: v.clone() for k, v in mha.state_dict().items()}
            try:
                result = fn(mha, h)
            except Exception:  # 오류는 아래 _run이 보고합니다
                break
            if any(not torch.equal(before[k], v) for k, v in mha.state_dict().items()):
                return CheckResult("ablate_head", False, f"{case.label}에서 틀렸습니다.\n힌트: {MISTAKES['ablate_in_place']}",
                                   "ablate_in_place", len(cases))
            state = result.state_dict() if isinstance(result, torch.nn.Module) else {}
            if any(k in state and (state[k].shape != before[k].shape or not torch.equal(state[k], before[k]))
                   for k in before if not k.startswith("W_v.")):
                return CheckResult("ablate_head", False, f"{case.label}에서 틀렸습니다.\n힌트: {MISTAKES['ablate_output_proj']}",
                                   "ablate_output_proj", len(cases))

        def output_of(change: Callable[[MultiHeadAttention, int], Any]) -> Callable[..., Tensor | None]:
            def run(E: int, H: int, h: int, x: Tensor) -> Tensor | None:
                result = change(_module(E, H, seed + E), h)
                return None if result is None else result(x)[0]
            return run

        def zero(rows: bool = True, bias: bool = True, shift: int = 0) -> Callable[[MultiHeadAttention, int], Any]:
            def change(mha: MultiHeadAttention, h: int) -> MultiHeadAttention:
                new, s = copy.deepcopy(mha), _heads(mha, (h + shift) % mha.num_heads)
                if rows:
                    new.W_v.weight[s] = 0.0
                else:
                    new.W_v.weight[:, s] = 0.0  # 입력 쪽 열: 잘못된 축
                if bias:
                    new.W_v.bias[s] = 0.0
                return new
            return change

        def ref(mha: MultiHeadAttention, h: int) -> MultiHeadAttention:
            new = copy.deepcopy(mha)
            new.W_o.weight[:, _heads(mha, h)] = 0.0  # 다른 길: 출력 투영이 헤드 h의 칸을 읽지 않음
            return new

        variants = [("ablate_columns", output_of(zero(rows=False))), ("ablate_bias", output_of(zero(bias=False))),
                    ("ablate_wrong_head", output_of(zero(shift=1)))]
        return _run("ablate_head", output_of(fn) if callable(fn) else fn, output_of(ref), variants, cases)


def check_cross_kv(precompute_fn: Callable[..., Any], step_fn: Callable[..., Any], *, seed: int = 0) -> CheckResult:
    """크로스 어텐션의 키·밸류를 한 번만 계산해 다시 쓰는 두 함수를 채점합니다.

    ``precompute_fn(mha, encoder_out) -> (K, V)``는 헤드로 나눈 키·밸류를, ``step_fn(mha, y, K, V, src_mask) ->
    (output, weights)``는 디코더 쪽 입력 ``y``의 크로스 어텐션을 계산합니다. 결과는 ``mha(y, encoder_out,
    encoder_out, attn_mask=src_mask)``와 같아야 하고, ``step_fn``은 ``W_k``, ``W_v``를 부르면 안 됩니다.

    Returns:
        ``CheckResult`` (알아챈 실수: cross_kv_layout, cross_recompute, cross_no_mask, cross_causal, mask_inverted,
        no_W_o).

    Shape:
        - encoder_out ``(B, S, E)``, K·V ``(B, H, S, Dh)``, y ``(B, L, E)``, src_mask ``(B, 1, 1, S)``
        - 반환 output ``(B, L, E)``, weights ``(B, H, L, S)``
    """
    g = _gen(seed)
    cases = []
    for B, L, S, E, H, n in [(2, 1, 5, 8, 2, [5, 3]), (3, 4, 6, 12, 3, [6, 1, 4]), (1, 2, 3, 16, 4, [3])]:
        mha, enc = _module(E, H, seed + E), torch.randn(B, S, E, generator=g)
        cases.append(_Case(f"B={B}, L={L}, S={S}, E={E}, H={H}, 소스 길이 {n}",
                           (mha, torch.randn(B, L, E, generator=g), enc, padding_mask(n, S))))
    if not callable(precompute_fn) or not callable(step_fn):
        return _run("cross_kv", precompute_fn if not callable(precompute_fn) else step_fn, lambda *a: None, [], cases)

    def kv(mha: MultiHeadAttention, enc: Tensor) -> tuple[Tensor, Tensor]:
        return mha.split_heads(mha.W_k(enc)), mha.split_heads(mha.W_v(enc))  # 각각 (B, S, E) -> (B, H, S, Dh)

    with torch.no_grad():
        result = _run("precompute_cross_kv", lambda mha, y, enc, m: precompute_fn(mha, enc),
                      lambda mha, y, enc, m: kv(mha, enc), [], cases)
        if not result.passed:
            layout = "모양" in result.message or "Tensor" in result.message
            return CheckResult(result.question, False, result.message + (f"\n힌트: {MISTAKES['cross_kv_layout']}" if layout else ""),
                               "cross_kv_layout" if layout else result.mistake, result.cases)
        for case in cases:  # 단계에서는 W_k, W_v를 부르지 않아야 합니다: 두 투영이 NaN을 내는 사본을 넘겨 봅니다
            mha, y, enc, m = case.args
            K, V = kv(mha, enc)
            try:
                out = step_fn(_without_kv(mha), y, K, V, m)
            except Exception:  # 오류는 아래 _run이 보고합니다
                continue
            if isinstance(out, (tuple, list)) and out and isinstance(out[0], Tensor) and torch.isnan(out[0]).any():
                return CheckResult("cross_step", False, f"{case.label}에서 틀렸습니다.\n힌트: {MISTAKES['cross_recompute']}",
                                   "cross_recompute", len(cases))

        def step(mask_of: Callable[[Tensor, int, int], Tensor | None], out_proj: bool = True) -> Callable[..., Any]:
            def run(mha: MultiHeadAttention, y: Tensor, enc: Tensor, m: Tensor) -> tuple[Tensor, Tensor]:
                K, V = kv(mha, enc)
                q = mha.split_heads(mha.W_q(y))  # (B, L, E) -> (B, H, L, Dh)
                heads, w = scaled_dot_product_attention(q, K, V, mask_of(m, y.shape[1], enc.shape[1]))
                merged = mha.merge_heads(heads)  # (B, H, L, Dh) -> (B, L, E)
                return (mha.W_o(merged) if out_proj else merged), w
            return run

        variants = [("cross_no_mask", step(lambda m, L, S: None)),
                    ("cross_causal", step(lambda m, L, S: m & causal_mask(L, S))),
                    ("mask_inverted", step(lambda m, L, S: ~m)),
                    ("no_W_o", step(lambda m, L, S: m, out_proj=False))]
        return _run("cross_step", lambda mha, y, enc, m: step_fn(mha, y, *kv(mha, enc), m),
                    lambda mha, y, enc, m: mha(y, enc, enc, attn_mask=m), variants, cases)


def check_gqa_attention(fn: Callable[..., Any], *, seed: int = 0) -> CheckResult:
    """그룹 쿼리 어텐션 ``fn(query, key, value, attn_mask=None) -> (output, weights)``를 채점합니다.

    키·밸류 헤드 ``Hkv``개를 쿼리 헤드 ``H``개가 나눠 씁니다: 쿼리 헤드 ``h``는 키·밸류 헤드 ``h // (H / Hkv)``.
    bool 마스크는 ``True`` = 참여 가능입니다 (경우마다 행에 볼 수 있는 키가 하나 이상 있음).

    Returns:
        ``CheckResult`` (알아챈 실수: gqa_group_order, no_scale, mask_inverted, softmax_axis).

    Shape:
        - query ``(B, H, L, Dh)``, key ``(B, Hkv, S, Dh)``, value ``(B, Hkv, S, Dv)``, attn_mask ``(..., L, S)``로 브로드캐스트
        - 반환 output ``(B, H, L, Dv)``, weights ``(B, H, L, S)``
    """
    g = _gen(seed)
    cases = []
    for B, H, Hkv, L, S, mask in [(2, 4, 2, 3, 5, None), (1, 6, 1, 4, 4, causal_mask(4)),
                                  (2, 4, 4, 2, 6, padding_mask([6, 3], 6)), (3, 8, 2, 5, 5, "random")]:
        if isinstance(mask, str):  # "random" (텐서와 == 로 비교하지 않음: 학생이 바꾼 __eq__ 에 흔들리지 않게)
            mask = torch.rand(L, S, generator=g) > 0.4
            mask[:, 0] = True  # 행마다 한 칸은 열어 둠
        q, k, v = (torch.randn(B, h, n, 8, generator=g) for h, n in ((H, L), (Hkv, S), (Hkv, S)))
        cases.append(_Case(f"B={B}, H={H}, Hkv={Hkv}, L={L}, S={S}" + ("" if mask is None else f", 마스크 {tuple(mask.shape)}"),
                           (q, k, v, mask)))

    def grouped(k: Tensor, q: Tensor, interleave: bool = True) -> Tensor:
        G = q.shape[1] // k.shape[1]
        return repeat_kv(k, G) if interleave else k.repeat(1, G, 1, 1)  # (B, Hkv, S, D) -> (B, H, S, D)

    def ref(q: Tensor, k: Tensor, v: Tensor, m: Tensor | None = None) -> tuple[Tensor, Tensor]:
        return scaled_dot_product_attention(q, k, v, m, enable_gqa=True)

    variants = [("gqa_group_order", lambda q, k, v, m=None: scaled_dot_product_attention(
                    q, grouped(k, q, False), grouped(v, q, False), m)),
                ("no_scale", lambda q, k, v, m=None: scaled_dot_product_attention(q, k, v, m, scale=1.0, enable_gqa=True)),
                ("mask_inverted", lambda q, k, v, m=None: ref(q, k, v, None if m is None else ~m)),
                ("mask_inverted", lambda q, k, v, m=None: _naive(q, grouped(k, q), grouped(v, q), m, invert=True)),
                ("softmax_axis", lambda q, k, v, m=None: _naive(q, grouped(k, q), grouped(v, q), m, dim=-2))]
    return _run("gqa_attention", fn, ref, variants, cases)


def check_cached_step(fn: Callable[..., Any], *, seed: int = 0) -> CheckResult:
    """KV 캐시 한 단계 ``fn(mha, x_new, past_k, past_v) -> (output, k_all, v_all)``를 채점합니다.

    새 토큰 하나의 출력이 시퀀스 전체를 인과 마스크로 한 번에 계산한 마지막 위치와 같고, 캐시는 새 키·밸류를
    길이 축 끝에 붙인 것이어야 합니다. 키·밸류 헤드가 쿼리 헤드보다 적은 모듈(그룹 쿼리 어텐션)도 있습니다.

    Returns:
        ``CheckResult`` (알아챈 실수: cache_forgot_new, cache_order, cache_topleft_mask).

    Shape:
        - x_new ``(B, 1, E)``, past_k·past_v ``(B, Hkv, S, Dh)`` (``S`` = 지난 토큰 수)
        - 반환 output ``(B, 1, E)``, k_all·v_all ``(B, Hkv, S + 1, Dh)``
    """
    g = _gen(seed)
    cases = []
    for B, T, E, H, Hkv in [(2, 5, 8, 2, 2), (1, 3, 12, 4, 2), (3, 7, 16, 4, 1), (2, 1, 8, 2, 2)]:
        mha, x = _module(E, H, seed + E + Hkv, Hkv), torch.randn(B, T, E, generator=g)
        k_all, v_all = (mha.split_heads(W(x)) for W in (mha.W_k, mha.W_v))  # 각각 (B, T, E) -> (B, Hkv, T, Dh)
        cases.append(_Case(f"B={B}, 지난 토큰 {T - 1}개, E={E}, H={H}, Hkv={Hkv}",
                           (mha, x[:, -1:], k_all[..., :-1, :], v_all[..., :-1, :]), {"_x": x}))

    def attend(mha: MultiHeadAttention, x_new: Tensor, k: Tensor, v: Tensor, mask: Tensor | None = None) -> Tensor:
        q = mha.split_heads(mha.W_q(x_new))  # (B, 1, E) -> (B, H, 1, Dh)
        heads, _ = scaled_dot_product_attention(q, k, v, mask, enable_gqa=mha.num_kv_heads != mha.num_heads)
        return mha.W_o(mha.merge_heads(heads))  # (B, H, 1, Dh) -> (B, 1, E) -> (B, 1, E)

    def new_kv(mha: MultiHeadAttention, x_new: Tensor) -> tuple[Tensor, Tensor]:
        return mha.split_heads(mha.W_k(x_new)), mha.split_heads(mha.W_v(x_new))  # (B, 1, E) -> (B, Hkv, 1, Dh)

    def ref(mha: MultiHeadAttention, x_new: Tensor, pk: Tensor, pv: Tensor, _x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        full, _ = mha(_x, attn_mask=causal_mask(_x.shape[1]))  # (B, T, E): 시퀀스 전체를 한 번에
        k_all, v_all = (mha.split_heads(W(_x)) for W in (mha.W_k, mha.W_v))  # 각각 (B, Hkv, T, Dh)
        return full[:, -1:], k_all, v_all

    def forgot(mha: MultiHeadAttention, x_new: Tensor, pk: Tensor, pv: Tensor, _x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        kn, vn = new_kv(mha, x_new)
        k_all, v_all = torch.cat([pk, kn], dim=-2), torch.cat([pv, vn], dim=-2)  # (B, Hkv, S+1, Dh)
        return attend(mha, x_new, pk, pv), k_all, v_all

    def prepended(mha: MultiHeadAttention, x_new: Tensor, pk: Tensor, pv: Tensor, _x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        kn, vn = new_kv(mha, x_new)
        k_all, v_all = torch.cat([kn, pk], dim=-2), torch.cat([vn, pv], dim=-2)  # 앞에 붙인 잘못: (B, Hkv, S+1, Dh)
        return attend(mha, x_new, k_all, v_all), k_all, v_all

    def topleft(mha: MultiHeadAttention, x_new: Tensor, pk: Tensor, pv: Tensor, _x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        _, k_all, v_all = ref(mha, x_new, pk, pv, _x)
        return attend(mha, x_new, k_all, v_all, causal_mask(1, k_all.shape[-2])), k_all, v_all

    def student(mha: MultiHeadAttention, x_new: Tensor, pk: Tensor, pv: Tensor, _x: Tensor) -> Any:
        return fn(mha, x_new, pk, pv)

    variants = [("cache_forgot_new", forgot), ("cache_forgot_new", lambda *a, **kw: (forgot(*a, **kw)[0], a[2], a[3])),
                ("cache_order", prepended), ("cache_topleft_mask", topleft)]
    with torch.no_grad():
        return _run("cached_step", student if callable(fn) else fn, ref, variants, cases)
