"""커널 없는 정적 탐색기: 빌드할 때 점수를 미리 계산하고, 브라우저의 Vega-Lite가 그립니다.

정적 웹사이트에는 커널이 없으므로 ipywidgets 조작기는 아무것도 다시 계산하지 못합니다.
그래서 빌드할 때(노트북을 실행할 때) 페이지의 고정된 문장과 시드에 대해 브라우저에 필요한 것을
미리 계산해 둡니다. 저장하는 것은 스케일링·마스크·소프트맥스 **전**의 내적 ``Q K^T``뿐입니다.

- 격자: ``d_k`` = 1, 2, 4, ..., 512 (10개) x 헤드 ``MAX_HEADS``(16)개 x ``P x P``
  (``P``는 ``[PAD]``까지 붙인 길이). 헤드 수는 포개져 있어서(앞쪽 ``h``개 헤드) 따로 저장하지 않습니다.
- 브라우저(Vega-Lite)가 하는 일: 고른 ``d_k``와 헤드만 남기기, ``1/sqrt(d_k)`` 곱하기, 마스크,
  행마다 최댓값을 빼고 ``exp``, 합으로 나누기(소프트맥스), 행 엔트로피와 포화 비율, 그리고 그리기.

그림은 Vega-Lite가 그립니다. 명세(spec)는 이 모듈이 JSON(파이썬 사전)으로 직접 적고, 테스트가
Altair에 든 Vega-Lite 스키마로 검사합니다. (Altair의 차트 API로는 vconcat 안의 facet이 맨 위의
데이터·변환·조작기를 물려받는 이 구성에 우회가 필요하고, altair import에만 2초 넘게 걸립니다.)
자바스크립트(vega, vega-lite, vega-embed)는 CDN이 아니라 사이트가 직접 올린 사본
(``_static/vendor/vega/``)을 씁니다. 그 주소는 모든 페이지에 있는 ``_static/js/offline-setup.js``의
주소에서 계산합니다(페이지마다 깊이가 달라서).
ipywidgets가 있는 페이지에는 require.js가 있고, vega의 UMD 번들은 ``define.amd``가 있으면 AMD
모듈로 등록되므로 그런 페이지에서는 require.js로, 다른 페이지에서는 script 태그로 불러옵니다.

글 요약: 그림 아래의 ``.attn-explorer-summary``(``aria-live="polite"``)에 헤드마다 한 줄씩
``describe.describe_heads``의 글이 보이고, 조작기를 바꾸면 바뀝니다. 글은 빌드할 때 격자점마다 파이썬이
계산해 명세의 ``usermeta.attnSummary``에 넣어 둡니다(``summary_table``). 헤드가 포개져 있으므로 헤드 ``h``의
줄은 헤드 수와 상관없이 ``(d_k, 마스크, 스케일링)``마다 하나이고, 같은 줄은 한 번만 저장합니다. 그림의
캔버스는 ``role="img"``이고, ``aria-label``이 지금 설정을 말하며 ``aria-describedby``가 요약을 가리킵니다.
"""

from __future__ import annotations

import hashlib
import html
import json
from collections.abc import Sequence

from .explorer_model import (
    DK_CHOICES,
    MASK_LABELS,
    MASKS,
    MAX_HEADS,
    ExplorerModel,
    padded_length,
    shown_tokens,
)
from .describe import describe_heads

__all__ = [
    "STATIC_MAX_TOKENS",
    "STATIC_HEADS",
    "SATURATION_THRESHOLD",
    "static_grid",
    "param_names",
    "explorer_spec",
    "explorer_html",
    "summary_key",
    "summary_table",
    "summary_caption",
    "summary_html",
]

#: 정적 탐색기 문장의 최대 토큰 수 (페이지당 데이터 예산 500 KB 안에 들도록)
STATIC_MAX_TOKENS = 8
#: 정적 탐색기의 헤드 수 선택지 (앞쪽 h개 헤드)
STATIC_HEADS = (1, 2, 4, 8, 16)
#: 포화로 보는 행 최댓값 (``metrics.saturation``의 기본값과 같음)
SATURATION_THRESHOLD = 0.99
#: 저장하는 점수의 소수점 자릿수. 점수 오차 5e-4는 가중치 오차 1.25e-4 이하입니다(소프트맥스 기울기 <= 1/4).
SCORE_DECIMALS = 3


def static_grid(tokens: Sequence[str], seed: int) -> dict:
    """브라우저에 넘길 격자: ``d_k``마다 모든 헤드의 ``Q K^T`` (패딩까지 붙인 문장).

    Args:
        tokens: 실제 토큰 (``STATIC_MAX_TOKENS``개 이하, ``[PAD]`` 없음).
        seed: 탐색기 모델의 시드.

    Returns:
        ``{"tokens", "n", "P", "seed", "rows"}``. ``rows``는 ``(d_k, 헤드)``마다 하나씩
        ``{"dk": d_k, "h": h, "s": [...]}``이고, ``s``는 그 헤드의 ``(P, P)``를 행 우선으로 편 목록입니다.

    Shape:
        - rows[i]["s"]: 길이 ``P * P`` (쿼리, 키 순서)
    """
    tokens = list(tokens)
    n = len(tokens)
    if not 1 <= n <= STATIC_MAX_TOKENS:
        raise ValueError(f"정적 탐색기의 문장은 토큰 1~{STATIC_MAX_TOKENS}개여야 하는데 {n}개입니다.")
    P = padded_length(n)
    padded = shown_tokens(tokens, "padding")
    model = ExplorerModel(seed)
    rows = []
    for d_k in DK_CHOICES:
        scores = model.raw_scores(padded, d_k)  # (MAX_HEADS, P, P)
        flat = scores.reshape(MAX_HEADS, P * P).tolist()  # (MAX_HEADS, P, P) -> (MAX_HEADS, P * P)
        for h, head_scores in enumerate(flat):
            rows.append({"dk": d_k, "h": h, "s": [round(v, SCORE_DECIMALS) for v in head_scores]})
    return {"tokens": padded, "n": n, "P": P, "seed": seed, "rows": rows}


def summary_key(d_k: int, mask: str, scaled: bool) -> str:
    """요약 표의 열쇠 ``"<d_k>|<마스크>|<1 또는 0>"`` (브라우저의 불러오기 스크립트도 같은 꼴로 만듭니다).

    Shape:
        - 해당 없음 (글)
    """
    return f"{d_k}|{mask}|{int(bool(scaled))}"


def summary_caption(d_k: int, num_heads: int, mask: str, scaled: bool) -> str:
    """요약 목록 위의 제목: 지금 설정을 말합니다.

    Shape:
        - 해당 없음 (글)
    """
    return (f"헤드별 요약 (d_k = {d_k}, 헤드 {num_heads}개, 마스크 {MASK_LABELS[mask]}, "
            f"스케일링 {'켬' if scaled else '끔'})")


def summary_html(caption: str, lines: Sequence[str], *, element_id: str | None = None, state: str = "") -> str:
    """글 요약 HTML: 제목 한 줄과 헤드마다 ``<li>`` 하나, ``aria-live="polite"``로 바뀌면 화면 낭독기가 읽음.

    정적 탐색기와 살아 있는 탐색기(``widgets.AttentionExplorer``)가 같은 모양을 씁니다.

    Shape:
        - lines: 길이 ``H``
    """
    attrs = (f' id="{html.escape(element_id)}"' if element_id else "") + (f' data-key="{html.escape(state)}"' if state else "")
    items = "".join(f"<li>{html.escape(line)}</li>" for line in lines)
    return (f'<div class="attn-explorer-summary"{attrs} aria-live="polite">'
            f'<p class="attn-explorer-summary-caption">{html.escape(caption)}</p>'
            f'<ul class="attn-explorer-summary-list">{items}</ul></div>')


def summary_table(tokens: Sequence[str], seed: int) -> dict:
    """격자점마다 ``describe_heads``의 줄: ``{"lines": [...], "index": {열쇠: [줄 번호 x MAX_HEADS]}}``.

    헤드 ``h``의 줄은 ``lines[index[summary_key(d_k, mask, scaled)][h]]``이고, 헤드 수 ``k``를 고르면 앞의
    ``k``줄이 ``describe_heads(가중치, 보이는 토큰, 보이는 토큰)``과 같습니다(보이는 토큰: 패딩 마스크면
    ``[PAD]``까지). 같은 줄은 ``lines``에 한 번만 있습니다.

    Args:
        tokens: 실제 토큰 (``[PAD]`` 없음).
        seed: 탐색기 모델의 시드.

    Returns:
        JSON으로 바꿀 수 있는 사전.

    Shape:
        - index의 각 값: 길이 ``MAX_HEADS``
    """
    model = ExplorerModel(seed)
    lines: dict[str, int] = {}
    index = {}
    for d_k in DK_CHOICES:
        for mask in MASKS:
            shown = shown_tokens(tokens, mask)
            for scaled in (True, False):
                weights, *_ = model.weights(shown, d_k=d_k, num_heads=MAX_HEADS, mask=mask, scaled=scaled)
                rows = describe_heads(weights, shown, shown)
                index[summary_key(d_k, mask, scaled)] = [lines.setdefault(line, len(lines)) for line in rows]
    return {"lines": list(lines), "index": index}


def _static_heads(num_heads: int) -> int:
    """정적 탐색기 선택지 중 ``num_heads`` 이하인 가장 큰 값."""
    return max(h for h in STATIC_HEADS if h <= max(1, num_heads))


def param_names(key: str) -> dict[str, str]:
    """탐색기 하나의 조작기 이름 (``dk_<key>`` 등).

    vega는 라디오 단추의 ``name``을 조작기 이름으로 두므로, 한 페이지에 탐색기가 여럿이면 이름이
    겹치지 않아야 라디오 묶음이 서로를 끄지 않습니다.

    Shape:
        - 해당 없음 (이름 사전)
    """
    return {p: f"{p}_{key}" for p in ("dk", "heads", "mask", "scaled")}


def explorer_spec(
    grid: dict, *, d_k: int = 64, num_heads: int = 4, mask: str = "none", scaled: bool = True, key: str = "0"
) -> dict:
    """정적 탐색기의 Vega-Lite 명세 (JSON으로 바꿀 수 있는 사전).

    조작기(bound params): ``dk``(선택), ``heads``(라디오), ``mask``(라디오, 한국어 이름),
    ``scaled``(체크박스). 맨 위의 변환(transform)이 고른 격자점의 점수를 펴고, 스케일링, 마스크,
    소프트맥스를 계산합니다. 히트맵(헤드별 facet)과 포화 히스토그램이 그 결과를 같이 씁니다.
    계산된 가중치는 히트맵 칸마다 필드 ``h, q, k, w``로 있습니다.

    Args:
        grid: ``static_grid``의 결과.
        d_k, num_heads, mask, scaled: 처음 보일 설정 (헤드 수는 1, 2, 4, 8, 16 중 그 이하인 가장 큰 값).
        key: 조작기 이름에 붙일 꼬리표 (``param_names``).

    Returns:
        Vega-Lite 6 명세. ``$schema``는 넣지 않습니다(외부 주소가 페이지에 남지 않도록).
        ``grid``에 ``"summary"``(``summary_table``)가 있으면 ``usermeta.attnSummary``로 넣습니다
        (Vega-Lite가 쓰지 않고 그대로 두는 자리; 불러오기 스크립트가 글 요약에 씀).

    Shape:
        - 히트맵 칸: 헤드마다 ``(L, S)``, 패딩 마스크면 ``L = S = P``, 아니면 ``L = S = n``
    """
    n, P = grid["n"], grid["P"]
    labels = json.dumps(grid["tokens"], ensure_ascii=False)  # 표현식 안의 배열 상수
    names = param_names(key)
    dk, heads, mask_, scaled_ = names["dk"], names["heads"], names["mask"], names["scaled"]
    causal, padding = f"indexof({mask_}, 'causal') >= 0", f"indexof({mask_}, 'padding') >= 0"
    params = [
        {"name": dk, "value": d_k, "bind": {"input": "select", "options": list(DK_CHOICES), "name": "d_k "}},
        {"name": heads, "value": _static_heads(num_heads),
         "bind": {"input": "radio", "options": list(STATIC_HEADS), "name": "헤드 수 "}},
        {"name": mask_, "value": mask, "bind": {"input": "radio", "options": list(MASKS),
                                                "labels": [MASK_LABELS[m] for m in MASKS], "name": "마스크 "}},
        {"name": scaled_, "value": bool(scaled), "bind": {"input": "checkbox", "name": "1/√d_k 스케일링 "}},
    ]
    cell_px = max(10, min(14, 112 // P))  # 히트맵 칸 하나의 픽셀 크기 (4열이 본문 폭에 들도록)
    transform = [
        # 고른 d_k의 앞쪽 heads개 헤드만 펼칩니다.
        {"filter": f"datum.dk == {dk} && datum.h < {heads}"},
        {"flatten": ["s"]},
        # s는 (쿼리, 키) 행 우선 순서: 펼친 뒤 헤드 안에서 몇 번째 값인지(row_number, 1부터)로 위치를
        # 되찾습니다. (Vega의 window는 정렬 기준이 없으면 튜플이 만들어진 순서, 곧 배열 순서를 씁니다.)
        {"window": [{"op": "row_number", "as": "i"}], "groupby": ["h"]},
        {"calculate": f"floor((datum.i - 1) / {P})", "as": "q"},
        {"calculate": f"(datum.i - 1) % {P}", "as": "k"},
        # 패딩 마스크가 아니면 [PAD] 행과 열을 보이지 않습니다.
        {"filter": f"{padding} || (datum.q < {n} && datum.k < {n})"},
        {"calculate": f"{labels}[datum.q]", "as": "qtok"},
        {"calculate": f"{labels}[datum.k]", "as": "ktok"},
        {"calculate": f"!({causal} && datum.k > datum.q) && !({padding} && datum.k >= {n})", "as": "ok"},
        # 스케일링 다음 마스크(가려진 칸은 null), 그다음 행마다 소프트맥스
        {"calculate": f"datum.ok ? datum.s * ({scaled_} ? 1 / sqrt({dk}) : 1) : null", "as": "z"},
        {"joinaggregate": [{"op": "max", "field": "z", "as": "zmax"}], "groupby": ["h", "q"]},
        {"calculate": "datum.ok ? exp(datum.z - datum.zmax) : 0", "as": "e"},
        {"joinaggregate": [{"op": "sum", "field": "e", "as": "esum"}], "groupby": ["h", "q"]},
        {"calculate": "datum.e / datum.esum", "as": "w"},
        {"calculate": "datum.w > 0 ? -datum.w * log(datum.w) : 0", "as": "plogp"},
        {"joinaggregate": [{"op": "sum", "field": "plogp", "as": "rowent"},
                           {"op": "max", "field": "w", "as": "rowmax"}], "groupby": ["h", "q"]},
    ]
    token_axis = {"labelExpr": f"{labels}[datum.value]", "labelFontSize": 10}
    heatmaps = {
        "facet": {"field": "h", "type": "ordinal", "title": None,
                  "header": {"labelExpr": "'헤드 ' + datum.value", "labelFontSize": 11}},
        "columns": 4,
        "spec": {
            "width": {"step": cell_px}, "height": {"step": cell_px},
            "mark": "rect",
            "encoding": {
                "x": {"field": "k", "type": "ordinal", "title": "키", "axis": {**token_axis, "labelAngle": -60}},
                "y": {"field": "q", "type": "ordinal", "title": "쿼리", "axis": token_axis},
                "color": {"field": "w", "type": "quantitative", "title": "어텐션 가중치",
                          "scale": {"scheme": "viridis", "domain": [0, 1]}, "legend": {"gradientLength": 120}},
                "tooltip": [{"field": "qtok", "title": "쿼리"}, {"field": "ktok", "title": "키"},
                            {"field": "w", "type": "quantitative", "title": "가중치", "format": ".3f"}],
            },
        },
    }
    width = 300
    stats_label = ("'포화 히스토그램: 포화 행 ' + format(datum.share, '.0%') + ', 평균 엔트로피 ' "
                   "+ format(datum.ent, '.2f') + ' nat'")
    histogram = {
        "width": width, "height": 140,
        "layer": [
            {
                "transform": [{"filter": "datum.ok"}],
                "mark": {"type": "bar", "color": "#0072B2"},
                "encoding": {
                    "x": {"field": "w", "type": "quantitative", "bin": {"extent": [0, 1], "step": 0.05},
                          "title": "어텐션 가중치 (가려진 칸 제외)",
                          "axis": {"values": [0, 0.2, 0.4, 0.6, 0.8, 1], "format": ".1f"}},
                    "y": {"aggregate": "count", "type": "quantitative", "title": "개수 (symlog 눈금)",
                          "scale": {"type": "symlog"}},
                },
            },
            {
                # 행마다 한 번 (k = 0은 어느 마스크에서나 참여 가능한 칸이라 모든 행에 있습니다)
                "transform": [
                    {"filter": "datum.k == 0"},
                    {"calculate": f"datum.rowmax >= {SATURATION_THRESHOLD} ? 1 : 0", "as": "sat"},
                    {"aggregate": [{"op": "mean", "field": "sat", "as": "share"},
                                   {"op": "mean", "field": "rowent", "as": "ent"}]},
                    {"calculate": stats_label, "as": "label"},
                ],
                # 그림 위 제목 자리에 한 줄로 (막대와 겹치지 않게)
                "mark": {"type": "text", "align": "left", "baseline": "bottom", "fontSize": 12,
                         "fontWeight": "bold", "dy": -8},
                "encoding": {"text": {"field": "label"}, "x": {"value": 0}, "y": {"value": 0}},
            },
        ],
    }
    spec = {
        "data": {"values": grid["rows"]},
        "params": params,
        "transform": transform,
        "vconcat": [heatmaps, histogram],
        "spacing": 16,
        "config": {"font": "sans-serif", "view": {"stroke": None}},
    }
    if "summary" in grid:
        spec["usermeta"] = {"attnSummary": grid["summary"]}
    return spec


# 페이지에 넣는 불러오기 스크립트. 한 페이지의 여러 탐색기가 vega를 한 번만 불러오도록
# window.__attnVega(약속, Promise)를 같이 씁니다. 만든 View는 window.__attnExplorers[id]에 둡니다
# (브라우저 테스트가 조작기를 바꾸고 계산된 가중치를 읽는 손잡이).
_LOADER_JS = """
(function () {
  "use strict";
  var id = %(id)s;
  var root = document.getElementById(id);
  var status = root.querySelector(".attn-explorer-status");
  var summaryBox = root.querySelector(".attn-explorer-summary");
  function vendorBase() {
    var s = document.querySelector('script[src*="js/offline-setup.js"]');
    return s ? new URL("../vendor/vega/", s.src).href : null;
  }
  function loadVega() {
    if (window.__attnVega) { return window.__attnVega; }
    var base = vendorBase();
    window.__attnVega = new Promise(function (resolve, reject) {
      if (!base) { reject(new Error("offline-setup.js 없음 (책 웹사이트 밖)")); return; }
      if (typeof window.define === "function" && window.define.amd && typeof window.require === "function") {
        // 위젯 페이지: vega의 UMD 번들이 AMD 모듈로 등록되므로 require.js로 불러옵니다.
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
  // 글 요약: 조작기(신호)가 바뀌면 빌드 때 계산해 둔 describe_heads 줄로 목록을 바꿉니다.
  function watchSummary(view) {
    var meta = JSON.parse(document.getElementById(id + "-meta").textContent);
    var spec = JSON.parse(document.getElementById(id + "-spec").textContent);
    var table = spec.usermeta && spec.usermeta.attnSummary;
    var names = meta.params;
    if (!table || !summaryBox) { return; }
    function update() {
      var dk = view.signal(names.dk), heads = Number(view.signal(names.heads));
      var mask = view.signal(names.mask), scaled = view.signal(names.scaled);
      var key = dk + "|" + mask + "|" + (scaled ? 1 : 0);
      var rows = table.index[key];
      if (!rows) { return; }
      var list = summaryBox.querySelector(".attn-explorer-summary-list");
      var items = rows.slice(0, heads).map(function (i) {
        var li = document.createElement("li");
        li.textContent = table.lines[i];
        return li;
      });
      list.replaceChildren.apply(list, items);
      // summary_caption()과 같은 글
      var caption = "헤드별 요약 (d_k = " + dk + ", 헤드 " + heads + "개, 마스크 " + meta.mask_labels[mask]
        + ", 스케일링 " + (scaled ? "켬" : "끔") + ")";
      summaryBox.querySelector(".attn-explorer-summary-caption").textContent = caption;
      summaryBox.setAttribute("data-key", key + "|" + heads);
      var canvas = root.querySelector(".attn-explorer-view canvas");
      if (canvas) {
        canvas.setAttribute("role", "img");
        canvas.setAttribute("aria-label", "어텐션 가중치 히트맵 " + heads + "개와 포화 히스토그램 "
          + caption.replace(/^헤드별 요약 /, ""));
        canvas.setAttribute("aria-describedby", summaryBox.id);
      }
    }
    [names.dk, names.heads, names.mask, names.scaled].forEach(function (n) {
      view.addSignalListener(n, function () { update(); });
    });
    update();
  }
  // vega-embed 는 라디오 묶음 앞에 이름(span)만 두고 묶음과 잇지 않습니다. 화면 낭독기가 "헤드 수",
  // "마스크" 묶음으로 읽도록 role="radiogroup" 과 aria-labelledby 를 답니다.
  function labelRadioGroups() {
    root.querySelectorAll(".attn-explorer-controls .vega-bind").forEach(function (bind, i) {
      var group = bind.querySelector(".vega-bind-radio");
      var name = bind.querySelector(".vega-bind-name");
      if (!group || !name) { return; }
      name.id = name.id || id + "-control-" + i;
      group.setAttribute("role", "radiogroup");
      group.setAttribute("aria-labelledby", name.id);
    });
  }
  loadVega().then(function (vegaEmbed) {
    var spec = JSON.parse(document.getElementById(id + "-spec").textContent);
    if (root.clientWidth < 560) {  // 휴대폰: 두 열씩, 색 막대는 아래로, 히스토그램은 좁게
      spec.vconcat[0].columns = 2;
      spec.vconcat[0].spec.encoding.color.legend.orient = "bottom";
      spec.vconcat[1].width = Math.min(spec.vconcat[1].width, root.clientWidth - 90);
    }
    return vegaEmbed(root.querySelector(".attn-explorer-view"), spec, {
      mode: "vega-lite", renderer: "canvas", actions: false,
      bind: root.querySelector(".attn-explorer-controls")
    });
  }).then(function (result) {
    window.__attnExplorers = window.__attnExplorers || {};
    window.__attnExplorers[id] = result.view;
    labelRadioGroups();
    watchSummary(result.view);
    status.textContent = "";
    root.setAttribute("data-ready", "true");
  }).catch(function (err) {
    status.textContent = "정적 탐색기를 불러오지 못했습니다: " + err.message;
    console.error("attn explorer:", err);
  });
})();
"""

_STYLE = """
.attn-explorer { margin: 0.5rem 0 1rem; overflow-x: auto; }
.attn-explorer-controls .vega-bind { display: inline-block; margin: 0 1.2rem 0.3rem 0; font-size: 0.9rem; }
.attn-explorer-controls .vega-bind-name { font-weight: 600; margin-right: 0.3rem; }
.attn-explorer-controls .vega-bind-radio label { margin-right: 0.5rem; }
.attn-explorer-status { color: #555; font-size: 0.9rem; }
.attn-explorer-summary { font-size: 0.9rem; margin-top: 0.4rem; }
.attn-explorer-summary-caption { font-weight: 600; margin: 0 0 0.2rem; }
.attn-explorer-summary-list { margin: 0; padding-left: 1.2rem; }
"""


_html_count = [0]  # 이 프로세스에서 만든 정적 탐색기 수


def _script_json(value: object) -> str:
    """``<script type="application/json">`` 안에 안전하게 넣을 JSON (``</``를 끊음)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("</", "<\\/")


def explorer_html(
    tokens: Sequence[str], seed: int, *, d_k: int = 64, num_heads: int = 4, mask: str = "none", scaled: bool = True
) -> str:
    """정적 탐색기 HTML 한 덩어리: 조작기 자리, 그림 자리, 명세(JSON), 불러오기 스크립트.

    문장이 ``STATIC_MAX_TOKENS``개를 넘으면 탐색기 대신 한국어 안내를 돌려줍니다.

    Args:
        tokens: 실제 토큰.
        seed: 모델 시드.
        d_k, num_heads, mask, scaled: 처음 보일 설정.

    Returns:
        노트북 출력의 ``text/html``에 넣을 문자열.

    Shape:
        - 해당 없음 (HTML 문자열; 명세 크기는 토큰 8개일 때 약 320 KB: 점수 약 160 KB, 글 요약 약 160 KB)
    """
    tokens = list(tokens)
    if len(tokens) > STATIC_MAX_TOKENS:
        return (f'<p class="attn-explorer-note">정적 웹페이지의 탐색기는 토큰 {STATIC_MAX_TOKENS}개까지 '
                f"보여 줍니다 (지금 {len(tokens)}개). 노트북에서 실행하면 조작기가 움직입니다.</p>")
    grid = static_grid(tokens, seed)
    grid["summary"] = summary_table(tokens, seed)
    # 같은 입력이면 같은 HTML (빌드 재현성). 한 커널에서 같은 탐색기를 또 보여도 id가 겹치지 않게 번호를 섞음.
    _html_count[0] += 1
    settings = [tokens, seed, d_k, num_heads, mask, bool(scaled), _html_count[0]]
    key = hashlib.sha1(json.dumps(settings, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]
    uid = f"attn-explorer-{key}"
    spec = explorer_spec(grid, d_k=d_k, num_heads=num_heads, mask=mask, scaled=scaled, key=key)
    meta = {"tokens": tokens, "seed": seed, "n": grid["n"], "P": grid["P"], "params": param_names(key),
            "dk_choices": list(DK_CHOICES), "heads_choices": list(STATIC_HEADS), "masks": list(MASKS),
            "max_heads": MAX_HEADS, "mask_labels": MASK_LABELS,
            "data_bytes": len(_script_json(spec).encode("utf-8"))}
    loader = _LOADER_JS % {"id": json.dumps(uid)}
    heads = _static_heads(num_heads)
    table = grid["summary"]
    state = summary_key(d_k, mask, scaled)
    lines = [table["lines"][i] for i in table["index"][state][:heads]]
    summary = summary_html(summary_caption(d_k, heads, mask, scaled), lines, element_id=f"{uid}-summary",
                           state=f"{state}|{heads}")
    return (
        f"<style>{_STYLE}</style>\n"
        f'<div class="attn-explorer" id="{uid}" lang="ko">\n'
        f'<div class="attn-explorer-controls"></div>\n'
        f'<p class="attn-explorer-status">정적 탐색기를 불러오는 중입니다. 자바스크립트가 필요합니다.</p>\n'
        f'<div class="attn-explorer-view"></div>\n'
        f"{summary}\n"
        f"</div>\n"
        f'<script type="application/json" id="{uid}-spec">{_script_json(spec)}</script>\n'
        f'<script type="application/json" id="{uid}-meta" class="attn-explorer-meta">{_script_json(meta)}</script>\n'
        f"<script>{loader}</script>\n"
    )
