"""옮긴 이름의 안내: ``attn_lib.exercises``는 2026년 2학기까지만 있습니다 (이미 나눠 준 과제 노트북을 위해).

연습 문제와 자기 점검은 강좌 패키지 ``attn_course.practice``로, 채점 과제의 채점기는 강사의 ``attn_grader``로
옮겼습니다. 이미 나눠 준 과제 노트북의 첫 셀(``from attn_lib.exercises import korean_grader``)은 이 안내를 거쳐
그대로 동작하고, 옮긴 곳을 알리는 경고를 한 번 냅니다. 새 노트북은 ``from attn_course.practice import
korean_grader``를 씁니다.

이 모듈은 ``import attn_lib``으로는 불러지지 않고, 이 이름을 쓸 때만 ``attn_course``를 찾습니다
(``tests/test_import_graph.py``가 그 밖의 import를 막음).
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any

#: 옛 이름 -> 새 모듈 (연습 페이지의 채점기도)
_MOVED = {"korean_grader": "attn_course.practice", "compare_attention": "attn_course.practice",
          "compare_attention_live": "attn_course.practice", "MISTAKES": "attn_course.practice"}


def __getattr__(name: str) -> Any:
    if name.startswith("check_") or name in _MOVED:
        target = _MOVED.get(name, "attn_course.practice")
        try:
            module = importlib.import_module(target)
        except ImportError as exc:
            raise ImportError(f"attn_lib.exercises.{name}은(는) {target}(으)로 옮겼습니다. attn_course 를 설치하세요: "
                              "pip install \"attn_course @ git+<저장소>#subdirectory=attn_course\"") from exc
        if hasattr(module, name):
            warnings.warn(f"attn_lib.exercises.{name}은(는) {target}(으)로 옮겼습니다. "
                          f"'from {target} import {name}'을 쓰세요 (옛 이름은 2026년 2학기까지).", FutureWarning,
                          stacklevel=2)
            return getattr(module, name)
    raise AttributeError(f"attn_lib.exercises 에 {name!r}이(가) 없습니다. 연습 문제는 attn_course.practice 로, "
                         "채점 과제의 채점기는 강사의 attn_grader 로 옮겼습니다.")
