"""시드 묶음 학습: 같은 설정(헤드 수, 학습률, 스텝 수)의 모델 ``N``개를, 파라미터 앞에 시드 축이 붙은 모델 하나로 학습합니다.

- 시드마다 ``HeadToyModel``을 만들고(초기값은 ``torch.manual_seed(seed)``: ``train_head_model``과 같음), 파라미터를
  ``(N, ...)``로 쌓습니다 (``torch.func.stack_module_state``).
- ``batched_forward``가 ``HeadToyModel.forward``와 같은 계산(임베딩, 인과 멀티헤드 어텐션, 잔차, LayerNorm, MLP)을 시드
  축을 앞에 둔 채 한 번에 합니다. 선형 층은 시드마다 다른 가중치이므로 ``torch.baddbmm``(시드 축 = 배치 축)입니다.
  입력 검사(``check_tokens``: 토큰 값의 범위처럼 데이터에 달린 검사)는 이 함수 밖에서 먼저 합니다.
- 손실은 시드마다의 평균 손실을 더한 것입니다. 시드 ``n``의 파라미터는 시드 ``n``의 손실에만 들어 있으므로
  기울기도 시드마다 따로 구한 것과 같습니다. AdamW는 원소마다 계산하므로, 쌓은 파라미터에 한 번 걸어도 시드마다
  따로 건 것과 같습니다.
- 학습 데이터는 시드마다 ``torch.Generator().manual_seed(seed + data_offset)``로 뽑습니다 (``train_head_model``과 같음).

묶어도 시드끼리 섞이지 않으므로, 묶음 안의 시드는 그 시드 하나만 든 묶음과 비트까지 같습니다. ``HeadToyModel``을
따로 학습한 것(``train_with_history``)과는 계산 순서(소프트맥스, 행렬 곱의 덧셈 순서)가 달라 마지막 비트가 다르고,
이 과제의 학습은 그 차이를 키웁니다: 처음 몇 스텝은 부동소수점 오차 안에서 같지만, 수백 스텝 뒤에는 같은 시드라도
파라미터가 눈에 띄게 갈라질 수 있습니다. 그래서 결론은 시드 하나가 아니라 시드 여러 개의 성공 비율로 냅니다
(tests/test_seed_batch.py). 묶는 까닭은 속도입니다: 작은 텐서 연산 수백 개를 시드마다 되풀이하는 대신 한 번에 합니다.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Mapping, Sequence

import torch
from torch import Tensor
from torch.nn import functional as F

from attn_lib._checks import check_positive_float, check_positive_int, check_seed, describe, single_thread
from attn_lib.metrics import saturation
from .training import TrainingHistory, _check_train_args
from .toy import HeadToyModel, ToyConfig, check_tokens, head_relation_shares, make_task_batch

__all__ = ["SeedBatchResult", "train_seed_batch", "batched_forward"]


@dataclass(frozen=True)
class SeedBatchResult:
    """시드 묶음 하나의 결과. 모든 필드는 ``seeds``와 같은 순서의 튜플입니다.

    Attributes:
        seeds: 시드들.
        accuracy: 평가 시퀀스(``config.test_seed``)의 채점 위치 전체에서 잰 정확도.
        first_share, previous_share: 평가 시퀀스에서 잰 헤드별 "첫 토큰"/"이전 토큰" 몫 (시드마다 길이 ``H``).
        history: 시드마다의 학습 중 기록.
        state: 시드마다의 모델 파라미터 (``HeadToyModel.load_state_dict``에 그대로 넣을 수 있음).
        seconds: 묶음의 학습을 시작해 이 결과의 평가를 마칠 때까지 걸린 시간(초).
        earlier: ``also_at``으로 청한 더 짧은 스텝 수 -> 그 스텝까지 학습했을 때의 결과 (같은 꼴).

    Shape:
        - 각 필드: 길이 ``N`` (시드 수). ``first_share[n]``은 길이 ``H``.
    """

    seeds: tuple[int, ...]
    accuracy: tuple[float, ...]
    first_share: tuple[tuple[float, ...], ...]
    previous_share: tuple[tuple[float, ...], ...]
    history: tuple[TrainingHistory, ...]
    state: tuple[dict[str, Tensor], ...]
    seconds: float
    earlier: dict[int, "SeedBatchResult"] = field(default_factory=dict)


def _check_batch_args(
    num_heads: int, seeds: Sequence[int], config: ToyConfig | None, record_every: int,
    start_states: Sequence[Mapping[str, Tensor]] | None, query_scale: float, data_offset: int,
) -> ToyConfig:
    if isinstance(seeds, (str, bytes)) or not isinstance(seeds, Sequence) or not seeds:
        raise ValueError(f"seeds는 비어 있지 않은 정수 목록이어야 하는데 {describe(seeds)}이(가) 들어왔습니다.")
    for s in seeds:
        check_seed(s)
    if start_states is None and len(set(seeds)) != len(seeds):  # 처음부터 학습하면 같은 시드는 같은 실행
        raise ValueError(f"seeds에 같은 시드가 두 번 들어 있습니다: {list(seeds)}")
    config = _check_train_args(num_heads, seeds[0], config)
    if config.num_kv_heads not in (None, num_heads):
        raise ValueError(f"시드 묶음 학습은 키·밸류 헤드 수가 쿼리 헤드 수와 같을 때만 됩니다 "
                         f"(num_kv_heads={config.num_kv_heads}, num_heads={num_heads}); run_sweep을 쓰세요.")
    check_positive_int(record_every, "record_every")
    check_positive_float(query_scale, "query_scale")
    if isinstance(data_offset, bool) or not isinstance(data_offset, int) or data_offset < 0:
        raise ValueError(f"data_offset은 0 이상의 정수여야 하는데 {data_offset!r}이(가) 들어왔습니다.")
    if start_states is not None and len(start_states) != len(seeds):
        raise ValueError(f"start_states는 시드마다 하나씩 {len(seeds)}개여야 하는데 {len(start_states)}개입니다.")
    return config


def train_seed_batch(
    num_heads: int, seeds: Sequence[int], config: ToyConfig | None = None, record_every: int = 10, *,
    start_states: Sequence[Mapping[str, Tensor]] | None = None, query_scale: float = 1.0, data_offset: int = 0,
    also_at: Sequence[int] = (),
) -> SeedBatchResult:
    """시드 ``N``개의 헤드 ``num_heads``개 모델을 한 묶음으로 ``config.steps`` 스텝 학습하고 평가합니다.

    ``start_states``가 없으면 ``train_with_history(num_heads, seed, config, record_every)``와 같은 학습을 시드마다
    합니다. 있으면 그 파라미터에서 이어서 학습합니다(옵티마이저 상태는 새로 시작; ``continue_training``과 같은 뜻이 되려면
    ``data_offset=10_000``). ``query_scale``은 시작 전에 ``W_q``(가중치와 편향)에 곱합니다 (포화를 푸는 개입 실험).

    ``also_at``의 스텝 수마다 그 스텝까지 학습한 결과도 ``earlier``에 남깁니다. 학습률이 스텝마다 같으므로 그것은
    그 스텝 수로 따로 학습한 결과와 비트까지 같습니다 (300스텝과 900스텝을 한 번의 900스텝 학습으로).

    Args:
        num_heads: 헤드 수 ``H``.
        seeds: 시드들 (처음부터 학습할 때는 서로 달라야 함).
        config: 하이퍼파라미터 (기본 ``ToyConfig()``).
        record_every: 학습 중 기록 간격(스텝).
        start_states: 선택. 시드마다 이어서 학습할 파라미터.
        query_scale: 시작 전에 ``W_q``에 곱할 양수.
        data_offset: 학습 데이터 시드에 더할 값.
        also_at: 선택. ``config.steps``보다 작은 양의 스텝 수들.

    Returns:
        ``SeedBatchResult`` (시드 순서 그대로).

    Shape:
        - 쌓은 파라미터: ``(N, ...)``; 학습 배치 ``(N, B, L)``; 평가 로짓 ``(N, test_size, L, V)``
    """
    config = _check_batch_args(num_heads, seeds, config, record_every, start_states, query_scale, data_offset)
    for stop in also_at:
        if check_positive_int(stop, "also_at의 값") >= config.steps:
            raise ValueError(f"also_at의 값은 config.steps(={config.steps})보다 작아야 하는데 {stop}이(가) 들어왔습니다.")
    start = time.perf_counter()
    with single_thread(), torch.random.fork_rng(devices=[]), torch.enable_grad():
        models = []
        for i, seed in enumerate(seeds):
            torch.manual_seed(seed)  # train_head_model과 같은 초기값
            model = HeadToyModel(config, num_heads)
            if start_states is not None:
                model.load_state_dict(dict(start_states[i]))
            with torch.no_grad():
                model.attn.W_q.weight.mul_(query_scale)
                model.attn.W_q.bias.mul_(query_scale)
            models.append(model)
        results = _train_batch(models, list(seeds), config, record_every, data_offset, sorted(set(also_at)), start)
    final = results.pop(config.steps)
    return SeedBatchResult(*final, earlier={stop: SeedBatchResult(*r) for stop, r in results.items()})


class _RowSoftmax(torch.autograd.Function):
    """마지막 축 소프트맥스 (``exp(s - max) / sum``). 행 길이가 10처럼 짧으면 ``torch.softmax``의 CPU 커널보다
    몇 배 빠릅니다. 역전파는 ``w * (g - sum(g * w))``."""

    @staticmethod
    def forward(ctx, scores: Tensor) -> Tensor:
        e = (scores - scores.amax(dim=-1, keepdim=True)).exp_()  # (..., L, S)
        weights = e.div_(e.sum(dim=-1, keepdim=True))
        ctx.save_for_backward(weights)
        return weights

    @staticmethod
    def backward(ctx, grad: Tensor) -> Tensor:
        (weights,) = ctx.saved_tensors
        return weights * (grad - (grad * weights).sum(dim=-1, keepdim=True))


def _linear(x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
    """시드마다 다른 선형 층: ``x @ weight^T + bias``.

    Shape:
        - x: ``(N, M, I)``, weight: ``(N, O, I)``, bias: ``(N, O)`` -> ``(N, M, O)``
    """
    return torch.baddbmm(bias.unsqueeze(1), x, weight.transpose(1, 2))  # (N, M, I) @ (N, I, O) -> (N, M, O)


def batched_forward(params: Mapping[str, Tensor], tokens: Tensor, num_heads: int) -> tuple[Tensor, Tensor]:
    """시드 ``N``개의 ``HeadToyModel``을 한 번에 계산합니다 (검사 없음: 부르는 쪽이 ``check_tokens``로 먼저 확인).

    ``params``는 ``HeadToyModel.state_dict()``의 이름에 시드 축을 앞에 붙인 것입니다. 계산은 ``HeadToyModel.forward``와
    같습니다: 토큰 + 위치 임베딩, ``W_q, W_k, W_v``, 헤드 나누기, ``1/sqrt(Dh)`` 스케일, 인과 마스크, 소프트맥스,
    밸류 섞기, ``W_o``, 잔차, LayerNorm, MLP.

    Shape:
        - params: 이름 -> ``(N, ...)``
        - tokens: ``(N, B, L)`` 정수
        - 반환: ``logits (N, B, L, V)``, ``weights (N, B, H, L, L)``
    """
    N, B, L = tokens.shape
    E = params["tok_emb.weight"].shape[-1]
    H, Dh = num_heads, E // num_heads
    index = tokens.reshape(N, B * L, 1).expand(-1, -1, E)  # (N, B, L) -> (N, B*L, E): 시드마다 자기 임베딩 표에서
    x = torch.gather(params["tok_emb.weight"], 1, index)  # (N, V, E) -> (N, B*L, E)
    pos = params["pos_emb.weight"][:, None, :L]  # (N, L_max, E) -> (N, 1, L, E)
    x = x.view(N, B, L, E) + pos  # (N, B*L, E) -> (N, B, L, E)
    x = x.view(N, B * L, E)  # (N, B, L, E) -> (N, B*L, E)

    def heads(name: str) -> Tensor:
        y = _linear(x, params[f"attn.{name}.weight"], params[f"attn.{name}.bias"])  # (N, B*L, E)
        return y.view(N, B, L, H, Dh).transpose(2, 3).reshape(N * B * H, L, Dh)  # (N, B*L, E) -> (N*B*H, L, Dh)

    root = math.sqrt(1.0 / math.sqrt(Dh))  # MultiHeadAttention처럼 q와 k에 sqrt(scale)씩
    blocked = torch.full((L, L), float("-inf")).triu(diagonal=1)  # 인과 마스크: 미래 칸만 -inf
    keys_t = (heads("W_k") * root).transpose(1, 2)  # (N*B*H, L, Dh) -> (N*B*H, Dh, L)
    scores = torch.baddbmm(blocked, heads("W_q") * root, keys_t)  # (N*B*H, L, Dh) @ (N*B*H, Dh, L) -> (N*B*H, L, L)
    weights = _RowSoftmax.apply(scores)  # (N*B*H, L, L)
    mixed = torch.bmm(weights, heads("W_v"))  # (N*B*H, L, L) @ (N*B*H, L, Dh) -> (N*B*H, L, Dh)
    mixed = mixed.view(N, B, H, L, Dh).transpose(2, 3).reshape(N, B * L, E)  # (N*B*H, L, Dh) -> (N, B*L, E)
    h = x + _linear(mixed, params["attn.W_o.weight"], params["attn.W_o.bias"])  # 잔차: (N, B*L, E)
    gain, shift = params["readout.0.weight"].unsqueeze(1), params["readout.0.bias"].unsqueeze(1)  # (N, E) -> (N, 1, E)
    h = F.layer_norm(h, (E,)) * gain + shift  # LayerNorm의 학습되는 배율과 이동을 시드마다: (N, B*L, E)
    h = torch.relu(_linear(h, params["readout.1.weight"], params["readout.1.bias"]))  # (N, B*L, mlp_dim)
    logits = _linear(h, params["readout.3.weight"], params["readout.3.bias"])  # (N, B*L, V)
    logits = logits.view(N, B, L, -1)  # (N, B*L, V) -> (N, B, L, V)
    return logits, weights.view(N, B, H, L, L)  # (N*B*H, L, L) -> (N, B, H, L, L)


def _train_batch(models: list[HeadToyModel], seeds: list[int], config: ToyConfig, record_every: int, data_offset: int,
                 also_at: list[int], start: float) -> dict[int, tuple]:
    """학습 루프. 반환: 스텝 수(``also_at``과 ``config.steps``) -> ``SeedBatchResult``의 필드 튜플 (``earlier`` 빼고)."""
    H = models[0].attn.num_heads
    stacked, _ = torch.func.stack_module_state(models)  # 이름 -> (N, ...) 잎 텐서 (requires_grad)
    params = {k: v for k, v in stacked.items()}
    optimizer = torch.optim.AdamW(list(params.values()), lr=config.lr, fused=True)  # 원소마다: 시드끼리 섞이지 않음
    generators = [torch.Generator().manual_seed(s + data_offset) for s in seeds]
    wq, wk = params["attn.W_q.weight"], params["attn.W_k.weight"]  # (N, E, E): 어텐션 점수를 만드는 두 투영
    rows: list[list[tuple]] = [[] for _ in seeds]
    results: dict[int, tuple] = {}
    for step in range(config.steps):
        pairs = [make_task_batch(config.batch_size, config, g) for g in generators]
        tokens = torch.stack([t for t, _ in pairs])  # N x (B, L) -> (N, B, L)
        targets = torch.stack([y for _, y in pairs])[:, :, 2:]  # (N, B, L) -> (N, B, L-2): 채점 위치 t >= 2
        check_tokens(tokens.flatten(0, 1), config)  # 계산 밖에서 검사: (N, B, L) -> (N*B, L)
        logits, weights = batched_forward(params, tokens, H)
        scored = logits[:, :, 2:]  # (N, B, L, V) -> (N, B, L-2, V)
        picked = scored.gather(-1, targets.unsqueeze(-1)).squeeze(-1)  # (N, B, L-2, V) -> (N, B, L-2): 정답의 로짓
        nll = torch.logsumexp(scored, dim=-1) - picked  # (N, B, L-2, V) -> (N, B, L-2)
        losses = nll.mean(dim=(1, 2))  # (N,): 시드마다 F.cross_entropy의 평균과 같은 값
        optimizer.zero_grad(set_to_none=True)
        losses.sum().backward()  # 시드 n의 파라미터에는 시드 n의 손실 기울기만 닿음
        record = step % record_every == 0
        if record:
            before = (wq.detach().clone(), wk.detach().clone())
            grad = torch.cat([wq.grad.flatten(1), wk.grad.flatten(1)], dim=1).norm(dim=1)  # (N, 2*E*E) -> (N,)
        optimizer.step()
        if record:
            deltas = [(w.detach() - b).flatten(1) for w, b in zip((wq, wk), before)]  # (N, E, E) -> (N, E*E), 두 행렬
            moved = torch.cat(deltas, dim=1)  # 2 x (N, E*E) -> (N, 2*E*E)
            moved = moved.norm(dim=1) / config.lr  # (N, 2*E*E) -> (N,)
            accuracy = (scored.detach().argmax(dim=-1) == targets).float().mean(dim=(1, 2))  # (N, B, L-2) -> (N,)
            for n in range(len(seeds)):
                w = weights[n].detach()  # (B, H, L, L)
                shares = head_relation_shares(w)  # (H, 2)
                rows[n].append((step, losses[n].item(), tuple(shares[:, 0].tolist()), tuple(shares[:, 1].tolist()),
                                saturation(w[:, :, 2:], threshold=0.99).item(), grad[n].item(), moved[n].item(),
                                accuracy[n].item()))
        if step + 1 in also_at or step + 1 == config.steps:  # 이 스텝까지의 결과
            done = step + 1
            histories = tuple(TrainingHistory(*(tuple(c) for c in zip(*(x for x in r if x[0] < done)))) for r in rows)
            results[done] = (tuple(seeds), *_evaluate(params, len(seeds), H, config), histories,
                             tuple({k: v[n].detach().clone() for k, v in params.items()} for n in range(len(seeds))),
                             time.perf_counter() - start)
    return results


def _evaluate(params: dict[str, Tensor], n_seeds: int, num_heads: int, config: ToyConfig):
    """평가 시퀀스에서 시드마다의 정확도와 헤드별 몫 (첫 토큰, 이전 토큰)."""
    test_tokens, test_targets = make_task_batch(config.test_size, config, torch.Generator().manual_seed(config.test_seed))
    check_tokens(test_tokens, config)
    with torch.no_grad():  # 모든 시드가 같은 평가 데이터: (T, L) -> (N, T, L) (복사 없이 expand)
        tokens = test_tokens.expand(n_seeds, -1, -1)  # (T, L) -> (N, T, L)
        logits, weights = batched_forward(params, tokens, num_heads)
    hits = logits[:, :, 2:].argmax(dim=-1) == test_targets[:, 2:]  # (N, T, L-2)
    shares = [head_relation_shares(weights[n]) for n in range(n_seeds)]  # N x (H, 2)
    accuracy = hits.flatten(1).double().mean(dim=1)  # (N, T, L-2) -> (N, T*(L-2)) -> (N,)
    return (tuple(accuracy.tolist()), tuple(tuple(s[:, 0].tolist()) for s in shares),
            tuple(tuple(s[:, 1].tolist()) for s in shares))
