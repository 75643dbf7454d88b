"""스케일링 장의 라이브러리: 소프트맥스 야코비안 노름, 스케일링 실험 도우미, 곡선 그림."""

from __future__ import annotations

import logging
import math
import warnings

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from matplotlib.figure import Figure

from attn_lib import softmax_jacobian_norm
from attn_course import (
    learn_temperature,
    plot_curves,
    plot_metric_panels,
    plot_saturation_grid,
    random_attention_gradients,
    retrieval_batch,
    retrieval_loss,
    sample_dot_products,
    scale_for,
    scaling_summary,
)
from attn_course.viz.figures import PALETTE


def explicit_jacobian(p: torch.Tensor) -> torch.Tensor:
    """diag(p) - p p^T를 행마다 그대로 만든 것. (..., S) -> (..., S, S)"""
    return torch.diag_embed(p) - p[..., :, None] * p[..., None, :]  # (..., S) -> (..., S, S)


# ---------------------------------------------------------------------------
# softmax_jacobian_norm
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(1, 5), (3, 4, 7), (2, 2, 3, 16)])
def test_jacobian_norm_matches_autograd_jacobian(shape):
    g = torch.Generator().manual_seed(0)
    logits = 3 * torch.randn(*shape, generator=g, dtype=torch.float64)
    weights = torch.softmax(logits, dim=-1)
    norms = softmax_jacobian_norm(weights)
    assert norms.shape == shape[:-1] and norms.dtype == torch.float64
    flat_logits = logits.reshape(-1, shape[-1])  # (..., S) -> (R, S)
    for r, row in enumerate(flat_logits):
        J = torch.autograd.functional.jacobian(lambda s: torch.softmax(s, dim=-1), row)
        torch.testing.assert_close(J, explicit_jacobian(torch.softmax(row, dim=-1)))
        torch.testing.assert_close(norms.reshape(-1)[r], torch.linalg.matrix_norm(J))  # (...) -> (R,)


def test_jacobian_norm_is_zero_for_one_hot_and_known_for_uniform_and_halves():
    S = 8
    one_hot = torch.eye(S)
    assert torch.equal(softmax_jacobian_norm(one_hot), torch.zeros(S))
    uniform = torch.full((3, S), 1.0 / S)
    torch.testing.assert_close(softmax_jacobian_norm(uniform), torch.full((3,), math.sqrt(S - 1) / S))
    halves = torch.tensor([[0.5, 0.5, 0.0, 0.0]])
    torch.testing.assert_close(softmax_jacobian_norm(halves), torch.tensor([0.5]))
    dead_row = torch.zeros(1, S)  # 모든 키가 가려진 행
    assert torch.equal(softmax_jacobian_norm(dead_row), torch.zeros(1))


def test_jacobian_norm_is_accurate_near_one_hot_in_float32():
    # 두 키, 점수 차가 클 때 p = (1 - e, e): 닫힌 식의 세 항이 거의 지워지는 곳.
    # 기준값은 저장된 float32 p로 만든 diag(p) - p p^T 행렬을 float64로 직접 잰 노름입니다.
    logits = torch.tensor([[8.0, 0.0], [12.0, 0.0], [16.0, 0.0]])
    weights = torch.softmax(logits, dim=-1)
    expected = torch.linalg.matrix_norm(explicit_jacobian(weights.double()))
    got = softmax_jacobian_norm(weights)
    assert got.dtype == torch.float32
    torch.testing.assert_close(got.double(), expected, rtol=1e-3, atol=0)
    # 같은 식을 float32로 그대로 계산하면 이 정확도가 나오지 않습니다 (검사가 헛돌지 않는지).
    s2, s3 = weights.square().sum(-1), weights.pow(3).sum(-1)
    naive = (s2 - 2 * s3 + s2.square()).clamp_min(0).sqrt()
    assert not torch.allclose(naive.double(), expected, rtol=1e-2, atol=0)


def test_jacobian_norm_rejects_bad_input():
    with pytest.raises(TypeError, match="실수 텐서"):
        softmax_jacobian_norm(torch.ones(2, 3, dtype=torch.long))
    with pytest.raises(ValueError, match="최소 2차원"):
        softmax_jacobian_norm(torch.ones(3))


# ---------------------------------------------------------------------------
# scale_for, sample_dot_products
# ---------------------------------------------------------------------------


def test_scale_for_rules():
    assert scale_for(64) == pytest.approx(1 / 8)
    assert scale_for(64, "none") == 1.0
    assert scale_for(64, "linear") == pytest.approx(1 / 64)
    assert scale_for(64, "sqrt", multiplier=2) == pytest.approx(1 / 4)
    with pytest.raises(ValueError, match="rule"):
        scale_for(64, "log")
    with pytest.raises(ValueError, match="multiplier"):
        scale_for(64, multiplier=0)
    with pytest.raises(ValueError, match="d_k"):
        scale_for(0)


@pytest.mark.parametrize("d_k", [1, 16, 256])
def test_dot_product_variance_is_d_k_and_one_after_scaling(d_k):
    x = sample_dot_products(d_k, 20_000, seed=1)
    assert x.shape == (20_000,)
    assert abs(x.var().item() / d_k - 1) < 0.08
    assert abs(x.mean().item()) < 0.1 * math.sqrt(d_k)
    assert abs((x / math.sqrt(d_k)).var().item() - 1) < 0.08


def test_sample_dot_products_is_deterministic():
    a, b = sample_dot_products(8, 100, seed=3), sample_dot_products(8, 100, seed=3)
    assert torch.equal(a, b)
    assert not torch.equal(a, sample_dot_products(8, 100, seed=4))
    with pytest.raises(TypeError, match="seed"):
        sample_dot_products(8, 100, seed=1.5)
    with pytest.raises(ValueError, match="n"):
        sample_dot_products(8, 0)


# ---------------------------------------------------------------------------
# random_attention_gradients, scaling_summary
# ---------------------------------------------------------------------------


def test_random_attention_gradients_shapes_and_autograd_identities():
    d_k, scale = 16, 0.7
    run = random_attention_gradients(d_k, scale, batch=3, length=5, seed=2)
    assert run["query"].shape == run["query_grad"].shape == (3, 5, d_k)
    assert run["key"].shape == (3, 5, d_k)
    for name in ("upstream", "scores", "weights", "score_grad"):
        assert run[name].shape == (3, 5, 5), name
        assert not run[name].requires_grad, name
    torch.testing.assert_close(run["weights"].sum(-1), torch.ones(3, 5))
    torch.testing.assert_close(run["weights"], torch.softmax(run["scores"], dim=-1))
    # 점수의 기울기 = J g (행마다), 쿼리의 기울기 = scale * (점수의 기울기) @ K
    J = explicit_jacobian(run["weights"])  # (3, 5, 5, 5)
    expected_score_grad = (J @ run["upstream"][..., None])[..., 0]  # (3, 5, 5, 1) -> (3, 5, 5)
    torch.testing.assert_close(run["score_grad"], expected_score_grad)
    torch.testing.assert_close(run["query_grad"], scale * run["score_grad"] @ run["key"])


def test_random_attention_gradients_is_deterministic_and_scale_only_rescales_scores():
    a = random_attention_gradients(8, 1.0, batch=2, length=4, seed=5)
    b = random_attention_gradients(8, 1.0, batch=2, length=4, seed=5)
    for k in a:
        assert torch.equal(a[k], b[k]), k
    c = random_attention_gradients(8, 0.5, batch=2, length=4, seed=5)
    assert torch.equal(a["query"], c["query"]) and torch.equal(a["key"], c["key"])
    torch.testing.assert_close(c["scores"], 0.5 * a["scores"])
    with pytest.raises(ValueError, match="scale"):
        random_attention_gradients(8, -1.0)


def test_summary_detects_missing_scale_and_keeps_variance_near_one():
    d_k = 256
    scaled = scaling_summary(random_attention_gradients(d_k, scale_for(d_k), seed=0))
    unscaled = scaling_summary(random_attention_gradients(d_k, scale_for(d_k, "none"), seed=0))
    linear = scaling_summary(random_attention_gradients(d_k, scale_for(d_k, "linear"), seed=0))
    assert abs(scaled["score_var"] - 1) < 0.1
    assert abs(unscaled["score_var"] / d_k - 1) < 0.1
    assert abs(linear["score_var"] * d_k - 1) < 0.1
    # 스케일링을 빼먹으면 포화, 기울기가 사라진 행, 낮은 엔트로피
    assert scaled["saturation"] < 0.01 < 0.3 < unscaled["saturation"]
    assert unscaled["flat_share"] > 0.3 and scaled["flat_share"] == 0.0
    assert unscaled["jacobian_median"] < scaled["jacobian_median"] / 10
    assert unscaled["entropy"] < scaled["entropy"] < linear["entropy"] < math.log(32)
    # d_k로 나누면 거의 균등: 엔트로피 ~ log S, 야코비안 ~ sqrt(S-1)/S, 쿼리 기울기는 작아짐
    assert linear["entropy"] > 0.99 * math.log(32)
    assert linear["jacobian_median"] == pytest.approx(math.sqrt(31) / 32, rel=0.02)
    assert linear["query_grad_median"] < scaled["query_grad_median"] / 10
    # E||J g||^2 = ||J||_F^2: 자동 미분으로 잰 값과 닫힌 식이 (표본 오차 안에서) 같음
    for s in (scaled, unscaled, linear):
        assert s["score_grad_rms"] == pytest.approx(s["jacobian_rms"], rel=0.1)
    assert 0 <= scaled["query_grad_median"] <= scaled["query_grad_p90"]


def test_summary_rejects_wrong_input():
    with pytest.raises(TypeError, match="사전"):
        scaling_summary(torch.ones(2, 2))
    with pytest.raises(ValueError, match="키가 없습니다"):
        scaling_summary({"weights": torch.ones(2, 2)})


# ---------------------------------------------------------------------------
# 찾기 과제와 온도 학습
# ---------------------------------------------------------------------------


def test_retrieval_batch_shapes_target_and_determinism():
    q, k, v, y = retrieval_batch(8, batch=4, length=6, value_dim=3, noise=0.0, seed=1)
    assert q.shape == (4, 1, 8) and k.shape == (4, 6, 8) and v.shape == (4, 6, 3) and y.shape == (4, 3)
    # 잡음이 0이면 쿼리는 정답 키 그 자체이고, 목표는 같은 자리의 밸류
    for b in range(4):
        idx = [j for j in range(6) if torch.equal(k[b, j], q[b, 0])]
        assert len(idx) == 1 and torch.equal(v[b, idx[0]], y[b])
    again = retrieval_batch(8, batch=4, length=6, value_dim=3, noise=0.0, seed=1)
    assert all(torch.equal(a, b) for a, b in zip((q, k, v, y), again))
    with pytest.raises(ValueError, match="noise"):
        retrieval_batch(8, noise=-1.0)


def test_retrieval_loss_matches_manual_computation_and_limits():
    q, k, v, y = retrieval_batch(16, batch=32, length=8, value_dim=4, seed=0)
    T = 3.0
    p = torch.softmax((q @ k.transpose(-2, -1)) / T, dim=-1)  # (B, 1, Dh) @ (B, Dh, S) -> (B, 1, S)
    manual = ((p @ v)[:, 0] - y).square().sum(-1).mean()  # (B, 1, Dv) -> (B, Dv) -> ()
    torch.testing.assert_close(retrieval_loss(q, k, v, y, T), manual)
    # 온도가 아주 높으면 균등 평균과 같아짐
    uniform = (v.mean(dim=1) - y).square().sum(-1).mean()
    torch.testing.assert_close(retrieval_loss(q, k, v, y, 1e6), uniform, rtol=1e-4, atol=1e-4)
    # 텐서 온도로 기울기가 흐름
    t = torch.tensor(T, requires_grad=True)
    retrieval_loss(q, k, v, y, t).backward()
    assert t.grad is not None and torch.isfinite(t.grad)
    with pytest.raises(ValueError, match="temperature"):
        retrieval_loss(q, k, v, y, 0.0)
    with pytest.raises(ValueError, match="temperature"):
        retrieval_loss(q, k, v, y, torch.tensor([1.0, 2.0]))


def test_learn_temperature_is_deterministic_and_lowers_the_loss_from_a_hot_start():
    d_k = 64
    hot = learn_temperature(d_k, 8 * math.sqrt(d_k), steps=30, batch=64, seed=0)
    again = learn_temperature(d_k, 8 * math.sqrt(d_k), steps=30, batch=64, seed=0)
    assert hot == again
    assert set(hot) == {"temperature", "loss", "grad"} and all(len(v) == 30 for v in hot.values())
    assert hot["temperature"][0] == pytest.approx(64.0)
    assert hot["temperature"][-1] < hot["temperature"][0] / 4  # 너무 높은 온도에서는 내려감
    assert hot["grad"][0] > 0
    assert np.mean(hot["loss"][-5:]) < np.mean(hot["loss"][:5])
    cold = learn_temperature(d_k, math.sqrt(d_k) / 8, steps=5, batch=64, seed=0)
    assert cold["grad"][0] < 0  # 너무 낮은 온도에서는 올라가려 함
    assert abs(cold["grad"][0]) < abs(hot["grad"][0])  # 포화된 쪽의 기울기가 더 작음
    with pytest.raises(ValueError, match="init_temperature"):
        learn_temperature(d_k, -1.0, steps=1)


# ---------------------------------------------------------------------------
# 그림
# ---------------------------------------------------------------------------


def _render_without_warnings(fig: Figure) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # 이 블록 안에서만: 'Glyph ... missing' 경고를 오류로
        fig.canvas.draw()


def test_plot_curves_draws_series_and_references():
    before = len(plt.get_fignums())
    x = [1, 2, 4, 8]
    fig = plot_curves(x, {"측정 A": [1, 2, 4, 8], "측정 B": [1, 1, 1, 1]}, xlabel="$d_k$", ylabel="분산",
                      reference={"이론: d_k": x, "이론: 1": 1.0}, logx=True, logy=True, title="내적의 분산")
    assert isinstance(fig, Figure) and len(plt.get_fignums()) == before
    ax = fig.axes[0]
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"측정 A", "측정 B", "이론: d_k", "이론: 1"}
    assert lines["측정 A"].get_color() == PALETTE[0] and lines["측정 B"].get_color() == PALETTE[1]
    np.testing.assert_allclose(lines["이론: 1"].get_ydata(), [1, 1, 1, 1])
    assert lines["이론: d_k"].get_linestyle() == "--"
    assert ax.get_xscale() == "log" and ax.get_yscale() == "log"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "2", "4", "8"]
    assert ax.get_title() == "내적의 분산"
    _render_without_warnings(fig)


def test_plot_curves_rejects_length_mismatch_and_labels_fractions():
    with pytest.raises(ValueError, match="길이"):
        plot_curves([1, 2, 3], {"a": [1, 2]}, xlabel="x", ylabel="y")
    with pytest.raises(ValueError, match="series"):
        plot_curves([1, 2], {}, xlabel="x", ylabel="y")
    fig = plot_curves([0.25, 0.5, 1, 2], {"a": [1, 2, 3, 4]}, xlabel="c", ylabel="y", logx=True)
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["1/4", "1/2", "1", "2"]


def test_plot_metric_panels_one_axis_per_metric_and_shared_legend():
    x = [1, 2, 4]
    panels = {
        "엔트로피": {"스케일링": [1, 1, 1], "없음": [1, 0.5, 0.2]},
        "포화 행 비율": {"스케일링": [0, 0, 0], "없음": [0, 0.2, 0.6]},
        "야코비안 노름": {"스케일링": [0.2, 0.2, 0.2], "없음": [0.2, 0.1, 0.01]},
    }
    fig = plot_metric_panels(x, panels, xlabel="$d_k$", ncols=2, logx=True, logy=["야코비안 노름"],
                             reference={"엔트로피": {"log S": 1.2}})
    visible = [ax for ax in fig.axes if ax.axison]
    assert [ax.get_ylabel() for ax in visible] == list(panels)
    assert visible[2].get_yscale() == "log" and visible[0].get_yscale() == "linear"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == ["스케일링", "없음"]
    assert [t.get_text() for t in visible[0].get_legend().get_texts()] == ["log S"]
    with pytest.raises(ValueError, match="panels"):
        plot_metric_panels(x, panels, xlabel="x", logy=["없는 지표"])
    _render_without_warnings(fig)


def test_plot_saturation_grid_colors_panels_and_reports_saturation():
    g = torch.Generator().manual_seed(0)
    soft = torch.softmax(torch.randn(4, 8, 8, generator=g), dim=-1)
    sharp = torch.eye(8).expand(4, 8, 8)
    fig = plot_saturation_grid({"부드러움": soft, "원-핫": sharp}, ncols=2, colors=[PALETTE[0], PALETTE[1]])
    axes = [ax for ax in fig.axes if ax.axison]
    assert [ax.get_title() for ax in axes] == ["부드러움", "원-핫"]
    assert axes[1].patches[0].get_facecolor()[:3] == pytest.approx(plt.matplotlib.colors.to_rgb(PALETTE[1]))
    legend = [t.get_text() for t in axes[1].get_legend().get_texts()]
    assert legend and legend[0].startswith("포화 행 100%")
    with pytest.raises(ValueError, match="colors"):
        plot_saturation_grid({"a": soft}, colors=["red", "blue"])
    _render_without_warnings(fig)


def test_log_axes_avoid_mathtext_glyphs_missing_from_the_korean_font(caplog):
    # 기본 로그 눈금은 10^{-2}를 mathtext로 그려 한글 글꼴에 없는 U+2212를 찾다가 경고를 남깁니다.
    x = [2.0**k for k in range(-4, 13)]  # 17개: 눈금을 x마다 두지 않는 경우
    fig = plot_curves(x, {"a": [10.0 ** (-k / 4) for k in range(17)]}, xlabel="T", ylabel="y", logx=True, logy=True)
    narrow = plot_curves([1, 2, 4], {"b": [0.15, 0.2, 0.33]}, xlabel="x", ylabel="y", logy=True)
    with caplog.at_level(logging.WARNING):
        fig.canvas.draw()
        narrow.canvas.draw()
    assert not [r for r in caplog.records if "glyph" in r.getMessage()], [r.getMessage() for r in caplog.records]
    ax = fig.axes[0]
    ylabels = [t.get_text() for t in ax.get_yticklabels() if t.get_text()]
    xlabels = [t.get_text() for t in ax.get_xticklabels() if t.get_text()]
    assert {"0.001", "0.01", "0.1", "1"} <= set(ylabels) and "1/4" in xlabels and "16" in xlabels
    assert all("$" not in t for t in ylabels + xlabels)
    # 10배가 안 되는 범위에서도 이름 있는 눈금이 둘 이상 보여야 합니다
    lo, hi = narrow.axes[0].get_ylim()
    shown = [t for t in narrow.axes[0].get_yticklabels() if t.get_text() and lo <= t.get_position()[1] <= hi]
    assert len(shown) >= 2, [t.get_text() for t in shown]
