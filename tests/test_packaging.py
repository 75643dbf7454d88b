"""패키지로서의 attn_lib: 진짜 wheel 에 하위 폴더가 모두 들어가는지, make 가 라이브러리 파일을 모두
지켜보는지, 라이선스가 저장소·패키지·사이트에 적혀 있는지.

Colab 은 attn_lib 을 git 에서 wheel 로 설치하고, CI 와 Binder 는 ``pip install -e .`` 를 씁니다.
editable 설치로는 wheel 에서 빠진 하위 폴더를 알아챌 수 없으므로, 여기서 wheel 을 직접 만들어 봅니다.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "attn_lib"


def library_files() -> set[str]:
    return {p.relative_to(ROOT).as_posix() for p in LIB.rglob("*") if p.is_file() and "__pycache__" not in p.parts}


def module_names() -> list[str]:
    names = []
    for p in sorted(LIB.rglob("*.py")):
        if "__pycache__" in p.parts:
            continue
        parts = list(p.relative_to(ROOT).with_suffix("").parts)
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    # 저장소 안에서 빌드하면 setuptools 가 build/ 를 남기고, 거기 남은 옛 모듈이 다음 wheel 에 섞입니다.
    # git 이 아는 파일만 임시 폴더에 복사해 거기서 빌드합니다 (build in a clean copy, never in the repo).
    src = tmp_path_factory.mktemp("src")
    tracked = subprocess.run(["git", "ls-files", "attn_lib", "pyproject.toml", "README.md", "LICENSE",
                              "LICENSE-CONTENT.md"], cwd=ROOT, check=True, capture_output=True, text=True)
    for rel in tracked.stdout.split():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / rel, src / rel)
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(src)],
        check=True, cwd=out,
    )
    (whl,) = out.glob("attn_lib-*.whl")
    return whl


def test_wheel_contains_every_library_file(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {f for f in library_files() if f.endswith((".py", ".json", ".js", ".css", ".md"))}
    missing = sorted(expected - names)
    assert not missing, f"wheel 에 빠진 파일: {missing}"
    extra = sorted(n for n in names if n.startswith("attn_lib/") and n not in expected)
    assert not extra, f"wheel 에 저장소에 없는 파일이 들어감 (옛 build/ 찌꺼기?): {extra}"
    assert {"attn_lib/viz/__init__.py", "attn_lib/explorer/__init__.py", "attn_lib/experiments/__init__.py",
            "attn_lib/exercises/__init__.py"} <= names
    licenses = {n.rsplit("/", 1)[-1] for n in names if "/licenses/" in n}
    assert {"LICENSE", "LICENSE-CONTENT.md"} <= licenses


def test_every_module_imports_from_the_installed_wheel(wheel, tmp_path):
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                   check=True)
    code = (
        "import importlib, sys\n"
        f"sys.path.insert(0, {str(target)!r})\n"
        f"names = {module_names()!r}\n"
        "for name in names:\n"
        "    module = importlib.import_module(name)\n"
        f"    assert module.__file__.startswith({str(target)!r}), (name, module.__file__)\n"
        "import attn_lib\n"
        "missing = [n for n in attn_lib.__all__ if not hasattr(attn_lib, n)]\n"
        "assert not missing, missing\n"
        "print(len(names))\n"
    )
    env = {**os.environ, "MPLBACKEND": "Agg"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env)
    assert out.returncode == 0, out.stderr[-2000:]
    assert int(out.stdout.strip().splitlines()[-1]) == len(module_names())


def test_make_watches_every_library_file():
    out = subprocess.run(["make", "-s", "print-watched"], capture_output=True, text=True, cwd=ROOT, check=True)
    lines = out.stdout.splitlines()
    watched = {line for line in lines if not line.startswith("exercises: ")}
    exercises = {line.removeprefix("exercises: ") for line in lines if line.startswith("exercises: ")}
    assert library_files() <= watched, f"make 가 지켜보지 않는 라이브러리 파일: {sorted(library_files() - watched)}"
    expected = {f for f in library_files() if f.startswith("attn_lib/exercises/")}
    assert expected and expected <= exercises, f"과제 빌드가 지켜보지 않는 채점기 파일: {sorted(expected - exercises)}"


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
