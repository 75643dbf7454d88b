"""온라인 소프트맥스 단계 보기: 키 블록 슬라이더 하나로 최댓값·합·출력이 전체 소프트맥스에 다가가는 모습 (커널 없음).

10장(블록 단위 어텐션)의 정적 웹페이지용입니다. 숫자는 모두 빌드할 때 ``attn_lib.blockwise_attention``으로
계산합니다: ``k``번째 단계는 **앞의 키 블록 ``k``개만** 넣은 ``blockwise_attention``의 결과이고(출력과 로그합지수),
지금까지의 최댓값 ``m``은 본 점수의 최댓값, 합 ``ℓ``는 ``exp(로그합지수 - m)``입니다. 브라우저(Vega-Lite)는 미리
계산한 단계 가운데 슬라이더가 고른 것을 골라 그리기만 하므로 조작 한 번에 하는 일이 작습니다.

자바스크립트(vega, vega-lite, vega-embed)는 정적 탐색기(``static.py``)처럼 사이트가 올린 사본
(``_static/vendor/vega/``)을 쓰고, 같은 약속 ``window.__attnVega``를 나눠 씁니다 (한 페이지에서 한 번만 불러옴).
만든 View는 ``window.__attnSteppers[id]``에 둡니다 (브라우저 테스트의 손잡이).
"""

from __future__ import annotations

import hashlib
import json
import math

import torch
from torch import Tensor

from attn_lib.attention import scaled_dot_product_attention
from attn_lib.blockwise import blockwise_attention
from attn_lib._checks import check_attention_inputs, check_positive_int, check_seed

__all__ = ["online_softmax_steps", "stepper_example", "stepper_html"]


def stepper_example(seed: int = 5, *, num_keys: int = 16, head_dim: int = 8, value_dim: int = 3) -> tuple[Tensor, ...]:
    """단계 보기의 작은 예: 쿼리 하나, 키·밸류 ``num_keys``개 (float64, 시드 고정).

    Shape:
        - 돌려주는 query: ``(1, head_dim)``, key: ``(num_keys, head_dim)``, value: ``(num_keys, value_dim)``
    """
    g = torch.Generator().manual_seed(check_seed(seed))
    for value, name in ((num_keys, "num_keys"), (head_dim, "head_dim"), (value_dim, "value_dim")):
        check_positive_int(value, name)
    query = torch.randn(1, head_dim, generator=g, dtype=torch.float64) * 1.5  # 점수가 몇 단위로 퍼지도록
    key = torch.randn(num_keys, head_dim, generator=g, dtype=torch.float64)
    value = torch.randn(num_keys, value_dim, generator=g, dtype=torch.float64)
    return query, key, value


def online_softmax_steps(query: Tensor, key: Tensor, value: Tensor, *, block_size: int) -> dict:
    """키 블록을 하나씩 더 볼 때마다의 상태: 블록 ``k``개를 본 뒤의 ``m``, ``ℓ``, 출력, 배율 ``α``.

    단계 ``k``(1부터)의 출력과 로그합지수는 ``blockwise_attention(query, key[:n_k], value[:n_k])``
    (``n_k`` = 본 키 수)입니다. ``m_k = max_{j < n_k} s_j``, ``ℓ_k = exp(lse_k - m_k)``, 앞 단계의 합을 새 기준으로
    고치는 배율 ``α_k = exp(m_{k-1} - m_k)`` (첫 단계는 ``m_0 = -inf``라서 0), 지금까지의 가중치
    ``exp(s_j - lse_k)``(본 키만, 나머지 0). 참조는 ``scaled_dot_product_attention``의 전체 소프트맥스입니다.

    Returns:
        ``{"scores", "blocks", "steps", "reference"}``. ``steps``는 단계마다
        ``{"step", "keys", "m", "l", "alpha", "lse", "output", "weights"}`` (텐서), ``reference``는
        ``{"output", "weights", "lse"}``.

    Shape:
        - query: ``(L, Dh)``, key: ``(S, Dh)``, value: ``(S, Dv)``, S >= 1
        - 단계의 m, l, alpha, lse: ``(L,)``, output: ``(L, Dv)``, weights: ``(L, S)``
        - scores: ``(L, S)``, blocks: ``(S,)`` (키마다 블록 번호, 0부터)
    """
    check_attention_inputs(query, key, value, None, None)
    check_positive_int(block_size, "block_size")
    if query.dim() != 2 or key.shape[0] == 0:
        raise ValueError(f"query는 (L, Dh), 키는 1개 이상이어야 하는데 query {tuple(query.shape)}, "
                         f"key {tuple(key.shape)}입니다.")
    S = key.shape[0]
    scores = (query @ key.T) / math.sqrt(query.shape[-1])  # (L, Dh) @ (Dh, S) -> (L, S): 그림에 쓰는 점수
    ref_out, ref_w = scaled_dot_product_attention(query, key, value)  # (L, Dv), (L, S)
    steps, prev_m = [], torch.full((query.shape[0],), float("-inf"), dtype=scores.dtype)
    for k, stop in enumerate(range(block_size, S + block_size, block_size), start=1):
        stop = min(stop, S)
        out, lse = blockwise_attention(query, key[:stop], value[:stop], block_size=block_size)  # (L, Dv), (L,)
        m = scores[:, :stop].amax(dim=-1)  # (L, stop) -> (L,)
        weights = torch.zeros_like(scores)
        weights[:, :stop] = torch.exp(scores[:, :stop] - lse[:, None])  # (L, stop) - (L, 1) -> (L, stop)
        steps.append({"step": k, "keys": stop, "m": m, "l": torch.exp(lse - m), "alpha": torch.exp(prev_m - m),
                      "lse": lse, "output": out, "weights": weights})
        prev_m = m
    return {"scores": scores, "blocks": torch.arange(S) // block_size, "steps": steps,
            "reference": {"output": ref_out, "weights": ref_w, "lse": torch.logsumexp(scores, dim=-1)}}


def _rows(steps: dict) -> dict[str, list[dict]]:
    """첫 쿼리 행의 단계들을 Vega-Lite 데이터 행으로 (키마다, 출력 칸마다, 단계마다)."""
    scores, blocks, ref = steps["scores"][0], steps["blocks"], steps["reference"]
    keys = [{"step": st["step"], "key": j, "block": int(blocks[j]), "score": float(scores[j]),
             "seen": j < st["keys"], "w": float(st["weights"][0, j]), "ref": float(ref["weights"][0, j])}
            for st in steps["steps"] for j in range(scores.shape[0])]
    dims = [{"step": st["step"], "dim": f"출력 {d}", "o": float(st["output"][0, d]), "ref": float(ref["output"][0, d])}
            for st in steps["steps"] for d in range(ref["output"].shape[-1])]
    state = [{"step": st["step"], "m": float(st["m"][0]), "l": float(st["l"][0]), "alpha": float(st["alpha"][0]),
              "keys": st["keys"], "gap": float((st["output"][0] - ref["output"][0]).abs().max())}
             for st in steps["steps"]]
    return {"keys": keys, "dims": dims, "state": state}


def _line(row: dict, n: int) -> str:
    return (f"키 블록 {row['step']}/{n}개(키 {row['keys']}개)를 본 뒤: 최댓값 m = {row['m']:.3f}, 합 ℓ = {row['l']:.3f}, "
            f"배율 α = exp(m_old − m_new) = {row['alpha']:.3f}, 출력과 전체 소프트맥스 출력의 최대 차이 {row['gap']:.2e}")


def _spec(rows: dict[str, list[dict]], param: str, n: int) -> dict:
    def panel(data: str, title: str, layers: list[dict], height: int = 130) -> dict:
        return {"title": {"text": title, "anchor": "start", "fontSize": 13}, "data": {"name": data}, "height": height,
                "width": 480, "transform": [{"filter": f"datum.step == {param}"}], "layer": layers}

    top = max(max(r["w"], r["ref"]) for r in rows["keys"])  # 가중치 축: 단계가 바뀌어도 같은 눈금
    key_x = {"field": "key", "type": "ordinal", "title": "키 (색: 본 블록)", "axis": {"labelAngle": 0}}
    seen = {"condition": {"test": "datum.seen", "field": "block", "type": "ordinal", "legend": None,
                          "scale": {"scheme": "tableau10"}}, "value": "#d0d0d0"}
    scores = panel("keys", "점수 s와 지금까지의 최댓값 m (빨간 선)", [
        {"mark": "bar", "encoding": {"x": key_x, "y": {"field": "score", "type": "quantitative", "title": "점수"},
                                     "color": seen}},
        {"data": {"name": "state"}, "transform": [{"filter": f"datum.step == {param}"}],
         "mark": {"type": "rule", "color": "#c0392b", "strokeWidth": 2},
         "encoding": {"y": {"field": "m", "type": "quantitative"}}},
    ])
    weights = panel("keys", "가중치: 지금까지 (막대) 대 전체 소프트맥스 (검은 눈금)", [
        {"mark": "bar", "encoding": {"x": key_x, "y": {"field": "w", "type": "quantitative", "title": "가중치",
                                                       "scale": {"domain": [0, top]}}, "color": seen}},
        {"mark": {"type": "tick", "color": "black", "thickness": 2},
         "encoding": {"x": key_x, "y": {"field": "ref", "type": "quantitative"}}},
    ])
    out_x = {"field": "dim", "type": "nominal", "title": None, "axis": {"labelAngle": 0}}
    outputs = panel("dims", "출력 O/ℓ (막대) 대 참조 출력 (검은 눈금)", [
        {"mark": {"type": "bar", "color": "#4c78a8"},
         "encoding": {"x": out_x, "y": {"field": "o", "type": "quantitative", "title": "값"}}},
        {"mark": {"type": "tick", "color": "black", "thickness": 2},
         "encoding": {"x": out_x, "y": {"field": "ref", "type": "quantitative"}}},
    ], height=110)
    return {
        "$schema": "https://vega.github.io/schema/vega-lite/v5.json",
        "params": [{"name": param, "value": 1,
                    "bind": {"input": "range", "min": 1, "max": n, "step": 1, "name": "본 키 블록 수 "}}],
        "datasets": rows, "vconcat": [scores, weights, outputs], "spacing": 18,
        "config": {"view": {"stroke": None}, "axis": {"labelFontSize": 11, "titleFontSize": 11}},
    }


_LOADER_JS = """
(function () {
  "use strict";
  var id = %(id)s, root = document.getElementById(id);
  var meta = JSON.parse(document.getElementById(id + "-meta").textContent);
  var spec = JSON.parse(document.getElementById(id + "-spec").textContent);
  var status = root.querySelector(".attn-stepper-status"), line = root.querySelector(".attn-stepper-line");
  function loadVega() {  // 정적 탐색기(static.py)와 같은 방법, 같은 약속(window.__attnVega)
    if (window.__attnVega) { return window.__attnVega; }
    var s = document.querySelector('script[src*="js/offline-setup.js"]');
    var base = s ? new URL("../vendor/vega/", s.src).href : null;
    window.__attnVega = new Promise(function (resolve, reject) {
      if (!base) { reject(new Error("offline-setup.js 없음 (책 웹사이트 밖)")); return; }
      if (typeof window.define === "function" && window.define.amd && typeof window.require === "function") {
        window.require.config({paths: {"vega": base + "vega.min", "vega-lite": base + "vega-lite.min",
                                       "vega-embed": base + "vega-embed.min"}});
        window.require(["vega-embed"], resolve, reject);
      } else {
        var files = ["vega.min.js", "vega-lite.min.js", "vega-embed.min.js"];
        (function next(i) {
          if (i === files.length) { resolve(window.vegaEmbed); return; }
          var el = document.createElement("script");
          el.src = base + files[i];
          el.onload = function () { next(i + 1); };
          el.onerror = function () { reject(new Error(files[i] + "를 불러오지 못함")); };
          document.head.appendChild(el);
        })(0);
      }
    });
    return window.__attnVega;
  }
  // 정적 탐색기처럼 화면 가까이(800px 안) 와야 vega 를 불러오고 그립니다 (페이지를 여는 순간의 전송량을 줄임).
  function whenNear(run) {
    if (!("IntersectionObserver" in window)) { run(); return; }
    var io = new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; })) { io.disconnect(); run(); }
    }, {rootMargin: "800px 0px"});
    io.observe(root);
  }
  whenNear(function () {
  // 폭: 상자 폭에서 세로축 이름과 여백(약 70 px)을 뺀 만큼 (200~480 px)
  var width = Math.max(200, Math.min(480, root.clientWidth - 70));
  spec.vconcat.forEach(function (p) { p.width = width; });
  loadVega().then(function (vegaEmbed) {
    return vegaEmbed(root.querySelector(".attn-stepper-view"), spec,
                     {mode: "vega-lite", renderer: "canvas", actions: false,
                      bind: root.querySelector(".attn-stepper-controls")});
  }).then(function (result) {
    var view = result.view;
    function update() {
      var k = Number(view.signal(meta.param));
      line.textContent = meta.lines[k - 1];
      var canvas = root.querySelector(".attn-stepper-view canvas");
      if (canvas) { canvas.setAttribute("role", "img"); canvas.setAttribute("aria-label", meta.lines[k - 1]); }
      root.setAttribute("data-step", String(k));
    }
    view.addSignalListener(meta.param, update);
    update();
    window.__attnSteppers = window.__attnSteppers || {};
    window.__attnSteppers[id] = view;
    status.textContent = "";
    root.setAttribute("data-ready", "true");
  }).catch(function (err) {
    status.textContent = "단계 보기를 불러오지 못했습니다: " + err.message;
    console.error("attn stepper:", err);
  });
  });
})();
"""

_STYLE = """
.attn-stepper { margin: 0.5rem 0 1rem; max-width: 100%%; overflow-x: auto; }
.attn-stepper-controls .vega-bind { font-size: 0.9rem; }
.attn-stepper-controls .vega-bind-name { font-weight: 600; }
.attn-stepper-controls input[type=range] { width: min(240px, 55vw); vertical-align: middle; }
.attn-stepper-status, .attn-stepper-line { font-size: 0.9rem; }
.attn-stepper-status { color: #555; }
"""


def stepper_html(query: Tensor, key: Tensor, value: Tensor, *, block_size: int) -> str:
    """단계 보기 HTML 한 덩어리 (슬라이더 자리, 그림 자리, 한 줄 요약, 명세, 불러오기 스크립트).

    첫 쿼리 행만 그립니다. 한 줄 요약(``aria-live``)은 슬라이더를 움직이면 그 단계의 ``m``, ``ℓ``, ``α``,
    참조 출력과의 최대 차이로 바뀝니다.

    Shape:
        - query: ``(L, Dh)`` (첫 행을 그림), key: ``(S, Dh)``, value: ``(S, Dv)``
    """
    steps = online_softmax_steps(query, key, value, block_size=block_size)
    rows = _rows(steps)
    n = len(rows["state"])
    digest = hashlib.sha1(json.dumps(rows, sort_keys=True).encode("utf-8")).hexdigest()[:12]
    uid = f"attn-stepper-{digest}"
    param = f"step_{digest}"
    lines = [_line(r, n) for r in rows["state"]]
    meta = {"param": param, "lines": lines, "blocks": n, "block_size": block_size}
    dump = lambda v: json.dumps(v, ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")  # noqa: E731
    return (
        f"<style>{_STYLE % ()}</style>\n"
        f'<div class="attn-stepper" id="{uid}" lang="ko">\n'
        f'<div class="attn-stepper-controls"></div>\n'
        f'<p class="attn-stepper-status" data-search-skip="">단계 보기를 불러오는 중입니다. 자바스크립트가 필요합니다.</p>\n'
        f'<div class="attn-stepper-view"></div>\n'
        f'<p class="attn-stepper-line" aria-live="polite">{lines[0]}</p>\n'
        f"</div>\n"
        f'<script type="application/json" id="{uid}-spec">{dump(_spec(rows, param, n))}</script>\n'
        f'<script type="application/json" id="{uid}-meta">{dump(meta)}</script>\n'
        f"<script>{_LOADER_JS % {'id': json.dumps(uid)}}</script>\n"
    )
