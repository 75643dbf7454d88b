"""그림: 돌려준 Figure의 내용, 색, 그리고 한글 글리프가 빠짐없이 그려지는지 확인합니다."""

from __future__ import annotations

import ast
import base64
import re
from pathlib import Path

import matplotlib
import pytest
import torch
from matplotlib.figure import Figure
from matplotlib.font_manager import FontProperties, findfont
from matplotlib.ft2font import FT2Font

from attn_lib import scaled_dot_product_attention
from attn_course import head_tabs, plot_head_heatmaps, plot_saturation_histogram
from attn_course.viz.figures import HEATMAP_CMAP, korean_font_path
from conftest import all_texts, render_without_warnings

HANGUL = re.compile(r"[\uac00-\ud7a3]")
ROOT = Path(__file__).resolve().parents[1]
TOKENS = ["나는", "어제", "도서관에서", "책을", "빌렸다"]


def korean_font() -> FT2Font:
    return FT2Font(str(korean_font_path()))


def has_glyph(font: FT2Font, ch: str) -> bool:
    return font.get_char_index(ord(ch)) != 0


def sample_weights(H=3, L=5, S=5):
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(H, L, 16, generator=g), torch.randn(H, S, 16, generator=g)
    return scaled_dot_product_attention(q, k, k)[1]


def test_font_family_is_korean_and_font_has_hangul():
    family = matplotlib.rcParams["font.family"]
    assert family[0] in {"NanumGothic", "Noto Sans CJK KR", "Noto Sans KR", "Malgun Gothic", "AppleGothic"}
    assert findfont(FontProperties(family=family[0]), fallback_to_default=False) == str(korean_font_path())
    font = korean_font()
    assert all(has_glyph(font, ch) for ch in "가각힣어텐션헤드쿼리키가중치")
    assert not has_glyph(font, "\U0001f600")  # 글리프 검사 자체가 '없음'을 알아보는지


def test_every_hangul_character_in_library_figure_strings_has_a_glyph():
    """attn_lib의 그림 모듈 문자열 리터럴에 쓰인 한글 글자 전부를 글꼴에서 찾습니다."""
    font = korean_font()
    chars = set()
    modules = sorted((ROOT / "attn_course" / "viz").glob("*.py")) + sorted((ROOT / "attn_course" / "explorer").glob("*.py"))
    assert len(modules) >= 8
    for module in modules:
        tree = ast.parse(module.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                chars |= set(HANGUL.findall(node.value))
    assert len(chars) > 20
    missing = sorted(ch for ch in chars if not has_glyph(font, ch))
    assert not missing, f"글꼴에 없는 한글: {missing}"


def test_head_heatmaps_figure_contents_and_glyphs():
    w = sample_weights()
    fig = plot_head_heatmaps(w, TOKENS, TOKENS, title="헤드별 어텐션 가중치")
    assert isinstance(fig, Figure)
    images = [ax.images[0] for ax in fig.axes if ax.images]
    assert len(images) == 3
    for h, im in enumerate(images):
        assert im.get_cmap().name == HEATMAP_CMAP and im.get_clim() == (0.0, 1.0)
        torch.testing.assert_close(torch.as_tensor(im.get_array()), w[h])
    texts = all_texts(fig)
    assert {"헤드 0", "헤드 1", "헤드 2", "쿼리", "키", "헤드별 어텐션 가중치"} <= set(texts)
    assert set(TOKENS) <= set(texts)
    render_without_warnings(fig)
    font = korean_font()
    missing = sorted({ch for t in texts for ch in HANGUL.findall(t) if not has_glyph(font, ch)})
    assert not missing


def test_head_heatmaps_label_count_is_checked():
    with pytest.raises(ValueError, match="query_labels"):
        plot_head_heatmaps(sample_weights(), TOKENS[:3], TOKENS)


def test_saturation_histogram_reports_metrics_and_renders_hangul():
    w = sample_weights(4, 8, 8)
    sharp = torch.eye(8).expand(4, 8, 8)
    fig = plot_saturation_histogram({"스케일링 있음": w, "원-핫": sharp}, title="포화 히스토그램")
    ax = fig.axes[0]
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("원-핫: 포화 행 100%" in t for t in legend)
    assert any(t.startswith("스케일링 있음: 포화 행 0%") for t in legend)
    assert len(ax.patches) == 2  # 시리즈마다 계단 히스토그램 하나
    render_without_warnings(fig)


def tab_png(child) -> bytes:
    """head_tabs 탭 하나(HTML 위젯)의 <img src="data:image/png;base64,...">에서 PNG 바이트."""
    match = re.search(r'src="data:image/png;base64,([A-Za-z0-9+/=]+)"', child.value)
    assert match, f"탭에 PNG 그림이 없습니다: {child.value[:200]}"
    return base64.b64decode(match.group(1))


def test_head_tabs_widget_has_one_png_per_head():
    tabs = head_tabs(sample_weights(), TOKENS, TOKENS)
    assert len(tabs.children) == 3 and tabs.titles == ("헤드 0", "헤드 1", "헤드 2")
    pngs = [tab_png(child) for child in tabs.children]
    assert all(png[:8] == b"\x89PNG\r\n\x1a\n" for png in pngs)
    assert len(set(pngs)) == 3


def test_figures_are_not_left_open_in_pyplot():
    import matplotlib.pyplot as plt

    before = len(plt.get_fignums())
    plot_head_heatmaps(sample_weights(), TOKENS, TOKENS)
    plot_saturation_histogram(sample_weights())
    assert len(plt.get_fignums()) == before  # 노트북에서 두 번 표시되지 않도록
