"""제출 폴더를 샌드박스에서 채점해 학생·문제별 점수 CSV와 한국어 피드백을 씁니다 (make grade).

    attn-grade SUBMISSIONS_DIR --bundle dist/attention_hw/attention_hw-grading.json \\
        --output dist/grades.csv [--timeout 300] [--jobs N]
    (= python -m attn_grader.grade ...; make grade 가 부름)

제출 하나(``*.ipynb``)마다:

1. **샌드박스** (``sandbox.py``, bubblewrap): 그 제출의 사본과 런타임(``attn_lib``, ``attn_course``, ``attn_harness``)만
   보이는 곳에서 작업 칸의 uid로 하네스(``attn_harness``)를 띄웁니다. 하네스는 노트북을 실행한 뒤 요청을 기다립니다.
2. **채점** (이 프로세스, 학생 코드를 import하거나 실행하지 않음): 채점기(``judge.py``, 참조 구현과 숨은 경우를
   뽑는 코드)를 여기서 돌리고, 채점기가 학생 함수를 부를 때마다 그 입력을 값으로 하네스에 보내 답을 받습니다(파이프
   둘, 크기와 시간의 한계 안에서). 정답, 힌트, 숨은 시드의 열쇠, 참조 구현은 샌드박스에 들어가지 않습니다.

CSV와 피드백은 모든 채점이 끝난 뒤 이 프로세스가 씁니다(샌드박스에서는 보이지 않는 곳). 제출마다 행이 하나 남습니다
(status: ok / timeout / error). 문제 점수는 ``[0, 배점]``으로 자릅니다. 채점 묶음은 해시(``.sha256``)를 확인한 뒤에만
씁니다. ``GRADE_SANDBOX=none``이면 샌드박스 없이 실행합니다(믿을 수 있는 제출에만; 매번 경고).
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import queue
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch

from . import sandbox
from .judge import QuestionGrade, judge_questions, question_from_bundle, run_seeds
from .session import Session, start_harness

MAX_NOTEBOOK = 20 * 2**20  # 제출 노트북을 이보다 크면 실행하지 않음


def default_jobs() -> int:
    """동시에 채점할 제출 수의 기본값: 이 프로세스가 쓸 수 있는 코어 수."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:
        return max(1, os.cpu_count() or 1)


def load_bundle(path: Path) -> dict:
    """채점 묶음을 읽습니다. 옆의 ``.sha256``과 해시가 다르면 멈춥니다 (빌드한 뒤 바뀐 묶음은 쓰지 않음)."""
    digest_file = path.with_name(path.name + ".sha256")
    data = path.read_bytes()
    if not digest_file.exists() or digest_file.read_text().strip() != hashlib.sha256(data).hexdigest():
        raise SystemExit(f"{path}의 해시가 빌드할 때와 다릅니다. make assignments 로 다시 만드세요.")
    return json.loads(data)


class Grader:
    """제출들을 채점합니다. 작업 칸(slot)마다 uid가 하나씩이고, 한 칸은 한 번에 한 제출만 씁니다."""

    def __init__(self, bundle: dict, timeout: float, jobs: int, use_sandbox: bool, workroot: Path) -> None:
        self.bundle, self.timeout, self.use_sandbox, self.workroot = bundle, timeout, use_sandbox, workroot
        self.questions = [question_from_bundle(q) for q in bundle["questions"]]
        self.slots: queue.Queue[int] = queue.Queue()
        for slot in range(jobs):
            self.slots.put(slot)

    def grade(self, sub: Path) -> dict:
        seeds = {q.name: run_seeds(self.bundle["seed_key"], sub.stem, q) for q in self.questions}
        slot = self.slots.get()
        status, note, seconds = "ok", "", 0.0
        grades = [QuestionGrade(q.name, 0.0, q.points) for q in self.questions]
        try:
            job = sandbox.prepare_job(self.workroot, slot)
            try:
                status, note, seconds, grades = self._execute(sub, job, slot, seeds)
            except OSError as exc:  # 제출을 읽거나 복사하지 못함 (깨진 링크 등): 이 학생의 행 하나로
                status, note = "error", f"제출을 실행하지 못했습니다 ({type(exc).__name__})"
            except Exception as exc:  # 채점 프로세스의 오류도 이 학생의 행 하나로 (다른 학생의 채점은 계속)
                status, note = "error", f"채점 중 오류 ({type(exc).__name__}); 강사가 확인해야 합니다"
            finally:
                shutil.rmtree(job, ignore_errors=True)
        finally:
            self.slots.put(slot)
        return {"status": status, "note": note, "grades": grades, "seconds": seconds}

    def _execute(self, sub: Path, job: Path, slot: int, seeds: dict) -> tuple[str, str, float, list[QuestionGrade]]:
        if sub.stat().st_size > MAX_NOTEBOOK:
            return "error", "노트북 파일이 너무 큽니다", 0.0, [QuestionGrade(q.name, 0.0, q.points) for q in self.questions]
        shutil.copyfile(sub, job / "in" / "submission.ipynb")
        (job / "in" / "submission.ipynb").chmod(0o644)  # 작업 칸 uid가 읽기만
        log = job / "log.txt"
        start = time.monotonic()
        if self.use_sandbox:
            session = start_harness(job / "in" / "submission.ipynb", self.timeout, log, notebook_arg="/job/in/submission.ipynb",
                                    launch=lambda argv, fds, out: sandbox.spawn(slot, job, argv, self.timeout, fds, out))
        else:
            session = start_harness(job / "in" / "submission.ipynb", self.timeout, log, cwd=job)
        try:
            executed = session.wait_executed()
            grades = judge_questions(self.questions, session, seeds)
            timed_out, dead = session.timed_out, session.dead
        finally:  # 채점 프로세스의 오류로 끝나도 하네스와 그 uid의 프로세스는 남기지 않음
            returncode = session.close(kill=session.dead)
            leftover = sandbox.finish(slot) if self.use_sandbox else 0
        notes = []
        if leftover:
            notes.append(f"끝난 뒤 남은 프로세스 {leftover}개를 끝냈습니다")
        if timed_out:
            status = "timeout"
            notes.insert(0, f"{self.timeout:g}초 안에 끝나지 않았습니다 (무한 반복?). 그 전까지 낸 값만 채점했습니다")
        elif executed is None or dead:
            status = "error"
            notes.insert(0, f"채점 하네스가 끝까지 돌지 못했습니다 (종료 코드 {returncode}; "
                            f"{'노트북 실행이 끝나기 전에 멈췄습니다' if executed is None else '도중에 멈췄습니다'})")
        else:
            status = "ok"
        return status, "; ".join(notes), time.monotonic() - start, grades


def write_outputs(output: Path, subs: list[Path], graded: list[dict], questions: list) -> Path:
    """CSV 한 파일과 학생마다 피드백 파일 하나. 점수는 채점 프로세스가 계산한 것만 씁니다."""
    possible = sum(q.points for q in questions)
    output.parent.mkdir(parents=True, exist_ok=True)
    feedback_dir = output.with_name(output.stem + "_feedback")
    feedback_dir.mkdir(exist_ok=True)
    with output.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "status", *(q.name for q in questions), "total", "possible", "percent", "seconds", "note"])
        for sub, res in zip(subs, graded):
            scores = [g.score for g in res["grades"]]
            total = sum(scores)
            writer.writerow([sub.stem, res["status"], *(f"{s:g}" for s in scores), f"{total:g}", f"{possible:g}",
                             f"{100 * total / possible:.1f}", f"{res['seconds']:.1f}", res["note"]])
            lines = [f"# {sub.stem}: {total:g}/{possible:g}점 ({res['status']})"]
            if res["note"]:
                lines.append(res["note"])
            lines += [g.feedback() for g in res["grades"]]
            (feedback_dir / f"{sub.stem}.txt").write_text("\n\n".join(lines) + "\n", encoding="utf-8")
    return feedback_dir


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="제출 폴더를 샌드박스에서 채점해 CSV를 씁니다.")
    parser.add_argument("submissions", type=Path, help="제출 노트북(*.ipynb) 폴더")
    parser.add_argument("--bundle", type=Path, required=True, help="make assignments 가 만든 <과제>-grading.json")
    parser.add_argument("--output", type=Path, required=True, help="쓸 CSV 경로")
    parser.add_argument("--timeout", type=float, default=300.0, help="제출 하나의 시간 제한(초)")
    parser.add_argument("--jobs", type=int, default=default_jobs(), help="동시에 채점할 제출 수 (기본: 코어 수)")
    args = parser.parse_args(argv)

    use_sandbox = os.environ.get("GRADE_SANDBOX", "bwrap") != "none"
    if use_sandbox:
        try:
            sandbox.check_available()
        except sandbox.SandboxUnavailable as exc:
            print(f"채점을 시작하지 않습니다: {exc}", file=sys.stderr)
            return 2
    else:
        print("경고: GRADE_SANDBOX=none — 제출을 샌드박스 없이 이 사용자의 권한으로 실행합니다. "
              "믿을 수 있는 제출에만 쓰세요.", file=sys.stderr)
    subs = sorted(p for p in args.submissions.glob("*.ipynb")
                  if not p.name.startswith(".") and p.is_file() and not p.is_symlink())  # 링크는 따라가지 않음
    if not subs:
        print(f"{args.submissions}에 제출 노트북(*.ipynb)이 없습니다.", file=sys.stderr)
        return 1
    bundle = load_bundle(args.bundle)
    torch.set_num_threads(1)  # 채점기가 샌드박스 안과 같은 조건 (스레드 하나)
    with tempfile.TemporaryDirectory(prefix="grade_") as tmp:
        grader = Grader(bundle, args.timeout, max(1, args.jobs), use_sandbox, Path(tmp))
        with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            graded = list(pool.map(grader.grade, subs))
    feedback_dir = write_outputs(args.output, subs, graded, grader.questions)
    for sub, res in zip(subs, graded):
        total = sum(g.score for g in res["grades"])
        print(f"{sub.stem}: {res['status']} {total:g}/{sum(q.points for q in grader.questions):g} ({res['seconds']:.1f}s)")
    print(f"CSV: {args.output}  피드백: {feedback_dir}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
