"""블록 단위 어텐션: 키를 블록으로 나눠 돌며 소프트맥스를 온라인으로 계산합니다 (``(L, S)`` 점수 없이).

소프트맥스의 분모 ``sum_j exp(s_j)``는 키를 나눠서 더해도 됩니다. 다만 ``exp``가 넘치지 않게 행의 최댓값을
빼야 하는데, 그 최댓값은 키를 다 보기 전에는 모릅니다. 그래서 지금까지의 최댓값 ``m``과 그 기준의 합 ``l``,
가중합 ``acc``를 들고 다니다가, 새 블록에서 최댓값이 커지면 앞의 합을 ``exp(m_old - m_new)``배로 고칩니다
(Milakov & Gimelshein 2018의 온라인 소프트맥스, FlashAttention(Dao et al. 2022)의 바깥 루프).

이 모듈은 torch와 ``_checks``만 씁니다.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from ._checks import check_attention_inputs, check_positive_int

__all__ = ["blockwise_attention"]


def blockwise_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    *,
    block_size: int = 64,
    scale: float | None = None,
) -> tuple[Tensor, Tensor]:
    """키를 ``block_size``개씩 나눠 온라인 소프트맥스로 어텐션을 계산하고, 출력과 행별 로그합지수를 돌려줍니다.

    ``scaled_dot_product_attention``과 같은 값을 내지만(float 오차 안에서), 점수와 가중치 ``(..., L, S)``를 한꺼번에
    만들지 않습니다. 한 번에 있는 것은 블록의 점수 ``(..., L, block_size)``와 행마다의 상태 세 개뿐입니다.

    키 블록 ``b``마다:

    1. ``s = (q @ k_b^T) * scale``에 마스크를 겁니다 (bool의 ``False``는 ``-inf``, float는 더함).
    2. ``m_new = max(m, rowmax(s))``. 지금까지 볼 키가 없던 행(``m_new = -inf``)은 기준을 0으로 둡니다.
    3. ``p = exp(s - m_new)``, ``alpha = exp(m - m_new)``로 앞의 합을 고칩니다:
       ``l = alpha * l + rowsum(p)``, ``acc = alpha * acc + p @ v_b``.

    끝에서 ``output = acc / l``, ``lse = m + log(l)``입니다. ``lse``(log-sum-exp)는 행마다
    ``log sum_j exp(s_j)``, 곧 소프트맥스 분모의 로그이고, 가중치는 ``exp(s_j - lse)``로 다시 만들 수 있습니다
    (FlashAttention은 역전파에서 이렇게 합니다).

    **볼 키가 없는 행**(마스크가 모든 키를 가림, 또는 ``S = 0``): 출력은 0(``scaled_dot_product_attention``과 같은
    규칙)이고 ``lse``는 ``-inf``(빈 합의 로그 ``log 0``, ``torch.logsumexp``와 같음)입니다. PyTorch의 CPU 플래시
    커널(``aten._scaled_dot_product_flash_attention_for_cpu``)은 그런 행의 logsumexp로 0을 돌려줍니다. 0은 실제로
    합이 1인 행(``log 1 = 0``)과 구별되지 않으므로 여기서는 ``-inf``를 씁니다. 두 값을 비교하려면 그 행만 빼세요.

    float16·bfloat16 입력은 float32로 누산하고, 출력은 입력 dtype, ``lse``는 float32로 돌려줍니다(플래시 커널과 같음).
    드롭아웃과 그룹 쿼리 어텐션은 없습니다(GQA는 ``repeat_kv``로 키·밸류를 먼저 늘리세요).

    Args:
        query: 쿼리.
        key: 키. 마지막 축 너비가 ``query``와 같아야 합니다.
        value: 밸류. 길이 축이 ``key``와 같아야 합니다.
        attn_mask: 선택. bool(``True`` = 참여 가능) 또는 float 덧셈 마스크. ``(..., L, S)``로 키우지 않고
            브로드캐스트되어야 합니다. 마스크 텐서는 부르는 쪽의 것이고, 여기서는 블록마다 그 조각만 읽습니다.
        block_size: 한 번에 볼 키 수 (1 이상). ``S``를 나누어떨어뜨리지 않아도 됩니다(마지막 블록이 작음).
        scale: 점수에 곱할 값 (``None``이면 ``1 / sqrt(Dh)``).

    Returns:
        ``(output, lse)``.

    Shape:
        - query: ``(..., L, Dh)``, key: ``(..., S, Dh)``, value: ``(..., S, Dv)``
        - attn_mask: ``(..., L, S)``로 브로드캐스트되는 모양
        - output: ``(..., L, Dv)``
        - lse: ``(..., L)``

    Raises:
        TypeError: 텐서가 아니거나 실수 텐서가 아니거나, dtype이 다르거나, 마스크가 정수일 때, ``block_size``가
            정수가 아닐 때.
        ValueError: 축 길이가 맞지 않거나 마스크가 브로드캐스트되지 않을 때, ``scale``이 양수가 아닐 때,
            ``block_size``가 1보다 작을 때.
    """
    scores_shape, scale = check_attention_inputs(query, key, value, attn_mask, scale)
    check_positive_int(block_size, "block_size")
    in_dtype = query.dtype
    if in_dtype in (torch.float16, torch.bfloat16):  # 반정밀도는 float32로 누산
        query, key, value = query.float(), key.float(), value.float()
    *lead, L, S = scores_shape
    root = math.sqrt(scale)
    query = query * root  # 곱하기 전에 q와 k에 √scale씩 (scaled_dot_product_attention과 같은 순서)
    row_max = query.new_full((*lead, L), float("-inf"))  # m: 지금까지 본 점수의 최댓값 (..., L)
    row_sum = query.new_zeros((*lead, L))  # l: sum exp(s - m) (..., L)
    acc = query.new_zeros((*lead, L, value.shape[-1]))  # sum exp(s - m) * v (..., L, Dv)
    for start in range(0, S, block_size):
        stop = min(start + block_size, S)
        k_block = key[..., start:stop, :] * root  # (..., S, Dh) -> (..., b, Dh), b = stop - start
        scores = query @ k_block.transpose(-2, -1)  # (..., L, Dh) @ (..., Dh, b) -> (..., L, b)
        if attn_mask is not None:
            mask = attn_mask if attn_mask.shape[-1] == 1 else attn_mask[..., start:stop]  # (..., L, b)
            if mask.dtype == torch.bool:
                scores = scores.masked_fill(~mask, float("-inf"))
            else:
                scores = scores + mask.to(scores.dtype)
        new_max = torch.maximum(row_max, scores.amax(dim=-1))  # (..., L, b) -> (..., L)
        shift = new_max.masked_fill(torch.isneginf(new_max), 0.0)  # 아직 볼 키가 없는 행은 기준 0 (exp(-inf) = 0)
        probs = torch.exp(scores - shift[..., None])  # (..., L, b) - (..., L, 1) -> (..., L, b)
        alpha = torch.exp(row_max - shift)  # 앞 블록들의 합을 새 기준으로 고치는 배율 (..., L)
        row_sum = row_sum * alpha + probs.sum(dim=-1)  # (..., L, b) -> (..., L)
        acc = acc * alpha[..., None] + probs @ value[..., start:stop, :]  # (..., L, 1), (..., L, b) @ (..., b, Dv) -> (..., L, Dv)
        row_max = new_max
    empty = row_sum == 0  # 볼 키가 하나도 없는 행 (..., L)
    output = acc / row_sum.masked_fill(empty, 1.0)[..., None]  # (..., L, Dv) / (..., L, 1) -> (..., L, Dv); 빈 행은 0/1 = 0
    lse = row_max + torch.log(row_sum)  # 빈 행은 -inf + log 0 = -inf
    return output.to(in_dtype), lse
