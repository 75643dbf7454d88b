"""수와 낱말 뒤의 조사: 소리 내어 읽었을 때의 마지막 소리로 은/는, 이/가, 을/를, 과/와, (으)로를 고릅니다.

빌드가 만드는 문장(``display(Markdown(f"..."))``, 그림 요약)은 수를 그 자리에서 채우므로, 조사를 손으로
적으면 "0.053로"(영 점 영오**삼**으로), "1로"(**일**로는 맞음), "0.083는"처럼 틀리기 쉽습니다. 이 모듈은 수를
읽는 법을 정해 두고 그 마지막 소리로 조사를 고릅니다.

읽는 법 (이 책의 규칙):

- 정수는 한국어 수사로 읽습니다: 1,024 → 천이십**사**, 300 → 삼**백**, 20 → 이**십**, 32,768 → 삼만이천칠백육십**팔**.
  끝의 0은 자리 이름(십, 백, 천, 만, 억, 조)으로 읽습니다.
- 소수점 아래는 숫자 하나씩 읽습니다: 0.053 → 영 점 영오**삼**, 2.0 → 이 점 **영**.
- 지수 표기는 지수를 정수로 읽습니다: 3.8e-03 → 삼 점 팔 이 마이너스 **삼**, 1e-5 → … 마이너스 **오**.
- 분수 ``a/b``는 "b분의 a"로 읽습니다: 1/3 → 삼분의 **일**.
- 뒤에 붙은 단위는 단위 이름으로 읽습니다: 4 GiB → 사 기비바이**트**, 12 ms → 십이 밀리**초**, 50% → 오십 퍼센**트**.
- 영문 대문자 약어와 글자 하나는 알파벳 이름으로 읽습니다: GPU → 지피**유**, L → **엘**, Hkv → … 브**이**.
- 끝의 괄호, 굵게(``**``), 코드 표시(`````)는 건너뜁니다: 조사는 괄호 앞 낱말에 맞춥니다.

조사는 받침 없음 / ㄹ 받침 / 다른 받침의 셋으로 고릅니다. ``(으)로``만 ㄹ 받침 뒤에서 "로"를 씁니다
(1로, 7로, 8로, 1/3로). "입니다", "이고", "이며", "에서", "까지"처럼 받침과 상관없는 말은 그대로 둡니다.
읽는 법을 모르는 말(예: 대문자 아닌 영어 낱말)은 ``ValueError``로 알려 줍니다: 그때는 받침과 상관없는
조사(에서, 까지, 입니다)로 문장을 바꾸거나 ``READINGS``에 읽는 법을 더하세요.
"""

from __future__ import annotations

import re

__all__ = ["PARTICLE_PAIRS", "READINGS", "final_sound", "particle_for", "with_particle"]

#: 받침이 있을 때의 꼴 -> 없을 때의 꼴. 어느 꼴로 적어도 됩니다 ("로"와 "으로", "는"과 "은"은 같은 조사).
PARTICLE_PAIRS: dict[str, str] = {
    "은": "는",
    "이": "가",
    "을": "를",
    "과": "와",
    "아": "야",
    "이나": "나",
    "이랑": "랑",
    "으로": "로",
    "으로는": "로는",
    "으로도": "로도",
    "으로서": "로서",
    "으로써": "로써",
    "으로부터": "로부터",
    "으로의": "로의",
}
_BY_FORM = {**{a: (a, b) for a, b in PARTICLE_PAIRS.items()}, **{b: (a, b) for a, b in PARTICLE_PAIRS.items()}}

#: 받침 없음, ㄹ 받침, 다른 받침
NONE, RIEUL, OTHER = "없음", "ㄹ", "있음"

_DIGIT = {"0": "영", "1": "일", "2": "이", "3": "삼", "4": "사", "5": "오", "6": "육", "7": "칠", "8": "팔", "9": "구"}
# 끝에 0이 k개인 정수의 마지막 자리 이름 (k = 1, 2, 3, 4~7, 8~11, 12~15)
_PLACE = [(12, "조"), (8, "억"), (4, "만"), (3, "천"), (2, "백"), (1, "십")]
_LETTER = {
    "a": "에이", "b": "비", "c": "씨", "d": "디", "e": "이", "f": "에프", "g": "지", "h": "에이치", "i": "아이",
    "j": "제이", "k": "케이", "l": "엘", "m": "엠", "n": "엔", "o": "오", "p": "피", "q": "큐", "r": "알",
    "s": "에스", "t": "티", "u": "유", "v": "브이", "w": "더블유", "x": "엑스", "y": "와이", "z": "지",
}

#: 수 뒤의 단위와, 알파벳 이름으로 읽지 않는 낱말을 읽는 법 (마지막 소리만 중요합니다)
READINGS: dict[str, str] = {
    "GiB": "기비바이트", "MiB": "메비바이트", "KiB": "키비바이트", "GB": "기가바이트", "MB": "메가바이트",
    "KB": "킬로바이트", "kB": "킬로바이트", "B": "바이트", "bytes": "바이트",
    "ms": "밀리초", "s": "초", "us": "마이크로초", "µs": "마이크로초", "μs": "마이크로초", "ns": "나노초",
    "%": "퍼센트", "px": "픽셀", "pt": "포인트", "x": "배", "×": "배", "k": "케이", "K": "케이",
    "dtype": "디타입", "float32": "플로트삼십이", "float16": "플로트십육", "fp16": "에프피십육", "bf16": "비에프십육",
    "softmax": "소프트맥스", "PyTorch": "파이토치", "torch": "토치", "attn_lib": "어텐션립",
    "inf": "인프", "NaN": "난", "nan": "난",
}

_NUMBER = re.compile(
    r"(?P<sign>[-+−])?(?P<int>\d[\d,]*)?(?:\.(?P<frac>\d+))?(?:[eE](?P<exp>[-+−]?\d+))?(?:/(?P<den>\d+))?$"
)
_TRAILING = re.compile(r"(?P<num>[-+−]?(?:\d[\d,]*(?:\.\d+)?|\.\d+)(?:[eE][-+−]?\d+)?(?:/\d+)?)\s*(?P<unit>[^\d\s]*)$")


def _syllable_final(ch: str) -> str:
    code = ord(ch) - 0xAC00
    jong = code % 28
    return NONE if jong == 0 else (RIEUL if jong == 8 else OTHER)


def _word_final(word: str) -> str:
    return _syllable_final(word[-1])


def _integer_final(digits: str) -> str:
    n = int(digits.replace(",", "")) if digits else 0
    if n == 0:
        return _word_final("영")
    if n % 10:
        return _word_final(_DIGIT[str(n % 10)])
    zeros = len(str(n)) - len(str(n).rstrip("0"))
    return _word_final(next(name for k, name in _PLACE if zeros >= k))


def _number_final(text: str) -> str | None:
    m = _NUMBER.match(text)
    if not m or not (m["int"] or m["frac"]):
        return None
    if m["den"]:  # a/b: b분의 a
        return _integer_final(m["int"] or "0") if not m["frac"] else _word_final(_DIGIT[m["frac"][-1]])
    if m["exp"]:
        return _integer_final(m["exp"].lstrip("-+−"))
    if m["frac"]:
        return _word_final(_DIGIT[m["frac"][-1]])
    return _integer_final(m["int"])


def _strip_trailing_marks(text: str) -> str:
    text = text.rstrip()
    while True:
        before = text
        text = text.rstrip(" *`'\"’”»")
        if text.endswith(")"):
            depth, i = 0, len(text) - 1
            for i in range(len(text) - 1, -1, -1):
                depth += {")": 1, "(": -1}.get(text[i], 0)
                if depth == 0:
                    break
            inner, outer = text[i + 1 : -1], text[:i].rstrip()
            text = outer if outer.rstrip(" *`'\"") else inner  # "(1, 5, E)" 처럼 괄호뿐이면 괄호 안의 끝
        if text == before:
            return text


def final_sound(text: object) -> str:
    """``text``를 소리 내어 읽었을 때의 마지막 소리: ``"없음"``(받침 없음), ``"ㄹ"``, ``"있음"``(다른 받침).

    수는 정수, 소수, 지수 표기, 분수, 단위가 붙은 수(``"4 GiB"``, ``"50%"``)를 읽습니다(모듈 설명의 규칙).

    Raises:
        ValueError: 읽는 법을 모르는 말일 때 (대문자 약어나 글자 하나가 아닌 영어 낱말 등).

    Shape:
        - 해당 없음 (글 -> 글)
    """
    original = text
    text = _strip_trailing_marks(str(text))
    if not text:
        raise ValueError(f"조사를 붙일 말이 비어 있습니다: {original!r}")
    last = text[-1]
    if "가" <= last <= "힣":
        return _syllable_final(last)
    m = _TRAILING.search(text)
    if m and (not m["unit"] or m["unit"] in READINGS):
        if m["unit"]:
            return _word_final(READINGS[m["unit"]])
        sound = _number_final(m["num"])
        if sound is not None:
            return sound
    word = re.search(r"[A-Za-z_%×µμ]+$", text)
    if word:
        w = word.group()
        if w in READINGS:
            return _word_final(READINGS[w])
        letters = w.replace("_", "")
        if letters and (len(letters) == 1 or letters.isupper() or w in {"Hkv", "Dh", "Dv", "d_k", "d_v"}):
            return _word_final(_LETTER[letters[-1].lower()])
    raise ValueError(
        f"{original!r}의 마지막 소리를 정하지 못했습니다. 받침과 상관없는 조사(에서, 까지, 입니다)로 문장을 바꾸거나 "
        "attn_course.viz.particles.READINGS에 읽는 법을 더하세요."
    )


def particle_for(text: object, particle: str) -> str:
    """``text`` 뒤에 올 ``particle``의 맞는 꼴 (``particle``은 "로"든 "으로"든 한쪽 꼴로 주면 됨).

    받침과 상관없는 말(``"에서"``, ``"입니다"``, ``"이고"``)은 그대로 돌려줍니다.

    Shape:
        - 해당 없음 (글 -> 글)
    """
    if not isinstance(particle, str) or not particle:
        raise TypeError(f"particle은 비어 있지 않은 str이어야 하는데 {particle!r}이(가) 들어왔습니다.")
    pair = _BY_FORM.get(particle)
    if pair is None:
        return particle
    with_final, without_final = pair
    sound = final_sound(text)
    if sound == NONE:
        return without_final
    if sound == RIEUL and with_final.startswith("으로"):
        return without_final
    return with_final


def with_particle(value: object, particle: str, fmt: str = "") -> str:
    """``value``를 ``fmt``로 적고 읽는 소리에 맞는 조사를 붙인 글.

    ``with_particle(0.053, "로", ".3f")`` -> ``"0.053으로"``, ``with_particle(1024, "는", ",")`` -> ``"1,024는"``,
    ``with_particle("4 GiB", "은")`` -> ``"4 GiB는"``, ``with_particle(1 / 3, "로", ".3f")`` -> ``"0.333으로"``.

    Shape:
        - 해당 없음 (값 -> 글)
    """
    text = format(value, fmt) if fmt else str(value)
    return text + particle_for(text, particle)
