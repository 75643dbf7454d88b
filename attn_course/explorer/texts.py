"""탐색기의 설명 글: 조작기마다 한 줄 설명과 "이 그림을 읽는 법" (정적·살아 있는 탐색기가 같이 씀).

글은 한 곳에만 있습니다. 정적 탐색기(``static``)는 완성된 HTML ``_CONTROL_HELP``, ``_HOW_TO_READ``를
페이지에 싣고, 살아 있는 탐색기(``live``)는 같은 줄로 ``live_control_help_html``,
``live_how_to_read_html``을 만들어 ipywidgets HTML로 보여 줍니다. 살아 있는 탐색기에만 있는 조작기
(문장, 시드)의 줄은 그쪽에만, 내려받기 메뉴(정적 탐색기에만 있음)의 줄은 정적 쪽에만 들어갑니다.
"""

from __future__ import annotations

from .spec import SATURATION_THRESHOLD

__all__ = ["CONTROL_HELP", "LIVE_CONTROL_HELP", "HOW_TO_READ", "MASKED_LEGEND", "STATIC_NOTES", "NO_SUMMARY",
           "live_control_help_html", "live_how_to_read_html"]

#: 두 탐색기에 다 있는 조작기: (살아 있는 탐색기의 조작기 이름, 보이는 이름, 한 줄 설명)
CONTROL_HELP: tuple[tuple[str, str, str], ...] = (
    ("d_k", "d_k", "헤드마다 쿼리·키 벡터의 길이. 길수록 점수가 커집니다."),
    ("num_heads", "헤드 수", "나란히 그리는 헤드(히트맵)의 수."),
    ("num_kv_heads", "KV 헤드 수", "키·밸류를 따로 갖는 헤드의 수. 헤드 수보다 작으면 여러 헤드가 키·밸류를 나눠 씁니다"
                                   "(그룹 쿼리 어텐션)."),
    ("mask", "마스크", "인과(미래 가리기), 패딩([PAD] 가리기), 또는 둘 다."),
    ("scaled", "1/√d_k 스케일링", "끄면 점수를 √d_k로 나누지 않습니다."),
    ("position", "위치", "RoPE를 고르면 쿼리와 키를 토큰의 위치만큼 돌려, 점수가 두 토큰의 거리에 달리게 합니다. "
                        "학습하지 않은 무작위 모델이라 거리 무늬가 보이도록, 이때 헤드마다 모든 토큰의 쿼리·키에 같은 "
                        "성분을 더합니다(가장 빨리 도는 평면에만). 그 부분의 점수는 거리 d에 대해 cos d라서 점수가 대각선을 "
                        "따라 비슷해지고(자기 자신과 가까운 토큰이 커짐), 약 6.3칸마다 되풀이됩니다. d_k = 1이면 돌릴 짝이 없어 없음과 같습니다."),
    ("window", "창", "3을 고르면 쿼리마다 자기 자신과 바로 앞 두 토큰만 봅니다(슬라이딩 윈도). 창은 그 자체로 "
                    "미래를 가리므로 마스크가 없음이어도 대각선 왼쪽의 띠만 남고, 인과·패딩 마스크와는 함께 걸려 두 "
                    "조건을 다 지키는 칸만 남습니다. 패딩과 함께면 창 안이 모두 [PAD]인 [PAD] 행은 전부 가려져 "
                    "가중치가 0입니다."),
)
#: 살아 있는 탐색기의 조작기 전부 (위 일곱에 문장과 시드를 앞에 더함, 위젯의 배치 순서)
LIVE_CONTROL_HELP: tuple[tuple[str, str, str], ...] = (
    ("tokens", "문장", "공백으로 나눈 토큰(16개까지). 고친 뒤 Enter를 누르면 다시 계산합니다."),
    ("seed", "시드", "학습하지 않은 무작위 투영을 정하는 수. 바꾸면 다른 모델의 헤드를 봅니다."),
    *CONTROL_HELP,
)
#: 그림 아래의 읽는 법 (그림만으로는 알 수 없는 약속), 두 탐색기에 같은 줄
HOW_TO_READ: tuple[str, ...] = (
    "히트맵 한 칸은 한 쿼리(행)가 한 키(열)에 주는 가중치이고, 행마다 합이 1입니다. 노랄수록 큽니다.",
    "회색 칸은 마스크(창 포함)로 가려져 계산에서 빠진 칸입니다. 진한 보라는 가중치가 0에 가까운 칸입니다.",
    "히스토그램은 가려지지 않은 모든 칸의 가중치 분포입니다. 오른쪽 끝(1 근처)에 몰릴수록 포화된 것입니다.",
    f"포화 행: 가장 큰 가중치가 {SATURATION_THRESHOLD} 이상인 행, 곧 사실상 키 하나만 보는 행입니다. "
    "평균 엔트로피(nat)가 작을수록 가중치가 한 곳에 몰립니다.",
)
#: 정적 탐색기에만 있는 내려받기 메뉴의 줄
_DOWNLOAD_NOTE = "오른쪽 위의 … 메뉴에서 지금 그림을 PNG나 SVG로 내려받을 수 있습니다."
#: 정적 탐색기에만 있는 줄: 미리 계산해 둔 데이터의 한계 (static_data, summary.summary_table)
STATIC_NOTES: tuple[str, ...] = (
    "이 웹페이지의 탐색기는 위치를 RoPE로 고르면 KV 헤드 수를 헤드 수로 봅니다(미리 계산해 둔 RoPE 점수를 줄이려고). "
    "노트북에서 실행하면 둘을 함께 바꿀 수 있습니다.",
)
#: 정적 탐색기가 글 요약을 미리 계산해 두지 않은 설정(창을 켜고 KV 헤드를 나눔)에서 보이는 줄
NO_SUMMARY = "이 설정(창과 KV 헤드 나누기를 함께)의 글 요약은 이 웹페이지에 미리 계산해 두지 않았습니다. 노트북에서 실행하면 보입니다."
#: 살아 있는 그림의 색 막대 아래 범례 글 (색은 ``MASKED_COLOR``, 정적 탐색기의 회색과 같음)
MASKED_LEGEND = "회색: 가려진 칸"


def _help_html(rows: tuple[tuple[str, str, str], ...]) -> str:
    """조작기 설명 (조작기 바로 아래, 접어 둠: 휴대폰에서 그림을 밀어내지 않게)."""
    items = "".join(f"<li><b>{label}</b>: {text}</li>" for _, label, text in rows)
    return f'<details class="attn-explorer-help"><summary>조작기 설명</summary><ul>{items}</ul></details>'


def _how_html(lines: tuple[str, ...]) -> str:
    """그림 아래의 "이 그림을 읽는 법" 목록."""
    items = "".join(f"<li>{line}</li>" for line in lines)
    return (f'<div class="attn-explorer-how"><p class="attn-explorer-how-title">이 그림을 읽는 법</p>'
            f"<ul>{items}</ul></div>")


#: 정적 탐색기의 조작기 설명 HTML
_CONTROL_HELP = _help_html(CONTROL_HELP)
#: 정적 탐색기의 읽는 법 HTML (내려받기 메뉴 줄 포함)
_HOW_TO_READ = _how_html((*HOW_TO_READ, *STATIC_NOTES, _DOWNLOAD_NOTE))


def live_control_help_html() -> str:
    """살아 있는 탐색기의 조작기 설명 HTML: 정적 탐색기와 같은 줄에 문장·시드 줄을 더한 것.

    Returns:
        ``<details>`` 한 덩어리 (``ipywidgets.HTML``의 값).

    Shape:
        - 해당 없음 (HTML 문자열)
    """
    return _help_html(LIVE_CONTROL_HELP)


def live_how_to_read_html() -> str:
    """살아 있는 탐색기의 "이 그림을 읽는 법" HTML: 정적 탐색기와 같은 줄 (내려받기 메뉴 줄만 뺌).

    회색은 두 탐색기에서 같은 ``MASKED_COLOR`` (살아 있는 그림의 색 막대 아래 범례가 ``MASKED_LEGEND``).

    Returns:
        ``<div>`` 한 덩어리 (``ipywidgets.HTML``의 값).

    Shape:
        - 해당 없음 (HTML 문자열)
    """
    return _how_html(HOW_TO_READ)
