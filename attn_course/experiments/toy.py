"""작은 학습 실험: 두 관계를 한꺼번에 봐야 하는 합성 과제로 헤드 수(1, 2, 4)를 비교합니다.

과제: 어휘 ``V``개에서 균등하게 뽑은 열 ``x_0..x_{L-1}``에서, 위치 ``t >= 2``마다
``y_t = f(x_0, x_{t-1})``를 맞힙니다. ``f``는 ``ToyConfig.table_seed``로 만든 ``V x V`` 무작위 표이고
대체로 ``f(a, b) != f(b, a)``(비대칭)입니다. 즉 "첫 토큰(위치 0)"과 "바로 앞 토큰(위치 t-1)"이라는
두 관계를 함께 보고, 어느 토큰이 어느 자리에서 왔는지도 알아야 합니다.

모델: 토큰 임베딩 + 학습된 위치 임베딩 -> ``MultiHeadAttention`` 한 층 -> 잔차 -> 작은 MLP.
모든 위치를 한 번에 예측하므로(GPT처럼) 미래를 못 보게 ``causal_mask``를 씁니다. 위치 0, 1은
``t-1``이 없거나 첫 토큰과 같으므로 손실과 정확도에서 뺍니다. ``MultiHeadAttention``의 파라미터 수는
``4*E*E + 4*E``로 ``H``와 무관하므로, 헤드 1/2/4개 모델은 ``E``도 파라미터 수도 똑같습니다.

헤드 하나가 할 수 있는 것과 없는 것: 소프트맥스 하나는 쿼리마다 밸류의 볼록 결합 하나만 만듭니다.
위치 0과 ``t-1``에 반반씩 어텐션하면 ``a``와 ``b``를 바꿔도 출력이 같지만, 0.6/0.4처럼 기울인 비율이면
원리상 구별됩니다(구별 여유는 헤드 둘보다 작음). 학습이 그 비율을 찾는지는 설정에 달려 있습니다:
잰 결과는 ``head_sweep``(학습률 x 시드 x 헤드 수 스윕)과 5장에 있습니다. 헤드를 나눠도 파라미터는
늘지 않습니다: 같은 파라미터로 분포를 여러 개 만들 뿐입니다.

이 모듈은 과제와 모델(그리고 헤드가 어디를 보는지 재는 함수)만 둡니다. 학습은 ``head_training``,
여러 설정을 한꺼번에 돌리는 스윕은 ``head_sweep``에 있습니다.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import torch
from torch import Tensor, nn

from attn_lib._checks import check_positive_float, check_positive_int, describe
from attn_lib.attention import MultiHeadAttention
from attn_lib.masks import causal_mask

__all__ = [
    "ToyConfig", "HeadToyModel", "lookup_table", "make_task_batch", "relation_ceilings",
    "head_relation_shares", "name_head_relations", "IGNORE_INDEX",
]

IGNORE_INDEX = -100  # 손실·정확도에서 뺄 위치(t < 2)의 정답 값 (F.cross_entropy의 기본 ignore_index)


@dataclass(frozen=True)
class ToyConfig:
    """실험의 하이퍼파라미터. 헤드 수 비교에서는 ``num_heads``만 바꾸고 이 값은 그대로 둡니다.

    Args:
        vocab_size: 어휘 크기 ``V`` (클래스 수도 ``V``).
        seq_len: 열 길이 ``L`` (3 이상).
        embed_dim: 모델 너비 ``E``.
        mlp_dim: 읽기 MLP의 은닉 너비.
        steps: 옵티마이저(AdamW) 스텝 수.
        batch_size: 스텝마다 새로 뽑는 열 개수 ``B``.
        lr: AdamW의 학습률. 기본값 0.01은 5장 스윕(0.002~0.03)의 가운데이며, 결과가 이 값에 크게 달려
            있으므로(헤드 하나는 0.02부터 멈춤) 결론은 스윕으로만 냅니다.
        test_size: 평가용 열 개수.
        table_seed: 표 ``f``의 시드 (모든 모델이 같은 과제를 풀도록 고정).
        test_seed: 평가 데이터 시드 (학습 시드와 무관하게 고정).
        num_kv_heads: 키·밸류 헤드 수 ``Hkv`` (``None``이면 쿼리 헤드 수와 같음; 7장의 GQA 비교에서만 바꿈).

    Shape:
        - 입력 토큰: ``(B, L)``, 로짓: ``(B, L, V)``, 어텐션 가중치: ``(B, H, L, L)``
    """

    vocab_size: int = 8
    seq_len: int = 10
    embed_dim: int = 32
    mlp_dim: int = 64
    steps: int = 300
    batch_size: int = 64
    lr: float = 0.01
    test_size: int = 2000
    table_seed: int = 0
    test_seed: int = 12345
    num_kv_heads: int | None = None

    def __post_init__(self) -> None:
        for name in ("vocab_size", "seq_len", "embed_dim", "mlp_dim", "steps", "batch_size", "test_size"):
            check_positive_int(getattr(self, name), name)
        if self.seq_len < 3:
            raise ValueError(f"seq_len은 3 이상이어야 하는데(위치 t >= 2를 예측) {self.seq_len}이(가) 들어왔습니다.")
        check_positive_float(self.lr, "lr")
        if self.num_kv_heads is not None:
            check_positive_int(self.num_kv_heads, "num_kv_heads")


class HeadToyModel(nn.Module):
    """임베딩 + 인과 멀티헤드 어텐션 한 층 + 잔차 + MLP 읽기 층. 헤드 수만 바꿀 수 있습니다.

    Args:
        config: 하이퍼파라미터.
        num_heads: 헤드 수 ``H`` (``config.embed_dim``을 나누어떨어뜨려야 함).

    Shape:
        - tokens: ``(B, L)`` 정수, ``L <= config.seq_len``
        - 반환: ``logits (B, L, V)``, ``weights (B, H, L, L)``
    """

    def __init__(self, config: ToyConfig, num_heads: int) -> None:
        super().__init__()
        E = config.embed_dim
        self.config = config
        self.tok_emb = nn.Embedding(config.vocab_size, E)
        self.pos_emb = nn.Embedding(config.seq_len, E)  # 학습된 위치 임베딩: "첫"과 "이전"을 찾는 단서
        self.attn = MultiHeadAttention(E, num_heads, num_kv_heads=config.num_kv_heads)  # None이면 Hkv = H
        self.readout = nn.Sequential(
            nn.LayerNorm(E), nn.Linear(E, config.mlp_dim), nn.ReLU(), nn.Linear(config.mlp_dim, config.vocab_size)
        )
        # 인과 마스크는 한 번만 만들어 둡니다 (L <= seq_len이면 앞쪽 L x L을 잘라 씀). 저장하지 않는 버퍼.
        self.register_buffer("causal_mask", causal_mask(config.seq_len), persistent=False)

    def forward(self, tokens: Tensor) -> tuple[Tensor, Tensor]:
        """로짓과 헤드별 어텐션 가중치를 돌려줍니다 (헤드 축을 평균 내지 않음).

        Shape:
            - tokens: ``(B, L)``
            - 반환: ``(logits (B, L, V), weights (B, H, L, L))``
        """
        check_tokens(tokens, self.config)
        L = tokens.shape[1]
        positions = torch.arange(L, device=tokens.device)  # (L,)
        x = self.tok_emb(tokens) + self.pos_emb(positions)  # (B, L, E) + (L, E) -> (B, L, E)
        attn_out, attn_weights = self.attn(x, attn_mask=self.causal_mask[:L, :L])
        logits = self.readout(x + attn_out)  # (B, L, E) -> (B, L, V)
        return logits, attn_weights


def check_tokens(tokens: object, config: ToyConfig) -> None:
    """모델 입력 검사: 정수 텐서, ``(B, L)`` 모양, ``1 <= L <= seq_len``, 값은 ``0 <= 토큰 < vocab_size``.

    Shape:
        - tokens: ``(B, L)``
    """
    if not isinstance(tokens, Tensor) or tokens.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"tokens는 정수(long) 텐서여야 하는데 {describe(tokens)}이(가) 들어왔습니다.")
    if tokens.dim() != 2 or not 1 <= tokens.shape[1] <= config.seq_len:
        raise ValueError(
            f"tokens는 (B, L) 모양이고 1 <= L <= seq_len(={config.seq_len})이어야 하는데 "
            f"shape={tuple(tokens.shape)}이(가) 들어왔습니다."
        )
    if tokens.numel() and (tokens.min() < 0 or tokens.max() >= config.vocab_size):
        raise ValueError(
            f"tokens 값은 0 이상 vocab_size(={config.vocab_size}) 미만이어야 하는데 "
            f"범위 [{int(tokens.min())}, {int(tokens.max())}]이(가) 들어왔습니다."
        )


def lookup_table(config: ToyConfig) -> Tensor:
    """과제의 표 ``f``: ``f[a, b]``는 첫 토큰 ``a``, 이전 토큰 ``b``일 때의 정답 클래스입니다.

    Shape:
        - 반환: ``(V, V)`` 정수
    """
    return _table(config.vocab_size, config.table_seed).clone()  # 호출한 쪽이 고쳐도 캐시는 그대로


@lru_cache(maxsize=8)
def _table(vocab_size: int, table_seed: int) -> Tensor:
    g = torch.Generator().manual_seed(table_seed)
    return torch.randint(vocab_size, (vocab_size, vocab_size), generator=g)  # (V, V)


def make_task_batch(
    batch_size: int, config: ToyConfig, generator: torch.Generator | None = None
) -> tuple[Tensor, Tensor]:
    """데이터 한 묶음: ``targets[:, t] = f(tokens[:, 0], tokens[:, t-1])`` (t >= 2), 나머지는 ``-100``.

    Args:
        batch_size: 열 개수 ``B``.
        config: 하이퍼파라미터 (``V``, ``L``, 표 시드).
        generator: 재현용 난수 생성기 (``None``이면 전역 난수).

    Returns:
        ``(tokens, targets)``. ``-100``은 ``F.cross_entropy``가 무시하는 값입니다.

    Shape:
        - tokens, targets: ``(B, L)``
    """
    check_positive_int(batch_size, "batch_size")
    V, L = config.vocab_size, config.seq_len
    tokens = torch.randint(V, (batch_size, L), generator=generator)  # (B, L)
    first = tokens[:, :1].expand(-1, L - 2)  # (B, 1) -> (B, L-2)
    previous = tokens[:, 1 : L - 1]  # (B, L) -> (B, L-2): 쿼리 t=2..L-1의 이전 토큰
    targets = torch.full((batch_size, L), IGNORE_INDEX, dtype=torch.long)  # (B, L)
    targets[:, 2:] = _table(V, config.table_seed)[first, previous]  # (V, V)[(B, L-2), (B, L-2)] -> (B, L-2)
    return tokens, targets


def relation_ceilings(config: ToyConfig | None = None) -> dict[str, float]:
    """정보가 모자랄 때의 최고 정확도: 관계 하나만, 또는 순서 없는 쌍만 알 때.

    ``first_only``: 첫 토큰 ``a``만 알 때(행의 최빈값을 찍음). ``previous_only``: 이전 토큰만 알 때.
    ``unordered_pair``: ``{a, b}``는 알지만 순서를 모를 때(반반 섞인 헤드 하나가 주는 정보).

    Shape:
        - 반환: ``{"first_only", "previous_only", "unordered_pair"}`` -> 파이썬 ``float``
    """
    config = ToyConfig() if config is None else config
    f, V = lookup_table(config), config.vocab_size
    first = sum(int(torch.bincount(f[a], minlength=V).max()) for a in range(V)) / V**2
    previous = sum(int(torch.bincount(f[:, b], minlength=V).max()) for b in range(V)) / V**2
    pair = sum(1.0 if f[a, b] == f[b, a] else 0.5 for a in range(V) for b in range(V)) / V**2
    return {"first_only": first, "previous_only": previous, "unordered_pair": pair}


def head_relation_shares(weights: Tensor) -> Tensor:
    """헤드마다 "첫 토큰(위치 0)"과 "이전 토큰(위치 t-1)"에 간 어텐션 몫의 평균.

    두 관계가 서로 다른 위치를 가리키는 쿼리 ``t >= 2``만 평균합니다.

    Args:
        weights: 모델이 돌려준 어텐션 가중치.

    Returns:
        ``shares[h, 0]`` = 위치 0 몫, ``shares[h, 1]`` = 위치 ``t-1`` 몫.

    Shape:
        - weights: ``(B, H, L, L)``, ``L >= 3``
        - 반환: ``(H, 2)``
    """
    if not isinstance(weights, Tensor) or not torch.is_floating_point(weights):
        raise TypeError(f"weights는 실수 텐서여야 하는데 {describe(weights)}이(가) 들어왔습니다.")
    if weights.dim() != 4 or weights.shape[-1] != weights.shape[-2] or weights.shape[-1] < 3:
        raise ValueError(f"weights는 (B, H, L, L) 모양이고 L >= 3이어야 하는데 shape={tuple(weights.shape)}입니다.")
    t = torch.arange(2, weights.shape[-1], device=weights.device)  # (L-2,): 쿼리 위치
    on_first = weights[:, :, 2:, 0]  # (B, H, L, L) -> (B, H, L-2)
    on_previous = weights[:, :, t, t - 1]  # (B, H, L, L) -> (B, H, L-2)
    return torch.stack([on_first.mean(dim=(0, 2)), on_previous.mean(dim=(0, 2))], dim=-1)  # 2 x (H,) -> (H, 2)


def name_head_relations(weights: Tensor, threshold: float = 0.6) -> list[str]:
    """헤드마다 배운 관계의 이름: 한쪽 몫이 ``threshold`` 이상이면 ``"첫 토큰"``/``"이전 토큰"``, 아니면 ``"섞임"``.

    Args:
        weights: 모델이 돌려준 어텐션 가중치.
        threshold: 관계 하나로 부를 최소 몫, ``0.5 < threshold <= 1``.

    Shape:
        - weights: ``(B, H, L, L)``
        - 반환: 길이 ``H``인 ``list[str]``
    """
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0.5 < threshold <= 1:
        raise ValueError(f"threshold는 0.5보다 크고 1 이하여야 하는데 {threshold!r}이(가) 들어왔습니다.")
    return [
        "첫 토큰" if first >= threshold else "이전 토큰" if previous >= threshold else "섞임"
        for first, previous in head_relation_shares(weights).tolist()
    ]
