"""채점 처리량과 샌드박스의 비용: 같은 제출들을 같은 실행 안에서 네 가지로 채점해 표로 비교합니다.

1. ``make grade`` (샌드박스, ``--jobs 1``)
2. ``make grade`` (샌드박스, ``--jobs`` = 코어 수): 목표는 1보다 1.8배 이상의 처리량 (2코어)
3. 같은 하네스를 샌드박스 없이 (``GRADE_SANDBOX=none``, ``--jobs 1``): 샌드박스 자체의 비용
4. 예전 방식, 제출마다 ``otter run`` (같은 명세에서 만든 자동 채점 zip, 샌드박스 없음, 하나씩): 기준선

제출 가운데 하나는 일부러 예외를 일으키는 노트북입니다. 작업자마다 torch 스레드는 하나입니다.
샌드박스 방식은 root와 bubblewrap이 있어야 돌고, 없으면 그 줄을 건너뛴다고 적습니다.

    .venv/bin/python benchmarks/bench_grading.py [--n 12]
"""

from __future__ import annotations

import argparse
import csv
import importlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
MASTER = ROOT / "assignments" / "attention_hw.ipynb"
NAME = MASTER.stem


def _load(script: str):
    """채점 쪽 모듈 (예전 scripts/ 의 이름으로): grade, sandbox, build_assignments."""
    return importlib.import_module({"build_assignments": "attn_grader.build"}.get(script, f"attn_grader.{script}"))


def make_submissions(dist: Path, folder: Path, n: int) -> None:
    """풀이 노트북 ``n - 1``개와 예외를 일으키는 노트북 1개."""
    solved = nbformat.read(dist / "autograder" / f"{NAME}.ipynb", as_version=4)
    for i in range(n - 1):
        nbformat.write(solved, folder / f"student_{i:02d}.ipynb")
    broken = nbformat.read(dist / "autograder" / f"{NAME}.ipynb", as_version=4)
    broken.cells.insert(3, nbformat.v4.new_code_cell('raise RuntimeError("일부러 낸 오류")'))
    nbformat.write(broken, folder / "student_broken.ipynb")


def grade(grade_mod, subs: Path, bundle: Path, out: Path, jobs: int) -> tuple[float, dict[str, dict]]:
    start = time.perf_counter()
    rc = grade_mod.main([str(subs), "--bundle", str(bundle), "--output", str(out), "--jobs", str(jobs)])
    seconds = time.perf_counter() - start
    if rc != 0:
        raise SystemExit(f"grade.py 실패 (exit {rc})")
    with out.open(encoding="utf-8") as f:
        return seconds, {r["student"]: r for r in csv.DictReader(f)}


def otter_run(subs: Path, autograder: Path, work: Path) -> float:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg"}
    start = time.perf_counter()
    for sub in sorted(subs.glob("*.ipynb")):
        out = work / sub.stem
        out.mkdir(parents=True)
        subprocess.run([sys.executable, "-m", "otter", "run", "-a", str(autograder), "-o", str(out), "--no-logo", str(sub)],
                       cwd=out, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - start


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=12, help="제출 수")
    args = parser.parse_args(argv)
    grade_mod = _load("grade")
    sandbox = _load("sandbox")
    cores = grade_mod.default_jobs()
    try:
        sandbox.check_available()
        sandboxed = True
    except sandbox.SandboxUnavailable as exc:
        print(f"샌드박스를 쓸 수 없어 그 줄은 건너뜁니다: {exc}")
        sandboxed = False
    rows, results = [], {}
    with tempfile.TemporaryDirectory(prefix="bench_grading_") as tmp:
        tmp = Path(tmp)
        _load("build_assignments").build(MASTER, tmp / "dist")
        dist = tmp / "dist" / NAME
        subs = tmp / "subs"
        subs.mkdir()
        make_submissions(dist, subs, args.n)
        bundle = dist / f"{NAME}-grading.json"
        plans = [("샌드박스 (--jobs 1)", 1, "bwrap"), (f"샌드박스 (--jobs {cores})", cores, "bwrap"),
                 ("샌드박스 없이 (--jobs 1)", 1, "none")]
        for label, jobs, mode in plans:
            if mode == "bwrap" and not sandboxed:
                continue
            os.environ["GRADE_SANDBOX"] = mode
            seconds, graded = grade(grade_mod, subs, bundle, tmp / f"grades_{mode}_{jobs}.csv", jobs)
            results[label] = graded
            rows.append((label, jobs, seconds))
        os.environ.pop("GRADE_SANDBOX", None)
        rows.append(("otter run 하나씩 (예전 방식)", 1, otter_run(subs, dist / f"{NAME}-autograder.zip", tmp / "otter")))
    base = next(s for label, _, s in rows if label.startswith("otter"))
    print(f"\n제출 {args.n}개 (그중 하나는 예외를 일으킴), 코어 {cores}개, 작업자마다 torch 스레드 1개")
    print(f"{'방식':<28} {'작업자':>6} {'걸린 시간(s)':>12} {'제출당(s)':>10} {'분당 제출':>10} {'otter 대비':>10}")
    for label, jobs, seconds in rows:
        print(f"{label:<28} {jobs:>6} {seconds:>12.1f} {seconds / args.n:>10.2f} {60 * args.n / seconds:>10.1f} "
              f"{base / seconds:>9.2f}×")
    by = {label: s for label, _, s in rows}
    if sandboxed:
        print(f"동시 채점의 처리량 배율 (--jobs {cores} / --jobs 1): {by['샌드박스 (--jobs 1)'] / by[f'샌드박스 (--jobs {cores})']:.2f}× (목표 ≥ 1.8×)")
        cost = by["샌드박스 (--jobs 1)"] / by["샌드박스 없이 (--jobs 1)"] - 1
        print(f"샌드박스의 비용 (같은 하네스, 하나씩): 제출당 {100 * cost:+.0f}% (목표 ≤ +20%)")
        print(f"otter run 대비 제출당 시간: {100 * (by['샌드박스 (--jobs 1)'] / base - 1):+.0f}%")
    for label, graded in results.items():
        ok = sum(r["status"] == "ok" for r in graded.values())
        full = sum(r["total"] == r["possible"] for r in graded.values())
        print(f"{label}: 행 {len(graded)}개, status ok {ok}개, 만점 {full}개 (예외 노트북도 행이 남음)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
