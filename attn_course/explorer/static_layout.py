"""정적 탐색기의 배치: 헤드 히트맵을 한 줄에 몇 개(열) 놓을지를 패널의 실제 폭으로 고르는 자바스크립트.

한 줄의 폭은 쿼리 축(토큰 이름, 눈금, 축 이름 "쿼리")과 열마다 헤드 패널 하나(히트맵 ``칸 × 토큰 수``와 그 위의
제목 "헤드 3 · KV 그룹 1" 가운데 넓은 것), 열 사이 간격, 색 막대(노트북 폭에서만 오른쪽에)의 합입니다.
토큰 이름과 제목의 폭은 브라우저가 그릴 글꼴로 잽니다(``canvas`` 의 ``measureText``, Vega 가 글자 폭을 재는
방법과 같음). 그래서 한글 토큰, ``[PAD]``, 두 자리 헤드 번호, "KV 그룹" 제목까지 모두 폭에 들어갑니다.

열 수는 조작기(헤드 수, 마스크, KV 헤드 수)에 따라 달라지므로, 상자 폭에서 조작기 값마다의 열 수를 표 하나로
미리 계산해 Vega 신호(``attnColumnTable``)에 넣고, 열 수 신호(``attnColumns``)가 지금 조작기 값으로 표를 읽습니다.
조작기를 바꾸면 같은 계산(펄스) 안에서 열 수가 정해지므로 다시 그리기가 한 번뿐입니다. 열 수는 마스크에 따라서도
달라집니다(패딩이면 ``[PAD]`` 칸과 이름이 붙어 패널이 넓음): 가장 넓은 마스크에 맞춰 고정하면 흔한 경우(노트북 폭,
마스크 없음, 헤드 4개)가 한 줄 4개에서 3 + 1 로 줄기 때문입니다.
Vega-Lite 의 facet ``columns`` 는 숫자만 받으므로, 컴파일된 Vega 명세에서 열 수를 그 신호로 바꿉니다(``patch``).

처음 그림을 그린 뒤 장면 그래프(scenegraph)에서 쿼리 축의 실제 폭, 색 막대 자리, 패널의 실제 폭을 재어 글자 폭으로
계산한 값을 맞추고(``calibrate``), 상자 폭이 바뀌면(화면 돌리기, 창 크기) 표를 다시 만듭니다.
조작기가 늘어 배치에 영향을 주면(예: 보이는 토큰을 바꾸는 조작기) ``LAYOUT_KEY`` 와 ``shownLabels`` 에 더합니다.
"""

from __future__ import annotations

__all__: list[str] = []  # 불러오기 스크립트(static._LOADER_JS)에 붙는 자바스크립트 조각

#: ``attnColumnFitter(spec, meta, phone)``: 명세(컴파일 전 Vega-Lite)와 메타 정보로 열 수를 고르는 도구.
#: 돌려주는 것: ``table(box)`` (상자 폭 -> 조작기 값마다의 열 수), ``patch(vg)`` (vega-embed 의 patch),
#: ``calibrate(view)`` (그린 뒤 실제 폭으로 맞춤; 표가 바뀌면 true), ``apply(view)`` (표와 히스토그램 폭을 신호로).
COLUMNS_JS = r"""
function attnColumnFitter(spec, meta, phone) {
  var TABLE = "attnColumnTable", COLUMNS = "attnColumns";
  var names = meta.params, facet = spec.vconcat[0];
  var header = facet.facet.header, yAxis = facet.spec.encoding.y.axis;
  var family = (spec.config && spec.config.font) || "sans-serif";
  var cell = facet.spec.width.step, gap = facet.spacing, maxColumns = facet.columns, histMax = spec.vconcat[1].width;
  var histSignal = null;  // 컴파일된 명세에서 히스토그램 폭의 신호 이름 (patch 가 찾음)
  var titleFont = (header.labelFontWeight || "normal") + " " + header.labelFontSize + "px " + family;
  var labelFont = yAxis.labelFontSize + "px " + family;
  // 처음 값: Vega 기본 설정(쿼리 축 = 눈금 5 + 간격 2 + 글자 + 간격 4 + 축 이름 11, 색 막대 = 간격 18 + 폭 66,
  // 그림 둘레 5 + 5). 첫 그림을 그린 뒤 장면 그래프에서 잰 값으로 바꿉니다 (calibrate).
  var room = {axis: 22, legend: phone ? 0 : 84, padding: 10, panel: 0};
  var ctx = document.createElement("canvas").getContext("2d"), measured = {};
  var table = {}, box = 0;
  function textWidth(text, font) {
    var k = font + "\n" + text;
    if (!(k in measured)) { ctx.font = font; measured[k] = ctx.measureText(text).width; }
    return measured[k];
  }
  // 쿼리 축에 보이는 토큰 (패딩 마스크면 [PAD] 까지)
  function shownLabels(mask) {
    var shown = meta.tokens.slice();
    if (mask.indexOf("padding") >= 0) { while (shown.length < meta.P) { shown.push(meta.pad_token); } }
    return shown;
  }
  // 헤드 패널의 제목 (spec.py 의 header.labelExpr 와 같은 글)
  function title(h, heads, kv) {
    return "헤드 " + h + (kv < heads ? " · KV 그룹 " + Math.floor(h / (heads / kv)) : "");
  }
  function axisWidth(mask) {
    return room.axis + Math.max.apply(null, shownLabels(mask).map(function (t) { return textWidth(t, labelFont); }));
  }
  function heatmapWidth(mask) { return cell * shownLabels(mask).length; }
  // 헤드 패널 한 칸의 폭: 히트맵(칸 x 토큰 수)과 그 위의 가장 넓은 제목 가운데 넓은 것 (Vega 가 올림한 픽셀)
  function panelWidth(heads, mask, kv) {
    var widest = heatmapWidth(mask);
    for (var h = 0; h < heads; h++) { widest = Math.max(widest, textWidth(title(h, heads, kv), titleFont)); }
    return Math.ceil(widest + room.panel);
  }
  // 히트맵 왼쪽 끝에서 그림 왼쪽 끝까지: 쿼리 축과, 히트맵보다 넓은 제목이 왼쪽으로 나간 만큼 (제목은 가운데 정렬)
  function leftWidth(heads, mask, kv) {
    return axisWidth(mask) + Math.max(0, (panelWidth(heads, mask, kv) - heatmapWidth(mask)) / 2);
  }
  // 한 줄에 c개: 쿼리 축 + c x 패널 + (c - 1) x 간격
  function columns(width, heads, mask, kv) {
    var free = width - room.padding - room.legend - axisWidth(mask) - 1;  // 1 px: 반올림 여유
    var fit = Math.floor((free + gap) / (panelWidth(heads, mask, kv) + gap));
    return Math.max(1, Math.min(maxColumns, heads, fit));
  }
  function eachState(visit) {
    meta.heads_choices.forEach(function (heads) {
      meta.masks.forEach(function (mask) {
        meta.heads_choices.forEach(function (kv) { if (kv <= heads) { visit(heads, mask, kv); } });
      });
    });
  }
  function makeTable(width) {
    var out = {};
    eachState(function (heads, mask, kv) { out[heads + "|" + mask + "|" + kv] = columns(width, heads, mask, kv); });
    return out;
  }
  // 조작기 값 -> 표의 열쇠 (KV 헤드 수가 헤드 수보다 크거나 위치가 RoPE면 헤드 수로 봄: spec.py 의 kv_eff)
  var LAYOUT_KEY = names.heads + " + '|' + " + names.mask + " + '|' + (" + names.pos + " == 'rope' ? " + names.heads
    + " : min(" + names.kv + ", " + names.heads + "))";
  // vega-embed 의 patch: 컴파일된 Vega 명세의 facet 열 수(숫자)를 신호로 바꿉니다. 줄 머리(쿼리 축)와 열 꼬리(키 축)의
  // 수를 정하는 sequence 는 끝(stop)을 신호로 두지 않고 가장 많은 수까지 만든 뒤 거릅니다(filter): sequence 는 변수가
  // 바뀐 것으로 보일 때마다 축을 모두 새로 만들어서, 열 수가 그대로인 마스크 바꾸기도 느려졌습니다 (1280 px, 헤드 8개,
  // make bench 의 조작 순서: 중앙값 약 14 -> 20 ms). 패널 수는 헤드 수와 같습니다 (spec.py 가 h < 헤드 수만 남김).
  function patch(vg) {
    var prefix = null, changed = 0;
    (vg.data || []).forEach(function (d) {
      var m = /^(.+)_facet_domain_(row|column)$/.exec(d.name);
      if (!m || !d.transform || !d.transform[0] || d.transform[0].type !== "sequence") { return; }
      prefix = m[1];
      var as = d.transform[0].as || "data", heads = names.heads;
      d.transform[0].stop = meta.max_heads;
      d.transform.push({type: "filter", expr: "datum." + as + " < " + (m[2] === "row"
        ? "ceil(" + heads + " / " + COLUMNS + ")" : "min(" + heads + ", " + COLUMNS + ")")});
      changed += 1;
    });
    (function walk(marks) {
      (marks || []).forEach(function (mark) {
        if (mark.type === "group" && mark.name === prefix + "_group" && mark.layout) {
          mark.layout.columns = {signal: COLUMNS};
          changed += 1;
        }
        walk(mark.marks);
      });
    })(vg.marks);
    if (changed !== 3) { throw new Error("열 수를 바꿀 자리를 컴파일된 명세에서 찾지 못함 (" + changed + "/3)"); }
    // 히스토그램(두 번째 보기)의 폭 신호: 상자 폭이 바뀌면 같이 바꿉니다 (못 찾으면 처음 폭 그대로)
    (vg.signals || []).forEach(function (sg) {
      if (/^concat_1_width$/.test(sg.name) && typeof sg.value === "number") { histSignal = sg.name; }
    });
    vg.signals = (vg.signals || []).concat([
      {name: TABLE, value: table},
      {name: COLUMNS, update: TABLE + "[" + LAYOUT_KEY + "] || 1"}]);
    return vg;
  }
  // 히스토그램의 폭: 두 보기는 그림 영역의 왼쪽 끝이 맞춰지고 헤드 히트맵 쪽이 왼쪽으로 더 나가므로(쿼리 축, 넓은 제목),
  // 모든 조작기 값에서 가장 많이 나간 만큼과 색 막대를 뺀 폭 (histMax 이하; 조작기를 바꿔도 폭이 그대로).
  // 히스토그램 아래 글(가장 긴 줄 약 190 px)도 이 폭 안에 듭니다.
  function histWidth() {
    var left = 0;
    eachState(function (heads, mask, kv) { left = Math.max(left, leftWidth(heads, mask, kv)); });
    return Math.max(160, Math.min(histMax, Math.floor(box - room.padding - room.legend - left - 1)));
  }
  function resize(width) {
    box = width;
    table = makeTable(width);
    return table;
  }
  function state(view) {
    var heads = Number(view.signal(names.heads));
    var kv = view.signal(names.pos) === "rope" ? heads : Math.min(Number(view.signal(names.kv)), heads);
    return {heads: heads, mask: view.signal(names.mask), kv: kv};
  }
  // 그린 뒤: 장면 그래프에서 쿼리 축, 패널, 색 막대의 실제 폭을 재어 맞춥니다. 표가 바뀌면 true.
  function calibrate(view) {
    var top = view.scenegraph().root.items[0], s = state(view), grid = null, right = -Infinity, legend = null;
    top.items.forEach(function (mark) {
      var item = mark.items && mark.items[0];
      if (!item) { return; }
      if (mark.role === "legend") { legend = item; return; }
      right = Math.max(right, item.bounds.x2);
      if (item.items && item.items.some(function (m) { return m.role === "row-header"; })) { grid = item; }
    });
    if (!grid) { return false; }
    var axis = null, panel = 0;
    grid.items.forEach(function (m) {
      if (m.role === "row-header" && m.items[0]) { axis = m.items[0].bounds.width(); }
      if (m.role === "scope") { m.items.forEach(function (it) { panel = Math.max(panel, it.bounds.width()); }); }
    });
    var pad = view.padding();
    var before = JSON.stringify(table) + histWidth();
    if (axis !== null) { room.axis += axis - axisWidth(s.mask); }
    if (panel > 0) { room.panel = Math.max(0, room.panel + panel - panelWidth(s.heads, s.mask, s.kv)); }  // 보통 0
    room.legend = legend && legend.bounds.x1 >= right - 1 ? legend.bounds.x2 - right : 0;
    room.padding = (pad.left || 0) + (pad.right || 0);
    resize(box);
    return JSON.stringify(table) + histWidth() !== before;
  }
  // 조작기 값마다의 열 수 표와 히스토그램 폭을 그림에 넣습니다 (Vega 신호; 그다음 runAsync 로 다시 그림)
  function apply(view) {
    view.signal(TABLE, table);
    if (histSignal) { view.signal(histSignal, histWidth()); }
    return view;
  }
  return {patch: patch, resize: resize, calibrate: calibrate, apply: apply, histWidth: histWidth,
          table: function () { return table; }, TABLE: TABLE, COLUMNS: COLUMNS};
}
"""
