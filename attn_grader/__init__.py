"""attn_grader: 채점의 판정 쪽 (강사만 씀; 학생 설치와 채점 샌드박스에는 없음).

모듈마다 하는 일:

- ``checkers.py``, ``checkers_models.py``, ``checkers_long.py``: 채점 과제의 채점기 (1~4장, 5~7장, 8·10장). 참조 구현,
  알려진 실수를 흉내 낸 틀린 참조, 시드로 숨은 경우를 뽑는 코드. ``references.py``: 여러 채점기가 함께 쓰는 참조.
- ``registry.py``: 명세가 이름으로 부르는 채점기 표 ``CHECKERS``.
- ``answers.py``: 값과 선택지 문제의 비교 (정답과 힌트는 채점 묶음에서).
- ``judge.py``: 채점 프로세스. 채점기를 여기서 돌리고, 학생 함수는 하네스(``attn_harness``)에 값으로 보내 부릅니다.
- ``session.py``: 하네스와의 연결 (파이프 두 개, 크기·시간 한계). ``sandbox.py``: bubblewrap 샌드박스.
- ``grade.py``: ``make grade``의 명령 (``attn-grade``). CSV와 한국어 피드백.
- ``master.py``, ``build.py``: 과제 마스터에서 반마다 다른 판, 채점 묶음, Gradescope zip, 공개 명세를 만듦
  (``attn-build-assignments``). ``public_cases.py``: 자기 점검이 쓰는 공개 경우의 기록.
  ``known_mistakes.py``: 알려진 틀린 풀이.
- ``inline.py``: Gradescope(otter)용, 학생 프로세스 안에서 채점.

import는 한 방향입니다: attn_grader -> attn_harness, attn_course, attn_lib. 다른 패키지는 이것을 import하지 않습니다.
"""

from __future__ import annotations

__version__ = "0.2.0"

__all__: list[str] = []
