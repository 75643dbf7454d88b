"""attn_course.experiments.toy와 head_training: 두 관계 과제, 모델, 학습의 재현성.

헤드 수에 대한 결론(5장의 정리)은 tests/test_head_sweep.py가 학습에 쓰지 않은 시드로 확인합니다.
모델을 실제로 학습하므로 몇 초씩 걸립니다(모델 하나에 약 1초, 2코어 CPU). 시간 제한은 두지 않습니다.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import torch

from attn_lib import count_parameters
from attn_course.experiments.training import head_experiment, train_head_model
from attn_course.experiments.toy import (
    HeadToyModel,
    ToyConfig,
    head_relation_shares,
    lookup_table,
    make_task_batch,
    name_head_relations,
    relation_ceilings,
)
from conftest import raises_korean

SEEDS = (0, 1, 2)
ROOT = Path(__file__).resolve().parents[1]


# ---------------------------------------------------------------------------
# 데이터와 모델 모양 (학습 없음)
# ---------------------------------------------------------------------------


def test_batch_targets_follow_the_table_of_first_and_previous_token():
    cfg = ToyConfig()
    tokens, targets = make_task_batch(50, cfg, torch.Generator().manual_seed(0))
    f = lookup_table(cfg)
    assert tokens.shape == targets.shape == (50, cfg.seq_len)
    assert (targets[:, :2] == -100).all()
    for b in range(50):
        for t in range(2, cfg.seq_len):
            assert targets[b, t] == f[tokens[b, 0], tokens[b, t - 1]]


def test_table_is_asymmetric_so_order_matters():
    f = lookup_table(ToyConfig())
    assert (f != f.T).float().mean() > 0.5
    ceilings = relation_ceilings()
    # 관계 하나나 순서 없는 쌍만으로는 한참 모자라야 과제가 두 관계를 요구합니다.
    assert max(ceilings.values()) < 0.7, ceilings


def test_model_returns_logits_and_per_head_weights():
    cfg = ToyConfig()
    model = HeadToyModel(cfg, num_heads=4)
    tokens, _ = make_task_batch(3, cfg, torch.Generator().manual_seed(0))
    logits, weights = model(tokens)
    assert logits.shape == (3, cfg.seq_len, cfg.vocab_size)
    assert weights.shape == (3, 4, cfg.seq_len, cfg.seq_len)
    torch.testing.assert_close(weights.sum(-1), torch.ones(3, 4, cfg.seq_len))
    assert (weights.triu(diagonal=1) == 0).all(), "인과 마스크: 미래 위치의 가중치는 0이어야 합니다"


def test_parameter_count_does_not_depend_on_num_heads():
    cfg = ToyConfig()
    counts = {h: count_parameters(HeadToyModel(cfg, h)) for h in (1, 2, 4)}
    assert len(set(counts.values())) == 1, counts
    assert count_parameters(HeadToyModel(cfg, 2).attn) == 4 * cfg.embed_dim**2 + 4 * cfg.embed_dim


def test_relation_shares_and_names_on_hand_made_weights():
    L = 5
    weights = torch.zeros(1, 3, L, L)
    weights[0, 0, :, 0] = 1.0  # 헤드 0: 늘 첫 토큰
    for t in range(1, L):
        weights[0, 1, t, t - 1] = 1.0  # 헤드 1: 늘 이전 토큰
        weights[0, 2, t, 0] = weights[0, 2, t, t - 1] = 0.5  # 헤드 2: 반반
    torch.testing.assert_close(head_relation_shares(weights), torch.tensor([[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]]))
    assert name_head_relations(weights) == ["첫 토큰", "이전 토큰", "섞임"]


# ---------------------------------------------------------------------------
# 잘못된 입력
# ---------------------------------------------------------------------------


def test_bad_inputs_raise_korean_errors():
    raises_korean(ValueError, lambda: head_experiment(3, 0), "embed_dim(=32)", "num_heads(=3)")
    raises_korean(ValueError, lambda: train_head_model(0, 0), "num_heads")
    raises_korean(TypeError, lambda: head_experiment(2.0, 0), "num_heads")
    raises_korean(TypeError, lambda: head_experiment(2, "0"), "seed")
    raises_korean(ValueError, lambda: head_experiment(2, -1), "seed", "-1")
    raises_korean(TypeError, lambda: head_experiment(2, 0, config={"steps": 1}), "ToyConfig", "dict")
    raises_korean(ValueError, lambda: ToyConfig(seq_len=2), "seq_len", "2")
    raises_korean(ValueError, lambda: ToyConfig(lr=0.0), "lr")
    model = HeadToyModel(ToyConfig(), 2)
    raises_korean(TypeError, lambda: model(torch.zeros(2, 5)), "tokens", "float32")
    raises_korean(ValueError, lambda: model(torch.zeros(2, 11, dtype=torch.long)), "seq_len(=10)", "(2, 11)")
    raises_korean(ValueError, lambda: model(torch.full((2, 5), 8)), "vocab_size(=8)")
    raises_korean(ValueError, lambda: name_head_relations(torch.rand(1, 1, 4, 4), threshold=0.5), "threshold")
    raises_korean(ValueError, lambda: head_relation_shares(torch.rand(1, 4, 4)), "(B, H, L, L)")


# ---------------------------------------------------------------------------
# 학습: 재현성과 헤드 수 비교
# ---------------------------------------------------------------------------

def test_same_seed_gives_identical_accuracy_across_calls_and_processes():
    torch.manual_seed(1234)
    threads, rng = torch.get_num_threads(), torch.get_rng_state()
    first = head_experiment(2, 0)
    second = head_experiment(2, 0)
    assert first == second  # 같은 float, 허용 오차 없음
    assert torch.get_num_threads() == threads, "스레드 수를 되돌려야 합니다"
    assert torch.equal(torch.get_rng_state(), rng), "전역 난수 상태를 되돌려야 합니다"
    # 다른 프로세스에서도, 호출한 쪽의 스레드 수·전역 시드가 달라도 같은 값이어야 합니다.
    code = (
        "import torch; torch.set_num_threads(2); torch.manual_seed(999)\n"
        "from attn_course.experiments.training import head_experiment; print(repr(head_experiment(2, 0)))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert float(out.stdout.strip()) == first


def test_lookup_table_returns_a_copy_the_cache_survives_edits():
    cfg = ToyConfig()
    f = lookup_table(cfg)
    f.zero_()
    assert not torch.equal(lookup_table(cfg), f), "lookup_table이 캐시를 그대로 내주면 고친 값이 과제를 바꿉니다"
