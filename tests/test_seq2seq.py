"""attn_course.experiments.seq2seq: 시퀀스 뒤집기 인코더-디코더, 크로스 어텐션의 마스크와 정렬.

모델을 실제로 학습하므로 수십 초 걸립니다(기본 설정 한 번에 2코어 CPU에서 약 10~25초). 시간 제한은 두지 않습니다.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from attn_course.experiments.seq2seq import (
    BOS,
    EOS,
    IGNORE_INDEX,
    NUM_SPECIAL,
    PAD,
    ReversalBatch,
    Seq2SeqConfig,
    Seq2SeqModel,
    _is_heldout,
    make_reversal_batch,
    token_labels,
)
from attn_course.experiments.seq2seq_training import alignment_accuracy, evaluate_seq2seq, greedy_decode, train_seq2seq
from conftest import raises_korean

ROOT = Path(__file__).resolve().parents[1]
SMALL = Seq2SeqConfig(steps=20, test_size=50)  # 재현성 검사용: 빨리 끝나는 설정


def batch_of(*rows: str, config: Seq2SeqConfig = Seq2SeqConfig()) -> tuple[torch.Tensor, torch.Tensor]:
    """손으로 쓴 기호 시퀀스(예: "ABC")로 소스와 교사 강요 디코더 입력을 만듭니다."""
    T = config.max_len + 1
    src = torch.full((len(rows), T), PAD)
    tgt_in = torch.full((len(rows), T), PAD)
    for b, row in enumerate(rows):
        ids = [ord(c) - ord("A") + NUM_SPECIAL for c in row]
        src[b, : len(ids) + 1] = torch.tensor(ids + [EOS])
        tgt_in[b, : len(ids) + 1] = torch.tensor([BOS] + ids[::-1])
    return src, tgt_in


# ---------------------------------------------------------------------------
# 데이터 (학습 없음)
# ---------------------------------------------------------------------------


def test_batch_layout_follows_the_bos_eos_convention():
    cfg = Seq2SeqConfig()
    batch = make_reversal_batch(200, cfg, torch.Generator().manual_seed(0))
    T = cfg.max_len + 1
    assert batch.src.shape == batch.tgt_in.shape == batch.tgt_out.shape == (200, T)
    assert int(batch.lengths.min()) >= cfg.min_len and int(batch.lengths.max()) <= cfg.max_len
    assert len(set(batch.lengths.tolist())) > 1, "길이가 서로 다른 시퀀스가 섞여야 패딩이 생깁니다"
    for b in range(200):
        n = int(batch.lengths[b])
        src, tin, tout = batch.src[b].tolist(), batch.tgt_in[b].tolist(), batch.tgt_out[b].tolist()
        symbols = src[:n]
        assert all(s >= NUM_SPECIAL for s in symbols)
        assert src[n:] == [EOS] + [PAD] * (T - n - 1)
        assert tout == symbols[::-1] + [EOS] + [IGNORE_INDEX] * (T - n - 1)
        assert tin == [BOS] + symbols[::-1] + [PAD] * (T - n - 1)


def test_train_and_test_splits_never_share_a_sequence():
    cfg = Seq2SeqConfig(min_len=3, max_len=4, num_symbols=3)  # 시퀀스가 적어 겹칠 기회가 많은 설정
    gen = torch.Generator().manual_seed(0)
    train = make_reversal_batch(3000, cfg, gen, split="train")
    test = make_reversal_batch(3000, cfg, gen, split="test")

    def seqs(batch: ReversalBatch) -> set[tuple[int, ...]]:
        return {tuple(batch.src[b, : int(batch.lengths[b])].tolist()) for b in range(batch.src.shape[0])}

    train_set, test_set = seqs(train), seqs(test)
    assert train_set and test_set
    assert not train_set & test_set
    assert len(test_set) > 10  # 평가용 시퀀스가 한두 개로 몰리지 않음
    # 나누는 규칙은 시퀀스 하나에 늘 같은 답을 줍니다.
    flags = _is_heldout(test.src - NUM_SPECIAL, test.lengths, cfg.heldout_mod)
    assert flags.all()


def test_same_generator_seed_gives_the_same_batch():
    cfg = Seq2SeqConfig()
    a = make_reversal_batch(32, cfg, torch.Generator().manual_seed(5), split="test")
    b = make_reversal_batch(32, cfg, torch.Generator().manual_seed(5), split="test")
    for name in ("src", "tgt_in", "tgt_out", "lengths"):
        assert torch.equal(getattr(a, name), getattr(b, name))


def test_token_labels():
    src, tgt_in = batch_of("ABC")
    assert token_labels(src[0])[:5] == ["A", "B", "C", "</s>", "·"]
    assert token_labels(tgt_in[0])[:4] == ["<s>", "C", "B", "A"]
    assert token_labels(torch.tensor([IGNORE_INDEX, EOS])) == ["·", "</s>"]


# ---------------------------------------------------------------------------
# 모델의 모양과 마스크 (학습 없음)
# ---------------------------------------------------------------------------


@pytest.fixture(scope="module")
def untrained() -> Seq2SeqModel:
    torch.manual_seed(0)
    return Seq2SeqModel(Seq2SeqConfig()).eval()


def test_shapes_and_cross_attention_with_l_different_from_s(untrained):
    cfg = untrained.config
    src, tgt_in = batch_of("ABCDEFG", "HIJ", "KLMNO")
    H, V, T = cfg.num_heads, cfg.vocab_size, cfg.max_len + 1
    with torch.no_grad():
        logits, cross = untrained(src, tgt_in)
        assert logits.shape == (3, T, V) and cross.shape == (3, H, T, T)
        # 디코더 쪽을 짧게 잘라도(L = 4 != S = 9) 됩니다.
        logits_short, cross_short = untrained(src, tgt_in[:, :4])
    assert logits_short.shape == (3, 4, V) and cross_short.shape == (3, H, 4, T)
    # 인과 마스크 덕분에 앞 4자리의 결과는 뒤를 잘라도 그대로입니다.
    torch.testing.assert_close(logits_short, logits[:, :4])


def test_every_mask_zeroes_exactly_the_blocked_weights(untrained):
    src, tgt_in = batch_of("ABCDEFG", "HIJ", "KLMNO")
    src_len = (src != PAD).sum(1)  # 기호 + EOS
    tgt_len = (tgt_in != PAD).sum(1)  # BOS + 기호
    with torch.no_grad():
        maps = untrained.attention_maps(src, tgt_in)
    S = src.shape[1]
    key_is_pad = torch.arange(S)[None, :] >= src_len[:, None]  # (B, S)
    cross, enc, dec = maps["cross"], maps["encoder_self"], maps["decoder_self"]
    # 크로스 어텐션: 패딩된 소스 키는 정확히 0, 실제 소스 키는 모두 0보다 큼(인과 마스크 없음)
    assert (cross.masked_select(key_is_pad[:, None, None, :].expand_as(cross)) == 0).all()
    assert (cross.masked_select(~key_is_pad[:, None, None, :].expand_as(cross)) > 0).all()
    assert (enc.masked_select(key_is_pad[:, None, None, :].expand_as(enc)) == 0).all()
    torch.testing.assert_close(cross.sum(-1), torch.ones_like(cross.sum(-1)))
    # 디코더 셀프 어텐션: 미래 키는 정확히 0, 진짜 쿼리 행의 패딩 키도 0
    assert (dec.triu(diagonal=1) == 0).all()
    for b in range(src.shape[0]):
        n = int(tgt_len[b])
        assert (dec[b, :, :, n:] == 0).all()


def test_cross_attention_rows_of_padded_source_do_not_depend_on_padding_content(untrained):
    src, tgt_in = batch_of("ABC")
    with torch.no_grad():
        memory, src_mask, _ = untrained.encode(src)
        base, _, cross = untrained.decode(tgt_in, memory, src_mask)
        noisy = memory.clone()
        noisy[:, 4:] = torch.randn_like(noisy[:, 4:]) * 100  # 패딩 자리의 인코더 출력을 마구 바꿈
        changed, _, cross2 = untrained.decode(tgt_in, noisy, src_mask)
    torch.testing.assert_close(base, changed, rtol=0, atol=0)
    assert torch.equal(cross, cross2)


def test_greedy_decode_never_emits_pad_or_bos(untrained):
    src, _ = batch_of("ABCDEFG", "HIJ")
    out = greedy_decode(untrained, src)
    assert out.shape == (2, untrained.config.max_len + 1)
    assert not ((out == PAD) | (out == BOS)).any()


# ---------------------------------------------------------------------------
# 정렬 정확도 (손으로 만든 가중치)
# ---------------------------------------------------------------------------


def hand_weights(lengths: list[int], L: int = 6, S: int = 7) -> torch.Tensor:
    """헤드 0: 완벽한 반대각선, 헤드 1: 고른 분포, 헤드 2: 대각선, 헤드 3: 한 칸 어긋난 반대각선."""
    B = len(lengths)
    w = torch.zeros(B, 4, L, S)
    for b, n in enumerate(lengths):
        w[b, 1, :, : n + 1] = 1.0 / (n + 1)  # 기호 n개 + EOS에 고르게
        for i in range(L):
            w[b, 0, i, max(n - 1 - i, 0)] = 1.0
            w[b, 2, i, min(i, S - 1)] = 1.0
            w[b, 3, i, min(n - i, S - 1)] = 1.0
    return w


def test_alignment_accuracy_on_hand_made_weights():
    lengths = [5, 3, 4]
    acc = alignment_accuracy(hand_weights(lengths), torch.tensor(lengths))
    assert acc.shape == (4,)
    assert acc[0].item() == 1.0  # 반대각선 = 정답 정렬
    # 고른 분포: argmax는 동점 가운데 첫 위치(0)이고, 그게 정답인 것은 i = n-1인 쿼리뿐 -> 시퀀스마다 1개
    assert acc[1].item() == pytest.approx(len(lengths) / sum(lengths))
    # 대각선은 가운데 자리(i = n-1-i)에서만 맞음: n이 홀수인 시퀀스마다 1개
    assert acc[2].item() == pytest.approx(2 / sum(lengths))
    assert acc[3].item() == 0.0  # 한 칸 어긋나면 하나도 맞지 않음


def test_alignment_ignores_eos_and_padded_query_rows():
    lengths = [3]
    w = hand_weights(lengths)
    w[0, 0, 3:] = 0.0
    w[0, 0, 3:, 6] = 1.0  # EOS를 내는 위치 3과 패딩 위치는 아무 데나 봐도 점수가 같아야 함
    assert alignment_accuracy(w, torch.tensor(lengths))[0].item() == 1.0


def test_alignment_accuracy_rejects_bad_inputs():
    w = hand_weights([3, 4])
    raises_korean(ValueError, lambda: alignment_accuracy(w[0], torch.tensor([3, 4])), "(B, H, L, S)")
    raises_korean(TypeError, lambda: alignment_accuracy(w.long(), torch.tensor([3, 4])), "cross_weights")
    raises_korean(TypeError, lambda: alignment_accuracy(w, [3, 4]), "lengths", "(B,)")
    raises_korean(TypeError, lambda: alignment_accuracy(w, torch.tensor([3.0, 4.0])), "lengths")
    raises_korean(TypeError, lambda: alignment_accuracy(w, torch.tensor([3])), "(2,)")
    raises_korean(ValueError, lambda: alignment_accuracy(w, torch.tensor([3, 0])), "lengths", "1 이상")
    raises_korean(ValueError, lambda: alignment_accuracy(w, torch.tensor([3, 7])), "min(L, S)(=6)")


# ---------------------------------------------------------------------------
# 잘못된 입력
# ---------------------------------------------------------------------------


def test_bad_inputs_raise_korean_errors(untrained):
    raises_korean(ValueError, lambda: Seq2SeqConfig(min_len=5, max_len=4), "min_len(=5)", "max_len(=4)")
    raises_korean(ValueError, lambda: Seq2SeqConfig(num_symbols=27), "num_symbols", "26")
    raises_korean(ValueError, lambda: Seq2SeqConfig(embed_dim=30, num_heads=4), "embed_dim(=30)", "num_heads(=4)")
    raises_korean(ValueError, lambda: Seq2SeqConfig(heldout_mod=1), "heldout_mod")
    raises_korean(ValueError, lambda: Seq2SeqConfig(lr=0.0), "lr")
    raises_korean(TypeError, lambda: Seq2SeqConfig(steps=1.5), "steps")
    raises_korean(ValueError, lambda: make_reversal_batch(4, Seq2SeqConfig(), split="valid"), "split", "valid")
    raises_korean(TypeError, lambda: make_reversal_batch(4, {"steps": 1}), "Seq2SeqConfig", "dict")
    raises_korean(TypeError, lambda: Seq2SeqModel({"steps": 1}), "Seq2SeqConfig")
    src, tgt_in = batch_of("ABC")
    raises_korean(TypeError, lambda: untrained(src.float(), tgt_in), "src", "float32")
    raises_korean(ValueError, lambda: untrained(torch.cat([src, src], 1), tgt_in), "src", "max_len + 1(=9)")
    raises_korean(ValueError, lambda: untrained(src.clamp(max=3) + 100, tgt_in), "vocab_size(=19)")
    holey = src.clone()
    holey[0, 1] = PAD
    raises_korean(ValueError, lambda: untrained(holey, tgt_in), "src", "PAD")
    raises_korean(TypeError, lambda: greedy_decode("model", src), "Seq2SeqModel", "str")
    raises_korean(ValueError, lambda: greedy_decode(untrained, src, steps=10), "steps", "max_len + 1(=9)")
    raises_korean(TypeError, lambda: evaluate_seq2seq(untrained, batch=(src, tgt_in)), "ReversalBatch", "tuple")
    raises_korean(TypeError, lambda: train_seq2seq("0"), "seed")
    raises_korean(ValueError, lambda: train_seq2seq(-1), "seed", "-1")
    raises_korean(TypeError, lambda: train_seq2seq(0, config={"steps": 1}), "Seq2SeqConfig", "dict")
    raises_korean(TypeError, lambda: token_labels([1, 2]), "tokens")
    raises_korean(ValueError, lambda: token_labels(torch.tensor([99])), "99")


# ---------------------------------------------------------------------------
# 학습: 재현성, 정확도, 정렬
# ---------------------------------------------------------------------------


def comparable(metrics: dict) -> str:
    return json.dumps(metrics, sort_keys=True)


def test_same_seed_gives_identical_model_and_metrics_across_calls_and_processes():
    torch.manual_seed(1234)
    threads, rng = torch.get_num_threads(), torch.get_rng_state()
    model_a, first = train_seq2seq(3, SMALL)
    model_b, second = train_seq2seq(3, SMALL)
    assert comparable(first) == comparable(second)  # 같은 float, 허용 오차 없음
    for (name, a), (_, b) in zip(model_a.state_dict().items(), model_b.state_dict().items()):
        assert torch.equal(a, b), name
    assert torch.get_num_threads() == threads, "스레드 수를 되돌려야 합니다"
    assert torch.equal(torch.get_rng_state(), rng), "전역 난수 상태를 되돌려야 합니다"
    _, other_seed = train_seq2seq(4, SMALL)
    assert other_seed["losses"] != first["losses"]
    # 다른 프로세스에서도, 호출한 쪽의 스레드 수·전역 시드가 달라도 같은 값이어야 합니다.
    code = (
        "import json, torch; torch.set_num_threads(2); torch.manual_seed(999)\n"
        "from attn_course.experiments import Seq2SeqConfig, train_seq2seq\n"
        "print(json.dumps(train_seq2seq(3, Seq2SeqConfig(steps=20, test_size=50))[1], sort_keys=True))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert out.stdout.strip() == comparable(first)


@pytest.fixture(scope="module")
def trained() -> tuple[Seq2SeqModel, dict]:
    """챕터와 같은 설정(기본값, 시드 0)으로 한 번 학습."""
    return train_seq2seq(0)


def test_trained_model_reverses_unseen_sequences_with_greedy_decoding(trained):
    _, metrics = trained
    assert metrics["sequence_accuracy"] >= 0.9, metrics
    assert metrics["token_accuracy"] >= metrics["sequence_accuracy"]
    assert metrics["losses"][-1] < 0.1 < metrics["losses"][0]
    assert len(metrics["losses"]) == Seq2SeqConfig().steps


def test_some_cross_attention_head_follows_the_anti_diagonal(trained):
    model, metrics = trained
    assert metrics["best_alignment"] >= 0.9, metrics
    assert metrics["best_alignment"] == max(metrics["alignment"])
    assert metrics["alignment"][metrics["best_head"]] == metrics["best_alignment"]
    assert len(metrics["alignment"]) == model.config.num_heads
    # evaluate를 다시 불러도 같은 값 (평가 데이터가 test_seed로 고정)
    assert comparable(evaluate_seq2seq(model)) == comparable({k: v for k, v in metrics.items() if k != "losses"})


def test_trained_cross_attention_never_looks_at_padded_source(trained):
    model, _ = trained
    cfg = model.config
    batch = make_reversal_batch(300, cfg, torch.Generator().manual_seed(1), split="test")
    with torch.no_grad():
        _, cross = model(batch.src, batch.tgt_in)
    pad_key = (batch.src == PAD)[:, None, None, :].expand_as(cross)  # (B, 1, 1, S) -> (B, H, L, S)
    assert pad_key.any()
    assert (cross[pad_key] == 0).all()


def test_greedy_decoding_matches_the_reversed_source_on_hand_written_examples(trained):
    model, _ = trained
    src, _ = batch_of("ABCDEFGH", "PONM", "AAB")
    out = greedy_decode(model, src)
    for b, row in enumerate(["ABCDEFGH", "PONM", "AAB"]):
        assert token_labels(out[b])[: len(row) + 1] == list(row[::-1]) + ["</s>"]
