"""5장(헤드 수와 학습)의 정리를 학습에 쓰지 않은 시드로 다시 확인하고, 스윕 도구와 그림을 검사합니다.

- 정리가 말하는 사실마다 시드 100~109(장을 쓰며 한 번도 보지 않은 시드)로 학습해 확인합니다.
  모델 약 190개를 학습하므로 2코어에서 몇 분 걸립니다. 시간 제한은 두지 않습니다(시간은 `make bench`).
- 기록(train_with_history)은 학습을 바꾸지 않고, 프로세스 여러 개로 돌려도 숫자가 같아야 합니다.
"""

from __future__ import annotations

import dataclasses
import re

import matplotlib
import numpy as np
import pytest
import torch
from matplotlib.ft2font import FT2Font

from attn_lib import (
    SweepJob,
    ToyConfig,
    continue_training,
    plot_sweep,
    plot_training_history,
    relation_ceilings,
    run_sweep,
    sweep_jobs,
    sweep_records,
    train_head_model,
    train_with_history,
)
from attn_lib.viz.figures import get_alt, korean_font_path
from conftest import all_texts, raises_korean, render_without_warnings

HELD_OUT = list(range(100, 110))
LEARNING_RATES = [0.002, 0.005, 0.01, 0.02, 0.03]  # 5장의 스윕과 같은 값
STEPS = ToyConfig().steps
LONG = 3 * STEPS
HANGUL = re.compile(r"[가-힣]")


# ---------------------------------------------------------------------------
# 정리의 문장들: 시드 100~109
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def held_out() -> dict[tuple[int, float, int], list[float]]:
    """(헤드 수, 학습률, 스텝) -> 시드 100~109의 정확도. 한 번에 학습합니다(프로세스 여러 개)."""
    jobs = (
        sweep_jobs([4], LEARNING_RATES, HELD_OUT, steps=STEPS)
        + sweep_jobs([2], [0.002, 0.005, 0.01, 0.03], HELD_OUT, steps=STEPS)
        + sweep_jobs([1], [0.005, 0.02, 0.03], HELD_OUT, steps=STEPS)
        + sweep_jobs([1], [0.002, 0.02, 0.03], HELD_OUT, steps=LONG)
    )
    table: dict[tuple[int, float, int], list[float]] = {}
    for run in run_sweep(jobs, record_every=50):
        table.setdefault((run.job.num_heads, run.job.lr, run.job.steps), []).append(run.accuracy)
    return table


@pytest.mark.parametrize("lr", LEARNING_RATES)
def test_four_heads_solve_the_task_at_every_rate_on_held_out_seeds(held_out, lr):
    accs = held_out[4, lr, STEPS]
    assert min(accs) >= 0.95, f"헤드 4개, 학습률 {lr}: {accs}"


def test_one_head_can_learn_the_task_in_the_middle_of_the_sweep(held_out):
    assert min(held_out[1, 0.005, STEPS]) >= 0.95, held_out[1, 0.005, STEPS]
    assert min(held_out[1, 0.002, LONG]) >= 0.95, held_out[1, 0.002, LONG]


@pytest.mark.parametrize("lr", [0.02, 0.03])
@pytest.mark.parametrize("steps", [STEPS, LONG])
def test_one_head_is_stuck_near_the_first_token_ceiling_at_high_rates(held_out, lr, steps):
    accs = held_out[1, lr, steps]
    first_only = relation_ceilings()["first_only"]
    # 정리: "모든 시드가 0.5에 못 미쳤고, 대부분 첫 토큰만 알 때의 한계 근처에 멈췄다"
    assert max(accs) < 0.5, f"헤드 1개, 학습률 {lr}, {steps}스텝: {accs}"
    assert float(np.median(accs)) < first_only + 0.05, f"헤드 1개, 학습률 {lr}, {steps}스텝: {accs} (첫 토큰 한계 {first_only:.3f})"


def test_two_heads_solve_it_up_to_0_01_but_not_on_every_seed_at_the_top_rate(held_out):
    for lr in [0.002, 0.005, 0.01]:
        assert min(held_out[2, lr, STEPS]) >= 0.95, (lr, held_out[2, lr, STEPS])
    assert min(held_out[2, 0.03, STEPS]) < 0.95, held_out[2, 0.03, STEPS]


# ---------------------------------------------------------------------------
# 기록과 스윕 도구
# ---------------------------------------------------------------------------

SMALL = ToyConfig(steps=30, test_size=200)


def test_recording_does_not_change_training():
    model_a, acc_a = train_head_model(2, 3, SMALL)
    model_b, acc_b, history = train_with_history(2, 3, SMALL, record_every=7)
    assert acc_a == acc_b
    for (name, a), b in zip(model_a.state_dict().items(), model_b.state_dict().values()):
        assert torch.equal(a, b), name
    n = len(range(0, SMALL.steps, 7))
    assert history.step == tuple(range(0, SMALL.steps, 7))
    for field in dataclasses.fields(history):
        assert len(getattr(history, field.name)) == n, field.name
    assert all(len(s) == 2 for s in history.first_share + history.previous_share)
    assert all(0 <= x <= 1 for x in history.saturated)
    assert all(g > 0 for g in history.grad_norm) and all(u > 0 for u in history.update_per_lr)


def test_parallel_sweep_gives_the_same_numbers_as_serial():
    jobs = sweep_jobs([1, 2], [0.01, 0.02], [0], steps=30) + [SweepJob(4, 0.01, 30, 1, embed_dim=16)]
    serial = run_sweep(jobs, SMALL, workers=1)
    parallel = run_sweep(jobs, SMALL, workers=2)
    assert [r.job for r in serial] == [r.job for r in parallel] == jobs  # 순서도 같아야 함
    for a, b in zip(serial, parallel):
        assert a.accuracy == b.accuracy and a.history.grad_norm == b.history.grad_norm
        assert all(torch.equal(x, y) for x, y in zip(a.state.values(), b.state.values()))
    assert parallel[-1].model(SMALL).attn.embed_dim == 16
    rows = sweep_records(parallel, SMALL)
    assert [r["너비"] for r in rows] == [32, 32, 32, 32, 16]
    assert rows[0].keys() >= {"헤드 수", "학습률", "스텝", "시드", "정확도", "첫 토큰 몫", "이전 토큰 몫"}


def test_continue_training_copies_and_desaturates():
    model, _ = train_head_model(1, 0, dataclasses.replace(SMALL, lr=0.03))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    _, _, plain = continue_training(model, 0, SMALL, record_every=5)
    _, _, shrunk = continue_training(model, 0, SMALL, record_every=5, query_scale=0.01)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items()), "원래 모델을 바꾸면 안 됩니다"
    assert plain.saturated[0] > 0.5, "lr 0.03으로 30스텝이면 이미 포화되어 있어야 이 검사가 뜻이 있습니다"
    assert shrunk.saturated[0] < plain.saturated[0] / 2


def test_bad_inputs_raise_korean_errors():
    raises_korean(ValueError, lambda: sweep_jobs([1], [0.0], [0], steps=10), "learning_rates")
    raises_korean(ValueError, lambda: sweep_jobs([0], [0.01], [0], steps=10), "num_heads")
    raises_korean(ValueError, lambda: sweep_jobs([1], [0.01], [-1], steps=10), "seed")
    raises_korean(TypeError, lambda: run_sweep([(1, 0.01, 10, 0)]), "SweepJob")
    raises_korean(TypeError, lambda: run_sweep([], config={"steps": 1}), "ToyConfig")
    raises_korean(ValueError, lambda: train_with_history(1, 0, SMALL, record_every=0), "record_every")
    model, _ = train_head_model(1, 0, SMALL)
    raises_korean(ValueError, lambda: continue_training(model, 0, SMALL, query_scale=0), "query_scale")
    raises_korean(TypeError, lambda: continue_training("모델", 0), "HeadToyModel")


# ---------------------------------------------------------------------------
# 그림
# ---------------------------------------------------------------------------

ROWS = [
    {"헤드 수": h, "학습률": lr, "스텝": steps, "시드": s, "정확도": acc}
    for (h, steps), by_lr in {
        (1, 300): {0.005: [1.0, 0.98], 0.02: [0.31, 0.35]},
        (4, 300): {0.005: [1.0, 1.0], 0.02: [1.0, 0.97]},
        (1, 900): {0.005: [1.0, 1.0], 0.02: [0.30, 0.33]},
    }.items()
    for lr, accs in by_lr.items()
    for s, acc in enumerate(accs)
]


def test_sweep_figure_draws_the_seed_mean_band_and_every_point():
    fig = plot_sweep(ROWS, ceilings={"첫 토큰만 알 때 최대": 0.312}, title="스윕")
    ax = fig.axes[0]
    by_gid = {a.get_gid(): a for a in fig.findobj() if a.get_gid()}
    one = by_gid["mean-헤드 1개"]
    np.testing.assert_allclose(one.get_xdata(), [0.005, 0.02])
    np.testing.assert_allclose(one.get_ydata(), [0.99, 0.33])  # 시드 평균
    np.testing.assert_allclose(by_gid["mean-헤드 4개"].get_ydata(), [1.0, 0.985])
    assert by_gid["mean-헤드 1개 · 900스텝"].get_linestyle() != "-", "스텝이 다른 설정은 점선"
    assert by_gid["mean-헤드 1개"].get_linestyle() == "-"
    assert ax.get_xscale() == "log"
    for name in ["헤드 1개", "헤드 4개", "헤드 1개 · 900스텝"]:  # 시드 하나하나가 점으로
        expected = [r["정확도"] for r in ROWS if f"헤드 {r['헤드 수']}개" + ("" if r["스텝"] == 300 else " · 900스텝") == name]
        assert sorted(by_gid[f"seeds-{name}"].get_offsets()[:, 1].tolist()) == sorted(expected), name
    np.testing.assert_allclose(by_gid["ceiling-0"].get_ydata(), [0.312, 0.312])
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "첫 토큰만 알 때 최대 (0.312)" in legend and "헤드 1개 · 900스텝" in legend
    alt = get_alt(fig)
    assert "헤드 4개: 0.005, 0.02;" in alt and "헤드 1개: 0.005;" in alt and len(alt) < 400, alt
    render_without_warnings(fig)
    font = FT2Font(str(korean_font_path()))
    missing = sorted({ch for t in all_texts(fig) for ch in HANGUL.findall(t) if font.get_char_index(ord(ch)) == 0})
    assert not missing


def test_training_history_figure_has_four_panels_and_log_gradients():
    _, _, history = train_with_history(1, 0, SMALL, record_every=5)
    fig = plot_training_history({"헤드 1개": history, "다시": history})
    assert len(fig.axes) == 4
    assert [ax.get_yscale() for ax in fig.axes] == ["linear", "linear", "log", "log"]
    np.testing.assert_allclose(fig.axes[1].get_lines()[0].get_ydata(), history.saturated)
    assert "헤드 1개" in get_alt(fig)
    render_without_warnings(fig)
    matplotlib.pyplot.close("all")


@pytest.mark.parametrize(
    "records, exc, part",
    [([], TypeError, "records"), ([{"헤드 수": 1}], ValueError, "학습률"),
     ([{**ROWS[0], "정확도": 1.5}], ValueError, "0~1")],
)
def test_sweep_figure_rejects_bad_records(records, exc, part):
    raises_korean(exc, lambda: plot_sweep(records), part)
