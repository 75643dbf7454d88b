"""채점 과제 마스터에서 배포판을 만듭니다 (make assignments).

    attn-build-assignments                         # assignments/*.ipynb (연습판, 풀이 공개)
    attn-build-assignments --master ~/비공개/attention_hw.ipynb --secret ~/비공개/반.secret
    (= python -m attn_grader.build ...; make assignments 가 부름)

마스터 하나(``<이름>.ipynb``)마다 ``dist/<이름>/``에:

- ``student/<이름>.ipynb``, ``<이름>-student.zip``  학생용 노트북 (풀이와 정답 없음). 비공개 마스터면 공개 명세
  ``<이름>.spec.json``도 함께 (학생의 ``grader.check``가 씀).
- ``<이름>-grading.json`` (+ ``.sha256``)  ``make grade``가 쓰는 채점 묶음: 문제 명세, 정답, 힌트, 숨은 시드의 열쇠.
  강사 전용. 읽기 전용으로 만들고, 채점하기 전에 해시를 확인합니다.
- ``<이름>-autograder.zip``  Gradescope용 otter 자동 채점 zip (같은 명세에서 만든 테스트; 읽기 전용).
- ``autograder/``  otter assign이 만든 풀이 노트북과 zip 원본.

빌드는 값이 채워진 마스터 풀이를 채점 하네스로(샌드박스 없이: 강사의 코드) 실행해 값 문제의 정답을 얻고, 그 풀이가
만점인지 채점 프로세스로 확인합니다(아니면 실패). 코드 문제마다 공개 경우(공개 시드에서 채점기가 학생 함수를 부른
입력과 마스터의 출력, 알려진 틀린 풀이의 출력)를 공개 명세에 적습니다(``public_cases.py``): 학생의 자기 점검이 참조
구현 없이 채점과 같은 판정과 힌트를 내도록. 반 비밀 값(``--secret``)이 있으면 PARAMS의 값, 선택지 글자의 순서, 숨은 시드가 반마다
달라집니다. 비밀 값 파일이 없으면 새로 만듭니다(잃어버리면 같은 판을 다시 만들 수 없습니다). 비밀 값 없이 만든 판은
연습판입니다: 정답이 공개 저장소에 있습니다.

연습판을 만들 때만 공개 명세를 ``attn_course/practice/public_spec.json``(패키지 데이터)에 씁니다.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import os
import re
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import time
import zipfile
from pathlib import Path

import nbformat

from attn_course.practice.spec import PUBLIC_SPEC_FILE, Question

from .judge import judge_question, run_seeds
from .known_mistakes import WRONG_CODE, define_cell
from .master import is_spec_cell, render
from .public_cases import record_public_cases
from .session import Session, start_harness

ROOT = Path(__file__).resolve().parents[1]
PUBLIC_SPEC = ROOT / "attn_course" / "practice" / PUBLIC_SPEC_FILE


def read_secret(path: Path) -> bytes:
    """반 비밀 값 파일을 읽습니다. 없으면 새로 만들고(권한 600) 알립니다."""
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(secrets.token_hex(32) + "\n", encoding="utf-8")
        path.chmod(0o600)
        print(f"반 비밀 값을 새로 만들었습니다: {path} (학생이 읽을 수 없는 곳에 두고, 채점이 끝날 때까지 지키세요)")
    text = path.read_text(encoding="utf-8").strip()
    if len(text) < 16:
        raise SystemExit(f"{path}: 비밀 값이 너무 짧습니다 (16자 이상).")
    return text.encode()


def start_trusted(notebook: Path, workdir: Path, timeout: float = 900) -> Session:
    """(신뢰하는) 노트북을 샌드박스 없이 하네스로 띄웁니다. 마스터 풀이와 그것을 고친 틀린 풀이에만 씁니다."""
    return start_harness(notebook, timeout, workdir / f"{notebook.stem}.log", cwd=workdir)


def _executed(session: Session, what: str, workdir: Path, notebook: Path) -> None:
    if session.wait_executed() is None:
        log = (workdir / f"{notebook.stem}.log").read_text(encoding="utf-8", errors="replace")[-2000:]
        raise RuntimeError(f"{what}을(를) 하네스로 실행하지 못했습니다:\n{log}")


def _points_note(nb, questions: list[Question]) -> None:
    """문제 설명의 굵은 번호 뒤에 배점을 붙입니다 (예: '**2.4** (5점, 모두 맞아야 점수를 받습니다)')."""
    by_name = {q.name: q for q in questions}
    current = None
    for cell in nb.cells:
        if cell.cell_type == "raw" and cell.source.lstrip().startswith("# BEGIN QUESTION"):
            current = by_name[re.search(r"name:\s*(\S+)", cell.source).group(1)]
        elif cell.cell_type == "markdown" and current is not None:
            cell.source = re.sub(r"^(\*\*\d+\.\d+\*\*)", rf"\1 ({current.points_note()})", cell.source, count=1)
            current = None


def _test_cells(q: Question, bundle_q: dict, seeds: dict[int, list[int]]) -> list:
    """Gradescope zip에 들어갈 otter 테스트 셀: 0점 공개 점검 하나와 채점 단위마다 숨은 테스트 하나."""
    # make grade 와 같이: 공개 시드의 실행은 숨은 실행이 있으면 점수가 없습니다 (위의 0점 공개 점검이 보여 줌)
    units = [(i, None, False) for i, p in enumerate(q.parts) if p.kind != "check"]
    units += [(i, s, r > 0) for i, p in enumerate(q.parts) if p.kind == "check" for r, s in enumerate(seeds[i])
              if r > 0 or len(seeds[i]) == 1]
    each = q.points / len(units)
    cells = [nbformat.v4.new_code_cell(
        '""" # BEGIN TEST CONFIG\npoints: 0\n""" # END TEST CONFIG\n'
        f"from attn_grader.inline import public_case\npublic_case({json.dumps(json.dumps(q.public(), ensure_ascii=False), ensure_ascii=False)}, globals())\n")]
    for i, seed, hidden in units:
        case = json.dumps({"question": bundle_q, "part": i, "seed": seed, "hidden": hidden}, ensure_ascii=False)
        cells.append(nbformat.v4.new_code_cell(
            f'""" # BEGIN TEST CONFIG\npoints: {each!r}\nhidden: true\n""" # END TEST CONFIG\n'
            f"from attn_grader.inline import hidden_case\nhidden_case({json.dumps(case, ensure_ascii=False)}, globals())\n"))
    return cells


def _read_only(path: Path) -> None:
    path.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)


def build(master: Path, dist: Path, secret: bytes | None = None) -> dict[str, Path]:
    """마스터 하나를 ``dist/<이름>/``으로 만듭니다. 만든 파일들의 경로를 돌려줍니다."""
    name = master.stem
    out = dist / name
    if out.exists():
        for p in out.rglob("*"):
            if p.is_file():
                p.chmod(0o644)
        shutil.rmtree(out)
    out.mkdir(parents=True)
    start = time.monotonic()
    rendered = render(nbformat.read(master, as_version=4), secret, name)
    questions = rendered.questions
    seed_key = (hmac.new(secret, f"seeds:{name}".encode(), hashlib.sha256).hexdigest() if secret is not None
                else hashlib.sha256(f"practice:{name}".encode()).hexdigest())

    with tempfile.TemporaryDirectory(prefix="assign_") as tmp:
        tmp = Path(tmp)
        solution = nbformat.v4.new_notebook(metadata=rendered.nb.metadata)
        solution.cells = [c for c in rendered.nb.cells if not is_spec_cell(c)]
        nbformat.write(solution, tmp / "solution.ipynb")
        seeds = {q.name: run_seeds(seed_key, "master", q) for q in questions}
        wrong_paths = []
        for label, changes in WRONG_CODE.items():  # 알려진 틀린 풀이: 마스터 풀이의 코드 셀 몇 개를 바꾼 노트북
            wrong_nb = nbformat.from_dict(json.loads(json.dumps(solution)))
            for prefix, source in changes.items():
                define_cell(wrong_nb, prefix, source)
            nbformat.write(wrong_nb, tmp / f"{label}.ipynb")
            wrong_paths.append(tmp / f"{label}.ipynb")
        # 셋을 함께 띄워(노트북 실행이 겹치게) 기다립니다
        solved = start_trusted(tmp / "solution.ipynb", tmp)
        wrongs = [start_trusted(path, tmp) for path in wrong_paths]
        try:
            _executed(solved, "마스터 풀이", tmp, tmp / "solution.ipynb")
            for session, path in zip(wrongs, wrong_paths):
                _executed(session, f"틀린 풀이 {path.stem}", tmp, path)
            for q in questions:  # 값 문제의 정답은 마스터 풀이를 실행한 값
                for p in q.parts:
                    if p.kind == "check":
                        continue
                    got = solved.request({"op": "value", "name": p.data["name"]})
                    if not isinstance(got, dict) or "value" not in got:
                        raise SystemExit(f"{q.name}: 마스터 풀이가 {p.data['name']}을(를) 정의하지 않습니다.")
                    p.data["expected"] = got["value"]
                    if p.kind == "value":
                        _no_hint_is_the_answer(q.name, p, got["value"])
                        p.data["hints"] = [[_enc(k), text] for k, text in p.data["hints"].items()]
            failed = [g for q in questions if (g := judge_question(q, solved, seeds[q.name])).score < q.points]
            if failed:
                raise SystemExit("마스터 풀이가 만점이 아닙니다:\n" + "\n\n".join(g.feedback() for g in failed))
            for q in questions:  # 공개 경우: 자기 점검이 참조 없이 비교할 기대 출력과 틀린 풀이의 출력
                for p in q.parts:
                    if p.kind == "check":
                        p.data["public"] = record_public_cases(p.data, solved, wrongs)
        finally:
            for session in (solved, *wrongs):
                session.close()
        bundle = {"format": 1, "assignment": name, "class": "practice" if secret is None else "class",
                  "seed_key": seed_key, "questions": [{"name": q.name, "points": q.points, "all_or_nothing": q.all_or_nothing,
                                                       "parts": [{"kind": p.kind, **p.data} for p in q.parts]} for q in questions]}
        grading = out / f"{name}-grading.json"
        grading.write_text(json.dumps(bundle, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
        (out / f"{name}-grading.json.sha256").write_text(hashlib.sha256(grading.read_bytes()).hexdigest() + "\n")
        _read_only(grading)
        public = {"questions": [q.public() for q in questions]}

        # otter assign 으로 학생판과 Gradescope zip: SPEC 셀 자리에 같은 명세에서 만든 테스트 셀
        otter_nb = nbformat.v4.new_notebook(metadata=rendered.nb.metadata)
        gs_seeds = {q.name: run_seeds(seed_key, "gradescope", q) for q in questions}
        current = None
        for cell in rendered.nb.cells:
            if cell.cell_type == "raw" and cell.source.lstrip().startswith("# BEGIN QUESTION"):
                current = next(q for q in questions if re.search(rf"name:\s*{q.name}\b", cell.source))
            if is_spec_cell(cell):
                bundle_q = next(b for b in bundle["questions"] if b["name"] == current.name)
                otter_nb.cells += _test_cells(current, bundle_q, gs_seeds[current.name])
            else:
                otter_nb.cells.append(cell)
        _points_note(otter_nb, questions)
        nbformat.write(otter_nb, tmp / master.name)
        subprocess.run([sys.executable, "-m", "otter", "assign", str(tmp / master.name), str(out)], check=True,
                       stdout=subprocess.DEVNULL, env={**os.environ, "MPLBACKEND": "Agg"})

    zips = sorted((out / "autograder").glob("*-autograder_*.zip"))
    if len(zips) != 1:
        raise RuntimeError(f"{out / 'autograder'}에 자동 채점 zip이 하나여야 하는데 {len(zips)}개입니다.")
    autograder = out / f"{name}-autograder.zip"
    shutil.copy2(zips[0], autograder)
    _read_only(autograder)
    student = out / "student"
    shutil.rmtree(student / "tests", ignore_errors=True)  # otter의 공개 테스트 파일 (학생은 grader.check 가 명세로 점검)
    if secret is not None or _public_spec_differs(name, public):
        (student / f"{name}.spec.json").write_text(json.dumps(public, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    with zipfile.ZipFile(out / f"{name}-student.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(student.rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(student))
    print(f"{master.name} -> {out}/ ({'반 비밀 값' if secret else '연습판'}, {time.monotonic() - start:.1f}s)")
    return {"grading": grading, "autograder": autograder, "student": student / f"{name}.ipynb", "public": public}


def _no_hint_is_the_answer(question: str, part, expected) -> None:
    """알려진 틀린 답(힌트의 열쇠)이 정답과 같으면 빌드를 멈춥니다: 반마다 바뀌는 값에서 일어날 수 있습니다."""
    from attn_course.practice.codec import decode

    from .answers import _close, _normalize

    want = _normalize(decode(expected))
    same = [k for k in part.data["hints"] if _close(_normalize(k), want, part.data["tol"])]
    if same:
        raise SystemExit(f"{question}/{part.data['name']}: 힌트의 틀린 답 {same}이 정답과 같습니다 (PARAMS의 보기를 고치세요).")


def _enc(value):
    from attn_course.practice.codec import encode

    return encode(value)


def same_spec(a, b, tol: float = 1e-6) -> bool:
    """두 공개 명세가 같은지: 구조와 글자는 그대로, 실수는 ``tol`` 안에서.

    공개 경우의 기대 출력은 마스터가 float32로 계산한 값이라 CPU(SIMD 경로)에 따라 마지막 자리가 다를 수 있습니다.
    그런 차이로 패키지 데이터를 다시 쓰지 않도록(저장소 파일이 바뀌고 장의 캐시가 지워지지 않도록) 비교합니다.
    자기 점검의 허용 오차(1e-5)보다 작게 봅니다.
    """
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_spec(a[k], b[k], tol) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_spec(x, y, tol) for x, y in zip(a, b))
    if isinstance(a, float) or isinstance(b, float):
        if isinstance(a, bool) or isinstance(b, bool) or not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
            return False
        return abs(a - b) <= tol * max(1.0, abs(a), abs(b))
    return a == b


def _public_spec_differs(name: str, public: dict) -> bool:
    try:
        return not same_spec(json.loads(PUBLIC_SPEC.read_text(encoding="utf-8")).get(name), json.loads(json.dumps(public)))
    except (OSError, ValueError):
        return True


def update_package_data(built: dict[str, dict], target: Path = PUBLIC_SPEC) -> bool:
    """연습판의 공개 명세를 패키지 데이터에 씁니다. 내용이 같으면 건드리지 않고 False."""
    text = json.dumps(built, ensure_ascii=False, indent=1, sort_keys=True) + "\n"
    try:
        if target.exists() and same_spec(json.loads(target.read_text(encoding="utf-8")), json.loads(text)):
            return False  # 실수의 마지막 자리만 다르면 (다른 CPU) 그대로 둠
    except ValueError:
        pass
    target.write_text(text, encoding="utf-8")
    print(f"공개 명세 -> {target.relative_to(ROOT)}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignments", type=Path, default=ROOT / "assignments", help="연습판 마스터 폴더")
    parser.add_argument("--master", type=Path, help="비공개 마스터 노트북 하나 (반 비밀 값과 함께)")
    parser.add_argument("--secret", type=Path, help="반 비밀 값 파일 (없으면 새로 만듦; --master 와 함께)")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    args = parser.parse_args(argv)
    args.dist.mkdir(parents=True, exist_ok=True)
    if args.master is not None:
        if not args.master.is_file():
            print(f"마스터 노트북이 없습니다: {args.master}", file=sys.stderr)
            return 1
        secret_path = args.secret or args.master.with_suffix(".secret")
        build(args.master, args.dist, read_secret(secret_path))
        return 0
    masters = sorted(args.assignments.glob("*.ipynb"))
    if not masters:
        print(f"{args.assignments}에 마스터 노트북이 없습니다.", file=sys.stderr)
        return 1
    update_package_data({m.stem: build(m, args.dist)["public"] for m in masters})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
