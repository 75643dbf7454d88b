"""7장의 실험 도구: 캐시 디코딩(TinyDecoder), 어텐션 메모리 측정, GQA 스윕.

시간은 재지 않습니다(시간 비교는 make bench). 여기서는 값이 맞는지, 잘못된 입력에 한국어 오류가 나는지만 봅니다.
"""

from __future__ import annotations

import pytest
import torch

from attn_lib import KVCache
from attn_course import (
    SweepJob,
    TinyDecoder,
    ToyConfig,
    attention_memory,
    attention_time,
    decode_with_cache,
    decode_without_cache,
    decoding_speed,
    run_sweep,
    sweep_records,
)
from attn_course.experiments.memory import PATHS, measure_in_this_process


@pytest.mark.parametrize("num_kv_heads", [4, 2, 1])
@pytest.mark.parametrize("prefill", [0, 1, 5])
def test_cached_decoding_equals_one_full_forward(num_kv_heads, prefill):
    model = TinyDecoder(embed_dim=32, num_heads=4, num_kv_heads=num_kv_heads, num_layers=2, seed=3)
    x = torch.randn(2, 9, 32, generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        full = model(x)
    out, caches = decode_with_cache(model, x, prefill=prefill)
    torch.testing.assert_close(out, full, atol=1e-5, rtol=0)
    torch.testing.assert_close(decode_without_cache(model, x), full, atol=1e-5, rtol=0)
    assert [len(c) for c in caches] == [9, 9]
    assert all(isinstance(c, KVCache) and c.key.shape == (2, num_kv_heads, 9, 8) for c in caches)


def test_a_decoder_without_causal_mask_would_not_match():
    """캐시가 맞는 까닭은 인과 마스크입니다: 마스크 없이 계산한 '전체 순전파'와는 달라야 합니다."""
    model = TinyDecoder(embed_dim=32, num_heads=4, num_layers=1)
    x = torch.randn(1, 6, 32, generator=torch.Generator().manual_seed(1))
    out, _ = decode_with_cache(model, x)
    with torch.no_grad():
        h, _ = model.attn[0](model.norm1[0](x))  # 마스크 없는 셀프 어텐션
        h = x + h
        no_mask = h + model.mlp[0](model.norm2[0](h))
    assert (out - no_mask).abs().max() > 1e-3


def test_tiny_decoder_seed_does_not_touch_global_rng():
    torch.manual_seed(123)
    before = torch.rand(3)
    torch.manual_seed(123)
    TinyDecoder(seed=7)
    assert torch.equal(torch.rand(3), before)
    a, b = TinyDecoder(seed=7), TinyDecoder(seed=7)
    assert all(torch.equal(p, q) for p, q in zip(a.parameters(), b.parameters()))


def test_decoding_speed_rows_check_equality_and_cache_bytes():
    model = TinyDecoder(embed_dim=32, num_heads=4, num_kv_heads=2, num_layers=2)
    rows = decoding_speed(model, [5, 10], batch_size=2)
    assert [r["T"] for r in rows] == [5, 10]
    for r in rows:
        assert r["최대 차이"] < 1e-5
        assert r["캐시 바이트"] == 2 * 2 * 2 * 2 * r["T"] * 8 * 4  # 층 x (키, 밸류) x B x Hkv x T x Dh x 4바이트
        assert r["캐시 없이 (토큰/초)"] > 0 and r["캐시와 함께 (토큰/초)"] > 0


@pytest.mark.parametrize("call, error, words", [
    (lambda m: decode_with_cache(m, torch.randn(1, 4, 32), prefill=5), ValueError, "prefill"),
    (lambda m: decode_with_cache(m, torch.randn(1, 4, 32), prefill=True), ValueError, "prefill"),
    (lambda m: decode_with_cache(m, torch.randn(4, 32)), ValueError, "(B, T, E)"),
    (lambda m: decode_without_cache("model", torch.randn(1, 4, 32)), TypeError, "TinyDecoder"),
    (lambda m: m(torch.randn(1, 4, 16)), ValueError, "E=32"),
    (lambda m: m(torch.randn(1, 4, 32), [KVCache()]), ValueError, "2개"),
    (lambda m: decoding_speed(m, [0]), ValueError, "lengths"),
])
def test_bad_inputs_get_korean_errors(call, error, words):
    model = TinyDecoder(embed_dim=32, num_heads=4, num_layers=2)
    with pytest.raises(error, match=r"[가-힣]") as info:
        call(model)
    assert words in str(info.value)


def test_explicit_path_needs_at_least_its_weights_and_the_fused_kernel_far_less():
    rows = {r["경로"]: r for r in attention_memory([512], num_heads=8, head_dim=64)}
    assert set(rows) == set(PATHS)
    weights = 8 * 512 * 512 * 4
    assert rows["explicit"]["가중치 바이트"] == weights
    assert all(r["방법"].startswith("VmHWM") for r in rows.values())
    assert rows["explicit"]["추가 최대 메모리 (바이트)"] >= weights
    assert rows["fused_causal"]["추가 최대 메모리 (바이트)"] < weights / 2
    assert rows["fused_causal"]["가중치 바이트"] == 0


def test_memory_and_time_reject_unknown_paths():
    with pytest.raises(ValueError, match="path"):
        measure_in_this_process("flash", 16, 1, 4, 1)
    with pytest.raises(ValueError, match="paths"):
        attention_memory([16], ("flash",))
    rows = attention_time([16, 32], num_heads=2, head_dim=4, repeats=1)
    assert [(r["경로"], r["L"]) for r in rows] == [(p, L) for L in (16, 32) for p in PATHS]


def test_sweep_job_can_share_keys_and_values():
    config = ToyConfig(steps=3, test_size=50)
    runs = run_sweep([SweepJob(4, 0.01, 3, 0, num_kv_heads=1), SweepJob(4, 0.01, 3, 0)], config, workers=1)
    records = sweep_records(runs, config)
    assert [r["KV 헤드 수"] for r in records] == [1, 4]
    model = runs[0].model(config)
    assert model.attn.num_kv_heads == 1 and model.attn.W_k.weight.shape == (8, 32)
    assert runs[1].model(config).attn.num_kv_heads == 4


def test_toy_config_checks_num_kv_heads():
    with pytest.raises((ValueError, TypeError), match=r"num_kv_heads"):
        ToyConfig(num_kv_heads=0)


def test_decoding_speed_reports_the_median_of_repeats_after_a_warmup():
    model = TinyDecoder(embed_dim=32, num_heads=4, num_layers=1)
    rows = decoding_speed(model, [6], repeats=3, warmup=1)
    row = rows[0]
    assert row["반복"] == 3
    assert row["캐시와 함께: 가장 짧은 시간 (초)"] <= row["캐시와 함께 (초)"] <= row["캐시와 함께: 가장 긴 시간 (초)"]
    assert row["캐시와 함께 (토큰/초)"] == pytest.approx(6 / row["캐시와 함께 (초)"])
    assert row["배율"] == pytest.approx(row["캐시 없이 (초)"] / row["캐시와 함께 (초)"])
    with pytest.raises(ValueError, match="warmup"):
        decoding_speed(model, [6], warmup=-1)


def test_attention_time_interleaves_repeats_and_reports_median_and_spread():
    rows = attention_time([16], num_heads=2, head_dim=4, repeats=3)
    for r in rows:
        assert r["반복"] == 3 and r["가장 짧은 시간 (초)"] <= r["시간 (초)"] <= r["가장 긴 시간 (초)"]
    with pytest.raises(ValueError, match="warmup"):
        attention_time([16], warmup=True)


def test_attention_cost_joins_memory_and_time_per_path_and_length():
    from attn_course import attention_cost, loglog_slope
    from attn_course.experiments.memory import PATHS

    rows = attention_cost([64, 128], num_heads=2, head_dim=8, repeats=1)
    assert [(r["경로"], r["L"]) for r in rows] == [(p, L) for L in (64, 128) for p in PATHS]
    assert all(r["이름"] == PATHS[r["경로"]] and r["시간 (초)"] > 0 for r in rows)
    explicit = [r for r in rows if r["경로"] == "explicit"]
    assert [r["가중치 바이트"] for r in explicit] == [2 * 64 * 64 * 4, 2 * 128 * 128 * 4]
    assert loglog_slope([1, 2, 4], [3, 6, 12]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="양수"):
        loglog_slope([1, 2], [0, 1])
