"""``binder/requirements.txt`` 를 최상위 ``requirements.txt`` 에서 만듭니다 (또는 확인합니다).

Generates ``binder/requirements.txt`` from the top-level pins, or checks that it is up to date.

    .venv/bin/python scripts/binder_requirements.py            # 다시 씀 (rewrite)
    .venv/bin/python scripts/binder_requirements.py --check    # 다르면 종료 코드 1
    .venv/bin/python scripts/binder_requirements.py --sizes    # 설치 크기 표 (installed sizes)

규칙 (the rule, enforced by tests/test_launch.py):

- Binder 에는 장을 **실행하는** 데 필요한 것만 넣습니다. 뿌리(roots)는 attn_lib 의 의존성
  (``pyproject.toml``), 장이 직접 import 하는 pandas, 노트북을 여는 jupyterlab 과 ipykernel 입니다.
  그 뿌리들이 (이 venv 에 설치된 메타데이터로) 끌어오는 패키지 전체를 닫힌 집합으로 넣고, 버전은
  모두 최상위 ``requirements.txt`` 의 고정값 그대로입니다.
- 과제를 스스로 채점하는 otter-grader 도 넣습니다 (학생은 Binder 에서 셀을 실행합니다).
- 책을 **빌드하거나 테스트하는** 데만 쓰는 것(jupyter-book, Sphinx, playwright, pytest
  등, ``BUILD_TEST_ROOTS`` 와 그 의존성)은 뺍니다. 최상위 고정값은 모두 둘 중 하나로 분류되어야 하며,
  어느 쪽에도 닿지 않는 패키지가 생기면 이 스크립트가 멈춥니다 (어디에 둘지 정하라는 뜻).
- torch 는 PyTorch 의 CPU 휠 색인에서 ``torch==<같은 버전>+cpu`` 로 받습니다. pip 은 색인 사이에
  우선순위를 두지 않으므로, CPU 휠을 보장하는 것은 ``+cpu`` 지역 버전 고정입니다: 다른 색인에는
  그 버전이 없어서, CPU 색인에 닿지 못하면 CUDA 휠로 바뀌는 대신 설치가 실패합니다.

의존성 표시(marker)는 이 venv 의 환경(Linux, Python 3.11)으로 평가합니다. Binder 도 Linux 와
``binder/runtime.txt`` 의 Python 3.11 이므로 같습니다. 이 venv 의 torch 는 이미 CPU 휠이므로
(``torch.__version__`` 이 ``+cpu``), 그 메타데이터에는 CUDA(nvidia-*) 의존성이 없습니다.
"""

from __future__ import annotations

import argparse
import re
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
TOP_REQUIREMENTS = ROOT / "requirements.txt"
BINDER_REQUIREMENTS = ROOT / "binder" / "requirements.txt"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"

#: 장을 실행하는 데 필요한 뿌리 가운데 attn_lib 의존성 말고 더 넣는 것
#: (pandas: 장이 표를 만들 때 직접 import; jupyterlab, ipykernel: Binder 에서 노트북을 여는 데;
#: otter-grader: 학생이 Binder 에서 과제 노트북의 grader.check 를 돌리는 데;
#: nbgitpuller: Binder 단추가 환경 브랜치의 서버에 장을 받아 오는 데)
EXTRA_RUNTIME_ROOTS = ("pandas", "jupyterlab", "ipykernel", "otter-grader", "nbgitpuller")
#: 책을 빌드하거나 테스트하거나 채점할 때만 쓰는 뿌리 (Binder 에 넣지 않음)
BUILD_TEST_ROOTS = (
    "jupyter-book", "sphinx", "myst-nb", "jupytext", "playwright", "pytest", "pytest-timeout",
    "nbval", "hypothesis", "coverage", "altair", "sphinx-exercise", "check-jsonschema",
)
#: 설치 도구: 최상위 requirements.txt 도 고정하지 않으므로 Binder 에서도 pip 이 고릅니다
#: (torch 2.13 이 setuptools>=77.0.3 을 요구합니다).
INSTALLER_TOOLS = frozenset({"pip", "setuptools", "wheel"})

HEADER = f"""\
# 생성된 파일입니다. 손으로 고치지 말고 다음을 실행하세요 (generated; do not edit by hand):
#   .venv/bin/python scripts/binder_requirements.py
#
# Binder(repo2docker)가 설치하는 목록: 장을 실행하는 데 필요한 패키지만, 최상위 requirements.txt 와
# 같은 버전으로 (과제의 grader.check 를 위한 otter-grader 포함). 책 빌드·테스트 도구(jupyter-book, Sphinx, playwright, pytest 등)는
# 이미지를 작게 하려고 뺍니다. torch 는 PyTorch 의 CPU 휠 색인에서 '+cpu' 빌드로 받습니다: '+cpu'
# 버전은 그 색인에만 있으므로 CUDA 휠(과 nvidia-* 수 GB)이 끼어들 수 없습니다.
# Runtime packages only, same versions as ../requirements.txt; torch is the CPU build.
--extra-index-url {TORCH_CPU_INDEX}
"""


def read_pins(path: Path = TOP_REQUIREMENTS) -> dict[str, tuple[str, str]]:
    """``이름==버전`` 줄을 {정규화한 이름: (적힌 이름, 버전)} 으로. 그 밖의 줄은 주석/빈 줄만 허용."""
    pins: dict[str, tuple[str, str]] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = re.fullmatch(r"([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;]+)", line)
        if not match:
            raise SystemExit(f"{path}:{number}: '이름==버전' 형식이 아닙니다 (not a pin): {raw!r}")
        pins[canonicalize_name(match.group(1))] = (match.group(1), match.group(2))
    return pins


def runtime_roots() -> list[str]:
    """attn_lib 의존성(pyproject.toml) + ``EXTRA_RUNTIME_ROOTS``."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(dep).name for dep in project["dependencies"]] + list(EXTRA_RUNTIME_ROOTS)


def _requires(name: str, extras: frozenset[str]) -> list[tuple[str, frozenset[str]]]:
    """설치된 배포판 ``name`` 이 (요청한 extras 까지) 요구하는 배포판들."""
    out = []
    for spec in metadata.requires(name) or []:
        req = Requirement(spec)
        if req.marker is not None:
            envs = [{"extra": e} for e in extras] or [{"extra": ""}]
            if not any(req.marker.evaluate(env) for env in envs):
                continue
        out.append((req.name, frozenset(req.extras)))
    return out


def closure(roots: list[str] | tuple[str, ...]) -> set[str]:
    """뿌리들과 그 의존성 전체 (정규화한 이름). 이 venv 에 설치된 메타데이터를 씁니다."""
    seen: dict[str, frozenset[str]] = {}
    todo = [(Requirement(r).name, frozenset(Requirement(r).extras)) for r in roots]
    while todo:
        name, extras = todo.pop()
        key = canonicalize_name(name)
        if key in seen and extras <= seen[key]:
            continue
        seen[key] = seen.get(key, frozenset()) | extras
        try:
            todo.extend(_requires(name, seen[key]))
        except metadata.PackageNotFoundError:
            raise SystemExit(f"{name} 이(가) 이 환경에 설치되어 있지 않습니다: .venv/bin/python 으로 실행하세요")
    return set(seen)


def binder_pins(pins: dict[str, tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """Binder 에 넣을 (이름, 버전) 목록, 최상위 requirements.txt 의 순서대로. torch 는 '+cpu'."""
    pins = read_pins() if pins is None else pins
    runtime = closure(runtime_roots())
    build = closure(BUILD_TEST_ROOTS)
    unpinned = sorted(runtime - set(pins) - INSTALLER_TOOLS)
    if unpinned:
        raise SystemExit(f"장 실행에 필요하지만 requirements.txt 에 고정되지 않은 패키지: {unpinned}")
    orphans = sorted(set(pins) - runtime - build)
    if orphans:
        raise SystemExit(
            f"어느 뿌리에도 닿지 않는 고정값: {orphans}. scripts/binder_requirements.py 의 "
            "EXTRA_RUNTIME_ROOTS(Binder 에 넣음) 또는 BUILD_TEST_ROOTS(뺌)에 넣어 분류하세요."
        )
    for key in runtime - INSTALLER_TOOLS:
        installed = metadata.version(key)
        if installed != pins[key][1] and not (key == "torch" and installed.split("+")[0] == pins[key][1]):
            raise SystemExit(f"{key}: 설치된 {installed} 와 requirements.txt 의 {pins[key][1]} 가 다릅니다")
    out = []
    for key, (name, version) in pins.items():
        if key in runtime:
            out.append((name, f"{version.split('+')[0]}+cpu" if key == "torch" else version))
    return out


def render() -> str:
    return HEADER + "".join(f"{name}=={version}\n" for name, version in binder_pins())


def installed_sizes(names: list[str]) -> list[tuple[str, int]]:
    """배포판마다 RECORD 에 적힌 파일의 실제 크기 합 (바이트)."""
    sizes = []
    for name in names:
        dist = metadata.distribution(name)
        total = 0
        for file in dist.files or []:
            path = Path(dist.locate_file(file))
            if path.is_file():
                total += path.stat().st_size
        sizes.append((name, total))
    return sorted(sizes, key=lambda item: -item[1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="binder/requirements.txt 가 최신인지 확인만")
    parser.add_argument("--sizes", action="store_true", help="Binder 패키지의 설치 크기 표")
    args = parser.parse_args(argv)
    text = render()
    if args.sizes:
        rows = installed_sizes([name for name, _ in binder_pins()])
        for name, size in rows:
            print(f"{size / 1e6:10.1f} MB  {name}")
        print(f"{sum(s for _, s in rows) / 1e6:10.1f} MB  합계 (total, {len(rows)} packages)")
        return 0
    if args.check:
        current = BINDER_REQUIREMENTS.read_text(encoding="utf-8") if BINDER_REQUIREMENTS.is_file() else ""
        if current != text:
            print("binder/requirements.txt 가 최신이 아닙니다: .venv/bin/python scripts/binder_requirements.py",
                  file=sys.stderr)
            return 1
        return 0
    BINDER_REQUIREMENTS.write_text(text, encoding="utf-8")
    print(f"{BINDER_REQUIREMENTS.relative_to(ROOT)}: {len(text.splitlines())} 줄")
    return 0


if __name__ == "__main__":
    sys.exit(main())
