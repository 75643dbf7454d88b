"""정적 탐색기(웹사이트, Vega)가 조작기 한 번 바꿀 때 하는 일의 시간 (`make bench`).

빌드된 2장(``_build/html``)을 Debian 의 chromium 으로 열고, 첫 탐색기를 헤드 8개로 둔 뒤 조작기(d_k, 마스크,
스케일링, 위치, 창)를 번갈아 바꿉니다. 잰 것: 신호를 바꾼 때부터 ``view.runAsync()`` 가 끝날 때까지(데이터 흐름 계산과
캔버스 그리기). 기준(순진한 방식): 같은 설정의 명세로 그림을 처음부터 다시 만드는 것(``vegaEmbed`` 새로 부르기:
명세 해석, 컴파일, 계산, 그리기). 둘 다 같은 실행에서 잽니다. 목표: 중앙값 16 ms 이하 (이슈 13, 5항).
빌드된 사이트가 없으면 건너뜁니다 (먼저 ``make book``).
"""

from __future__ import annotations

import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "_build" / "html" / "chapters" / "02_multi_head.html"
GOAL_MS = 16.0

MEASURE_JS = """async ([n, naiveN]) => {
  const root = document.querySelector('.attn-explorer');
  const id = root.id, view = window.__attnExplorers[id];
  const meta = JSON.parse(document.getElementById(id + '-meta').textContent);
  const names = meta.params, dks = meta.dk_choices, masks = meta.masks;
  view.signal(names.heads, 8);
  await view.runAsync();
  // 한 번에 d_k, 마스크, 스케일링, 위치(RoPE), 창을 함께 바꿈 (위치는 4번마다, 창은 5번 가운데 2번 켬)
  const settings = i => ({dk: dks[i % dks.length], mask: masks[(i >> 1) % masks.length], scaled: i % 3 !== 0,
                          pos: (i >> 2) % 2 ? 'rope' : 'none', win: i % 5 < 2 ? 3 : 0});
  const fast = [];
  for (let i = 0; i < n; i++) {
    const s = settings(i);
    const t0 = performance.now();
    view.signal(names.dk, s.dk).signal(names.mask, s.mask).signal(names.scaled, s.scaled)
      .signal(names.pos, s.pos).signal(names.win, s.win);
    await view.runAsync();
    fast.push(performance.now() - t0);
  }
  const specEl = document.getElementById(id + '-spec');  // 웹사이트에서는 빌드가 명세를 파일로 옮김 (data-src)
  const spec = specEl.getAttribute('data-src') ? structuredClone(window.__attnExplorerSpecs[id]) : JSON.parse(specEl.textContent);
  const box = document.createElement('div');
  document.body.appendChild(box);
  const naive = [];
  for (let i = 0; i < naiveN; i++) {
    const s = settings(i);
    for (const p of spec.params) {
      if (p.name === names.dk) p.value = s.dk;
      if (p.name === names.mask) p.value = s.mask;
      if (p.name === names.scaled) p.value = s.scaled;
      if (p.name === names.heads) p.value = 8;
      if (p.name === names.pos) p.value = s.pos;
      if (p.name === names.win) p.value = s.win;
    }
    const t0 = performance.now();
    const result = await window.vegaEmbed(box, spec, {mode: 'vega-lite', renderer: 'canvas', actions: false});
    naive.push(performance.now() - t0);
    result.finalize();
  }
  return {fast, naive};
}"""


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):7.1f} / {min(values):7.1f} / {max(values):7.1f}"


def main() -> int:
    if not PAGE.exists():
        print(f"{PAGE.relative_to(ROOT)} 이 없습니다: 먼저 make book (건너뜀)")
        return 0
    from playwright.sync_api import sync_playwright

    sys.path.insert(0, str(ROOT / "tests"))
    from conftest import CHROMIUM_ARGS, CHROMIUM_PATH  # 브라우저 테스트와 같은 chromium, 같은 인자

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM_PATH, args=CHROMIUM_ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(PAGE.as_uri())
        page.locator(".attn-explorer").first.scroll_into_view_if_needed()
        page.wait_for_selector(".attn-explorer[data-ready]", timeout=60_000)
        got = page.evaluate(MEASURE_JS, [60, 10])
        browser.close()
    fast, naive = got["fast"], got["naive"]
    ratio = statistics.median(naive) / statistics.median(fast)
    print("정적 탐색기 (2장, 헤드 8개, 토큰 5개, 1280 px), 조작기 한 번 바꿀 때 (ms: 중앙값 / 최소 / 최대)")
    print("| 방식 | 횟수 | ms | 배율 |")
    print("|---|---|---|---|")
    print(f"| 순진한 방식 (그림을 처음부터 다시 만들기) | {len(naive)} | {summary(naive)} | 1x |")
    print(f"| 탐색기 (신호만 바꾸고 다시 계산) | {len(fast)} | {summary(fast)} | {ratio:,.0f}x |")
    ok = statistics.median(fast) <= GOAL_MS
    print(f"목표: 중앙값 {statistics.median(fast):.1f} ms <= {GOAL_MS:.0f} ms -> {'충족' if ok else '미달'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
