"""10장의 온라인 소프트맥스 단계 보기(attn_course.explorer.stepper)를 헤드리스 Chromium 에서 (네트워크 없이) 확인합니다.

휴대폰(390 px)과 노트북(1280 px)에서:

- vega 를 사이트에서 불러와 그리고(다른 호스트로 요청 없음, 콘솔 오류 없음), 슬라이더(실제 ``<input type=range>``)를
  움직이면 그림(장면의 막대 높이)과 한 줄 요약이 바뀝니다.
- 단계마다 브라우저가 그린 출력 막대가 ``blockwise_attention``을 앞의 블록 ``k``개에만 부른 값과 같고, 마지막 단계는
  전체 소프트맥스의 어텐션(``F.scaled_dot_product_attention``)과 1e-6 안에서 같습니다 (이 파일에서 따로 계산).
- 그림이 상자 폭 안에 들어갑니다 (가로 스크롤 없음, 캔버스가 상자를 넘지 않음).
- 스크린숏을 ``_build/screenshots/stepper-{phone,laptop}.png`` 에 남깁니다.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest
import torch
import torch.nn.functional as F

from attn_lib import blockwise_attention
from attn_course.explorer.stepper import stepper_example
from conftest import VIEWPORT_OPTIONS, OfflinePage, unexpected_messages

pytestmark = pytest.mark.browser

PAGE = "chapters/10_blockwise"
BLOCK = 4  # 10장이 stepper_html 에 넘기는 블록 크기

READ_JS = """(root) => {
  const view = window.__attnSteppers[root.id];
  const out = {bars: {}, step: Number(root.getAttribute('data-step')),
               line: root.querySelector('.attn-stepper-line').textContent};
  (function rec(mark) {
    for (const it of mark.items || []) {
      const d = it.datum;
      // 층 순서: 막대가 먼저, 참조 눈금(높이 2 px 인 rect)이 나중 -> 처음 만난 것이 막대
      if (mark.marktype === 'rect' && d && d.dim !== undefined && !(d.dim in out.bars)) out.bars[d.dim] = [d.o, it.height];
      for (const m of it.items || []) rec(m);
    }
  })(view.scenegraph().root);
  const canvas = root.querySelector('canvas'), box = root.getBoundingClientRect();
  out.image = canvas.toDataURL();  // 그려진 픽셀
  out.box = root.clientWidth; out.scroll = root.scrollWidth;
  out.canvasRight = canvas.getBoundingClientRect().right - box.left;
  out.page = document.documentElement.scrollWidth; out.viewport = window.innerWidth;
  return out;
}"""


def expected_outputs() -> list[torch.Tensor]:
    q, k, v = stepper_example()
    steps = []
    for stop in range(BLOCK, k.shape[0] + 1, BLOCK):
        steps.append(blockwise_attention(q, k[:stop], v[:stop], block_size=BLOCK)[0][0])  # (Dv,)
    torch.testing.assert_close(steps[-1], F.scaled_dot_product_attention(q, k, v)[0], atol=1e-12, rtol=0)
    return steps


def move_slider(page: Any, root: Any, value: int) -> None:
    """실제 슬라이더를 움직입니다: 값을 넣고 input 이벤트 (사람이 끄는 것과 같은 경로로 Vega 신호가 바뀜)."""
    root.locator("input[type=range]").evaluate(
        "(el, v) => { el.value = String(v); el.dispatchEvent(new Event('input', {bubbles: true})); }", value)
    page.wait_for_function("([id, v]) => document.getElementById(id).getAttribute('data-step') === String(v)",
                           arg=[root.get_attribute("id"), value], timeout=10_000)
    root.evaluate("r => window.__attnSteppers[r.id].runAsync().then(() => true)")


@pytest.mark.parametrize("viewport", ["phone", "laptop"])
def test_slider_steps_converge_to_the_reference_and_fit_the_box(
    viewport: str, open_offline_page: Callable[..., OfflinePage], screenshot_dir: Path
) -> None:
    probe = open_offline_page(**VIEWPORT_OPTIONS[viewport])
    page = probe.page
    probe.goto(PAGE)
    root = page.locator(".attn-stepper").first
    root.scroll_into_view_if_needed()
    page.wait_for_function("() => document.querySelector('.attn-stepper').hasAttribute('data-ready')", timeout=60_000)
    slider = root.locator("input[type=range]")
    assert slider.count() == 1 and slider.get_attribute("max") == "4"
    expected = expected_outputs()
    seen = []
    for step in (1, 2, 3, 4):
        move_slider(page, root, step)
        got = root.evaluate(READ_JS)
        assert got["step"] == step and f"키 블록 {step}/4개" in got["line"]
        drawn = torch.tensor([got["bars"][f"출력 {d}"][0] for d in range(len(got["bars"]))], dtype=torch.float64)
        torch.testing.assert_close(drawn, expected[step - 1], atol=1e-6, rtol=0)  # 그린 막대 = 앞의 k블록 blockwise
        seen.append(got)
        if step == 2:
            root.screenshot(path=str(screenshot_dir / f"stepper-{viewport}-step2.png"))
        # 상자 안에 들어감 (390 px 에서도 가로 스크롤 없음)
        assert got["scroll"] <= got["box"] and got["canvasRight"] <= got["box"] + 0.5, got
        assert got["page"] <= got["viewport"], got
    final = torch.tensor([seen[-1]["bars"][f"출력 {d}"][0] for d in range(3)], dtype=torch.float64)
    q, k, v = stepper_example()
    assert (final - F.scaled_dot_product_attention(q, k, v)[0]).abs().max() < 1e-6  # 마지막 단계 = 참조
    # 슬라이더를 움직이면 그림이 바뀜: 출력 막대의 높이(픽셀)와 캔버스의 픽셀이 단계마다 다름
    heights = [tuple(round(h, 3) for _, h in s["bars"].values()) for s in seen]
    assert len(set(heights)) == 4, heights
    assert len({s["image"] for s in seen}) == 4
    assert not probe.external_requests and not probe.failed_local and not unexpected_messages(probe)
    root.screenshot(path=str(screenshot_dir / f"stepper-{viewport}.png"))
