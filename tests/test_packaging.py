"""배포판으로서의 패키지: 폴더마다 진짜 wheel 을 만들어 파일이 모두 들어가는지, 설치한 wheel 에서 모든 모듈이
import되는지, attn_lib 은 torch 말고 아무것도 끌어오지 않는지, import 만으로는 전역 설정이 바뀌지 않는지, 라이선스.

Colab 은 ``attn_lib``, ``attn_course`` 를 git 의 하위 폴더에서 wheel 로 설치하고, CI 와 Binder 는 ``pip install -e``
를 씁니다. editable 설치로는 wheel 에서 빠진 파일을 알아챌 수 없으므로, 여기서 wheel 을 직접 만들어 봅니다.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: wheel 로 나가는 파이썬 배포판 (사이트 확장 attn_site 는 tests/test_site_package.py)
DISTRIBUTIONS = ("attn_lib", "attn_course", "attn_harness", "attn_grader")
#: 배포판마다 적힌 의존성 (학생이 설치하는 둘은 특히 짧게)
REQUIRES = {"attn_lib": {"torch"}, "attn_course": {"attn_lib", "torch", "matplotlib", "numpy", "koreanize-matplotlib",
                                                   "ipywidgets", "seaborn", "pandas"},
            "attn_harness": {"attn_course", "ipython"}, "attn_grader": {"attn_harness", "otter-grader", "nbformat"}}


def tracked(package: str) -> list[str]:
    out = subprocess.run(["git", "ls-files", package], cwd=ROOT, check=True, capture_output=True, text=True)
    return [rel for rel in out.stdout.split() if (ROOT / rel).is_file()]


def package_files(package: str) -> set[str]:
    return {rel for rel in tracked(package) if rel.endswith((".py", ".json", ".js", ".css", ".md"))}


def module_names(package: str) -> list[str]:
    names = []
    for rel in sorted(package_files(package)):
        if rel.endswith(".py") and not rel.endswith("__main__.py"):
            parts = list(Path(rel).with_suffix("").parts)
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> dict[str, Path]:
    # 저장소 안에서 빌드하면 setuptools 가 build/ 를 남기고, 거기 남은 옛 모듈이 다음 wheel 에 섞입니다.
    # git 이 아는 파일만 임시 폴더에 복사해 거기서 빌드합니다 (build in a clean copy, never in the repo).
    out = tmp_path_factory.mktemp("wheels")
    built = {}
    for package in DISTRIBUTIONS:
        src = tmp_path_factory.mktemp(f"src_{package}")
        for rel in tracked(package):
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / rel, src / rel)
        subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out),
                        str(src / package)], check=True, cwd=out)
        (built[package],) = out.glob(f"{package}-*.whl")
    return built


@pytest.mark.parametrize("package", DISTRIBUTIONS)
def test_wheel_contains_every_package_file_and_one_version(wheels, package):
    zf = zipfile.ZipFile(wheels[package])
    names = set(zf.namelist())
    expected = package_files(package) - {f"{package}/pyproject.toml"}
    missing = sorted(expected - names)
    assert not missing, f"wheel 에 빠진 파일: {missing}"
    extra = sorted(n for n in names if n.startswith(f"{package}/") and n not in expected)
    assert not extra, f"wheel 에 저장소에 없는 파일이 들어감 (옛 build/ 찌꺼기?): {extra}"
    meta = next(zf.read(n).decode() for n in names if n.endswith(".dist-info/METADATA"))
    assert "License-Expression: MIT" in meta
    requires = {line.split(":", 1)[1].strip().split(";")[0] for line in meta.splitlines() if line.startswith("Requires-Dist:")}
    names_only = {r.replace(">", "=").replace("<", "=").split("=")[0].strip().lower().replace("_", "-") for r in requires}
    assert names_only == {r.replace("_", "-") for r in REQUIRES[package]}, requires
    versions = {Path(w).name.split("-")[1] for w in wheels.values()}
    assert versions == {"0.2.0"}, f"배포판의 판 번호가 하나여야 합니다: {versions}"


def test_no_graded_reference_is_in_what_a_student_installs(wheels):
    """학생이 설치하는 두 wheel(attn_lib, attn_course)에는 채점 쪽 모듈이 없습니다."""
    student = {n for p in ("attn_lib", "attn_course") for n in zipfile.ZipFile(wheels[p]).namelist()}
    judge = {Path(rel).name for rel in package_files("attn_grader")} - {"__init__.py", "__main__.py", "references.py",
                                                                         "pyproject.toml"}
    assert not [n for n in student if Path(n).name in judge], "학생 설치에 채점 쪽 모듈과 같은 이름의 파일"
    text = "\n".join(zipfile.ZipFile(wheels[p]).read(n).decode("utf-8", "replace")
                     for p in ("attn_lib", "attn_course") for n in zipfile.ZipFile(wheels[p]).namelist() if n.endswith(".py"))
    for marker in ("def _torch_mha_variant", "def reference_saturation", "def _rope_pairs", "def check_torch_mha_forward"):
        assert marker not in text, f"학생 설치에 채점 과제의 참조가 있습니다: {marker}"


def test_every_module_imports_from_the_installed_wheels(wheels, tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target),
                    *map(str, wheels.values())], check=True)
    names = [n for p in DISTRIBUTIONS for n in module_names(p)]
    code = (
        "import importlib, sys\n"
        f"sys.path.insert(0, {str(target)!r})\n"
        f"names = {names!r}\n"
        "for name in names:\n"
        "    module = importlib.import_module(name)\n"
        f"    assert module.__file__.startswith({str(target)!r}), (name, module.__file__)\n"
        "import attn_lib, attn_course\n"
        "missing = [n for m in (attn_lib, attn_course) for n in m.__all__ if not hasattr(m, n)]\n"
        "assert not missing, missing\n"
        "print(len(names))\n"
    )
    env = {**os.environ, "MPLBACKEND": "Agg"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout.strip().splitlines()[-1]) == len(names)


def _dry_run(venv: Path, *requirements: str) -> set[str]:
    report = venv.parent / "report.json"
    subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "--dry-run", "--quiet", "--report", str(report),
                    *requirements], check=True, capture_output=True, text=True)
    return {item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]}


def test_installing_attn_lib_brings_torch_and_nothing_else(wheels, tmp_path):
    """새 venv 에서: attn_lib 을 설치하면 설치되는 것 = torch 를 설치할 때 설치되는 것 + attn_lib (그림 라이브러리 없음).

    torch 를 실제로 풀지 않도록 pip 의 ``--dry-run --report`` 로 둘을 비교합니다 (torch 는 기계의 CPU 휠 색인에서)."""
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    torch_only = _dry_run(venv, f"torch=={__import__('torch').__version__.split('+')[0]}")
    with_lib = _dry_run(venv, str(wheels["attn_lib"]), f"torch=={__import__('torch').__version__.split('+')[0]}")
    assert "torch" in torch_only
    assert with_lib - torch_only == {"attn_lib"}, sorted(with_lib - torch_only)
    course = _dry_run(venv, str(wheels["attn_lib"]), str(wheels["attn_course"]))
    assert {"matplotlib", "seaborn", "ipywidgets"} <= course, "검사가 의존성을 보는지 (attn_course 는 그림 라이브러리를 끌어옴)"


SNAPSHOT = """
import json, sys
import matplotlib
from IPython.core.interactiveshell import InteractiveShell
from matplotlib.figure import Figure
shell = InteractiveShell.instance()
def state():
    png = shell.display_formatter.formatters["image/png"]
    return {"rc": {k: repr(v) for k, v in matplotlib.rcParams.items()},
            "png": repr(png.type_printers.get(Figure)), "deferred": sorted(map(repr, png.deferred_printers))}
before = state()
import attn_lib
after_lib = state()
import attn_course, attn_course.practice
after_course = state()
attn_course.setup()
after_setup = state()
print(json.dumps([before == after_lib, before == after_course, before == after_setup,
                  sorted(k for k in before["rc"] if before["rc"][k] != after_setup["rc"].get(k))[:5]]))
"""


def test_importing_the_packages_changes_no_global_setting_until_setup():
    """``import attn_lib``(그리고 ``import attn_course``)는 matplotlib 설정과 IPython 표시 함수를 그대로 둡니다.
    ``attn_course.setup()``은 둘을 바꿉니다 (검사가 실제로 바뀐 것을 알아보는지)."""
    out = subprocess.run([sys.executable, "-c", SNAPSHOT], capture_output=True, text=True, cwd="/",
                         env={**os.environ, "MPLBACKEND": "Agg"})
    assert out.returncode == 0, out.stderr[-2000:]
    lib_same, course_same, setup_same, changed = json.loads(out.stdout.strip().splitlines()[-1])
    assert lib_same, "import attn_lib 이 전역 설정을 바꿨습니다"
    assert course_same, "import attn_course 가 전역 설정을 바꿨습니다 (setup() 에서만)"
    assert not setup_same and "font.family" in changed, changed


def test_licences_are_stated_in_the_repository_and_the_readme():
    assert "MIT License" in (ROOT / "LICENSE").read_text(encoding="utf-8")
    content = (ROOT / "LICENSE-CONTENT.md").read_text(encoding="utf-8")
    assert "CC BY-SA 4.0" in content and "creativecommons.org/licenses/by-sa/4.0" in content
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "MIT" in readme and "CC BY-SA 4.0" in readme


@pytest.mark.site
def test_every_page_footer_states_both_licences(html_dir):
    from conftest import read_toc_docnames

    for doc in read_toc_docnames():
        html = (html_dir / f"{doc}.html").read_text(encoding="utf-8")
        footer = html[html.find('class="license-footer"'):]
        assert "MIT 라이선스" in footer[:600] and "CC BY-SA 4.0" in footer[:600], doc
