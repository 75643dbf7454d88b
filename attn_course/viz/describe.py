"""그림 요약: 그림에 그린 데이터에서 한국어 설명을 만듭니다 (대체 텍스트와 글 요약에 씀).

그림을 볼 수 없는 독자(화면 낭독기)도, 그림을 본 독자도 같은 숫자를 읽도록, 요약은 언제나 데이터에서
계산합니다. 챕터에 숫자를 손으로 적지 않습니다. ``plots``와 ``mask_plots``의 그림 함수가 이 요약을 그림의 대체
텍스트(alt)로 붙이고, ``widgets.head_tabs``와 정적 탐색기는 같은 글을 그림 아래에 보여 줍니다.

헤드 요약(``describe_head``)은 쿼리(행)마다 가장 큰 가중치를 받은 키(argmax)를 보고, 가장 많은 쿼리가
따르는 무늬 하나를 고릅니다: 첫 토큰, 이전 토큰, 자기 자신, 다음 토큰, 고정된 키 하나, 반대각선,
몇 칸 앞/뒤. 행 엔트로피가 최댓값(``log k``, ``k``는 가중치가 0이 아닌 키 수)의 90% 이상인 쿼리가
절반을 넘으면 "고르게 퍼짐"입니다(가중치가 0이 아닌 키가 셋 이상인 행만). 두 번째로 큰 가중치가 가장 큰
가중치에 가까운 행(두 키에 거의 나눈 행)이 절반을 넘으면 두 키의 무늬를 함께 적습니다("두 키(첫 토큰,
이전 토큰)에 나눠 줌"). argmax는 가장 큰 값 하나만 보는 요약이므로, 무늬를 따르는 쿼리들의 평균 가중치를
함께 적습니다.

포화, 곡선, 정확도, 마스크 그림의 요약은 ``describe_values``에 있습니다.
이 모듈은 numpy와 torch만 씁니다 (matplotlib 없음).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import numpy as np
import torch
from torch import Tensor

from attn_lib._checks import check_float_tensor, describe

__all__ = [
    "UNIFORM_ENTROPY",
    "describe_head",
    "describe_heads",
    "format_number",
    "plain_text",
]

#: 행 엔트로피가 최댓값의 이 비율 이상이면 그 쿼리는 "고르게 퍼짐"
UNIFORM_ENTROPY = 0.9
#: 두 번째로 큰 가중치가 가장 큰 가중치의 이 비율 이상이고 둘의 합이 ``SPLIT_MASS`` 이상이면 "두 키에 나눔"
SPLIT_RATIO = 0.75
SPLIT_MASS = 0.7
_ROW_SUM_TOL = 1e-3  # 행 합이 1에서 이만큼까지 벗어나도 됨 (float16 등의 반올림)


def format_number(value: float) -> str:
    """요약에 적는 수: 유효숫자 3자리, 큰 수는 쉼표, 아주 작은 수는 지수 표기.

    Shape:
        - 해당 없음 (수 -> 글)
    """
    v = float(value)
    if not math.isfinite(v):
        return "없음" if math.isnan(v) else ("무한대" if v > 0 else "음의 무한대")
    if v == 0:
        return "0"
    if abs(v) >= 1000:
        return f"{v:,.0f}"
    if abs(v) < 1e-3:
        return f"{v:.2e}"
    return f"{v:.3g}"


_TEX = [(r"\sqrt", "√"), (r"\to", "→"), (r"\infty", "∞"), (r"\log", "log"), (r"\cdot", "·"), (r"\times", "×")]


def plain_text(text: str) -> str:
    """그림 제목과 축 이름의 수식 표기(``$d_k$``, ``\\sqrt{d_k}``)를 소리 내어 읽기 쉬운 글로 바꿉니다.

    Shape:
        - 해당 없음 (글 -> 글)
    """
    if not isinstance(text, str):
        raise TypeError(f"text는 str이어야 하는데 {describe(text)}이(가) 들어왔습니다.")
    for tex, plain in _TEX:
        text = text.replace(tex, plain)
    text = re.sub(r"[${}\\]", "", text)
    return re.sub(r"\s+", " ", text).strip()


def _as_tensor(x: object, name: str, dims: tuple[int, ...]) -> Tensor:
    """텐서나 numpy 배열을 float64 텐서로 바꾸고 차원 수를 확인합니다."""
    if isinstance(x, np.ndarray) and np.issubdtype(x.dtype, np.floating):
        x = torch.from_numpy(np.ascontiguousarray(x))
    check_float_tensor(x, name, min_dim=min(dims))
    if x.dim() not in dims:
        raise ValueError(f"{name}은(는) {' 또는 '.join(f'{d}차원' for d in dims)}이어야 하는데 "
                         f"shape={tuple(x.shape)}({x.dim()}차원)이(가) 들어왔습니다.")
    return x.detach().to("cpu", torch.float64)


def _check_rows(w: np.ndarray, name: str) -> tuple[np.ndarray, np.ndarray]:
    """가중치 검사: 0~1, 행 합 1 (모두 가려진 행은 0, 값이 없는 행은 전부 NaN). (유효한 행, 빈 행) 표시를 돌려줍니다."""
    nan = np.isnan(w)
    partial = nan.any(-1) & ~nan.all(-1)
    if partial.any():
        raise ValueError(f"{name}의 쿼리 행 {np.flatnonzero(partial).tolist()}에 NaN이 섞여 있습니다. "
                         "값이 없는 행은 통째로 NaN이어야 합니다.")
    values = w[~nan]
    if np.isinf(values).any() or (values < -1e-6).any() or (values > 1 + 1e-6).any():
        raise ValueError(f"{name}은(는) 0~1 사이의 어텐션 가중치여야 하는데 최솟값 {values.min():.3g}, "
                         f"최댓값 {values.max():.3g}이(가) 들어왔습니다. 소프트맥스 전의 점수를 넣지 않았는지 확인하세요.")
    empty = nan.all(-1)
    sums = np.where(empty, 0.0, np.nan_to_num(w).sum(-1))  # (..., L, S) -> (..., L)
    masked = ~empty & (sums == 0)  # 모든 키가 가려진 행
    bad = ~empty & ~masked & (np.abs(sums - 1) > _ROW_SUM_TOL)
    if bad.any():
        first = tuple(int(i) for i in np.argwhere(bad)[0])
        raise ValueError(f"{name}의 행마다 합이 1이어야 하는데 행 {first}의 합이 {sums[first]:.4f}입니다. "
                         "소프트맥스를 키 축(dim=-1)으로 취한 어텐션 가중치를 넣으세요.")
    return ~empty & ~masked, empty | masked


def _labels(tokens: Sequence[str] | None, n: int, name: str) -> list[str] | None:
    if tokens is None:
        return None
    if isinstance(tokens, str) or not isinstance(tokens, Sequence):
        raise TypeError(f"{name}은(는) 문자열 목록이어야 하는데 {describe(tokens)}이(가) 들어왔습니다.")
    if len(tokens) != n:
        raise ValueError(f"{name}의 개수는 {n}이어야 하는데 {len(tokens)}개가 들어왔습니다.")
    return [str(t) for t in tokens]


def _pattern_counts(j: np.ndarray, i: np.ndarray, S: int) -> list[tuple[str, int, int]]:
    """무늬마다 (이름, 따르는 쿼리 수, 매개변수). 목록 순서가 동점일 때의 우선순위입니다."""
    out = [("first", int((j == 0).sum()), 0), ("previous", int((j == i - 1).sum()), -1),
           ("self", int((j == i).sum()), 0), ("next", int((j == i + 1).sum()), 1)]
    keys, counts = np.unique(j, return_counts=True)
    fixed = [(int(c), int(k)) for k, c in zip(keys, counts) if k != 0]
    if fixed:
        c, k = max(fixed)
        out.append(("fixed", c, k))
    if len(i) > 2:
        sums, counts = np.unique(i + j, return_counts=True)
        out.append(("anti", int(counts.max()), int(sums[counts.argmax()])))
    offsets, counts = np.unique(j - i, return_counts=True)
    far = [(int(c), int(d)) for d, c in zip(offsets, counts) if abs(d) >= 2]
    if far:
        c, d = max(far)
        out.append(("offset", c, d))
    return out


def _follows(kind: str, param: int, j: np.ndarray, i: np.ndarray) -> np.ndarray:
    """쿼리 ``i``의 키 ``j``가 무늬 ``(kind, param)``을 따르는지 (행마다 bool)."""
    return {"first": j == 0, "previous": j == i - 1, "self": j == i, "next": j == i + 1,
            "fixed": j == param, "anti": i + j == param, "offset": j - i == param}[kind]


def _best(j: np.ndarray, i: np.ndarray, S: int, skip: tuple[str, int] | None = None) -> tuple[str, int, int]:
    """가장 많은 쿼리가 따르는 무늬 ``(이름, 쿼리 수, 매개변수)`` (동점이면 목록의 앞쪽, ``skip``은 뺌)."""
    found = [p for p in _pattern_counts(j, i, S) if skip is None or (p[0], p[2]) != skip]
    return max(found, key=lambda p: p[1])


def _split(w: np.ndarray, rows: np.ndarray, j: np.ndarray, top: np.ndarray, split: np.ndarray,
           keys: list[str] | None, self_attention: bool) -> tuple[int, str] | None:
    """두 키에 나눈 행들의 두 무늬: ``(따르는 쿼리 수, 글)`` 또는 ``None``."""
    S = w.shape[1]
    second = np.argsort(-w, axis=-1, kind="stable")[:, 1]  # (n, S) -> (n,): 두 번째로 큰 가중치의 키
    r, a, b = rows[split], j[split], second[split]
    kind_a, _, param_a = _best(np.concatenate([a, b]), np.concatenate([r, r]), S)
    on_a = np.where(_follows(kind_a, param_a, a, r), a, b)  # 무늬 A를 따르는 쪽의 키
    other = np.where(on_a == a, b, a)
    kind_b, _, param_b = _best(other, r, S, skip=(kind_a, param_a))
    both = (_follows(kind_a, param_a, on_a, r) & _follows(kind_b, param_b, other, r))
    if not both.any():
        return None
    picked = w[split][both]
    idx = np.arange(picked.shape[0])
    wa, wb = picked[idx, on_a[both]].mean(), picked[idx, other[both]].mean()
    targets = (_target(kind_a, param_a, keys, self_attention), _target(kind_b, param_b, keys, self_attention))
    return int(both.sum()), f"두 키({targets[0]}, {targets[1]})에 나눠 줌 (평균 가중치 {wa:.2f}, {wb:.2f})"


def _target(kind: str, param: int, keys: list[str] | None, self_attention: bool) -> str:
    """무늬가 가리키는 키의 이름. 쿼리와 키가 같은 문장이면 토큰으로, 아니면 위치로 말합니다."""
    if kind == "first":
        return ("첫 토큰" if self_attention else "첫 키") + (f"('{keys[0]}')" if keys else "")
    if kind == "fixed":
        return f"키 '{keys[param]}'(위치 {param})" if keys else f"위치 {param}의 키"
    if kind == "anti":
        return "반대각선(뒤쪽 쿼리일수록 앞쪽 키)"
    if kind == "offset":
        where = f"{abs(param)}칸 {'앞' if param < 0 else '뒤'}"
        return f"{where} 토큰" if self_attention else f"{where} 위치의 키"
    names = {"previous": ("이전 토큰", "한 칸 앞 위치의 키"), "self": ("자기 자신", "같은 위치의 키"),
             "next": ("다음 토큰", "한 칸 뒤 위치의 키")}[kind]
    return names[0] if self_attention else names[1]


def describe_head(
    weights: Tensor | np.ndarray,
    query_tokens: Sequence[str] | None = None,
    key_tokens: Sequence[str] | None = None,
) -> str:
    """헤드 하나의 어텐션 가중치에서 주된 무늬를 찾아 한 줄로 요약합니다.

    예: ``"대부분의 쿼리(8개 중 7개)가 이전 토큰에 집중 (평균 가중치 0.91)"``,
    ``"고르게 퍼짐: 쿼리 5개 중 5개의 엔트로피가 최댓값의 90% 이상 (가장 큰 가중치 평균 0.27)"``.
    모든 키가 가려진 행(전부 0)과 값이 없는 행(전부 NaN)은 세지 않습니다. 쿼리와 키가 같은 문장이면
    (토큰 이름이 같거나, 둘 다 생략했고 ``L == S``) "자기 자신", "이전 토큰"처럼, 아니면 "같은 위치의 키"처럼 적습니다.

    Args:
        weights: 헤드 하나의 가중치 (행마다 합이 1, 값은 0~1).
        query_tokens: 쿼리(행) 이름, 길이 ``L``.
        key_tokens: 키(열) 이름, 길이 ``S``. 주면 "첫 토큰('나는')"처럼 토큰을 적습니다.

    Returns:
        한국어 요약 한 줄.

    Raises:
        TypeError: 실수 텐서/배열이 아닐 때.
        ValueError: 2차원이 아니거나, 값이 0~1 밖이거나, 행 합이 1이 아닐 때 (점수를 넣은 경우 등).

    Shape:
        - weights: ``(L, S)``
    """
    w = _as_tensor(weights, "weights", (2,)).numpy()
    L, S = w.shape
    queries = _labels(query_tokens, L, "query_tokens")
    keys = _labels(key_tokens, S, "key_tokens")
    valid, skipped = _check_rows(w, "weights")
    return _describe_checked(w, valid, skipped, queries, keys)


def _describe_checked(w: np.ndarray, valid: np.ndarray, skipped: np.ndarray, queries: list[str] | None,
                      keys: list[str] | None) -> str:
    """검사를 마친 ``(L, S)`` 가중치의 요약 (``describe_head``의 본체; ``describe_heads``는 검사를 한 번만 함)."""
    L, S = w.shape
    self_attention = queries == keys if queries is not None and keys is not None else (
        queries is None and keys is None and L == S)
    rows = np.flatnonzero(valid)
    note = f", 빈 행 {int(skipped.sum())}개 제외" if skipped.any() else ""
    if rows.size == 0:
        return f"값이 있는 쿼리 행이 없음 (쿼리 {L}개 모두 가려지거나 비어 있음)"
    n = rows.size
    w = w[rows]
    j = w.argmax(-1)  # (n, S) -> (n,): 쿼리마다 가장 큰 가중치를 받은 키
    top = w[np.arange(n), j]  # (n,)
    support = (w > 0).sum(-1)
    entropy = -(w * np.log(np.where(w > 0, w, 1.0))).sum(-1)  # (n, S) -> (n,), 0 log 0 = 0 (attention_entropy와 같음)
    # 키가 셋 이상일 때만 "고르게": 두 키에 반씩이면 고른 것이 아니라 "두 키에 나눔"으로 봅니다
    ratio = np.where(support > 2, entropy / np.log(np.maximum(support, 2)), 0.0)
    uniform = ratio >= UNIFORM_ENTROPY
    if 2 * uniform.sum() > n:
        return (f"고르게 퍼짐: 쿼리 {n}개 중 {int(uniform.sum())}개의 엔트로피가 최댓값의 {UNIFORM_ENTROPY:.0%} 이상 "
                f"(가장 큰 가중치 평균 {top.mean():.2f}){note}")
    second = np.sort(w, axis=-1)[:, -2] if S > 1 else np.zeros(n)  # (n, S) -> (n,)
    split = ~uniform & (second >= SPLIT_RATIO * top) & (top + second >= SPLIT_MASS)
    if 2 * split.sum() > n:  # argmax 하나로는 거짓말이 되는 헤드 (예: 두 키에 반반)
        found = _split(w, rows, j, top, split, keys, self_attention)
        if found is not None and 2 * found[0] > n:
            return f"{_who(found[0], n)} {found[1]}{note}"
    kind, count, param = _best(j, rows, S)
    target = _target(kind, param, keys, self_attention)
    mean = top[_follows(kind, param, j, rows)].mean()
    if 2 * count <= n:
        return (f"뚜렷한 무늬 없음: 가장 흔한 것은 {target} ({n}개 중 {count}개), "
                f"가장 큰 가중치 평균 {top.mean():.2f}{note}")
    verb = "집중" if mean >= 0.5 else "가장 큰 가중치를 줌"
    return f"{_who(count, n)} {target}에 {verb} (평균 가중치 {mean:.2f}){note}"


def _who(count: int, n: int) -> str:
    """따르는 쿼리 수: 모두, 대부분(3/4 이상), 또는 그냥 개수."""
    if count == n:
        return f"모든 쿼리({n}개)가"
    return f"대부분의 쿼리({n}개 중 {count}개)가" if 4 * count >= 3 * n else f"쿼리 {n}개 중 {count}개가"


def describe_heads(
    weights: Tensor | np.ndarray,
    query_tokens: Sequence[str] | None = None,
    key_tokens: Sequence[str] | None = None,
    *,
    head_names: Sequence[str] | None = None,
) -> list[str]:
    """헤드마다 ``describe_head`` 한 줄: ``"헤드 2: 대부분의 쿼리(8개 중 7개)가 이전 토큰에 집중 (...)"``.

    Args:
        weights: 한 문장의 헤드별 가중치. 2차원이면 헤드 하나로 봅니다.
        query_tokens: 쿼리 이름, 길이 ``L``.
        key_tokens: 키 이름, 길이 ``S``.
        head_names: 헤드 이름 (기본 "헤드 0", "헤드 1", ...).

    Returns:
        헤드마다 한 줄인 목록.

    Shape:
        - weights: ``(H, L, S)`` 또는 ``(L, S)``
        - 반환: 길이 ``H``
    """
    w = _as_tensor(weights, "weights", (2, 3)).numpy()
    if w.ndim == 2:
        w = w[None]  # (L, S) -> (1, L, S)
    H, L, S = w.shape
    names = [f"헤드 {h}" for h in range(H)] if head_names is None else _labels(head_names, H, "head_names")
    queries = _labels(query_tokens, L, "query_tokens")
    keys = _labels(key_tokens, S, "key_tokens")
    valid, skipped = _check_rows(w, "weights")  # (H, L), (H, L)
    # 이름에 이미 쌍점이 있으면("헤드 A: 첫 토큰") 줄표로 이어 읽기 쉽게
    return [f"{name}{' — ' if ':' in name else ': '}{_describe_checked(w[h], valid[h], skipped[h], queries, keys)}"
            for h, name in enumerate(names)]
