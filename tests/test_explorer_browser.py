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

import json
import random
import re
import statistics
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

from attn_lib.explorer_model import PAD_TOKEN, ExplorerModel
from attn_lib.metrics import attention_entropy, saturation
from conftest import PHONE_VIEWPORT, OfflinePage, read_toc_docnames

pytestmark = pytest.mark.browser

TOC_DOCNAMES = read_toc_docnames()
# THEBE_JS_URL 이중 선언 오류는 _ext/thebe_local.py 가 고쳤습니다: 알려진 페이지 오류 없음.
KNOWN_PAGE_ERRORS: list[re.Pattern[str]] = []
ALLOWED_EXTERNAL_HOSTS = {"mybinder.org", "colab.research.google.com", "github.com"}
VEGA_FILES = ("vega.min.js", "vega-lite.min.js", "vega-embed.min.js")
DATA_BUDGET = 500_000
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
      if (mark.marktype === "text") for (const it of mark.items) if (it.text) texts.push(String(it.text));
    });
    return {cells: cells, texts: texts};
  }
  async function setAndRead(id, pt) {
    const view = window.__attnExplorers[id], names = meta(id).params;
    view.signal(names.dk, pt.dk).signal(names.heads, pt.heads)
        .signal(names.mask, pt.mask).signal(names.scaled, pt.scaled);
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


def unexpected_page_errors(probe: OfflinePage) -> list[str]:
    return [e for e in probe.page_errors if not any(p.search(e) for p in KNOWN_PAGE_ERRORS)]


def open_explorers(open_page: Callable[..., OfflinePage], docname: str, **kwargs: Any) -> tuple[OfflinePage, list]:
    probe = open_page(**kwargs)
    response = probe.goto(docname)
    assert response is not None and response.ok, f"{docname}: HTTP {response and response.status}"
    n = probe.page.locator(".attn-explorer").count()
    probe.page.wait_for_function(
        f"() => document.querySelectorAll('.attn-explorer[data-ready]').length === {n}", timeout=60_000)
    probe.page.evaluate(PROBE_JS)
    metas = probe.page.evaluate(
        """() => Array.from(document.querySelectorAll('.attn-explorer-meta'))
                 .map(s => [s.id.replace(/-meta$/, ''), JSON.parse(s.textContent)])""")
    assert len(metas) == n
    return probe, metas


def expected(meta: dict, model: ExplorerModel, pt: dict):
    tokens = list(meta["tokens"])
    if "padding" in pt["mask"]:
        tokens += [PAD_TOKEN] * (meta["P"] - len(tokens))
    weights, *_ = model.weights(tokens, d_k=pt["dk"], num_heads=pt["heads"], mask=pt["mask"], scaled=pt["scaled"])
    return weights


def grid_points(meta: dict, rng: random.Random) -> list[dict]:
    points = [{"dk": rng.choice(meta["dk_choices"]), "heads": rng.choice(meta["heads_choices"]),
               "mask": meta["masks"][i % 4], "scaled": (i // 4) % 2 == 0} for i in range(POINTS_PER_EXPLORER)]
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
        data = sum(len(m.encode("utf-8")) for m in re.findall(r'<script type="application/json" id="attn-explorer-[0-9a-f]+-spec">(.*?)</script>', html, re.S))
        print(f"\n{docname}: 정적 탐색기 데이터 {data:,} 바이트 (예산 {DATA_BUDGET:,})")
        assert 0 < data < DATA_BUDGET, f"{docname}: 탐색기 데이터 {data:,} 바이트"
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
        assert not unexpected_page_errors(probe), f"{docname}: 페이지 오류 {probe.page_errors}"
        assert not [u for u in probe.external_requests if not any(h in u for h in ALLOWED_EXTERNAL_HOSTS)], (
            f"{docname}: 다른 호스트로 요청 {probe.external_requests}")
        assert not probe.failed_local, probe.failed_local
        loaded = [p for p in probe.local_responses if "/_static/vendor/vega/" in p]
        assert len(loaded) == 3 and all(probe.local_responses[p] == 200 for p in loaded), loaded
        for eid, meta in metas:
            root = page.locator(f"#{eid}")
            # 죽은 ipywidgets 조작기 대신 Vega 조작기: 같은 출력 안에 jupyter-widgets 가 없음
            cell = root.locator("xpath=ancestor::div[contains(@class, 'cell_output')][1]")
            assert cell.locator(".jupyter-widgets, .widget-subarea").count() == 0, f"{docname}: 죽은 위젯"
            assert root.locator(".vega-bind").count() == 4
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
        assert not unexpected_page_errors(probe), f"{docname}: 페이지 오류 {probe.page_errors}"
    assert checked >= 20


def test_explorer_loads_without_require_js(open_offline_page: Callable[..., OfflinePage], pages: list[str]) -> None:
    """위젯이 없는 페이지에는 require.js 가 없습니다: 그때는 script 태그로 vega 를 불러옵니다."""
    probe = open_offline_page()
    probe.page.route("**/vendor/requirejs/require.js*", lambda route: route.abort())
    probe.page.route("**/vendor/html-manager/embed-amd.js*", lambda route: route.abort())
    probe.goto(pages[0])
    probe.page.wait_for_selector(".attn-explorer[data-ready]", timeout=60_000)
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


@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_explorer_screenshots(
    open_offline_page: Callable[..., OfflinePage], pages: list[str], screenshot_dir: Path, viewport: str
) -> None:
    kwargs = {"viewport": PHONE_VIEWPORT, "is_mobile": True, "has_touch": True} if viewport == "phone" else {}
    probe, metas = open_explorers(open_offline_page, pages[0], **kwargs)
    root = probe.page.locator(f"#{metas[0][0]}")
    root.scroll_into_view_if_needed()
    path = screenshot_dir / f"explorer__{viewport}.png"
    probe.page.screenshot(path=str(path))
    assert path.stat().st_size > 5_000
    box = root.bounding_box()
    width = probe.page.evaluate("() => document.documentElement.clientWidth")
    assert box is not None and box["width"] <= width + 1, f"탐색기가 화면보다 넓습니다: {box} > {width}"
    assert not unexpected_page_errors(probe), probe.page_errors
