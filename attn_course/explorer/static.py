"""커널 없는 정적 탐색기의 HTML: 조작기·그림·글 요약 자리, 명세(JSON), 불러오기 스크립트를 한 덩어리로.

노트북 출력의 ``text/html``에 들어가 빌드된 웹사이트에서 보이는 것입니다. 데이터는
``static_data.static_grid``(점수 격자)와 ``summary.summary_table``(글 요약), 그림과 계산은
``spec.explorer_spec``(Vega-Lite 명세)이 맡고, 이 모듈은 그것들을 페이지에 싣고 불러옵니다.

자바스크립트(vega, vega-lite, vega-embed)는 CDN이 아니라 사이트가 직접 올린 사본
(``_static/vendor/vega/``)을 씁니다. 그 주소는 모든 페이지에 있는 ``_static/js/offline-setup.js``의
주소에서 계산합니다(페이지마다 깊이가 달라서).
ipywidgets가 있는 페이지에는 require.js가 있고, vega의 UMD 번들은 ``define.amd``가 있으면 AMD
모듈로 등록되므로 그런 페이지에서는 require.js로, 다른 페이지에서는 script 태그로 불러옵니다.

글 요약: 그림 아래의 ``.attn-explorer-summary``(``aria-live="polite"``)는 조작기를 바꾸면 불러오기
스크립트가 ``usermeta.attnSummary``의 줄로 바꿉니다. 그림의 캔버스는 ``role="img"``이고,
``aria-label``이 지금 설정을 말하며 ``aria-describedby``가 요약을 가리킵니다.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence

from .model import DK_CHOICES, MASK_LABELS, MASKS, MAX_HEADS, PAD_TOKEN, POSITION_LABELS, check_position, check_window
from .spec import explorer_spec, param_names
from .static_data import STATIC_HEADS, STATIC_MAX_TOKENS, _static_heads, static_grid
from .summary import summary_caption, summary_html, summary_key, summary_table
from .static_layout import COLUMNS_JS
from .texts import _CONTROL_HELP, _HOW_TO_READ, NO_SUMMARY  # 조작기 설명과 읽는 법 (살아 있는 탐색기와 같은 글)

__all__ = ["explorer_html"]


# 페이지에 넣는 불러오기 스크립트. 한 페이지의 여러 탐색기가 vega를 한 번만 불러오도록
# window.__attnVega(약속, Promise)를 같이 씁니다. 만든 View는 window.__attnExplorers[id]에 둡니다
# (브라우저 테스트가 조작기를 바꾸고 계산된 가중치를 읽는 손잡이).
_LOADER_JS = """
(function () {
  "use strict";
  %(columns_js)s
  var id = %(id)s;
  var root = document.getElementById(id);
  var status = root.querySelector(".attn-explorer-status");
  var summaryBox = root.querySelector(".attn-explorer-summary");
  var meta = JSON.parse(document.getElementById(id + "-meta").textContent);
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
  function watchSummary(view, table) {
    var names = meta.params;
    if (!table || !summaryBox) { return; }
    function update() {
      var dk = view.signal(names.dk), heads = Number(view.signal(names.heads));
      var mask = view.signal(names.mask), scaled = view.signal(names.scaled);
      var pos = view.signal(names.pos), win = Number(view.signal(names.win));
      // RoPE 점수는 h = g 쌍만 있어 RoPE면 KV 헤드 수 = 헤드 수 (spec.py 의 kv_eff)
      var kv = pos === "rope" ? heads : Math.min(Number(view.signal(names.kv)), heads);
      var shift = Math.round(Math.log2(heads / kv));  // 그룹 크기 G = H / Hkv = 2^shift
      // summary.summary_key 와 같은 꼴
      var key = dk + "|" + mask + "|" + (scaled ? 1 : 0) + (shift ? "|" + shift : "") + (pos === "rope" ? "|rope" : "")
        + (win ? "|w" + win : "");
      var rows = table.index[key];
      var list = summaryBox.querySelector(".attn-explorer-summary-list");
      var items = rows ? rows.slice(0, heads).map(function (i) {
        var li = document.createElement("li");
        li.textContent = table.lines[i];
        return li;
      }) : [meta.no_summary].map(function (text) {
        var li = document.createElement("li");
        li.textContent = text;
        return li;
      });
      list.replaceChildren.apply(list, items);
      // summary_caption()과 같은 글
      var caption = "헤드별 요약 (d_k = " + dk + ", 헤드 " + heads + "개" + (kv < heads ? ", KV 헤드 " + kv + "개" : "")
        + ", 마스크 " + meta.mask_labels[mask] + ", 스케일링 " + (scaled ? "켬" : "끔")
        + (pos === "rope" ? ", 위치 " + meta.position_labels[pos] : "") + (win ? ", 창 " + win : "") + ")";
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
    [names.dk, names.heads, names.kv, names.mask, names.scaled, names.pos, names.win].forEach(function (n) {
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
  // 탐색기가 화면 가까이(800px 안) 오면 그때 vega(gzip 약 250 KB)를 불러오고 그립니다. 페이지를 여는 순간에는
  // 내려받지도 계산하지도 않아서, 휴대폰에서 글이 먼저 뜹니다 (make bench-site 의 Lighthouse 가 잼).
  function whenNear(start) {
    if (!("IntersectionObserver" in window)) { start(); return; }
    var seen = new IntersectionObserver(function (entries) {
      if (entries.some(function (e) { return e.isIntersecting; })) { seen.disconnect(); start(); }
    }, {rootMargin: "800px 0px"});
    seen.observe(root);
  }
  // 명세(약 1 MB): 노트북에서는 바로 아래 <script type="application/json"> 안에 있고, 웹사이트에서는 빌드가
  // 그것을 _static/explorer/<id>.js 로 옮기고 data-src 만 남깁니다 (attn_site/site_speed.py). 그러면 페이지 HTML 이
  // 가벼워 휴대폰에서 글이 먼저 뜨고, 명세는 탐색기가 화면 가까이 올 때 받습니다. script 태그로 받으므로
  // 파일(file://)로 연 사이트에서도 됩니다.
  function loadSpec() {
    var el = document.getElementById(id + "-spec");
    var src = el.getAttribute("data-src");
    if (!src) { return Promise.resolve(JSON.parse(el.textContent)); }
    return new Promise(function (resolve, reject) {
      var tag = document.createElement("script");
      tag.src = new URL(src, document.baseURI).href;
      tag.onload = function () {
        var spec = (window.__attnExplorerSpecs || {})[id];
        if (spec) { resolve(spec); } else { reject(new Error(src + "에 명세가 없음")); }
      };
      tag.onerror = function () { reject(new Error(src + "를 불러오지 못함")); };
      document.head.appendChild(tag);
    });
  }
  // 상자 폭이 바뀌면(화면 돌리기, 창 크기) 열 수 표를 다시 만들어 그립니다. 높이만 바뀐 것(다시 그린 그림)은 무시.
  function watchWidth(view) {
    if (!("ResizeObserver" in window)) { return; }
    var width = root.clientWidth, pending = false;
    new ResizeObserver(function () {
      if (root.clientWidth === width || pending) { return; }
      pending = true;
      requestAnimationFrame(function () {
        pending = false;
        width = root.clientWidth;
        fitter.resize(width);
        fitter.apply(view).runAsync();
      });
    }).observe(root);
  }
  var summaryTable = null;  // 명세의 usermeta.attnSummary (명세는 한 번만 읽음: 약 1 MB)
  var fitter = null;  // 열 수 고르기 (attnColumnFitter)
  whenNear(function () { Promise.all([loadVega(), loadSpec()]).then(function (got) {
    var vegaEmbed = got[0], spec = got[1];
    summaryTable = spec.usermeta && spec.usermeta.attnSummary;
    // 화면 폭에 맞춘 배치: 노트북에서는 칸 20 px, 휴대폰에서는 14 px (색 막대는 아래로). 한 줄에 넣는 헤드 수(열)는
    // 패널의 실제 폭(제목, 쿼리 이름 포함)으로 조작기 값마다 고릅니다 (static_layout.py 의 attnColumnFitter).
    var phone = root.clientWidth < 560, cell = phone ? 14 : 20;
    var facet = spec.vconcat[0];
    facet.spec.width = {step: cell};
    facet.spec.height = {step: cell};
    if (phone) { facet.spec.encoding.color.legend.orient = "bottom"; }
    fitter = attnColumnFitter(spec, meta, phone);
    fitter.resize(root.clientWidth);
    spec.vconcat[1].width = fitter.histWidth();
    // 내려받기 메뉴(…): 지금 보이는 그림을 PNG(2배 픽셀)와 SVG로. 명세 보기와 외부 편집기 링크는 뺍니다.
    return vegaEmbed(root.querySelector(".attn-explorer-view"), spec, {
      mode: "vega-lite", renderer: "canvas",
      actions: {export: true, source: false, compiled: false, editor: false},
      scaleFactor: 2, downloadFileName: "attention-explorer",
      i18n: {PNG_ACTION: "PNG로 내려받기", SVG_ACTION: "SVG로 내려받기",
             CLICK_TO_VIEW_ACTIONS: "그림 내려받기 메뉴"},
      bind: root.querySelector(".attn-explorer-controls"),
      patch: fitter.patch
    });
  }).then(function (result) {
    // 첫 그림의 실제 폭으로 열 수 표를 맞추고(바뀌면 한 번 더 그림), 상자 폭이 바뀌면 표를 다시 만듭니다.
    var view = result.view;
    return (fitter.calibrate(view) ? fitter.apply(view).runAsync() : Promise.resolve())
      .then(function () { return result; });
  }).then(function (result) {
    watchWidth(result.view);
    window.__attnExplorers = window.__attnExplorers || {};
    window.__attnExplorers[id] = result.view;
    labelRadioGroups();
    watchSummary(result.view, summaryTable);
    status.textContent = "";
    root.setAttribute("data-ready", "true");
  }).catch(function (err) {
    status.textContent = "정적 탐색기를 불러오지 못했습니다: " + err.message;
    console.error("attn explorer:", err);
  }); });
})();
"""

_STYLE = """
.attn-explorer { margin: 0.5rem 0 1rem; overflow-x: auto; }
/* 내려받기 메뉴(…) 단추: vega-embed 는 그림 오른쪽에 38 px 띠를 비워 두지만, 휴대폰에서는 그 폭이 헤드 한 열보다
   귀하므로 그림 위쪽 띠로 옮깁니다 (단추는 오른쪽 위 그대로). */
.attn-explorer .vega-embed.has-actions { padding-right: 0; padding-top: 30px; }
.attn-explorer-controls .vega-bind { display: inline-block; margin: 0 1.2rem 0.3rem 0; font-size: 0.9rem; }
.attn-explorer-controls .vega-bind-name { font-weight: 600; margin-right: 0.3rem; }
.attn-explorer-controls .vega-bind-radio label { margin-right: 0.5rem; }
.attn-explorer-status { color: #555; font-size: 0.9rem; }
.attn-explorer-summary { font-size: 0.9rem; margin-top: 0.4rem; }
.attn-explorer-help { font-size: 0.85rem; margin: 0 0 0.4rem; }
.attn-explorer-help ul, .attn-explorer-how ul { margin: 0.2rem 0; padding-left: 1.2rem; }
.attn-explorer-how { font-size: 0.85rem; margin-top: 0.4rem; }
.attn-explorer-how-title { font-weight: 600; margin: 0; }
.attn-explorer-summary-caption { font-weight: 600; margin: 0 0 0.2rem; }
.attn-explorer-summary-list { margin: 0; padding-left: 1.2rem; }
"""


_html_count = [0]  # 이 프로세스에서 만든 정적 탐색기 수


def _script_json(value: object) -> str:
    """``<script type="application/json">`` 안에 안전하게 넣을 JSON (``</``를 끊음)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.replace("</", "<\\/")


def explorer_html(
    tokens: Sequence[str], seed: int, *, d_k: int = 64, num_heads: int = 4, mask: str = "none", scaled: bool = True,
    num_kv_heads: int | None = None, position: str = "none", window: int | None = None,
) -> str:
    """정적 탐색기 HTML 한 덩어리: 조작기 자리, 그림 자리, 명세(JSON), 불러오기 스크립트.

    문장이 ``STATIC_MAX_TOKENS``개를 넘으면 탐색기 대신 한국어 안내를 돌려줍니다.

    Args:
        tokens: 실제 토큰.
        seed: 모델 시드.
        d_k, num_heads, mask, scaled: 처음 보일 설정.
        num_kv_heads: 처음 보일 키·밸류 헤드 수 (``None``이면 헤드 수). RoPE면 헤드 수로 봅니다 (``static_data``).
        position, window: 처음 보일 위치(``"none"``, ``"rope"``)와 창(``None``, 3).

    Returns:
        노트북 출력의 ``text/html``에 넣을 문자열.

    Shape:
        - 해당 없음 (HTML 문자열; 명세 크기는 토큰 8개일 때 약 1.2 MB, gzip으로 약 190 KB: 점수 약 640 KB
          (그룹 쿼리 어텐션의 쿼리·키 헤드 쌍까지), 글 요약 약 600 KB (gzip 약 40 KB))
    """
    tokens = list(tokens)
    if len(tokens) > STATIC_MAX_TOKENS:
        return (f'<p class="attn-explorer-note">정적 웹페이지의 탐색기는 토큰 {STATIC_MAX_TOKENS}개까지 '
                f"보여 줍니다 (지금 {len(tokens)}개). 노트북에서 실행하면 조작기가 움직입니다.</p>")
    grid = static_grid(tokens, seed)
    grid["summary"] = summary_table(tokens, seed)
    # 같은 입력이면 같은 HTML (빌드 재현성). 한 커널에서 같은 탐색기를 또 보여도 id가 겹치지 않게 번호를 섞음.
    _html_count[0] += 1
    position, window = check_position(position), check_window(window)
    extra = [position, window] if position != "none" or window is not None else []  # 기본 설정의 id는 예전과 같게
    settings = [tokens, seed, d_k, num_heads, mask, bool(scaled), num_kv_heads, *extra, _html_count[0]]
    key = hashlib.sha1(json.dumps(settings, ensure_ascii=False).encode("utf-8")).hexdigest()[:12]
    uid = f"attn-explorer-{key}"
    spec = explorer_spec(grid, d_k=d_k, num_heads=num_heads, mask=mask, scaled=scaled, key=key,
                         num_kv_heads=num_kv_heads, position=position, window=window)
    meta = {"tokens": tokens, "seed": seed, "n": grid["n"], "P": grid["P"], "params": param_names(key),
            "dk_choices": list(DK_CHOICES), "heads_choices": list(STATIC_HEADS), "masks": list(MASKS),
            "max_heads": MAX_HEADS, "mask_labels": MASK_LABELS, "pad_token": PAD_TOKEN,
            "position_labels": POSITION_LABELS, "no_summary": NO_SUMMARY,
            "data_bytes": len(_script_json(spec).encode("utf-8"))}
    loader = _LOADER_JS % {"id": json.dumps(uid), "columns_js": COLUMNS_JS}
    heads = _static_heads(num_heads)
    kv = min(heads, next(p["value"] for p in spec["params"] if p["name"] == param_names(key)["kv"]))  # 실제 KV 헤드 수
    kv = heads if position == "rope" else kv  # RoPE 점수는 h = g 쌍만 (spec.py 의 kv_eff)
    table = grid["summary"]
    state = summary_key(d_k, mask, scaled, (heads // kv).bit_length() - 1, position, window)
    lines = [table["lines"][i] for i in table["index"][state][:heads]] if state in table["index"] else [NO_SUMMARY]
    summary = summary_html(summary_caption(d_k, heads, mask, scaled, kv, position, window), lines,
                           element_id=f"{uid}-summary", state=f"{state}|{heads}")
    return (
        f"<style>{_STYLE}</style>\n"
        f'<div class="attn-explorer" id="{uid}" lang="ko">\n'
        f'<div class="attn-explorer-controls"></div>\n'
        f"{_CONTROL_HELP}\n"
        f'<p class="attn-explorer-status">정적 탐색기를 불러오는 중입니다. 자바스크립트가 필요합니다.</p>\n'
        f'<div class="attn-explorer-view"></div>\n'
        f"{_HOW_TO_READ}\n"
        f"{summary}\n"
        f"</div>\n"
        f'<script type="application/json" id="{uid}-spec">{_script_json(spec)}</script>\n'
        f'<script type="application/json" id="{uid}-meta" class="attn-explorer-meta">{_script_json(meta)}</script>\n'
        f"<script>{loader}</script>\n"
    )
