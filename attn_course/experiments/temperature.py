"""스케일링 실험 (온도): 잡음 섞인 쿼리로 정답 키를 찾는 과제와, 소프트맥스 온도 하나만 학습하기.

- ``retrieval_batch``: 시퀀스마다 키와 밸류 여러 개, 쿼리는 정답 키에 잡음을 섞은 것.
- ``retrieval_loss``: 온도 ``T``로 나눈 점수의 어텐션 출력이 정답 밸류에서 얼마나 먼가.
- ``learn_temperature``: 로그 온도 하나를 SGD로 학습 (스케일링 장의 "온도를 학습으로 고칠 수 있을까").

torch만 쓰고, 같은 ``seed``면 언제나 같은 값을 돌려줍니다.
"""

from __future__ import annotations

import math

import torch
from torch import Tensor

from attn_lib._checks import check_float_tensor, check_positive_int, describe
from attn_lib.attention import scaled_dot_product_attention
from .scaling import _check_positive_real, _generator

__all__ = ["retrieval_batch", "retrieval_loss", "learn_temperature"]


def retrieval_batch(
    d_k: int,
    *,
    batch: int = 128,
    length: int = 32,
    value_dim: int = 16,
    noise: float = 2.0,
    seed: int | torch.Generator = 0,
) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """작은 찾기(retrieval) 과제 한 배치: 잡음 섞인 쿼리로 정답 키를 찾아 그 밸류를 꺼내기.

    문장마다 키 ``S = length``개와 밸류 ``S``개를 표준정규분포에서 뽑고, 정답 위치 하나를 고릅니다.
    쿼리는 정답 키에 ``noise`` 배의 표준정규 잡음을 더한 것이고, 목표는 정답 위치의 밸류입니다.
    잡음이 있으니 가장 높은 점수가 늘 정답은 아니어서, 너무 뾰족한 분포(낮은 온도)도 손해입니다.

    Args:
        d_k: 쿼리·키 너비.
        batch: 문장 수 ``B``.
        length: 키·밸류 수 ``S``.
        value_dim: 밸류 너비 ``Dv``.
        noise: 쿼리에 더하는 잡음의 표준편차 (0 이상).
        seed: 난수 시드 또는 ``torch.Generator``(학습 중 배치를 이어 뽑을 때).

    Returns:
        ``(query, key, value, target)``.

    Shape:
        - query: ``(B, 1, Dh)`` (문장마다 쿼리 하나, ``L = 1``)
        - key: ``(B, S, Dh)``, value: ``(B, S, Dv)``
        - target: ``(B, Dv)``
    """
    for name, v in (("d_k", d_k), ("batch", batch), ("length", length), ("value_dim", value_dim)):
        check_positive_int(v, name)
    if isinstance(noise, bool) or not isinstance(noise, (int, float)) or not math.isfinite(noise) or noise < 0:
        raise ValueError(f"noise는 0 이상의 실수여야 하는데 {noise!r}이(가) 들어왔습니다.")
    g = _generator(seed)
    key = torch.randn(batch, length, d_k, generator=g)
    value = torch.randn(batch, length, value_dim, generator=g)
    answer = torch.randint(length, (batch,), generator=g)
    rows = torch.arange(batch)
    query = key[rows, answer] + noise * torch.randn(batch, d_k, generator=g)  # (B, Dh): 정답 키 + 잡음
    return query.unsqueeze(1), key, value, value[rows, answer]  # query: (B, Dh) -> (B, 1, Dh)


def retrieval_loss(query: Tensor, key: Tensor, value: Tensor, target: Tensor, temperature: float | Tensor) -> Tensor:
    """온도 ``T``로 ``softmax(q·k / T)``를 만들어 밸류를 섞고, 정답 밸류와의 제곱 오차 평균을 돌려줍니다.

    ``q·k / T``는 ``(q / T)·k``와 같으므로 쿼리를 ``T``로 나눠 ``scaled_dot_product_attention(...,
    scale=1.0)``에 넘깁니다. ``temperature``가 ``requires_grad``인 텐서면 기울기가 온도까지 흐릅니다.

    Args:
        query, key, value, target: ``retrieval_batch``의 결과.
        temperature: 양의 실수 또는 0차원 실수 텐서 ``T``. ``T = sqrt(d_k)``가 논문의 스케일링입니다.

    Returns:
        0차원 텐서: 문장마다 ``||output - target||^2``의 평균.

    Shape:
        - query: ``(B, 1, Dh)``, key: ``(B, S, Dh)``, value: ``(B, S, Dv)``, target: ``(B, Dv)``
        - 반환: ``()``
    """
    check_float_tensor(target, "target", min_dim=2)
    if isinstance(temperature, Tensor):
        check_float_tensor(temperature, "temperature", min_dim=0)
        if temperature.dim() != 0 or not bool(temperature.detach() > 0):
            raise ValueError(f"temperature 텐서는 양수 하나(0차원)여야 하는데 {describe(temperature)}이(가) 들어왔습니다.")
    else:
        temperature = _check_positive_real(temperature, "temperature")
    output, _ = scaled_dot_product_attention(query / temperature, key, value, scale=1.0)  # (B, 1, Dv)
    if output.shape[-2] != 1 or output.shape[:1] + output.shape[-1:] != target.shape:
        raise ValueError(
            f"query는 (B, 1, Dh), target은 (B, Dv)여야 하는데 출력 {tuple(output.shape)}과 target {tuple(target.shape)}이 맞지 않습니다."
        )
    return (output[..., 0, :] - target).square().sum(dim=-1).mean()  # (B, 1, Dv) -> (B, Dv) -> (B,) -> ()


def learn_temperature(
    d_k: int,
    init_temperature: float,
    *,
    steps: int = 150,
    lr: float = 0.05,
    noise: float = 2.0,
    batch: int = 128,
    length: int = 32,
    value_dim: int = 16,
    seed: int = 0,
) -> dict[str, list[float]]:
    """``retrieval_batch`` 과제에서 온도 하나(로그 온도 ``log T``)만 경사 하강법으로 학습합니다.

    매 단계 새 배치를 뽑고, ``retrieval_loss``의 ``log T``에 대한 기울기로 ``log T -= lr * 기울기``를
    합니다. 처음부터 포화된 온도에서 출발하면 기울기가 처음부터 작습니다. Adam은 지난 기울기 크기의
    이동 평균으로 나누므로 이런 "처음부터 작은" 기울기를 가려 버립니다(갑자기 줄어든 기울기는 가리지
    못함: 4장과 5장). 기울기가 작을 때 학습이 느려지는 모습을 보이려고 일부러 평범한 SGD를 씁니다.
    로그 온도를 학습하므로 ``T``는 늘 양수입니다.

    Args:
        d_k: 쿼리·키 너비.
        init_temperature: 처음 온도 ``T`` (양수).
        steps: 학습 단계 수.
        lr: 학습률.
        noise, batch, length, value_dim: ``retrieval_batch``에 넘길 값.
        seed: 배치를 뽑는 난수 시드.

    Returns:
        ``{"temperature": [...], "loss": [...], "grad": [...]}``. ``i``번째 값은 ``i``번째 단계를
        시작할 때의 온도, 그 온도에서 잰 손실, ``log T``에 대한 기울기입니다. 길이는 모두 ``steps``.

    Shape:
        - 반환의 각 목록: 길이 ``steps``
    """
    check_positive_int(steps, "steps")
    lr = _check_positive_real(lr, "lr")
    log_t = torch.tensor(math.log(_check_positive_real(init_temperature, "init_temperature")), requires_grad=True)
    g = _generator(seed)
    history: dict[str, list[float]] = {"temperature": [], "loss": [], "grad": []}
    for _ in range(steps):
        data = retrieval_batch(d_k, batch=batch, length=length, value_dim=value_dim, noise=noise, seed=g)
        with torch.enable_grad():
            loss = retrieval_loss(*data, log_t.exp())
            (grad,) = torch.autograd.grad(loss, log_t)
        history["temperature"].append(math.exp(log_t.item()))
        history["loss"].append(loss.item())
        history["grad"].append(grad.item())
        with torch.no_grad():
            log_t -= lr * grad
    return history
