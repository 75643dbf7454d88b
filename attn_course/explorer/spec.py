"""정적 탐색기의 Vega-Lite 명세: 조작기, 브라우저에서 하는 계산(변환), 히트맵과 포화 히스토그램.

데이터(``static_data.static_grid``의 점수 격자)는 빌드할 때 미리 계산해 명세 안에 넣고, 브라우저
(Vega-Lite)가 하는 일은 이 명세가 정합니다: 고른 ``d_k``와 헤드만 남기기, ``1/sqrt(d_k)`` 곱하기, 마스크,
행마다 최댓값을 빼고 ``exp``, 합으로 나누기(소프트맥스), 행 엔트로피와 포화 비율, 그리고 그리기.

명세(spec)는 이 모듈이 JSON(파이썬 사전)으로 직접 적고, 테스트가 Altair에 든 Vega-Lite 스키마로
검사합니다. (Altair의 차트 API로는 vconcat 안의 facet이 맨 위의 데이터·변환·조작기를 물려받는 이
구성에 우회가 필요하고, altair import에만 2초 넘게 걸립니다.)
"""

from __future__ import annotations

import json

from .model import (DK_CHOICES, KV_BYTES_PER_ELEMENT, MASK_LABELS, MASKS, POSITION_LABELS, POSITIONS, WINDOW_LABELS,
                    WINDOWS)
from .static_data import STATIC_HEADS, _static_heads

__all__ = ["SATURATION_THRESHOLD", "MASKED_COLOR", "param_names", "explorer_spec"]

#: 포화로 보는 행 최댓값 (``metrics.saturation``의 기본값과 같음)
SATURATION_THRESHOLD = 0.99
#: 한 줄에 놓는 헤드 히트맵 수의 최댓값 (실제 열 수는 패널 폭과 상자 폭으로 브라우저가 고름)
MAX_COLUMNS = 4
#: 마스크로 가려진 칸의 색 (가중치 0의 viridis 진한 보라와 구별되는 밝은 회색)
MASKED_COLOR = "#c8c8c8"


def param_names(key: str) -> dict[str, str]:
    """탐색기 하나의 조작기 이름 (``dk_<key>`` 등).

    vega는 라디오 단추의 ``name``을 조작기 이름으로 두므로, 한 페이지에 탐색기가 여럿이면 이름이
    겹치지 않아야 라디오 묶음이 서로를 끄지 않습니다.

    Shape:
        - 해당 없음 (이름 사전)
    """
    return {p: f"{p}_{key}" for p in ("dk", "heads", "kv", "mask", "scaled", "pos", "win")}


def explorer_spec(
    grid: dict, *, d_k: int = 64, num_heads: int = 4, mask: str = "none", scaled: bool = True, key: str = "0",
    num_kv_heads: int | None = None, position: str = "none", window: int | None = None,
) -> dict:
    """정적 탐색기의 Vega-Lite 명세 (JSON으로 바꿀 수 있는 사전).

    조작기(bound params): ``dk``(선택), ``heads``(라디오), ``kv``(선택: 키·밸류 헤드 수, 헤드 수보다 크면
    헤드 수로 봄; 가장 큰 값은 "헤드 수와 같게"로 보이고 처음 값), ``mask``(라디오, 한국어 이름), ``scaled``(체크박스). 헤드 수가 2의 거듭제곱이므로 그보다 작은
    2의 거듭제곱은 모두 헤드 수를 나눕니다. 쿼리 헤드 ``h``는 키 헤드 ``floor(h / (H / Hkv))``의 점수 행을 씁니다. 맨 위의 변환(transform)이 고른 격자점의 점수를 펴고, 스케일링, 마스크,
    소프트맥스를 계산합니다. 히트맵(헤드별 facet)과 포화 히스토그램이 그 결과를 같이 씁니다.
    ``pos``(라디오: 없음/RoPE)는 RoPE 점수 행(``r = 1``, ``d_k >= 2``)을 고르고, RoPE를 고르면 KV 헤드 수를 헤드 수로
    봅니다(RoPE 점수는 ``h = g`` 쌍만 저장). ``win``(라디오: 0 = 전체, 3)은 마스크와 함께 걸리는 창
    (``sliding_window_mask``)이고, 모두 가려진 행의 가중치는 0입니다(``attn_lib``과 같음).
    계산된 가중치는 히트맵 칸마다 필드 ``h, q, k, w``로 있습니다.

    Args:
        grid: ``static_grid``의 결과.
        d_k, num_heads, mask, scaled: 처음 보일 설정 (헤드 수는 1, 2, 4, 8, 16 중 그 이하인 가장 큰 값).
        num_kv_heads: 처음 보일 키·밸류 헤드 수 (``None``이면 헤드 수).
        position, window: 처음 보일 위치(``"none"``, ``"rope"``)와 창(``None``, 3).
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
    dk, heads, mask_, scaled_, kv = names["dk"], names["heads"], names["mask"], names["scaled"], names["kv"]
    pos, win = names["pos"], names["win"]
    heads0 = _static_heads(num_heads)
    # KV 헤드 수를 따로 고르지 않으면 가장 큰 값("헤드 수와 같게"): 헤드 수를 바꿔도 보통의 멀티헤드로 남습니다
    # (살아 있는 탐색기에서 KV 헤드 수가 헤드 수를 따라가는 것과 같음).
    kv_all = max(STATIC_HEADS)
    kv0 = (kv_all if num_kv_heads is None or num_kv_heads >= heads0
           else max(h for h in STATIC_HEADS if h <= num_kv_heads))
    # 고른 KV 헤드 수가 헤드 수보다 크면 헤드 수 (보통의 멀티헤드). RoPE 점수는 h = g 쌍만 있어 RoPE면 헤드 수.
    kv_eff = f"({pos} == 'rope' ? {heads} : min({kv}, {heads}))"
    group = f"({heads} / {kv_eff})"  # 그룹 크기 G = H / Hkv
    causal, padding = f"indexof({mask_}, 'causal') >= 0", f"indexof({mask_}, 'padding') >= 0"
    params = [
        {"name": dk, "value": d_k, "bind": {"input": "select", "options": list(DK_CHOICES), "name": "d_k "}},
        {"name": heads, "value": heads0,
         "bind": {"input": "radio", "options": list(STATIC_HEADS), "name": "헤드 수 "}},
        {"name": kv, "value": kv0,
         "bind": {"input": "select", "options": list(STATIC_HEADS),
                  "labels": [str(h) for h in STATIC_HEADS if h < kv_all] + ["헤드 수와 같게"], "name": "KV 헤드 수 "}},
        {"name": mask_, "value": mask, "bind": {"input": "radio", "options": list(MASKS),
                                                "labels": [MASK_LABELS[m] for m in MASKS], "name": "마스크 "}},
        {"name": scaled_, "value": bool(scaled), "bind": {"input": "checkbox", "name": "1/√d_k 스케일링 "}},
        {"name": pos, "value": position, "bind": {"input": "radio", "options": list(POSITIONS),
                                                  "labels": [POSITION_LABELS[p] for p in POSITIONS], "name": "위치 "}},
        {"name": win, "value": window or 0, "bind": {"input": "radio", "options": [w or 0 for w in WINDOWS],
                                                     "labels": [WINDOW_LABELS[w] for w in WINDOWS], "name": "창 "}},
    ]
    cell_px = max(10, min(14, 112 // P))  # 히트맵 칸 하나의 픽셀 크기 (페이지에서는 불러오기 스크립트가 화면 폭으로 정함)
    transform = [
        # 고른 d_k의 앞쪽 heads개 쿼리 헤드와, 각 쿼리 헤드가 쓰는 키 헤드 floor(h / G)의 점수만 펼칩니다.
        # RoPE 점수(r = 1)는 d_k >= 2만 있습니다 (d_k = 1은 돌릴 짝이 없어 없음과 같음).
        {"filter": f"datum.dk == {dk} && datum.h < {heads} && datum.g == floor(datum.h / {group}) "
                   f"&& datum.r == ({pos} == 'rope' && {dk} > 1 ? 1 : 0)"},
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
        # 창: 자기와 앞쪽 win - 1개 (그 자체로 인과), 마스크와 함께 (sliding_window_mask와 combine_masks)
        {"calculate": f"!({causal} && datum.k > datum.q) && !({padding} && datum.k >= {n}) "
                      f"&& !({win} > 0 && (datum.k > datum.q || datum.q - datum.k >= {win}))", "as": "ok"},
        # 스케일링 다음 마스크(가려진 칸은 null), 그다음 행마다 소프트맥스
        {"calculate": f"datum.ok ? datum.s * ({scaled_} ? 1 / sqrt({dk}) : 1) : null", "as": "z"},
        {"joinaggregate": [{"op": "max", "field": "z", "as": "zmax"}], "groupby": ["h", "q"]},
        {"calculate": "datum.ok ? exp(datum.z - datum.zmax) : 0", "as": "e"},
        {"joinaggregate": [{"op": "sum", "field": "e", "as": "esum"}], "groupby": ["h", "q"]},
        {"calculate": "datum.esum > 0 ? datum.e / datum.esum : 0", "as": "w"},  # 모두 가려진 행은 0
        {"calculate": "datum.w > 0 ? -datum.w * log(datum.w) : 0", "as": "plogp"},
        {"joinaggregate": [{"op": "sum", "field": "plogp", "as": "rowent"},
                           {"op": "max", "field": "w", "as": "rowmax"}], "groupby": ["h", "q"]},
    ]
    token_axis = {"labelExpr": f"{labels}[datum.value]", "labelFontSize": 10}
    heatmaps = {
        "facet": {"field": "h", "type": "ordinal", "title": None,
                  "header": {"labelExpr": f"'헤드 ' + datum.value + ({kv_eff} < {heads} ? ' · KV 그룹 ' "
                                          f"+ floor(datum.value / {group}) : '')",
                             "labelFontSize": 11,
                             # 같은 키·밸류를 쓰는 헤드 묶음(그룹)마다 번갈아 다른 색 (그룹이 눈에 보이게). 열 수를 정한
                             # facet 에서 제목은 칸(그룹 표식)의 제목이 되므로 헤드 번호는 parent.h 에 있습니다
                             # (labelExpr 의 datum.value 는 Vega-Lite 가 parent["h"] 로 바꾸지만 labelColor 는 그대로 둠).
                             "labelColor": {"expr": f"{kv_eff} < {heads} && floor(parent.h / {group}) % 2 == 1 "
                                                    "? '#D55E00' : '#0072B2'"},
                             "labelFontWeight": "bold"}},
        # 한 줄에 놓는 헤드 수의 최댓값. 실제 열 수는 브라우저가 패널의 실제 폭(제목, 쿼리 이름 포함)과 상자 폭으로
        # 조작기 값마다 고릅니다 (static_layout.py): 컴파일된 Vega 명세에서 이 숫자가 신호로 바뀝니다.
        "columns": MAX_COLUMNS,
        "spacing": 20,  # 열 사이 간격 (Vega-Lite 기본값과 같음; 열 수 계산이 읽음)
        "spec": {
            "width": {"step": cell_px}, "height": {"step": cell_px},
            "mark": "rect",
            "encoding": {
                "x": {"field": "k", "type": "ordinal", "title": "키", "axis": {**token_axis, "labelAngle": -60}},
                "y": {"field": "q", "type": "ordinal", "title": "쿼리", "axis": token_axis},
                # 마스크로 가려진 칸은 회색(MASKED_COLOR): 가중치 0(진한 보라)과 구별됩니다. 읽는 법은 그림 아래 글에.
                "color": {"condition": {"test": "!datum.ok", "value": MASKED_COLOR},
                          "field": "w", "type": "quantitative", "title": "어텐션 가중치",
                          "scale": {"scheme": "viridis", "domain": [0, 1]},
                          "legend": {"gradientLength": 120, "orient": "right"}},
                "tooltip": [{"field": "qtok", "title": "쿼리"}, {"field": "ktok", "title": "키"},
                            {"field": "w", "type": "quantitative", "title": "가중치", "format": ".3f"}],
            },
        },
    }
    width = 300
    # 두 줄 (휴대폰의 좁은 히스토그램에서도 잘리지 않게; Vega 의 text 는 문자열 배열을 줄마다 그림)
    stats_label = ("['포화 히스토그램: 포화 행 ' + format(datum.share, '.0%') + ',', '평균 엔트로피 ' "
                   "+ format(datum.ent, '.2f') + ' nat']")
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
                    # 보통(선형) 눈금: 5와 20이 눈으로 구별되고 설명이 필요 없습니다
                    "y": {"aggregate": "count", "type": "quantitative", "title": "칸 수",
                          "axis": {"tickMinStep": 1, "format": "d"}},
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
                         "fontWeight": "bold", "dy": -22, "lineHeight": 15},
                "encoding": {"text": {"field": "label"}, "x": {"value": 0}, "y": {"value": 0}},
            },
            {
                # KV 캐시 읽기: 토큰 하나, 층 하나가 캐시에 더하는 바이트 (model.kv_cache_bytes_per_token)
                "transform": [
                    {"filter": "datum.k == 0 && datum.q == 0 && datum.h == 0"},
                    # 여러 줄 글 (Vega의 text는 문자열 배열을 줄마다 그림): 휴대폰 폭에서도 잘리지 않게. 가장 긴 줄은
                    # 약 190 px (11 px 글꼴): 곱셈과 그 값을 두 줄로 나눕니다 (한 줄이면 KV 헤드 16, d_k 512에서 약 280 px).
                    {"calculate": (f"['KV 캐시 (토큰 하나, 층 하나, float32):', '2 × KV 헤드 ' + {kv_eff} + ' × d_k ' "
                                   f"+ {dk} + ' × {KV_BYTES_PER_ELEMENT}바이트', '= ' + format(2 * {kv_eff} * {dk} * "
                                   f"{KV_BYTES_PER_ELEMENT}, ',') + '바이트', '(헤드마다 따로 두면 ' + format(2 * {heads} * "
                                   f"{dk} * {KV_BYTES_PER_ELEMENT}, ',') + '바이트)']"),
                     "as": "kvlabel"},
                ],
                "mark": {"type": "text", "align": "left", "baseline": "top", "fontSize": 11, "dy": 40},
                "encoding": {"text": {"field": "kvlabel"}, "x": {"value": 0}, "y": {"value": 140}},
            },
        ],
    }
    spec = {
        "data": {"values": grid["rows"]},
        "params": params,
        "transform": transform,
        "vconcat": [heatmaps, histogram],
        "spacing": 16,
        # resize: 조작기를 바꿀 때마다 그림 크기를 다시 잽니다. 기본값(false)에서는 헤드를 16개로 늘려도 캔버스가
        # 처음 크기(헤드 1개일 때)로 남아 아래 헤드와 히스토그램이 잘렸습니다.
        "autosize": {"type": "pad", "resize": True},
        "config": {"font": "sans-serif", "view": {"stroke": None}},
    }
    if "summary" in grid:
        spec["usermeta"] = {"attnSummary": grid["summary"]}
    return spec
