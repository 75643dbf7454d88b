"""멀티헤드 어텐션 강좌 사이트의 Sphinx 확장 (Sphinx extensions of the Korean course site).

책을 빌드하는 사람만 씁니다: ``_config.yml`` 의 ``sphinx.extra_extensions`` 가 ``attn_site.<모듈>`` 로 싣고,
``make book`` 이 ``pip install --no-deps -e attn_site`` 로 설치합니다. 강좌 패키지(``attn_lib``, ``attn_course``,
``attn_harness``, ``attn_grader``)는 import 하지 않습니다 (``tests/test_site_package.py``, ``tests/test_import_graph.py``).
확장끼리는 상대 import(``from .reading_time import ...``)로 씁니다.
(Used only to build the site; never imports the course packages.)

모듈 (Modules):

- ``offline_assets``: 오프라인 자산(``_assets/vendor``) 점검, 모든 페이지에 MathJax/위젯 준비 스크립트
  ``js/offline-setup.js`` 넣기, 안 쓰인 위젯 상태 빼기, 확장과 js/css 가 바뀌면 모든 페이지를 다시 쓰게 하는 지문.
- ``korean_ui``: 한국어 글꼴과 어절 단위 줄바꿈(``css/korean.css``, ``css/accessibility.css``), 밝은 기본 색 모드,
  숨긴 셀 단추의 한국어 이름, 테마의 영어 화면 글을 한국어로, 휴대폰 메뉴 단추(``js/nav-toggle.js``).
- ``korean_search``: 한국어 검색 언어 (한글 n-gram 색인과 조사 떼기). 검색 페이지에만
  ``js/search-snippets.js``, ``js/search-ranking.js``, ``css/search.css`` 를 넣습니다.
- ``figure_alt``: 노트북 그림 PNG 에 든 한국어 대체 텍스트를 ``<img alt>`` 로, 그림 번호와 짧은 설명, 휴대폰용
  그림의 ``<picture>`` (``css/figures.css``). 없으면 경고(``-W``: 실패).
- ``figure_png``: ``figure_alt`` 가 쓰는 PNG 읽기 도우미 (글 묶음, 화소 크기, 휴대폰용 그림 덩어리). 확장이 아닙니다.
- ``thebe_local``: Live Code 가 unpkg 대신 사이트의 thebe 사본을 싣게 함 (``js/thebe-local.js``,
  ``js/thebe-mathjax.js``).
- ``launch_links``: 실행 단추의 주소 (Binder 는 환경 브랜치 + nbgitpuller, Live Code 는 환경 브랜치, Colab 은 내용 브랜치).
- ``math_svg``: 수식을 빌드 때 SVG 로 그림 (npm ``mathjax-full``, ``scripts/tex2svg.cjs``). 페이지는 MathJax 를 싣지 않음.
- ``icon_fonts``: 테마의 Font Awesome 을 이 책이 쓰는 아이콘만으로 (CSS 규칙과 글꼴 글리프, fontTools).
- ``site_speed``: 탐색기 명세와 ``data:`` 그림을 페이지 밖 파일로, 본문 그림은 ``loading="lazy"``, 스타일시트 묶기.
- ``code_spans``: 코드 상자에서 기본 글자색과 같은 토큰의 ``<span>`` 을 풀어 요소 수를 줄임.
- ``placeholder_check``: "…할 예정입니다", TODO 같은 자리표시자 글이 페이지에 있으면 경고(``-W``: 실패).
- ``course_plan``: 모든 페이지 맨 위의 "읽는 시간 약 N분"과 강사용 안내의 ``{syllabus}`` 지시문.
- ``reading_time``: 읽는 시간 어림 (순수 함수; torch 도 Sphinx 도 import 하지 않음). ``course_plan`` 과 ``syllabus`` 가 씀.
- ``syllabus``: 장별 시간 표, 14주 학기와 6회 워크숍 계획 만들기 (순수 함수). ``course_plan`` 이 씀.

정적 파일 (Static files): 확장이 페이지에 넣는 js/css 는 이 패키지의 ``static/`` 에 있고, 그 파일을 넣는 확장이
:func:`add_static_dir` 로 ``html_static_path`` 에 더합니다. 사이트에서는 전처럼 ``_static/js/...``,
``_static/css/...`` 입니다. ``_assets/vendor`` (``make book`` 이 node_modules 에서 복사)는 책 폴더에 남습니다.

이 파일은 Sphinx 를 import 하지 않습니다: ``reading_time`` 과 ``syllabus`` 는 Sphinx 없이도 쓰입니다.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx

#: 이 패키지의 정적 파일 (js/, css/): 빌드하면 ``_build/html/_static/`` 아래로 복사됩니다
STATIC_DIR = Path(__file__).resolve().parent / "static"


def _append_static_dir(app: Sphinx, config: Any) -> None:
    """``html_static_path`` 끝에 :data:`STATIC_DIR` 를 한 번만 더합니다."""
    paths = list(config.html_static_path)
    if str(STATIC_DIR) not in paths:
        config.html_static_path = [*paths, str(STATIC_DIR)]


def add_static_dir(app: Sphinx) -> None:
    """확장의 ``setup(app)`` 에서 부릅니다: 설정을 읽은 뒤(``config-inited``) 패키지의 ``static/`` 을 더합니다.

    여러 확장이 불러도 목록에는 한 번만 들어갑니다. ``app.add_js_file("js/x.js")`` 같은 경로는 ``static/`` 안의
    경로입니다. (Call from an extension's setup(); the package's static/ is added once to html_static_path.)
    """
    app.connect("config-inited", _append_static_dir)
