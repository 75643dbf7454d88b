"""어텐션 탐색기: 살아 있는 위젯(AttentionExplorer)과 정적 웹페이지용 데이터(static_explorer).

- 가중치가 탐색기 자신의 쿼리·키에서 따로 계산한 값과 같은지
- 조작기마다 가중치와 그림이 바뀌어야 할 방식으로 바뀌는지 (인과 -> 위 삼각형 0, 스케일링 없는
  큰 d_k -> 포화 증가, 패딩 -> [PAD] 키 0, 헤드와 d_k는 포개짐)
- 잘못된 입력은 예외 없이 한국어 안내를 띄우고 마지막 그림을 그대로 두는지
- 한 번의 표시에 위젯 보기와 정적 HTML이 함께 있는지, 노트북이 위젯 상태를 저장하는지
- 정적 격자의 점수를 (브라우저가 하듯) 스케일·마스크·소프트맥스하면 attn_lib과 같은지, 데이터 크기

시간은 재지 않습니다(``make bench``의 benchmarks/bench_explorer.py가 표로 보여 줍니다).
브라우저에서 그린 값은 tests/test_explorer_browser.py가 확인합니다.
"""

from __future__ import annotations

import gzip
import io
import json
import math
import random
import re
import warnings
from pathlib import Path

import ipywidgets as widgets
import matplotlib.pyplot as plt
import nbformat
import numpy as np
import pytest
import torch
from matplotlib.ft2font import FT2Font
from matplotlib.text import Text
from PIL import Image

from attn_lib import attention_entropy, saturation, scaled_dot_product_attention
from attn_course import AttentionExplorer
from attn_course.explorer.model import DK_CHOICES, MASKS, MAX_HEADS, PAD_TOKEN, ExplorerModel, padded_length
from attn_course.viz.figures import korean_font_path
from attn_course.explorer.spec import explorer_spec
from attn_course.explorer.static import explorer_html
from attn_course.explorer.static_data import STATIC_HEADS, STATIC_MAX_TOKENS, static_grid

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "_build" / ".jupyter_cache"
SENTENCE = "나는 어제 도서관에서 책을 빌렸다"
HANGUL = re.compile(r"[\uac00-\ud7a3]")
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


@pytest.fixture(scope="module")
def explorer() -> AttentionExplorer:
    return AttentionExplorer(tokens=SENTENCE, seed=0, num_heads=4, d_k=64)


def reference_weights(query: torch.Tensor, key: torch.Tensor, mask: str, n: int, scaled: bool) -> torch.Tensor:
    """탐색기와 따로 계산: 점수 -> (스케일) -> 마스크(-inf) -> 소프트맥스. 마스크도 직접 만듭니다."""
    H, L, Dh = query.shape
    S = key.shape[1]
    scores = torch.einsum("hld,hsd->hls", query.double(), key.double())
    if scaled:
        scores = scores / math.sqrt(Dh)
    allowed = torch.ones(L, S, dtype=torch.bool)
    if "causal" in mask:
        allowed &= torch.arange(S)[None, :] <= torch.arange(L)[:, None]
    if "padding" in mask:
        allowed &= torch.arange(S)[None, :] < n
    scores = scores.masked_fill(~allowed, float("-inf"))
    return torch.softmax(scores, dim=-1).float()


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return Image.open(io.BytesIO(data)).size


# ---------------------------------------------------------------------------------------
# 살아 있는 탐색기
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("scaled", [True, False])
def test_weights_after_set_equal_an_independent_recomputation(explorer, mask, scaled):
    for d_k, heads in [(1, 1), (64, 8), (512, 16)]:
        state = explorer.set(d_k=d_k, num_heads=heads, mask=mask, scaled=scaled)
        assert state["error"] == "" and state["mask"] == mask and state["d_k"] == d_k
        n = len(SENTENCE.split())
        L = padded_length(n) if "padding" in mask else n
        assert explorer.weights.shape == (heads, L, L)
        assert explorer.query.shape == (heads, L, d_k) and explorer.key.shape == (heads, L, d_k)
        expected = reference_weights(explorer.query, explorer.key, mask, n, scaled)
        torch.testing.assert_close(explorer.weights, expected, atol=1e-5, rtol=1e-4)
        # attn_lib의 함수를 같은 쿼리·키에 불러도 같은 값 (탐색기가 쓰는 그 함수)
        _, lib = scaled_dot_product_attention(explorer.query, explorer.key, explorer.key, explorer.attn_mask,
                                              scale=None if scaled else 1.0)
        torch.testing.assert_close(explorer.weights, lib)
        torch.testing.assert_close(explorer.forward(), explorer.weights)


def test_queries_and_keys_come_from_the_documented_model(explorer):
    explorer.set(d_k=32, num_heads=3, mask="none", seed=5)
    model = ExplorerModel(5)
    x = model.embed(SENTENCE.split())  # (L, E0)
    torch.testing.assert_close(explorer.query, x @ model.W_q[:3, :, :32])
    torch.testing.assert_close(explorer.key, x @ model.W_k[:3, :, :32])
    explorer.set(seed=0)


def test_head_count_and_d_k_are_nested(explorer):
    explorer.set(d_k=512, num_heads=16, mask="none", scaled=True)
    q16, w16 = explorer.query.clone(), explorer.weights.clone()
    explorer.set(num_heads=4)
    torch.testing.assert_close(explorer.weights, w16[:4])  # 앞쪽 4개 헤드는 그대로
    explorer.set(d_k=64)
    torch.testing.assert_close(explorer.query, q16[:4, :, :64])  # d_k는 앞쪽 칸


def image_changes(explorer: AttentionExplorer, **changes) -> tuple[torch.Tensor, torch.Tensor]:
    before_w, before_png = explorer.weights.clone(), explorer.image
    explorer.set(**changes)
    assert explorer.image != before_png, f"{changes}: 그림이 그대로입니다"
    png_size(explorer.image)
    return before_w, explorer.weights


def test_causal_mask_zeroes_the_upper_triangle_and_changes_the_image(explorer):
    explorer.set(mask="none", num_heads=4, d_k=64, scaled=True)
    before, after = image_changes(explorer, mask="causal")
    upper = torch.ones(after.shape[1:], dtype=torch.bool).triu(1)  # 키 > 쿼리 (미래)
    assert (before[:, upper] > 0).all()
    assert (after[:, upper] == 0).all() and (after[:, ~upper] > 0).all()
    torch.testing.assert_close(after.sum(-1), torch.ones(after.shape[:2]))


def test_padding_mask_pads_the_sentence_and_zeroes_the_pad_keys(explorer):
    explorer.set(mask="none", num_heads=4)
    _, after = image_changes(explorer, mask="padding")
    tokens = explorer.shown_tokens()
    n = len(SENTENCE.split())
    assert tokens[:n] == SENTENCE.split() and tokens[n:] == [PAD_TOKEN] * (padded_length(n) - n)
    assert after.shape == (4, len(tokens), len(tokens))
    assert (after[..., n:] == 0).all() and (after[..., :n] > 0).all()
    _, both = image_changes(explorer, mask="causal+padding")
    assert (both.triu(1) == 0).all() and (both[..., n:] == 0).all()


def test_unscaled_large_d_k_raises_saturation(explorer):
    explorer.set(mask="none", num_heads=8, d_k=512, scaled=True)
    scaled_sat = float(saturation(explorer.weights))
    scaled_ent = float(attention_entropy(explorer.weights).mean())
    _, unscaled = image_changes(explorer, scaled=False)
    assert float(saturation(unscaled)) >= 0.5 > scaled_sat
    assert float(attention_entropy(unscaled).mean()) < 0.5 * scaled_ent
    # d_k가 작으면 스케일링을 꺼도 포화가 적음
    explorer.set(d_k=1)
    assert float(saturation(explorer.weights)) < 0.2


def test_head_count_seed_d_k_and_tokens_change_weights_and_image(explorer):
    explorer.set(mask="none", num_heads=4, d_k=64, scaled=True, seed=0)
    size4 = png_size(explorer.image)
    before, after = image_changes(explorer, num_heads=8)
    assert after.shape[0] == 8 and png_size(explorer.image)[1] > size4[1]
    before, after = image_changes(explorer, seed=1)
    assert not torch.allclose(before, after)
    before, after = image_changes(explorer, d_k=8)
    assert not torch.allclose(before, after)
    _, after = image_changes(explorer, tokens="the cat sat on the mat")
    assert after.shape == (8, 6, 6)
    assert torch.equal(after[:, 0], after[:, 4])  # 같은 토큰('the')은 같은 임베딩 -> 같은 쿼리 행
    explorer.set(tokens=SENTENCE, seed=0, num_heads=4, d_k=64)


def test_widget_controls_drive_the_explorer_like_set(explorer):
    explorer.set(mask="none", num_heads=4, d_k=64, scaled=True, seed=0)
    controls = explorer.controls
    assert isinstance(controls["d_k"], widgets.SelectionSlider)
    assert [value for _, value in controls["d_k"].options] == list(DK_CHOICES)  # 1..512, 로그 눈금
    assert controls["num_heads"].max == MAX_HEADS
    png = explorer.image
    controls["mask"].value = "causal"
    assert explorer.state["mask"] == "causal" and (explorer.weights.triu(1) == 0).all() and explorer.image != png
    controls["num_heads"].value = 2
    assert explorer.weights.shape[0] == 2
    controls["scaled"].value = False
    assert explorer.state["scaled"] is False
    controls["tokens"].value = "a b c"
    assert explorer.weights.shape == (2, 3, 3)
    labels = [label for label, _ in controls["mask"].options]
    assert labels == ["없음", "인과", "패딩", "인과+패딩"]
    explorer.set(tokens=SENTENCE, mask="none", num_heads=4, scaled=True)


@pytest.mark.parametrize("bad", [
    {"tokens": " ".join(f"t{i}" for i in range(17))},
    {"tokens": ""},
    {"tokens": "   "},
    {"tokens": f"가 {PAD_TOKEN}"},
    {"d_k": 3},
    {"num_heads": 17},
    {"mask": "diagonal"},
    {"seed": -1},
    {"position": "alibi"},
    {"window": 2},
    {"window": True},
])
def test_invalid_input_keeps_the_last_picture_and_shows_a_korean_message(explorer, bad):
    explorer.set(tokens=SENTENCE, mask="causal", num_heads=4, d_k=64, scaled=True, seed=0)
    png, weights, good = explorer.image, explorer.weights.clone(), explorer.state
    state = explorer.set(**bad)  # 예외 없이
    assert state["error"] and HANGUL.search(state["error"])
    assert HANGUL.search(explorer._message.value) and "마지막 그림" in explorer._message.value
    assert explorer.image == png and torch.equal(explorer.weights, weights)
    assert {k: v for k, v in state.items() if k != "error"} == {k: v for k, v in good.items() if k != "error"}
    state = explorer.set(mask="none")  # 다음 올바른 입력은 안내를 지우고 다시 그림
    assert state["error"] == "" and explorer._message.value == "" and explorer.image != png


def test_invalid_text_typed_into_the_widget_never_raises(explorer):
    explorer.set(tokens=SENTENCE, mask="none")
    png = explorer.image
    explorer.controls["tokens"].value = " ".join(["토큰"] * 20)  # 사용자가 17개 이상을 입력
    assert "16개" in explorer.error and explorer.image == png
    assert explorer.controls["tokens"].value.count("토큰") == 20  # 적은 글은 그대로 보임
    explorer.controls["tokens"].value = ""
    assert "비어" in explorer.error and explorer.image == png
    explorer.controls["tokens"].value = SENTENCE
    assert explorer.error == "" and explorer.state["tokens"] == SENTENCE.split()


def test_unknown_setting_name_is_a_type_error(explorer):
    with pytest.raises(TypeError, match="모르는 설정"):
        explorer.set(heads=4)


def test_constructor_rejects_bad_values_with_korean_errors():
    with pytest.raises(ValueError, match="비어"):
        AttentionExplorer(tokens="")
    with pytest.raises(ValueError, match="d_k"):
        AttentionExplorer(d_k=100)


def test_set_returns_only_after_the_new_image_exists(explorer):
    explorer.set(d_k=64, num_heads=8, mask="none", scaled=True)
    png = explorer.image
    state = explorer.set(d_k=128)
    assert state["d_k"] == 128 and explorer.image != png and explorer._image.value == explorer.image


def test_figures_are_reused_and_not_registered_with_pyplot():
    before = len(plt.get_fignums())
    ex = AttentionExplorer(tokens=SENTENCE, num_heads=4)
    figure = ex._figure(4, ex.shown_tokens())
    for mask in ("causal", "none"):
        ex.set(mask=mask)
    ex.set(d_k=512, scaled=False, seed=3)
    assert ex._figure(4, ex.shown_tokens()) is figure  # 값만 바꿔 다시 그림 (그림을 새로 만들지 않음)
    ex.set(num_heads=8)
    ex.set(num_heads=4)
    assert ex._figure(4, ex.shown_tokens()) is figure  # 헤드 수마다 그림 하나 (다시 쓰임)
    assert len(plt.get_fignums()) == before


def test_live_figure_labels_are_korean_and_every_glyph_exists():
    ex = AttentionExplorer(tokens=SENTENCE, num_heads=4, mask="causal+padding")
    fig = ex._figure(4, ex.shown_tokens()).fig
    texts = [t.get_text() for t in fig.findobj(Text) if t.get_text()]
    assert {"헤드 0", "헤드 3", "쿼리", "키", "어텐션 가중치", "포화 히스토그램"} <= set(texts)
    assert any(t.startswith("포화 행 ") and "평균 엔트로피" in t for t in texts)
    assert set(SENTENCE.split()) | {PAD_TOKEN} <= set(texts)
    font = FT2Font(str(korean_font_path()))
    missing = sorted({ch for t in texts for ch in t if ord(ch) > 127 and font.get_char_index(ord(ch)) == 0})
    assert not missing, f"글꼴에 없는 글자: {missing}"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 이 블록 안에서만: 'Glyph ... missing' 경고를 오류로
        ex.set(mask="none")
        ex.set(d_k=512, scaled=False)


def test_display_bundle_carries_the_widget_view_and_the_static_explorer(explorer):
    explorer.set(tokens=SENTENCE, num_heads=4, d_k=64, mask="causal", scaled=True)
    bundle = explorer._repr_mimebundle_()
    assert bundle[WIDGET_VIEW]["model_id"] == explorer.widget.model_id
    assert isinstance(explorer.widget, widgets.VBox)
    html = bundle["text/html"]
    assert 'class="attn-explorer"' in html and "vegaEmbed" in html
    assert "http://" not in html and "https://" not in html  # CDN도 스키마 주소도 없음
    meta = json.loads(re.search(r'class="attn-explorer-meta">(.*?)</script>', html).group(1))
    assert meta["tokens"] == SENTENCE.split() and meta["seed"] == 0
    spec = json.loads(re.search(r'-spec">(.*?)</script>', html).group(1))
    values = {p["name"].split("_")[0]: p["value"] for p in spec["params"]}
    # KV 헤드 수를 나누지 않았으면 정적 조작기는 "헤드 수와 같게"(가장 큰 값): 헤드 수를 바꿔도 멀티헤드로 남음
    assert values == {"dk": 64, "heads": 4, "kv": 16, "mask": "causal", "scaled": True, "pos": "none", "win": 0}
    kv_bind = next(p["bind"] for p in spec["params"] if p["name"].startswith("kv_"))
    assert kv_bind["labels"][-1] == "헤드 수와 같게" and kv_bind["options"][-1] == 16
    assert bundle["text/plain"].startswith("AttentionExplorer(")
    explorer.set(num_heads=8, num_kv_heads=2)
    spec = json.loads(re.search(r'-spec">(.*?)</script>', explorer._repr_mimebundle_()["text/html"]).group(1))
    assert {p["name"].split("_")[0]: p["value"] for p in spec["params"]}["kv"] == 2


def test_static_html_for_long_sentences_is_a_korean_note():
    html = explorer_html([f"t{i}" for i in range(STATIC_MAX_TOKENS + 1)], 0)
    assert "attn-explorer-note" in html and HANGUL.search(html) and "vegaEmbed" not in html


# ---------------------------------------------------------------------------------------
# 정적 탐색기의 데이터
# ---------------------------------------------------------------------------------------


def browser_like_weights(grid: dict, d_k: int, heads: int, mask: str, scaled: bool, kv: int | None = None,
                         position: str = "none", window: int | None = None) -> np.ndarray:
    """명세의 변환(transform)이 하는 계산을 numpy로: 펼친 점수 -> 스케일 -> 마스크(창 포함) -> 소프트맥스.
    키·밸류 헤드가 ``kv``개면 쿼리 헤드 h는 키 헤드 h // (heads / kv)의 행을 씁니다 (RoPE면 kv = heads).
    모두 가려진 행은 0."""
    n, P = grid["n"], grid["P"]
    rope = int(position == "rope" and d_k > 1)
    group = 1 if position == "rope" else heads // (heads if kv is None else min(kv, heads))
    rows = [r for r in grid["rows"] if r["dk"] == d_k and r["h"] < heads and r["g"] == r["h"] // group
            and r["r"] == rope]
    s = np.array([r["s"] for r in sorted(rows, key=lambda r: r["h"])], dtype=np.float64).reshape(heads, P, P)
    L = P if "padding" in mask else n
    s = s[:, :L, :L] * (1 / math.sqrt(d_k) if scaled else 1.0)
    q, k = np.arange(L)[:, None], np.arange(L)[None, :]
    ok = ~(("causal" in mask) & (k > q)) & ~(("padding" in mask) & (k >= n))
    if window:
        ok = ok & (k <= q) & (q - k < window)
    z = np.where(ok, s, -np.inf)
    zmax = z.max(-1, keepdims=True)
    e = np.where(ok, np.exp(z - np.where(np.isfinite(zmax), zmax, 0)), 0.0)
    esum = e.sum(-1, keepdims=True)
    return np.divide(e, esum, out=np.zeros_like(e), where=esum > 0)


def test_static_grid_reproduces_attn_lib_at_random_grid_points():
    tokens = SENTENCE.split()
    grid = static_grid(tokens, 0)
    model = ExplorerModel(0)
    rng = random.Random(0)
    points = [(rng.choice(DK_CHOICES), rng.choice(STATIC_HEADS), MASKS[i % 4], i % 8 < 4) for i in range(24)]
    assert {p[2] for p in points} == set(MASKS) and {p[3] for p in points} == {True, False}
    for d_k, heads, mask, scaled in points:
        shown = grid["tokens"] if "padding" in mask else tokens
        expected, *_ = model.weights(shown, d_k=d_k, num_heads=heads, mask=mask, scaled=scaled)
        got = browser_like_weights(grid, d_k, heads, mask, scaled)
        np.testing.assert_allclose(got, expected.numpy(), atol=1e-3, err_msg=str((d_k, heads, mask, scaled)))


def test_static_spec_is_valid_vega_lite_and_fits_the_budget():
    altair = pytest.importorskip("altair")
    tokens = [f"토큰{i}" for i in range(STATIC_MAX_TOKENS)]  # 가장 큰 문장
    grid = static_grid(tokens, 0)
    assert grid["P"] == padded_length(STATIC_MAX_TOKENS)
    pairs = {(h, h >> shift) for h in range(MAX_HEADS) for shift in range(MAX_HEADS.bit_length())}
    # 위치 없음: d_k마다 65쌍. RoPE: d_k >= 2마다 h = g인 16쌍 (static_data의 예산 결정)
    assert len(grid["rows"]) == len(DK_CHOICES) * len(pairs) + (len(DK_CHOICES) - 1) * MAX_HEADS
    assert len(pairs) == 65
    spec = explorer_spec(grid, d_k=64, num_heads=8, mask="padding", scaled=False)
    altair.VConcatChart.from_dict(spec, validate=True)  # Altair에 든 Vega-Lite 스키마로 검사
    spec = explorer_spec(grid, d_k=64, num_heads=8, mask="causal", scaled=True, position="rope", window=3)
    altair.VConcatChart.from_dict(spec, validate=True)
    html = explorer_html(tokens, 0)
    data = re.search(r'-spec">(.*?)</script>', html).group(1).encode("utf-8")
    # 예산은 전송량(gzip)으로: 점수는 무작위에 가까워 잘 줄지 않고, 글 요약은 잘 줄어듭니다.
    assert len(gzip.compress(data)) < 250_000, f"탐색기 데이터 gzip {len(gzip.compress(data)):,} 바이트 (예산 250 KB)"
    meta = json.loads(re.search(r'class="attn-explorer-meta">(.*?)</script>', html).group(1))
    assert meta["data_bytes"] == len(data)


def test_two_static_explorers_on_one_page_get_distinct_ids():
    a = explorer_html(SENTENCE.split(), 0)
    b = explorer_html(SENTENCE.split(), 0)
    assert a != b  # 같은 페이지에 둘 있어도 id(와 라디오 묶음 이름)가 겹치지 않음
    ids = re.findall(r'id="(attn-explorer-[0-9a-f]+)"', a + b)
    assert len(set(ids)) == 2


# ---------------------------------------------------------------------------------------
# 빌드에서 실행된 노트북
# ---------------------------------------------------------------------------------------


@pytest.mark.site
def test_notebook_runs_the_explorer_and_saves_widget_state():
    from jupyter_cache import get_cache

    assert CACHE.exists(), f"{CACHE}가 없습니다: 먼저 `make book`을 실행하세요"
    source = nbformat.read(ROOT / "chapters" / "02_multi_head.ipynb", as_version=4)
    try:
        _, executed = get_cache(str(CACHE)).merge_match_into_notebook(source)
    except KeyError:
        pytest.fail("02_multi_head: 지금 원본과 맞는 실행 결과가 캐시에 없습니다 (다시 `make book`)")
    cells = [c for c in executed.cells if c.cell_type == "code" and "AttentionExplorer(" in c.source]
    assert cells, "02_multi_head에 탐색기 셀이 없습니다"
    state = executed.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json", {}).get("state", {})
    for cell in cells:
        bundles = [o for o in cell.outputs if o.output_type == "execute_result"]
        assert len(bundles) == 1, "셀 하나에 표시 하나 (위젯 보기와 정적 HTML이 한 출력에)"
        data = bundles[0]["data"]
        assert WIDGET_VIEW in data and "attn-explorer" in data["text/html"]
        model_id = data[WIDGET_VIEW]["model_id"]
        assert model_id in state, "노트북에 탐색기의 위젯 상태가 저장되지 않았습니다"
        reached, todo = set(), [model_id]
        while todo:  # 탐색기 VBox에서 닿는 모델 (조작기, 안내, 그림)
            current = todo.pop()
            if current not in reached and current in state:
                reached.add(current)
                todo += re.findall(r"IPY_MODEL_([0-9a-f]+)", json.dumps(state[current]["state"]))
        names = {state[m]["model_name"] for m in reached}
        assert {"VBoxModel", "ImageModel", "SelectionSliderModel", "IntSliderModel", "ToggleButtonsModel",
                "CheckboxModel", "TextModel", "HTMLModel"} <= names, names
        assert not [o for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]


def test_png_encoder_writes_the_canvas_pixels_exactly():
    from attn_course.explorer.live_figure import _png_rgb

    ex = AttentionExplorer(tokens=SENTENCE, num_heads=2)
    canvas = ex._figure(2, ex.shown_tokens()).fig.canvas
    pixels = np.asarray(canvas.buffer_rgba())
    decoded = np.asarray(Image.open(io.BytesIO(ex.image)).convert("RGB"))
    np.testing.assert_array_equal(decoded, pixels[:, :, :3])
    tiny = np.random.default_rng(0).integers(0, 256, (3, 5, 4), dtype=np.uint8)
    np.testing.assert_array_equal(np.asarray(Image.open(io.BytesIO(_png_rgb(tiny)))), tiny[:, :, :3])


# ---------------------------------------------------------------------------------------
# 키·밸류 헤드를 나눈 탐색기 (그룹 쿼리 어텐션)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("heads, kv", [(8, 2), (8, 1), (6, 3), (16, 4), (4, 4)])
def test_kv_heads_give_attn_lib_gqa_weights(heads, kv):
    ex = AttentionExplorer(tokens=SENTENCE, num_heads=heads, num_kv_heads=kv, d_k=32, mask="causal")
    assert ex.query.shape[0] == heads and ex.key.shape[0] == kv
    value = torch.zeros(kv, ex.key.shape[1], 1)
    _, lib = scaled_dot_product_attention(ex.query, ex.key, value, ex.attn_mask, enable_gqa=kv != heads)
    torch.testing.assert_close(ex.weights, lib)
    # PyTorch의 enable_gqa와 같은 짝: 쿼리 헤드 h는 키 헤드 h // (H / Hkv)
    repeated = ex.key.repeat_interleave(heads // kv, dim=0)  # (Hkv, S, Dh) -> (H, S, Dh)
    torch.testing.assert_close(ex.weights, reference_weights(ex.query, repeated, "causal", 5, True),
                               atol=1e-5, rtol=1e-4)
    # 키 헤드 g의 키는 헤드 g의 키 (포개짐): 보통의 탐색기의 앞쪽 kv개 키와 같음
    full = AttentionExplorer(tokens=SENTENCE, num_heads=heads, d_k=32)
    torch.testing.assert_close(ex.key, full.key[:kv])
    if kv < heads:
        assert not torch.allclose(ex.weights, full.weights)


def test_kv_control_offers_exactly_the_divisors_and_follows_the_head_count():
    ex = AttentionExplorer(tokens=SENTENCE, num_heads=12, num_kv_heads=4)
    assert tuple(ex.controls["num_kv_heads"].options) == (1, 2, 3, 4, 6, 12)
    ex.controls["num_heads"].value = 8  # 4는 8을 나누므로 그대로
    assert (ex.state["num_heads"], ex.state["num_kv_heads"]) == (8, 4)
    assert tuple(ex.controls["num_kv_heads"].options) == (1, 2, 4, 8)
    ex.controls["num_heads"].value = 6  # 4는 6을 나누지 않음 -> 헤드 수로
    assert (ex.state["num_heads"], ex.state["num_kv_heads"], ex.error) == (6, 6, "")
    ex.controls["num_heads"].value = 16  # 멀티헤드였으면 헤드 수를 따라감
    assert ex.state["num_kv_heads"] == 16
    state = ex.set(num_kv_heads=5)  # 나누지 않는 값은 한국어 안내, 그림은 그대로
    assert "KV 헤드 수" in state["error"] and ex.state["num_kv_heads"] == 16
    with pytest.raises(ValueError, match="KV 헤드 수"):
        AttentionExplorer(tokens=SENTENCE, num_heads=4, num_kv_heads=3)


def test_kv_readout_matches_the_formula_and_a_filled_kv_cache():
    from attn_lib import KVCache
    from attn_course.explorer import kv_cache_bytes_per_token
    from attn_course.explorer.live import kv_readout

    ex = AttentionExplorer(tokens=SENTENCE, num_heads=8, num_kv_heads=2, d_k=64)
    assert "2 × KV 헤드 2 × d_k 64 × 4바이트 = 1,024바이트" in ex._kv_readout.value
    assert "헤드마다 따로 두면 4,096바이트" in kv_readout(ex.state)
    cache = KVCache()
    T = 7
    cache.update(torch.zeros(1, 2, T, 64), torch.zeros(1, 2, T, 64))  # (B, Hkv, S, Dh) float32
    assert cache.nbytes == T * kv_cache_bytes_per_token(2, 64)


def test_kv_groups_are_titled_and_coloured_in_the_live_figure():
    ex = AttentionExplorer(tokens=SENTENCE, num_heads=4, num_kv_heads=2)
    figure = ex._figure(4, ex.shown_tokens(), 2)
    titles = [ax.get_title() for ax in figure.heat_axes]
    assert titles == ["헤드 0 · KV 그룹 0", "헤드 1 · KV 그룹 0", "헤드 2 · KV 그룹 1", "헤드 3 · KV 그룹 1"]
    colors = [ax.title.get_color() for ax in figure.heat_axes]
    assert colors[0] == colors[1] != colors[2] == colors[3]
    assert [ax.get_title() for ax in ex._figure(4, ex.shown_tokens(), 4).heat_axes][0] == "헤드 0"


def test_static_grid_reproduces_attn_lib_gqa_at_random_grid_points():
    tokens = SENTENCE.split()
    grid = static_grid(tokens, 0)
    model = ExplorerModel(0)
    rng = random.Random(1)
    for i in range(16):
        heads = rng.choice([2, 4, 8, 16])
        kv = rng.choice([k for k in STATIC_HEADS if k < heads])
        d_k, mask, scaled = rng.choice(DK_CHOICES), MASKS[i % 4], i % 8 < 4
        shown = grid["tokens"] if "padding" in mask else tokens
        expected, *_ = model.weights(shown, d_k=d_k, num_heads=heads, mask=mask, scaled=scaled, num_kv_heads=kv)
        got = browser_like_weights(grid, d_k, heads, mask, scaled, kv)
        np.testing.assert_allclose(got, expected.numpy(), atol=1e-3, err_msg=str((d_k, heads, kv, mask, scaled)))


def test_static_summary_has_a_line_per_head_for_every_kv_setting():
    from attn_course.explorer import summary_key, summary_table
    from attn_course.viz.describe import describe_heads

    tokens = SENTENCE.split()
    table = summary_table(tokens, 0)
    model = ExplorerModel(0)
    for heads, kv in [(8, 2), (16, 1), (4, 2)]:
        shift = (heads // kv).bit_length() - 1
        rows = table["index"][summary_key(64, "causal", True, shift)][:heads]
        weights, *_ = model.weights(tokens, d_k=64, num_heads=heads, mask="causal", scaled=True, num_kv_heads=kv)
        assert [table["lines"][i] for i in rows] == describe_heads(weights, tokens, tokens)


# ---------------------------------------------------------------------------------------
# 위치(RoPE)와 창 (이슈 29)
# ---------------------------------------------------------------------------------------


def rope_reference(model: ExplorerModel, tokens: list[str], d_k: int, heads: int, kv: int) -> tuple[torch.Tensor, torch.Tensor]:
    """탐색기와 따로: 임베딩 -> 투영 -> 같은 성분(가장 빠른 평면) 더하기 -> attn_lib.rope.apply_rope."""
    from attn_course.explorer.model import ROPE_SHARED_GAIN
    from attn_lib.rope import apply_rope

    x = model.embed(tokens)
    q = torch.einsum("le,hed->hld", x, model.W_q[:heads, :, :d_k])
    k = torch.einsum("le,hed->hld", x, model.W_k[:kv, :, :d_k])
    radius = math.sqrt(ROPE_SHARED_GAIN * math.sqrt(d_k))
    u = torch.zeros(kv, d_k)
    for g in range(kv):
        angle = float(model.shared_angle[g])
        u[g, 0], u[g, d_k // 2] = radius * math.cos(angle), radius * math.sin(angle)
    q = q + u[torch.arange(heads) // (heads // kv), None, :]
    k = k + u[:, None, :]
    pos = torch.arange(len(tokens))
    return apply_rope(q, pos), apply_rope(k, pos)


def window_reference(mask: str, L: int, n: int, window: int | None) -> torch.Tensor:
    """마스크와 창을 탐색기와 따로 (attn_lib.masks.sliding_window_mask와 손으로 쓴 인과·패딩의 논리곱)."""
    from attn_lib.masks import sliding_window_mask

    q, k = torch.arange(L)[:, None], torch.arange(L)[None, :]
    allowed = torch.ones(L, L, dtype=torch.bool)
    if "causal" in mask:
        allowed &= k <= q
    if "padding" in mask:
        allowed &= k < n
    if window is not None:
        allowed &= sliding_window_mask(L, L, window)
    return allowed


@pytest.mark.parametrize("mask", MASKS)
@pytest.mark.parametrize("position, window", [("rope", None), ("none", 3), ("rope", 3)])
def test_position_and_window_give_attn_lib_weights_computed_directly(explorer, mask, position, window):
    n = len(SENTENCE.split())
    model = ExplorerModel(0)
    for d_k, heads, kv, scaled in [(2, 2, 2, True), (64, 8, 2, True), (512, 4, 4, False), (1, 4, 1, True)]:
        state = explorer.set(tokens=SENTENCE, seed=0, d_k=d_k, num_heads=heads, num_kv_heads=kv, mask=mask,
                             scaled=scaled, position=position, window=window)
        assert state["error"] == "" and state["position"] == position and state["window"] == window
        shown = explorer.shown_tokens()
        L = len(shown)
        if position == "rope" and d_k > 1:
            q, k = rope_reference(model, shown, d_k, heads, kv)
        else:  # d_k = 1: 돌릴 짝이 없어 위치 없음과 같음
            q, k = model.queries_keys(shown, d_k, heads, kv)
        torch.testing.assert_close(explorer.query, q)
        torch.testing.assert_close(explorer.key, k)
        allowed = window_reference(mask, L, n, window)
        scores = torch.einsum("hld,hsd->hls", q.double(), k.double()[torch.arange(heads) // (heads // kv)])
        scores = scores / math.sqrt(d_k) if scaled else scores
        empty = ~allowed.any(-1)  # 모두 가려진 행 (패딩 + 창의 [PAD] 쿼리): attn_lib은 0
        expected = torch.softmax(scores.masked_fill(~allowed, float("-inf")), -1).nan_to_num(0.0).float()
        w = explorer.weights
        torch.testing.assert_close(w, expected, atol=1e-5, rtol=1e-4)
        assert bool((w[:, ~allowed] == 0).all())  # 가려진 칸은 정확히 0
        sums = w.sum(-1)  # (H, L)
        torch.testing.assert_close(sums[:, ~empty], torch.ones_like(sums[:, ~empty]))
        assert bool((sums[:, empty] == 0).all())
        if window is not None:
            assert bool((w.triu(1) == 0).all())  # 창은 그 자체로 인과
        torch.testing.assert_close(explorer.forward(), w)
    explorer.set(d_k=64, num_heads=4, num_kv_heads=4, mask="none", scaled=True, position="none", window=None)


def test_window_with_padding_empties_the_pad_rows_that_see_only_pad():
    ex = AttentionExplorer(tokens=SENTENCE, mask="padding", window=3, num_heads=2)
    n, P = len(SENTENCE.split()), padded_length(len(SENTENCE.split()))
    empty_rows = [i for i in range(P) if i - 2 >= n]  # 창 (i-2..i) 안이 모두 [PAD]
    assert empty_rows and (ex.weights[:, empty_rows] == 0).all()
    assert torch.allclose(ex.weights[:, : n + 2].sum(-1), torch.ones(2, n + 2))


def diagonal_share(weights: torch.Tensor, allowed: torch.Tensor) -> float:
    """가중치의 분산 가운데 대각선(거리 q - k)마다의 평균으로 설명되는 몫 (1이면 거리에만 달림)."""
    w = weights.double()
    L = w.shape[-1]
    dist = torch.arange(L)[:, None] - torch.arange(L)[None, :]
    total = resid = 0.0
    for h in range(w.shape[0]):
        vals = w[h][allowed]
        total += float(((vals - vals.mean()) ** 2).sum())
        for d in dist[allowed].unique():
            cell = w[h][allowed & (dist == d)]
            resid += float(((cell - cell.mean()) ** 2).sum())
    return 1 - resid / total


def test_rope_weights_depend_only_on_distance_for_a_repeated_token():
    """같은 토큰을 되풀이하면 RoPE의 가중치는 대각선(같은 거리)을 따라 같고, 위치 없음이면 모든 칸이 같습니다."""
    ex = AttentionExplorer(tokens="가 가 가 가 가 가 가 가", num_heads=4, d_k=64, mask="none", position="rope")
    # 행마다 보는 키의 거리 집합이 달라 정규화가 다르므로, 소프트맥스 전의 점수로 봅니다
    scores = torch.einsum("hld,hsd->hls", ex.query, ex.key)
    for d in range(-7, 8):
        diag = torch.diagonal(scores, offset=d, dim1=1, dim2=2)
        torch.testing.assert_close(diag, diag[:, :1].expand_as(diag), atol=1e-3, rtol=1e-4)
    assert not torch.allclose(scores[:, 0, 0], scores[:, 0, 1], atol=1e-2)  # 거리에 따라 다름
    ex.set(position="none")
    torch.testing.assert_close(ex.weights, torch.full_like(ex.weights, 1 / 8))  # 위치 정보가 없으면 구별 못함


def test_rope_makes_the_explorer_scores_follow_the_distance():
    """탐색기의 기본 문장에서 RoPE를 켜면 점수가 대각선을 따라 비슷해집니다: 거리로 설명되는 몫이 모든 d_k >= 2에서
    위치 없음보다 0.2 넘게 크고(인과 마스크의 가중치도), 같은 성분의 점수는 정확히 |u|^2 cos(m - n)입니다.
    (마스크 없음의 가중치는 소프트맥스가 눌러 d_k = 8에서 몫이 거의 같으므로 조작기 설명은 점수로 말합니다.)"""
    from attn_course.explorer.model import ROPE_SHARED_GAIN
    from attn_lib.rope import apply_rope

    model = ExplorerModel(0)
    tokens = SENTENCE.split()
    L = len(tokens)
    everything, causal = window_reference("none", L, L, None), window_reference("causal", L, L, None)
    shares = {}
    for d_k in DK_CHOICES[1:]:
        for position in ("none", "rope"):
            q, k = model.queries_keys(tokens, d_k, 4, 4, position)
            shares[d_k, position] = diagonal_share(q @ k.transpose(-2, -1), everything)
            w, *_ = model.weights(tokens, d_k=d_k, num_heads=4, mask="causal", scaled=True, position=position)
            shares[d_k, position, "causal"] = diagonal_share(w, causal)
        assert shares[d_k, "rope"] > shares[d_k, "none"] + 0.2, shares
        assert shares[d_k, "rope", "causal"] > shares[d_k, "none", "causal"] + 0.2, shares
        u = model.shared_component(d_k, 1).expand(L, d_k)  # 모든 위치에 같은 벡터
        pos = torch.arange(L)
        ru = apply_rope(u.double(), pos)
        dist = (pos[:, None] - pos[None, :]).double()
        torch.testing.assert_close(ru @ ru.T, ROPE_SHARED_GAIN * math.sqrt(d_k) * torch.cos(dist), atol=1e-5, rtol=1e-5)


def test_position_and_window_controls_drive_the_explorer_and_are_labelled_in_korean(explorer):
    explorer.set(tokens=SENTENCE, mask="none", num_heads=4, d_k=64, scaled=True, seed=0, position="none", window=None)
    controls = explorer.controls
    assert [label for label, _ in controls["position"].options] == ["없음", "RoPE"]
    assert [label for label, _ in controls["window"].options] == ["전체", "3"]
    assert controls["position"].description == "위치" and controls["window"].description == "창"
    png, w0 = explorer.image, explorer.weights.clone()
    controls["position"].value = "rope"
    assert explorer.state["position"] == "rope" and explorer.image != png and not torch.equal(explorer.weights, w0)
    png = explorer.image
    controls["window"].value = 3
    assert explorer.state["window"] == 3 and explorer.image != png
    assert bool((explorer.weights.tril(-3) == 0).all() and (explorer.weights.triu(1) == 0).all())
    controls["window"].value = 0  # 전체
    assert explorer.state["window"] is None and controls["window"].value == 0
    explorer.set(window=3)
    assert controls["window"].value == 3
    assert "위치 RoPE, 창 3" in explorer._summary.value
    explorer.set(position="none", window=None)
    assert controls["position"].value == "none" and controls["window"].value == 0
    assert "위치" not in explorer._summary.value.split("</p>")[0]


def test_static_grid_reproduces_attn_lib_with_position_and_window_at_random_grid_points():
    tokens = SENTENCE.split()
    grid = static_grid(tokens, 0)
    model = ExplorerModel(0)
    rng = random.Random(2)
    for i in range(24):
        d_k, heads = rng.choice(DK_CHOICES), rng.choice(STATIC_HEADS)
        mask, scaled = MASKS[i % 4], i % 8 < 4
        position, window = [("rope", None), ("none", 3), ("rope", 3)][i % 3]
        kv = rng.choice([k for k in STATIC_HEADS if k <= heads])
        shown = grid["tokens"] if "padding" in mask else tokens
        kv_eff = heads if position == "rope" else kv  # 정적 탐색기: RoPE면 KV 헤드 수 = 헤드 수
        expected, *_ = model.weights(shown, d_k=d_k, num_heads=heads, mask=mask, scaled=scaled, num_kv_heads=kv_eff,
                                     position=position, window=window)
        got = browser_like_weights(grid, d_k, heads, mask, scaled, kv, position, window)
        np.testing.assert_allclose(got, expected.numpy(), atol=1e-3,
                                   err_msg=str((d_k, heads, kv, mask, scaled, position, window)))


def test_static_summary_covers_position_and_window_without_kv_groups():
    from attn_course.explorer import summary_key, summary_table
    from attn_course.explorer.model import shown_tokens
    from attn_course.explorer.texts import NO_SUMMARY
    from attn_course.viz.describe import describe_heads

    tokens = SENTENCE.split()
    table = summary_table(tokens, 0)
    model = ExplorerModel(0)
    for d_k, mask, position, window in [(64, "causal", "rope", None), (8, "padding", "none", 3), (2, "none", "rope", 3)]:
        shown = shown_tokens(tokens, mask)
        rows = table["index"][summary_key(d_k, mask, True, 0, position, window)]
        weights, *_ = model.weights(shown, d_k=d_k, num_heads=16, mask=mask, scaled=True, position=position,
                                    window=window)
        assert [table["lines"][i] for i in rows] == describe_heads(weights, shown, shown)
    # 창과 KV 헤드 나누기를 함께 고른 설정은 미리 계산하지 않음 (불러오기 스크립트가 안내 한 줄)
    assert summary_key(64, "none", True, 1, "none", 3) not in table["index"]
    html = explorer_html(tokens, 0, num_heads=8, num_kv_heads=2, window=3)
    assert NO_SUMMARY in html
