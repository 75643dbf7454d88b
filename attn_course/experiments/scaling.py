"""스케일링 실험: 내적의 분산, 소프트맥스 포화, 점수로 가는 기울기.

온도를 학습하는 찾기 과제(``retrieval_batch``, ``retrieval_loss``, ``learn_temperature``)는 ``temperature``에 있습니다.

스케일링 장(``chapters/04_scaling.ipynb``)이 부르는 작은 측정 함수들입니다. torch만 쓰고
(matplotlib 없음), 같은 ``seed``면 언제나 같은 값을 돌려줍니다. 층으로는 attention/metrics 위에
있는 수학 모듈입니다. plots는 이 모듈을 import하지 않습니다.

모양 문자는 책 전체와 같습니다: ``B`` 배치, ``L`` 쿼리 길이, ``S`` 키 길이,
``Dh`` 쿼리·키 너비(논문의 d_k), ``Dv`` 밸류 너비.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import torch
from torch import Tensor

from attn_lib._checks import check_float_tensor, check_positive_int, describe
from attn_lib.attention import scaled_dot_product_attention
from attn_lib.metrics import attention_entropy, max_weight, saturation, softmax_jacobian_norm

__all__ = [
    "SCALE_RULES",
    "scale_for",
    "sample_dot_products",
    "random_attention_gradients",
    "scaling_summary",
]

#: ``scale_for``가 아는 규칙: 이름 -> d_k를 받아 배율을 돌려주는 식.
SCALE_RULES = {
    "sqrt": lambda d_k: 1.0 / math.sqrt(d_k),  # 논문과 PyTorch의 기본값
    "none": lambda d_k: 1.0,  # 스케일링 없음
    "linear": lambda d_k: 1.0 / d_k,  # d_k로 나누기
}

_RUN_KEYS = ("query", "key", "upstream", "scores", "weights", "score_grad", "query_grad")


def _check_positive_real(value: object, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name}은(는) 양의 실수여야 하는데 {value!r}이(가) 들어왔습니다.")
    return float(value)


def _generator(seed: object) -> torch.Generator:
    if isinstance(seed, torch.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise TypeError(f"seed는 0 이상의 정수 또는 torch.Generator여야 하는데 {describe(seed)} 값 {seed!r}이(가) 들어왔습니다.")
    return torch.Generator().manual_seed(seed)


def scale_for(d_k: int, rule: str = "sqrt", multiplier: float = 1.0) -> float:
    """점수에 곱할 배율을 규칙 이름으로 계산합니다.

    ``"sqrt"``는 ``1/sqrt(d_k)``(논문), ``"none"``은 ``1``(스케일링 없음), ``"linear"``는
    ``1/d_k``입니다. 여기에 ``multiplier``를 곱합니다. 소프트맥스의 온도로 말하면
    ``softmax(s * scale) = softmax(s / T)``에서 ``T = 1 / scale``입니다.

    Args:
        d_k: 쿼리·키 너비(``Dh``).
        rule: ``SCALE_RULES``의 이름 하나.
        multiplier: 규칙의 배율에 곱할 양수 ``c``(예: ``c / sqrt(d_k)``).

    Returns:
        ``scaled_dot_product_attention(..., scale=...)``에 넘길 양의 실수.

    Shape:
        - 해당 없음 (파이썬 실수)
    """
    check_positive_int(d_k, "d_k")
    if rule not in SCALE_RULES:
        raise ValueError(f"rule은 {list(SCALE_RULES)} 가운데 하나여야 하는데 {rule!r}이(가) 들어왔습니다.")
    return _check_positive_real(multiplier, "multiplier") * SCALE_RULES[rule](d_k)


def sample_dot_products(d_k: int, n: int, *, seed: int = 0) -> Tensor:
    """성분이 서로 독립이고 평균 0, 분산 1인 쿼리·키 쌍 ``n``개의 내적을 돌려줍니다.

    이론으로는 ``Var(q·k) = d_k``입니다. 돌려받은 값의 ``.var()``로 직접 확인할 수 있습니다.

    Args:
        d_k: 쿼리·키 너비.
        n: 뽑을 쌍의 수 (분산을 재려면 2 이상).
        seed: 난수 시드. 같은 시드면 같은 값을 돌려줍니다.

    Returns:
        내적 ``n``개.

    Shape:
        - 반환: ``(n,)`` (안에서 만든 q, k는 각각 ``(n, Dh)``)
    """
    check_positive_int(d_k, "d_k")
    check_positive_int(n, "n")
    g = _generator(seed)
    query = torch.randn(n, d_k, generator=g)
    key = torch.randn(n, d_k, generator=g)
    return torch.linalg.vecdot(query, key)  # (n, Dh) · (n, Dh) -> (n,)


def random_attention_gradients(
    d_k: int, scale: float, *, batch: int = 64, length: int = 32, seed: int = 0
) -> dict[str, Tensor]:
    """무작위 쿼리·키로 어텐션 가중치를 만들고, 가중치에 무작위 기울기를 흘려 점수와 쿼리가 받는 기울기를 잽니다.

    1. ``query``, ``key``의 성분은 서로 독립인 표준정규분포(평균 0, 분산 1)이고 ``L = S = length``입니다.
    2. ``weights = softmax(query @ key^T * scale)``를 ``scaled_dot_product_attention``으로 계산합니다.
    3. 손실은 ``loss = sum(weights * upstream)``이고 ``upstream``의 성분도 표준정규분포입니다.
       그러면 가중치가 받는 기울기가 ``upstream``이고, 행마다 점수가 받는 기울기는
       ``J upstream``(``J = diag(p) - p p^T``, 대칭)이며 평균적으로 ``E||J g||^2 = ||J||_F^2``입니다.
    4. 점수가 받는 기울기는 점수에 0을 더하는 실수 ``attn_mask``의 기울기로 읽습니다. 더하는 값의
       기울기는 곧 소프트맥스 입력(스케일링된 점수)의 기울기이기 때문입니다.

    Args:
        d_k: 쿼리·키 너비.
        scale: 점수에 곱할 배율 (``scale_for``로 만들 수 있음).
        batch: 배치 크기 ``B``.
        length: 쿼리 수이자 키 수 (``L = S``).
        seed: 난수 시드.

    Returns:
        ``query``, ``key``, ``upstream``, ``scores``(소프트맥스 입력), ``weights``,
        ``score_grad``(dloss/dscores), ``query_grad``(dloss/dquery)를 담은 사전. 모두 기울기 기록이 없는 텐서.

    Shape:
        - query, query_grad: ``(B, L, Dh)``
        - key: ``(B, S, Dh)``
        - upstream, scores, weights, score_grad: ``(B, L, S)``
    """
    check_positive_int(d_k, "d_k")
    _check_positive_real(scale, "scale")
    check_positive_int(batch, "batch")
    check_positive_int(length, "length")
    g = _generator(seed)
    query = torch.randn(batch, length, d_k, generator=g)
    key = torch.randn(batch, length, d_k, generator=g)
    upstream = torch.randn(batch, length, length, generator=g)
    value = query.new_zeros(batch, length, 1)  # 가중치만 쓰므로 밸류는 자리만 채움
    with torch.enable_grad():
        query_leaf = query.clone().requires_grad_(True)
        zero_bias = torch.zeros(batch, length, length, requires_grad=True)  # 점수에 0을 더하는 실수 마스크
        _, weights = scaled_dot_product_attention(query_leaf, key, value, zero_bias, scale=float(scale))
        loss = (weights * upstream).sum()
        score_grad, query_grad = torch.autograd.grad(loss, (zero_bias, query_leaf))
    scores = (query @ key.transpose(-2, -1)) * scale  # (B, L, Dh) @ (B, Dh, S) -> (B, L, S)
    return {
        "query": query,
        "key": key,
        "upstream": upstream,
        "scores": scores,
        "weights": weights.detach(),
        "score_grad": score_grad,
        "query_grad": query_grad,
    }


def scaling_summary(run: Mapping[str, Tensor], *, threshold: float = 0.99, flat: float = 0.01) -> dict[str, float]:
    """``random_attention_gradients``의 결과를 표 한 줄로 요약합니다.

    돌려주는 값 (행 = 쿼리 하나의 분포):

    - ``score_var``: 소프트맥스 입력(스케일링된 점수)의 분산
    - ``entropy``: 행 엔트로피의 평균 (``attention_entropy``, nat)
    - ``saturation``: 행 최댓값이 ``threshold`` 이상인 행의 비율 (``saturation``)
    - ``max_weight``: 행 최댓값의 평균 (``max_weight``)
    - ``jacobian_mean``, ``jacobian_median``, ``jacobian_rms``: 행별 ``softmax_jacobian_norm``의 평균, 중앙값, 제곱평균제곱근
    - ``flat_share``: 야코비안 노름이 ``flat``보다 작은 행(기울기가 사실상 사라진 행)의 비율
    - ``score_grad_rms``: 점수가 받은 기울기 노름의 제곱평균제곱근 (이론상 ``jacobian_rms``와 같음)
    - ``query_grad_mean``, ``query_grad_median``, ``query_grad_p90``: 쿼리 행이 받은 기울기 노름의 평균, 중앙값, 90% 분위수

    Args:
        run: ``random_attention_gradients``가 돌려준 사전.
        threshold: 포화로 볼 행 최댓값 기준.
        flat: 기울기가 사라졌다고 볼 야코비안 노름 기준.

    Returns:
        이름 -> 파이썬 실수 사전.

    Shape:
        - run["weights"], run["scores"], run["score_grad"]: ``(B, L, S)``
        - run["query_grad"]: ``(B, L, Dh)``
    """
    if not isinstance(run, Mapping):
        raise TypeError(f"run은 random_attention_gradients가 돌려준 사전이어야 하는데 {describe(run)}이(가) 들어왔습니다.")
    missing = [k for k in _RUN_KEYS if k not in run]
    if missing:
        raise ValueError(f"run에 {missing} 키가 없습니다. random_attention_gradients의 결과를 넘기세요.")
    for k in _RUN_KEYS:
        check_float_tensor(run[k], f'run["{k}"]', min_dim=2)
    _check_positive_real(flat, "flat")
    weights = run["weights"]
    jac = softmax_jacobian_norm(weights).flatten().double()  # (B, L) -> (B*L,)
    score_grad = run["score_grad"].double().norm(dim=-1).flatten()  # (B, L, S) -> (B*L,)
    query_grad = run["query_grad"].double().norm(dim=-1).flatten()  # (B, L, Dh) -> (B*L,)
    quantiles = torch.tensor([0.5, 0.9], dtype=torch.float64)
    q_median, q_p90 = query_grad.quantile(quantiles).tolist()
    return {
        "score_var": float(run["scores"].double().var()),
        "entropy": float(attention_entropy(weights).mean()),
        "saturation": float(saturation(weights, threshold)),
        "max_weight": float(max_weight(weights).mean()),
        "jacobian_mean": float(jac.mean()),
        "jacobian_median": float(jac.quantile(0.5)),
        "jacobian_rms": float(jac.square().mean().sqrt()),
        "flat_share": float((jac < flat).double().mean()),
        "score_grad_rms": float(score_grad.square().mean().sqrt()),
        "query_grad_mean": float(query_grad.mean()),
        "query_grad_median": q_median,
        "query_grad_p90": q_p90,
    }
