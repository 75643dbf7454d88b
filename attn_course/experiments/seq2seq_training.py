"""시퀀스 뒤집기 실험의 디코딩, 평가, 학습 (과제와 모델은 ``seq2seq``).

- ``greedy_decode``: BOS에서 시작해 매 단계 가장 점수가 높은 토큰을 붙이는 생성.
- ``alignment_accuracy``: 크로스 어텐션 가중치의 argmax가 정답 소스 위치(반대각선)를 가리키는 비율.
- ``evaluate_seq2seq``: 평가 시퀀스에서 디코딩 정확도와 헤드별 정렬 정확도.
- ``train_seq2seq``: AdamW, 처음 10% 선형 워밍업 뒤 코사인, 스텝마다 새 학습 배치.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor
from torch.nn import functional as F

from attn_lib._checks import check_float_tensor, check_positive_int, check_seed, describe, single_thread
from .seq2seq import (
    BOS, IGNORE_INDEX, PAD, ReversalBatch, Seq2SeqConfig, Seq2SeqModel, make_reversal_batch,
)

__all__ = ["greedy_decode", "alignment_accuracy", "evaluate_seq2seq", "train_seq2seq"]


def greedy_decode(model: Seq2SeqModel, src: Tensor, steps: int | None = None) -> Tensor:
    """탐욕적 디코딩: BOS에서 시작해 매 단계 가장 점수가 높은 토큰을 골라 디코더 입력 뒤에 붙입니다.

    정답은 전혀 넣지 않으므로 앞에서 틀리면 그 실수가 다음 입력이 됩니다. PAD와 BOS는 고르지 않습니다.
    EOS를 낸 뒤에도 ``steps``까지 계속 만들므로, 쓰는 쪽에서 EOS 뒤를 무시하세요.

    Args:
        model: 학습된 모델 (eval 모드 권장).
        src: 소스 토큰.
        steps: 만들 토큰 수 (기본 ``max_len + 1``).

    Returns:
        만든 토큰 (BOS 제외). ``tgt_out``과 같은 자리에 맞춰져 있습니다.

    Shape:
        - src: ``(B, S)``
        - 반환: ``(B, steps)``
    """
    if not isinstance(model, Seq2SeqModel):
        raise TypeError(f"model은 Seq2SeqModel이어야 하는데 {describe(model)}이(가) 들어왔습니다.")
    steps = model.config.max_len + 1 if steps is None else check_positive_int(steps, "steps")
    if steps > model.config.max_len + 1:
        raise ValueError(f"steps는 max_len + 1(={model.config.max_len + 1}) 이하여야 하는데 {steps}입니다.")
    with torch.no_grad():
        memory, src_mask, _ = model.encode(src)
        tokens = torch.full((src.shape[0], 1), BOS, dtype=torch.long)  # (B, 1)
        for _ in range(steps):
            logits, _, _ = model.decode(tokens, memory, src_mask)
            last = logits[:, -1].clone()  # (B, L, V) -> (B, V)
            last[:, [PAD, BOS]] = float("-inf")
            tokens = torch.cat([tokens, last.argmax(dim=-1, keepdim=True)], dim=1)  # (B, t) + (B, 1) -> (B, t+1)
    return tokens[:, 1:]


def alignment_accuracy(cross_weights: Tensor, lengths: Tensor) -> Tensor:
    """헤드마다, 크로스 어텐션의 argmax가 정답 정렬 위치에 있는 쿼리의 비율.

    시퀀스 뒤집기에서 디코더 위치 ``i``(``0 <= i < n``, 위치 0은 BOS를 입력받는 자리)는 소스 위치
    ``n - 1 - i``의 기호를 내야 하므로 그 위치가 정답입니다. EOS를 내는 위치 ``n``과 패딩 위치는
    세지 않습니다. 배치의 모든 시퀀스의 세는 자리를 한데 모아 비율을 냅니다 (동점이면 앞 위치가 argmax).

    Args:
        cross_weights: 크로스 어텐션 가중치.
        lengths: 시퀀스마다 기호 수 ``n`` (EOS 제외). ``1 <= n``, ``n <= L``, ``n <= S``.

    Returns:
        헤드별 비율 (0~1).

    Shape:
        - cross_weights: ``(B, H, L, S)``
        - lengths: ``(B,)``
        - 반환: ``(H,)``
    """
    check_float_tensor(cross_weights, "cross_weights")
    if cross_weights.dim() != 4:
        raise ValueError(f"cross_weights는 (B, H, L, S) 4차원이어야 하는데 shape={tuple(cross_weights.shape)}입니다.")
    B, H, L, S = cross_weights.shape
    if not isinstance(lengths, Tensor) or lengths.dtype not in (torch.int64, torch.int32) or lengths.shape != (B,):
        raise TypeError(f"lengths는 모양 (B,)=({B},)인 정수 텐서여야 하는데 {describe(lengths)}이(가) 들어왔습니다.")
    if (lengths < 1).any() or (lengths > min(L, S)).any():
        raise ValueError(f"lengths의 값은 1 이상 min(L, S)(={min(L, S)}) 이하여야 하는데 {lengths.tolist()}입니다.")
    i = torch.arange(L)[None, :]  # (L,) -> (1, L)
    n = lengths.to(torch.long)[:, None]  # (B,) -> (B, 1)
    scored = i < n  # (B, L)
    target = (n - 1 - i).clamp(min=0)  # (B, L): 정답 소스 위치
    hits = cross_weights.argmax(dim=-1) == target[:, None, :]  # (B, H, L) == (B, 1, L) -> (B, H, L)
    return (hits & scored[:, None, :]).sum(dim=(0, 2)).double() / scored.sum()  # (B, H, L) -> (H,)


def evaluate_seq2seq(model: Seq2SeqModel, batch: ReversalBatch | None = None) -> dict[str, float | int | list[float]]:
    """평가용 시퀀스에서 탐욕적 디코딩 정확도와 헤드별 정렬 정확도를 잽니다.

    - ``sequence_accuracy``: 탐욕적 디코딩으로 EOS까지(위치 ``0..n``) 모두 맞힌 시퀀스의 비율 (엄격한 기준).
    - ``token_accuracy``: 같은 디코딩에서 위치 ``0..n`` 가운데 맞힌 토큰의 비율.
    - ``alignment``: 헤드별 ``alignment_accuracy``. 디코더에 정답 앞부분을 넣은(교사 강요) 순전파에서 잽니다.
    - ``best_head``, ``best_alignment``: 정렬 정확도가 가장 높은 헤드와 그 값.

    Args:
        model: 학습된 모델.
        batch: 평가 데이터 (기본: ``config.test_seed``로 뽑은 평가용 시퀀스 ``config.test_size``개).

    Returns:
        위 키를 가진 사전.

    Shape:
        - batch.src: ``(B, T)``
        - 반환의 ``alignment``: 길이 ``H``인 목록
    """
    if not isinstance(model, Seq2SeqModel):
        raise TypeError(f"model은 Seq2SeqModel이어야 하는데 {describe(model)}이(가) 들어왔습니다.")
    config = model.config
    if batch is None:
        gen = torch.Generator().manual_seed(config.test_seed)
        batch = make_reversal_batch(config.test_size, config, gen, split="test")
    elif not isinstance(batch, ReversalBatch):
        raise TypeError(f"batch는 ReversalBatch여야 하는데 {describe(batch)}이(가) 들어왔습니다.")
    was_training = model.training
    model.eval()
    try:
        predicted = greedy_decode(model, batch.src, steps=batch.tgt_out.shape[1])  # (B, T)
        with torch.no_grad():
            _, cross_weights = model(batch.src, batch.tgt_in)
    finally:
        model.train(was_training)
    scored = batch.tgt_out != IGNORE_INDEX  # (B, T): 위치 0..n
    correct = (predicted == batch.tgt_out) & scored
    alignment = alignment_accuracy(cross_weights, batch.lengths)  # (H,)
    best = int(alignment.argmax())
    return {
        "sequence_accuracy": (correct.sum(dim=1) == scored.sum(dim=1)).double().mean().item(),
        "token_accuracy": (correct.sum() / scored.sum()).item(),
        "alignment": alignment.tolist(),
        "best_head": best,
        "best_alignment": alignment[best].item(),
    }


def train_seq2seq(
    seed: int, config: Seq2SeqConfig | None = None
) -> tuple[Seq2SeqModel, dict[str, float | int | list[float]]]:
    """시퀀스 뒤집기 모델을 교사 강요로 학습하고 ``evaluate_seq2seq``로 평가합니다.

    초기화와 학습 데이터는 ``seed``로, 평가 데이터는 ``config.test_seed``로 정해집니다. 학습 중에만
    스레드 수를 1로 두며, 끝나면 전역 스레드 수와 전역 난수 상태를 되돌립니다. 그래서 같은 시드면
    프로세스가 달라도 같은 모델과 같은 숫자가 나옵니다.

    Args:
        seed: 0 이상의 정수 시드.
        config: 하이퍼파라미터 (기본 ``Seq2SeqConfig()``).

    Returns:
        ``(학습된 모델(eval 모드), 지표)``. 지표는 ``evaluate_seq2seq``의 사전에 스텝별 학습 손실
        ``"losses"``(길이 ``steps``)를 더한 것입니다.

    Shape:
        - 모델 입력 ``src (B, S), tgt_in (B, L)`` -> ``(logits (B, L, V), cross_weights (B, H, L, S))``
    """
    config = Seq2SeqConfig() if config is None else config
    if not isinstance(config, Seq2SeqConfig):
        raise TypeError(f"config는 Seq2SeqConfig여야 하는데 {describe(config)}이(가) 들어왔습니다.")
    check_seed(seed)
    # 스레드 하나 + 시드 고정(초기화용; 학습 데이터는 따로 만든 Generator를 씀), 끝나면 전역 상태 복원
    with single_thread(seed):
        with torch.enable_grad():  # 부르는 쪽이 torch.set_grad_enabled(False)여도 학습되도록
            model, losses = _train(seed, config)
        metrics = evaluate_seq2seq(model)
    return model, {**metrics, "losses": losses}


def _train(seed: int, config: Seq2SeqConfig) -> tuple[Seq2SeqModel, list[float]]:
    """학습 루프 본체 (검사와 전역 상태 관리는 ``train_seq2seq``가 맡음)."""
    model = Seq2SeqModel(config)
    data_gen = torch.Generator().manual_seed(seed)
    optimizer = torch.optim.AdamW(model.parameters(), lr=config.lr)
    warmup = max(1, config.steps // 10)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: min(1.0, (s + 1) / warmup) * 0.5 * (1 + math.cos(math.pi * min(s, config.steps) / config.steps))
    )
    losses = []
    model.train()
    for _ in range(config.steps):
        batch = make_reversal_batch(config.batch_size, config, data_gen)
        logits, _ = model(batch.src, batch.tgt_in)
        loss = F.cross_entropy(logits.flatten(0, 1), batch.tgt_out.flatten())  # (B, L, V) -> (B*L, V), (B, L) -> (B*L,)
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        optimizer.step()
        schedule.step()
        losses.append(loss.item())
    model.eval()
    return model, losses
