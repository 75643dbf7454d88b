"""attn_harness: 채점의 샌드박스 쪽. 학생 노트북을 실행하고, 바깥의 채점 프로세스가 보낸 입력으로 학생 함수를 부릅니다.

이 패키지와 ``attn_lib``, ``attn_course``만 샌드박스에 붙습니다. 판정 쪽(``attn_grader``: 참조 구현, 숨은 경우,
정답)은 import하지 않습니다 (``tests/test_import_graph.py``가 확인). 자세한 약속은 ``harness.py``.
"""

from __future__ import annotations

from .harness import CALL_SECONDS, GRADING_ENV, main, run_notebook, serve

__version__ = "0.2.0"

__all__ = ["main", "run_notebook", "serve", "GRADING_ENV", "CALL_SECONDS"]
