"""헤드 수 비교 실험의 학습: 한 모델을 학습하고, 원하면 학습 중에 잰 값을 남깁니다.

``train_head_model``은 모델과 평가 정확도를, ``train_with_history``는 여기에 더해 ``record_every`` 스텝마다
손실, 헤드별 몫, 포화된 행의 비율, ``W_q``/``W_k``에 닿은 기울기의 노름, AdamW가 실제로 움직인 크기
(``|Δθ| / lr``)를 ``TrainingHistory``로 돌려줍니다. 기록은 학습에 쓰는 값만 읽으므로 두 함수의 모델과
정확도는 비트까지 같습니다.

옵티마이저는 AdamW(Adam에 가중치 감쇠를 따로 더한 것)입니다. Adam은 스텝마다 기울기를 지난 기울기
제곱의 이동 평균(beta2 = 0.999, 대략 1000스텝의 기억)의 제곱근으로 나눕니다. 그래서 처음부터 작은
기울기는 가려 주지만, 큰 기울기 뒤에 갑자기 줄어든 기울기는 가리지 못합니다(5장에서 잼).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Sequence

import torch
from torch.nn import functional as F

from attn_lib._checks import check_positive_int, check_seed, describe, single_thread
from attn_lib.metrics import saturation
from .toy import IGNORE_INDEX, HeadToyModel, ToyConfig, head_relation_shares, make_task_batch

__all__ = [
    "TrainingHistory", "train_head_model", "train_with_history", "continue_training", "evaluate_head_model",
    "head_experiment", "compare_heads",
]


@dataclass(frozen=True)
class TrainingHistory:
    """학습 중에 ``record_every`` 스텝마다 잰 값들 (같은 길이의 튜플).

    Attributes:
        step: 기록한 스텝 번호 (0부터).
        loss: 그 스텝 학습 배치의 손실.
        first_share, previous_share: 헤드별 "첫 토큰"/"이전 토큰" 몫 (``head_relation_shares``), 스텝마다 ``H``개.
        saturated: 채점 위치(t >= 2) 행 가운데 최댓값이 0.99 이상인 행의 비율 (모든 헤드).
        grad_norm: 어텐션 점수를 만드는 ``W_q``, ``W_k`` 가중치에 닿은 기울기의 노름.
        update_per_lr: 그 스텝에 AdamW가 ``W_q``, ``W_k``를 실제로 움직인 크기를 학습률로 나눈 값.
        train_accuracy: 그 스텝 학습 배치의 채점 위치에서 잰 정확도 (파라미터를 고치기 전의 예측).

    Shape:
        - 각 필드: 길이 ``N`` (기록 횟수). ``first_share[i]``, ``previous_share[i]``는 길이 ``H``.
    """

    step: tuple[int, ...]
    loss: tuple[float, ...]
    first_share: tuple[tuple[float, ...], ...]
    previous_share: tuple[tuple[float, ...], ...]
    saturated: tuple[float, ...]
    grad_norm: tuple[float, ...]
    update_per_lr: tuple[float, ...]
    train_accuracy: tuple[float, ...]


def _check_train_args(num_heads: int, seed: int, config: ToyConfig | None) -> ToyConfig:
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
    return config


def train_head_model(num_heads: int, seed: int, config: ToyConfig | None = None) -> tuple[HeadToyModel, float]:
    """헤드 ``num_heads``개 모델을 학습하고, 따로 떼어 둔 평가 데이터에서 정확도를 잽니다.

    초기화와 학습 데이터는 ``seed``로, 평가 데이터는 ``config.test_seed``로 정해집니다. 학습 중에만
    스레드 수를 1로 두며, 끝나면 전역 스레드 수와 전역 난수 상태를 되돌립니다.

    Args:
        num_heads: 헤드 수 ``H`` (``embed_dim``을 나누어떨어뜨려야 함).
        seed: 0 이상의 정수 시드.
        config: 하이퍼파라미터 (기본 ``ToyConfig()``).

    Returns:
        ``(학습된 모델(eval 모드), 정확도)``. 정확도는 평가 시퀀스의 위치 ``t >= 2`` 전체에 대한 비율입니다.

    Shape:
        - 모델 입력 ``(B, L)`` -> ``(logits (B, L, V), weights (B, H, L, L))``

    Raises:
        TypeError: ``num_heads``/``seed``가 정수가 아니거나 ``config``가 ``ToyConfig``가 아닐 때.
        ValueError: ``num_heads < 1``이거나 ``embed_dim``을 나누지 못할 때, ``seed < 0``일 때.
    """
    config = _check_train_args(num_heads, seed, config)
    # 스레드 하나 + 시드 고정(초기화용; 학습·평가 데이터는 따로 만든 Generator를 씀), 끝나면 전역 상태 복원
    with single_thread(seed), torch.enable_grad():
        model, accuracy, _ = _train(num_heads, seed, config, record_every=0)
    return model, accuracy


def train_with_history(
    num_heads: int, seed: int, config: ToyConfig | None = None, record_every: int = 10
) -> tuple[HeadToyModel, float, TrainingHistory]:
    """``train_head_model``과 같은 학습을 하면서 ``record_every`` 스텝마다 ``TrainingHistory``를 남깁니다.

    기록은 학습에 쓰는 값만 읽으므로(추가 난수 없음) 모델과 정확도는 ``train_head_model``과 똑같습니다.

    Shape:
        - 반환: ``(모델, 정확도, TrainingHistory)``; 기록 횟수 ``N = ceil(steps / record_every)``
    """
    config = _check_train_args(num_heads, seed, config)
    check_positive_int(record_every, "record_every")
    with single_thread(seed), torch.enable_grad():
        return _train(num_heads, seed, config, record_every=record_every)


def continue_training(
    model: HeadToyModel, seed: int, config: ToyConfig | None = None, record_every: int = 10, query_scale: float = 1.0
) -> tuple[HeadToyModel, float, TrainingHistory]:
    """학습된 모델의 복사본을 ``config.steps`` 스텝 더 학습합니다 (원래 모델은 그대로).

    옵티마이저 상태는 새로 시작하고, 학습 데이터는 ``seed + 10_000``으로 뽑아 처음 학습과 겹치지 않게 합니다.
    ``query_scale``을 주면 시작 전에 ``W_q``(가중치와 편향)에 곱합니다: 어텐션 점수가 그만큼 작아져
    포화된 소프트맥스가 풀립니다 (개입 실험: 포화만 풀면 빠져나오는가?).

    Shape:
        - 반환: ``(새 모델, 정확도, TrainingHistory)``
    """
    if not isinstance(model, HeadToyModel):
        raise TypeError(f"model은 HeadToyModel이어야 하는데 {describe(model)}이(가) 들어왔습니다.")
    config = _check_train_args(model.attn.num_heads, seed, model.config if config is None else config)
    check_positive_int(record_every, "record_every")
    if isinstance(query_scale, bool) or not isinstance(query_scale, (int, float)) or not query_scale > 0:
        raise ValueError(f"query_scale은 양수여야 하는데 {query_scale!r}이(가) 들어왔습니다.")
    copy = HeadToyModel(config, model.attn.num_heads)
    copy.load_state_dict(model.state_dict())
    with torch.no_grad():
        copy.attn.W_q.weight.mul_(query_scale)
        copy.attn.W_q.bias.mul_(query_scale)
    with single_thread(seed), torch.enable_grad():
        return _train(copy.attn.num_heads, seed + 10_000, config, record_every, model=copy)


def _train(
    num_heads: int, seed: int, config: ToyConfig, record_every: int, model: HeadToyModel | None = None
) -> tuple[HeadToyModel, float, TrainingHistory]:
    """학습 루프 본체 (검사와 전역 상태 관리는 부르는 쪽이 맡음). ``record_every=0``이면 기록하지 않음.
    ``model``을 주면 새로 만들지 않고 그 모델을 이어서 학습합니다."""
    model = HeadToyModel(config, num_heads) if model is None else model
    data_gen = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr, fused=True)  # CPU에서 가장 빠른 구현
    score_weights = (model.attn.W_q.weight, model.attn.W_k.weight)  # 어텐션 점수를 만드는 두 투영
    rows: list[tuple] = []
    model.train()
    for step in range(config.steps):
        tokens, targets = make_task_batch(config.batch_size, config, data_gen)
        logits, weights = model(tokens)
        loss = F.cross_entropy(logits.flatten(0, 1), targets.flatten())  # (B, L, V) -> (B*L, V), (B, L) -> (B*L,)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        record = record_every and step % record_every == 0
        if record:
            before = [w.detach().clone() for w in score_weights]
            grad = torch.cat([w.grad.flatten() for w in score_weights]).norm().item()  # 2 x (E*E,) -> ()
        optimizer.step()
        if record:
            moved = torch.cat([(w.detach() - b).flatten() for w, b in zip(score_weights, before)])  # 2 x (E, E) -> (2*E*E,)
            shares = head_relation_shares(weights.detach())  # (B, H, L, L) -> (H, 2)
            scored = weights.detach()[:, :, 2:]  # (B, H, L, L) -> (B, H, L-2, L): 채점 위치의 행
            hit = (logits.detach().argmax(dim=-1) == targets)[targets != IGNORE_INDEX]  # (B, L) -> (B*(L-2),)
            rows.append((step, loss.item(), tuple(shares[:, 0].tolist()), tuple(shares[:, 1].tolist()),
                         saturation(scored, threshold=0.99).item(), grad, moved.norm().item() / config.lr,
                         hit.float().mean().item()))
    history = TrainingHistory(*(tuple(column) for column in zip(*rows))) if rows else TrainingHistory(
        *([()] * len(dataclasses.fields(TrainingHistory))))
    model.eval()
    with torch.no_grad():
        return model, evaluate_head_model(model, config), history


def evaluate_head_model(model: HeadToyModel, config: ToyConfig) -> float:
    """평가 시퀀스(``config.test_seed``로 고정)의 채점 위치 전체에서 정확도를 잽니다.

    Shape:
        - 반환: 0~1 사이의 파이썬 ``float``
    """
    test_tokens, test_targets = make_task_batch(config.test_size, config, torch.Generator().manual_seed(config.test_seed))
    with torch.no_grad():
        logits, _ = model(test_tokens)  # (B, L, V)
    scored = test_targets != IGNORE_INDEX  # (B, L)
    return (logits.argmax(dim=-1)[scored] == test_targets[scored]).double().mean().item()


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
