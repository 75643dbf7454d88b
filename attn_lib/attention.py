"""어텐션의 수학: 스케일드 내적 어텐션과 멀티헤드 어텐션.

이 모듈은 torch만 씁니다 (matplotlib 없음). 모양 문자는 책 전체와 같습니다:
``B`` 배치, ``H`` 헤드 수, ``L`` 쿼리 길이, ``S`` 키·밸류 길이,
``E`` 모델 너비(``embed_dim``), ``Dh`` 헤드 하나의 너비(``E // H``, 논문의 d_k),
``Dv`` 밸류 너비.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor, nn

from ._checks import (
    check_attention_inputs, check_dropout, check_float_tensor, check_mha_inputs, check_positive_int, describe,
)
from .kv_cache import KVCache, append_to_cache
from .rope import apply_rope, check_rope_base

__all__ = ["scaled_dot_product_attention", "softmax_or_zero", "MultiHeadAttention", "count_parameters", "repeat_kv"]


def softmax_or_zero(attn_scores: Tensor) -> Tensor:
    """키 축으로 소프트맥스를 취하되, 모든 키가 ``-inf``로 가려진 행은 NaN 대신 0을 돌려줍니다.

    그런 행에서 순진한 소프트맥스는 ``exp(-inf) / 0 = 0 / 0``이라 NaN이 됩니다. 모든 칸이 ``-inf``인
    행을 찾아(기울기가 필요 없는 판단이므로 ``detach``) 그 행만 0으로 채운 뒤 소프트맥스를 하고, 결과를 0으로
    되돌립니다. "그런 행이 있을 때만"이라는 파이썬 ``if``를 두지 않아서 ``torch.compile(fullgraph=True)``로도
    그대로 컴파일됩니다. 키가 하나도 없는 경우(``S = 0``)도 모든 행이 빈 행이라 0이 됩니다 (PyTorch와 같음).

    Shape:
        - attn_scores: ``(..., L, S)``
        - 반환: ``(..., L, S)``
    """
    dead_rows = torch.isneginf(attn_scores.detach()).all(dim=-1, keepdim=True)  # (..., L, S) -> (..., L, 1)
    attn_scores = attn_scores.masked_fill(dead_rows, 0.0)
    return torch.softmax(attn_scores, dim=-1).masked_fill(dead_rows, 0.0)


def repeat_kv(x: Tensor, n_rep: int) -> Tensor:
    """그룹 쿼리 어텐션(GQA): 키·밸류 헤드 하나를 쿼리 헤드 ``n_rep``개가 함께 쓰도록 헤드 축으로 반복합니다.

    ``x.repeat_interleave(n_rep, dim=-3)``과 같습니다: 키·밸류 헤드 ``j``가 쿼리 헤드
    ``j*n_rep .. (j+1)*n_rep - 1``을 맡습니다 (Llama의 ``repeat_kv``, PyTorch ``enable_gqa``와 같은 순서).

    Args:
        x: 키 또는 밸류. 헤드 축이 끝에서 세 번째.
        n_rep: 반복 횟수 ``H // Hkv`` (1이면 그대로 돌려줌).

    Shape:
        - x: ``(..., Hkv, S, Dh)``
        - 반환: ``(..., Hkv * n_rep, S, Dh)``
    """
    check_float_tensor(x, "x", min_dim=3)
    check_positive_int(n_rep, "n_rep")
    if n_rep == 1:
        return x
    *lead, kv_heads, S, Dh = x.shape
    x = x.unsqueeze(-3).expand(*lead, kv_heads, n_rep, S, Dh)  # (..., Hkv, S, Dh) -> (..., Hkv, n_rep, S, Dh)
    return x.reshape(*lead, kv_heads * n_rep, S, Dh)  # (..., Hkv, n_rep, S, Dh) -> (..., Hkv*n_rep, S, Dh)


def to_compute_dtype(*tensors: Tensor) -> tuple[Tensor, ...]:
    """반정밀도(float16, bfloat16) 텐서는 float32로 올리고, 나머지는 그대로 돌려줍니다.

    PyTorch의 어텐션 커널도 반정밀도 입력의 내적과 소프트맥스를 float32로 누산합니다. 반정밀도로 그대로
    계산하면 점수 100 근처에서 bfloat16 오차가 약 17배 커집니다.

    Shape:
        - 각 텐서: 모양 그대로, dtype만 바뀜
    """
    return tuple(t.float() if t.dtype in (torch.float16, torch.bfloat16) else t for t in tensors)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    *,
    dropout_p: float = 0.0,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> tuple[Tensor, Tensor]:
    """스케일드 내적 어텐션을 계산하고 출력과 어텐션 가중치를 함께 돌려줍니다.

    계산 순서는 PyTorch의 ``F.scaled_dot_product_attention``과 같습니다.

    1. 점수: ``scores = (query @ key^T) * scale`` (실제로는 곱하기 전에 q와 k에 ``sqrt(scale)``씩 곱합니다)
    2. 마스크: bool 마스크는 ``False`` 자리를 ``-inf``로 채우고, 덧셈 마스크(float)는 점수에 더합니다.
    3. 마지막 축(키 축)으로 소프트맥스를 취해 가중치를 만듭니다.
    4. ``output = weights @ value`` (``dropout_p > 0``이면 가중치에 드롭아웃을 건 뒤)

    모든 키가 가려진 행(참여할 키가 하나도 없는 쿼리)은 가중치 0, 출력 0이 됩니다.
    순진하게 ``-inf``만 채우고 소프트맥스를 하면 그 행은 ``exp(-inf) / 0 = 0 / 0``이라
    NaN이 되고, NaN은 다음 층과 기울기로 번져 학습 전체를 망칩니다. 그런 행은 어떤 키에서도
    정보를 가져올 수 없다는 뜻이므로, 여기서는 "아무것도 가져오지 않음", 즉 0으로 정의합니다.
    (마스크 장에서 순진한 구현의 NaN과 비교합니다.)

    Args:
        query: 쿼리 텐서.
        key: 키 텐서. 마지막 축 너비가 ``query``와 같아야 합니다.
        value: 밸류 텐서. 길이 축(끝에서 두 번째)이 ``key``와 같아야 합니다.
        attn_mask: 선택. bool이면 ``True`` = 참여 가능(F.scaled_dot_product_attention과 같은 극성),
            float면 스케일된 점수에 더하는 값(덧셈 마스크)(``-inf``는 차단). 점수 모양 ``(..., L, S)``로
            모양을 키우지 않고 브로드캐스트되어야 합니다.
        dropout_p: 가중치의 드롭아웃 확률 (기본 0). PyTorch처럼 학습/평가 모드를 보지 않으므로, 부르는 쪽이
            평가 때 0을 넘깁니다. 살아남은 가중치는 ``1/(1-p)``배가 되고, **돌려주는 가중치는 드롭아웃 전**입니다.
        scale: 점수에 곱할 값. ``None``이면 ``1 / sqrt(Dh)``, ``1.0``이면 스케일링 없음. 양의 파이썬 수,
            NumPy 스칼라, 원소 하나짜리 텐서 모두 됩니다.
        enable_gqa: ``True``면 key·value의 헤드 수 ``Hkv``가 query의 헤드 수 ``H``보다 적어도 됩니다
            (``H % Hkv == 0``). 키·밸류 헤드 하나를 쿼리 헤드 ``H // Hkv``개가 함께 씁니다 (``repeat_kv``).

    Returns:
        ``(output, weights)`` 튜플.

    float16·bfloat16 입력은 float32로 계산한 뒤 출력과 가중치를 입력 dtype으로 되돌립니다 (PyTorch 커널처럼).

    Shape:
        - query: ``(..., L, Dh)`` (``enable_gqa``면 ``(..., H, L, Dh)``)
        - key: ``(..., S, Dh)`` (``enable_gqa``면 ``(..., Hkv, S, Dh)``)
        - value: ``(..., S, Dv)`` (``enable_gqa``면 ``(..., Hkv, S, Dv)``)
        - attn_mask: ``(L, S)``, ``(B, 1, 1, S)``처럼 ``(..., L, S)``로 브로드캐스트되는 모양
        - output: ``(..., L, Dv)``
        - weights: ``(..., L, S)`` (``enable_gqa``여도 쿼리 헤드마다: ``(..., H, L, S)``)

    Raises:
        TypeError: 텐서가 아니거나, 실수 텐서가 아니거나, dtype이 서로 다르거나, 마스크가 정수일 때.
        ValueError: 축 길이가 맞지 않거나 마스크가 브로드캐스트되지 않을 때, scale이 양수가 아닐 때,
            ``enable_gqa``인데 헤드 수가 나누어떨어지지 않을 때, ``dropout_p``가 ``[0, 1)`` 밖일 때.
    """
    scores_shape, scale = check_attention_inputs(query, key, value, attn_mask, scale, enable_gqa)
    dropout_p = check_dropout(dropout_p, "dropout_p")
    in_dtype = query.dtype
    query, key, value = to_compute_dtype(query, key, value)  # 반정밀도는 float32로 누산 (PyTorch 커널과 같음)
    if enable_gqa:  # (그룹 쿼리 어텐션) 키·밸류 헤드가 더 적으면, 쿼리 헤드 수만큼 반복해 나눠 씁니다
        key, value = (repeat_kv(t, query.shape[-3] // t.shape[-3]) for t in (key, value))  # (..., Hkv, S, D) -> (..., H, S, D)

    # 1. 점수: 모든 쿼리와 모든 키의 내적에 scale을 곱합니다. 곱하기 전에 q와 k에 √scale씩 곱해 두면 값은 같고
    #    중간값이 작아서 float16에서도 넘치지 않습니다 (PyTorch의 계산 순서).
    root = math.sqrt(scale)
    attn_scores = (query * root) @ (key * root).transpose(-2, -1)  # (..., L, Dh) @ (..., Dh, S) -> (..., L, S)
    attn_scores = attn_scores.expand(scores_shape)  # value만 배치 축이 더 클 때: (..., L, S) -> (*lead, L, S)

    # 2. 마스크: bool은 False(차단) 자리를 -inf로, 덧셈 마스크(float)는 점수에 더합니다.
    if attn_mask is not None and attn_mask.dtype == torch.bool:
        attn_scores = attn_scores.masked_fill(~attn_mask, float("-inf"))
    elif attn_mask is not None:
        attn_scores = attn_scores + attn_mask.to(attn_scores.dtype)

    # 3. 소프트맥스: 키 축(마지막 축)으로. 볼 키가 하나도 없는 행은 가중치 0.
    attn_weights = softmax_or_zero(attn_scores) if attn_mask is not None else torch.softmax(attn_scores, dim=-1)

    # 4. 밸류 섞기: 가중치로 밸류의 볼록 결합을 만듭니다. (드롭아웃은 학습 때만: 섞는 가중치 일부를 0으로)
    mixing = nn.functional.dropout(attn_weights, dropout_p) if dropout_p > 0 else attn_weights
    output = mixing @ value  # (..., L, S) @ (..., S, Dv) -> (..., L, Dv)
    return output.to(in_dtype), attn_weights.to(in_dtype)


class MultiHeadAttention(nn.Module):
    """배치 우선(batch-first) 멀티헤드 어텐션.

    ``MultiHead(Q, K, V) = Concat(head_1, ..., head_H) W_o``,
    ``head_i = Attention(Q W_q^i, K W_k^i, V W_v^i)``.
    투영 ``W_q, W_k, W_v``는 선형층 하나씩이고, 그 출력을 헤드로 나눕니다(헤드 i는 특징
    ``i*Dh : (i+1)*Dh``). ``W_o``는 이어 붙인 헤드를 다시 섞습니다.
    기본(``num_kv_heads=None``)은 키·밸류도 헤드 ``H``개라 파라미터 수가 헤드 수와 무관하게
    ``4*E*E + 4*E``(bias 포함)입니다. ``num_kv_heads=Hkv``로 줄이면 ``W_k, W_v``가 ``E -> Hkv*Dh``가 되어
    ``2*E*E + 2*E*Hkv*Dh``(+ bias ``2*E + 2*Hkv*Dh``)입니다. ``Hkv = 1``이 멀티 쿼리 어텐션(MQA),
    그 사이가 그룹 쿼리 어텐션(GQA)입니다.

    Args:
        embed_dim: 모델 너비 ``E``.
        num_heads: 쿼리 헤드 수 ``H``. ``E``를 나누어떨어뜨려야 합니다.
        num_kv_heads: 키·밸류 헤드 수 ``Hkv`` (``None``이면 ``H``). ``H``를 나누어떨어뜨려야 합니다.
        bias: 네 선형층에 bias를 둘지.
        dropout: 어텐션 가중치의 드롭아웃 확률 (``train()`` 모드에서만; 돌려주는 가중치는 드롭아웃 전).
        rope_base: 선택. 주면 헤드를 나눈 쿼리와 키를 위치만큼 돌립니다(RoPE, ``apply_rope(..., base=rope_base)``).
            밸류는 돌리지 않습니다. 위치는 캐시가 없으면 쿼리 ``0..L-1``, 키 ``0..S-1``이고, ``kv_cache``가 있으면
            ``cache.seen``(지금까지 붙인 토큰 수)부터 이어집니다.

    **RoPE와 KV 캐시**: 캐시는 **돌린 뒤의** 키를 저장합니다. 키는 붙일 때 자기 위치(``cache.seen + i``)로 한 번만
    돌리므로, 캐시로 한 토큰씩 만든 결과가 전체를 한 번에 계산한 결과와 같습니다. 다음 위치가 ``len(cache)``가
    아니라 ``cache.seen``인 까닭과 StreamingLLM의 다른 선택은 ``KVCache``의 설명에 있습니다.

    Shape:
        - query: ``(B, L, E)``
        - key, value: ``(B, S, E)`` (생략하면 ``query``와 같음: 셀프 어텐션)
        - attn_mask: ``(L, S)``, ``(B, 1, 1, S)``, ``(B, 1, L, S)``, ``(B, H, L, S)`` 등
          ``(B, H, L, S)``로 브로드캐스트되는 4차원 이하 모양 (3차원은 모호해서 거부)
        - output: ``(B, L, E)``
        - weights: ``(B, H, L, S)`` (헤드 축을 평균 내지 않음; GQA여도 쿼리 헤드마다)
        - ``L = 0`` 또는 ``S = 0``도 됩니다 (``nn.MultiheadAttention``처럼: ``S = 0``이면 헤드 출력이 0이라
          ``output``은 ``W_o``의 bias)
    """

    def __init__(
        self, embed_dim: int, num_heads: int, *, num_kv_heads: int | None = None, bias: bool = True,
        dropout: float = 0.0, rope_base: float | None = None,
    ) -> None:
        super().__init__()
        check_positive_int(embed_dim, "embed_dim")
        check_positive_int(num_heads, "num_heads")
        if embed_dim % num_heads != 0:
            raise ValueError(
                f"embed_dim(={embed_dim})은 num_heads(={num_heads})로 나누어떨어져야 합니다 "
                f"(나머지 {embed_dim % num_heads})."
            )
        num_kv_heads = num_heads if num_kv_heads is None else check_positive_int(num_kv_heads, "num_kv_heads")
        if num_heads % num_kv_heads != 0:
            raise ValueError(
                f"num_heads(={num_heads})는 num_kv_heads(={num_kv_heads})로 나누어떨어져야 합니다 "
                f"(나머지 {num_heads % num_kv_heads}). 키·밸류 헤드 하나를 쿼리 헤드 몇 개가 함께 쓰는 구조입니다."
            )
        self.embed_dim = embed_dim
        self.num_heads = num_heads
        self.num_kv_heads = num_kv_heads
        self.head_dim = embed_dim // num_heads
        self.dropout = check_dropout(dropout)
        if rope_base is not None and self.head_dim % 2 != 0:
            raise ValueError(f"RoPE는 헤드 너비 Dh가 짝수여야 하는데 Dh = embed_dim // num_heads = {self.head_dim}입니다.")
        self.rope_base = None if rope_base is None else check_rope_base(rope_base)
        kv_dim = num_kv_heads * self.head_dim  # 키·밸류 투영의 출력 너비 Hkv*Dh (기본은 E)
        self.W_q = nn.Linear(embed_dim, embed_dim, bias=bias)
        self.W_k = nn.Linear(embed_dim, kv_dim, bias=bias)
        self.W_v = nn.Linear(embed_dim, kv_dim, bias=bias)
        self.W_o = nn.Linear(embed_dim, embed_dim, bias=bias)

    def extra_repr(self) -> str:
        kv = f", num_kv_heads={self.num_kv_heads}" if self.num_kv_heads != self.num_heads else ""
        drop = f", dropout={self.dropout}" if self.dropout else ""
        rope = f", rope_base={self.rope_base:g}" if self.rope_base is not None else ""
        return f"embed_dim={self.embed_dim}, num_heads={self.num_heads}{kv}, head_dim={self.head_dim}{drop}{rope}"

    def split_heads(self, x: Tensor) -> Tensor:
        """``(B, L, E)``를 헤드별로 나눕니다. 복사 없이 뷰(view)만 바꿉니다.

        헤드 수는 마지막 축을 ``Dh``로 나눈 값이라, 키·밸류(``Hkv*Dh``)에도 같은 함수를 씁니다.

        Shape:
            - x: ``(B, L, E)`` (키·밸류는 ``(B, S, Hkv*Dh)``)
            - 반환: ``(B, H, L, Dh)`` (키·밸류는 ``(B, Hkv, S, Dh)``; transpose 때문에 메모리상 연속이 아님)
        """
        B, L, width = x.shape
        heads = width // self.head_dim  # H (키·밸류는 Hkv). -1로 두면 L = 0일 때 view가 헤드 수를 알 수 없음
        return x.view(B, L, heads, self.head_dim).transpose(1, 2)  # (B, L, E) -> (B, L, H, Dh) -> (B, H, L, Dh)

    def merge_heads(self, x: Tensor) -> Tensor:
        """헤드별 결과를 다시 이어 붙입니다(split_heads의 역).

        transpose로 연속성이 깨졌으므로 ``.contiguous()``로 복사한 뒤 ``view``합니다.

        Shape:
            - x: ``(B, H, L, Dh)``
            - 반환: ``(B, L, E)``
        """
        B, H, L, Dh = x.shape
        return x.transpose(1, 2).contiguous().view(B, L, H * Dh)  # (B, H, L, Dh) -> (B, L, H, Dh) -> (B, L, E)

    def forward(
        self,
        query: Tensor,
        key: Tensor | None = None,
        value: Tensor | None = None,
        attn_mask: Tensor | None = None,
        *,
        scale: float | None = None,
        kv_cache: KVCache | None = None,
    ) -> tuple[Tensor, Tensor]:
        """멀티헤드 어텐션을 계산합니다.

        ``key``를 생략하면 ``query``를, ``value``를 생략하면 ``key``를 씁니다
        (셀프 어텐션). 크로스 어텐션은 ``key=value=인코더 출력``처럼 넘기며 ``L != S``여도 됩니다.

        ``kv_cache``를 주면 디코딩용 셀프 어텐션입니다: 새 토큰(``query``)의 키·밸류를 캐시 끝에 붙이고,
        쌓인 키 전부를 보되 캐시 끝에 맞춘 인과 마스크를 모듈이 스스로 겁니다 (``attn_mask``는 그 위에 더할
        패딩 마스크 등). 크로스 어텐션의 인코더 키·밸류는 한 번 계산해 ``key``/``value``로 넘기면 되므로 캐시와
        함께 줄 수 없습니다.

        Args:
            query: 쿼리 쪽 입력.
            key: 키 쪽 입력 (기본값 ``query``).
            value: 밸류 쪽 입력 (기본값 ``key``).
            attn_mask: bool(``True`` = 참여 가능) 또는 float 덧셈 마스크(점수에 더할 값).
            scale: ``scaled_dot_product_attention``에 넘길 스케일 (기본 ``1/sqrt(Dh)``).
            kv_cache: 선택. ``KVCache()``; 제자리에서 채워집니다.

        Returns:
            ``(output, weights)``. 가중치는 드롭아웃 전의 확률입니다.

        Shape:
            - query: ``(B, L, E)``, key/value: ``(B, S, E)``
            - output: ``(B, L, E)``, weights: ``(B, H, L, S)`` (캐시가 있으면 ``S`` = 캐시에 쌓인 전체 길이)
        """
        if kv_cache is not None and not isinstance(kv_cache, KVCache):
            raise TypeError(f"kv_cache는 attn_lib.KVCache여야 하는데 {describe(kv_cache)}이(가) 들어왔습니다.")
        if kv_cache is not None and (key is not None or value is not None):
            raise ValueError(
                "kv_cache는 셀프 어텐션(디코더가 자기 토큰을 보는 어텐션)용이라 key·value와 함께 줄 수 없습니다. "
                "크로스 어텐션의 인코더 키·밸류는 문장마다 한 번 계산되므로 캐시 없이 key=value=인코더 출력으로 넘기세요."
            )
        key = query if key is None else key
        value = key if value is None else value
        check_mha_inputs(query, key, value, attn_mask, self.embed_dim)

        # 1~3. 투영한 뒤 마지막 축 E를 헤드 H개로 나누고, 헤드 축을 앞으로 보냅니다.
        q = self.split_heads(self.W_q(query))  # (B, L, E) -> (B, H, L, Dh)
        k = self.split_heads(self.W_k(key))  # (B, S, E) -> (B, H, S, Dh)  (GQA면 Hkv개)
        v = self.split_heads(self.W_v(value))  # (B, S, E) -> (B, H, S, Dh)  (GQA면 Hkv개)
        if self.rope_base is not None:  # (RoPE) 쿼리와 키를 위치만큼 돌림; 캐시에는 돌린 키가 들어감
            start = 0 if kv_cache is None else kv_cache.seen
            q = apply_rope(q, torch.arange(start, start + q.shape[-2], device=q.device), base=self.rope_base)
            k = apply_rope(k, torch.arange(start, start + k.shape[-2], device=k.device), base=self.rope_base)
        if kv_cache is not None:  # (생성할 때만) KV 캐시: 지난 토큰의 키·밸류 뒤에 붙이고 캐시 끝에 맞춘 인과 마스크
            k, v, attn_mask = append_to_cache(kv_cache, k, v, attn_mask)  # (B, Hkv, S, Dh) -> (B, Hkv, S+L, Dh)
        # 4~8. 헤드 H개의 스케일드 내적 어텐션을 한꺼번에: 점수, 스케일링, 마스크, 소프트맥스, 밸류 섞기
        heads, attn_weights = scaled_dot_product_attention(
            q, k, v, attn_mask, scale=scale, dropout_p=self.dropout if self.training else 0.0,
            enable_gqa=self.num_kv_heads != self.num_heads,
        )
        # heads: (B, H, L, Dh), attn_weights: (B, H, L, S)
        # 9. 헤드를 이어 붙이고 출력 투영
        output = self.W_o(self.merge_heads(heads))  # (B, H, L, Dh) -> (B, L, E) -> (B, L, E)
        return output, attn_weights

    @classmethod
    def from_torch(cls, module: nn.MultiheadAttention) -> "MultiHeadAttention":
        """``torch.nn.MultiheadAttention``의 가중치를 복사해 같은 계산을 하는 모듈을 만듭니다.

        PyTorch는 ``W_q, W_k, W_v``를 ``in_proj_weight`` 하나 ``(3E, E)``에 세로로 쌓아 둡니다.
        그 세 조각을 나눠 복사하고, ``out_proj``를 ``W_o``로 복사합니다. 복사한 뒤에는
        출력과 헤드별 가중치(``average_attn_weights=False``)가 1e-5 안에서 일치합니다.
        단, PyTorch 모듈의 bool 마스크는 ``True`` = 차단이므로 ``to_torch_mha_mask``로 바꿔 넘기세요.

        Args:
            module: ``kdim == vdim == embed_dim``이고 ``bias_k``/``add_zero_attn``을 쓰지 않는 모듈.
                ``batch_first=True``로 만든 모듈이어야 호출 방식이 이 클래스와 같습니다.

        Returns:
            가중치가 복사된 새 ``MultiHeadAttention``.

        Shape:
            - in_proj_weight: ``(3E, E)`` -> W_q, W_k, W_v 각각 ``(E, E)``
            - out_proj.weight: ``(E, E)`` -> W_o
        """
        if not isinstance(module, nn.MultiheadAttention):
            raise TypeError(f"module은 torch.nn.MultiheadAttention이어야 하는데 {describe(module)}이(가) 들어왔습니다.")
        if not module._qkv_same_embed_dim:
            raise ValueError(
                f"kdim(={module.kdim}), vdim(={module.vdim})이 embed_dim(={module.embed_dim})과 다른 모듈은 "
                "지원하지 않습니다."
            )
        if module.bias_k is not None or module.add_zero_attn:
            raise ValueError("add_bias_kv=True 또는 add_zero_attn=True인 모듈은 지원하지 않습니다.")
        has_bias = module.in_proj_bias is not None
        new = cls(module.embed_dim, module.num_heads, bias=has_bias)
        new = new.to(dtype=module.in_proj_weight.dtype, device=module.in_proj_weight.device)
        E = module.embed_dim
        with torch.no_grad():
            for i, lin in enumerate((new.W_q, new.W_k, new.W_v)):
                lin.weight.copy_(module.in_proj_weight[i * E : (i + 1) * E])  # (3E, E) -> (E, E)
                if has_bias:
                    lin.bias.copy_(module.in_proj_bias[i * E : (i + 1) * E])  # (3E,) -> (E,)
            new.W_o.weight.copy_(module.out_proj.weight)
            if has_bias:
                new.W_o.bias.copy_(module.out_proj.bias)
        return new


def count_parameters(module: nn.Module, *, trainable_only: bool = True) -> int:
    """모듈의 파라미터 개수를 셉니다.

    Args:
        module: 아무 ``nn.Module``.
        trainable_only: ``True``면 ``requires_grad``인 파라미터만 셉니다.

    Returns:
        파라미터 원소 수의 합.

    Shape:
        - 반환: 파이썬 정수 (예: MultiHeadAttention은 ``4*E*E + 4*E``)
    """
    if not isinstance(module, nn.Module):
        raise TypeError(f"module은 torch.nn.Module이어야 하는데 {describe(module)}이(가) 들어왔습니다.")
    return sum(p.numel() for p in module.parameters() if p.requires_grad or not trainable_only)
