"""작은 학습 실험: 시퀀스 뒤집기를 배우는 인코더-디코더와 크로스 어텐션의 정렬.

과제: 기호 ``A, B, C, ...`` 가운데 ``n``개(``min_len <= n <= max_len``)로 된 시퀀스를 거꾸로 씁니다.
토큰 번호 ``0 = PAD``(패딩), ``1 = BOS``(디코더 입력의 시작), ``2 = EOS``(끝), ``3..`` = 기호입니다.
길이 ``T = max_len + 1``인 세 텐서로 한 예를 나타냅니다 (``n = 3``, 소스 ``A B C``일 때)::

    src     = A  B  C  </s> ·  ...   인코더 입력: 기호 n개 + EOS, 뒤는 PAD
    tgt_in  = <s> C  B  A   ·  ...   디코더 입력(교사 강요): BOS + 정답 n개, 뒤는 PAD
    tgt_out = C  B  A  </s> -100 ... 정답: 디코더 위치 i가 맞힐 토큰, 뒤는 손실에서 뺌

정렬(alignment): 디코더 위치 ``i``(``0 <= i < n``)가 맞힐 토큰은 소스 위치 ``n - 1 - i``의 기호이므로,
그 위치의 쿼리가 볼 "정답 키"는 ``n - 1 - i``입니다 (반대각선). EOS를 맞히는 마지막 위치 ``n``과
패딩 위치는 정렬에서 뺍니다.

모델(원래 트랜스포머의 축소판, 잔차 뒤 LayerNorm): 토큰 + 학습된 위치 임베딩 ->
인코더 한 층(셀프 어텐션, 소스 패딩 마스크 + MLP) -> 디코더 한 층(인과 + 타깃 패딩 마스크의 셀프
어텐션, 크로스 어텐션(쿼리 = 디코더, 키 = 밸류 = 인코더 출력, 소스 패딩 마스크) + MLP) -> 로짓.
어텐션은 모두 ``MultiHeadAttention``이고 마스크는 모두 ``attn_lib.masks``로 만듭니다.

이 모듈은 과제(설정, 데이터)와 모델만 둡니다. 디코딩, 평가, 학습 루프는 ``seq2seq_training``에 있습니다.

평가 시퀀스는 학습 시퀀스와 겹치지 않습니다: 기호 시퀀스의 간단한 해시로 시퀀스마다 "학습용"과 "평가용"을 미리 정해 두고
(``_is_heldout``), 학습 데이터는 학습용 시퀀스만 뽑습니다.
"""

from __future__ import annotations

import string
from dataclasses import dataclass

import torch
from torch import Tensor, nn

from attn_lib._checks import check_positive_float, check_positive_int, describe
from attn_lib.attention import MultiHeadAttention
from attn_lib.masks import causal_mask, combine_masks, padding_mask

__all__ = ["Seq2SeqConfig", "ReversalBatch", "Seq2SeqModel", "make_reversal_batch", "token_labels"]

PAD, BOS, EOS = 0, 1, 2  # 특수 토큰 번호
NUM_SPECIAL = 3  # 기호 k의 토큰 번호는 k + 3
IGNORE_INDEX = -100  # 손실·정확도에서 뺄 정답 자리 (F.cross_entropy의 기본 ignore_index)
SPECIAL_LABELS = ("·", "<s>", "</s>")


@dataclass(frozen=True)
class Seq2SeqConfig:
    """시퀀스 뒤집기 실험의 하이퍼파라미터.

    Args:
        num_symbols: 기호 수 (``A``부터, 26 이하). 어휘 크기는 ``num_symbols + 3``.
        min_len: 가장 짧은 시퀀스의 기호 수 ``n``.
        max_len: 가장 긴 시퀀스의 기호 수. 텐서 길이는 ``T = max_len + 1`` (EOS 자리).
        embed_dim: 모델 너비 ``E``.
        num_heads: 모든 어텐션 층의 헤드 수 ``H``.
        mlp_dim: MLP 은닉 너비.
        steps: 옵티마이저(AdamW) 스텝 수.
        batch_size: 스텝마다 새로 뽑는 시퀀스 개수 ``B``.
        lr: 최대 학습률 (처음 10%는 선형으로 올리고, 그 뒤 코사인으로 0까지 내림).
        heldout_mod: 시퀀스 약 ``1/heldout_mod``를 평가용으로 떼어 둡니다.
        test_size: 평가용 시퀀스 개수.
        test_seed: 평가 데이터 시드 (학습 시드와 무관하게 고정).

    Shape:
        - src, tgt_in, tgt_out: ``(B, T)``, 로짓: ``(B, T, V)``, 크로스 어텐션 가중치: ``(B, H, T, T)``
    """

    num_symbols: int = 16
    min_len: int = 3
    max_len: int = 8
    embed_dim: int = 64
    num_heads: int = 4
    mlp_dim: int = 128
    steps: int = 500
    batch_size: int = 64
    lr: float = 3e-3
    heldout_mod: int = 5
    test_size: int = 1000
    test_seed: int = 12345

    def __post_init__(self) -> None:
        for name in ("num_symbols", "min_len", "max_len", "embed_dim", "num_heads", "mlp_dim", "steps",
                     "batch_size", "heldout_mod", "test_size"):
            check_positive_int(getattr(self, name), name)
        if self.num_symbols > len(string.ascii_uppercase):
            raise ValueError(f"num_symbols는 26 이하여야 하는데(기호 A~Z) {self.num_symbols}이(가) 들어왔습니다.")
        if self.min_len > self.max_len:
            raise ValueError(f"min_len(={self.min_len})은 max_len(={self.max_len}) 이하여야 합니다.")
        if self.embed_dim % self.num_heads != 0:
            raise ValueError(f"embed_dim(={self.embed_dim})은 num_heads(={self.num_heads})로 나누어떨어져야 합니다.")
        if self.heldout_mod < 2:
            raise ValueError(f"heldout_mod는 2 이상이어야 하는데(학습용 시퀀스가 남도록) {self.heldout_mod}입니다.")
        check_positive_float(self.lr, "lr")

    @property
    def vocab_size(self) -> int:
        """어휘 크기 ``V = num_symbols + 3`` (PAD, BOS, EOS 포함)."""
        return self.num_symbols + NUM_SPECIAL


@dataclass(frozen=True)
class ReversalBatch:
    """시퀀스 뒤집기 데이터 한 묶음 (모듈 독스트링의 예 참고). ``lengths``는 EOS를 뺀 기호 수 ``n``입니다.

    Shape:
        - src, tgt_in, tgt_out: ``(B, T)`` 정수, ``T = max_len + 1``
        - lengths: ``(B,)`` 정수. 소스·타깃의 실제 길이(패딩 아닌 토큰 수)는 둘 다 ``lengths + 1``
    """

    src: Tensor
    tgt_in: Tensor
    tgt_out: Tensor
    lengths: Tensor


def _is_heldout(symbols: Tensor, lengths: Tensor, mod: int) -> Tensor:
    """평가용 시퀀스인가: ``(sum_i (i+1)(c_i+1) + n) % mod == 0``. 시퀀스 하나가 늘 같은 쪽에 속합니다."""
    T = symbols.shape[1]
    weights = torch.arange(1, T + 1)  # (T,)
    valid = torch.arange(T)[None, :] < lengths[:, None]  # (1, T) < (B, 1) -> (B, T)
    key = ((symbols + 1) * weights * valid).sum(dim=1) + lengths  # (B, T) -> (B,)
    return key % mod == 0


def make_reversal_batch(
    batch_size: int, config: Seq2SeqConfig, generator: torch.Generator | None = None, *, split: str = "train"
) -> ReversalBatch:
    """시퀀스 뒤집기 데이터를 뽑습니다. 길이 ``n``과 기호는 균등하게 뽑고, ``split`` 쪽 시퀀스만 남깁니다.

    Args:
        batch_size: 시퀀스 개수 ``B``.
        config: 하이퍼파라미터.
        generator: 재현용 난수 생성기 (``None``이면 전역 난수).
        split: ``"train"``(학습용 시퀀스) 또는 ``"test"``(평가용 시퀀스). 두 쪽은 겹치지 않습니다.

    Returns:
        ``ReversalBatch``.

    Shape:
        - 반환의 src, tgt_in, tgt_out: ``(B, T)``, lengths: ``(B,)``
    """
    check_positive_int(batch_size, "batch_size")
    if not isinstance(config, Seq2SeqConfig):
        raise TypeError(f"config는 Seq2SeqConfig여야 하는데 {describe(config)}이(가) 들어왔습니다.")
    if split not in ("train", "test"):
        raise ValueError(f"split은 'train' 또는 'test'여야 하는데 {split!r}이(가) 들어왔습니다.")
    T = config.max_len + 1
    kept_symbols, kept_lengths, count = [], [], 0
    while count < batch_size:  # 거절 표본 추출: 다른 쪽 시퀀스는 버리고 모자라면 더 뽑음
        n_draw = 2 * batch_size * config.heldout_mod
        lengths = torch.randint(config.min_len, config.max_len + 1, (n_draw,), generator=generator)  # (N,)
        symbols = torch.randint(config.num_symbols, (n_draw, T), generator=generator)  # (N, T)
        keep = _is_heldout(symbols, lengths, config.heldout_mod) == (split == "test")  # (N,)
        kept_symbols.append(symbols[keep])
        kept_lengths.append(lengths[keep])
        count += int(keep.sum())
    symbols = torch.cat(kept_symbols)[:batch_size]  # (B, T)
    lengths = torch.cat(kept_lengths)[:batch_size]  # (B,)

    pos = torch.arange(T)[None, :]  # (T,) -> (1, T)
    n = lengths[:, None]  # (B,) -> (B, 1)
    content = pos < n  # (B, T): 기호 자리
    reversed_symbols = symbols.gather(1, (n - 1 - pos).clamp(min=0))  # (B, T): i번째 = 기호 n-1-i
    src = torch.where(content, symbols + NUM_SPECIAL, PAD).masked_fill(pos == n, EOS)  # (B, T)
    tgt_out = torch.where(content, reversed_symbols + NUM_SPECIAL, IGNORE_INDEX).masked_fill(pos == n, EOS)
    tgt_in = torch.full_like(src, PAD)  # (B, T)
    tgt_in[:, 0] = BOS
    tgt_in[:, 1:] = torch.where(content[:, :-1], reversed_symbols[:, :-1] + NUM_SPECIAL, PAD)  # 한 칸 밀기
    return ReversalBatch(src=src, tgt_in=tgt_in, tgt_out=tgt_out, lengths=lengths)


def token_labels(
    tokens: Tensor, config: Seq2SeqConfig | None = None, *, pad_label: str = SPECIAL_LABELS[PAD]
) -> list[str]:
    """토큰 번호를 그림에 쓸 이름으로 바꿉니다: PAD ``·``, BOS ``<s>``, EOS ``</s>``, 기호 ``A, B, ...``.

    ``-100``(손실에서 뺀 자리)도 PAD와 같은 이름으로 적습니다. 표에서는 짧은 ``·``가 읽기 좋지만, 그림의 축에서는
    ``·``가 이름 없는(빠진) 자리처럼 보이므로 그림에는 ``pad_label="[PAD]"``를 넘기세요.

    Shape:
        - tokens: ``(T,)`` 정수
        - 반환: 길이 ``T``인 ``list[str]``
    """
    config = Seq2SeqConfig() if config is None else config
    if not isinstance(tokens, Tensor) or tokens.dim() != 1 or tokens.dtype not in (torch.int64, torch.int32):
        raise TypeError(f"tokens는 1차원 정수 텐서여야 하는데 {describe(tokens)}이(가) 들어왔습니다.")
    if not isinstance(pad_label, str) or not pad_label:
        raise TypeError(f"pad_label은 비어 있지 않은 문자열이어야 하는데 {describe(pad_label)}이(가) 들어왔습니다.")
    names = [pad_label, *SPECIAL_LABELS[1:]] + list(string.ascii_uppercase[: config.num_symbols])
    out = []
    for t in tokens.tolist():
        if t == IGNORE_INDEX:
            out.append(pad_label)
        elif 0 <= t < len(names):
            out.append(names[t])
        else:
            raise ValueError(f"토큰 번호는 0 이상 {len(names)} 미만(또는 -100)이어야 하는데 {t}이(가) 있습니다.")
    return out


def _lengths_from_padding(tokens: Tensor, name: str, config: Seq2SeqConfig) -> Tensor:
    """PAD가 아닌 토큰 수. PAD는 오른쪽 끝에만 있어야 합니다 (그래야 길이로 패딩 마스크를 만듦)."""
    if not isinstance(tokens, Tensor) or tokens.dtype not in (torch.int64, torch.int32) or tokens.dim() != 2:
        raise TypeError(f"{name}은(는) (B, T) 모양의 정수 텐서여야 하는데 {describe(tokens)}이(가) 들어왔습니다.")
    T = tokens.shape[1]
    if not 1 <= T <= config.max_len + 1:
        raise ValueError(f"{name}의 길이는 1 이상 max_len + 1(={config.max_len + 1}) 이하여야 하는데 {T}입니다.")
    if tokens.numel() and (tokens.min() < 0 or tokens.max() >= config.vocab_size):
        raise ValueError(
            f"{name}의 토큰 번호는 0 이상 vocab_size(={config.vocab_size}) 미만이어야 하는데 "
            f"범위 [{int(tokens.min())}, {int(tokens.max())}]입니다."
        )
    real = tokens != PAD  # (B, T)
    lengths = real.sum(dim=1)  # (B, T) -> (B,)
    if not torch.equal(real, torch.arange(T)[None, :] < lengths[:, None]):  # (1, T) < (B, 1) -> (B, T)
        raise ValueError(f"{name}의 PAD(0)는 오른쪽 끝에만 있어야 합니다 (실제 토큰 사이에 PAD가 있습니다).")
    return lengths


class Seq2SeqModel(nn.Module):
    """인코더 한 층 + 디코더 한 층짜리 트랜스포머 (잔차 뒤 LayerNorm, 드롭아웃 없음).

    Args:
        config: 하이퍼파라미터.

    Shape:
        - src: ``(B, S)``, tgt_in: ``(B, L)`` 정수 (``S, L <= max_len + 1``, PAD는 오른쪽 끝에만)
        - 반환: ``logits (B, L, V)``, ``cross_weights (B, H, L, S)``
    """

    def __init__(self, config: Seq2SeqConfig) -> None:
        super().__init__()
        if not isinstance(config, Seq2SeqConfig):
            raise TypeError(f"config는 Seq2SeqConfig여야 하는데 {describe(config)}이(가) 들어왔습니다.")
        E, H, V, T = config.embed_dim, config.num_heads, config.vocab_size, config.max_len + 1
        self.config = config
        self.src_tok, self.src_pos = nn.Embedding(V, E), nn.Embedding(T, E)
        self.tgt_tok, self.tgt_pos = nn.Embedding(V, E), nn.Embedding(T, E)
        self.enc_self_attn, self.enc_norm1 = MultiHeadAttention(E, H), nn.LayerNorm(E)
        self.enc_mlp, self.enc_norm2 = _mlp(E, config.mlp_dim), nn.LayerNorm(E)
        self.dec_self_attn, self.dec_norm1 = MultiHeadAttention(E, H), nn.LayerNorm(E)
        self.cross_attn, self.dec_norm2 = MultiHeadAttention(E, H), nn.LayerNorm(E)
        self.dec_mlp, self.dec_norm3 = _mlp(E, config.mlp_dim), nn.LayerNorm(E)
        self.readout = nn.Linear(E, V)

    def encode(self, src: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """인코더: 소스 패딩 마스크를 쓴 셀프 어텐션과 MLP.

        Returns:
            ``(memory, src_mask, enc_weights)``. ``src_mask``는 크로스 어텐션에도 그대로 씁니다.

        Shape:
            - src: ``(B, S)``
            - memory: ``(B, S, E)``, src_mask: ``(B, 1, 1, S)``, enc_weights: ``(B, H, S, S)``
        """
        src_mask = padding_mask(_lengths_from_padding(src, "src", self.config), src.shape[1])  # (B, 1, 1, S)
        x = self.src_tok(src) + self.src_pos(torch.arange(src.shape[1]))  # (B, S, E) + (S, E) -> (B, S, E)
        attn_out, enc_weights = self.enc_self_attn(x, attn_mask=src_mask)
        x = self.enc_norm1(x + attn_out)
        memory = self.enc_norm2(x + self.enc_mlp(x))  # (B, S, E)
        return memory, src_mask, enc_weights

    def decode(self, tgt_in: Tensor, memory: Tensor, src_mask: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        """디코더: 마스크드 셀프 어텐션(인과 + 타깃 패딩), 크로스 어텐션(소스 패딩), MLP, 로짓.

        Returns:
            ``(logits, dec_weights, cross_weights)``.

        Shape:
            - tgt_in: ``(B, L)``, memory: ``(B, S, E)``, src_mask: ``(B, 1, 1, S)``
            - logits: ``(B, L, V)``, dec_weights: ``(B, H, L, L)``, cross_weights: ``(B, H, L, S)``
        """
        L = tgt_in.shape[1]
        tgt_lengths = _lengths_from_padding(tgt_in, "tgt_in", self.config)
        tgt_mask = combine_masks(causal_mask(L), padding_mask(tgt_lengths, L))  # (L, L) & (B, 1, 1, L) -> (B, 1, L, L)
        y = self.tgt_tok(tgt_in) + self.tgt_pos(torch.arange(L))  # (B, L, E) + (L, E) -> (B, L, E)
        attn_out, dec_weights = self.dec_self_attn(y, attn_mask=tgt_mask)
        y = self.dec_norm1(y + attn_out)
        # 크로스 어텐션: 쿼리 = 디코더 상태 (B, L, E), 키 = 밸류 = 인코더 출력 (B, S, E). 인과 마스크는 없음.
        cross_out, cross_weights = self.cross_attn(y, memory, memory, attn_mask=src_mask)
        y = self.dec_norm2(y + cross_out)
        y = self.dec_norm3(y + self.dec_mlp(y))
        return self.readout(y), dec_weights, cross_weights  # (B, L, E) -> (B, L, V)

    def forward(self, src: Tensor, tgt_in: Tensor) -> tuple[Tensor, Tensor]:
        """교사 강요 순전파: 정답 앞부분 ``tgt_in``을 넣어 모든 위치의 로짓을 한 번에 구합니다.

        Shape:
            - src: ``(B, S)``, tgt_in: ``(B, L)``
            - 반환: ``(logits (B, L, V), cross_weights (B, H, L, S))``
        """
        memory, src_mask, _ = self.encode(src)
        logits, _, cross_weights = self.decode(tgt_in, memory, src_mask)
        return logits, cross_weights

    def attention_maps(self, src: Tensor, tgt_in: Tensor) -> dict[str, Tensor]:
        """세 가지 어텐션의 헤드별 가중치를 모두 돌려줍니다.

        Shape:
            - 반환: ``{"encoder_self": (B, H, S, S), "decoder_self": (B, H, L, L), "cross": (B, H, L, S)}``
        """
        memory, src_mask, enc_weights = self.encode(src)
        _, dec_weights, cross_weights = self.decode(tgt_in, memory, src_mask)
        return {"encoder_self": enc_weights, "decoder_self": dec_weights, "cross": cross_weights}


def _mlp(E: int, hidden: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(E, hidden), nn.ReLU(), nn.Linear(hidden, E))
