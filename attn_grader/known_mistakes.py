"""알려진 틀린 풀이 (코드 문제): 자기 점검의 힌트를 고르는 공개 경우의 출력을 만들고, 테스트가 제출로 씁니다.

``make assignments``는 마스터 풀이에서 이 표의 셀을 바꾼 노트북(틀린 풀이 한 벌마다 하나)을 샌드박스 없이 실행하고,
채점기를 공개 시드로 돌려 그 풀이가 받는 실수의 키(``MISTAKES``)와, 공개 경우마다 그 풀이의 출력을 공개 명세에
적습니다(``public_cases.py``). 학생의 자기 점검은 이 출력과 비교해 채점과 같은 힌트를 고릅니다. 풀이 자체(이 파일)는
강사의 채점 쪽에만 있습니다.

표의 열쇠는 바꿀 셀의 첫 줄 앞부분, 값은 새 셀입니다 (``tests/grading_support.define``과 같은 규칙).
"""

from __future__ import annotations

__all__ = ["WRONG_CODE", "define_cell"]

MHA_HEAD = "def torch_mha_forward(x, mha, key_padding_mask=None):\n"


def mha_source(*, scale: str = "* Dh ** -0.5", ignored: str = "key_padding_mask", call: str = "") -> str:
    """2.4의 풀이를 실수 하나와 함께 (scale: 점수 배율, ignored: -inf로 채울 자리, call: 모듈을 직접 부름).

    다른 문제의 함수(2.3의 split/merge)를 쓰지 않아, 다른 문제의 실수가 이 문제로 번지지 않습니다."""
    if call:
        return MHA_HEAD + f"    return {call}\n"
    return MHA_HEAD + f"""    L, B, E = x.shape
    H = mha.num_heads
    Dh = E // H
    packed = x @ mha.in_proj_weight.T + mha.in_proj_bias
    q, k, v = (part.reshape(L, B, H, Dh).permute(1, 2, 0, 3) for part in packed.split(E, dim=-1))
    logits = q @ k.transpose(-2, -1) {scale}
    if key_padding_mask is not None:
        logits = logits.masked_fill(({ignored})[:, None, None, :], float("-inf"))
    probs = logits.softmax(dim=-1)
    merged = (probs @ v).permute(2, 0, 1, 3).reshape(L, B, E)
    return merged @ mha.out_proj.weight.T + mha.out_proj.bias, probs
"""


GQA_HEAD = "def gqa_attention(query, key, value, attn_mask=None):\n"


def gqa_source(*, group: str = "repeat_interleave(G, dim=1)", scale: str = "/ math.sqrt(query.shape[-1])", output: str = "w @ v") -> str:
    """7.2의 풀이를 실수 하나와 함께 (group: 키·밸류 헤드를 늘리는 방법, output: 밸류 섞기)."""
    return GQA_HEAD + f"""    G = query.shape[1] // key.shape[1]
    k, v = key.{group}, value.{group}
    s = query @ k.transpose(-2, -1) {scale}
    if attn_mask is not None:
        s = s.masked_fill(~attn_mask, float("-inf"))
    w = torch.softmax(s, dim=-1)
    return {output}, w
"""


def cross_source(mask: str) -> str:
    return ("def precompute_cross_kv(mha, encoder_out):\n"
            "    return mha.split_heads(mha.W_k(encoder_out)), mha.split_heads(mha.W_v(encoder_out))\n\n\n"
            "def cross_step(mha, y, K, V, src_mask):\n"
            f"    heads, w = scaled_dot_product_attention(mha.split_heads(mha.W_q(y)), K, V, {mask})\n"
            "    return mha.W_o(mha.merge_heads(heads)), w\n")


def cache_source(*, keys: str = "[past_k, k_new]", values: str = "[past_v, v_new]", attend: str = "k_all, v_all") -> str:
    return f"""def cached_step(mha, x_new, past_k, past_v):
    k_new, v_new = mha.split_heads(mha.W_k(x_new)), mha.split_heads(mha.W_v(x_new))
    k_all, v_all = torch.cat({keys}, dim=-2), torch.cat({values}, dim=-2)
    heads, _ = scaled_dot_product_attention(mha.split_heads(mha.W_q(x_new)), {attend},
                                            enable_gqa=mha.num_kv_heads != mha.num_heads)
    return mha.W_o(mha.merge_heads(heads)), k_all, v_all
"""


ROPE_HEAD = "def rope_pairs(x, start, base=10000.0):\n"


def rope_source(*, halves: bool = False, positions: str = "torch.arange(start, start + L)") -> str:
    """8.1의 풀이를 실수 하나와 함께 (halves: 앞뒤 절반 배치, positions: 행의 위치)."""
    a, b = ("x[..., :Dh // 2]", "x[..., Dh // 2:]") if halves else ("x[..., 0::2]", "x[..., 1::2]")
    join = "torch.cat((a * c - b * s, a * s + b * c), dim=-1)" if halves else \
        "torch.stack((a * c - b * s, a * s + b * c), dim=-1).flatten(-2)"
    return ROPE_HEAD + f"""    L, Dh = x.shape[-2:]
    angle = ({positions}).double()[:, None] * base ** (-torch.arange(0, Dh, 2).double() / Dh)
    c, s = angle.cos().float(), angle.sin().float()
    a, b = {a}, {b}
    return {join}
"""


MERGE_HEAD = "def merge_softmax_states(m1, l1, o1, m2, l2, o2):\n"


def merge_source(*, f1: str = "torch.exp(m1 - base)", f2: str = "torch.exp(m2 - base)", w: str = "a") -> str:
    """10.1의 풀이를 실수 하나와 함께 (f1, f2: 새 기준으로 옮기는 배율, w: 출력을 섞는 가중치 a(맞음) 또는 l)."""
    return MERGE_HEAD + f"""    m = torch.maximum(m1, m2)
    base = torch.nan_to_num(m, neginf=0.0)
    a1, a2 = l1 * {f1}, l2 * {f2}
    total = a1 + a2
    mixed = {w}1[..., None] * o1 + {w}2[..., None] * o2
    return m, total, mixed / total.clamp(min=1e-30)[..., None]
"""


SHARES_HEAD = "def query_for_shares(shares, S, c=20.0):\n    q = torch.zeros(S)\n    for j, p in shares.items():\n"
SPLIT = "def split_heads_seq(x, num_heads):\n    L, B, E = x.shape\n    return x.view(L, B, num_heads, E // num_heads).permute(1, 2, 0, 3)\n\n\n"
KPM_HEAD = "def key_padding_mask_for(lengths, S, side=\"right\"):\n    n = torch.tensor(lengths)[:, None]\n    pos = torch.arange(S)[None, :]\n"
ALIBI_HEAD = "def alibi_causal_mask(L, slope):\n    i, j = torch.arange(L)[:, None], torch.arange(L)[None, :]\n"
SAT_HEAD = "def measure_saturation(d_k, scale, seed=0):\n    g = torch.Generator().manual_seed(seed)\n"
SAT_TAIL = ("    w = torch.softmax(q @ k.T * {scale}, dim=-1)\n    return float((w.amax(dim=-1) >= 0.99).float().mean())\n\n\n"
            "q4_2_ratios = tuple(measure_saturation(256, s) for s in (1.0, 1 / 16, 1 / 256))\n")
ABLATE_HEAD = "def ablate_head(mha, h):\n    m = copy.deepcopy(mha)\n    s = slice(h * m.head_dim, (h + 1) * m.head_dim)\n    with torch.no_grad():\n"


#: 틀린 풀이 한 벌의 이름 -> (바꿀 셀의 첫 줄 앞부분 -> 새 셀). 한 벌이 코드 문제 12개를 모두 한 번씩 틀립니다.
WRONG_CODE: dict[str, dict[str, str]] = {
    "wrong_a": {
        "def query_for_shares": SHARES_HEAD + "        q[j] = c + p\n    return q\n",
        "def split_heads_seq": SPLIT + "def merge_heads_seq(x):\n    B, H, L, Dh = x.shape\n    return x.reshape(L, B, H * Dh)\n",
        MHA_HEAD: mha_source(scale=""),
        "def key_padding_mask_for": KPM_HEAD + "    pad = pos < S - n if side == \"left\" else pos >= n\n    return ~pad\n",
        "def alibi_causal_mask": ALIBI_HEAD + "    return -slope * (i - j).abs().float()\n",
        "def measure_saturation": SAT_HEAD + "    q, k = torch.randn(256, d_k, generator=g), torch.randn(16, d_k, generator=g)\n"
        + SAT_TAIL.format(scale="d_k ** -0.5"),
        "def ablate_head": ABLATE_HEAD + "        m.W_v.weight[:, s] = 0.0\n        m.W_v.bias[s] = 0.0\n    return m\n",
        "def precompute_cross_kv": cross_source("None"),
        GQA_HEAD: gqa_source(group="repeat(1, G, 1, 1)"),
        "def cached_step": cache_source(attend="past_k, past_v"),
        ROPE_HEAD: rope_source(halves=True),
        MERGE_HEAD: merge_source(f1="1.0", f2="1.0"),
    },
    "wrong_b": {
        "def query_for_shares": SHARES_HEAD + "        q[j] = math.log(p)\n    return q\n",
        "def split_heads_seq": SPLIT + "def merge_heads_seq(x):\n    B, H, L, Dh = x.shape\n    return x.permute(2, 0, 1, 3).view(L, B, H * Dh)\n",
        MHA_HEAD: mha_source(ignored="~key_padding_mask"),
        "def key_padding_mask_for": KPM_HEAD + "    pad = pos < S - n if side == \"left\" else pos >= n\n    return pad[:, None, None, :]\n",
        "def alibi_causal_mask": ALIBI_HEAD + "    return (-slope * (i - j).float()).masked_fill(j > i, -1e9)\n",
        "def measure_saturation": SAT_HEAD + "    k = torch.randn(16, d_k, generator=g)\n    q = torch.randn(256, d_k, generator=g)\n"
        + SAT_TAIL.format(scale="scale"),
        "def ablate_head": ABLATE_HEAD + "        m.W_v.weight[s] = 0.0\n    return m\n",
        "def precompute_cross_kv": "from attn_lib import causal_mask\n\n\n"
        + cross_source("src_mask & causal_mask(y.shape[1], K.shape[2])"),
        GQA_HEAD: gqa_source(scale=""),
        "def cached_step": cache_source(keys="[k_new, past_k]", values="[v_new, past_v]"),
        ROPE_HEAD: rope_source(positions="torch.arange(L)"),
        MERGE_HEAD: merge_source(w="l"),
    },
}


def define_cell(nb, prefix: str, source: str) -> None:
    """``prefix``로 시작하는 코드 셀 하나의 내용을 ``source``로 바꿉니다 (하나가 아니면 ``KeyError``).

    Shape:
        - 해당 없음
    """
    cells = [c for c in nb.cells if c.cell_type == "code" and c.source.lstrip().startswith(prefix)]
    if len(cells) != 1:
        raise KeyError(f"{prefix!r}로 시작하는 코드 셀이 하나여야 하는데 {len(cells)}개입니다")
    cells[0].source = source
