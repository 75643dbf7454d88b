"""어텐션 싱크 실험(attn_course.experiments.sinks)과 롤링 캐시: 9장의 숫자가 기대는 것.

빠른 테스트는 과제 규칙, 모양, 롤링 캐시의 바이트와 마스크 평가가 같은지를 봅니다. 학습 테스트(training 표시,
tests/conftest.py)는 장이 보여 주는 것보다 많은 시드와 설정(학습률, 단계 수, 너비, MLP)에서 결과의 **방향**을
확인합니다: 학습한 모델은 첫 토큰에 균등보다 훨씬 큰 가중치를 두고, 싱크 없이 창만 남기면 손실이 늘고,
싱크 하나를 남기면 거의 돌아옵니다.
"""

from __future__ import annotations

import pytest
import torch

from attn_lib import KVCache, sliding_window_mask
from attn_course.experiments.sinks import (
    SinkConfig,
    SinkLM,
    backcopy_batch,
    first_token_mass,
    stream_cache_bytes,
    streaming_losses,
    train_sink_lm,
)

SMALL = SinkConfig(seq_len=24, steps=5)


def _eval_batch(cfg: SinkConfig, n: int = 256) -> torch.Tensor:
    return backcopy_batch(cfg, n, torch.Generator().manual_seed(999))


def test_backcopy_rule() -> None:
    x = _eval_batch(SinkConfig(), 64)
    cfg = SinkConfig()
    assert (x[:, 0] == cfg.vocab).all() and (x[:, 1:] < cfg.vocab).all()
    after = x[:, 1:-1] < cfg.triggers  # (B, T-2): 방아쇠 자리
    assert after.any(), "방아쇠가 한 번도 나오지 않으면 베끼기 규칙을 시험할 수 없습니다"
    assert torch.equal(x[:, 2:][after], x[:, :-2][after])  # 방아쇠 다음 = 방아쇠 앞
    # 방아쇠 앞은 일반 토큰이므로 방아쇠가 둘 이어지지 않음 (베끼기가 고리에 빠지지 않음)
    assert not ((x[:, 1:-1] < cfg.triggers) & (x[:, 2:] < cfg.triggers)).any()


def test_config_errors_are_korean() -> None:
    with pytest.raises(ValueError, match="보다 작아야"):
        SinkConfig(vocab=4, triggers=4)
    with pytest.raises(ValueError, match="trigger_rate"):
        SinkConfig(trigger_rate=1.5)
    with pytest.raises(ValueError, match="window"):
        streaming_losses(SinkLM(SMALL), _eval_batch(SMALL, 4), window=30)


def test_rolling_cache_bytes_flat_and_matches_mask() -> None:
    cfg = SMALL
    model = SinkLM(cfg, seed=1).eval()
    tokens = _eval_batch(cfg, 2)
    T, window, sink = cfg.seq_len, 8, 1
    rolling, rolling_logits = stream_cache_bytes(model, tokens, [KVCache(window, sink) for _ in model.attn])
    growing, growing_logits = stream_cache_bytes(model, tokens, [KVCache() for _ in model.attn])
    assert rolling[window - 1:] == [rolling[window - 1]] * (T - window + 1)  # 창이 찬 뒤로 평평함
    assert growing == sorted(growing) and growing[-1] == growing[0] * T  # 토큰 수에 비례해 늘어남
    with torch.no_grad():
        masked = model(tokens, sliding_window_mask(T, T, window - sink, sink=sink))[0]
        full = model(tokens)[0]
    torch.testing.assert_close(rolling_logits, masked, atol=1e-5, rtol=1e-5)
    torch.testing.assert_close(growing_logits, full, atol=1e-5, rtol=1e-5)
    assert (rolling_logits - full)[:, window:].abs().max() > 1e-4  # 창 밖 토큰을 버린 것이 결과에 보임


def test_streaming_losses_agree_before_eviction_window() -> None:
    model = SinkLM(SMALL, seed=0).eval()
    losses = streaming_losses(model, _eval_batch(SMALL, 8), window=6, sinks=(1, 2))
    assert list(losses) == ["전체 캐시", "창만 (싱크 0)", "창 + 싱크 1", "창 + 싱크 2"]
    assert len(set(round(v, 6) for v in losses.values())) > 1  # 마스크가 실제로 결과를 바꿈


def test_training_is_deterministic() -> None:
    _, a = train_sink_lm(SMALL, seed=3)
    _, b = train_sink_lm(SMALL, seed=3)
    assert a == b


#: 장(9장)의 설정 하나 + 학습률, 단계 수, 너비, 층 수를 바꾼 설정들. 시드는 장의 0..2 말고 10개 더.
SETTINGS = {
    "장의 설정": SinkConfig(),
    "학습률 3e-3, 600단계": SinkConfig(lr=3e-3, steps=600),
    "너비 64, 헤드 4": SinkConfig(embed_dim=64, num_heads=4),
    "층 2": SinkConfig(num_layers=2),
}
SEEDS = range(3, 13)


@pytest.mark.parametrize("name", list(SETTINGS))
def test_trained_models_sink_and_need_it(name: str) -> None:
    cfg = SETTINGS[name]
    ev = _eval_batch(cfg)
    gaps, recovered, ratios = [], [], []
    for seed in SEEDS:
        before = first_token_mass(SinkLM(cfg, seed=seed).eval(), ev).max().item()
        model, _ = train_sink_lm(cfg, seed)
        after = first_token_mass(model, ev).max().item()
        losses = streaming_losses(model, ev, window=8, sinks=(1,))
        ratios.append(after / before)
        gaps.append(losses["창만 (싱크 0)"] - losses["전체 캐시"])
        recovered.append(losses["창 + 싱크 1"] - losses["전체 캐시"])
    print(name, [round(r, 1) for r in ratios], [round(g, 4) for g in gaps], [round(r, 4) for r in recovered])
    # 방향: 대부분의 시드에서 학습 뒤 첫 토큰 가중치가 크게 늘고, 싱크를 버리면 손실이 늘며, 싱크 하나가 그 손해를 줄임
    assert sum(r > 2 for r in ratios) >= 8, ratios
    assert sum(g > 0 for g in gaps) >= 8, gaps
    assert sum(r < g for r, g in zip(recovered, gaps)) >= 8, (recovered, gaps)
    assert sorted(gaps)[len(gaps) // 2] > 0.002, gaps  # 중앙값이 반올림 오차보다 훨씬 큼


def test_untrained_model_has_no_sink() -> None:
    cfg = SinkConfig()
    ev = _eval_batch(cfg)
    T, skip = cfg.seq_len, 8
    uniform = (1.0 / torch.arange(skip + 1, T + 1)).mean().item()  # 균등 어텐션이 첫 토큰에 주는 몫의 평균
    for seed in SEEDS:
        mass = first_token_mass(SinkLM(cfg, seed=seed).eval(), ev, skip=skip)
        assert mass.max().item() < 2 * uniform, (seed, mass, uniform)


def test_mlp_hides_most_of_the_damage() -> None:
    """9장의 문장: MLP를 넣은 모델도 첫 토큰에 큰 가중치를 두지만, 창만 남긴 손해는 MLP 없는 모델보다 훨씬 작다."""
    plain, with_mlp = SinkConfig(), SinkConfig(mlp=True, steps=600)
    ev = _eval_batch(plain)
    seeds = range(3, 8)
    gaps = {"plain": [], "mlp": []}
    ratios = []
    for seed in seeds:
        for name, cfg in (("plain", plain), ("mlp", with_mlp)):
            model, _ = train_sink_lm(cfg, seed)
            losses = streaming_losses(model, ev, window=8, sinks=(1,))
            gaps[name].append(losses["창만 (싱크 0)"] - losses["전체 캐시"])
        before = first_token_mass(SinkLM(with_mlp, seed=seed).eval(), ev).max().item()
        ratios.append(first_token_mass(model, ev).max().item() / before)
    print("mlp", [round(r, 1) for r in ratios], {k: [round(g, 4) for g in v] for k, v in gaps.items()})
    assert sum(r > 2 for r in ratios) >= 4, ratios
    median = {k: sorted(v)[len(v) // 2] for k, v in gaps.items()}
    assert median["mlp"] < median["plain"] / 3, median
