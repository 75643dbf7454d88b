"""라이브러리 호출 검사: 학생의 함수가 실제로 **부른** 어텐션 함수를 기록합니다 (이름이 아니라 호출).

"어텐션을 직접 구현하라"는 문제에서 금지하는 것은 이미 만들어진 어텐션을 부르는 것입니다:
``F.scaled_dot_product_attention``, ``nn.MultiheadAttention``, attn_lib의 ``scaled_dot_product_attention``,
``MultiHeadAttention``, ``blockwise_attention``, 그리고 회전 위치 임베딩을 직접 돌리는 문제를 위한 ``apply_rope``와
``rotate_half``. 코드의 글자(이름)를 보는 검사는 두 쪽으로 불공정합니다. 학생이 자기 함수를
``scaled_dot_product_attention``이라고 부르면 억울하게 걸리고, ``getattr(F, "scaled_dot_product_" + "attention")``
이나 미리 만들어 둔 별칭은 빠져나갑니다. 그래서 학생 함수를 **한 번 실행하는 동안** 무엇이 불렸는지 봅니다.

- PyTorch 함수: ``torch.overrides.TorchFunctionMode``가 모든 torch API 호출을 봅니다. 어떤 이름, 별칭,
  ``getattr``로 닿았든 함수 객체는 같습니다. ``nn.MultiheadAttention``은 ``F.multi_head_attention_forward``를
  거치므로 그것으로 잡힙니다 (빠른 경로는 모드가 켜져 있으면 쓰이지 않습니다).
- attn_lib의 파이썬 함수: ``sys.setprofile``로 파이썬 함수가 불릴 때마다 그 코드 객체를 봅니다. 같은 코드 객체면
  이름이나 별칭과 상관없이 같은 함수입니다.

기록은 학생 함수를 부르는 동안만 합니다. 채점기가 정답(참고 구현)을 계산할 때는 기록하지 않습니다.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from types import CodeType, FrameType
from typing import Any

import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

from attn_lib.attention import MultiHeadAttention, scaled_dot_product_attention
from attn_lib.blockwise import blockwise_attention
from attn_lib.rope import apply_rope, rotate_half

__all__ = ["FORBIDDEN_ATTENTION", "library_calls", "check_no_library_calls"]

#: 금지한 PyTorch 함수 객체 -> 학생에게 보여 줄 이름
_FORBIDDEN_TORCH: dict[Any, str] = {
    F.scaled_dot_product_attention: "F.scaled_dot_product_attention",
    F.multi_head_attention_forward: "nn.MultiheadAttention",
}
_native_mha = getattr(torch, "_native_multi_head_attention", None)
if _native_mha is not None:
    _FORBIDDEN_TORCH[_native_mha] = "nn.MultiheadAttention"

#: 금지한 attn_lib 함수의 코드 객체 -> 이름
_FORBIDDEN_CODE: dict[CodeType, str] = {
    scaled_dot_product_attention.__code__: "attn_lib.scaled_dot_product_attention",
    MultiHeadAttention.forward.__code__: "attn_lib.MultiHeadAttention",
    blockwise_attention.__code__: "attn_lib.blockwise_attention",
    apply_rope.__code__: "attn_lib.apply_rope",  # RoPE를 직접 돌리는 문제(8.1)에서 이미 만들어진 회전
    rotate_half.__code__: "attn_lib.rotate_half",
}

#: 안내문에 쓰는 금지 목록
FORBIDDEN_ATTENTION = tuple(sorted(set(_FORBIDDEN_TORCH.values()) | set(_FORBIDDEN_CODE.values())))


class _TorchCalls(TorchFunctionMode):
    """켜져 있는 동안 금지한 torch 함수가 불리면 이름을 적어 둡니다 (계산은 그대로 합니다)."""

    def __init__(self, hits: list[str]) -> None:
        super().__init__()
        self.hits = hits

    def __torch_function__(self, func: Any, types: Any, args: tuple = (), kwargs: dict | None = None) -> Any:
        name = _FORBIDDEN_TORCH.get(func)
        if name is not None:
            self.hits.append(name)
        return func(*args, **(kwargs or {}))


def library_calls(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """``fn(*args, **kwargs)``를 한 번 실행하고, 그동안 불린 금지 어텐션 함수의 이름을 돌려줍니다.

    Args:
        fn: 학생의 함수.
        *args, **kwargs: ``fn``에 넘길 값.

    Returns:
        ``(fn의 반환값, 불린 금지 함수 이름의 정렬된 목록)``. 아무것도 안 불렸으면 빈 목록.

    Raises:
        ``fn``이 낸 예외를 그대로 냅니다 (기록 장치는 항상 꺼집니다).

    Shape:
        - 해당 없음 (``fn``의 입력과 출력 모양 그대로)
    """
    hits: list[str] = []

    def profiler(frame: FrameType, event: str, arg: Any) -> None:
        if event == "call":
            name = _FORBIDDEN_CODE.get(frame.f_code)
            if name is not None:
                hits.append(name)

    previous = sys.getprofile()
    sys.setprofile(profiler)
    try:
        with _TorchCalls(hits):
            result = fn(*args, **kwargs)
    finally:
        sys.setprofile(previous)
    return result, sorted(set(hits))


def check_no_library_calls(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
    """숨은 테스트용: 학생 함수가 금지한 어텐션 함수를 부르면 한국어 ``AssertionError``를 냅니다.

    Shape:
        - 해당 없음
    """
    _, hits = library_calls(fn, *args, **kwargs)
    if hits:
        raise AssertionError(
            f"직접 구현해야 하는 문제입니다: 실행하는 동안 {', '.join(hits)}이(가) 불렸습니다. "
            "torch.softmax, masked_fill, 행렬 곱(@)으로 계산하세요. 함수 이름은 무엇이든 괜찮습니다."
        )
