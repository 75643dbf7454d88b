"""수식의 한국어 읽기 (scripts/tex2svg.cjs, attn_site/math_svg.py): 화면 낭독기가 듣는 말이 맞는지.

빌드는 수식을 SVG 로 그리고, 화면 낭독기에는 speech-rule-engine(SRE)의 한국어 ClearSpeak 규칙으로 만든
읽기를 ``aria-label`` 로 줍니다. SRE 가 이 책의 수식에서 틀리게 읽는 것은 ``SPEECH_FIXES`` 가 고칩니다.
여기서는 고친 결과와, 고치지 않았을 때의 틀린 읽기가 나오지 않는 것을 함께 봅니다.
"""

from __future__ import annotations

import json
import subprocess
from functools import lru_cache

import pytest

from attn_site import math_svg
from conftest import ROOT

if not math_svg.renderer_available():
    pytest.skip("node 나 node_modules/mathjax-full 이 없습니다 (make book 이 npm ci 로 준비)", allow_module_level=True)

#: (TeX, 읽기에 있어야 할 말, 있으면 안 되는 말: SRE 의 원래 틀린 읽기)
CASES = [
    (r"QK^\top", "Q K 의 전치", "참 기호"),
    (r"A^\top", "A 의 전치", "제곱"),
    (r"W^O", "W 위첨자 O", "W 의 O 제곱"),
    (r"W_i^Q", "W 아래첨자 i 위첨자 Q", "의 Q 제곱"),
    (r"E^2", "E 제곱", "위첨자"),  # 숫자 위첨자는 거듭제곱 그대로
    (r"-\infty", "마이너스 무한대", "기본"),
    (r"\|q\|^2", "노름 q 제곱", "메트릭"),
    (r"\ln p", "자연로그 p", "엘 엔"),
    (r"q \cdot k", "q 점 k", "닷"),
    (r"p \odot g", "p 요소별 곱 g", "원문자"),
    (r"\mathbb{E}[q_i]", "기댓값", "칠판볼드체"),
    (r"\sqrt{v} + \epsilon", "엡실론", "기본"),
    (r"\mathrm{Var}(q \cdot k)", "Var 의 괄호 열고", "곱하기 괄호"),
    (r"\mathrm{softmax}(s / T)", "softmax 의 괄호 열고 s 나누기 T", "곱하기 괄호"),
    (r"\text{캐시 바이트} = \text{층 수} \times 2", "캐시 바이트", "캐 시"),
    (r"k_{\text{정답}}", "k 아래첨자 정답", "정 답"),
    (r"\sqrt{d_k}", "루트 d 아래첨자 k", "\\"),
    (r"\begin{split}a = b\end{split}", "a 는 b", "총 줄 수"),
    (r"\frac{1}{d_k}", "분모가 d 아래첨자 k 이고 분자가 1 인 분수", "frac"),
]


@lru_cache(maxsize=1)
def rendered() -> tuple[dict, ...]:
    items = [{"tex": tex, "display": False} for tex, _, _ in CASES]
    out = subprocess.run(["node", str(math_svg.SCRIPT)], input=json.dumps({"items": items}), capture_output=True,
                         text=True, encoding="utf-8", cwd=ROOT, check=True,
                         env={"NODE_PATH": str(math_svg.NODE_MODULES), "PATH": math_svg._path()})
    return tuple(json.loads(out.stdout)["items"])


@pytest.mark.parametrize(("index", "case"), list(enumerate(CASES)), ids=[c[0] for c in CASES])
def test_formula_is_spoken_in_korean(index: int, case: tuple[str, str, str]) -> None:
    tex, expected, wrong = case
    item = rendered()[index]
    assert "error" not in item, f"{tex}: {item.get('error')}"
    speech = item["speech"]
    assert expected in speech, f"{tex}: 읽기 {speech!r} 에 {expected!r} 가 없습니다"
    assert wrong not in speech, f"{tex}: 읽기 {speech!r} 에 틀린 읽기 {wrong!r} 가 남았습니다"


def test_container_carries_speech_and_hides_the_picture() -> None:
    """페이지에 들어가는 모양: role=img 와 한국어 aria-label, 그림은 aria-hidden, TeX 은 data-tex, MathML 없음."""
    item = rendered()[0]
    html = math_svg._container(item, False, CASES[0][0])
    assert html.startswith("<mjx-container ") and 'role="img"' in html
    assert f'aria-label="{item["speech"]}"' in html
    assert 'data-tex="QK^\\top"' in html
    assert '<svg aria-hidden="true"' in html
    assert "<math" not in html and "mjx-assistive-mml" not in html
