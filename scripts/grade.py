"""제출 폴더를 otter run으로 채점해 학생·문제별 점수 CSV를 씁니다 (make grade).

    python scripts/grade.py SUBMISSIONS_DIR --autograder dist/attention_hw/attention_hw-autograder.zip \
        --output dist/grades.csv [--timeout 300] [--jobs N]

제출 하나(`*.ipynb`)마다 `otter run`을 따로 띄우고 시간 제한을 겁니다. 기본으로 코어 수만큼 동시에 채점하고,
채점 프로세스마다 torch 스레드를 하나로 둡니다 (OMP_NUM_THREADS=1: 여러 채점이 코어를 두고 다투지 않게). 노트북이 예외를 일으키거나,
끝나지 않거나(시간 제한), 테스트 셀을 지웠거나, otter 자체가 실패해도 그 학생의 행은 CSV에 남습니다
(status 열: ok / timeout / error, 점수 0). 학생별 한국어 피드백은 CSV 옆 `<이름>_feedback/` 폴더에 씁니다.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

FAILURE = re.compile(r"(?:ExerciseFailure|AssertionError): ?")
HANGUL = re.compile(r"[가-힣]")


NOISE = re.compile(r"^\s*(Trying:|Expecting|\*{5,}|Line \d+, in|Failed example:|Exception raised:|Traceback|q\d+_\d+ - \d+ )")


def _clean(message: str) -> str:
    """doctest가 덧붙인 줄(Trying:, ****, Line ...)이 나오기 전까지만 남기고 들여쓰기를 없앱니다."""
    kept = []
    for line in message.splitlines():
        if NOISE.match(line):
            break
        kept.append(line.strip())
    return "\n".join(k for k in kept if k)


def korean_feedback(name: str, score: float, possible: float, output: str) -> str:
    """otter의 영어 출력에서 한국어 실패 메시지만 모아 한 문제의 피드백을 만듭니다."""
    if score >= possible:
        return f"{name}: {score:g}/{possible:g}점. 공개·숨은 테스트를 모두 통과했습니다."
    # 실패 하나하나: "ExerciseFailure:"나 "AssertionError:"부터 다음 실패가 나오기 전까지 (한 문제에 실패가 여럿일 수 있음)
    starts = list(FAILURE.finditer(output))
    chunks = [output[m.end():(starts[i + 1].start() if i + 1 < len(starts) else len(output))] for i, m in enumerate(starts)]
    messages = [_clean(c) for c in chunks if HANGUL.search(_clean(c))]
    seen: list[str] = []
    for m in messages:
        if m not in seen:
            seen.append(m)
    body = "\n".join(seen) if seen else "테스트를 통과하지 못했습니다 (함수나 변수가 없거나 오류가 났습니다)."
    return f"{name}: {score:g}/{possible:g}점.\n{body}"


def questions_of(autograder: Path) -> dict[str, float]:
    """자동 채점 zip 안의 tests/*.py에서 문제 이름과 배점을 읽습니다."""
    import zipfile

    points: dict[str, float] = {}
    with zipfile.ZipFile(autograder) as zf:
        for info in sorted(zf.namelist()):
            if info.startswith("tests/") and info.endswith(".py"):
                env: dict = {}
                exec(zf.read(info).decode("utf-8"), env)  # 채점 zip은 강사가 만든 것 (신뢰)
                points[env["test"]["name"]] = float(env["test"].get("points") or 1)
    return points


# 채점 프로세스(와 그 커널)마다 torch·BLAS 스레드 하나: 순차든 병렬이든 같은 조건 (benchmarks/bench_grading.py)
WORKER_ENV = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def default_jobs() -> int:
    """동시에 채점할 제출 수의 기본값: 이 프로세스가 쓸 수 있는 코어 수."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # sched_getaffinity 가 없는 운영체제
        return max(1, os.cpu_count() or 1)


# 학생 코드와 상관없는 커널 시작 실패: 동시에 커널 여럿을 띄울 때 드물게 생깁니다. 다시 시도합니다.
KERNEL_START_FAILURES = ("Kernel died before replying to kernel_info", "Kernel didn't respond in")
ATTEMPTS = 3


def _run_otter(sub: Path, autograder: Path, timeout: float) -> dict:
    """otter run을 한 번 실행합니다. 예외 없이 결과 dict를 돌려줍니다 (log 포함)."""
    with tempfile.TemporaryDirectory(prefix="otter_run_") as out:
        cmd = [sys.executable, "-m", "otter", "run", "-a", str(autograder.resolve()), "-o", out, "--no-logo", str(sub.resolve())]
        proc = subprocess.Popen(cmd, cwd=out, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                env=WORKER_ENV, start_new_session=True)  # 새 세션: 시간 초과 때 커널까지 함께 끝냄
        try:
            log, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return {"status": "timeout", "tests": {}, "log": "",
                    "note": f"{timeout:g}초 안에 끝나지 않았습니다 (무한 반복?)"}
        results = Path(out) / "results.json"
        if proc.returncode != 0 or not results.exists():
            tail = " ".join(log.strip().splitlines()[-3:])[:300]
            return {"status": "error", "tests": {}, "log": log,
                    "note": f"otter run 실패 (종료 코드 {proc.returncode}): {tail}"}
        data = json.loads(results.read_text(encoding="utf-8"))
    tests = {t["name"]: t for t in data.get("tests", []) if "max_score" in t}
    return {"status": "ok", "tests": tests, "log": log, "note": ""}


def grade_one(sub: Path, autograder: Path, timeout: float) -> dict:
    """제출 하나를 채점합니다. 어떤 경우에도 예외 없이 결과 dict를 돌려줍니다.

    커널이 시작하다 죽은 경우(학생 코드와 무관)만 최대 ``ATTEMPTS``번까지 다시 시도합니다.
    """
    start = time.monotonic()
    for attempt in range(1, ATTEMPTS + 1):
        res = _run_otter(sub, autograder, timeout)
        flaky = res["status"] == "error" and any(m in res["log"] for m in KERNEL_START_FAILURES)
        if not flaky:
            break
        res["note"] += f" (커널 시작 실패, {attempt}/{ATTEMPTS}번째 시도)"
    res.pop("log")
    res["seconds"] = time.monotonic() - start
    return res


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="제출 폴더를 otter run으로 채점해 CSV를 씁니다.")
    parser.add_argument("submissions", type=Path, help="제출 노트북(*.ipynb) 폴더")
    parser.add_argument("--autograder", type=Path, required=True, help="otter assign이 만든 자동 채점 zip")
    parser.add_argument("--output", type=Path, required=True, help="쓸 CSV 경로")
    parser.add_argument("--timeout", type=float, default=300.0, help="제출 하나의 시간 제한(초)")
    parser.add_argument("--jobs", type=int, default=default_jobs(), help="동시에 채점할 제출 수 (기본: 코어 수)")
    args = parser.parse_args(argv)

    subs = sorted(p for p in args.submissions.glob("*.ipynb") if not p.name.startswith("."))
    if not subs:
        print(f"{args.submissions}에 제출 노트북(*.ipynb)이 없습니다.", file=sys.stderr)
        return 1
    points = questions_of(args.autograder)
    possible = sum(points.values())
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        graded = list(pool.map(lambda s: grade_one(s, args.autograder, args.timeout), subs))

    args.output.parent.mkdir(parents=True, exist_ok=True)
    feedback_dir = args.output.with_name(args.output.stem + "_feedback")
    feedback_dir.mkdir(exist_ok=True)
    with args.output.open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["student", "status", *points, "total", "possible", "percent", "seconds", "note"])
        for sub, res in zip(subs, graded):
            scores = [float(res["tests"].get(q, {}).get("score", 0.0)) for q in points]
            total = sum(scores)
            writer.writerow([sub.stem, res["status"], *(f"{s:g}" for s in scores), f"{total:g}", f"{possible:g}",
                             f"{100 * total / possible:.1f}", f"{res['seconds']:.1f}", res["note"]])
            lines = [f"# {sub.stem}: {total:g}/{possible:g}점 ({res['status']})"]
            if res["note"]:
                lines.append(res["note"])
            for q, s in zip(points, scores):
                lines.append(korean_feedback(q, s, points[q], res["tests"].get(q, {}).get("output", "")))
            (feedback_dir / f"{sub.stem}.txt").write_text("\n\n".join(lines) + "\n", encoding="utf-8")
            print(f"{sub.stem}: {res['status']} {total:g}/{possible:g} ({res['seconds']:.1f}s)")
    print(f"CSV: {args.output}  피드백: {feedback_dir}/")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
