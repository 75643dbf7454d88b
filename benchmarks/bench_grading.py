"""채점 처리량: 제출 20개를 순서대로 한 번, 코어 수만큼 동시에 한 번 채점해 분당 제출 수와 배율을 봅니다.

Grading throughput of ``scripts/grade.py``: 20 submissions graded sequentially (``--jobs 1``) and in parallel
(``--jobs`` = cores) in the same run, one torch thread per worker in both (``WORKER_ENV``). Goal: ≥ 1.8× on 2 cores.
제출 가운데 하나는 일부러 예외를 일으키는 노트북입니다: 나머지 채점이 멈추지 않는지도 봅니다.

    .venv/bin/python benchmarks/bench_grading.py [--n 20]
"""

from __future__ import annotations

import argparse
import csv
import importlib.util
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
MASTER = ROOT / "assignments" / "attention_hw.ipynb"
NAME = MASTER.stem


def _load(script: str):
    spec = importlib.util.spec_from_file_location(script, ROOT / "scripts" / f"{script}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_submissions(dist: Path, folder: Path, n: int) -> None:
    """풀이 노트북 ``n - 1``개와 예외를 일으키는 노트북 1개."""
    solved = nbformat.read(dist / "autograder" / f"{NAME}.ipynb", as_version=4)
    for i in range(n - 1):
        nbformat.write(solved, folder / f"student_{i:02d}.ipynb")
    broken = nbformat.read(dist / "autograder" / f"{NAME}.ipynb", as_version=4)
    broken.cells.insert(3, nbformat.v4.new_code_cell('raise RuntimeError("일부러 낸 오류")'))
    nbformat.write(broken, folder / "student_broken.ipynb")


def grade(grade_mod, subs: Path, autograder: Path, out: Path, jobs: int) -> tuple[float, dict[str, dict]]:
    start = time.perf_counter()
    rc = grade_mod.main([str(subs), "--autograder", str(autograder), "--output", str(out), "--jobs", str(jobs)])
    seconds = time.perf_counter() - start
    if rc != 0:
        raise SystemExit(f"grade.py 실패 (exit {rc})")
    with out.open(encoding="utf-8") as f:
        return seconds, {r["student"]: r for r in csv.DictReader(f)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20, help="제출 수")
    args = parser.parse_args(argv)
    grade_mod = _load("grade")
    cores = grade_mod.default_jobs()
    with tempfile.TemporaryDirectory(prefix="bench_grading_") as tmp:
        tmp = Path(tmp)
        _load("build_assignments").build(MASTER, tmp / "dist")
        dist = tmp / "dist" / NAME
        subs = tmp / "subs"
        subs.mkdir()
        make_submissions(dist, subs, args.n)
        autograder = dist / f"{NAME}-autograder.zip"
        rows = []
        results = {}
        for label, jobs in (("순서대로 (--jobs 1)", 1), (f"동시에 (--jobs {cores})", cores)):
            seconds, graded = grade(grade_mod, subs, autograder, tmp / f"grades_{jobs}.csv", jobs)
            results[jobs] = graded
            rows.append((label, jobs, seconds, 60 * args.n / seconds))
    base = rows[0][2]
    print(f"\n제출 {args.n}개 (그중 하나는 예외를 일으킴), 코어 {cores}개, 작업자마다 torch 스레드 1개")
    print(f"{'방식':<22} {'작업자':>6} {'걸린 시간(s)':>12} {'분당 제출':>10} {'배율':>6}")
    for label, jobs, seconds, per_min in rows:
        print(f"{label:<22} {jobs:>6} {seconds:>12.1f} {per_min:>10.1f} {base / seconds:>5.2f}×")
    for jobs, graded in results.items():
        ok = sum(r["status"] == "ok" for r in graded.values())
        full = sum(r["total"] == r["possible"] for r in graded.values())
        print(f"--jobs {jobs}: 행 {len(graded)}개, status ok {ok}개, 만점 {full}개 (예외 노트북도 행이 남음)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
