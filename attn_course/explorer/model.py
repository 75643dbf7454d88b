"""어텐션 탐색기의 작은 모델: 토큰 -> 시드 임베딩 -> 헤드별 쿼리·키 (-> RoPE) -> 어텐션 가중치.

탐색기는 ``d_k``(헤드 하나의 쿼리·키 너비, 이 책의 ``Dh``)와 헤드 수를 서로 따로 바꿉니다.
``nn.MultiheadAttention``처럼 ``Dh = E // H``로 묶으면 16헤드 x ``d_k`` = 512에 ``E`` = 8192짜리
``E x E`` 투영이 필요하므로, 여기서는 폭이 고정된(``EMBED_WIDTH``) 토큰 임베딩에서 헤드마다
쿼리·키를 바로 만듭니다::

    Q = X @ W_q   # (L, E0) @ (MAX_HEADS, E0, MAX_DK) -> (MAX_HEADS, L, MAX_DK)

모든 설정이 한 모델 안에 포개져 있습니다(nested). ``d_k``를 고르면 앞쪽 ``d_k``칸을, 헤드 수
``h``를 고르면 앞쪽 ``h``개 헤드를 씁니다. 그래서 ``d_k``나 ``h``를 바꿔도 나머지 칸의 값은 그대로이고,
정적 웹페이지는 ``MAX_HEADS``개 헤드의 점수만 저장해 두면 됩니다.

``W_q, W_k``의 원소는 ``N(0, 1/E0)``, 임베딩 원소는 ``N(0, 1)``이라 쿼리·키의 원소는 분산이
대략 1입니다. 그러면 내적의 분산은 대략 ``d_k``이고, ``1/sqrt(d_k)`` 스케일링이 그 크기를 되돌려
놓습니다. 4장에서 보는 바로 그 현상입니다. 가중치는 학습하지 않은 무작위 값이므로 히트맵의 무늬에는
뜻이 없습니다.

이 모듈은 torch만 씁니다 (matplotlib 없음).
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence

import torch
from torch import Tensor

from attn_lib._checks import describe, single_thread
from attn_lib.attention import scaled_dot_product_attention
from attn_lib.masks import causal_mask, combine_masks, padding_mask, sliding_window_mask
from attn_lib.rope import apply_rope

__all__ = [
    "EMBED_WIDTH",
    "MAX_HEADS",
    "MAX_DK",
    "MAX_TOKENS",
    "DK_CHOICES",
    "MASKS",
    "MASK_LABELS",
    "POSITIONS",
    "POSITION_LABELS",
    "WINDOWS",
    "WINDOW_LABELS",
    "ROPE_SHARED_GAIN",
    "PAD_TOKEN",
    "KV_BYTES_PER_ELEMENT",
    "kv_head_choices",
    "check_kv_heads",
    "kv_cache_bytes_per_token",
    "ExplorerModel",
    "parse_tokens",
    "padded_length",
    "shown_tokens",
    "explorer_mask",
    "check_position",
    "check_window",
    "single_thread",
]

#: 토큰 임베딩 폭 ``E0`` (쿼리·키 너비와 무관하게 고정)
EMBED_WIDTH = 32
#: 헤드 수의 최댓값
MAX_HEADS = 16
#: ``d_k``의 최댓값
MAX_DK = 512
#: 문장 하나의 최대 토큰 수 (패딩 제외)
MAX_TOKENS = 16
#: 탐색기가 고를 수 있는 ``d_k``: 1, 2, 4, ..., 512 (로그 눈금)
DK_CHOICES = tuple(2**i for i in range(10))
#: 마스크 종류 (코드 이름)
MASKS = ("none", "causal", "padding", "causal+padding")
#: 마스크의 한국어 이름
MASK_LABELS = {"none": "없음", "causal": "인과", "padding": "패딩", "causal+padding": "인과+패딩"}
#: 위치 정보 (코드 이름): 없음, 또는 쿼리·키를 위치만큼 돌리는 RoPE (``attn_lib.rope.apply_rope``)
POSITIONS = ("none", "rope")
#: 위치 정보의 한국어 이름
POSITION_LABELS = {"none": "없음", "rope": "RoPE"}
#: 창 (슬라이딩 윈도, ``attn_lib.masks.sliding_window_mask``): ``None``은 전체, 정수는 자기 자신을 포함해 볼 최근 키 수
WINDOWS = (None, 3)
#: 창의 한국어 이름
WINDOW_LABELS = {None: "전체", 3: "3"}
#: RoPE를 켤 때 헤드마다 모든 토큰의 쿼리·키에 더하는 같은 성분 ``u``의 세기: ``|u|^2 = ROPE_SHARED_GAIN * sqrt(d_k)``.
#: 학습하지 않은 무작위 쿼리·키는 토큰마다 제각각이라 RoPE의 거리 무늬가 묻힙니다. ``u``는 가장 빨리 도는 평면
#: (특징 0과 ``d_k / 2``, 위치 하나에 1 라디안)에만 있어서, 그 부분의 점수 ``<rope(u, m), rope(u, n)> = |u|^2 cos(m - n)``
#: 이 거리에만 달립니다 (스케일링을 켜면 ``ROPE_SHARED_GAIN * cos(m - n)``: 내용 점수의 표준편차 약 1의 4배).
ROPE_SHARED_GAIN = 4.0
#: 패딩 토큰
PAD_TOKEN = "[PAD]"
#: KV 캐시 바이트를 셀 때의 원소 하나 크기 (탐색기는 float32로 계산)
KV_BYTES_PER_ELEMENT = 4


def kv_head_choices(num_heads: int) -> tuple[int, ...]:
    """헤드 수 ``H``를 나누어떨어뜨리는 키·밸류 헤드 수 ``Hkv``들 (1, ..., H). ``H``면 보통의 멀티헤드 어텐션.

    Shape:
        - 반환: 오름차순 튜플
    """
    return tuple(d for d in range(1, num_heads + 1) if num_heads % d == 0)


def check_kv_heads(num_heads: int, num_kv_heads: int) -> int:
    """``num_kv_heads``가 ``num_heads``를 나누는 1 이상의 정수인지 확인합니다 (한국어 ValueError).

    Shape:
        - 반환: ``num_kv_heads`` 그대로
    """
    if isinstance(num_kv_heads, bool) or not isinstance(num_kv_heads, int) or num_kv_heads < 1 \
            or num_heads % num_kv_heads != 0:
        raise ValueError(f"KV 헤드 수는 헤드 수 {num_heads}를 나누어떨어뜨리는 수({', '.join(map(str, kv_head_choices(num_heads)))}) "
                         f"중 하나여야 하는데 {num_kv_heads!r}이(가) 들어왔습니다.")
    return num_kv_heads


def kv_cache_bytes_per_token(num_kv_heads: int, d_k: int, bytes_per_element: int = KV_BYTES_PER_ELEMENT) -> int:
    """층 하나, 토큰 하나가 KV 캐시에 더하는 바이트: 키와 밸류 2개 x ``Hkv`` x ``Dh`` x 원소 바이트.

    탐색기는 밸류 너비를 키 너비와 같게(``Dv = Dh = d_k``) 칩니다. ``attn_lib.KVCache.nbytes``를 토큰 수로 나눈 값과 같습니다.

    Shape:
        - 반환: 파이썬 정수
    """
    return 2 * num_kv_heads * d_k * bytes_per_element


def parse_tokens(tokens: str | Sequence[str]) -> list[str]:
    """문장(공백으로 나눔)이나 문자열 목록을 토큰 목록으로 바꾸고 검사합니다.

    Args:
        tokens: ``"나는 어제 책을 빌렸다"`` 같은 문장, 또는 ``["나는", "어제", ...]``.

    Returns:
        토큰 목록 (1개 이상 ``MAX_TOKENS``개 이하).

    Raises:
        TypeError: 문자열도 문자열 목록도 아닐 때.
        ValueError: 비었거나, ``MAX_TOKENS``개를 넘거나, 빈 토큰이나 ``[PAD]``가 들어 있을 때.

    Shape:
        - 반환: 길이 ``L``의 목록
    """
    if isinstance(tokens, str):
        items = tokens.split()
    elif isinstance(tokens, Sequence) and all(isinstance(t, str) for t in tokens):
        items = [t.strip() for t in tokens]
    else:
        raise TypeError(f"tokens는 문장(str)이나 문자열 목록이어야 하는데 {describe(tokens)}이(가) 들어왔습니다.")
    if not items:
        raise ValueError("문장이 비어 있습니다. 토큰을 하나 이상 넣으세요 (예: '나는 어제 책을 빌렸다').")
    if len(items) > MAX_TOKENS:
        raise ValueError(f"토큰은 {MAX_TOKENS}개까지인데 {len(items)}개가 들어왔습니다. 문장을 줄여 주세요.")
    if any(not t for t in items):
        raise ValueError("빈 토큰이 있습니다. 목록의 모든 토큰에 글자가 있어야 합니다.")
    if PAD_TOKEN in items:
        raise ValueError(f"{PAD_TOKEN}은(는) 패딩 마스크가 붙이는 토큰입니다. 문장에는 넣지 마세요.")
    return items


def padded_length(n: int) -> int:
    """패딩 마스크일 때 문장을 채울 길이: ``[PAD]``가 2개 이상 붙고 4의 배수가 되는 길이.

    예: 토큰 5개 -> 8, 토큰 8개 -> 12, 토큰 16개 -> 20.

    Shape:
        - 반환: 정수 ``S`` (패딩을 포함한 키 길이)
    """
    return 4 * math.ceil((n + 2) / 4)


def shown_tokens(tokens: Sequence[str], mask: str) -> list[str]:
    """탐색기가 보여 주는 토큰: 패딩 마스크(``"padding"``이 든 이름)면 ``[PAD]``를 ``padded_length``까지 붙입니다.

    예: 토큰 5개, ``"causal+padding"`` -> 토큰 5개 + ``[PAD]`` 3개.

    Shape:
        - 반환: 길이 ``n`` (패딩 마스크면 ``padded_length(n)``)
    """
    shown = list(tokens)
    if "padding" in mask:
        shown += [PAD_TOKEN] * (padded_length(len(shown)) - len(shown))
    return shown


def explorer_mask(mask: str, L: int, n: int, window: int | None = None) -> Tensor | None:
    """탐색기의 마스크 이름과 창을 bool 마스크(``True`` = 참여 가능)로 바꿉니다.

    창(``window``)은 ``sliding_window_mask(L, L, window)``이고 다른 마스크와 **함께** 걸립니다(``combine_masks``,
    논리곱): 창 자체가 인과라서(쿼리는 자기와 앞쪽 키 ``window - 1``개만 봄) 마스크가 ``없음``이어도 대각선 왼쪽의 띠가
    됩니다. 패딩과 함께면 창 안의 키가 모두 ``[PAD]``인 ``[PAD]`` 쿼리 행은 모두 가려집니다(가중치 0).

    Args:
        mask: ``"none"``, ``"causal"``, ``"padding"``, ``"causal+padding"``.
        L: 보이는 토큰 수 (패딩 마스크면 ``[PAD]`` 포함).
        n: 실제 토큰 수 (``[PAD]`` 제외).
        window: ``None``(전체) 또는 자기 자신을 포함해 볼 최근 키 수 (1 이상).

    Returns:
        ``None`` (마스크 없음) 또는 bool 마스크.

    Shape:
        - 반환: ``(L, S)`` (인과, 창), ``(1, 1, S)`` (패딩), ``(1, L, S)`` (패딩과 인과나 창), ``S = L``
    """
    if mask not in MASKS:
        raise ValueError(f"mask는 {MASKS} 중 하나여야 하는데 {mask!r}이(가) 들어왔습니다.")
    parts = []
    if window is not None:
        parts.append(sliding_window_mask(L, L, window))  # (L, S): 자기와 앞쪽 window - 1개
    if "causal" in mask:
        parts.append(causal_mask(L))  # (L, S)
    if "padding" in mask:
        parts.append(padding_mask([n], L)[0])  # (1, 1, 1, S) -> (1, 1, S)
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else combine_masks(*parts)


def check_position(position: object) -> str:
    """위치 정보 이름(``"none"``, ``"rope"`` 또는 한국어 이름 없음/RoPE)을 코드 이름으로 (한국어 ValueError).

    Shape:
        - 해당 없음 (글)
    """
    name = {label: key for key, label in POSITION_LABELS.items()}.get(position, position)
    if name not in POSITIONS:
        raise ValueError(f"위치는 {', '.join(POSITIONS)} (없음/RoPE) 중 하나여야 하는데 {position!r}이(가) 들어왔습니다.")
    return name


def check_window(window: object) -> int | None:
    """창이 ``WINDOWS``(``None`` = 전체, 또는 정수) 중 하나인지 확인합니다 (한국어 ValueError).

    Shape:
        - 해당 없음
    """
    if window == "전체":
        window = None
    if window is not None and (isinstance(window, bool) or not isinstance(window, int)) or window not in WINDOWS:
        raise ValueError(f"창은 {', '.join(WINDOW_LABELS.values())} 중 하나(None = 전체)여야 하는데 "
                         f"{window!r}이(가) 들어왔습니다.")
    return window


def _token_seed(token: str, seed: int) -> int:
    """토큰 글자와 시드로 정해지는 난수 시드 (같은 토큰은 어느 자리에서나 같은 임베딩)."""
    return (seed * 1_000_003 + zlib.crc32(token.encode("utf-8"))) % (2**63 - 1)


class ExplorerModel:
    """탐색기의 고정된 무작위 모델: 토큰별 임베딩과 헤드별 쿼리·키 투영.

    Args:
        seed: 투영 행렬과 임베딩을 정하는 시드 (0 이상 정수).

    Shape:
        - W_q, W_k: ``(MAX_HEADS, E0, MAX_DK)``
        - shared_angle: ``(MAX_HEADS,)`` (RoPE를 켤 때 더하는 같은 성분의 방향, ``shared_component``)
        - embed(tokens): ``(L, E0)``
        - queries_keys(...): 각각 ``(H, L, Dh)``
        - weights(...): ``(H, L, S)``
    """

    def __init__(self, seed: int = 0) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"seed는 0 이상의 정수여야 하는데 {seed!r}이(가) 들어왔습니다.")
        self.seed = seed
        g = torch.Generator().manual_seed(seed)
        std = 1.0 / math.sqrt(EMBED_WIDTH)
        with single_thread():
            self.W_q = torch.randn(MAX_HEADS, EMBED_WIDTH, MAX_DK, generator=g).mul_(std)
            self.W_k = torch.randn(MAX_HEADS, EMBED_WIDTH, MAX_DK, generator=g).mul_(std)
            # RoPE를 켤 때만 쓰는 같은 성분(shared_component)의 평면 안 방향, 키·밸류 헤드마다 (W_q, W_k 다음에 뽑아 둘은 그대로)
            self.shared_angle = torch.rand(MAX_HEADS, generator=g).mul_(2 * math.pi)

    def shared_component(self, d_k: int, num_kv_heads: int) -> Tensor:
        """RoPE를 켤 때 키·밸류 헤드 ``g``의 모든 키(와 그 헤드를 쓰는 쿼리)에 더하는 같은 벡터 ``u_g``.

        가장 빨리 도는 평면(특징 0과 ``d_k / 2``)에만 있고 ``|u_g|^2 = ROPE_SHARED_GAIN * sqrt(d_k)``입니다.

        Shape:
            - 반환: ``(Hkv, Dh)`` (``Dh = d_k``, 짝수)
        """
        radius = math.sqrt(ROPE_SHARED_GAIN * math.sqrt(d_k))
        angle = self.shared_angle[:num_kv_heads]  # (Hkv,)
        shared = torch.zeros(num_kv_heads, d_k)
        shared[:, 0], shared[:, d_k // 2] = radius * angle.cos(), radius * angle.sin()
        return shared

    def embed(self, tokens: Sequence[str]) -> Tensor:
        """토큰마다 시드로 정해진 임베딩 벡터 하나 (같은 글자면 같은 벡터).

        Shape:
            - tokens: 길이 ``L``
            - 반환: ``(L, E0)``
        """
        rows = [torch.randn(EMBED_WIDTH, generator=torch.Generator().manual_seed(_token_seed(t, self.seed)))
                for t in tokens]
        return torch.stack(rows)  # L x (E0,) -> (L, E0)

    def queries_keys(
        self, tokens: Sequence[str], d_k: int, num_heads: int, num_kv_heads: int | None = None,
        position: str = "none",
    ) -> tuple[Tensor, Tensor]:
        """앞쪽 ``num_heads``개 헤드의 쿼리와 앞쪽 ``num_kv_heads``개 헤드의 키, 앞쪽 ``d_k``칸.

        그룹 쿼리 어텐션(``num_kv_heads < num_heads``)에서도 포개짐을 지키려고, 키·밸류 헤드 ``g``의 키는
        헤드 ``g``의 키(``W_k[g]``)입니다. 쿼리 헤드 ``h``는 키·밸류 헤드 ``h // (H / Hkv)``를 씁니다
        (``repeat_kv``, PyTorch ``enable_gqa``와 같은 짝). 탐색기는 가중치만 그리므로 밸류는 만들지 않습니다.

        ``position="rope"``이면 키·밸류 헤드 ``g``의 같은 벡터 ``shared_component(d_k)[g]``를 그 헤드의 모든
        키와, 그 헤드를 쓰는 쿼리 헤드들의 모든 쿼리에 더한 뒤 ``apply_rope``로 토큰 ``i``를 위치 ``i``만큼 돌립니다
        (``base`` 기본값 10000). ``d_k = 1``이면 돌릴 짝이 없어 ``"none"``과 같습니다.

        Shape:
            - 반환: ``(query, key)``, ``(H, L, Dh)``와 ``(Hkv, S, Dh)`` (``Dh = d_k``, ``Hkv`` 기본값 ``H``)
        """
        if not 1 <= d_k <= MAX_DK or not 1 <= num_heads <= MAX_HEADS:
            raise ValueError(f"d_k는 1~{MAX_DK}, num_heads는 1~{MAX_HEADS}여야 하는데 {d_k}, {num_heads}입니다.")
        num_kv_heads = num_heads if num_kv_heads is None else check_kv_heads(num_heads, num_kv_heads)
        x = self.embed(tokens)  # (L, E0)
        query = x @ self.W_q[:num_heads, :, :d_k]  # (L, E0) @ (H, E0, Dh) -> (H, L, Dh)
        key = x @ self.W_k[:num_kv_heads, :, :d_k]  # (L, E0) @ (Hkv, E0, Dh) -> (Hkv, S, Dh)
        if check_position(position) == "rope" and d_k >= 2:
            group = num_heads // num_kv_heads
            shared = self.shared_component(d_k, num_kv_heads)[:, None, :]  # (Hkv, Dh) -> (Hkv, 1, Dh)
            query = query + shared.repeat_interleave(group, dim=0)  # (H, L, Dh) + (H, 1, Dh): 쿼리 헤드 h에 키 헤드 h // G
            key = key + shared  # (Hkv, S, Dh) + (Hkv, 1, Dh)
            positions = torch.arange(len(x))
            query, key = apply_rope(query, positions), apply_rope(key, positions)  # 모양 그대로
        return query, key

    def raw_scores(self, tokens: Sequence[str], d_k: int, shift: int = 0, position: str = "none") -> Tensor:
        """스케일링과 마스크 전의 내적, 모든 ``MAX_HEADS``개 쿼리 헤드: 헤드 ``h``의 쿼리와 키 헤드 ``h >> shift``.

        ``shift = log2(H / Hkv)``입니다 (0이면 보통의 멀티헤드 어텐션 ``Q_h K_h^T``). 헤드 수가 2의 거듭제곱이면
        그룹 크기 ``G = 2^shift``이고 ``h // G = h >> shift``입니다. ``position``은 ``queries_keys``와 같음.

        Shape:
            - 반환: ``(MAX_HEADS, L, S)``
        """
        with single_thread():
            query, key = self.queries_keys(tokens, d_k, MAX_HEADS, MAX_HEADS >> shift, position)
            key = key[torch.arange(MAX_HEADS) >> shift]  # (H, S, Dh): 헤드 h 자리에 키 헤드 h >> shift
            return query @ key.transpose(-2, -1)  # (H, L, Dh) @ (H, Dh, S) -> (H, L, S)

    def weights(
        self, tokens: Sequence[str], *, d_k: int, num_heads: int, mask: str, scaled: bool,
        num_kv_heads: int | None = None, position: str = "none", window: int | None = None,
    ) -> tuple[Tensor, Tensor, Tensor, Tensor | None]:
        """``scaled_dot_product_attention``으로 어텐션 가중치를 계산합니다 (``Hkv < H``면 ``enable_gqa=True``).

        ``tokens``는 보이는 토큰 그대로입니다(패딩 마스크면 ``[PAD]`` 포함). ``position="rope"``이면 쿼리·키가
        ``queries_keys``의 RoPE 쿼리·키이고, ``window``는 ``explorer_mask``처럼 마스크와 함께 걸립니다.

        Returns:
            ``(weights, query, key, attn_mask)``.

        Shape:
            - weights: ``(H, L, S)`` (쿼리 헤드마다)
            - query, key: ``(H, L, Dh)``, ``(Hkv, S, Dh)``
            - attn_mask: ``None`` 또는 ``(H, L, S)``로 브로드캐스트되는 bool 마스크
        """
        tokens = list(tokens)
        n = sum(t != PAD_TOKEN for t in tokens)
        num_kv_heads = num_heads if num_kv_heads is None else num_kv_heads
        with single_thread():
            query, key = self.queries_keys(tokens, d_k, num_heads, num_kv_heads, position)
            attn_mask = explorer_mask(mask, len(tokens), n, check_window(window))
            value = torch.zeros(num_kv_heads, len(tokens), 1)  # (Hkv, S, 1): 출력은 쓰지 않고 가중치만 봅니다
            scale = None if scaled else 1.0
            _, attn_weights = scaled_dot_product_attention(query, key, value, attn_mask, scale=scale,
                                                           enable_gqa=num_kv_heads != num_heads)
        return attn_weights, query, key, attn_mask
