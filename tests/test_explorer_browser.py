"""정적 웹사이트의 어텐션 탐색기를 헤드리스 Chromium 에서 (네트워크 없이) 확인합니다.

- 목차의 페이지 가운데 탐색기가 있는 페이지마다: vega/vega-lite/vega-embed 를 사이트에서 불러와
  그리는지, 다른 호스트로 요청하지 않는지, 죽은 ipywidgets 조작기가 보이지 않는지, 데이터 예산.
- 같은 숫자: 탐색기마다 무작위 격자점 24개(마스크 네 가지와 스케일링 켬/끔을 모두 포함)에서
  조작기(Vega 신호)를 바꾸고, 브라우저가 그린 히트맵 칸의 가중치를 attn_lib 으로 다시 계산한 값과
  비교합니다 (atol 1e-3). 포화 비율과 평균 엔트로피 글도 확인합니다.
- require.js 가 없는 페이지(위젯 없는 페이지)의 불러오기 경로도 확인합니다.
- 조작기를 바꾼 뒤 다시 그리기까지의 시간을 재서 출력합니다 (벤치마크, 단정하지 않음).
  결과는 ``_build/screenshots/explorer_redraw.json`` 에도 남습니다.
- 화면: 데스크톱(1280)과 휴대폰(390) 스크린숏을 ``_build/screenshots/`` 에 남깁니다.
"""

from __future__ import annotations

import gzip
import json
import random
import re
import statistics
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from attn_course.viz.describe import describe_heads
from attn_course.explorer.model import ExplorerModel, shown_tokens
from attn_lib import attention_entropy, saturation
from conftest import PHONE_VIEWPORT, VIEWPORT_OPTIONS, OfflinePage, read_toc_docnames, scroll_to_explorers, unexpected_messages

pytestmark = pytest.mark.browser

TOC_DOCNAMES = read_toc_docnames()
VEGA_FILES = ("vega.min.js", "vega-lite.min.js", "vega-embed.min.js")
DATA_BUDGET = 250_000  # 탐색기 데이터의 전송량(gzip) 예산, 바이트
POINTS_PER_EXPLORER = 24

# 브라우저 쪽 도우미: 그려진 히트맵 칸 읽기, 조작기 바꾸기, 다시 그리는 시간 재기
PROBE_JS = """
() => {
  function meta(id) { return JSON.parse(document.getElementById(id + "-meta").textContent); }
  function walk(view, visit) {
    (function rec(mark) {
      visit(mark);
      for (const it of mark.items || []) for (const m of it.items || []) rec(m);
    })(view.scenegraph().root);
  }
  function read(view) {
    const cells = [], texts = [];
    walk(view, mark => {
      if (mark.marktype === "rect") {
        for (const it of mark.items) {
          const d = it.datum;
          if (d && d.w !== undefined && d.k !== undefined && d.h !== undefined) cells.push([d.h, d.q, d.k, d.w]);
        }
      }
      if (mark.marktype === "text") for (const it of mark.items) if (it.text) texts.push(Array.isArray(it.text) ? it.text.join(" ") : String(it.text));  // 여러 줄 글은 배열
    });
    return {cells: cells, texts: texts};
  }
  async function setAndRead(id, pt) {
    const view = window.__attnExplorers[id], names = meta(id).params;
    view.signal(names.dk, pt.dk).signal(names.heads, pt.heads)
        .signal(names.kv, pt.kv === undefined ? pt.heads : pt.kv)
        .signal(names.mask, pt.mask).signal(names.scaled, pt.scaled)
        .signal(names.pos, pt.pos || "none").signal(names.win, pt.win || 0);
    await view.runAsync();
    return read(view);
  }
  async function timeRedraws(id, n) {
    const view = window.__attnExplorers[id], m = meta(id), names = m.params;
    const frame = () => new Promise(resolve => requestAnimationFrame(() => resolve()));
    const run = [], painted = [];
    await frame();
    for (let i = 0; i < n; i++) {
      const change = [[names.dk, m.dk_choices[(i * 3) % m.dk_choices.length]],
                      [names.heads, m.heads_choices[(i * 2) % m.heads_choices.length]],
                      [names.mask, m.masks[i % m.masks.length]],
                      [names.scaled, i % 8 < 4]][i % 4];
      const t0 = performance.now();
      view.signal(change[0], change[1]);
      await view.runAsync();            // 데이터 흐름 + 캔버스에 다시 그리기
      const t1 = performance.now();
      await frame();                    // 다음 화면 갱신
      run.push(t1 - t0);
      painted.push(performance.now() - t0);
    }
    return {run: run, painted: painted};
  }
  window.__attnProbe = {setAndRead: setAndRead, timeRedraws: timeRedraws, read: read};
}
"""


def explorer_pages(html_dir: Path) -> list[str]:
    return [d for d in TOC_DOCNAMES if 'class="attn-explorer"' in (html_dir / f"{d}.html").read_text(encoding="utf-8")]


def open_explorers(open_page: Callable[..., OfflinePage], docname: str, **kwargs: Any) -> tuple[OfflinePage, list]:
    probe = open_page(**kwargs)
    response = probe.goto(docname)
    assert response is not None and response.ok, f"{docname}: HTTP {response and response.status}"
    n = scroll_to_explorers(probe.page)
    probe.page.evaluate(PROBE_JS)
    metas = probe.page.evaluate(
        """() => Array.from(document.querySelectorAll('.attn-explorer-meta'))
                 .map(s => [s.id.replace(/-meta$/, ''), JSON.parse(s.textContent)])""")
    assert len(metas) == n
    return probe, metas


def expected(meta: dict, model: ExplorerModel, pt: dict):
    tokens = shown_tokens(meta["tokens"], pt["mask"])
    kv = min(pt.get("kv", pt["heads"]), pt["heads"])  # 헤드 수보다 큰 KV 헤드 수는 헤드 수로 봄
    position = pt.get("pos", "none")
    kv = pt["heads"] if position == "rope" else kv  # 정적 탐색기: RoPE면 KV 헤드 수 = 헤드 수 (static_data)
    weights, *_ = model.weights(tokens, d_k=pt["dk"], num_heads=pt["heads"], mask=pt["mask"], scaled=pt["scaled"],
                                num_kv_heads=kv, position=position, window=pt.get("win") or None)
    return weights


def grid_points(meta: dict, rng: random.Random) -> list[dict]:
    points = [{"dk": rng.choice(meta["dk_choices"]), "heads": rng.choice(meta["heads_choices"]),
               "kv": rng.choice(meta["heads_choices"]),
               "mask": meta["masks"][i % 4], "scaled": (i // 4) % 2 == 0,
               "pos": ("none", "rope")[(i // 3) % 2], "win": (0, 3)[(i // 2) % 2]} for i in range(POINTS_PER_EXPLORER)]
    assert any(p["kv"] < p["heads"] for p in points)  # 그룹 쿼리 어텐션인 점도 있음
    # 위치(없음/RoPE)와 창(전체/3)의 네 조합이 모두 있음
    assert {(p["pos"], p["win"]) for p in points} == {("none", 0), ("none", 3), ("rope", 0), ("rope", 3)}
    assert {p["mask"] for p in points} == set(meta["masks"]) and {p["scaled"] for p in points} == {True, False}
    return points


@pytest.fixture(scope="module")
def pages(html_dir: Path) -> list[str]:
    found = explorer_pages(html_dir)
    assert found, "목차의 어느 페이지에도 정적 탐색기가 없습니다 (02_multi_head 에 있어야 함)"
    assert "chapters/02_multi_head" in found
    return found


def test_vega_is_served_by_the_site(html_dir: Path) -> None:
    for name in VEGA_FILES:
        path = html_dir / "_static" / "vendor" / "vega" / name
        assert path.is_file() and path.stat().st_size > 10_000, f"사이트에 없는 자산: {path}"
    for page in html_dir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        assert not re.search(r"(cdn\.jsdelivr\.net|unpkg\.com)/(npm/)?vega", html), f"{page}: vega CDN 주소"


def test_static_explorer_pages_have_no_dead_widgets_and_fit_the_budget(html_dir: Path, pages: list[str]) -> None:
    for docname in pages:
        html = (html_dir / f"{docname}.html").read_text(encoding="utf-8")
        # 명세는 빌드가 페이지 밖 파일로 옮깁니다 (attn_site/site_speed.py): 페이지 HTML 에는 data-src 만
        inline = re.findall(r'<script type="application/json" id="attn-explorer-[0-9a-f]+-spec">(.+?)</script>', html, re.S)
        assert not inline, f"{docname}: 탐색기 명세가 페이지 HTML 안에 남아 있습니다 ({len(inline)}개)"
        sources = re.findall(r'<script type="application/json" id="(attn-explorer-[0-9a-f]+)-spec" data-src="([^"]+)">', html)
        specs = []
        for uid, src in sources:
            script = (html_dir / docname).parent.joinpath(src).resolve().read_text(encoding="utf-8")
            prefix = f"(window.__attnExplorerSpecs = window.__attnExplorerSpecs || {{}})[{uid!r}] = "
            assert script.startswith(prefix) and script.endswith(";\n"), f"{docname}: {src} 의 모양이 다릅니다"
            specs.append(script[len(prefix):-2])
            json.loads(specs[-1])
        raw = sum(len(m.encode("utf-8")) for m in specs)
        data = sum(len(gzip.compress(m.encode("utf-8"))) for m in specs)
        print(f"\n{docname}: 정적 탐색기 데이터 {raw:,} 바이트, gzip {data:,} 바이트 (예산 {DATA_BUDGET:,})")
        assert 0 < data < DATA_BUDGET, f"{docname}: 탐색기 데이터 gzip {data:,} 바이트"
        # 탐색기 위젯(VBox, 조작기, 그림)의 상태는 페이지에서 빠져 있어야 합니다 (보이지 않는 죽은 조작기)
        state = re.search(r'<script type="application/vnd\.jupyter\.widget-state\+json">(.*?)</script>', html, re.S)
        if state:
            models = json.loads(state.group(1).replace(r"<\/", "</"))["state"]
            names = [m["model_name"] for m in models.values()]
            assert "SelectionSliderModel" not in names and "ToggleButtonsModel" not in names, (
                f"{docname}: 탐색기의 위젯 상태가 페이지에 남아 있습니다: {sorted(set(names))}")


def test_explorers_draw_the_same_numbers_as_attn_lib(
    open_offline_page: Callable[..., OfflinePage], pages: list[str], screenshot_dir: Path
) -> None:
    rng = random.Random(20261121)
    checked = 0
    for docname in pages:
        probe, metas = open_explorers(open_offline_page, docname)
        page = probe.page
        assert not unexpected_messages(probe), f"{docname}: 페이지/콘솔 오류 {probe.page_errors + probe.console_errors}"
        assert not probe.external_requests, f"{docname}: 다른 호스트로 요청 {probe.external_requests}"
        assert not probe.failed_local, probe.failed_local
        loaded = [p for p in probe.local_responses if "/_static/vendor/vega/" in p]
        assert len(loaded) == 3 and all(probe.local_responses[p] == 200 for p in loaded), loaded
        for eid, meta in metas:
            root = page.locator(f"#{eid}")
            # 죽은 ipywidgets 조작기 대신 Vega 조작기: 같은 출력 안에 jupyter-widgets 가 없음
            cell = root.locator("xpath=ancestor::div[contains(@class, 'cell_output')][1]")
            assert cell.locator(".jupyter-widgets, .widget-subarea").count() == 0, f"{docname}: 죽은 위젯"
            assert root.locator(".vega-bind").count() == 7  # d_k, 헤드 수, KV 헤드 수, 마스크, 스케일링, 위치, 창
            assert root.locator("canvas").count() == 1
            model = ExplorerModel(meta["seed"])
            for pt in grid_points(meta, rng):
                drawn = page.evaluate("([id, pt]) => window.__attnProbe.setAndRead(id, pt)", [eid, pt])
                want = expected(meta, model, pt)
                got = np.full(tuple(want.shape), np.nan)
                for h, q, k, w in drawn["cells"]:
                    got[h, q, k] = w
                assert not np.isnan(got).any(), f"{docname} {pt}: 빈 칸 {int(np.isnan(got).sum())}개"
                np.testing.assert_allclose(got, want.numpy(), atol=1e-3, err_msg=f"{docname} {eid} {pt}")
                label = next(t for t in drawn["texts"] if t.startswith("포화 히스토그램: 포화 행 "))
                share, entropy = map(float, re.findall(r"([\d.]+)(?:%| nat)", label))
                assert abs(share - 100 * float(saturation(want))) <= 0.51, (label, pt)
                assert abs(entropy - float(attention_entropy(want).mean())) <= 0.0051, (label, pt)
                checked += 1
            root.scroll_into_view_if_needed()
            root.screenshot(path=str(screenshot_dir / f"explorer__{docname.replace('/', '__')}__{eid}.png"))
        assert not unexpected_messages(probe), f"{docname}: 페이지/콘솔 오류 {probe.page_errors + probe.console_errors}"
    assert checked >= 20


def test_explorer_loads_vega_only_when_it_comes_near_the_screen(
    open_offline_page: Callable[..., OfflinePage], pages: list[str]
) -> None:
    """페이지를 연 순간에는 vega 를 받지 않고(화면에서 먼 탐색기), 탐색기로 내려가면 받아서 그립니다."""
    probe = open_offline_page()
    vega_requests: list[str] = []
    probe.page.on("request", lambda r: vega_requests.append(r.url) if "/vendor/vega/" in r.url else None)
    probe.goto("chapters/04_scaling")
    far = probe.page.evaluate("() => document.querySelector('.attn-explorer').getBoundingClientRect().top")
    assert far > 800 + 800 + 100, f"탐색기가 첫 화면 가까이에 있어 이 검사가 뜻이 없습니다 (top={far})"
    probe.page.wait_for_load_state("load")
    probe.page.wait_for_timeout(500)
    assert vega_requests == [] and probe.page.locator(".attn-explorer[data-ready]").count() == 0
    scroll_to_explorers(probe.page)
    assert any(u.split("?")[0].endswith("vega.min.js") for u in vega_requests), vega_requests


def test_explorer_loads_without_require_js(open_offline_page: Callable[..., OfflinePage], pages: list[str]) -> None:
    """위젯이 없는 페이지에는 require.js 가 없습니다: 그때는 script 태그로 vega 를 불러옵니다."""
    probe = open_offline_page()
    probe.page.route("**/vendor/requirejs/require.js*", lambda route: route.abort())
    probe.page.route("**/vendor/html-manager/embed-amd.js*", lambda route: route.abort())
    probe.goto(pages[0])
    scroll_to_explorers(probe.page)
    assert probe.page.evaluate("() => typeof window.define") == "undefined"
    assert probe.page.evaluate("() => typeof window.vegaEmbed") == "function"
    vega_errors = [e for e in probe.page_errors if re.search(r"vega|attn|define", e, re.I)]
    assert not vega_errors, vega_errors


def test_redraw_time_after_a_control_change(
    open_offline_page: Callable[..., OfflinePage], pages: list[str], screenshot_dir: Path
) -> None:
    """벤치마크: 조작기 하나를 바꾼 뒤 다시 그리기(runAsync)와 다음 화면 갱신까지의 시간 (ms)."""
    report = {}
    for docname in pages:
        probe, metas = open_explorers(open_offline_page, docname)
        for eid, meta in metas:
            times = probe.page.evaluate("([id]) => window.__attnProbe.timeRedraws(id, 40)", [eid])
            run, painted = times["run"], times["painted"]
            report[f"{docname}#{eid}"] = {
                "run_median_ms": statistics.median(run), "run_max_ms": max(run),
                "to_next_frame_median_ms": statistics.median(painted), "to_next_frame_max_ms": max(painted),
                "tokens": meta["tokens"], "data_bytes": meta["data_bytes"],
            }
            print(f"\n{docname} {eid}: 다시 그리기 중앙값 {statistics.median(run):.1f} ms (최대 {max(run):.1f}), "
                  f"다음 화면까지 중앙값 {statistics.median(painted):.1f} ms (최대 {max(painted):.1f}); "
                  f"한 프레임 = 16.7 ms")
    (screenshot_dir / "explorer_redraw.json").write_text(json.dumps(report, ensure_ascii=False, indent=1))
    assert report


@pytest.mark.parametrize("viewport", ["laptop", "phone"])
def test_explorer_screenshots(
    open_offline_page: Callable[..., OfflinePage], pages: list[str], screenshot_dir: Path, viewport: str
) -> None:
    kwargs = VIEWPORT_OPTIONS[viewport]
    probe, metas = open_explorers(open_offline_page, pages[0], **kwargs)
    root = probe.page.locator(f"#{metas[0][0]}")
    root.scroll_into_view_if_needed()
    path = screenshot_dir / f"explorer__{viewport}.png"
    probe.page.screenshot(path=str(path))
    assert path.stat().st_size > 5_000
    box = root.bounding_box()
    width = probe.page.evaluate("() => document.documentElement.clientWidth")
    assert box is not None and box["width"] <= width + 1, f"탐색기가 화면보다 넓습니다: {box} > {width}"
    assert not unexpected_messages(probe), probe.page_errors + probe.console_errors


# ---------------------------------------------------------------------------------------
# 진짜 입력으로 조작하기 (real clicks and keys, not Vega signals)
# ---------------------------------------------------------------------------------------

# 조작기 묶음에 잡기 단계(capture) 리스너를 두어, 사용자 입력 이벤트가 일어난 시각을 기록합니다.
# settle(): Vega 가 데이터 흐름과 캔버스 그리기를 마치고(runAsync) 다음 화면 갱신까지 기다린 뒤
# 그려진 칸과 글, 그리고 입력부터 그때까지 걸린 시간(ms)을 돌려줍니다.
INPUT_CLOCK_JS = """
() => {
  window.__attnT0 = {};
  document.querySelectorAll('.attn-explorer').forEach(root => {
    const mark = () => { window.__attnT0[root.id] = performance.now(); };
    const controls = root.querySelector('.attn-explorer-controls');
    controls.addEventListener('input', mark, true);
    controls.addEventListener('change', mark, true);
  });
  window.__attnSettle = async (id) => {
    const view = window.__attnExplorers[id];
    await view.runAsync();
    await new Promise(resolve => requestAnimationFrame(() => resolve()));
    const t0 = window.__attnT0[id];
    const drawn = window.__attnProbe.read(view);
    drawn.ms = t0 === undefined ? null : performance.now() - t0;
    delete window.__attnT0[id];
    return drawn;
  };
}
"""

CONTROL_STATE_JS = """
(root) => {
  const selects = root.querySelectorAll('select');  // d_k, KV 헤드 수
  // 라디오 묶음의 순서: 헤드 수, 마스크, 위치, 창 (spec.py 의 params 순서)
  const [heads, mask, pos, win] = Array.from(root.querySelectorAll('input[type=radio]:checked'));
  return {dk: Number(selects[0].value), heads: Number(heads.value), kv: Number(selects[1].value), mask: mask.value,
          scaled: root.querySelector('input[type=checkbox]').checked, pos: pos.value, win: Number(win.value)};
}
"""


def _cells(drawn: dict, shape: tuple[int, ...]) -> np.ndarray:
    got = np.full(shape, np.nan)
    for h, q, k, w in drawn["cells"]:
        got[h, q, k] = w
    return got


def test_explorer_controls_respond_to_real_clicks_and_keys(
    open_offline_page: Callable[..., OfflinePage], pages: list[str], screenshot_dir: Path
) -> None:
    """조작기마다 마우스 클릭이나 키보드로 바꾸고, 다시 그린 히트맵이 attn_lib 의 계산과 같은지 봅니다.

    - d_k: 선택 상자에 초점을 두고 ↓ 키 (키보드)
    - 헤드 수: 다른 값의 라벨을 마우스로 클릭
    - 마스크: 고른 라디오에 초점을 두고 → 키 (키보드), 그리고 '패딩' 라벨 클릭
    - 스케일링: 체크박스 클릭, 그다음 Space 키 (키보드)
    매번 조작기의 DOM 상태가 의도한 값인지, 그림이 바뀌었는지, 그려진 가중치가 attn_lib 과 같은지
    (atol 1e-3), 그림 아래 글 요약이 ``describe_heads`` 와 같은지 확인하고, 입력에서 다음 화면까지의 시간을 잽니다 (벤치마크, 단정하지 않음).
    """
    timings: dict[str, list[float]] = {}
    steps_checked = 0
    for docname in pages:
        probe, metas = open_explorers(open_offline_page, docname)
        page = probe.page
        page.evaluate(INPUT_CLOCK_JS)
        for eid, meta in metas:
            root = page.locator(f"#{eid}")
            root.scroll_into_view_if_needed()
            model = ExplorerModel(meta["seed"])
            # 라디오 묶음은 화면 낭독기에 이름 있는 묶음이어야 합니다 (role=radiogroup + 한국어 이름)
            groups = root.locator("[role=radiogroup]").evaluate_all(
                "els => els.map(g => document.getElementById(g.getAttribute('aria-labelledby')).textContent.trim())")
            assert groups == ["헤드 수", "마스크", "위치", "창"], f"{docname}: 라디오 묶음 이름 {groups}"
            state = root.evaluate(CONTROL_STATE_JS)
            previous = page.evaluate("(id) => window.__attnSettle(id)", eid)
            mask_order = list(meta["masks"])

            def act(name: str, do: Callable[[], None], want: dict) -> None:
                nonlocal previous, steps_checked
                do()
                drawn = page.evaluate("(id) => window.__attnSettle(id)", eid)
                now = root.evaluate(CONTROL_STATE_JS)
                assert now == want, f"{docname} {name}: 조작기 상태 {now}, 기대 {want}"
                weights = expected(meta, model, now)
                got = _cells(drawn, tuple(weights.shape))
                assert not np.isnan(got).any(), f"{docname} {name}: 빈 칸 {int(np.isnan(got).sum())}개"
                np.testing.assert_allclose(got, weights.numpy(), atol=1e-3, err_msg=f"{docname} {eid} {name} {now}")
                assert sorted(drawn["cells"]) != sorted(previous["cells"]), f"{docname} {name}: 그림이 그대로입니다"
                assert drawn["ms"] is not None, f"{docname} {name}: 입력 이벤트가 일어나지 않았습니다"
                # 그림 아래 글 요약(aria-live)도 같은 상태의 describe_heads 와 같아야 합니다
                lines = root.locator(f"#{eid}-summary li").all_text_contents()
                shown = shown_tokens(meta["tokens"], now["mask"])
                assert lines == describe_heads(weights, shown, shown), f"{docname} {name}: 글 요약이 그림과 다릅니다"
                timings.setdefault(name, []).append(drawn["ms"])
                previous = drawn
                steps_checked += 1

            # 1) d_k: 키보드 ↓ (마지막 값이면 ↑)
            choices = list(meta["dk_choices"])
            i = choices.index(state["dk"])
            key, j = ("ArrowDown", i + 1) if i + 1 < len(choices) else ("ArrowUp", i - 1)
            state = {**state, "dk": choices[j]}
            act("d_k (키보드)", lambda: (root.locator("select").first.focus(), page.keyboard.press(key)), state)

            # 2) 헤드 수: 다른 값을 마우스로 클릭
            heads = next(h for h in meta["heads_choices"] if h != state["heads"] and h <= meta["max_heads"])
            state = {**state, "heads": heads}
            act("헤드 수 (클릭)", lambda: root.locator(f"label:has(> input[type=radio][value='{heads}'])").click(), state)

            # 3) 마스크: 고른 라디오에 초점, → 키
            current = root.locator("input[type=radio]:checked").nth(1)
            nxt = mask_order[(mask_order.index(state["mask"]) + 1) % len(mask_order)]
            state = {**state, "mask": nxt}
            act("마스크 (키보드)", lambda: (current.focus(), page.keyboard.press("ArrowRight")), state)

            # 4) 마스크: '패딩'이 든 값을 라벨 클릭 (지금 값과 다른 것)
            pad = next(m for m in mask_order if "padding" in m and m != state["mask"])
            state = {**state, "mask": pad}
            act("마스크 (클릭)", lambda: root.locator(f"label:has(> input[type=radio][value='{pad}'])").click(), state)

            # 5) 스케일링: 클릭, 6) Space 키로 되돌리기
            checkbox = root.locator("input[type=checkbox]")
            state = {**state, "scaled": not state["scaled"]}
            act("스케일링 (클릭)", lambda: checkbox.click(), state)
            state = {**state, "scaled": not state["scaled"]}
            act("스케일링 (Space)", lambda: (checkbox.focus(), page.keyboard.press("Space")), state)

            # 7) 헤드 8개를 클릭하고, 8) KV 헤드 수를 2로 골라 그룹 쿼리 어텐션으로 (선택 상자에서 고르기)
            if state["heads"] != 8:
                state = {**state, "heads": 8}
                act("헤드 8개 (클릭)", lambda: root.locator("label:has(> input[type=radio][value='8'])").click(), state)
            if state["kv"] == 2:  # 7장 탐색기는 KV 헤드 2개로 시작: 먼저 4개로 바꿔 둠
                state = {**state, "kv": 4}
                act("KV 헤드 수 4 (선택)", lambda: root.locator("select").nth(1).select_option("4"), state)
            state = {**state, "kv": 2}
            act("KV 헤드 수 (선택)", lambda: root.locator("select").nth(1).select_option("2"), state)
            titles = page.evaluate("(id) => window.__attnProbe.read(window.__attnExplorers[id]).texts", eid)
            assert "헤드 3 · KV 그룹 0" in titles and "헤드 4 · KV 그룹 1" in titles, titles
            readout = next(t for t in titles if t.startswith("KV 캐시 (토큰 하나, 층 하나, float32):"))
            assert f"KV 헤드 2 × d_k {state['dk']} × 4바이트 = {2 * 2 * state['dk'] * 4:,}바이트" in readout, readout

            # 9) 위치: 'RoPE' 라벨 클릭 (KV 헤드 수는 헤드 수로 봄: 그룹 제목이 사라짐), 10) 창: '3' 라벨 클릭
            state = {**state, "pos": "rope"}
            act("위치 RoPE (클릭)", lambda: root.locator("label:has(> input[type=radio][value='rope'])").click(), state)
            titles = page.evaluate("(id) => window.__attnProbe.read(window.__attnExplorers[id]).texts", eid)
            assert not any("KV 그룹" in t for t in titles), titles
            state = {**state, "win": 3}
            act("창 3 (클릭)", lambda: root.locator("label:has(> input[type=radio][value='3'])").click(), state)
            caption = root.locator(f"#{eid}-summary .attn-explorer-summary-caption").text_content()
            assert caption.endswith("위치 RoPE, 창 3)"), caption
            # 11) 위치를 없음으로: 창 3과 KV 헤드 2개를 함께 고른 설정은 글 요약이 없다는 안내 한 줄 (미리 계산하지 않음)
            root.locator("label:has(> input[type=radio][value='none'])").nth(1).click()
            page.evaluate("(id) => window.__attnSettle(id)", eid)
            assert root.evaluate(CONTROL_STATE_JS)["pos"] == "none"
            lines = root.locator(f"#{eid}-summary li").all_text_contents()
            assert lines == [meta["no_summary"]], lines
            root.screenshot(path=str(screenshot_dir / f"explorer__{docname.replace('/', '__')}__{eid}__after_input.png"))
        assert not unexpected_messages(probe), probe.page_errors + probe.console_errors
        assert not probe.external_requests, probe.external_requests
    assert steps_checked >= 9 * len(pages)
    report = {name: {"n": len(v), "median_ms": statistics.median(v), "max_ms": max(v)} for name, v in timings.items()}
    print("\n입력 -> 다음 화면까지 (ms, Playwright 왕복 포함 상한):")
    for name, row in report.items():
        print(f"  {name:<16} n={row['n']:>2}  중앙값 {row['median_ms']:6.1f}  최대 {row['max_ms']:6.1f}")
    (screenshot_dir / "explorer_input_latency.json").write_text(json.dumps(report, ensure_ascii=False, indent=1))


FITS_JS = """(id) => {
  const view = window.__attnExplorers[id];
  const canvas = document.querySelector('#' + id + ' .attn-explorer-view canvas');
  const texts = window.__attnProbe.read(view).texts;
  const b = view.scenegraph().root.bounds;
  return {texts, canvasH: canvas.clientHeight, canvasW: canvas.clientWidth, sceneH: b.y2 - Math.min(0, b.y1),
          sceneW: b.x2 - Math.min(0, b.x1)};
}"""


@pytest.mark.parametrize("viewport", ["phone", "laptop"])
def test_explorer_grows_with_the_head_count_and_shows_every_head(
    viewport: str, open_offline_page: Callable[..., OfflinePage], screenshot_dir: Path
) -> None:
    """헤드를 1개에서 16개로 늘리면 그림이 커져서 16개 헤드와 히스토그램이 모두 캔버스 안에 있습니다."""
    kwargs = VIEWPORT_OPTIONS[viewport]
    probe, metas = open_explorers(open_offline_page, "chapters/02_multi_head", **kwargs)
    page, (eid, _meta) = probe.page, metas[0]
    page.evaluate(INPUT_CLOCK_JS)
    sizes = {}
    for heads in (1, 16):
        root = page.locator(f"#{eid}")
        root.locator(f"label:has(> input[type=radio][value='{heads}'])").click()
        page.evaluate("(id) => window.__attnSettle(id)", eid)
        got = page.evaluate(FITS_JS, eid)
        titles = [t for t in got["texts"] if t.startswith("헤드 ")]
        assert len(titles) == heads, f"{viewport} 헤드 {heads}개: 제목 {titles}"
        assert any(t.startswith("포화 히스토그램") for t in got["texts"])
        assert got["sceneH"] <= got["canvasH"] + 1 and got["sceneW"] <= got["canvasW"] + 1, (viewport, heads, got)
        sizes[heads] = got["canvasH"]
    assert sizes[16] > sizes[1] + 200, sizes  # 헤드 줄이 늘어난 만큼 커짐
    view = root.locator(".attn-explorer-view")
    view.evaluate("e => e.scrollIntoView()")
    view.screenshot(path=str(screenshot_dir / f"explorer-16-heads-{viewport}.png"))


# ---------------------------------------------------------------------------------------
# 열 수: 어느 조작기 값에서도 상자보다 넓지 않음 (이슈 27)
# ---------------------------------------------------------------------------------------

#: 조작기 값마다 그린 뒤 잰 것: 상자(.attn-explorer)와 캔버스·vega-embed 의 폭, 장면 그래프(scenegraph)의 크기,
#: 헤드 격자의 폭, 패널 한 칸의 실제 폭(제목 포함), 열 수, 헤드 제목
FIT_JS = """async ([id, states]) => {
  const root = document.getElementById(id), view = window.__attnExplorers[id];
  const names = JSON.parse(document.getElementById(id + '-meta').textContent).params;
  const frame = () => new Promise(resolve => requestAnimationFrame(() => resolve()));
  const out = [];
  for (const [heads, mask, kv, pos, win] of states) {
    if (heads !== null) {
      view.signal(names.heads, heads).signal(names.mask, mask).signal(names.kv, kv)
          .signal(names.pos, pos || 'none').signal(names.win, win || 0);
      await view.runAsync();
    }
    await frame();
    const canvas = root.querySelector('.attn-explorer-view canvas'), embed = root.querySelector('.vega-embed');
    const left = root.getBoundingClientRect().left;
    const top = view.scenegraph().root.items[0];
    let grid = null, legend = null, right = -Infinity;
    for (const mark of top.items) {
      const item = mark.items && mark.items[0];
      if (!item) continue;
      if (mark.role === 'legend') { legend = item; continue; }
      right = Math.max(right, item.bounds.x2);
      if (item.items && item.items.some(m => m.role === 'row-header')) grid = item;
    }
    const cells = grid.items.filter(m => m.role === 'scope').flatMap(m => m.items);
    const b = view.scenegraph().root.bounds, pad = view.padding();
    out.push({
      heads: Number(view.signal(names.heads)), mask: view.signal(names.mask), kv: Number(view.signal(names.kv)),
      pos: view.signal(names.pos), win: Number(view.signal(names.win)),
      columns: view.signal('attnColumns'), placed: new Set(cells.map(c => Math.round(c.x))).size,
      box: root.clientWidth, scroll: root.scrollWidth,
      embedRight: embed.getBoundingClientRect().right - left, canvasRight: canvas.getBoundingClientRect().right - left,
      canvasW: canvas.clientWidth, canvasH: canvas.clientHeight,
      sceneW: b.x2 - Math.min(0, b.x1), sceneH: b.y2 - Math.min(0, b.y1),
      gridW: grid.bounds.width(), panel: Math.max(...cells.map(c => c.bounds.width())),
      legend: legend && legend.bounds.x1 >= right - 1 ? legend.bounds.x2 - right : 0,
      padding: (pad.left || 0) + (pad.right || 0),
      titles: window.__attnProbe.read(view).texts.filter(t => t.startsWith('헤드 ')),
      fills: cells.map(c => { const t = c.items.find(m => m.role === 'title'); return t ? t.items[0].items[0].items[0] : null; })
                  .filter(t => t).map(t => [t.text, t.fill]),
    });
  }
  return out;
}"""
FIT_HEADS = (1, 8, 16)
FIT_MASKS = ("none", "causal", "padding", "causal+padding")
FIT_KV = (1, 2, 4, 8, 16)  # 16 = "헤드 수와 같게"
FIT_POSITION_WINDOW = (("rope", 0), ("none", 3), ("rope", 3))  # (위치, 창): 0 = 전체
COLUMN_GAP = 20  # spec.py 의 facet "spacing"
GROUP_COLOURS = ("#0072B2", "#D55E00")  # spec.py 의 header labelColor: KV 그룹 번호가 짝수 / 홀수
MAX_COLUMNS = 4


def whole_view_screenshot(page: Any, view: Any, path: Path) -> None:
    """그림 전체의 스크린숏. 화면보다 긴 요소는 화면 밖 부분이 빈 채로 찍히므로(페이지의 content-visibility),
    창 높이만 그림이 다 들어가게 잠시 늘립니다 (폭은 그대로라 배치는 바뀌지 않음)."""
    size = page.viewport_size
    height = view.evaluate("e => Math.ceil(e.getBoundingClientRect().height)")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], height + 120)})
    view.evaluate("e => e.scrollIntoView({block: 'center'})")
    page.wait_for_function("() => new Promise(r => requestAnimationFrame(() => r(true)))")
    view.screenshot(path=str(path))
    page.set_viewport_size(size)


def check_fit(where: str, row: dict) -> None:
    """한 조작기 값에서: 상자 안에 들고(가로 스크롤 없음), 캔버스 안에 다 그려지고, 헤드가 모두 있고, 열을 아끼지 않음."""
    state = f"{where} 헤드 {row['heads']}, 마스크 {row['mask']}, KV {row['kv']}, 위치 {row['pos']}, 창 {row['win']}: {row}"
    assert row["embedRight"] <= row["box"] + 0.5 and row["canvasRight"] <= row["box"] + 0.5, f"상자보다 넓음 {state}"
    assert row["scroll"] <= row["box"], f"상자 안에서 옆으로 밀어야 보임 {state}"
    assert row["sceneW"] <= row["canvasW"] + 1 and row["sceneH"] <= row["canvasH"] + 1, f"캔버스에서 잘림 {state}"
    assert len(row["titles"]) == row["heads"], f"헤드 제목 {row['titles']} {state}"
    # 같은 키·밸류를 쓰는 헤드 묶음(KV 그룹)은 번갈아 파랑·주황 (그룹 쿼리 어텐션이 아니면 모두 파랑)
    fills = {text: fill.upper() for text, fill in row["fills"]}
    assert len(fills) == row["heads"], f"제목 색 {row['fills']} {state}"
    for text, fill in fills.items():
        group = re.search(r"KV 그룹 (\d+)$", text)
        assert fill == (GROUP_COLOURS[int(group.group(1)) % 2] if group else GROUP_COLOURS[0]), f"{text}: {fill} {state}"
    assert row["placed"] == row["columns"] == min(row["columns"], row["heads"]), f"열 수 {state}"
    if row["columns"] < min(MAX_COLUMNS, row["heads"]):  # 한 열 더 놓으면 상자를 넘어야 함 (열 수를 아끼지 않음)
        wider = row["padding"] + row["gridW"] + COLUMN_GAP + row["panel"] + row["legend"]
        assert wider > row["box"] - 3, f"한 열이 더 들어가는데 {row['columns']}열 {state}"


@pytest.mark.parametrize("viewport", ["phone", "laptop"])
def test_explorers_fit_their_box_at_every_head_count_mask_and_kv_setting(
    viewport: str, open_offline_page: Callable[..., OfflinePage], pages: list[str], screenshot_dir: Path
) -> None:
    """휴대폰(390 px)과 노트북(1280 px)에서 모든 탐색기가 헤드 1, 8, 16개 x 마스크 네 가지 x KV 헤드 수 다섯 가지에서,
    그리고 위치(RoPE)와 창(3)을 켠 세 조합에서는 헤드 1, 8, 16개 x 마스크 네 가지 x KV 헤드 2, 16개에서
    상자보다 넓지 않습니다. 열 수는 패널의 실제 폭(제목, 쿼리 이름)으로 고른 것이고, 한 열을 더 놓으면 넘칩니다.
    조작기 묶음(.attn-explorer-controls)도 상자 안에 듭니다."""
    states = [[h, m, kv, "none", 0] for h in FIT_HEADS for m in FIT_MASKS for kv in FIT_KV]
    states += [[h, m, kv, pos, win] for pos, win in FIT_POSITION_WINDOW for h in FIT_HEADS for m in FIT_MASKS
               for kv in (2, 16)]
    report = {}
    for docname in pages:
        probe, metas = open_explorers(open_offline_page, docname, **VIEWPORT_OPTIONS[viewport])
        page = probe.page
        for eid, _meta in metas:
            root = page.locator(f"#{eid}")
            root.scroll_into_view_if_needed()
            first = page.evaluate(FIT_JS, [eid, [[None, None, None]]])[0]  # 장의 처음 설정 그대로
            check_fit(f"{viewport} {docname} (처음)", first)
            name = f"explorer-fit__{viewport}__{docname.split('/')[-1]}"
            whole_view_screenshot(page, root.locator(".attn-explorer-view"), screenshot_dir / f"{name}__first.png")
            rows = page.evaluate(FIT_JS, [eid, states])
            for row in rows:
                check_fit(f"{viewport} {docname}", row)
            assert {(r["heads"], r["mask"], r["kv"], r["pos"], r["win"]) for r in rows} == {tuple(s) for s in states}
            controls = root.locator(".attn-explorer-controls").evaluate(
                "e => ({right: e.getBoundingClientRect().right, scroll: e.scrollWidth, width: e.clientWidth})")
            box_right = root.evaluate("e => e.getBoundingClientRect().right")
            assert controls["right"] <= box_right + 0.5 and controls["scroll"] <= controls["width"], (viewport, controls)
            # 마지막 설정(헤드 16개, 인과+패딩, KV 16)과 가장 넓은 제목(헤드 16개, 마스크 없음, KV 2)
            whole_view_screenshot(page, root.locator(".attn-explorer-view"), screenshot_dir / f"{name}__16.png")
            page.evaluate(FIT_JS, [eid, [[16, "none", 2]]])
            whole_view_screenshot(page, root.locator(".attn-explorer-view"), screenshot_dir / f"{name}__16-kv2.png")
            widest = max(rows, key=lambda r: r["embedRight"])
            report[f"{docname}#{eid}"] = {"box": first["box"], "first": {k: first[k] for k in ("embedRight", "columns")},
                                          "widest": {k: widest[k] for k in ("embedRight", "heads", "mask", "kv", "columns")},
                                          "columns": sorted({r["columns"] for r in rows})}
        assert not unexpected_messages(probe), probe.page_errors + probe.console_errors
    print(f"\n{viewport}: " + json.dumps(report, ensure_ascii=False, indent=1))
    (screenshot_dir / f"explorer_fit_{viewport}.json").write_text(json.dumps(report, ensure_ascii=False, indent=1))


def test_explorer_refits_when_its_box_narrows(
    open_offline_page: Callable[..., OfflinePage], screenshot_dir: Path
) -> None:
    """노트북 폭에서 연 뒤 창을 휴대폰 폭으로 줄이면(화면 돌리기) 열 수와 히스토그램 폭을 다시 골라 상자 안에 듭니다."""
    probe, metas = open_explorers(open_offline_page, "chapters/07_kv_cache_gqa")
    page, (eid, _meta) = probe.page, metas[0]
    before = page.evaluate(FIT_JS, [eid, [[16, "causal+padding", 2]]])[0]
    check_fit("1280 px", before)
    page.set_viewport_size(PHONE_VIEWPORT)
    page.wait_for_function("([id, w]) => document.getElementById(id).clientWidth < w", arg=[eid, before["box"]])
    # ResizeObserver -> 다음 화면에서 다시 그림: 캔버스가 줄어든 상자 안에 들 때까지 기다림 (안 되면 시간 초과로 실패)
    page.wait_for_function("""(id) => { const r = document.getElementById(id), c = r.querySelector('canvas');
        return c.getBoundingClientRect().right - r.getBoundingClientRect().left <= r.clientWidth + 0.5; }""",
                           arg=eid, timeout=10_000)
    rows = page.evaluate(FIT_JS, [eid, [[None, None, None], [8, "padding", 16], [16, "none", 2], [1, "none", 16]]])
    for row in rows:
        check_fit("1280 -> 390 px", row)
    assert rows[0]["columns"] < before["columns"], (before["columns"], rows[0]["columns"])
    whole_view_screenshot(page, page.locator(f"#{eid} .attn-explorer-view"),
                          screenshot_dir / "explorer-fit__refit-after-narrowing.png")
    assert not unexpected_messages(probe), probe.page_errors + probe.console_errors
