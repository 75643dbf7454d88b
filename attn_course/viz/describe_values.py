"""그림 요약 (값): 포화 분포, 곡선, 정확도 표, 마스크를 한국어 글로 (대체 텍스트에 씀).

헤드의 어텐션 무늬 요약은 ``describe``에 있고, 이 모듈은 그 밖의 그림(포화 히스토그램과 격자, 측정 곡선,
헤드 수별 정확도, 마스크 격자)의 데이터를 요약합니다. 숫자는 ``describe.format_number``로 적습니다.

이 모듈은 numpy와 torch만 씁니다 (matplotlib 없음).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np
import torch
from torch import Tensor

from attn_lib._checks import check_float_tensor, describe
from attn_lib.metrics import attention_entropy, saturation
from .describe import _labels, format_number, plain_text

__all__ = ["describe_saturation", "describe_curves", "describe_accuracy", "describe_mask"]


def describe_saturation(weights: Tensor, threshold: float = 0.99) -> str:
    """가중치 분포 요약: 포화된 행의 비율, 평균 엔트로피, 0과 1 근처에 몰린 칸의 비율.

    Args:
        weights: 어텐션 가중치.
        threshold: 포화로 볼 행 최댓값 기준 (``metrics.saturation``과 같음).

    Returns:
        예: ``"포화 행 38% (행 120개 중 45개), 평균 엔트로피 0.52 nat (log S = 2.08의 25%), 0.05 미만 칸 71%, 0.95 이상 칸 11%"``.

    Shape:
        - weights: ``(..., L, S)``
    """
    check_float_tensor(weights, "weights", min_dim=2)
    w = weights.detach().to("cpu", torch.float64)
    rows = w.numel() // w.shape[-1]
    sat = float(saturation(w, threshold))
    ent = float(attention_entropy(w).mean())
    log_s = math.log(w.shape[-1]) if w.shape[-1] > 1 else 0.0
    share = f"log S = {log_s:.2f}의 {ent / log_s:.0%}" if log_s else "키 1개"
    low, high = float((w < 0.05).double().mean()), float((w >= 0.95).double().mean())
    return (f"포화 행 {sat:.0%} (행 {rows:,}개 중 {round(sat * rows):,}개), 평균 엔트로피 {ent:.2f} nat ({share}), "
            f"0.05 미만 칸 {low:.0%}, 0.95 이상 칸 {high:.0%}")


def _curve(x: np.ndarray, y: np.ndarray) -> str:
    """곡선 하나: 처음 값과 끝 값 (가로축 범위), 단조가 아니면 최댓값과 최솟값의 자리."""
    ok = np.isfinite(y)
    if not ok.any():
        return "값 없음"
    xs, ys = x[ok], y[ok]
    f = format_number
    text = f"처음 {f(ys[0])}, 끝 {f(ys[-1])} (가로축 {f(xs[0])}~{f(xs[-1])})"
    diffs = np.diff(ys)
    if len(ys) < 3 or (diffs >= 0).all() or (diffs <= 0).all():
        trend = "계속 증가" if ys[-1] > ys[0] else "계속 감소" if ys[-1] < ys[0] else "일정"
        return text + (f", {trend}" if len(ys) >= 3 else "")
    hi, lo = int(ys.argmax()), int(ys.argmin())
    return text + f", 최댓값 {f(ys[hi])} (가로축 {f(xs[hi])}), 최솟값 {f(ys[lo])} (가로축 {f(xs[lo])})"


def describe_curves(
    x: Sequence[float] | np.ndarray,
    series: Mapping[str, Sequence[float] | np.ndarray],
    reference: Mapping[str, Sequence[float] | np.ndarray | float] | None = None,
) -> str:
    """곡선마다 처음 값과 끝 값, 증가/감소, (오르내리면) 최댓값과 최솟값을 적습니다. 참고선도 적습니다.

    Args:
        x: 가로축 값.
        series: 이름 -> 값 (길이가 ``x``와 같음).
        reference: 이름 -> 참고선 값 (목록 또는 상수).

    Returns:
        예: ``"'헤드 하나' 처음 1, 끝 1 (가로축 0~1), 최댓값 1.41 (가로축 0.5), ...; 참고선 '헤드 둘' 1.41 (상수)"``.

    Shape:
        - x: ``(N,)``, series와 reference의 값: ``(N,)`` 또는 상수
    """
    xs = _numbers(x, "x")
    if xs.ndim != 1 or xs.size == 0:
        raise ValueError(f"x는 비어 있지 않은 1차원 목록이어야 하는데 모양이 {xs.shape}입니다.")
    if not isinstance(series, Mapping) or not series:
        raise ValueError(f"series는 비어 있지 않은 사전(이름 -> 값)이어야 하는데 {describe(series)}이(가) 들어왔습니다.")
    parts = []
    for kind, curves in (("", series), ("참고선 ", reference or {})):
        for name, values in curves.items():
            ys = _numbers(values, f"{kind or 'series'}[{name!r}]")
            if ys.ndim == 0:
                parts.append(f"{kind}'{plain_text(str(name))}' {format_number(ys)} (상수)")
                continue
            if ys.shape != xs.shape:
                raise ValueError(f"{kind or 'series'}[{name!r}]의 길이는 x와 같은 {xs.size}이어야 하는데 모양이 {ys.shape}입니다.")
            parts.append(f"{kind}'{plain_text(str(name))}' {_curve(xs, ys)}")
    return "; ".join(parts)


def _numbers(values: object, name: str) -> np.ndarray:
    if isinstance(values, Tensor):
        values = values.detach().to("cpu", torch.float64).numpy()
    try:
        return np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name}은(는) 수의 목록이어야 하는데 {describe(values)}이(가) 들어왔습니다.") from None


def describe_accuracy(table: Mapping[int, Sequence[float]], ceilings: Mapping[str, float] | None = None) -> str:
    """헤드 수마다 평균 정확도와 시드별 범위, 그리고 한계선 값을 적습니다.

    Args:
        table: 헤드 수 -> 시드별 정확도 (0~1).
        ceilings: 한계선 이름(그림에 적힌 이름) -> 값.

    Returns:
        예: ``"헤드 1개 평균 0.322 (시드 3개, 0.310~0.342); 헤드 2개 평균 0.987 (...); 한계선: 첫 토큰만 알 때 최대 0.333"``.

    Shape:
        - table: ``{H: (시드 수,)}``
    """
    if not isinstance(table, Mapping) or not table:
        raise ValueError(f"table은 비어 있지 않은 사전이어야 하는데 {describe(table)}이(가) 들어왔습니다.")
    parts = []
    for h, accs in sorted(table.items()):
        a = _numbers(accs, f"table[{h}]")
        if a.ndim != 1 or a.size == 0:
            raise ValueError(f"table[{h}]은(는) 비어 있지 않은 1차원 목록이어야 하는데 모양이 {a.shape}입니다.")
        parts.append(f"헤드 {h}개 평균 {a.mean():.3f} (시드 {a.size}개, {a.min():.3f}~{a.max():.3f})")
    text = "; ".join(parts)
    if ceilings:
        text += "; 한계선: " + ", ".join(f"{name} {float(v):.3f}" for name, v in ceilings.items())
    return text


def describe_mask(
    mask: Tensor, query_tokens: Sequence[str] | None = None, key_tokens: Sequence[str] | None = None
) -> str:
    """bool 마스크(``True`` = 참여 가능) 요약: 참여 가능한 칸 수, 인과 무늬, 통째로 막힌 키 열.

    Args:
        mask: bool 마스크 한 장. 쿼리 축이 1이면 모든 쿼리가 같은 줄을 씁니다(브로드캐스트).
        query_tokens: 쿼리 이름 (길이 ``L``).
        key_tokens: 키 이름 (길이 ``S``).

    Returns:
        예: ``"참여 가능 15칸 / 25칸 (60%); 대각선 위(미래의 키) 10칸 차단"``.

    Shape:
        - mask: ``(L, S)`` (``L``은 1일 수 있음)
    """
    if not isinstance(mask, Tensor) or mask.dtype != torch.bool:
        raise TypeError(f"mask는 bool 텐서여야 하는데 {describe(mask)}이(가) 들어왔습니다.")
    if mask.dim() != 2:
        raise ValueError(f"mask는 (L, S) 2차원이어야 하는데 shape={tuple(mask.shape)}입니다.")
    m = mask.cpu().numpy()
    L, S = m.shape
    _labels(query_tokens, L, "query_tokens")
    keys = _labels(key_tokens, S, "key_tokens")
    blocked = ~m
    parts = [f"참여 가능 {int(m.sum())}칸 / {m.size}칸 ({m.mean():.0%})"]
    columns = blocked.all(0)  # (L, S) -> (S,): 모든 쿼리에게 막힌 키
    upper = np.triu(np.ones((L, S), dtype=bool), 1)  # 대각선 위 (키 위치 > 쿼리 위치)
    rest = blocked & ~columns[None, :]  # (L, S) & (1, S) -> (L, S): 열 전체 차단을 뺀 나머지
    if L > 1 and rest.any() and np.array_equal(rest, upper & ~columns[None, :]):  # (L, S) & (1, S) -> (L, S)
        parts.append(f"대각선 위(미래의 키) {int(rest.sum())}칸 차단")
        rest = np.zeros_like(rest)
    if columns.any():
        idx = np.flatnonzero(columns).tolist()
        names = ", ".join(f"'{keys[k]}'" for k in idx) if keys else ", ".join(map(str, idx))
        parts.append(f"키 {len(idx)}개({names}) 열 전체 차단" + (" (모든 쿼리)" if L == 1 else ""))
    if rest.any():
        parts.append(f"그 밖의 차단 {int(rest.sum())}칸")
    return "; ".join(parts)
