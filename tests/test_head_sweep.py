"""5장(헤드 수와 학습)의 정리를 학습에 쓰지 않은 시드로 다시 확인하고, 스윕 도구, 성공 비율 통계, 그림을 검사합니다.

- 절반 학습률(성공 비율이 0.5 아래로 떨어지는 학습률): 장과 같은 학습률(``HEAD_SWEEP_RATES``)에서 장의 시드 0~9와
  장을 쓰며 한 번도 보지 않은 시드 100~109를 학습해, 헤드 수마다 두 절반 학습률이 격자 한 칸 안인지 봅니다.
  모델 약 340개(시드 묶음으로)를 학습하므로 2코어에서 몇 분 걸립니다. 시간 제한은 두지 않습니다(시간은 `make bench`).
- 기록(train_with_history)은 학습을 바꾸지 않고, 프로세스 여러 개로 돌려도 숫자가 같아야 합니다.
"""

from __future__ import annotations

import dataclasses
import math
import re

import matplotlib
import numpy as np
import pytest
import torch
from matplotlib.ft2font import FT2Font

from attn_course import (
    HEAD_SWEEP_GRID,
    HEAD_SWEEP_RATES,
    SUCCESS_ACCURACY,
    SweepJob,
    ToyConfig,
    continue_training,
    half_success_position,
    half_success_rate,
    plot_success_rates,
    plot_sweep,
    plot_training_history,
    run_seed_batches,
    run_sweep,
    success_rows,
    sweep_jobs,
    sweep_records,
    train_head_model,
    train_with_history,
    wilson_interval,
)
from attn_course.viz.figures import get_alt, korean_font_path
from conftest import all_texts, raises_korean, render_without_warnings

PAGE_SEEDS = list(range(10))  # 5장이 쓰는 시드
HELD_OUT = list(range(100, 110))
STEPS = ToyConfig().steps
HANGUL = re.compile(r"[가-힣]")


# ---------------------------------------------------------------------------
# 정리의 문장들: 시드 100~109
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def half_positions() -> dict[str, dict[int, float | None]]:
    """시드 묶음("page": 0~9, "held": 100~109) -> 헤드 수 -> 절반 학습률의 격자 위치 (5장과 같은 계산)."""
    seed_sets = {"page": PAGE_SEEDS, "held": HELD_OUT}
    jobs = [job for seeds in seed_sets.values() for h, rates in HEAD_SWEEP_RATES.items()
            for job in sweep_jobs([h], rates, seeds, steps=STEPS)]
    accuracy = {r.job: r.accuracy for r in run_seed_batches(jobs, record_every=STEPS)}
    out: dict[str, dict[int, float | None]] = {}
    for name, seeds in seed_sets.items():
        out[name] = {}
        for h, rates in HEAD_SWEEP_RATES.items():
            success = [sum(accuracy[SweepJob(h, lr, STEPS, s)] >= SUCCESS_ACCURACY for s in seeds) / len(seeds)
                       for lr in rates]
            out[name][h] = half_success_position(rates, success)
    return out


@pytest.mark.parametrize("num_heads", list(HEAD_SWEEP_RATES))
def test_half_success_rate_on_held_out_seeds_is_within_one_grid_step_of_the_page(half_positions, num_heads):
    page, held = half_positions["page"][num_heads], half_positions["held"][num_heads]
    assert page is not None and held is not None, half_positions
    assert abs(page - held) <= 1, f"헤드 {num_heads}개: 장의 격자 위치 {page:.2f}, 시드 100~109 {held:.2f}"


def test_one_head_gives_up_more_than_a_grid_step_earlier_on_held_out_seeds(half_positions):
    held = half_positions["held"]
    # 5장: "헤드를 둘로 늘리면 절반 학습률이 격자 한 칸보다 더 높은 쪽으로 옮겨 갑니다"
    assert held[2] - held[1] > 1 and held[4] - held[1] > 1, held


# ---------------------------------------------------------------------------
# 성공 비율과 절반 학습률
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("k, n, low, high", [(7, 10, 0.3968, 0.8922), (0, 10, 0.0, 0.2775), (10, 10, 0.7225, 1.0),
                                             (5, 10, 0.2366, 0.7634), (1, 1, 0.2065, 1.0)])
def test_wilson_interval_matches_published_values(k, n, low, high):
    got = wilson_interval(k, n)
    assert got == pytest.approx((low, high), abs=1e-4)
    assert got[0] <= k / n <= got[1]


def test_wilson_interval_narrows_with_more_trials_and_rejects_bad_counts():
    assert np.diff(wilson_interval(70, 100)) < np.diff(wilson_interval(7, 10))
    raises_korean(ValueError, lambda: wilson_interval(11, 10), "trials")
    raises_korean(ValueError, lambda: wilson_interval(0, 0), "trials")
    raises_korean(TypeError, lambda: wilson_interval(0.5, 10), "successes")


def test_success_rows_count_successes_at_the_threshold():
    rows = success_rows({(1, 0.01): [0.95, 0.949, 1.0, 0.3], (2, 0.01): [1.0, 1.0]})
    assert [r["성공"] for r in rows] == [2, 2] and rows[0]["성공 비율"] == 0.5 and rows[1]["성공 비율"] == 1.0
    assert rows[0]["최소 정확도"] == 0.3 and rows[0]["평균 정확도"] == pytest.approx(0.79975)
    assert (rows[0]["구간 아래"], rows[0]["구간 위"]) == pytest.approx(wilson_interval(2, 4))
    raises_korean(ValueError, lambda: success_rows({(1, 0.01): [1.2]}), "0~1")


def test_half_success_position_interpolates_the_last_drop_below_one_half():
    rates = [0.002, 0.004, 0.008, 0.016]
    assert half_success_position(rates, [0.4, 1.0, 0.8, 0.2]) == pytest.approx(2 + 0.3 / 0.6)
    assert half_success_rate(rates, [0.4, 1.0, 0.8, 0.2]) == pytest.approx(0.008 * 2 ** 0.5)  # 로그 눈금에서 가운데
    assert half_success_position(rates, [1.0, 0.5, 0.9, 0.0]) == pytest.approx(2 + 0.4 / 0.9)  # 마지막으로 떨어지는 곳
    assert half_success_position(rates, [0.1, 0.2, 0.3, 0.4]) is None  # 0.5에 이른 적 없음
    assert half_success_position(rates, [1.0, 1.0, 0.9, 0.6]) is None  # 격자 안에서 떨어지지 않음
    assert half_success_rate(rates, [1.0, 1.0, 0.9, 0.6]) is None
    raises_korean(ValueError, lambda: half_success_position([0.01, 0.002], [1.0, 0.0]), "오름차순")


def test_the_chapter_grid_doubles_from_0_002():
    assert HEAD_SWEEP_GRID[0] == 0.002
    assert all(b / a == pytest.approx(2) for a, b in zip(HEAD_SWEEP_GRID, HEAD_SWEEP_GRID[1:]))
    assert all(tuple(r) == HEAD_SWEEP_GRID[:len(r)] for r in HEAD_SWEEP_RATES.values())


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


def test_training_history_figure_has_six_panels_and_draws_gradients_as_they_are():
    _, _, history = train_with_history(1, 0, SMALL, record_every=5)
    fig = plot_training_history({"헤드 1개": history, "다시": history})
    assert len(fig.axes) == 6
    assert [ax.get_yscale() for ax in fig.axes] == ["linear"] * 4 + ["log", "log"]
    np.testing.assert_allclose(fig.axes[0].get_lines()[0].get_ydata(), history.train_accuracy)
    np.testing.assert_allclose(fig.axes[2].get_lines()[0].get_ydata(), [max(p) for p in history.previous_share])
    np.testing.assert_allclose(fig.axes[3].get_lines()[0].get_ydata(), history.saturated)
    np.testing.assert_allclose(fig.axes[4].get_lines()[0].get_ydata(), history.grad_norm)  # 바닥값 없이 그대로
    assert "헤드 1개" in get_alt(fig) and "뺀 값" not in get_alt(fig)
    render_without_warnings(fig)
    # 아주 작은 값은 그대로, 0은 로그 눈금에 그릴 수 없으니 빼고 대체 텍스트에 적음
    tiny = dataclasses.replace(history, grad_norm=(1.6e-9, 0.0) + history.grad_norm[2:])
    fig = plot_training_history({"작은 기울기": tiny})
    drawn = fig.axes[4].get_lines()[0].get_ydata()
    assert drawn[0] == pytest.approx(1.6e-9) and np.isnan(drawn[1])
    assert "0 이하라 로그 눈금에서 뺀 값 1개" in get_alt(fig) and "1.6e-09" in get_alt(fig)
    render_without_warnings(fig)
    matplotlib.pyplot.close("all")


SUCCESS = [
    {"설정": f"헤드 {h}개", "학습률": lr, "성공 비율": k / 10, "구간 아래": wilson_interval(k, 10)[0],
     "구간 위": wilson_interval(k, 10)[1]}
    for h, ks in {1: [4, 10, 8, 3, 0], 2: [10, 10, 9, 10, 8, 0]}.items()
    for lr, k in zip(HEAD_SWEEP_GRID, ks)
] + [{"설정": "헤드 1개 · 900스텝", "학습률": lr, "성공 비율": k / 10, "구간 아래": wilson_interval(k, 10)[0],
      "구간 위": wilson_interval(k, 10)[1]} for lr, k in [(0.002, 10), (0.032, 0)]]


def test_success_figure_draws_a_line_and_band_per_head_count_and_never_joins_rates_that_were_not_run():
    half = {"헤드 1개": half_success_rate(HEAD_SWEEP_GRID[:5], [0.4, 1.0, 0.8, 0.3, 0.0]), "헤드 2개": 0.041}
    fig = plot_success_rates(SUCCESS, grid=HEAD_SWEEP_GRID, half_rates=half, title="성공 비율")
    ax = fig.axes[0]
    by_gid = {a.get_gid(): a for a in fig.findobj() if a.get_gid()}
    np.testing.assert_allclose(by_gid["rate-헤드 1개-0"].get_xdata(), HEAD_SWEEP_GRID[:5])
    np.testing.assert_allclose(by_gid["rate-헤드 1개-0"].get_ydata(), [0.4, 1.0, 0.8, 0.3, 0.0])
    np.testing.assert_allclose(by_gid["rate-헤드 2개-0"].get_xdata(), HEAD_SWEEP_GRID)
    assert "band-헤드 2개-0" in by_gid and "band-헤드 2개-1" not in by_gid
    # 스텝 세 배는 이웃하지 않은 두 학습률: 선 두 조각(점 하나씩), 둘을 잇는 선은 없음
    long = [by_gid[f"rate-헤드 1개 · 900스텝-{k}"] for k in range(2)]
    assert [len(line.get_xdata()) for line in long] == [1, 1] and "rate-헤드 1개 · 900스텝-2" not in by_gid
    assert by_gid["half-헤드 1개"].get_ydata()[0] == 0.5
    assert by_gid["half-헤드 1개"].get_xdata()[0] == pytest.approx(0.008 * 2 ** 0.6)
    assert ax.get_xscale() == "log" and by_gid["half-line"].get_ydata()[0] == 0.5
    assert [t.get_text() for t in ax.get_xticklabels()] == [f"{r:g}" for r in HEAD_SWEEP_GRID]  # 돌린 학습률 모두
    legend = [t.get_text() for t in fig.legends[0].get_texts()]
    assert legend == ["헤드 1개", "헤드 2개", "헤드 1개 · 900스텝"]
    alt = get_alt(fig)
    assert "헤드 1개: 최고 1.0(학습률 0.004), 0.5 지점 약 0.012" in alt and len(alt) < 300, alt
    render_without_warnings(fig)
    font = FT2Font(str(korean_font_path()))
    missing = sorted({ch for t in all_texts(fig) for ch in HANGUL.findall(t) if font.get_char_index(ord(ch)) == 0})
    assert not missing
    matplotlib.pyplot.close("all")


@pytest.mark.parametrize(
    "rows, exc, part",
    [([], TypeError, "rows"), ([{"설정": "a", "학습률": 0.01}], ValueError, "성공 비율"),
     ([{**SUCCESS[0], "구간 아래": 0.9}], ValueError, "구간 아래")],
)
def test_success_figure_rejects_bad_rows(rows, exc, part):
    raises_korean(exc, lambda: plot_success_rates(rows), part)


@pytest.mark.parametrize(
    "records, exc, part",
    [([], TypeError, "records"), ([{"헤드 수": 1}], ValueError, "학습률"),
     ([{**ROWS[0], "정확도": 1.5}], ValueError, "0~1")],
)
def test_sweep_figure_rejects_bad_records(records, exc, part):
    raises_korean(exc, lambda: plot_sweep(records), part)
