"""어텐션 싱크 실험: 작은 언어 모델을 학습하고, 맨 앞 토큰을 버리면 손실이 얼마나 나빠지는지 잽니다.

과제는 바이그램-백카피(bigram-backcopy, Guo et al. 2024가 싱크를 설명하려고 쓴 과제를 줄인 것)입니다.
시퀀스는 시작 토큰 ``BOS``로 시작하고, 다음 토큰은 보통 지금 토큰의 바이그램 표에서 뽑지만 지금 토큰이
**방아쇠** 토큰(``0 .. triggers-1``)이면 바로 앞 토큰을 그대로 베낍니다. 앞 토큰을 보는 헤드는 방아쇠 뒤에서만
할 일이 있고, 나머지 자리에서는 "아무것도 하지 않는" 곳이 필요합니다. 소프트맥스 가중치의 합은 1이므로
헤드는 그 가중치를 어딘가에 두어야 하고, 늘 보이는 첫 토큰이 그 자리가 됩니다(어텐션 싱크, Xiao et al. 2023).

``streaming_losses``는 같은 모델을 세 가지로 평가합니다: 전체 인과 마스크, 최근 ``window``개만 보는 창,
창 + 맨 앞 ``sink``개. 같은 캐시 크기끼리 비교하도록 싱크가 있는 창은 최근 토큰을 ``sink``개 덜 봅니다
(``KVCache(max_len=window, sink=sink)``가 남기는 것과 같은 마스크). 핵심 모듈만 import합니다.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from torch import Tensor, nn

from attn_lib._checks import check_nonnegative_int, check_positive_int, describe, single_thread
from attn_lib.attention import MultiHeadAttention
from attn_lib.kv_cache import KVCache
from attn_lib.masks import causal_mask, sliding_window_mask

__all__ = ["SinkConfig", "SinkLM", "backcopy_batch", "train_sink_lm", "first_token_mass", "streaming_losses",
           "stream_cache_bytes"]


@dataclass(frozen=True)
class SinkConfig:
    """싱크 실험의 설정 (과제, 모델, 학습).

    Args:
        vocab: 일반 토큰 수 ``V`` (``BOS``는 따로 하나 더, 번호 ``V``).
        triggers: 방아쇠 토큰 수 (번호 ``0 .. triggers-1``).
        trigger_rate: 일반 토큰 뒤에 방아쇠가 올 확률.
        seq_len: 학습·평가 시퀀스 길이 ``T`` (``BOS`` 포함).
        embed_dim, num_heads, num_layers: 모델 너비 ``E``, 헤드 수 ``H``, 층 수.
        steps, batch_size, lr: 학습 단계 수, 배치 크기, Adam 학습률.
        task_seed: 바이그램 표의 시드 (모델 시드와 따로: 같은 과제에서 모델 시드만 바꿀 수 있게).
        mlp: 층마다 MLP를 둘지. 기본은 어텐션만: MLP가 있으면 헤드의 출력을 MLP가 걸러 낼 수 있어서
            싱크를 버린 손해가 훨씬 작게 나옵니다(``tests/test_sinks.py``가 두 경우를 모두 잽니다).

    Shape:
        - 토큰 시퀀스: ``(B, T)``
    """

    vocab: int = 24
    triggers: int = 3
    trigger_rate: float = 0.15
    seq_len: int = 48
    embed_dim: int = 32
    num_heads: int = 2
    num_layers: int = 1
    steps: int = 300
    batch_size: int = 32
    lr: float = 1e-2
    task_seed: int = 0
    mlp: bool = False

    def __post_init__(self) -> None:
        for name in ("vocab", "triggers", "seq_len", "embed_dim", "num_heads", "num_layers", "steps", "batch_size"):
            check_positive_int(getattr(self, name), name)
        if self.triggers >= self.vocab:
            raise ValueError(f"triggers(={self.triggers})는 vocab(={self.vocab})보다 작아야 합니다.")
        if self.seq_len < 3:
            raise ValueError(f"seq_len(={self.seq_len})은 3 이상이어야 합니다: BOS와 토큰 둘은 있어야 베낄 것이 생깁니다.")
        if not (isinstance(self.trigger_rate, float) and 0.0 < self.trigger_rate < 1.0):
            raise ValueError(f"trigger_rate는 0과 1 사이의 실수여야 하는데 {self.trigger_rate!r}이(가) 들어왔습니다.")
        if not (isinstance(self.lr, float) and self.lr > 0):
            raise ValueError(f"lr은 양의 실수여야 하는데 {self.lr!r}이(가) 들어왔습니다.")


def _bigram_table(cfg: SinkConfig) -> Tensor:
    """일반 토큰(방아쇠가 아닌 토큰)마다 다음 일반 토큰의 확률표 (``task_seed``로 고정, 몇 후보에 몰림).

    Shape:
        - 반환: ``(V, V)``, 행마다 합 1, 방아쇠 열은 0
    """
    g = torch.Generator().manual_seed(cfg.task_seed)
    logits = torch.randn(cfg.vocab, cfg.vocab, generator=g) * 2.0  # (V, V): 행마다 뾰족한 분포
    logits[:, : cfg.triggers] = float("-inf")  # 방아쇠는 바이그램으로 나오지 않고 따로 끼워 넣음
    return torch.softmax(logits, dim=-1)


def backcopy_batch(cfg: SinkConfig, batch_size: int, generator: torch.Generator) -> Tensor:
    """바이그램-백카피 시퀀스 묶음: ``BOS``, 일반 토큰, 그다음은 바이그램 또는 방아쇠, 방아쇠 뒤에는 베끼기.

    일반 토큰 뒤에는 확률 ``trigger_rate``로 무작위 방아쇠가, 아니면 바이그램 표의 다음 토큰이 옵니다.
    방아쇠 뒤에는 방아쇠 바로 앞 토큰이 그대로 옵니다(베끼기).

    Args:
        cfg: 설정.
        batch_size: 시퀀스 수 ``B``.
        generator: 난수 생성기 (같은 상태면 같은 묶음).

    Returns:
        정수 토큰 ``(B, T)``; ``[:, 0]``은 모두 ``BOS = cfg.vocab``.

    Shape:
        - 반환: ``(B, T)``
    """
    check_positive_int(batch_size, "batch_size")
    table = _bigram_table(cfg)  # (V, V)
    x = torch.empty(batch_size, cfg.seq_len, dtype=torch.long)  # (B, T)
    x[:, 0] = cfg.vocab
    x[:, 1] = torch.randint(cfg.triggers, cfg.vocab, (batch_size,), generator=generator)
    for t in range(2, cfg.seq_len):
        prev = x[:, t - 1]  # (B,)
        after_trigger = prev < cfg.triggers
        drawn = torch.multinomial(table[prev.clamp(min=cfg.triggers)], 1, generator=generator)[:, 0]  # (B,)
        trigger = torch.randint(cfg.triggers, (batch_size,), generator=generator)  # (B,)
        insert = torch.rand(batch_size, generator=generator) < cfg.trigger_rate
        x[:, t] = torch.where(after_trigger, x[:, t - 2], torch.where(insert, trigger, drawn))
    return x


class SinkLM(nn.Module):
    """RoPE 셀프 어텐션 층을 쌓은 작은 언어 모델 (pre-LayerNorm, 잔차 연결, 선택적 MLP, 다음 토큰 로짓).

    Args:
        cfg: 설정 (``vocab``, ``embed_dim``, ``num_heads``, ``num_layers``).
        seed: 초기값 시드 (전역 난수 상태는 바꾸지 않음).

    Shape:
        - tokens: ``(B, T)`` -> 로짓 ``(B, T, V)``, 층별 가중치 ``(B, H, T, S)``
    """

    def __init__(self, cfg: SinkConfig, seed: int = 0) -> None:
        super().__init__()
        E = cfg.embed_dim
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.embed = nn.Embedding(cfg.vocab + 1, E)
            self.attn = nn.ModuleList(MultiHeadAttention(E, cfg.num_heads, rope_base=100.0)
                                      for _ in range(cfg.num_layers))
            self.norm1 = nn.ModuleList(nn.LayerNorm(E) for _ in range(cfg.num_layers))
            self.norm2 = nn.ModuleList(nn.LayerNorm(E) for _ in range(cfg.num_layers))
            self.mlp = nn.ModuleList(nn.Sequential(nn.Linear(E, 4 * E), nn.GELU(), nn.Linear(4 * E, E))
                                     for _ in range(cfg.num_layers))
            self.out = nn.Sequential(nn.LayerNorm(E), nn.Linear(E, cfg.vocab))
        self.cfg = cfg

    def forward(self, tokens: Tensor, attn_mask: Tensor | None = None,
                caches: list[KVCache] | None = None) -> tuple[Tensor, list[Tensor]]:
        """다음 토큰 로짓과 층별 어텐션 가중치. ``caches``가 있으면 캐시 뒤에 이어지는 새 토큰으로 계산합니다.

        Shape:
            - tokens: ``(B, T)``, attn_mask: ``(T, T)`` (``None``이고 캐시도 없으면 인과 마스크)
            - 반환: ``(B, T, V)``, 층마다 ``(B, H, T, S)``
        """
        if not isinstance(tokens, Tensor) or tokens.dim() != 2 or tokens.is_floating_point():
            raise ValueError(f"tokens는 (B, T) 정수 텐서여야 하는데 {describe(tokens)}이(가) 들어왔습니다.")
        if caches is None and attn_mask is None:
            attn_mask = causal_mask(tokens.shape[1], device=tokens.device)  # (T, T)
        x = self.embed(tokens)  # (B, T) -> (B, T, E)
        weights = []
        for i, attn in enumerate(self.attn):
            cache = None if caches is None else caches[i]
            h, w = attn(self.norm1[i](x), attn_mask=attn_mask, kv_cache=cache)  # (B, T, E), (B, H, T, S)
            x = x + h
            if self.cfg.mlp:
                x = x + self.mlp[i](self.norm2[i](x))  # (B, T, E) -> (B, T, 4E) -> (B, T, E)
            weights.append(w)
        return self.out(x), weights  # (B, T, E) -> (B, T, V)


def _loss(logits: Tensor, tokens: Tensor, start: int = 1) -> Tensor:
    """위치 ``start`` 이후를 맞히는 교차 엔트로피 (위치 ``t``의 로짓이 토큰 ``t+1``을 맞힘)."""
    pred = logits[:, start - 1 : -1].reshape(-1, logits.shape[-1])  # (B, T-start, V) -> (B*(T-start), V)
    target = tokens[:, start:].reshape(-1)  # (B, T-start) -> (B*(T-start),)
    return nn.functional.cross_entropy(pred, target)


def train_sink_lm(cfg: SinkConfig, seed: int = 0) -> tuple[SinkLM, list[float]]:
    """``SinkLM``을 바이그램-백카피 과제로 학습합니다 (스레드 하나, 시드 고정이라 다시 돌려도 같은 결과).

    Returns:
        ``(학습한 모델(eval 모드), 단계별 학습 손실)``.

    Shape:
        - 학습 묶음: ``(batch_size, seq_len)``
    """
    check_nonnegative_int(seed, "seed")
    with single_thread(seed):
        model = SinkLM(cfg, seed=seed)
        opt = torch.optim.Adam(model.parameters(), lr=cfg.lr)
        g = torch.Generator().manual_seed(10_000 + seed)
        losses = []
        for _ in range(cfg.steps):
            tokens = backcopy_batch(cfg, cfg.batch_size, g)  # (B, T)
            loss = _loss(model(tokens)[0], tokens, start=2)  # BOS 다음 첫 토큰은 맞힐 수 없으므로 뺌
            opt.zero_grad()
            loss.backward()
            opt.step()
            losses.append(loss.item())
    return model.eval(), losses


@torch.no_grad()
def first_token_mass(model: SinkLM, tokens: Tensor, *, first: int = 1, skip: int = 8) -> Tensor:
    """층·헤드마다, 위치 ``skip`` 이후 쿼리들이 맨 앞 ``first``개 토큰에 준 어텐션 가중치의 평균.

    균등한 어텐션이라면 위치 ``p``의 쿼리가 맨 앞 토큰 하나에 주는 몫은 ``1/(p+1)``입니다.

    Shape:
        - tokens: ``(B, T)``
        - 반환: ``(num_layers, H)``
    """
    if not 0 <= skip < tokens.shape[1]:
        raise ValueError(f"skip(={skip})은 0 이상 T(={tokens.shape[1]}) 미만이어야 합니다.")
    _, weights = model(tokens)
    return torch.stack([w[:, :, skip:, :first].sum(-1).mean(dim=(0, 2)) for w in weights])  # (layers, H)


@torch.no_grad()
def streaming_losses(model: SinkLM, tokens: Tensor, window: int, sinks: tuple[int, ...] = (1, 2)) -> dict[str, float]:
    """캐시 크기 ``window``로 같은 토큰을 평가한 손실 (위치 ``window`` 이후 예측만: 그 전에는 셋이 같음).

    Returns:
        ``{"전체 캐시": ..., "창만 (싱크 0)": ..., "창 + 싱크 s": ...}`` 교차 엔트로피(nats).

    Shape:
        - tokens: ``(B, T)``, ``window < T``
    """
    T = tokens.shape[1]
    check_positive_int(window, "window")
    if window >= T - 1 or any(not 0 < s < window for s in sinks):
        raise ValueError(f"window(={window})는 T-1(={T - 1})보다 작고, sinks({sinks})의 값은 0과 window 사이여야 합니다.")
    out = {"전체 캐시": _loss(model(tokens)[0], tokens, start=window + 1).item()}
    out["창만 (싱크 0)"] = _loss(model(tokens, sliding_window_mask(T, T, window))[0], tokens, window + 1).item()
    for s in sinks:
        mask = sliding_window_mask(T, T, window - s, sink=s)  # (T, T): 싱크 s개 + 최근 window-s개
        out[f"창 + 싱크 {s}"] = _loss(model(tokens, mask)[0], tokens, window + 1).item()
    return out


@torch.no_grad()
def stream_cache_bytes(model: SinkLM, tokens: Tensor, caches: list[KVCache]) -> tuple[list[int], Tensor]:
    """토큰을 하나씩 흘려 넣으며 단계마다 층별 캐시 바이트의 합을 적습니다.

    Returns:
        ``(단계별 바이트, 단계별 로짓)``.

    Shape:
        - tokens: ``(B, T)``
        - 반환: 길이 ``T`` 목록, ``(B, T, V)``
    """
    if len(caches) != len(model.attn):
        raise ValueError(f"caches는 층마다 하나씩 {len(model.attn)}개여야 하는데 {len(caches)}개입니다.")
    sizes, logits = [], []
    for t in range(tokens.shape[1]):
        logits.append(model(tokens[:, t : t + 1], caches=caches)[0])  # (B, 1, V)
        sizes.append(sum(c.nbytes for c in caches))
    return sizes, torch.cat(logits, dim=1)  # T x (B, 1, V) -> (B, T, V)
