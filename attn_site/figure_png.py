"""노트북 출력 PNG 읽기: 글 묶음(대체 텍스트, 글자 크기), 화소 크기, 휴대폰용 그림 덩어리.

``attn_site/figure_alt.py`` 가 씁니다 (Sphinx 확장이 아닌 도우미 모듈; 확장은 attn_course 를 import 하지 않으므로
``attn_course.viz.figure_output`` 이 PNG 에 적는 열쇠와 덩어리 이름을 여기 같은 값으로 둡니다).

휴대폰용 그림: 책을 빌드할 때 ``attn_course.viz.figure_output`` 이 그림을 한 열·좁은 너비로 한 번 더 그려 넓은
PNG 의 ``phOn`` 덩어리에 넣습니다. ``split_phone_png`` 가 그것을 옆 파일(``<이름>-phone.png``)로 꺼내고 넓은
PNG 에서는 지우며, ``phone_source`` 가 그 그림이 휴대폰 본문 칸에 글자 10 CSS px 로 들어갈 때만 쓰기로 합니다.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path
from typing import Any

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
#: 휴대폰용 PNG 를 담은 덩어리 (attn_course.viz.figure_output.PHONE_CHUNK 와 같음; 확장은 attn_course 를 import 하지 않음)
PHONE_CHUNK = b"phOn"
MIN_TEXT_KEY = "Min text px"
RATIO_KEY = "Pixel ratio"
#: 그림 속 가장 작은 글자가 보여야 할 크기 (CSS px)
MIN_LEGIBLE_PX = 10.0
#: 390 px 휴대폰에서 본문 칸의 너비 (양쪽 여백 16 px). 그림의 min-width 가 이보다 크면 휴대폰에서 옆으로 넘어가므로
#: 캡션에 "옆으로 밀어 보기" 안내를 붙입니다 (figures.css 의 .attn-figure-wide, 좁은 화면에서만 보임).
PHONE_COLUMN_PX = 358


def png_text(data: bytes) -> dict[str, str]:
    """PNG 의 글 묶음(tEXt, zTXt, iTXt)을 ``{열쇠: 글}`` 로 읽습니다 (IDAT 앞뒤 모두)."""
    if not data.startswith(PNG_SIGNATURE):
        return {}
    out: dict[str, str] = {}
    pos = len(PNG_SIGNATURE)
    while pos + 8 <= len(data):
        length, tag = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        pos += 12 + length  # 길이, 종류, 내용, CRC
        if tag == b"tEXt":
            key, _, value = body.partition(b"\0")
            out[key.decode("latin-1")] = value.decode("latin-1")
        elif tag == b"zTXt":
            key, _, rest = body.partition(b"\0")
            out[key.decode("latin-1")] = zlib.decompress(rest[1:]).decode("latin-1")
        elif tag == b"iTXt":
            key, _, rest = body.partition(b"\0")
            compressed, rest = rest[0], rest[2:]  # 압축 여부, 압축 방식
            _lang, _, rest = rest.partition(b"\0")
            _translated, _, text = rest.partition(b"\0")
            out[key.decode("latin-1")] = (zlib.decompress(text) if compressed else text).decode("utf-8")
        elif tag == b"IEND":
            break
    return out


def png_size(data: bytes) -> tuple[int, int]:
    """PNG 의 화소 크기 (IHDR 의 너비, 높이)."""
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


def phone_path(path: Path) -> Path:
    """노트북 출력 PNG 옆에 두는 휴대폰용 PNG 의 경로 (``<이름>-phone.png``)."""
    return path.with_name(f"{path.stem}-phone.png")


def png_chunk(data: bytes, tag: bytes) -> tuple[bytes, bytes]:
    """PNG 에서 ``tag`` 덩어리를 뺀 PNG 와 그 덩어리의 내용 (없으면 ``(data, b"")``)."""
    if not data.startswith(PNG_SIGNATURE):
        return data, b""
    pos, found, kept = len(PNG_SIGNATURE), b"", [PNG_SIGNATURE]
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 12 + length
        if kind == tag:
            found = data[pos + 8:pos + 8 + length]
        else:
            kept.append(data[pos:end])
        pos = end
    return (b"".join(kept), found) if found else (data, b"")


def split_phone_png(path: Path, data: bytes) -> tuple[bytes, bytes]:
    """출력 PNG 에 든 휴대폰용 PNG(``phOn`` 덩어리, ``attn_course.viz.figure_output.with_phone_png``)를 꺼내
    옆 파일(``phone_path``)에 두고, 넓은 화면용 PNG 에서는 지웁니다 (넓은 화면이 두 그림을 받지 않게).

    이미 꺼낸 파일이면 옆 파일을 읽습니다. 돌려주는 것은 ``(넓은 화면용 PNG, 휴대폰용 PNG 또는 b"")``.
    """
    stripped, phone = png_chunk(data, PHONE_CHUNK)
    if phone:
        phone_path(path).write_bytes(phone)
        path.write_bytes(stripped)
        return stripped, phone
    side = phone_path(path)
    return data, (side.read_bytes() if data and side.is_file() else b"")


def phone_source(image: Any, phone: bytes, path: Path) -> None:
    """휴대폰용 PNG 가 실제로 휴대폰 본문 칸에 글자 10 px 로 들어가고 넓은 그림은 들어가지 않을 때만
    ``image["phone"]`` 에 적습니다 (HTML 에서 ``<picture><source media=...>`` 가 됨)."""
    text = png_text(phone)
    ratio = float(text.get(RATIO_KEY, "1") or 1)
    width, height = png_size(phone)
    css_width, css_height = round(width / ratio), round(height / ratio)
    smallest = float(text.get(MIN_TEXT_KEY, "0") or 0)
    if not smallest or image.get("min_width", 0) <= PHONE_COLUMN_PX:
        return  # 글자 크기를 모르거나, 넓은 그림도 휴대폰에 그대로 들어감
    min_width = min(css_width, math.ceil(css_width * MIN_LEGIBLE_PX / smallest))
    if min_width > PHONE_COLUMN_PX:
        return  # 휴대폰용 그림도 휴대폰에서 옆으로 넘어감: 넓은 그림 하나만 씀
    image["phone"] = {"path": str(path), "css_width": css_width, "css_height": css_height,
                      "min_width": min_width, "min_text_px": smallest}
