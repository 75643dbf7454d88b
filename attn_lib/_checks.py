"""입력 검사 도우미 (내부용).

잘못된 입력이 PyTorch 깊은 곳에서 알아보기 힘든 오류로 터지기 전에,
무엇을 기대했고 무엇이 들어왔는지 한국어로 알려 줍니다.
이 모듈은 torch 외에는 아무것도 import하지 않습니다.
"""

from __future__ import annotations

import math
import numbers
from contextlib import contextmanager
from typing import Iterator, Sequence

import torch
from torch import Tensor


def describe(x: object) -> str:
    """오류 메시지에 쓸 짧은 설명: 텐서면 모양과 dtype, 아니면 타입 이름."""
    if isinstance(x, Tensor):
        return f"Tensor(shape={tuple(x.shape)}, dtype={x.dtype})"
    return type(x).__name__


def check_float_tensor(x: object, name: str, *, min_dim: int = 1) -> Tensor:
    """`x`가 실수(float) 텐서이고 차원이 `min_dim` 이상인지 확인합니다."""
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}은(는) torch.Tensor여야 하는데 {describe(x)}이(가) 들어왔습니다.")
    if not torch.is_floating_point(x):
        raise TypeError(
            f"{name}은(는) 실수 텐서(float16/bfloat16/float32/float64)여야 하는데 "
            f"dtype={x.dtype}이(가) 들어왔습니다. 정수 텐서라면 .float()로 바꾸세요."
        )
    if x.dim() < min_dim:
        raise ValueError(
            f"{name}은(는) 최소 {min_dim}차원이어야 하는데 shape={tuple(x.shape)}"
            f"({x.dim()}차원)이(가) 들어왔습니다."
        )
    return x


def check_positive_int(value: object, name: str) -> int:
    """`value`가 1 이상의 정수(bool 제외)인지 확인합니다."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}은(는) 정수여야 하는데 {describe(value)} 값 {value!r}이(가) 들어왔습니다.")
    if value < 1:
        raise ValueError(f"{name}은(는) 1 이상이어야 하는데 {value}이(가) 들어왔습니다.")
    return value


def check_nonnegative_int(value: object, name: str) -> int:
    """`value`가 0 이상의 정수(bool 제외)인지 확인합니다 (빈 시퀀스 길이 0도 됨)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name}은(는) 정수여야 하는데 {describe(value)} 값 {value!r}이(가) 들어왔습니다.")
    if value < 0:
        raise ValueError(f"{name}은(는) 0 이상이어야 하는데 {value}이(가) 들어왔습니다.")
    return value


def check_positive_float(value: object, name: str) -> float:
    """`value`가 양의 실수(정수도 됨, bool 제외)인지 확인합니다 (학습률 같은 설정값)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise ValueError(f"{name}은 양의 실수여야 하는데 {value!r}이(가) 들어왔습니다.")
    return float(value)


def broadcast_leading(shapes: Sequence[torch.Size], names: Sequence[str]) -> torch.Size:
    """마지막 두 축을 뺀 앞쪽 축(배치, 헤드 등)이 서로 브로드캐스트되는지 확인합니다."""
    # torch.broadcast_shapes와 같은 규칙을 파이썬으로 (학습 루프에서 스텝마다 불리므로 가볍게)
    leading = [tuple(s[:-2]) for s in shapes]
    ndim = max([len(s) for s in leading] + [0])
    out = []
    for axis in range(-ndim, 0):
        sizes = {s[axis] for s in leading if len(s) >= -axis} - {1}
        if len(sizes) > 1:
            detail = ", ".join(f"{n}{tuple(s)}" for n, s in zip(names, shapes))
            raise ValueError(
                f"앞쪽 축(배치·헤드)이 서로 브로드캐스트되지 않습니다: {detail}. "
                "마지막 두 축을 뺀 모양이 같거나 1이어야 합니다."
            )
        out.append(sizes.pop() if sizes else 1)
    return torch.Size(out)


def check_mask(mask: object, target_shape: torch.Size, name: str = "attn_mask") -> Tensor:
    """마스크가 bool 또는 float(덧셈 마스크) 텐서이고, `target_shape`를 키우지 않고 브로드캐스트되는지 확인합니다.

    정수 마스크는 '1이 참여인지 차단인지'가 모호하므로 거부합니다.
    """
    if not isinstance(mask, Tensor):
        raise TypeError(f"{name}은(는) torch.Tensor여야 하는데 {describe(mask)}이(가) 들어왔습니다.")
    if mask.dtype != torch.bool and not torch.is_floating_point(mask):
        raise TypeError(
            f"{name}은(는) bool(True = 참여 가능) 또는 float 덧셈 마스크(점수에 더할 값) 텐서여야 하는데 "
            f"dtype={mask.dtype}이(가) 들어왔습니다. 0/1 정수 마스크는 뜻이 모호하니 "
            "mask.bool()처럼 bool로 바꾸세요."
        )
    ok = mask.dim() <= len(target_shape)
    if ok:
        try:
            ok = torch.broadcast_shapes(mask.shape, target_shape) == target_shape
        except RuntimeError:
            ok = False
    if not ok:
        raise ValueError(
            f"{name}의 shape={tuple(mask.shape)}은(는) 어텐션 점수의 shape={tuple(target_shape)}에 "
            "그 모양을 키우지 않고 브로드캐스트되어야 합니다 (각 축이 같거나 1)."
        )
    return mask


def check_seed(seed: object) -> int:
    """시드가 0 이상의 정수(bool 제외)인지 확인합니다."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed는 정수여야 하는데 {describe(seed)} 값 {seed!r}이(가) 들어왔습니다.")
    if seed < 0:
        raise ValueError(f"seed는 0 이상이어야 하는데 {seed}이(가) 들어왔습니다.")
    return seed


@contextmanager
def single_thread(seed: int | None = None) -> Iterator[None]:
    """블록 안의 torch 계산을 스레드 하나로 하고, ``seed``를 주면 전역 난수 상태도 잠시 바꿉니다.

    - 스레드 수가 바뀌면 덧셈 순서가 바뀌어 마지막 비트가 달라질 수 있으므로, 시드가 같으면 같은
      숫자가 나오도록 학습은 스레드 하나로 합니다.
    - 탐색기처럼 수천 원소짜리 작은 텐서는 여러 스레드로 나누면 오히려 느립니다. 다른 작업이 코어를
      쓰고 있으면 병렬 구간이 다른 스레드를 기다리느라 연산 하나에 수 ms씩 걸립니다
      (2코어 기계에서 softmax 하나 8 ms, 스레드 하나면 0.005 ms).

    블록이 끝나면 원래 스레드 수와 (``seed``를 준 경우) 전역 난수 상태로 되돌립니다.
    """
    threads = torch.get_num_threads()
    if threads != 1:
        torch.set_num_threads(1)
    try:
        if seed is None:
            yield
        else:
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed)
                yield
    finally:
        if threads != 1:
            torch.set_num_threads(threads)


def check_attention_inputs(
    query: object, key: object, value: object, attn_mask: object, scale: object, enable_gqa: bool = False
) -> tuple[torch.Size, float]:
    """``scaled_dot_product_attention``의 입력을 모두 확인하고, 점수의 모양과 쓸 scale을 돌려줍니다.

    ``scale``이 ``None``이면 ``1 / sqrt(Dh)``를 돌려줍니다. ``enable_gqa``이면 키·밸류의 헤드 축(끝에서 세 번째)이
    쿼리의 헤드 수를 나누어떨어뜨리면 됩니다 (그룹 쿼리 어텐션).
    """
    for name, t in (("query", query), ("key", key), ("value", value)):
        check_float_tensor(t, name, min_dim=2)
    if not (query.dtype == key.dtype == value.dtype):
        raise TypeError(
            "query, key, value의 dtype이 같아야 하는데 "
            f"{query.dtype}, {key.dtype}, {value.dtype}이(가) 들어왔습니다."
        )
    if query.shape[-1] != key.shape[-1]:
        raise ValueError(
            f"query와 key의 마지막 축(Dh)이 같아야 내적을 할 수 있는데 "
            f"query{tuple(query.shape)}의 Dh={query.shape[-1]}, key{tuple(key.shape)}의 Dh={key.shape[-1]}입니다."
        )
    if key.shape[-2] != value.shape[-2]:
        raise ValueError(
            f"key와 value의 길이 축(S)이 같아야 하는데 key{tuple(key.shape)}의 S={key.shape[-2]}, "
            f"value{tuple(value.shape)}의 S={value.shape[-2]}입니다."
        )
    if enable_gqa:
        check_gqa_heads(query, key, value)
        # 키·밸류의 헤드 축을 쿼리의 헤드 수로 늘린 모양으로 브로드캐스트를 확인합니다.
        grown = (*key.shape[:-3], query.shape[-3], *key.shape[-2:])
        key_shape, value_shape = torch.Size(grown), torch.Size((*grown[:-1], value.shape[-1]))
    else:
        key_shape, value_shape = key.shape, value.shape
    lead = broadcast_leading([query.shape, key_shape, value_shape], ["query", "key", "value"])
    if scale is None:
        scale = 1.0 / math.sqrt(query.shape[-1])
    else:
        scale = check_scale(scale)
    scores_shape = torch.Size((*lead, query.shape[-2], key.shape[-2]))
    if attn_mask is not None:
        check_mask(attn_mask, scores_shape)
    return scores_shape, float(scale)


def check_scale(scale: object) -> float:
    """``scale``이 양의 유한한 실수 스칼라인지 확인합니다: 파이썬 수, ``np.float32`` 같은 NumPy 스칼라,
    원소가 하나인 실수 텐서(``torch.tensor(0.5)``) 모두 됩니다. bool과 복소수는 거부합니다."""
    value: float | None = None
    if isinstance(scale, Tensor):
        if scale.numel() == 1 and (torch.is_floating_point(scale) or
                                   (scale.dtype != torch.bool and not scale.is_complex())):
            value = float(scale.item())
    elif isinstance(scale, numbers.Real) and not isinstance(scale, bool):
        value = float(scale)
    if value is None or not (value > 0 and math.isfinite(value)):
        raise ValueError(
            f"scale은 양의 유한한 실수(파이썬 수, NumPy 스칼라, 원소 하나짜리 텐서)이거나 None이어야 하는데 "
            f"{describe(scale)} 값 {scale!r}이(가) 들어왔습니다."
        )
    return value


def check_gqa_heads(query: Tensor, key: Tensor, value: Tensor) -> int:
    """그룹 쿼리 어텐션: 쿼리의 헤드 수 ``H``가 키·밸류의 헤드 수 ``Hkv``로 나누어떨어지는지 확인하고 ``H // Hkv``를 돌려줍니다.

    Shape:
        - query: ``(..., H, L, Dh)``, key: ``(..., Hkv, S, Dh)``, value: ``(..., Hkv, S, Dv)``
    """
    for name, t in (("query", query), ("key", key), ("value", value)):
        if t.dim() < 3:
            raise ValueError(
                f"enable_gqa=True이면 {name}에 헤드 축이 있어야 합니다 (..., 헤드, 길이, 너비). "
                f"그런데 shape={tuple(t.shape)}({t.dim()}차원)이(가) 들어왔습니다."
            )
    heads, kv_heads = query.shape[-3], key.shape[-3]
    if value.shape[-3] != kv_heads:
        raise ValueError(
            f"key와 value의 헤드 수가 같아야 하는데 key는 {kv_heads}, value는 {value.shape[-3]}입니다."
        )
    if heads % kv_heads != 0:
        raise ValueError(
            f"쿼리 헤드 수 H={heads}가 키·밸류 헤드 수 Hkv={kv_heads}로 나누어떨어져야 합니다 "
            f"(나머지 {heads % kv_heads}). 헤드 Hkv개가 쿼리 헤드 H/Hkv개씩을 맡습니다."
        )
    return heads // kv_heads


def check_mha_inputs(query: object, key: object, value: object, attn_mask: object, embed_dim: int) -> None:
    """``MultiHeadAttention.forward``의 입력: ``(B, 길이, E)`` 세 텐서, 같은 B, key와 value의 같은 S, 모호한 3차원 마스크 거부."""
    for name, t in (("query", query), ("key", key), ("value", value)):
        check_float_tensor(t, name)
        if t.dim() != 3 or t.shape[-1] != embed_dim:
            raise ValueError(
                f"{name}은(는) (B, 길이, E={embed_dim}) 모양의 3차원 텐서여야 하는데 "
                f"shape={tuple(t.shape)}이(가) 들어왔습니다."
            )
    if not (query.shape[0] == key.shape[0] == value.shape[0]):
        raise ValueError(
            "query, key, value의 배치 크기 B가 같아야 하는데 "
            f"{query.shape[0]}, {key.shape[0]}, {value.shape[0]}입니다."
        )
    if key.shape[1] != value.shape[1]:
        raise ValueError(
            f"key와 value의 길이 S가 같아야 하는데 key는 {key.shape[1]}, value는 {value.shape[1]}입니다."
        )
    if attn_mask is not None and isinstance(attn_mask, Tensor) and attn_mask.dim() == 3:
        raise ValueError(
            f"3차원 attn_mask shape={tuple(attn_mask.shape)}은(는) (B, L, S)인지 (H, L, S)인지 모호합니다. "
            "배치별 마스크라면 attn_mask.unsqueeze(1)로 (B, 1, L, S)를 만들어 넘기세요."
        )


def check_dropout(p: object, name: str = "dropout") -> float:
    """드롭아웃 확률이 ``0 <= p < 1``인 실수인지 확인합니다 (1이면 모든 가중치가 지워져 1/(1-p)가 정의되지 않음)."""
    if isinstance(p, bool) or not isinstance(p, numbers.Real) or not 0.0 <= float(p) < 1.0:
        raise ValueError(f"{name}은(는) 0 이상 1 미만의 실수여야 하는데 {describe(p)} 값 {p!r}이(가) 들어왔습니다.")
    return float(p)
