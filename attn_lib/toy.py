"""작은 학습 실험: 두 관계를 한꺼번에 봐야 하는 합성 과제로 헤드 수(1, 2, 4)를 비교합니다.

과제: 어휘 ``V``개에서 균등하게 뽑은 열 ``x_0..x_{L-1}``에서, 위치 ``t >= 2``마다
``y_t = f(x_0, x_{t-1})``를 맞힙니다. ``f``는 ``ToyConfig.table_seed``로 만든 ``V x V`` 무작위 표이고
대체로 ``f(a, b) != f(b, a)``(비대칭)입니다. 즉 "첫 토큰(위치 0)"과 "바로 앞 토큰(위치 t-1)"이라는
두 관계를 함께 보고, 어느 토큰이 어느 자리에서 왔는지도 알아야 합니다.

모델: 토큰 임베딩 + 학습된 위치 임베딩 -> ``MultiHeadAttention`` 한 층 -> 잔차 -> 작은 MLP.
모든 위치를 한 번에 예측하므로(GPT처럼) 미래를 못 보게 ``causal_mask``를 씁니다. 위치 0, 1은
``t-1``이 없거나 첫 토큰과 같으므로 손실과 정확도에서 뺍니다. ``MultiHeadAttention``의 파라미터 수는
``4*E*E + 4*E``로 ``H``와 무관하므로, 헤드 1/2/4개 모델은 ``E``도 파라미터 수도 똑같습니다.

헤드 하나가 왜 힘든가: 소프트맥스 하나는 쿼리마다 밸류의 가중 평균(볼록 결합) 하나만 만듭니다.
위치 0과 ``t-1``에 반반씩 어텐션하면 토큰 성분은 ``(v(a) + v(b)) / 2``라 ``a``와 ``b``를 바꿔도 같고,
``f(a, b)``와 ``f(b, a)``를 구별할 수 없습니다. 0.6/0.4처럼 기울인 비율이면 원리상 구별되지만, 학습은
대개 그 전에 쉬운 관계 하나(위치 0)에 가중치를 몰아 버리고(포화), 포화된 소프트맥스는 기울기가
거의 0이라 빠져나오지 못합니다. 그때 정확도는 "첫 토큰만 알 때의 한계"(``relation_ceilings``)에
멈춥니다. 헤드가 둘이면 헤드마다 관계 하나를 맡아 서로 다른 ``Dh`` 칸에 담으므로 순서가 보존됩니다.
헤드를 나눠도 파라미터는 늘지 않습니다: 같은 파라미터로 분포를 여러 개 만들 뿐입니다.

주의: 결과는 시드에 따라 다릅니다(기본 설정에서 헤드 1개도 드물게 기울인 비율을 찾고, 헤드 2개도
드물게 두 헤드가 같은 관계에 몰립니다). 역할 분담은 보장이 아니라 측정할 대상입니다:
``head_relation_shares``로 확인하세요.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from ._checks import check_positive_int, check_seed, describe, single_thread
from .attention import MultiHeadAttention
from .masks import causal_mask

__all__ = [
    "ToyConfig", "HeadToyModel", "lookup_table", "make_task_batch", "relation_ceilings",
    "train_head_model", "head_experiment", "compare_heads", "head_relation_shares", "name_head_relations",
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
        lr: 학습률.
        test_size: 평가용 열 개수.
        table_seed: 표 ``f``의 시드 (모든 모델이 같은 과제를 풀도록 고정).
        test_seed: 평가 데이터 시드 (학습 시드와 무관하게 고정).

    Shape:
        - 입력 토큰: ``(B, L)``, 로짓: ``(B, L, V)``, 어텐션 가중치: ``(B, H, L, L)``
    """

    vocab_size: int = 8
    seq_len: int = 10
    embed_dim: int = 32
    mlp_dim: int = 64
    steps: int = 300
    batch_size: int = 64
    lr: float = 0.02
    test_size: int = 2000
    table_seed: int = 0
    test_seed: int = 12345

    def __post_init__(self) -> None:
        for name in ("vocab_size", "seq_len", "embed_dim", "mlp_dim", "steps", "batch_size", "test_size"):
            check_positive_int(getattr(self, name), name)
        if self.seq_len < 3:
            raise ValueError(f"seq_len은 3 이상이어야 하는데(위치 t >= 2를 예측) {self.seq_len}이(가) 들어왔습니다.")
        if isinstance(self.lr, bool) or not isinstance(self.lr, (int, float)) or not self.lr > 0:
            raise ValueError(f"lr은 양의 실수여야 하는데 {self.lr!r}이(가) 들어왔습니다.")


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
        self.attn = MultiHeadAttention(E, num_heads)
        self.readout = nn.Sequential(
            nn.LayerNorm(E), nn.Linear(E, config.mlp_dim), nn.ReLU(), nn.Linear(config.mlp_dim, config.vocab_size)
        )

    def forward(self, tokens: Tensor) -> tuple[Tensor, Tensor]:
        """로짓과 헤드별 어텐션 가중치를 돌려줍니다 (헤드 축을 평균 내지 않음).

        Shape:
            - tokens: ``(B, L)``
            - 반환: ``(logits (B, L, V), weights (B, H, L, L))``
        """
        _check_tokens(tokens, self.config)
        L = tokens.shape[1]
        positions = torch.arange(L, device=tokens.device)  # (L,)
        x = self.tok_emb(tokens) + self.pos_emb(positions)  # (B, L, E) + (L, E) -> (B, L, E)
        attn_out, attn_weights = self.attn(x, attn_mask=causal_mask(L, device=tokens.device))
        logits = self.readout(x + attn_out)  # (B, L, E) -> (B, L, V)
        return logits, attn_weights


def _check_tokens(tokens: object, config: ToyConfig) -> None:
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
    g = torch.Generator().manual_seed(config.table_seed)
    return torch.randint(config.vocab_size, (config.vocab_size, config.vocab_size), generator=g)  # (V, V)


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
    targets[:, 2:] = lookup_table(config)[first, previous]  # (V, V)[(B, L-2), (B, L-2)] -> (B, L-2)
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


def train_head_model(num_heads: int, seed: int, config: ToyConfig | None = None) -> tuple[HeadToyModel, float]:
    """헤드 ``num_heads``개 모델을 학습하고, 따로 떼어 둔 평가 데이터에서 정확도를 잽니다.

    초기화와 학습 데이터는 ``seed``로, 평가 데이터는 ``config.test_seed``로 정해집니다. 학습 중에만
    스레드 수를 1로 두며, 끝나면 전역 스레드 수와 전역 난수 상태를 되돌립니다.

    Args:
        num_heads: 헤드 수 ``H`` (``embed_dim``을 나누어떨어뜨려야 함).
        seed: 0 이상의 정수 시드.
        config: 하이퍼파라미터 (기본 ``ToyConfig()``).

    Returns:
        ``(학습된 모델(eval 모드), 정확도)``. 정확도는 평가 열의 위치 ``t >= 2`` 전체에 대한 비율입니다.

    Shape:
        - 모델 입력 ``(B, L)`` -> ``(logits (B, L, V), weights (B, H, L, L))``

    Raises:
        TypeError: ``num_heads``/``seed``가 정수가 아니거나 ``config``가 ``ToyConfig``가 아닐 때.
        ValueError: ``num_heads < 1``이거나 ``embed_dim``을 나누지 못할 때, ``seed < 0``일 때.
    """
    config = ToyConfig() if config is None else config
    if not isinstance(config, ToyConfig):
        raise TypeError(f"config는 ToyConfig여야 하는데 {describe(config)}이(가) 들어왔습니다.")
    check_positive_int(num_heads, "num_heads")
    check_seed(seed)
    if config.embed_dim % num_heads != 0:
        raise ValueError(
            f"embed_dim(={config.embed_dim})은 num_heads(={num_heads})로 나누어떨어져야 합니다 "
            f"(나머지 {config.embed_dim % num_heads})."
        )
    # 스레드 하나 + 시드 고정(초기화용; 학습·평가 데이터는 따로 만든 Generator를 씀), 끝나면 전역 상태 복원
    with single_thread(seed):
        return _train(num_heads, seed, config)


def _train(num_heads: int, seed: int, config: ToyConfig) -> tuple[HeadToyModel, float]:
    """학습 루프 본체 (검사와 전역 상태 관리는 ``train_head_model``이 맡음)."""
    model = HeadToyModel(config, num_heads)
    data_gen = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    model.train()
    for _ in range(config.steps):
        tokens, targets = make_task_batch(config.batch_size, config, data_gen)
        logits, _ = model(tokens)
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())  # (B, L, V) -> (B*L, V), (B, L) -> (B*L,)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
    model.eval()
    test_tokens, test_targets = make_task_batch(config.test_size, config, torch.Generator().manual_seed(config.test_seed))
    with torch.no_grad():
        logits, _ = model(test_tokens)
    scored = test_targets != IGNORE_INDEX  # (B, L)
    return model, (logits.argmax(dim=-1)[scored] == test_targets[scored]).double().mean().item()


def head_experiment(num_heads: int, seed: int, config: ToyConfig | None = None) -> float:
    """새로 학습한 모델의 평가 정확도(``train_head_model``과 같은 인자). 같은 시드면 프로세스가 달라도 같은 값.

    Shape:
        - 반환: 0~1 사이의 파이썬 ``float``
    """
    return train_head_model(num_heads, seed, config)[1]


def compare_heads(
    head_counts: Sequence[int] = (1, 2, 4), seeds: Sequence[int] = (0, 1, 2), config: ToyConfig | None = None
) -> dict[int, list[float]]:
    """헤드 수 x 시드 정확도 표. 헤드 수 말고는 모든 하이퍼파라미터가 같습니다.

    Shape:
        - 반환: ``{num_heads: [시드별 정확도, ...]}`` (길이 ``len(seeds)``인 목록)
    """
    return {h: [head_experiment(h, s, config) for s in seeds] for h in head_counts}


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
