"""10장의 온라인 소프트맥스 단계 보기(정적 웹사이트, Vega)가 슬라이더 한 번 움직일 때 하는 일의 시간 (`make bench`).

빌드된 10장(``_build/html``)을 Debian 의 chromium 으로 열고, 슬라이더(``<input type=range>``)에 값을 넣어 input 이벤트를
보낸 때부터 ``view.runAsync()``가 끝날 때까지(필터, 데이터 흐름 계산, 캔버스 그리기)를 1 -> 4 블록을 돌며 잽니다.
한 번 데운 뒤 60번, 중앙값 / 가장 짧은 값 / 가장 긴 값. 목표: 중앙값 16 ms 이하 (이슈 29). 빌드된 사이트가 없으면 건너뜁니다.
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "_build" / "html" / "chapters" / "10_blockwise.html"
GOAL_MS = 16.0

MEASURE_JS = """async (n) => {
  const root = document.querySelector('.attn-stepper');
  const view = window.__attnSteppers[root.id], slider = root.querySelector('input[type=range]');
  const max = Number(slider.max), times = [];
  for (let i = -1; i < n; i++) {  // i = -1: 데우기
    const value = String((Number(slider.value) % max) + 1);  // 1 -> 2 -> 3 -> 4 -> 1: 늘 바뀜
    const t0 = performance.now();
    slider.value = value;
    slider.dispatchEvent(new Event('input', {bubbles: true}));
    await view.runAsync();
    if (i >= 0) times.push(performance.now() - t0);
  }
  return times;
}"""


def main() -> int:
    if not PAGE.exists():
        print(f"{PAGE.relative_to(ROOT)} 이 없습니다: 먼저 make book (건너뜀)")
        return 0
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import CHROMIUM_ARGS, CHROMIUM_PATH  # 브라우저 테스트와 같은 chromium, 같은 인자

    rows = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        for width in (390, 1280):
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.goto(PAGE.as_uri())
            page.locator(".attn-stepper").first.scroll_into_view_if_needed()
            page.wait_for_selector(".attn-stepper[data-ready]", timeout=60_000)
            rows.append((width, page.evaluate(MEASURE_JS, 60)))
            page.close()
        browser.close()
    print("단계 보기: 슬라이더 한 번 움직일 때 (ms, 중앙값 / 가장 짧은 값 / 가장 긴 값, 60번)")
    ok = True
    for width, times in rows:
        median = statistics.median(times)
        ok &= median <= GOAL_MS
        print(f"  {width:4d} px: {median:6.2f} / {min(times):6.2f} / {max(times):6.2f}   목표 {GOAL_MS:.0f} ms: "
              f"{'통과' if median <= GOAL_MS else '넘음'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
