"""10장의 온라인 소프트맥스 단계 보기(attn_course.explorer.stepper): 단계마다의 상태가 정의대로인지, 마지막 단계가 전체
소프트맥스와 같은지, 페이지에 싣는 데이터가 그 값인지. 브라우저 쪽은 tests/test_stepper_browser.py."""

from __future__ import annotations

import json
import re

import pytest
import torch
import torch.nn.functional as F

from attn_course.explorer.stepper import online_softmax_steps, stepper_example, stepper_html


@pytest.mark.parametrize("block_size", [1, 3, 4, 16, 40])  # 16을 나누지 않는 3, S보다 큰 40
def test_each_step_is_attention_over_the_keys_seen_so_far(block_size):
    q, k, v = stepper_example()
    got = online_softmax_steps(q, k, v, block_size=block_size)
    S = k.shape[0]
    assert [st["keys"] for st in got["steps"]] == [min(b, S) for b in range(block_size, S + block_size, block_size)]
    prev_m, prev_l = None, None
    for st in got["steps"]:
        n = st["keys"]
        s = (q @ k[:n].T) / 8 ** 0.5  # (1, n): 이 단계까지 본 점수
        torch.testing.assert_close(st["output"], F.scaled_dot_product_attention(q, k[:n], v[:n]), atol=1e-12, rtol=0)
        torch.testing.assert_close(st["m"], s.amax(-1), atol=1e-12, rtol=0)
        torch.testing.assert_close(st["l"], torch.exp(s - s.amax(-1, keepdim=True)).sum(-1), atol=1e-12, rtol=0)
        if prev_m is not None:  # 되풀이: ℓ_k = α ℓ_{k-1} + Σ_{새 블록} exp(s_j - m_k)
            new = torch.exp(s[:, n - (n - prev_n):] - st["m"][:, None]).sum(-1)
            torch.testing.assert_close(st["l"], st["alpha"] * prev_l + new, atol=1e-12, rtol=0)
            torch.testing.assert_close(st["alpha"], torch.exp(prev_m - st["m"]), atol=1e-12, rtol=0)
        else:
            assert torch.equal(st["alpha"], torch.zeros(1, dtype=torch.float64))  # m_0 = -inf
        prev_m, prev_l, prev_n = st["m"], st["l"], n


def test_last_step_equals_the_full_softmax_and_intermediate_steps_do_not():
    q, k, v = stepper_example()
    got = online_softmax_steps(q, k, v, block_size=4)
    last, ref = got["steps"][-1], got["reference"]
    torch.testing.assert_close(last["output"], F.scaled_dot_product_attention(q, k, v), atol=1e-12, rtol=0)
    torch.testing.assert_close(last["weights"], torch.softmax((q @ k.T) / 8 ** 0.5, -1), atol=1e-12, rtol=0)
    torch.testing.assert_close(last["lse"], ref["lse"], atol=1e-12, rtol=0)
    for st in got["steps"][:-1]:  # 앞 단계는 아직 다름 (검사가 같은 값만 비교하는 것이 아님)
        assert (st["output"] - ref["output"]).abs().max() > 1e-3
    ms = [float(st["m"][0]) for st in got["steps"]]
    assert all(b > a for a, b in zip(ms, ms[1:]))  # 기본 예에서는 블록마다 최댓값이 커짐 (배율 α < 1이 보임)


def test_page_data_are_the_computed_steps():
    q, k, v = stepper_example()
    html = stepper_html(q, k, v, block_size=4)
    uid = re.search(r'<div class="attn-stepper" id="([^"]+)"', html).group(1)
    spec = json.loads(re.search(rf'id="{uid}-spec">(.*?)</script>', html, re.S).group(1))
    meta = json.loads(re.search(rf'id="{uid}-meta">(.*?)</script>', html, re.S).group(1))
    param = spec["params"][0]
    assert param["name"] == meta["param"] and param["bind"]["max"] == meta["blocks"] == 4 == len(meta["lines"])
    ref = F.scaled_dot_product_attention(q, k, v)[0]
    last = [r for r in spec["datasets"]["dims"] if r["step"] == 4]
    assert max(abs(r["o"] - float(ref[i])) for i, r in enumerate(last)) < 1e-12
    assert [r["step"] for r in spec["datasets"]["state"]] == [1, 2, 3, 4]
    assert "최대 차이" in meta["lines"][-1]


@pytest.mark.parametrize("args, words", [
    ((torch.zeros(1, 4, 8),), "query는 \\(L, Dh\\)"),
    ((torch.zeros(1, 8),), "block_size"),
])
def test_bad_inputs_are_refused_in_korean(args, words):
    q, k, v = stepper_example()
    block = 0 if words == "block_size" else 4
    query = args[0].double()
    with pytest.raises((ValueError, TypeError), match=words):
        online_softmax_steps(query, k if query.dim() == 2 else k[None], v if query.dim() == 2 else v[None],
                             block_size=block)
