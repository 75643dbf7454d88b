"""잠금 파일: requirements.in -> requirements.txt, binder/requirements.in -> binder/requirements.txt (``make lock``).

Lock files compiled with pip-tools from short lists of direct dependencies:

- 잠금이 ``.in`` 을 따르고(모든 직접 의존성이 고정되고 그 범위를 만족), 고아 고정값이 없습니다: 잠금의 모든 패키지가
  ``.in`` 의 뿌리에서 (이 venv 의 메타데이터로) 닿습니다. 예전 ``scripts/binder_requirements.py`` 의 검사입니다.
- torch 는 어느 잠금에도 없고(``--unsafe-package torch``), 판은 Makefile 의 ``TORCH_VERSION``, 두 ``.in``,
  ``binder/postBuild`` 의 ``+cpu`` 에서 같습니다. CUDA 패키지(``nvidia-*``, ``triton``)는 한 줄도 없습니다.
- Binder 잠금은 최상위 잠금과 같은 판이고(``-c ../requirements.txt``), 이 venv 는 잠금과 같은 판입니다.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
TOP_IN, TOP_LOCK = ROOT / "requirements.in", ROOT / "requirements.txt"
BINDER_IN, BINDER_LOCK = ROOT / "binder" / "requirements.in", ROOT / "binder" / "requirements.txt"
LOCKS = {"requirements.txt": (TOP_IN, TOP_LOCK), "binder/requirements.txt": (BINDER_IN, BINDER_LOCK)}
#: 설치 도구와 torch: 잠금에 넣지 않습니다 (pip-compile 의 unsafe 목록)
NOT_LOCKED = frozenset({"pip", "setuptools", "distribute", "torch"})
PIN_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)")


def read_lock(path: Path) -> dict[str, str]:
    """``이름==판`` 줄 -> {정규화한 이름: 판}. 그 밖의 줄은 주석, 빈 줄만 (옵션 줄도 없어야 함)."""
    pins: dict[str, str] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = PIN_RE.match(line)
        assert match, f"{path.name}:{number}: '이름==판' 이 아닌 줄: {raw!r}"
        key = canonicalize_name(match.group(1))
        assert key not in pins, f"{path.name}: {key} 가 두 번 있습니다"
        pins[key] = match.group(2)
    return pins


def read_in(path: Path) -> list[Requirement]:
    out = []
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.split("#", 1)[0].strip()
        if line and not line.startswith("-"):
            out.append(Requirement(line))
    return out


def closure(roots: list[str]) -> set[str]:
    """뿌리들과 그 의존성 전체 (정규화한 이름). 이 venv 에 설치된 메타데이터를 씁니다 (Linux, Python 3.11)."""
    seen: dict[str, frozenset[str]] = {}
    todo = [(Requirement(r).name, frozenset(Requirement(r).extras)) for r in roots]
    while todo:
        name, extras = todo.pop()
        key = canonicalize_name(name)
        if key in seen and extras <= seen[key]:
            continue
        seen[key] = seen.get(key, frozenset()) | extras
        for spec in metadata.requires(name) or []:
            req = Requirement(spec)
            envs = [{"extra": e} for e in seen[key]] or [{"extra": ""}]
            if req.marker is None or any(req.marker.evaluate(env) for env in envs):
                todo.append((req.name, frozenset(req.extras)))
    return set(seen)


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_lock_pins_every_direct_dependency_within_its_range(lock: str) -> None:
    source, path = LOCKS[lock]
    pins = read_lock(path)
    for req in read_in(source):
        key = canonicalize_name(req.name)
        if key in NOT_LOCKED:
            assert key not in pins, f"{lock}: {key} 는 잠금에 넣지 않습니다"
            continue
        assert key in pins, f"{lock} 에 {source.name} 의 {req} 가 없습니다: `make lock`"
        assert req.specifier.contains(pins[key], prereleases=True), f"{lock}: {key}=={pins[key]} 가 {req} 밖입니다"
    text = path.read_text(encoding="utf-8")
    assert "make lock" in text.split("\n\n", 1)[0], f"{lock} 의 머리말이 다시 만드는 명령(make lock)을 말하지 않습니다"


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_lock_has_no_orphan_and_no_unpinned_package(lock: str) -> None:
    """고아 고정값(어느 뿌리에서도 닿지 않음)도, 뿌리가 끌어오는데 고정되지 않은 패키지도 없습니다."""
    source, path = LOCKS[lock]
    pins = set(read_lock(path))
    reached = closure([r.name for r in read_in(source)]) - NOT_LOCKED
    orphans, unpinned = sorted(pins - reached), sorted(reached - pins)
    assert not orphans, f"{lock}: {source.name} 의 어느 뿌리에서도 닿지 않는 고정값: {orphans}. `make lock` 을 다시 하세요"
    assert not unpinned, f"{lock}: 고정되지 않은 의존성: {unpinned}. `make lock` 을 다시 하세요"


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_no_cuda_packages_in_the_locks(lock: str) -> None:
    text = LOCKS[lock][1].read_text(encoding="utf-8")
    cuda = [line for line in text.splitlines() if re.search(r"\b(nvidia-[\w-]+|triton)\b", line)]
    assert not cuda, f"{lock} 에 CUDA 패키지가 있습니다 (CPU torch 로 다시 잠그세요: make lock TORCH_INDEX_URL=...): {cuda}"
    assert not any(line.startswith("torch==") for line in text.splitlines()), f"{lock} 에 torch 가 고정되어 있습니다"


def test_torch_version_agrees_everywhere() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    version = re.search(r"^TORCH_VERSION := (\S+)$", makefile, re.M).group(1)
    for source in (TOP_IN, BINDER_IN):
        torch = [r for r in read_in(source) if canonicalize_name(r.name) == "torch"]
        assert [str(r.specifier) for r in torch] == [f"=={version}"], f"{source.name}: torch 는 =={version} 이어야 합니다"
    post_build = (ROOT / "binder" / "postBuild").read_text(encoding="utf-8")
    assert f'"torch=={version}+cpu"' in post_build, f"binder/postBuild 가 torch=={version}+cpu 를 설치하지 않습니다"
    assert "--index-url https://download.pytorch.org/whl/cpu" in post_build and "--no-deps" in post_build
    assert metadata.version("torch").split("+")[0] == version, "이 venv 의 torch 가 TORCH_VERSION 과 다릅니다"


def test_binder_lock_uses_the_top_level_versions() -> None:
    assert "-c ../requirements.txt" in BINDER_IN.read_text(encoding="utf-8")
    top, binder = read_lock(TOP_LOCK), read_lock(BINDER_LOCK)
    different = {k: (v, top.get(k)) for k, v in binder.items() if top.get(k) != v}
    assert not different, f"Binder 잠금이 최상위 잠금과 다른 판을 씁니다 (Binder, 최상위): {different}"


def test_binder_lock_has_nothing_that_needs_torch() -> None:
    """postBuild 가 CPU torch 를 설치하기 전에 requirements.txt 의 어떤 패키지도 PyPI 의 torch 를 끌어오면 안 됩니다."""
    needs = sorted(k for k in read_lock(BINDER_LOCK) if "torch" in closure([k]))
    assert not needs, f"Binder 잠금에 torch 를 요구하는 패키지가 있습니다 (CUDA torch 가 설치됨): {needs}"


def test_course_dependencies_are_listed_in_both_in_files() -> None:
    """장이 import하는 두 패키지(attn_lib, attn_course)의 의존성이 두 .in 파일에 같은 범위로 (torch 와 서로는 빼고)."""
    deps = [d for pkg in ("attn_lib", "attn_course") for d in
            tomllib.loads((ROOT / pkg / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]]
    wanted = {canonicalize_name(Requirement(d).name): str(Requirement(d).specifier) for d in deps if
              canonicalize_name(Requirement(d).name) not in ("torch", "attn-lib")}
    for source in (TOP_IN, BINDER_IN):
        listed = {canonicalize_name(r.name): str(r.specifier) for r in read_in(source)}
        missing = {k: v for k, v in wanted.items() if listed.get(k) != v}
        assert not missing, f"{source.relative_to(ROOT)} 에 attn_lib 의 의존성이 pyproject.toml 과 같게 없습니다: {missing}"


def test_venv_matches_the_lock() -> None:
    """`make` 가 잠금으로 설치한 venv: 잠금의 모든 패키지가 그 판으로 설치되어 있습니다."""
    wrong = {}
    for key, version in read_lock(TOP_LOCK).items():
        try:
            installed = metadata.version(key)
        except metadata.PackageNotFoundError:
            installed = None
        if installed != version:
            wrong[key] = (installed, version)
    assert not wrong, f"venv 와 requirements.txt 가 다릅니다 (설치됨, 잠금): {wrong}. `make setup` 을 하세요"


def test_unused_test_tools_are_not_locked() -> None:
    """nbval, hypothesis, coverage 는 어느 테스트도 쓰지 않아 뺐습니다 (다시 쓰면 requirements.in 에 적으세요)."""
    pins = read_lock(TOP_LOCK)
    tracked = subprocess.run(["git", "ls-files", "*.py", "*.toml", "*.cfg", "*.ini", "Makefile"], cwd=ROOT,
                             capture_output=True, text=True, check=True).stdout.split()
    for tool, pattern in (("nbval", r"--nbval|\bimport nbval|pytest_nbval"), ("hypothesis", r"\bimport hypothesis|\bfrom hypothesis\b"),
                          ("coverage", r"--cov\b|\bimport coverage\b")):
        users = [f for f in tracked if f != "tests/test_locks.py" and re.search(pattern, (ROOT / f).read_text(errors="ignore"))]
        assert tool in pins or not users, f"{users} 가 {tool} 을 쓰는데 잠금에 없습니다"
        assert tool not in pins or users, f"{tool} 을 아무도 쓰지 않는데 잠금에 있습니다"


def test_makefile_lock_target_is_the_one_upgrade_command() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^lock: ", makefile, re.M)
    compile_line = re.search(r"^PIP_COMPILE = (.*?)\n\n", makefile, re.M | re.S).group(1)
    for option in ("--unsafe-package torch", "--strip-extras", "--no-emit-index-url", "$(if $(UPGRADE),--upgrade)"):
        assert option in compile_line, f"make lock 의 pip-compile 에 {option} 가 없습니다"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "make lock UPGRADE=1" in readme, "README 가 올리는 명령을 말하지 않습니다"
