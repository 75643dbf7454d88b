"""assignments/*.ipynb 마스터 노트북을 otter assign으로 dist/ 에 배포판으로 만듭니다 (make assignments).

마스터 하나(`assignments/<이름>.ipynb`)마다:

- ``dist/<이름>/student/``       학생용 노트북과 공개 테스트 (풀이와 숨은 테스트 없음)
- ``dist/<이름>/autograder/``    풀이가 든 노트북과 모든 테스트 (강사 전용)
- ``dist/<이름>/<이름>-autograder.zip``  ``otter run``과 Gradescope에 쓰는 자동 채점 zip (이름에 날짜 없음)
- ``dist/<이름>/<이름>-student.zip``     학생에게 나눠 줄 zip (노트북 + tests/)

``otter assign``은 마스터의 테스트를 풀이 노트북에 돌려 보고, 실패하면 오류로 끝납니다.

``make assignments``(``main``)는 학생판의 공개 테스트를 ``attn_lib/exercises/public_tests.json``에도 씁니다
(내용이 바뀐 때만: 파일 시각이 바뀌면 make 가 모든 장을 다시 실행하므로). 학생 노트북의 첫 셀이 이 패키지 데이터로
``./tests``를 만들어, 노트북 하나만 열어도(Colab, JupyterHub) ``grader.check``가 돕니다.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PUBLIC_TESTS = ROOT / "attn_lib" / "exercises" / "public_tests.json"


def public_tests(out: Path) -> dict[str, str]:
    """배포판 ``student/tests/``의 공개 테스트 {파일 이름: 내용}."""
    return {p.name: p.read_text(encoding="utf-8") for p in sorted((out / "student" / "tests").glob("*.py"))}


def render_public_tests(bundle: dict[str, dict[str, str]]) -> str:
    return json.dumps(bundle, ensure_ascii=False, indent=1, sort_keys=True) + "\n"


def update_package_data(built: dict[str, Path], target: Path = PUBLIC_TESTS) -> bool:
    """공개 테스트 묶음을 패키지 데이터에 씁니다. 내용이 같으면 건드리지 않고 False."""
    text = render_public_tests({name: public_tests(out) for name, out in built.items()})
    if target.exists() and target.read_text(encoding="utf-8") == text:
        return False
    target.write_text(text, encoding="utf-8")
    print(f"공개 테스트 -> {target.relative_to(ROOT)}")
    return True


def build(master: Path, dist: Path) -> Path:
    """마스터 노트북 하나를 ``dist/<이름>/``으로 만듭니다. 자동 채점 zip 경로를 돌려줍니다."""
    out = dist / master.stem
    if out.exists():
        shutil.rmtree(out)
    start = time.monotonic()
    subprocess.run([sys.executable, "-m", "otter", "assign", str(master), str(out)], check=True,
                   stdout=subprocess.DEVNULL)
    zips = sorted((out / "autograder").glob("*-autograder_*.zip"))
    if len(zips) != 1:
        raise RuntimeError(f"{out / 'autograder'}에 자동 채점 zip이 하나여야 하는데 {len(zips)}개입니다.")
    autograder = out / f"{master.stem}-autograder.zip"
    shutil.copy2(zips[0], autograder)
    student = out / "student"
    with zipfile.ZipFile(out / f"{master.stem}-student.zip", "w", zipfile.ZIP_DEFLATED) as zf:
        for path in sorted(student.rglob("*")):
            if path.is_file():
                zf.write(path, path.relative_to(student))
    print(f"{master.name} -> {out}/ ({time.monotonic() - start:.1f}s)")
    return autograder


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--assignments", type=Path, default=ROOT / "assignments")
    parser.add_argument("--dist", type=Path, default=ROOT / "dist")
    args = parser.parse_args(argv)
    masters = sorted(args.assignments.glob("*.ipynb"))
    if not masters:
        print(f"{args.assignments}에 마스터 노트북이 없습니다.", file=sys.stderr)
        return 1
    args.dist.mkdir(parents=True, exist_ok=True)
    for master in masters:
        build(master, args.dist)
    update_package_data({m.stem: args.dist / m.stem for m in masters})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
