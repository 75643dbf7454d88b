"""어텐션 마스크 만들기와 극성 변환.

이 책의 bool 마스크는 모두 ``True`` = 참여 가능(그 키를 볼 수 있음)입니다.
``F.scaled_dot_product_attention``과 같은 극성이고, ``nn.MultiheadAttention``은 반대
(``True`` = 차단)입니다. 손으로 ``~mask``를 쓰지 말고 이 모듈의 변환 함수를 쓰세요.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import reduce
from typing import Sequence

import torch
from torch import Tensor

from ._checks import check_nonnegative_int, check_positive_int, describe

__all__ = [
    "causal_mask",
    "padding_mask",
    "combine_masks",
    "to_torch_mha_mask",
    "to_torch_key_padding_mask",
    "future_leak",
    "sliding_window_mask",
    "position_mask",
]


def causal_mask(L: int, S: int | None = None, *, device: torch.device | str | None = None) -> Tensor:
    """인과 마스크: 쿼리 ``i``는 키 ``0..i``만 볼 수 있습니다.

    왼쪽 위에 맞춘 하삼각 행렬 ``torch.ones(L, S).tril()``로,
    ``F.scaled_dot_product_attention(..., is_causal=True)``와 같은 모양입니다.

    Args:
        L: 쿼리 길이 (0이면 빈 마스크: ``torch.ones(0, S).tril()``처럼).
        S: 키 길이 (생략하면 ``L``).
        device: 만들 장치.

    Returns:
        bool 마스크, ``True`` = 참여 가능.

    Shape:
        - 반환: ``(L, S)``
    """
    check_nonnegative_int(L, "L")
    S = L if S is None else check_nonnegative_int(S, "S")
    return torch.ones(L, S, dtype=torch.bool, device=device).tril()  # (L, S)


def position_mask(
    query_positions: Tensor, key_positions: Tensor, *, window: int | None = None, sink: int = 0
) -> Tensor:
    """절대 위치로 만드는 인과 마스크: 위치 ``p``의 쿼리는 위치 ``j <= p``인 키만 봅니다.

    ``window``를 주면 그중 최근 ``window``개(``p - window < j <= p``)만, ``sink``를 주면 맨 앞 ``sink``개
    토큰(``j < sink``, 어텐션 싱크)은 창 밖이어도 봅니다. 키의 위치가 이어져 있지 않아도 됩니다: 롤링 KV 캐시
    (``KVCache(max_len, sink)``)는 싱크와 최근 토큰만 남기므로 위치가 ``0, 1, 2, 90, 91, ...``처럼 건너뜁니다.

    Args:
        query_positions: 쿼리마다 전체 시퀀스에서의 위치 (정수).
        key_positions: 키마다 전체 시퀀스에서의 위치 (정수).
        window: 선택. 볼 수 있는 최근 키 수 (자기 자신 포함, 1 이상).
        sink: 창과 상관없이 늘 볼 수 있는 맨 앞 토큰 수 (0 이상, 기본 0).

    Returns:
        bool 마스크, ``True`` = 참여 가능.

    Shape:
        - query_positions: ``(L,)``, key_positions: ``(S,)``
        - 반환: ``(L, S)``
    """
    for name, pos in (("query_positions", query_positions), ("key_positions", key_positions)):
        if not isinstance(pos, Tensor) or pos.dim() != 1 or pos.dtype == torch.bool or pos.is_floating_point() \
                or pos.is_complex():
            raise TypeError(f"{name}은(는) 1차원 정수 텐서여야 하는데 {describe(pos)}이(가) 들어왔습니다.")
    if window is not None:
        check_positive_int(window, "window")
    check_nonnegative_int(sink, "sink")
    q = query_positions[:, None]  # (L,) -> (L, 1)
    k = key_positions.to(query_positions.device)[None, :]  # (S,) -> (1, S)
    mask = k <= q  # (L, 1) <= (1, S) -> (L, S): 인과 (미래 키는 못 봄)
    if window is not None:
        mask = mask & ((k > q - window) | (k < sink))  # 창 안이거나 싱크인 키만 (L, S)
    return mask


def sliding_window_mask(
    L: int, S: int, window: int, *, sink: int = 0, device: torch.device | str | None = None
) -> Tensor:
    """슬라이딩 윈도 마스크: 쿼리 ``i``(전체에서 ``S - L + i``번째 토큰)는 최근 키 ``window``개만 봅니다.

    쿼리 ``i``가 보는 키는 ``S - L + i - window + 1`` 이상 ``S - L + i`` 이하입니다(0보다 작은 번호는 없음).
    KV 캐시의 인과 마스크(``cache_causal_mask``)처럼 **오른쪽 아래**에 맞춥니다: 마지막 쿼리가 마지막 키와
    같은 토큰입니다. ``window >= S``이면 ``cache_causal_mask(L, S)``와 같고, ``L == S``이면 대각선에서
    왼쪽으로 ``window``칸짜리 띠입니다. ``sink``를 주면 맨 앞 키 ``sink``개를 (인과 조건 안에서) 늘 봅니다:
    StreamingLLM(Xiao et al. 2023)의 어텐션 싱크이고, ``KVCache(max_len=sink + window, sink=sink)``로 디코딩한
    결과가 이 마스크를 건 전체 어텐션과 같습니다.

    Args:
        L: 쿼리 길이 (0 이상).
        S: 키 길이 (0 이상). ``L > S``이면 앞쪽 쿼리 ``L - S``개는 볼 키가 없는 행입니다.
        window: 볼 수 있는 최근 키 수 (자기 자신 포함, 1 이상).
        sink: 늘 볼 수 있는 맨 앞 키 수 (0 이상, 기본 0).
        device: 만들 장치.

    Returns:
        bool 마스크, ``True`` = 참여 가능.

    Shape:
        - 반환: ``(L, S)``
    """
    check_nonnegative_int(L, "L")
    check_nonnegative_int(S, "S")
    check_positive_int(window, "window")
    check_nonnegative_int(sink, "sink")
    query_positions = torch.arange(S - L, S, device=device)  # (L,): 쿼리 i의 위치 S-L+i
    return position_mask(query_positions, torch.arange(S, device=device), window=window, sink=sink)  # (L, S)


def padding_mask(lengths: Sequence[int] | Tensor, S: int) -> Tensor:
    """패딩 마스크: 배치의 문장 ``b``는 앞쪽 ``lengths[b]``개 키만 볼 수 있습니다.

    Args:
        lengths: 문장별 실제 길이 (정수 목록 또는 1차원 정수 텐서). 0 이상 ``S`` 이하.
        S: 패딩을 포함한 키 길이 (0이면 키가 없는 ``(B, 1, 1, 0)``).

    Returns:
        bool 마스크, ``True`` = 참여 가능. 헤드 축과 쿼리 축은 1이라 ``(B, H, L, S)``로
        브로드캐스트됩니다.

    Shape:
        - lengths: ``(B,)``
        - 반환: ``(B, 1, 1, S)``
    """
    check_nonnegative_int(S, "S")
    if isinstance(lengths, Tensor):
        if lengths.dtype == torch.bool or torch.is_floating_point(lengths) or lengths.dim() != 1:
            raise TypeError(
                f"lengths는 1차원 정수 텐서나 정수 목록이어야 하는데 {describe(lengths)}이(가) 들어왔습니다."
            )
        lengths_t = lengths.to(torch.long)
    else:
        values = list(lengths)
        if not values or any(isinstance(n, bool) or not isinstance(n, int) for n in values):
            raise TypeError(f"lengths는 정수 목록이어야 하는데 {values!r}이(가) 들어왔습니다.")
        lengths_t = torch.tensor(values, dtype=torch.long)
    if lengths_t.numel() == 0:
        raise ValueError("lengths가 비어 있습니다. 배치에 문장이 최소 하나 있어야 합니다.")
    if (lengths_t < 0).any() or (lengths_t > S).any():
        raise ValueError(f"lengths의 각 값은 0 이상 S(={S}) 이하여야 하는데 {lengths_t.tolist()}이(가) 들어왔습니다.")
    positions = torch.arange(S, device=lengths_t.device)  # (S,)
    mask = positions[None, :] < lengths_t[:, None]  # (1, S) < (B, 1) -> (B, S)
    return mask[:, None, None, :]  # (B, S) -> (B, 1, 1, S)


def combine_masks(*masks: Tensor) -> Tensor:
    """bool 마스크 여러 개를 브로드캐스트 논리곱(AND)으로 합칩니다.

    모든 마스크가 허락한 키만 참여할 수 있습니다. 예: 인과 ``(L, S)``와 패딩 ``(B, 1, 1, S)``를
    합치면 ``(B, 1, L, S)``.

    Args:
        *masks: bool 마스크 하나 이상 (``True`` = 참여 가능). 덧셈 마스크(float)는 더하기로 합쳐야
            하므로 여기서는 ``TypeError``입니다.

    Returns:
        합친 bool 마스크.

    Shape:
        - 반환: 입력 모양들을 브로드캐스트한 모양
    """
    if not masks:
        raise ValueError("combine_masks에는 마스크가 하나 이상 필요합니다.")
    for i, m in enumerate(masks):
        if not isinstance(m, Tensor) or m.dtype != torch.bool:
            raise TypeError(
                f"combine_masks의 {i}번째 인자는 bool 마스크여야 하는데 {describe(m)}이(가) 들어왔습니다. "
                "실수(더하기) 마스크는 덧셈으로 합치세요."
            )
    try:
        torch.broadcast_shapes(*(m.shape for m in masks))
    except RuntimeError:
        shapes = ", ".join(str(tuple(m.shape)) for m in masks)
        raise ValueError(f"마스크 모양이 서로 브로드캐스트되지 않습니다: {shapes}.") from None
    return reduce(torch.logical_and, masks)


def to_torch_mha_mask(mask: Tensor, *, num_heads: int | None = None) -> Tensor:
    """이 책의 마스크를 ``nn.MultiheadAttention``의 ``attn_mask`` 규칙으로 바꿉니다.

    bool 마스크는 극성을 뒤집습니다(우리: ``True`` = 참여, PyTorch 모듈: ``True`` = 차단).
    실수 마스크는 두 쪽 모두 "점수에 더할 값"이므로 그대로 둡니다.
    ``nn.MultiheadAttention``은 ``(L, S)`` 또는 ``(B*H, L, S)``만 받으므로, 4차원 마스크는
    ``(B, H, L, S)``로 펼친 뒤 ``(B*H, L, S)``로 바꿉니다(``num_heads`` 필요).

    Args:
        mask: bool(``True`` = 참여 가능) 또는 실수 마스크.
        num_heads: 4차원 마스크일 때 헤드 수 ``H``.

    Returns:
        ``nn.MultiheadAttention(attn_mask=...)``에 바로 넘길 마스크.

    Shape:
        - mask: ``(L, S)`` 또는 ``(B, 1|H, 1|L, S)``
        - 반환: ``(L, S)`` 또는 ``(B*H, L, S)``
    """
    if not isinstance(mask, Tensor) or not (mask.dtype == torch.bool or torch.is_floating_point(mask)):
        raise TypeError(f"mask는 bool 또는 실수 텐서여야 하는데 {describe(mask)}이(가) 들어왔습니다.")
    converted = ~mask if mask.dtype == torch.bool else mask
    if mask.dim() == 2:
        return converted
    if mask.dim() != 4:
        raise ValueError(f"mask는 (L, S) 또는 (B, H, L, S)로 브로드캐스트되는 4차원이어야 하는데 shape={tuple(mask.shape)}입니다.")
    if num_heads is None:
        raise ValueError("4차원 마스크를 (B*H, L, S)로 바꾸려면 num_heads가 필요합니다.")
    check_positive_int(num_heads, "num_heads")
    B, H, L, S = converted.shape
    if H not in (1, num_heads):
        raise ValueError(f"mask의 헤드 축은 1 또는 num_heads(={num_heads})여야 하는데 {H}입니다.")
    if L == 1:
        raise ValueError(
            "쿼리 축이 1인 4차원 마스크(예: 패딩 마스크 (B, 1, 1, S))는 L을 알 수 없습니다. "
            "to_torch_key_padding_mask로 key_padding_mask를 만들거나, 인과 마스크와 합쳐 (B, 1, L, S)로 만드세요."
        )
    expanded = converted.expand(B, num_heads, L, S)  # (B, 1|H, L, S) -> (B, H, L, S)
    return expanded.reshape(B * num_heads, L, S)  # (B, H, L, S) -> (B*H, L, S)


def to_torch_key_padding_mask(mask: Tensor) -> Tensor:
    """패딩 마스크 ``(B, 1, 1, S)``를 ``nn.MultiheadAttention``의 ``key_padding_mask``로 바꿉니다.

    Args:
        mask: ``padding_mask``가 만든 bool 마스크 (``True`` = 참여 가능).

    Returns:
        ``True`` = 무시(패딩)인 bool 마스크.

    Shape:
        - mask: ``(B, 1, 1, S)`` 또는 ``(B, S)``
        - 반환: ``(B, S)``
    """
    if not isinstance(mask, Tensor) or mask.dtype != torch.bool:
        raise TypeError(f"mask는 bool 텐서여야 하는데 {describe(mask)}이(가) 들어왔습니다.")
    if mask.dim() == 4 and mask.shape[1] == 1 and mask.shape[2] == 1:
        mask = mask[:, 0, 0, :]  # (B, 1, 1, S) -> (B, S)
    if mask.dim() != 2:
        raise ValueError(f"mask는 (B, 1, 1, S) 또는 (B, S)여야 하는데 shape={tuple(mask.shape)}입니다.")
    return ~mask


def future_leak(
    fn: Callable[[Tensor], Tensor | tuple[Tensor, ...]],
    x: Tensor,
    t: int,
    *,
    seed: int = 0,
) -> float:
    """미래 누출(leak) 검사: 위치 ``t`` 뒤의 입력을 바꿨을 때 ``t`` 이하 위치의 출력이 얼마나 움직이는지 잽니다.

    인과 마스크가 제대로 걸린 층이라면 위치 ``i``의 출력은 입력 ``0..i``에만 달려 있습니다.
    그래서 ``x[:, t+1:]``을 새 무작위 값으로 바꿔 ``fn``을 한 번 더 부르고, 두 출력의
    ``[:, :t+1]`` 부분의 최대 절대 차이를 돌려줍니다. 인과적인 함수는 0(막힌 키의 가중치가 정확히 0이고
    나머지 계산이 같으므로 보통 반올림 오차도 없이 0), 미래를 보는 함수는 0보다 큰 값이 나옵니다.

    ``fn``이 결정적이지 않으면(예: 학습 모드의 dropout) 미래와 상관없이 출력이 바뀌어 누출처럼
    보입니다. 그래서 같은 ``x``로 두 번 불러 결과가 다르면 ``ValueError``를 냅니다.
    출력의 NaN 자리가 바뀌면 ``inf``를 돌려줍니다(두 출력이 같은 자리에서 NaN이면 차이 0으로 봄).

    Args:
        fn: ``(B, L, E)`` 입력을 받아 출력 ``(B, L, ...)`` 또는 ``(output, weights)`` 튜플을
            돌려주는 함수. 예: ``lambda x: mha(x, attn_mask=causal_mask(x.shape[1]))``.
        x: 입력. 바뀌지 않습니다.
        t: 이 위치까지(포함) 출력을 비교합니다. ``0 <= t < L``.
        seed: 바꿔 넣을 무작위 값의 시드. 같은 시드면 같은 값을 넣습니다.

    Returns:
        최대 절대 변화량 (파이썬 실수). ``t = L - 1``이면 바꿀 미래가 없으므로 0.

    Raises:
        TypeError: ``fn``을 부를 수 없거나, ``x``가 실수 텐서가 아니거나, ``t``가 정수가 아니거나,
            ``fn``의 출력이 텐서가 아닐 때.
        ValueError: ``x``가 3차원이 아니거나, ``t``가 범위 밖이거나, 출력의 앞 두 축이 ``(B, L)``이
            아니거나, ``fn``이 결정적이지 않을 때.

    Shape:
        - x: ``(B, L, E)``
        - fn의 출력: ``(B, L, ...)`` (튜플이면 첫 원소)
        - 반환: 스칼라 (파이썬 ``float``)
    """
    if not callable(fn):
        raise TypeError(f"fn은 (B, L, E) 텐서를 받는 함수여야 하는데 {describe(fn)}이(가) 들어왔습니다.")
    if not isinstance(x, Tensor) or not torch.is_floating_point(x):
        raise TypeError(f"x는 실수 텐서여야 하는데 {describe(x)}이(가) 들어왔습니다.")
    if x.dim() != 3:
        raise ValueError(f"x는 (B, L, E) 모양의 3차원 텐서여야 하는데 shape={tuple(x.shape)}입니다.")
    B, L, E = x.shape
    if isinstance(t, bool) or not isinstance(t, int):
        raise TypeError(f"t는 정수여야 하는데 {describe(t)} 값 {t!r}이(가) 들어왔습니다.")
    if not 0 <= t < L:
        raise ValueError(f"t는 0 이상 L-1(={L - 1}) 이하여야 하는데 {t}이(가) 들어왔습니다.")

    def outputs(inp: Tensor) -> Tensor:
        out = fn(inp)
        if isinstance(out, (tuple, list)) and out:
            out = out[0]
        if not isinstance(out, Tensor):
            raise TypeError(f"fn은 텐서나 (output, weights) 튜플을 돌려줘야 하는데 {describe(out)}을(를) 돌려줬습니다.")
        if out.dim() < 2 or tuple(out.shape[:2]) != (B, L):
            raise ValueError(
                f"fn의 출력은 앞 두 축이 (B, L)=({B}, {L})이어야 위치별로 비교할 수 있는데 "
                f"shape={tuple(out.shape)}입니다."
            )
        return out[:, : t + 1]  # (B, L, ...) -> (B, t+1, ...)

    generator = torch.Generator().manual_seed(seed)
    fresh = torch.randn(B, L - t - 1, E, generator=generator).to(dtype=x.dtype, device=x.device)
    changed = torch.cat([x[:, : t + 1], fresh], dim=1)  # (B, t+1, E) + (B, L-t-1, E) -> (B, L, E)
    with torch.no_grad():
        before = outputs(x)
        again = outputs(x)
        after = outputs(changed)
    if not torch.allclose(before, again, rtol=0.0, atol=0.0, equal_nan=True):
        raise ValueError(
            "같은 x로 fn을 두 번 불렀는데 출력이 다릅니다. dropout이 켜진 학습 모드라면 "
            "module.eval()로 바꾼 뒤 검사하세요."
        )
    nan_before, nan_after = torch.isnan(before), torch.isnan(after)
    if not torch.equal(nan_before, nan_after):
        return float("inf")
    diff = (after - before).abs().masked_fill(nan_before, 0.0)
    return float(diff.max()) if diff.numel() else 0.0
