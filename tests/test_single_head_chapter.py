"""'단일 헤드의 한계'(1장)와 '헤드 수와 학습'(5장): 정확도 그림(plot_head_accuracy)과 노트북 원본의 규칙.

그림 테스트는 학습 없이 손으로 만든 표를 씁니다. 노트북을 실행한 결과는 test_notebooks.py가
빌드 캐시에서 검사하므로 여기서는 원본(출력 없음, 태그, 첫 셀, 용어)만 봅니다. 5장 정리의 숫자는
tests/test_head_sweep.py가 학습에 쓰지 않은 시드로 확인합니다.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.collections import PathCollection
from matplotlib.figure import Figure
from matplotlib.ft2font import FT2Font
from matplotlib.lines import Line2D

from attn_course import plot_head_accuracy, relation_ceilings
from attn_course.viz.figures import PALETTE, korean_font_path
from attn_course.viz.sweep_plots import CEILING_LABELS
from conftest import all_texts, render_without_warnings

ROOT = Path(__file__).resolve().parents[1]
CHAPTER = ROOT / "chapters" / "01_single_head_limits.ipynb"
HANGUL = re.compile(r"[가-힣]")
TABLE = {1: [0.31, 0.342, 0.315], 2: [1.0, 0.97, 0.99], 4: [1.0, 1.0, 0.5]}
CEILINGS = {"first_only": 0.3125, "previous_only": 0.359375, "unordered_pair": 0.640625}


def by_gid(fig: Figure, gid: str):
    found = [a for a in fig.findobj() if a.get_gid() == gid]
    assert len(found) == 1, f"gid {gid!r}인 요소가 {len(found)}개입니다."
    return found[0]


# ---------------------------------------------------------------------------
# plot_head_accuracy
# ---------------------------------------------------------------------------


def test_points_and_means_equal_the_table():
    fig = plot_head_accuracy(TABLE, ceilings=CEILINGS, title="헤드 수별 정확도")
    assert isinstance(fig, Figure)
    ax = fig.axes[0]
    for i, (h, accs) in enumerate(sorted(TABLE.items())):
        points = by_gid(fig, f"seeds-{h}")
        assert isinstance(points, PathCollection)
        xy = points.get_offsets()
        np.testing.assert_allclose(xy[:, 1], accs)  # 시드 순서 그대로
        assert np.all(np.diff(xy[:, 0]) > 0), "같은 헤드 수의 점은 좌우로 벌려 찍어야 합니다"
        assert abs(xy[:, 0].mean() - i) < 1e-9, "점 묶음의 가운데가 그 헤드 수의 눈금이어야 합니다"
        assert matplotlib.colors.same_color(points.get_facecolor()[0], PALETTE[0])
        mean = by_gid(fig, f"mean-{h}")
        assert isinstance(mean, Line2D)
        np.testing.assert_allclose(mean.get_ydata(), [np.mean(accs)] * 2)
        assert f"평균 {np.mean(accs):.3f}" in all_texts(fig)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "4"]
    np.testing.assert_allclose(ax.get_xticks(), [0, 1, 2])


def test_ceilings_are_dashed_horizontal_lines_with_korean_labels():
    fig = plot_head_accuracy(TABLE, ceilings=CEILINGS)
    labels = []
    for key, value in CEILINGS.items():
        line = by_gid(fig, f"ceiling-{key}")
        np.testing.assert_allclose(line.get_ydata(), [value, value])
        np.testing.assert_allclose(line.get_xdata(), [0, 1])  # axhline: 축의 왼쪽 끝부터 오른쪽 끝까지
        assert line.get_linestyle() != "-", "한계선은 실선이 아닌 점선 계열이어야 합니다"
        labels.append(line.get_label())
    assert labels[0] == "첫 토큰만 알 때 최대 (0.312)"
    assert labels[1] == "이전 토큰만 알 때 최대 (0.359)"
    legend_texts = [t.get_text() for t in fig.legends[0].get_texts()]
    assert set(labels) <= set(legend_texts)
    assert {"시드별 정확도", "평균"} <= set(legend_texts)


def test_relation_ceilings_output_plugs_in_directly():
    ceilings = relation_ceilings()
    fig = plot_head_accuracy({1: [0.3], 2: [1.0]}, ceilings=ceilings)
    for key in ceilings:
        assert CEILING_LABELS[key] in by_gid(fig, f"ceiling-{key}").get_label()


def test_axes_run_from_zero_to_one_with_korean_labels_and_glyphs():
    fig = plot_head_accuracy(TABLE, ceilings=CEILINGS, title="헤드 수별 정확도")
    ax = fig.axes[0]
    low, high = ax.get_ylim()
    assert low == 0.0 and 1.0 <= high <= 1.05
    np.testing.assert_allclose(ax.get_yticks(), np.linspace(0, 1, 6))
    assert ax.get_xlabel() == "헤드 수 H" and ax.get_ylabel() == "평가 정확도"
    assert ax.get_title() == "헤드 수별 정확도"
    render_without_warnings(fig)
    font = FT2Font(str(korean_font_path()))
    chars = {ch for t in all_texts(fig) for ch in HANGUL.findall(t)}
    assert len(chars) > 10
    missing = sorted(ch for ch in chars if font.get_char_index(ord(ch)) == 0)
    assert not missing, f"글꼴에 없는 한글: {missing}"


def test_points_at_one_are_not_clipped():
    fig = plot_head_accuracy({2: [1.0, 1.0]})
    assert by_gid(fig, "seeds-2").get_clip_on() is False


def test_without_ceilings_and_on_a_given_axis():
    fig = plot_head_accuracy({1: torch.tensor([0.3, 0.4]), 8: np.array([0.9])})
    assert not [a for a in fig.findobj() if str(a.get_gid()).startswith("ceiling-")]
    np.testing.assert_allclose(by_gid(fig, "seeds-8").get_offsets()[:, 0], [1.0])  # 점 하나는 눈금 위에
    outer, axes = plt.subplots(1, 2)
    plt.close(outer)
    returned = plot_head_accuracy(TABLE, ceilings=CEILINGS, ax=axes[1])
    assert returned is outer
    assert axes[1].get_legend() is not None and not axes[0].collections


def test_figure_is_not_left_open_in_pyplot():
    before = len(plt.get_fignums())
    plot_head_accuracy(TABLE, ceilings=CEILINGS)
    assert len(plt.get_fignums()) == before


@pytest.mark.parametrize(
    "table, ceilings, exc, part",
    [
        ({}, None, ValueError, "table"),
        ([0.3, 1.0], None, ValueError, "table"),
        ({0: [0.3]}, None, ValueError, "헤드 수"),
        ({"1": [0.3]}, None, ValueError, "헤드 수"),
        ({1: []}, None, ValueError, "table[1]"),
        ({1: [0.3, 1.2]}, None, ValueError, "0~1"),
        ({1: [float("nan")]}, None, ValueError, "0~1"),
        ({1: ["높음"]}, None, TypeError, "table[1]"),
        ({1: [0.3]}, {"first_only": 1.5}, ValueError, "first_only"),
    ],
)
def test_bad_inputs_raise_korean_errors(table, ceilings, exc, part):
    with pytest.raises(exc) as info:
        plot_head_accuracy(table, ceilings=ceilings)
    assert HANGUL.search(str(info.value)) and part in str(info.value)


# ---------------------------------------------------------------------------
# 노트북 원본: 1장(손으로 만든 논증)과 5장(학습 실험)
# ---------------------------------------------------------------------------

TRAINING = ROOT / "chapters" / "05_training_heads.ipynb"
TITLES = {CHAPTER: "(sec-single-head)=\n# 단일 헤드의 한계\n", TRAINING: "(sec-training-heads)=\n# 헤드 수와 학습\n"}


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def source(cell: dict) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


@pytest.mark.parametrize("path", list(TITLES), ids=lambda p: p.stem)
def test_first_cell_has_label_and_title(path):
    first = load(path)["cells"][0]
    assert first["cell_type"] == "markdown"
    assert source(first).startswith(TITLES[path])


@pytest.mark.parametrize("path", list(TITLES), ids=lambda p: p.stem)
def test_setup_cells_match_the_multi_head_chapter(path):
    chapter = load(path)
    other = load(ROOT / "chapters" / "02_multi_head.ipynb")
    colab = [c for c in other["cells"] if "remove-cell" in c["metadata"].get("tags", [])]
    mine = [c for c in chapter["cells"] if "remove-cell" in c["metadata"].get("tags", [])]
    assert [source(c) for c in mine] == [source(colab[0])], "Colab 설치 셀은 02장과 똑같아야 합니다"
    code = [c for c in chapter["cells"] if c["cell_type"] == "code"]
    assert code[1]["metadata"].get("tags") == ["hide-input"] and "from attn_lib import" in source(code[1])


@pytest.mark.parametrize("path", list(TITLES), ids=lambda p: p.stem)
def test_stored_without_outputs_and_without_hidden_shortcuts(path):
    chapter = load(path)
    code = [c for c in chapter["cells"] if c["cell_type"] == "code"]
    assert all(not c["outputs"] and c["execution_count"] is None for c in code)
    everything = "\n".join(source(c) for c in chapter["cells"])
    for forbidden in ("filterwarnings", "simplefilter", "glue(", "sys.path", "pickle"):
        assert forbidden not in everything, f"노트북에 {forbidden!r}이(가) 있습니다"
    assert "주의" not in everything, "'주의' 대신 '유의'를 씁니다 (용어집)"


def test_single_head_chapter_trains_nothing():
    """1장은 손으로 정한 가중치만 씁니다: 학습 함수를 부르지 않습니다 (학습은 5장)."""
    code = "\n".join(source(c) for c in load(CHAPTER)["cells"] if c["cell_type"] == "code")
    for name in ("train_head_model", "run_sweep", "train_with_history", "optim", ".backward("):
        assert name not in code, name
    assert "scale=1.0" in code and "plot_curves(" in code


def test_training_chapter_runs_the_sweep_and_guards_its_conclusions():
    cells = load(TRAINING)["cells"]
    code = "\n".join(source(c) for c in cells if c["cell_type"] == "code")
    assert "run_seed_batches(jobs, cfg)" in code and "plot_success_rates(" in code and "plot_training_history(" in code
    assert "HEAD_SWEEP_RATES.items()" in code and "SEEDS = list(range(10))" in code and "success_rows(" in code
    assert all(f"sweep({h})" in code for h in (1, 2, 4)), "스윕은 헤드 수마다 한 셀 (셀 하나의 실행 시간 제한)"
    assert "LONG = 3 * cfg.steps" in code and "time.perf_counter()" in code
    assert "continue_seed_batches(" in code and "query_scales=(1.0, 0.01)" in code
    guard = next(c for c in cells if "# claim: sweep-range" in source(c) and "✓" in source(c))
    assert not guard["metadata"].get("tags"), "정리를 지키는 검사 셀은 숨기지 않습니다(✓ 줄이 보여야 함)"
    assert "# claim: half-order" in source(guard) and "assert half_pos[2] - half_pos[1] > 1" in source(guard)
    markdown = "\n".join(source(c) for c in cells if c["cell_type"] == "markdown")
    assert "{cite:p}`liu2021multihead`" in markdown and "{cite:p}`michel2019sixteen`" in markdown


@pytest.mark.parametrize("path", list(TITLES), ids=lambda p: p.stem)
def test_chapter_follows_glossary_rules(path):
    from test_glossary import GLOSSARY, find_banned, first_use_errors, page_prose, parse_glossary

    terms = parse_glossary(GLOSSARY.read_text(encoding="utf-8"))
    lines = page_prose(path)
    errors = find_banned(lines, terms) + first_use_errors(lines, terms, path.name)
    assert not errors, "\n".join(errors)
