"""학생 노트북의 자기 점검: ``grader.check("q2_4")``가 채점과 **같은 규칙**을 공개된 부분만큼 돌립니다.

과제 명세(``spec.py``) 하나가 자기 점검과 채점을 함께 움직이므로 둘이 어긋나지 않습니다.

- 코드 문제: 공개 경우(채점할 때도 첫 실행인 공개 시드)를 돌립니다. 채점 과제의 참조 구현은 이 패키지에 없습니다.
  대신 공개 명세의 ``public``에 강사의 빌드가 채점기를 공개 시드로 돌리며 적어 둔 것이 있습니다: 채점기가 학생 함수를
  부른 입력 하나하나, 마스터 풀이의 출력(기대 출력), 알려진 틀린 풀이마다의 출력과 그 실수의 키(``MISTAKES``).
  자기 점검은 같은 입력으로 학생 함수를 불러 기대 출력과 비교하고, 틀리면 틀린 풀이의 출력과 비교해 힌트를 고릅니다
  (otter의 공개 테스트가 기대 값을 적어 두는 것과 같은 방식). 직접 구현해야 하는 문제에서 이미 만들어진 어텐션을
  부르면, 채점과 똑같이 "이 문제는 0점이 됩니다"라고 알립니다. 모두 맞아야 점수를 받는 문제라는 것도 알립니다.
- 값·선택지 문제: 이름이 있는지와 **형식**(정수인지, 튜플의 길이, 고를 수 있는 글자)만 봅니다. 값 자체는 제출한 뒤
  채점할 때 확인한다고 분명히 말합니다.

채점 중(``ATTN_LIB_GRADING=1``, 샌드박스의 하네스가 켬)에는 아무것도 실행하지 않습니다. otter-grader는 필요 없습니다.
"""

from __future__ import annotations

import html
import inspect
import os
import zipfile
from pathlib import Path
from typing import Any

import torch
from torch import Tensor, nn

from .calls import library_calls
from .codec import decode
from .engine import MISTAKES, _describe, _difference, _error_report, _same
from .spec import Question, format_error, load_public_spec

__all__ = ["SelfCheck", "CheckReport", "korean_grader", "GRADING_ENV", "TRANSFORMS"]

#: 채점 중임을 알리는 환경 변수: 샌드박스의 하네스가 켜고, 그때 노트북의 ``grader.check`` 셀은 아무것도 하지 않습니다.
GRADING_ENV = "ATTN_LIB_GRADING"


def _softmax_onehot(got: Any, args: list, kwargs: dict) -> Any:
    """쿼리 ``q (S,)``를 원-핫 키 ``torch.eye(S)``와 곱해 소프트맥스한 가중치 (답이 하나가 아닌 1.2의 비교 꼴)."""
    if got is None or got is Ellipsis:
        return got
    S = int(args[1])
    scores = torch.as_tensor(got, dtype=torch.float64) @ torch.eye(S, dtype=torch.float64)  # (S,) @ (S, S) -> (S,)
    return torch.softmax(scores, dim=-1)


#: 답이 하나로 정해지지 않는 문제에서 학생 출력과 기대 출력을 같은 꼴로 바꾸는 함수 (공개 명세의 ``transform``)
TRANSFORMS = {"softmax_onehot": _softmax_onehot}


def _same_public(got: Any, want: Any) -> bool:
    """공개 경우의 비교: 채점기와 같은 허용 오차(``engine._same``), 모듈은 상태(파라미터)끼리."""
    if isinstance(want, nn.Module):
        if not isinstance(got, nn.Module) or type(got).__name__ != type(want).__name__:
            return False
        a, b = got.state_dict(), want.state_dict()
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in b)
    if isinstance(want, dict) and set(want) == {"raised"}:
        return isinstance(got, dict) and got.get("raised") == want["raised"]
    return _same(got, want)


def _public_part(part: dict, env: dict) -> tuple[bool, list[str]]:
    """``check`` 부분 하나를 공개 경우로 점검합니다: (통과 여부, 한국어 줄)."""
    public = part.get("public")
    name = ", ".join(part["functions"])
    if not isinstance(public, dict) or not public.get("calls"):
        return False, [f"[{name}] 이 과제의 공개 명세에 공개 경우가 없습니다. attn_course 가 최신인지 보세요."]
    fns = {n: env.get(n) for n in part["functions"]}
    for n, fn in fns.items():
        if not callable(fn):
            return False, [f"[{n}] 함수가 필요한데 {_describe(fn)}이(가) 들어왔습니다. 셀을 먼저 실행했나요?"]
    transform = TRANSFORMS.get(public.get("transform") or "", lambda got, a, k: got)
    calls, outputs, hits = public["calls"], [], set()
    for i, call in enumerate(calls):
        label = f"공개 경우 {i + 1}/{len(calls)} ({call['fn']})"
        args, kwargs = decode(call["args"])
        args, kwargs = list(args), dict(kwargs)
        shown = (list(args), dict(kwargs))  # 변환(transform)이 볼 원래 입력 (학생 함수가 인자를 바꿔도)
        args, kwargs = decode(call["args"])
        try:
            if part.get("forbid_library"):
                got, seen = library_calls(fns[call["fn"]], *args, **kwargs)
                hits |= set(seen)
            else:
                got = fns[call["fn"]](*args, **kwargs)
        except NotImplementedError:
            return False, [MISTAKES["not_implemented"]]
        except Exception as exc:  # 학생 코드의 어떤 오류든 보고서로 바꿉니다 (채점기의 _run과 같은 말)
            return False, [_error_report(label, exc)[0]]
        if got is None or got is Ellipsis:
            return False, [MISTAKES["not_implemented"]]
        outputs.append(transform(got, *shown))
    lines = []
    if hits:
        lines.append(f"직접 구현해야 하는 문제입니다: 실행하는 동안 {', '.join(sorted(hits))}이(가) 불렸습니다. "
                     "채점에서 이 문제는 0점이 됩니다. torch.softmax, masked_fill, 행렬 곱(@)으로 계산하세요.")
    wants = [decode(c["want"]) for c in calls]
    failing = [i for i, (g, w) in enumerate(zip(outputs, wants)) if not _same_public(g, w)]
    if not failing:
        return not hits, lines
    first = f"공개 경우 {failing[0] + 1}/{len(calls)} ({calls[failing[0]]['fn']})"
    for wrong in public.get("wrong", []):
        got_wrong = [decode(x) for x in wrong["got"]]
        if all(_same_public(outputs[i], got_wrong[i]) for i in failing):
            return False, lines + [f"[{name}] {first}에서 틀렸습니다.\n힌트: {MISTAKES[wrong['mistake']]}"]
    i = failing[0]
    want = wants[i]
    detail = "돌려준 모듈의 파라미터가 기대와 다릅니다." if isinstance(want, nn.Module) else _difference(outputs[i], want)
    return False, lines + [f"[{name}] {first}에서 틀렸습니다. {detail}"]


class CheckReport:
    """``grader.check`` 결과. 노트북에서 한국어 보고서로 보입니다.

    Shape:
        - 해당 없음
    """

    def __init__(self, question: str, passed: bool, text: str) -> None:
        self.question, self.passed, self.text = question, passed, text

    def __repr__(self) -> str:
        return self.text

    def __bool__(self) -> bool:
        return self.passed

    def _repr_html_(self) -> str:
        color = "#1a7f37" if self.passed else "#b42318"
        return f"<pre style='color:{color}; white-space:pre-wrap'>{html.escape(self.text)}</pre>"


def _choice_error(value: Any, options: str, single: bool) -> str | None:
    if not isinstance(value, str):
        return f"글자로 된 문자열이어야 합니다 (예: \"{options[:2]}\")."
    letters = [c for c in value.replace(",", "").replace(" ", "").lower()]
    unknown = sorted(set(letters) - set(options))
    if unknown:
        return f"고를 수 있는 글자는 {', '.join(options)}인데 {', '.join(unknown)}이(가) 있습니다."
    if single and len(set(letters)) != 1:
        return "한 글자만 고르세요."
    return None


def _check_question(q: Question, env: dict) -> CheckReport:
    head = f"{q.name} ({q.points_note()})"
    lines, ok = [], True
    answers_only = all(p.kind != "check" for p in q.parts)
    for part in q.parts:
        d = part.data
        if part.kind in ("value", "choice"):
            if d["name"] not in env:
                ok = False
                lines.append(f"[{d['name']}] 이름이 없습니다. 문제의 셀을 실행했나요?")
                continue
            v = env[d["name"]]
            err = "아직 ...입니다." if v is Ellipsis else (
                _choice_error(v, d["options"], d["single"]) if part.kind == "choice" else format_error(v, d["format"]))
            if err:
                ok = False
                lines.append(f"[{d['name']}] {err}")
            continue
        passed, part_lines = _public_part(d, env)
        ok = ok and passed
        lines += part_lines
    if ok:
        tail = ("값이 맞는지는 제출한 뒤 채점할 때 확인합니다 (여기서는 이름과 형식만 봅니다)." if answers_only else
                "공개 경우를 통과했습니다. 숨은 테스트는 제출한 뒤에 채점됩니다 (다른 모양과 시드).")
        if q.all_or_nothing:
            tail += " 모두 맞아야 점수를 받는 문제라, 숨은 경우가 하나라도 틀리면 0점입니다."
        lines.append(("형식이 맞습니다. " if answers_only else "") + tail)
    else:
        lines.insert(0, "아직 통과하지 못했습니다.")
    return CheckReport(q.name, ok, head + ": " + "\n".join(lines))


class SelfCheck:
    """학생 노트북의 ``grader``: ``check``, ``check_all``, ``export``.

    Args:
        assignment: 과제 이름.
        spec_path: 선택. 공개 명세 파일 (없으면 attn_lib에 함께 든 명세).
        nb_path: 선택. 이 노트북의 파일 이름 (``export``가 씀).

    Shape:
        - 해당 없음
    """

    def __init__(self, assignment: str, spec_path: str | None = None, nb_path: str | None = None) -> None:
        self.assignment, self.spec_path, self.nb_path = assignment, spec_path, nb_path
        self._questions: dict[str, Question] | None = None

    @property
    def questions(self) -> dict[str, Question]:
        """과제의 공개 명세 (처음 쓸 때 읽음: 채점 중에는 읽지 않음)."""
        if self._questions is None:
            self._questions = {q.name: q for q in load_public_spec(self.assignment, self.spec_path)}
        return self._questions

    def check(self, question: str, global_env: dict | None = None) -> CheckReport:
        """문제 하나를 공개 규칙으로 점검합니다 (예: ``grader.check("q2_4")``).

        Shape:
            - 해당 없음
        """
        if os.environ.get(GRADING_ENV):
            return CheckReport(question, True, f"{question}: 채점 중에는 자기 점검을 건너뜁니다.")
        try:
            known = self.questions
        except (OSError, ValueError) as exc:
            return CheckReport(question, False, f"{question}: 과제의 공개 명세를 읽지 못했습니다 ({exc}). "
                               f"노트북 옆에 {self.assignment}.spec.json 이 있는지, attn_lib 이 최신인지 보세요.")
        if question not in known:
            return CheckReport(question, False, f"{question!r}라는 문제가 없습니다. 있는 문제: {', '.join(self.questions)}")
        if global_env is None:
            frame = inspect.currentframe()
            global_env = frame.f_back.f_globals if frame is not None and frame.f_back is not None else {}
        try:
            return _check_question(self.questions[question], global_env)
        except Exception as exc:  # 점검 자체가 실패해도 노트북은 계속
            return CheckReport(question, False, f"{question}: 점검하다 오류가 났습니다: {type(exc).__name__}: {exc}")

    def check_all(self, global_env: dict | None = None) -> CheckReport:
        """모든 문제를 차례로 점검합니다.

        Shape:
            - 해당 없음
        """
        if global_env is None:
            frame = inspect.currentframe()
            global_env = frame.f_back.f_globals if frame is not None and frame.f_back is not None else {}
        reports = [self.check(name, global_env) for name in self.questions]
        passed = sum(r.passed for r in reports)
        text = "\n\n".join([f"공개 점검: {len(reports)}문제 가운데 {passed}문제 통과", *(r.text for r in reports)])
        return CheckReport("전체", passed == len(reports), text)

    def export(self, nb_path: str | None = None) -> str:
        """제출할 노트북을 zip 하나로 묶습니다 (PDF는 만들지 않으므로 인터넷도 LaTeX도 필요 없음).

        Returns:
            만든 zip의 경로. 노트북 파일을 찾지 못하면 무엇을 제출할지 한국어로 알려 주는 문장.

        Shape:
            - 해당 없음
        """
        path = Path(nb_path or self.nb_path or f"{self.assignment}.ipynb")
        if not path.is_file():
            return (f"노트북 파일 {path.name}을(를) 찾지 못했습니다. 노트북을 저장한 뒤(파일 → 저장) 그 .ipynb 파일 하나를 "
                    "제출하세요. Colab에서는 파일 → 다운로드 → .ipynb 다운로드.")
        out = path.with_name(f"{self.assignment}_제출.zip")
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.write(path, path.name)
        return f"{out} 를 만들었습니다. 노트북을 저장한 뒤에 만들었는지 확인하고, 이 zip이나 {path.name} 하나를 제출하세요."


def korean_grader(assignment: str = "attention_hw", *, spec_path: str | None = None, nb_path: str | None = None,
                  **_ignored: Any) -> SelfCheck:
    """학생 노트북의 첫 셀이 부르는 함수: ``grader = korean_grader("attention_hw")``.

    ``spec_path``를 주지 않으면 노트북 옆의 ``<과제>.spec.json``(강사가 비공개 마스터로 만든 과제)을, 없으면 attn_lib에
    함께 든 공개 명세를 씁니다.

    Shape:
        - 해당 없음
    """
    local = Path(f"{assignment}.spec.json")
    return SelfCheck(assignment, spec_path or (str(local) if local.is_file() else None), nb_path)
