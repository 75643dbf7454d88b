"""마스크 장(chapters/03_masks.ipynb)과 치트시트(chapters/appendix/cheatsheet.md)를 받치는 것들을 확인합니다.

- 누출 검사기 ``future_leak``: 인과 마스크를 건 구현은 정확히 0, 마스크가 없거나 잘못 건 구현은 0보다 큼
- 모든 키가 가려진 행: ``attn_lib``은 0(기울기도 유한), 순진한 구현은 NaN
- 장의 주장: 점수 0은 가중치 0이 아님(편향 없는 투영), 오른쪽 패딩에서는 인과 마스크만으로 실제 토큰 행이 같고
  왼쪽 패딩에서는 다름, 치트시트가 말하는 PyTorch 덧셈 마스크 규칙
- 마스크 그림 ``plot_mask``, ``plot_batch_heatmaps``: 그린 값, 한국어 범례, 빗금, 패널
- 장 노트북의 구조(출력 없음, 라벨, 숨긴 셀, 정리·연습 문제)와 용어집 규칙
- 치트시트의 ``literalinclude``가 실제 코드를 가리키는지 (빌드 없이도 어긋남을 잡도록)
"""

from __future__ import annotations

import ast
import json
import math
import re
import sys
import warnings
from pathlib import Path

import matplotlib.pyplot as plt
import pytest
import torch
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.text import Text
from torch import nn

import attn_lib
from attn_lib import (
    MultiHeadAttention,
    causal_mask,
    combine_masks,
    future_leak,
    padding_mask,
    scaled_dot_product_attention,
    to_torch_mha_mask,
)
from attn_course import plot_batch_heatmaps, plot_mask
from attn_course.viz.mask_plots import MASK_COLORS

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "03_masks.ipynb"
CHEATSHEET = ROOT / "chapters" / "appendix" / "cheatsheet.md"
TOKENS = ["나는", "어제", "도서관에서", "책을", "빌렸다"]


def _setup(seed: int = 0, B: int = 2, L: int = 5, E: int = 8, H: int = 2):
    torch.manual_seed(seed)
    return MultiHeadAttention(E, H), torch.randn(B, L, E)


# ---------------------------------------------------------------------------
# future_leak
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_future_leak_is_exactly_zero_with_causal_mask_and_positive_without(seed):
    mha, x = _setup(seed)
    L = x.shape[1]
    for t in range(L - 1):
        assert future_leak(lambda z: mha(z, attn_mask=causal_mask(z.shape[1])), x, t, seed=seed) == 0.0
        assert future_leak(lambda z: mha(z), x, t, seed=seed) > 1e-3


def test_future_leak_catches_wrong_masks_and_passes_torch_with_converted_mask():
    mha, x = _setup()
    L = x.shape[1]
    causal = causal_mask(L)
    eye = torch.eye(L, dtype=torch.bool)
    wrong = {
        "0/1 실수 마스크(더해질 뿐)": lambda z: mha(z, attn_mask=causal.float()),
        "뒤집힌 극성(대각선은 남김)": lambda z: mha(z, attn_mask=~causal | eye),
        "소프트맥스 뒤에 마스크": lambda z: torch.softmax(z @ z.transpose(-2, -1), dim=-1) * causal @ z,
    }
    for name, fn in wrong.items():
        assert future_leak(fn, x, 1) > 1e-3, name
    torch.manual_seed(0)
    torch_mha = nn.MultiheadAttention(8, 2, batch_first=True)
    converted = to_torch_mha_mask(causal)
    for t in range(L - 1):
        assert future_leak(lambda z: torch_mha(z, z, z, attn_mask=converted), x, t) < 1e-6


def test_future_leak_last_position_is_zero_input_is_unchanged_and_seed_is_reproducible():
    mha, x = _setup()
    before = x.clone()
    fn = lambda z: mha(z)  # noqa: E731
    assert future_leak(fn, x, x.shape[1] - 1) == 0.0
    assert torch.equal(x, before)
    assert future_leak(fn, x, 0, seed=3) == future_leak(fn, x, 0, seed=3)
    assert future_leak(fn, x, 0, seed=3) != future_leak(fn, x, 0, seed=4)


def test_future_leak_accepts_plain_tensor_outputs_and_flags_nan_pattern_changes():
    x = torch.randn(1, 4, 3)
    assert future_leak(lambda z: z.cumsum(dim=1), x, 1) == 0.0  # 앞에서부터 누적합은 인과적
    assert future_leak(lambda z: z.flip(1).cumsum(dim=1).flip(1), x, 1) > 0  # 뒤에서부터는 미래를 봄

    def nan_where_future_changed(z):
        out = z.clone()
        if not torch.equal(z[:, 1:], x[:, 1:]):
            out[:, 0] = float("nan")
        return out

    assert future_leak(nan_where_future_changed, x, 0) == math.inf

    def always_nan_first(z):
        out = z.clone()
        out[:, 0] = float("nan")
        return out

    assert future_leak(always_nan_first, x, 0) == 0.0  # 같은 자리의 NaN은 변화가 아님


def test_future_leak_rejects_nondeterministic_functions():
    drop = nn.Dropout(0.5).train()
    x = torch.randn(2, 6, 8)
    with pytest.raises(ValueError, match="eval"):
        future_leak(drop, x, 2)
    drop.eval()
    assert future_leak(drop, x, 2) == 0.0


@pytest.mark.parametrize(
    "kwargs, error, match",
    [
        ({"t": 5}, ValueError, "L-1"),
        ({"t": -1}, ValueError, "L-1"),
        ({"t": True}, TypeError, "정수"),
        ({"t": 1.0}, TypeError, "정수"),
        ({"x": torch.ones(2, 5, 3, dtype=torch.long)}, TypeError, "실수"),
        ({"x": torch.randn(5, 3)}, ValueError, "3차원"),
        ({"fn": "mha"}, TypeError, "함수"),
        ({"fn": lambda z: z.sum(dim=1)}, ValueError, r"\(B, L\)"),
        ({"fn": lambda z: [1, 2]}, TypeError, "텐서"),
    ],
)
def test_future_leak_validates_arguments_with_korean_messages(kwargs, error, match):
    args = {"fn": lambda z: z, "x": torch.randn(2, 5, 3), "t": 1}
    args.update(kwargs)
    with pytest.raises(error, match=match):
        future_leak(args["fn"], args["x"], args["t"])


# ---------------------------------------------------------------------------
# 모든 키가 가려진 행
# ---------------------------------------------------------------------------


def _left_padded_causal(L: int = 5, length: int = 3) -> torch.Tensor:
    return combine_masks(causal_mask(L), padding_mask([length], L).flip(-1))[0]  # (1, 1, L, S) -> (1, L, S)


def test_fully_masked_rows_are_zero_in_attn_lib_with_finite_gradients_and_nan_naively():
    mask = _left_padded_causal()
    dead = ~mask.any(dim=-1)  # (1, L)
    assert dead[0].tolist() == [True, True, False, False, False]
    x = torch.randn(1, 5, 4, requires_grad=True)
    out, w = scaled_dot_product_attention(x, x, x, mask)
    assert torch.all(out[dead] == 0) and torch.all(w[dead] == 0)
    torch.testing.assert_close(w[~dead].sum(dim=-1), torch.ones(int((~dead).sum())))
    out[:, 2:].sum().backward()
    assert torch.isfinite(x.grad).all()

    scores = (x @ x.transpose(-2, -1) / 2).masked_fill(~mask, float("-inf"))
    naive = torch.softmax(scores, dim=-1)
    assert torch.isnan(naive[dead]).all() and not torch.isnan(naive[~dead]).any()


# ---------------------------------------------------------------------------
# 그림
# ---------------------------------------------------------------------------


def _render_without_warnings(fig: Figure) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 이 블록 안에서만: 'Glyph ... missing' 경고를 오류로
        fig.canvas.draw()


def _texts(fig: Figure) -> list[str]:
    return [t.get_text() for t in fig.findobj(Text) if t.get_text()]


def test_plot_mask_draws_the_mask_with_two_colours_and_a_korean_legend():
    before = len(plt.get_fignums())
    mask = causal_mask(5)
    fig = plot_mask(mask, TOKENS, TOKENS, title="인과 마스크")
    assert isinstance(fig, Figure) and len(plt.get_fignums()) == before
    images = [ax.images[0] for ax in fig.axes if ax.images]
    assert len(images) == 1
    assert torch.equal(torch.as_tensor(images[0].get_array()).bool(), mask)
    cmap = images[0].get_cmap()  # 0 = 차단, 1 = 참여 가능
    assert [to_rgba(c) for c in cmap.colors] == [to_rgba(MASK_COLORS["차단"]), to_rgba(MASK_COLORS["참여 가능"])]
    legend_texts = {t.get_text() for legend in fig.legends for t in legend.get_texts()}
    assert legend_texts == {"참여 가능", "차단"}
    assert {"인과 마스크", "쿼리", "키", *TOKENS} <= set(_texts(fig))
    _render_without_warnings(fig)


def test_plot_mask_batch_panels_per_sentence_labels_and_padding_row():
    lengths = [5, 3]
    labels = [TOKENS, TOKENS[:3] + ["[PAD]", "[PAD]"]]
    both = combine_masks(causal_mask(5), padding_mask(lengths, 5))  # (2, 1, 5, 5)
    fig = plot_mask(both, labels, labels)
    images = [ax.images[0] for ax in fig.axes if ax.images]
    assert len(images) == 2
    for b, im in enumerate(images):
        assert torch.equal(torch.as_tensor(im.get_array()).bool(), both[b, 0])
    assert {"시퀀스 0", "시퀀스 1", "[PAD]"} <= set(_texts(fig))

    pad_fig = plot_mask(padding_mask(lengths, 5), key_labels=labels)
    pad_images = [ax.images[0] for ax in pad_fig.axes if ax.images]
    assert [im.get_array().shape for im in pad_images] == [(1, 5), (1, 5)]
    assert "모든 쿼리" in _texts(pad_fig)
    _render_without_warnings(pad_fig)


def test_plot_mask_rejects_float_masks_multihead_masks_and_wrong_label_counts():
    with pytest.raises(TypeError, match="bool"):
        plot_mask(causal_mask(3).float())
    with pytest.raises(ValueError, match="헤드"):
        plot_mask(torch.ones(2, 2, 3, 3, dtype=torch.bool))
    with pytest.raises(ValueError, match="key_labels"):
        plot_mask(causal_mask(3), key_labels=["a", "b"])
    with pytest.raises(ValueError, match="패널별"):
        plot_mask(torch.ones(2, 1, 3, 3, dtype=torch.bool), key_labels=[["a", "b", "c"]] * 3)


def test_plot_batch_heatmaps_shows_weights_hatches_blocked_cells_and_annotates_the_rest():
    mha, x = _setup(B=2, L=5)
    both = combine_masks(causal_mask(5), padding_mask([5, 3], 5))
    _, w = mha(x, attn_mask=both)
    labels = [TOKENS, TOKENS[:3] + ["[PAD]", "[PAD]"]]
    fig = plot_batch_heatmaps(w[:, 0], labels, labels, mask=both, title="헤드 0")
    axes = [ax for ax in fig.axes if ax.images]
    assert len(axes) == 2
    for b, ax in enumerate(axes):
        torch.testing.assert_close(torch.as_tensor(ax.images[0].get_array()), w[b, 0])
        hatched = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_hatch()]
        assert len(hatched) == int((~both[b, 0]).sum())
        numbers = [t for t in ax.texts if re.fullmatch(r"\d\.\d\d", t.get_text())]
        assert len(numbers) == int(both[b, 0].sum())
    assert "차단 (가중치 0)" in {t.get_text() for legend in fig.legends for t in legend.get_texts()}
    _render_without_warnings(fig)
    with pytest.raises(ValueError, match="브로드캐스트"):
        plot_batch_heatmaps(w[:, 0], mask=causal_mask(4))
    with pytest.raises(ValueError, match="헤드"):
        plot_batch_heatmaps(w)


# ---------------------------------------------------------------------------
# 장 노트북과 치트시트
# ---------------------------------------------------------------------------


def _cells() -> list[dict]:
    return json.loads(CHAPTER.read_text(encoding="utf-8"))["cells"]


def _src(cell: dict) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def test_chapter_notebook_structure():
    cells = _cells()
    assert _src(cells[0]).startswith("(sec-masks)=\n# 마스크\n")
    code = [c for c in cells if c["cell_type"] == "code"]
    assert all(not c["outputs"] and c["execution_count"] is None for c in code), "출력 없이 저장해야 합니다"
    ch02 = json.loads((ROOT / "chapters" / "02_multi_head.ipynb").read_text(encoding="utf-8"))["cells"]
    colab = [c for c in ch02 if "remove-cell" in c["metadata"].get("tags", [])][0]
    assert _src(cells[1]) == _src(colab) and cells[1]["metadata"]["tags"] == ["remove-cell"]
    assert cells[2]["metadata"]["tags"] == ["hide-input"] and "from attn_lib import" in _src(cells[2])
    raising = [c for c in code if "raises-exception" in c["metadata"].get("tags", [])]
    assert len(raising) == 1 and "causal.long()" in _src(raising[0])
    headings = [line for c in cells if c["cell_type"] == "markdown" for line in _src(c).splitlines() if line.startswith("## ")]
    assert "## 정리" in headings and "## 연습 문제" in headings
    prose = "\n".join(_src(c) for c in cells if c["cell_type"] == "markdown")
    assert "범위 밖" in prose and "탐색기" in prose
    assert "주의" not in prose
    for name in ("future_leak", "plot_mask", "plot_batch_heatmaps", "combine_masks", "to_torch_key_padding_mask"):
        assert name in _src(cells[2])
    all_code = "\n".join(_src(c) for c in code)
    assert "filterwarnings" not in all_code and "simplefilter" not in all_code


def _label_heading(label: str) -> str:
    """``(label)=`` 바로 다음 줄(그 자리의 제목)."""
    for cell in _cells():
        lines = _src(cell).splitlines()
        if f"({label})=" in lines:
            return lines[lines.index(f"({label})=") + 1]
    raise AssertionError(f"({label})= 가 장에 없습니다")


def _section_cells(label: str) -> list[dict]:
    """이름표가 있는 셀부터 같은 깊이 이상의 다음 제목 전까지의 셀."""
    cells = _cells()
    start = next(i for i, c in enumerate(cells) if f"({label})=" in _src(c))
    depth = _label_heading(label).split(" ")[0]
    end = next((j for j in range(start + 1, len(cells)) if cells[j]["cell_type"] == "markdown"
                and any(line.split(" ")[0] in {"#" * n for n in range(1, len(depth) + 1)}
                        for line in _src(cells[j]).splitlines() if line.startswith("#"))), len(cells))
    return cells[start:end]


def test_chapter_labels_other_pages_link_to():
    assert _label_heading("sec-masks-causal-vs-padding").startswith("## ")
    assert _label_heading("sec-masks-pytorch-nan") == "### 심화: PyTorch는 어떻게 하는가"


def test_pytorch_nan_section_measures_every_path_and_prints_the_version():
    code = "\n".join(_src(c) for c in _section_cells("sec-masks-pytorch-nan") if c["cell_type"] == "code")
    for needle in ("torch.__version__", "F.scaled_dot_product_attention", "float_dead_mask", "requires_grad_",
                   "for training in (True, False)", "for grad in (True, False)", "for need_weights in (True, False)",
                   "set_fastpath_enabled(False)", "set_fastpath_enabled(True)", "naive_out1", "lib_out1"):
        assert needle in code, needle
    hidden = [c for c in _section_cells("sec-masks-pytorch-nan") if "remove-input" in c["metadata"].get("tags", [])]
    assert hidden and "torch.__version__" in _src(hidden[0]), "표를 설명하는 글도 버전을 계산해서 적어야 합니다"


def test_causal_vs_padding_section_computes_both_paddings_and_asserts_what_the_text_says():
    cells = _section_cells("sec-masks-causal-vs-padding")
    code = "\n".join(_src(c) for c in cells if c["cell_type"] == "code")
    for needle in ('"오른쪽 패딩"', '"왼쪽 패딩"', ".flip(-1)", "attn_mask=causal", "combine_masks(causal, pad_m)",
                   "two_layers", 'real_gap.loc["오른쪽 패딩"] == 0', 'pad_change_table.loc["왼쪽 패딩", "인과 마스크만"] > 0'):
        assert needle in code, needle
    kinds = [(c["cell_type"], _src(c)) for c in cells]
    ask = next(i for i, (_, t) in enumerate(kinds) if "{admonition} 예상해 보기" in t)
    answer = next(i for i, (_, t) in enumerate(kinds) if "{admonition} 예상과 비교하기" in t)
    assert any(k == "code" for k, _ in kinds[ask + 1 : answer])


def test_chapter_no_longer_says_both_masks_are_always_needed_or_that_bias_makes_pad_scores_nonzero():
    everything = "\n".join(_src(c) for c in _cells())  # 숨긴 셀이 만드는 글까지
    cheatsheet = CHEATSHEET.read_text(encoding="utf-8")
    for text in (everything, cheatsheet):
        assert "두 마스크가 모두 필요합니다" not in text and "함께 필요합니다" not in text
        for word in ("실수 마스크", "실수로 바꿔", "실수(더하기)", "조용히", "예정입니다"):
            assert word not in text, word
    assert "편향(bias)이 있으므로" not in everything
    assert "bias=False" in everything and "e^0 / Σ_j e^(s_j)" in everything


def test_chapter_exercises_have_worked_solutions_that_assert():
    cells = _cells()
    labels = ["ex-masks-padding-leak", "ex-masks-dead-rows", "ex-masks-additive"]
    for label in labels:
        start = next(i for i, c in enumerate(cells) if f"{{solution-start}} {label}" in _src(c))
        end = next(j for j in range(start, len(cells)) if "{solution-end}" in _src(cells[j]))
        code = [c for c in cells[start:end] if c["cell_type"] == "code"]
        assert code and all("assert " in _src(c) for c in code), label
        assert any(c["cell_type"] == "markdown" for c in cells[start + 1 : end]), f"{label}: 풀이에 '왜'가 없습니다"


def test_chapter_and_cheatsheet_follow_the_glossary_even_before_they_are_in_the_toc():
    sys.path.insert(0, str(Path(__file__).parent))
    from test_glossary import GLOSSARY, find_banned, first_use_errors, page_prose, parse_glossary

    terms = parse_glossary(GLOSSARY.read_text(encoding="utf-8"))
    english = {t.english for t in terms}
    assert {"padding", "leak", "overflow", "underflow"} <= english
    errors = []
    for page in (CHAPTER, CHEATSHEET):
        lines = page_prose(page)
        errors += find_banned(lines, terms) + first_use_errors(lines, terms, page.name)
    assert not errors, "\n".join(errors)
    # 이 장이 가르치는 용어는 이 장에 정의 자리(**용어**(English))가 있습니다.
    from test_glossary import _joined, definition_regex

    text, _ = _joined(page_prose(CHAPTER), skip_headings=False)
    by_en = {t.english: t for t in terms}
    for english in ("causal mask", "padding mask", "padding", "leak", "underflow", "additive mask", "overflow"):
        assert definition_regex(by_en[english]).search(text), f"{english}의 정의 자리가 없습니다"


LITERALINCLUDE = re.compile(r"^```\{literalinclude\}\s+(?P<path>\S+)\n(?P<opts>(?::[\w-]+:.*\n)*)```", re.M)


def _object_source(path: Path, dotted: str) -> str:
    source = path.read_text(encoding="utf-8")
    node: ast.AST = ast.parse(source)
    for part in dotted.split("."):
        matches = [n for n in ast.iter_child_nodes(node)
                   if isinstance(n, (ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)) and n.name == part]
        assert matches, f"{path.name}에 {dotted}가 없습니다"
        node = matches[0]
    return ast.get_source_segment(source, node, padded=True)


def test_cheatsheet_literalincludes_point_at_existing_code():
    text = CHEATSHEET.read_text(encoding="utf-8")
    assert text.startswith("(appendix-cheatsheet)=\n# 치트시트\n")
    blocks = list(LITERALINCLUDE.finditer(text))
    assert len(blocks) >= 8
    for block in blocks:
        path = (CHEATSHEET.parent / block["path"]).resolve()
        assert path.is_file(), block["path"]
        opts = dict(re.findall(r"^:([\w-]+):\s*(.*)$", block["opts"], flags=re.M))
        assert "pyobject" in opts, "줄 번호(:lines:) 대신 :pyobject:로 가리켜야 코드가 바뀌어도 어긋나지 않습니다"
        lines = _object_source(path, opts["pyobject"]).splitlines()
        if "start-at" in opts:
            start = next((i for i, line in enumerate(lines) if opts["start-at"] in line), None)
            assert start is not None, f"{opts['pyobject']}에 {opts['start-at']!r}가 없습니다"
            end = next((i for i, line in enumerate(lines[start:], start) if opts["end-at"] in line), None)
            assert end is not None, f"{opts['pyobject']}에서 {opts['end-at']!r}를 찾지 못했습니다"
            lines = lines[start : end + 1]
        if "dedent" in opts:
            n = int(opts["dedent"])
            assert all(not line[:n].strip() for line in lines), f"dedent {n}이 코드를 잘라 냅니다: {lines}"


def test_cheatsheet_refs_and_library_names_exist():
    text = CHEATSHEET.read_text(encoding="utf-8")
    labels = set(re.findall(r"^\(([\w-]+)\)=$", text, flags=re.M))
    # 치트시트는 어느 장의 절이든 가리킬 수 있습니다: 모든 장의 마크다운 셀에서 라벨을 모읍니다.
    chapter_text = "\n".join(_src(c) for p in sorted(CHAPTER.parent.glob("*.ipynb"))
                             for c in json.loads(p.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "markdown")
    chapter_labels = set(re.findall(r"^\(([\w-]+)\)=$", chapter_text, flags=re.M))
    for target in re.findall(r"\{ref\}`(?:[^`<]*<)?([\w-]+)>?`", text):
        assert target in labels | chapter_labels | {"ch-multi-head", "appendix-glossary", "intro"}, target
    module = MultiHeadAttention(8, 2)  # W_q 같은 층은 인스턴스에만 있음
    for attr in re.findall(r"MultiHeadAttention\.(\w+)", text):
        assert hasattr(module, attr), attr
    torch_module = nn.MultiheadAttention(8, 2)
    for attr in re.findall(r"nn\.MultiheadAttention\.(\w+)", text):
        assert hasattr(torch_module, attr), attr
    for name in set(re.findall(r"\b((?:to_torch_)?\w*_mask|combine_masks|future_leak)\(", text)):
        assert name in attn_lib.__all__, name


def test_cheatsheet_encoder_decoder_snippet_runs_and_gives_the_documented_shapes():
    text = CHEATSHEET.read_text(encoding="utf-8")
    snippets = re.findall(r"^```python\n(.*?)^```$", text, flags=re.S | re.M)
    assert len(snippets) == 1
    B, S, L, E, H = 2, 5, 3, 8, 2
    torch.manual_seed(0)
    env = {
        "padding_mask": padding_mask, "combine_masks": combine_masks, "causal_mask": causal_mask,
        "src_lengths": [5, 2], "tgt_lengths": [3, 1], "S": S, "L": L,
        "src": torch.randn(B, S, E), "tgt": torch.randn(B, L, E),
        "enc_self_attn": MultiHeadAttention(E, H), "dec_self_attn": MultiHeadAttention(E, H),
        "cross_attn": MultiHeadAttention(E, H),
    }
    exec(snippets[0], env)  # noqa: S102 - 치트시트의 예제를 그대로 실행
    assert env["src_mask"].shape == (B, 1, 1, S) and env["tgt_mask"].shape == (B, 1, L, L)
    assert env["enc"].shape == (B, S, E) and env["dec"].shape == (B, L, E)
    assert env["out"].shape == (B, L, E) and env["w"].shape == (B, H, L, S)
    assert torch.all(env["w"][1, :, :, 2:] == 0)  # 소스 문장 1의 [PAD] 키는 가중치 0


# ---------------------------------------------------------------------------
# 장과 치트시트가 말하는 사실 (장과 같은 계산을 다른 시드와 모양에서)
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_zero_score_is_not_zero_weight_only_minus_inf_is(seed):
    torch.manual_seed(seed)
    E, H, L, n = 8, 2, 5, 3
    mha = MultiHeadAttention(E, H, bias=False)
    x = torch.randn(1, L, E)
    x[:, n:] = 0  # [PAD] 임베딩 = 0 벡터
    q, k = mha.split_heads(mha.W_q(x)), mha.split_heads(mha.W_k(x))  # (1, H, L, Dh)
    scores = q @ k.transpose(-2, -1) / math.sqrt(mha.head_dim)
    assert torch.all(scores[..., n:] == 0)
    _, w = mha(x)
    torch.testing.assert_close(w[..., n:], torch.exp(scores[..., n:]) / torch.exp(scores).sum(-1, keepdim=True))
    assert torch.all(w[..., n:] > 0)
    _, w_masked = mha(x, attn_mask=padding_mask([n], L))
    assert torch.all(w_masked[..., n:] == 0)


def _outputs(mha, x, mask):
    out, _ = mha(x, attn_mask=mask)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_right_padding_causal_mask_alone_already_hides_pad_keys_left_padding_does_not(seed):
    torch.manual_seed(seed)
    B, L, E, H = 3, 6, 8, 2
    lengths = [6, 2, 4]
    mha, x = MultiHeadAttention(E, H), torch.randn(B, L, E)
    causal = causal_mask(L)
    right = padding_mask(lengths, L)
    left = right.flip(-1)
    for pad, expect_same in ((right, True), (left, False)):
        real = pad[:, 0, 0]  # (B, S)
        a = _outputs(mha, x, causal)[real]
        b = _outputs(mha, x, combine_masks(causal, pad))[real]
        assert torch.equal(a, b) == expect_same
        changed = torch.where(real[..., None], x, torch.randn(B, L, E))  # [PAD] 자리 입력만 바꿈
        leak = (_outputs(mha, changed, causal) - _outputs(mha, x, causal))[real].abs().max().item()
        assert (leak == 0) == expect_same
        fixed = (_outputs(mha, changed, combine_masks(causal, pad)) - _outputs(mha, x, combine_masks(causal, pad)))
        assert fixed[real].abs().max().item() == 0
    # 인과 마스크가 없으면(인코더처럼) 오른쪽 패딩이어도 패딩 마스크가 필요합니다.
    real = right[:, 0, 0]
    changed = torch.where(real[..., None], x, torch.randn(B, L, E))
    assert (_outputs(mha, changed, None) - _outputs(mha, x, None))[real].abs().max().item() > 0
    assert (_outputs(mha, changed, right) - _outputs(mha, x, right))[real].abs().max().item() == 0


def test_cheatsheet_pytorch_additive_mask_rules():
    """치트시트 '마스크 규칙': 덧셈 마스크는 F.sdpa, MHA의 attn_mask, key_padding_mask 모두에서 점수에 더해집니다."""
    torch.manual_seed(0)
    B, L, E, H = 2, 4, 8, 2
    torch_mha = nn.MultiheadAttention(E, H, batch_first=True)
    ours = MultiHeadAttention.from_torch(torch_mha)
    x = torch.randn(B, L, E)
    bias_ls, bias_bs = torch.randn(L, L), torch.randn(B, L)
    out_t, _ = torch_mha(x, x, x, attn_mask=bias_ls)
    torch.testing.assert_close(out_t, ours(x, attn_mask=bias_ls)[0])
    out_t, _ = torch_mha(x, x, x, key_padding_mask=bias_bs)
    torch.testing.assert_close(out_t, ours(x, attn_mask=bias_bs[:, None, None, :])[0])
    q = x[:, None]  # (B, 1, L, E)
    torch.testing.assert_close(torch.nn.functional.scaled_dot_product_attention(q, q, q, attn_mask=bias_ls),
                               scaled_dot_product_attention(q, q, q, bias_ls)[0])
    assert to_torch_mha_mask(bias_ls) is bias_ls
    text = CHEATSHEET.read_text(encoding="utf-8")
    assert "PyTorch 2.13은 종류가 다르면 `UserWarning`을 냅니다" in text
    if torch.__version__.startswith("2.13"):
        with pytest.warns(UserWarning, match="mismatched"):
            torch_mha(x, x, x, attn_mask=causal_mask(L).logical_not(), key_padding_mask=torch.zeros(B, L))
