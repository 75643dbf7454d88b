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

from .model import DK_CHOICES, MASK_LABELS, MASKS
from .static_data import STATIC_HEADS, _static_heads

__all__ = ["SATURATION_THRESHOLD", "param_names", "explorer_spec"]

#: 포화로 보는 행 최댓값 (``metrics.saturation``의 기본값과 같음)
SATURATION_THRESHOLD = 0.99


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
