"""내 어텐션을 참조와 나란히 그리는 보기(attn_course.practice.compare): 계산, 그림과 대체 텍스트, 살아 있는 조작기.

- 맞는 구현은 모든 칸에서 참조와 같고, 틀린 구현(소프트맥스 축, 스케일링 빠짐)은 차이가 나며 그 실수의 힌트를 받습니다.
- 오류를 내거나 모양이 틀린 함수도 보기를 망가뜨리지 않습니다 (참조만 그리고 오류를 글로).
- 그림의 대체 텍스트는 한국어이고 300자 이하입니다.
- ipywidgets 보기는 조작기를 바꿀 때마다 다시 계산합니다 (커널 없이 위젯 값을 바꿔 확인).
- 탐색기는 채점기를 import하지 않습니다 (방향: exercises -> explorer).
- 연습 페이지에는 빌드 때 계산한 틀린 구현의 비교 그림과 캡션이 있습니다.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import pytest
import torch

from attn_course.practice import MISTAKES, compare_attention, compare_attention_live
from attn_course.viz import get_alt

ROOT = Path(__file__).resolve().parents[1]


def attention(query, key, value, attn_mask=None, *, scale=True):
    scores = query @ key.transpose(-2, -1) / (math.sqrt(query.shape[-1]) if scale else 1.0)
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf"))
    dead = torch.isneginf(scores).all(dim=-1, keepdim=True)
    weights = torch.softmax(scores.masked_fill(dead, 0.0), dim=-1).masked_fill(dead, 0.0)
    return weights @ value, weights


def softmax_over_queries(query, key, value, attn_mask=None):
    """연습 페이지의 틀린 구현과 같은 실수: 소프트맥스를 쿼리 축으로."""
    scores = query @ key.transpose(-2, -1) / math.sqrt(query.shape[-1])
    if attn_mask is not None:
        scores = scores.masked_fill(~attn_mask, float("-inf"))
    weights = torch.softmax(scores, dim=-2)
    return weights @ value, weights


@pytest.mark.parametrize("mask", ["none", "causal", "padding", "causal+padding"])
def test_a_correct_implementation_matches_the_reference_everywhere(mask):
    result = compare_attention(attention, d_k=16, num_heads=3, mask=mask)
    assert result.student.shape == result.reference.shape == (3, len(result.tokens), len(result.tokens))
    assert result.max_difference < 1e-6 and result.check.passed and result.error is None
    assert "통과" in result.hint
    assert ("[PAD]" in result.tokens) == ("padding" in mask)


@pytest.mark.parametrize("wrong, mistake", [
    (softmax_over_queries, "softmax_axis"),
    (lambda q, k, v, m=None: attention(q, k, v, m, scale=False), "no_scale"),
])
def test_a_wrong_implementation_shows_the_difference_and_its_hint(wrong, mistake):
    result = compare_attention(wrong, d_k=64, num_heads=2, mask="causal")
    assert result.max_difference > 0.05
    assert result.check.mistake == mistake and result.hint == MISTAKES[mistake]
    fig = result.figure()
    alt = get_alt(fig)
    assert len(fig.axes) >= 6  # 헤드 2개 × (내 구현, 참조, 차이)
    assert re.search(r"[가-힣]", alt) and len(alt) <= 300 and "최대 차이" in alt


def test_settings_change_what_is_compared():
    a = compare_attention(attention, d_k=4, num_heads=1, mask="none")
    b = compare_attention(attention, d_k=256, num_heads=4, mask="causal", tokens="하나 둘 셋")
    assert a.reference.shape == (1, 5, 5) and b.reference.shape == (4, 3, 3)
    assert not torch.allclose(a.reference[0], compare_attention(attention, d_k=256, num_heads=1, mask="none").reference[0])


def test_a_crashing_or_misshaped_function_is_reported_not_raised():
    crashing = compare_attention(lambda q, k, v, m=None: 1 / 0, num_heads=2)
    assert crashing.student is None and "ZeroDivisionError" in crashing.error
    assert math.isnan(crashing.max_difference) and "ZeroDivisionError" in crashing.hint
    assert "오류" in get_alt(crashing.figure())
    shaped = compare_attention(lambda q, k, v, m=None: (q, q), num_heads=2)
    assert shaped.student is None and "모양" in shaped.error
    with pytest.raises(TypeError, match="함수여야"):
        compare_attention("attention")
    with pytest.raises(ValueError, match="num_heads"):
        compare_attention(attention, num_heads=9)
    with pytest.raises(ValueError, match="d_k"):
        compare_attention(attention, d_k=3)


def test_nan_weights_are_counted_in_the_alt_text():
    def nan_rows(q, k, v, m=None):
        scores = (q @ k.transpose(-2, -1)).masked_fill(~m, float("-inf")) / math.sqrt(q.shape[-1])
        w = torch.softmax(scores, dim=-1)
        return w @ v, w

    all_blocked = compare_attention(lambda q, k, v, m=None: nan_rows(q, k, v, torch.zeros_like(m, dtype=torch.bool)),
                                    num_heads=1, mask="causal")
    assert math.isnan(all_blocked.max_difference) and "NaN" in get_alt(all_blocked.figure())


def test_the_live_view_recomputes_when_a_control_changes():
    box = compare_attention_live(softmax_over_queries, d_k=16, num_heads=2, mask="none")
    first_png = bytes(box.children[1].value)
    assert first_png[:4] == b"\x89PNG" and MISTAKES["softmax_axis"] in box.children[2].value
    box.controls["num_heads"].value = 3
    assert box.comparison.num_heads == 3 and bytes(box.children[1].value) != first_png
    box.controls["mask"].value = "causal+padding"
    assert "[PAD]" in box.comparison.tokens
    box.controls["d_k"].value = 128
    assert box.comparison.d_k == 128 and not box.comparison.max_difference < 1e-6  # [PAD] 열은 NaN


def test_the_explorer_does_not_import_the_checkers():
    for path in (ROOT / "attn_course" / "explorer").glob("*.py"):
        assert "exercises" not in path.read_text(encoding="utf-8"), path.name


def test_the_practice_page_shows_a_wrong_implementation_computed_in_the_build():
    cells = json.loads((ROOT / "chapters" / "11_practice.ipynb").read_text(encoding="utf-8"))["cells"]
    src = lambda c: "".join(c["source"]) if isinstance(c["source"], list) else c["source"]  # noqa: E731
    figure = [c for c in cells if c["cell_type"] == "code" and "compare_attention(" in src(c)]
    assert len(figure) == 1 and "dim=-2" in src(figure[0]) and src(figure[0]).rstrip().endswith(".figure()")
    caption = figure[0]["metadata"]["mystnb"]["figure"]["caption"]
    assert re.search(r"[가-힣]", caption) and len(caption) <= 120
    live = [c for c in cells if c["cell_type"] == "code" and "compare_attention_live(" in src(c)]
    assert live and "skip-execution" in live[0]["metadata"].get("tags", [])


@pytest.mark.site
def test_the_built_practice_page_has_the_comparison_figure_with_korean_alt(html_dir):
    html = (html_dir / "chapters" / "11_practice.html").read_text(encoding="utf-8")
    figure = re.search(r'<figure[^>]*id="fig-practice-compare".*?</figure>', html, re.S)
    assert figure, "비교 그림(fig-practice-compare)이 없습니다"
    alt = re.search(r'<img[^>]*alt="([^"]+)"', figure.group(0)).group(1)
    assert "내 어텐션 함수와 참조" in alt and len(alt) <= 300
    assert "소프트맥스를 잘못된 축" in html  # 빌드 때 계산한 힌트
