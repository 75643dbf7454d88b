"""benchmarks/bench_*.py 를 하나씩 스크립트로 실행합니다 (`make bench`).

Runs every ``benchmarks/bench_*.py`` as a script, in name order, each in its own process
with the same Python. Each benchmark prints its own table. Exits nonzero if any fails.

    .venv/bin/python benchmarks/run_all.py            # 모두 (all)
    .venv/bin/python benchmarks/run_all.py heads      # 이름에 'heads' 가 든 것만 (filter)
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv: list[str]) -> int:
    filters = argv[1:]
    scripts = sorted(HERE.glob("bench_*.py"))
    if filters:
        scripts = [s for s in scripts if any(f in s.name for f in filters)]
    if not scripts:
        print(f"벤치마크가 없습니다 (no benchmarks/bench_*.py found in {HERE})")
        return 0

    failed: list[str] = []
    for script in scripts:
        print(f"\n=== {script.name} ===", flush=True)
        start = time.perf_counter()
        result = subprocess.run([sys.executable, str(script)], cwd=HERE.parent)
        elapsed = time.perf_counter() - start
        status = "ok" if result.returncode == 0 else f"실패 (failed, exit {result.returncode})"
        print(f"--- {script.name}: {status}, {elapsed:.1f} s", flush=True)
        if result.returncode != 0:
            failed.append(script.name)

    print(f"\n{len(scripts) - len(failed)}/{len(scripts)} 통과 (passed)")
    if failed:
        print("실패한 벤치마크 (failed): " + ", ".join(failed), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
