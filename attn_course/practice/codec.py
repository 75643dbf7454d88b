"""채점용 값 주고받기: 학생 프로세스가 내보낸 값을 **평범한 JSON**으로 적고, 채점 프로세스가 그것만 읽습니다.

채점할 때 학생 노트북은 샌드박스 안에서 실행되고(``attn_harness``), 채점기가 학생 함수에 주는 입력과 학생 함수가 낸
값이 이 모듈의 ``encode``로 JSON에 적혀 파이프를 지납니다. 샌드박스 밖의 채점 프로세스(``attn_grader.judge``)는 ``decode``로
그 JSON을 **파이썬의 기본 값과 torch 텐서로만** 되살립니다. 자기 점검은 공개 명세에 적힌 공개 경우를 같은 ``decode``로 읽습니다. 학생이 만든 객체(``__eq__``가 늘 참인 객체, 텐서의 하위 클래스, 점수 객체)는 채점 프로세스에 들어오지
못합니다: 들어오는 것은 수, 문자열, 튜플, 목록, 집합, 텐서(dtype, 모양, 값), 그리고 모양과 상태가 정해진 어텐션 모듈뿐입니다.
pickle은 쓰지 않습니다.

꼴 (tagged JSON):

- ``null``, ``true``/``false``, 수(정수는 |n| < 2**63, 실수는 유한한 값), 문자열
- ``{"float": "nan" | "inf" | "-inf"}``, ``{"tuple": [...]}``, ``{"set": [...]}``, ``{"dict": [[키, 값], ...]}``
- ``{"tensor": {"dtype": "float32", "shape": [2, 3], "data": [...]}}`` (``data``는 평평한 목록, nan/inf는 문자열)
- ``{"module": {"type": "MultiHeadAttention", "config": {...}, "state": {이름: 텐서}}}``
- ``{"ellipsis": true}`` (``...`` 그대로 둔 답), ``{"opaque": "형 이름"}`` (적을 수 없는 값)
"""

from __future__ import annotations

import math
from typing import Any

import torch
from torch import Tensor, nn

from attn_lib.attention import MultiHeadAttention

__all__ = ["encode", "decode", "Opaque", "CodecError", "LIMITS"]

#: 한 값에서 받아들이는 크기의 한계 (채점 프로세스가 큰 입력에 멈추지 않도록)
LIMITS = {"depth": 12, "items": 200_000, "string": 2_000, "dims": 8}

_DTYPES = {str(d).removeprefix("torch."): d for d in (
    torch.float64, torch.float32, torch.float16, torch.bfloat16, torch.int64, torch.int32, torch.int16,
    torch.int8, torch.uint8, torch.bool)}


class CodecError(ValueError):
    """JSON이 약속한 꼴이 아닐 때 (채점 프로세스가 냄).

    Shape:
        - 해당 없음
    """


class Opaque:
    """적을 수 없었던 학생 값의 자리. 형 이름만 알고, 무엇과도 같지 않습니다.

    Shape:
        - 해당 없음
    """

    def __init__(self, type_name: str) -> None:
        self.type_name = str(type_name)[:80]

    def __repr__(self) -> str:
        return f"<{self.type_name} 값>"


# ---- 학생 쪽: 값 -> JSON ----------------------------------------------------------------------

def _number(x: float) -> Any:
    return x if math.isfinite(x) else {"float": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}


def _tensor(t: Tensor) -> dict:
    t = t.detach().as_subclass(Tensor).cpu()
    name = str(t.dtype).removeprefix("torch.")
    if name not in _DTYPES:
        raise TypeError(f"dtype {name}")
    flat = t.reshape(-1)  # (*모양) -> (N,): 평평한 값 목록으로 적음
    if flat.numel() > LIMITS["items"]:
        raise OverflowError("텐서가 너무 큽니다")
    if t.dtype == torch.bool:
        data: list = [int(v) for v in flat.tolist()]
    elif t.is_floating_point():
        data = [v if math.isfinite(v) else str(v) for v in flat.double().tolist()]  # nan, inf, -inf 는 문자열
    else:
        data = [int(v) for v in flat.tolist()]
    return {"tensor": {"dtype": name, "shape": [int(n) for n in t.shape], "data": data}}


def _module(m: nn.Module) -> dict:
    if type(m) is MultiHeadAttention:
        config = {"embed_dim": m.embed_dim, "num_heads": m.num_heads, "num_kv_heads": m.num_kv_heads,
                  "bias": m.W_q.bias is not None, "dropout": float(m.dropout), "rope_base": m.rope_base}
        kind = "MultiHeadAttention"
    elif type(m) is nn.MultiheadAttention:
        config = {"embed_dim": m.embed_dim, "num_heads": m.num_heads, "bias": m.in_proj_bias is not None}
        kind = "nn.MultiheadAttention"
    else:
        return {"opaque": type(m).__name__}
    return {"module": {"type": kind, "config": config,
                       "state": {k: _tensor(v) for k, v in m.state_dict().items()}}}


def encode(value: Any, _depth: int = 0) -> Any:
    """학생 값 하나를 JSON으로 적을 수 있는 꼴로 바꿉니다. 적을 수 없는 값은 ``{"opaque": 형 이름}``.

    Args:
        value: 학생 노트북의 값 (수, 문자열, 튜플, 목록, 집합, 사전, 텐서, 모듈 …).

    Returns:
        JSON 직렬화가 되는 값.

    Shape:
        - 텐서는 모양과 평평한 값 목록으로 적습니다.
    """
    try:
        if _depth > LIMITS["depth"]:
            return {"opaque": "너무 깊이 중첩된 값"}
        if value is None or value is True or value is False:
            return value
        if value is Ellipsis:
            return {"ellipsis": True}
        if isinstance(value, bool):
            return bool.__bool__(value)
        if isinstance(value, int):
            n = int.__index__(value)
            return n if abs(n) < 2**63 else {"opaque": "너무 큰 정수"}
        if isinstance(value, float):
            return _number(float.__float__(value))
        if isinstance(value, str):
            return str.__str__(value)[: LIMITS["string"]]
        if isinstance(value, Tensor):
            return _tensor(value)
        if isinstance(value, nn.Module):
            return _module(value)
        if type(value).__module__ == "numpy":
            return encode(torch.as_tensor(value) if hasattr(value, "shape") and value.shape else value.item(), _depth)
        if isinstance(value, (tuple, torch.Size)):
            return {"tuple": [encode(v, _depth + 1) for v in _bounded(tuple.__iter__(value))]}
        if isinstance(value, list):
            return [encode(v, _depth + 1) for v in _bounded(list.__iter__(value))]
        if isinstance(value, (set, frozenset)):
            items = [encode(v, _depth + 1) for v in _bounded(iter(frozenset(value)))]
            return {"set": sorted(items, key=repr)}
        if isinstance(value, dict):
            return {"dict": [[encode(k, _depth + 1), encode(v, _depth + 1)] for k, v in _bounded(iter(dict.items(value)))]}
    except Exception:  # 학생 객체가 변환 중에 오류를 내도 채점은 계속합니다
        pass
    return {"opaque": _type_name(value)}


def _type_name(value: Any) -> str:
    try:
        return str(type.__getattribute__(type(value), "__name__"))[:80]
    except Exception:
        return "object"


def _bounded(items: Any) -> list:
    out = []
    for item in items:
        out.append(item)
        if len(out) > LIMITS["items"]:
            raise OverflowError("항목이 너무 많습니다")
    return out


# ---- 채점 쪽: JSON -> 값 (학생 객체는 만들지 않음) -----------------------------------------------

def _float(x: Any) -> float:
    if isinstance(x, str) and x in ("nan", "inf", "-inf"):
        return float(x)
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return float(x)
    raise CodecError(f"실수가 아닙니다: {type(x).__name__}")


def _decode_tensor(spec: Any) -> Tensor:
    if not isinstance(spec, dict) or set(spec) != {"dtype", "shape", "data"} or spec["dtype"] not in _DTYPES:
        raise CodecError("텐서 꼴이 아닙니다")
    shape, data = spec["shape"], spec["data"]
    # 축 수를 먼저 봅니다: 축이 수백만 개인 모양은 math.prod 만으로도 오래 걸립니다 (큰 정수 곱)
    if not isinstance(shape, list) or len(shape) > LIMITS["dims"] or not all(
            isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= LIMITS["items"] for n in shape):
        raise CodecError("텐서 모양이 잘못되었습니다")
    if not isinstance(data, list) or len(data) > LIMITS["items"] or len(data) != math.prod(shape):
        raise CodecError("텐서 값의 수가 모양과 다릅니다")
    dtype = _DTYPES[spec["dtype"]]
    if dtype.is_floating_point:
        values = [_float(v) for v in data]
        return torch.tensor(values, dtype=torch.float64).to(dtype).reshape(shape)  # (N,) -> (*모양)
    if not all(isinstance(v, int) and not isinstance(v, bool) for v in data):
        raise CodecError("정수 텐서에 정수가 아닌 값이 있습니다")
    return torch.tensor(data, dtype=torch.int64).to(dtype).reshape(shape)  # (N,) -> (*모양)


def _decode_module(spec: Any) -> nn.Module:
    if not isinstance(spec, dict) or not isinstance(spec.get("config"), dict) or not isinstance(spec.get("state"), dict):
        raise CodecError("모듈 꼴이 아닙니다")
    c = spec["config"]
    if not (isinstance(c.get("embed_dim"), int) and 0 < c["embed_dim"] <= 256):
        raise CodecError("모듈의 embed_dim 이 채점할 수 있는 범위(1~256)가 아닙니다")  # 채점 프로세스의 메모리를 지킴
    try:
        if spec.get("type") == "MultiHeadAttention":
            rope = c.get("rope_base")
            m: nn.Module = MultiHeadAttention(int(c["embed_dim"]), int(c["num_heads"]), num_kv_heads=int(c["num_kv_heads"]),
                                              bias=bool(c["bias"]), dropout=float(c["dropout"]),
                                              rope_base=None if rope is None else float(rope))
        elif spec.get("type") == "nn.MultiheadAttention":
            m = nn.MultiheadAttention(int(c["embed_dim"]), int(c["num_heads"]), bias=bool(c["bias"]))
        else:
            raise CodecError("모르는 모듈")
        m.load_state_dict({str(k): _decode_tensor(v.get("tensor") if isinstance(v, dict) else None)
                           for k, v in spec["state"].items()})
    except CodecError:
        raise
    except Exception as exc:  # 설정이나 상태가 모듈과 맞지 않음
        raise CodecError(f"모듈을 되살릴 수 없습니다: {type(exc).__name__}") from None
    return m.eval()


def decode(data: Any, _depth: int = 0) -> Any:
    """``encode``가 적은 JSON 값을 파이썬 기본 값과 torch 텐서로 되살립니다 (채점 프로세스 쪽).

    Raises:
        CodecError: 약속한 꼴이 아닐 때.

    Shape:
        - ``encode``의 반대
    """
    if _depth > LIMITS["depth"] + 2:
        raise CodecError("너무 깊이 중첩되었습니다")
    if data is None or isinstance(data, (bool, str)):
        return data
    if isinstance(data, int):
        return data
    if isinstance(data, float):
        return data
    if isinstance(data, list):
        return [decode(v, _depth + 1) for v in data]
    if isinstance(data, dict) and len(data) == 1:
        (tag, body), = data.items()
        if tag == "float":
            return _float(body)
        if tag == "tuple" and isinstance(body, list):
            return tuple(decode(v, _depth + 1) for v in body)
        if tag == "set" and isinstance(body, list):
            try:
                return frozenset(decode(v, _depth + 1) for v in body)
            except TypeError:  # 해시할 수 없는 원소 (텐서 등)
                return Opaque("set")
        if tag == "dict" and isinstance(body, list):
            try:
                return {decode(k, _depth + 1): decode(v, _depth + 1) for k, v in body}
            except (TypeError, ValueError):
                return Opaque("dict")
        if tag == "tensor":
            return _decode_tensor(body)
        if tag == "module":
            return _decode_module(body)
        if tag == "ellipsis":
            return Ellipsis
        if tag == "opaque":
            return Opaque(str(body))
    raise CodecError("모르는 꼴의 값입니다")
