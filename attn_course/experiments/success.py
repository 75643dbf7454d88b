"""스윕 결과를 성공 비율로: 설정마다 "정확도 0.95 이상인 시드의 비율"과 그 95 % 윌슨 구간, 성공이 절반으로
떨어지는 학습률.

시드 10개로 잰 비율은 거칠어서(10개 가운데 7개면 참값은 대략 0.4~0.9 사이) 구간과 함께 적습니다. 윌슨 구간은
비율이 0이나 1일 때도 폭이 0이 되지 않는 이항 비율의 신뢰 구간입니다 (Wilson 1927; 정규 근사 구간보다 작은 표본에서
덜 틀림).

``HEAD_SWEEP_RATES``는 5장과 tests/test_head_sweep.py가 함께 쓰는 학습률입니다: 격자 ``HEAD_SWEEP_GRID``의 0.002부터,
헤드 수마다 성공 비율이 0.1 이하로 떨어진 학습률까지 (5장이 그 조건을 빌드마다 확인).
"""

from __future__ import annotations

import math
from typing import Mapping, Sequence

from attn_lib._checks import describe

__all__ = [
    "SUCCESS_ACCURACY", "HEAD_SWEEP_GRID", "HEAD_SWEEP_RATES", "wilson_interval", "success_rows", "half_success_position",
    "half_success_rate",
]

SUCCESS_ACCURACY = 0.95  # 평가 정확도가 이 값 이상이면 "성공"(과제를 풂)
#: 5장의 학습률 격자: 0.002에서 한 칸에 두 배씩 (로그 눈금에서 고른 간격).
HEAD_SWEEP_GRID = (0.002, 0.004, 0.008, 0.016, 0.032, 0.064)
#: 헤드 수 -> 돌리는 학습률 (격자의 앞부분).
HEAD_SWEEP_RATES = {1: HEAD_SWEEP_GRID[:5], 2: HEAD_SWEEP_GRID, 4: HEAD_SWEEP_GRID}


def wilson_interval(successes: int, trials: int, z: float = 1.959964) -> tuple[float, float]:
    """이항 비율 ``successes / trials``의 윌슨 점수 구간 (기본 95 %: ``z = 1.96``).

    Args:
        successes: 성공 횟수 ``k`` (``0 <= k <= n``).
        trials: 시행 횟수 ``n`` (1 이상).
        z: 표준 정규 분포의 분위수.

    Returns:
        ``(아래, 위)``, 둘 다 0~1.

    Shape:
        - 해당 없음 (파이썬 수 두 개)
    """
    for name, value in (("successes", successes), ("trials", trials)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise TypeError(f"{name}은(는) 정수여야 하는데 {describe(value)}이(가) 들어왔습니다.")
    if trials < 1 or not 0 <= successes <= trials:
        raise ValueError(f"0 <= successes <= trials, trials >= 1 이어야 하는데 successes={successes}, trials={trials}입니다.")
    p, n = successes / trials, trials
    denom = 1 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    low = 0.0 if successes == 0 else max(0.0, center - half)  # k = 0, k = n이면 끝은 정확히 0, 1 (반올림 오차 없이)
    high = 1.0 if successes == trials else min(1.0, center + half)
    return low, high


def success_rows(
    accuracies: Mapping[tuple, Sequence[float]], threshold: float = SUCCESS_ACCURACY
) -> list[dict[str, float | int | tuple]]:
    """설정마다 한 행: 시드 수, 성공 수, 성공 비율과 윌슨 구간, 최소·평균 정확도.

    Args:
        accuracies: 설정(예: ``(헤드 수, 학습률)``) -> 시드별 평가 정확도.
        threshold: 성공으로 볼 최소 정확도.

    Returns:
        ``accuracies``의 순서대로 ``{"설정", "시드 수", "성공", "성공 비율", "구간 아래", "구간 위", "최소 정확도",
        "평균 정확도"}``.

    Shape:
        - 반환: 길이 ``len(accuracies)``
    """
    if not isinstance(accuracies, Mapping) or not accuracies:
        raise ValueError(f"accuracies는 비어 있지 않은 사전(설정 -> 정확도 목록)이어야 하는데 {describe(accuracies)}입니다.")
    rows = []
    for key, values in accuracies.items():
        values = [float(v) for v in values]
        if not values or not all(0.0 <= v <= 1.0 for v in values):
            raise ValueError(f"설정 {key!r}의 정확도는 0~1 사이의 값이 하나 이상이어야 하는데 {values}입니다.")
        k = sum(v >= threshold for v in values)
        low, high = wilson_interval(k, len(values))
        rows.append({"설정": key, "시드 수": len(values), "성공": k, "성공 비율": k / len(values),
                     "구간 아래": low, "구간 위": high, "최소 정확도": min(values),
                     "평균 정확도": sum(values) / len(values)})
    return rows


def half_success_position(rates: Sequence[float], success: Sequence[float]) -> float | None:
    """성공 비율이 마지막으로 0.5 아래로 떨어지는 자리를 격자 위치(0 = 첫 학습률, 1 = 둘째, ...)로 돌려줍니다.

    성공 비율이 0.5 이상인 마지막 학습률 ``i``와 그다음 ``i + 1`` 사이를 직선으로 이어 0.5가 되는 곳입니다.
    0.5 이상인 학습률이 없거나, 마지막 학습률까지 0.5 이상이면 (격자 안에서 떨어지지 않았으므로) ``None``입니다.

    Shape:
        - rates, success: 같은 길이 ``R`` (``rates``는 오름차순)
    """
    if len(rates) != len(success) or len(rates) < 2 or list(rates) != sorted(rates):
        raise ValueError(f"rates(오름차순)와 success는 길이가 같고 2 이상이어야 하는데 {list(rates)}, {list(success)}입니다.")
    above = [i for i, s in enumerate(success) if s >= 0.5]
    if not above or above[-1] == len(rates) - 1:
        return None
    i = above[-1]
    return i + (success[i] - 0.5) / (success[i] - success[i + 1])


def half_success_rate(rates: Sequence[float], success: Sequence[float]) -> float | None:
    """``half_success_position``의 자리를 학습률로: 이웃한 두 학습률 사이를 로그 눈금에서 잇습니다.

    Shape:
        - rates, success: 같은 길이 ``R``; 반환: 파이썬 ``float`` 또는 ``None``
    """
    position = half_success_position(rates, success)
    if position is None:
        return None
    i = min(int(position), len(rates) - 2)
    t = position - i
    return math.exp((1 - t) * math.log(rates[i]) + t * math.log(rates[i + 1]))
