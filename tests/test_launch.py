"""실행 단추(Binder, Colab, Live Code), Binder 환경, Colab 설치 셀을 검사합니다.

Checks the launch buttons and what stands behind them:

- ``_config.yml``: JupyterLab 으로 여는 Binder, Colab, thebe; 저장소 주소는 ``repository.url`` 한 곳
  (사본은 ``scripts/set_repository_url.py`` 가 맞추고, 여기서 어긋남을 찾습니다).
- 준비 셀(Colab, Binder): 모든 장의 첫 코드 셀이 같고, attn_lib 가 있고 책의 attn_lib 와 같으면 아무것도
  설치하지 않으며, 없으면 ``git+<repository.url>`` 로, 책의 것과 다르면 책의 폴더에서 다시 설치하려 합니다.
  pip 은 가로채기만 하고 실제로 설치하지 않습니다.
- Binder 주소: 환경 브랜치 + nbgitpuller (``attn_site/launch_links.py``), 모든 장과 과제 노트북. 환경 브랜치는
  ``scripts/binder_env.py`` (``make binder``)가 만들고, 장만 바뀐 커밋에서는 그대로입니다.
- ``binder/``: 파일이 읽히고, 고정 버전이 ``requirements.txt`` 와 같고, torch 는 CPU 빌드, 빌드·테스트
  도구는 빠지며, postBuild 가 attn_lib 를 설치합니다. Binder 를 실제로 띄우는 검사는 여기서 할 수 없습니다.
- 빌드된 사이트: 장 페이지마다 세 단추, 페이지마다 하나뿐인 ``THEBE_JS_URL`` 이 사이트의 사본을 가리킴.
- 브라우저: Live Code 가 thebe 를 127.0.0.1 에서 싣고, 외부로는 Binder 에만 요청하며, Binder 대신
  세운 로컬 Jupyter 서버에서 셀을 실제로 실행합니다.
"""

from __future__ import annotations

import html as html_module
import importlib.util
import json
import os
import re
import secrets
import shutil
import socket
import stat
import subprocess
import sys
import time
import tomllib
import urllib.request
from pathlib import Path
from typing import Any, Callable, Iterator
from urllib.parse import parse_qs, urljoin, urlparse

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from attn_site import launch_links
from conftest import OfflinePage, read_toc_docnames
from test_locks import closure, read_lock

ROOT = Path(__file__).resolve().parents[1]


def load_script(name: str) -> Any:
    """``scripts/<name>.py`` 를 모듈로 불러 그 함수를 그대로 씁니다 (scripts/ 는 패키지가 아님)."""
    spec = importlib.util.spec_from_file_location(name, ROOT / "scripts" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


set_repository_url = load_script("set_repository_url")
binder_env = load_script("binder_env")

CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
REPO_URL = CONFIG["repository"]["url"]
BRANCH = CONFIG["repository"].get("branch", "main")
ENV_BRANCH = CONFIG["sphinx"]["config"]["binder_env_branch"]
SETTINGS = launch_links.settings_from_config(CONFIG)
#: 과제 노트북 (강사가 올린 저장소에 있는 학생판; 주소는 scripts/binder_env.py links 로 찍음)
ASSIGNMENTS = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "assignments").glob("*.ipynb"))
ORG, REPO = urlparse(REPO_URL).path.strip("/").split("/")[:2]
LAUNCH = CONFIG["launch_buttons"]
TOC_DOCNAMES = read_toc_docnames()
CHAPTERS = [d for d in TOC_DOCNAMES if (ROOT / f"{d}.ipynb").is_file()]
MARKDOWN_PAGES = [d for d in TOC_DOCNAMES if (ROOT / f"{d}.md").is_file()]
BINDER = ROOT / "binder"
TORCH_CPU_INDEX = "https://download.pytorch.org/whl/cpu"
# 책을 빌드·테스트·채점할 때만 쓰는 패키지: Binder 이미지에 들어가면 안 됩니다
BUILD_TEST_ONLY = re.compile(
    r"^(jupyter-book|sphinx.*|myst-.*|pydata-sphinx-theme|playwright|pytest.*|nbval|hypothesis|coverage|"
    r"nbgrader|jupytext|jupyter-cache|altair|check-jsonschema|pip-tools)$"
)


def cell_source(cell: dict) -> str:
    return cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])


def colab_cell(docname: str) -> dict:
    notebook = json.loads((ROOT / f"{docname}.ipynb").read_text(encoding="utf-8"))
    return [c for c in notebook["cells"] if c["cell_type"] == "code"][0]


# ---------------------------------------------------------------------------------------
# _config.yml 과 저장소 주소 (configuration, one repository URL)
# ---------------------------------------------------------------------------------------


def test_launch_buttons_are_configured() -> None:
    assert LAUNCH["notebook_interface"] == "jupyterlab", "Binder 는 JupyterLab 으로 열어야 합니다"
    assert LAUNCH["binderhub_url"] == "https://mybinder.org"
    assert LAUNCH["colab_url"] == "https://colab.research.google.com"
    assert LAUNCH["thebe"] is True
    assert re.fullmatch(r"https://github\.com/[\w.-]+/[\w.-]+", REPO_URL), f"GitHub 저장소 주소가 아닙니다: {REPO_URL}"
    assert "attn_site.thebe_local" in CONFIG["sphinx"]["extra_extensions"], \
        "attn_site/thebe_local.py 가 sphinx.extra_extensions 에 없습니다"


def test_repository_url_copies_agree_with_config() -> None:
    assert CHAPTERS, "목차에 노트북 장이 없습니다"
    assert set(set_repository_url.chapter_notebooks(ROOT)) == {ROOT / f"{d}.ipynb" for d in CHAPTERS}
    bad = set_repository_url.mismatches(ROOT)
    assert not bad, ("_config.yml 의 repository.url 과 다른 사본 (copies that disagree); "
                     "`python scripts/set_repository_url.py` 로 맞추세요:\n" + "\n".join(bad))
    # 사본이 아닌 곳에 주소가 적혀 있으면 스크립트가 맞춰 주지 못합니다 (no stray copies elsewhere)
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    allowed = {"_config.yml", *(f"{d}.ipynb" for d in CHAPTERS),
               *(p.relative_to(ROOT).as_posix() for p in (ROOT / "assignments").glob("*.ipynb"))}
    stray = [
        name for name in tracked
        if name not in allowed and (ROOT / name).is_file() and f"{ORG}/{REPO}" in (ROOT / name).read_text(errors="ignore")
    ]
    assert not stray, f"저장소 주소가 scripts/set_repository_url.py 가 모르는 파일에 있습니다: {stray}"


def test_set_repository_url_rewrites_every_copy(tmp_path: Path) -> None:
    for name in ("_config.yml", "_toc.yml"):
        shutil.copy(ROOT / name, tmp_path / name)
    shutil.copytree(ROOT / "chapters", tmp_path / "chapters")
    shutil.copytree(ROOT / "assignments", tmp_path / "assignments")
    script = [sys.executable, str(ROOT / "scripts" / "set_repository_url.py"), "--root", str(tmp_path)]
    new_url = "https://github.com/kor-course/mha-demo"
    subprocess.run([*script, new_url + ".git"], check=True, capture_output=True)
    assert set_repository_url.config_url(tmp_path) == new_url
    assert all(set_repository_url.notebook_url(p) == new_url for p in set_repository_url.url_notebooks(tmp_path))
    assert any(p.parent.name == "assignments" for p in set_repository_url.url_notebooks(tmp_path))
    assert subprocess.run([*script, "--check"], capture_output=True).returncode == 0
    # 형식 보존: 주소 말고는 바뀐 것이 없어야 합니다 (only the URL changes, formatting kept)
    for docname in CHAPTERS:
        before = (ROOT / f"{docname}.ipynb").read_text(encoding="utf-8")
        after = (tmp_path / f"{docname}.ipynb").read_text(encoding="utf-8")
        assert after == before.replace(REPO_URL, new_url), f"{docname}: 주소 말고 다른 것도 바뀌었습니다"
    # 사본 하나를 손으로 바꾸면 --check 가 잡습니다 (a hand-edited copy is caught)
    page = tmp_path / f"{CHAPTERS[-1]}.ipynb"
    page.write_text(page.read_text(encoding="utf-8").replace(new_url, new_url + "-fork"), encoding="utf-8")
    check = subprocess.run([*script, "--check"], capture_output=True, text=True)
    assert check.returncode == 1 and CHAPTERS[-1] in check.stderr
    bad = subprocess.run([*script, "https://gitlab.com/a/b"], capture_output=True, text=True)
    assert bad.returncode != 0 and "GitHub" in bad.stderr


# ---------------------------------------------------------------------------------------
# Colab 설치 셀 (the first cell of every chapter)
# ---------------------------------------------------------------------------------------

# 셀을 실행하되 subprocess/os.system 을 가로채 기록만 합니다 (never installs anything).
HARNESS = r"""
import importlib.util, json, os, subprocess, sys
calls = []
def recorder(api):
    def fake(*args, **kwargs):
        calls.append({"api": api, "args": [list(map(str, a)) if isinstance(a, (list, tuple)) else str(a)
                                           for a in args], "kwargs": sorted(kwargs)})
        return subprocess.CompletedProcess(args[0] if args else [], 0)
    return fake
for name in ("run", "call", "check_call", "check_output", "Popen", "getoutput", "getstatusoutput"):
    setattr(subprocess, name, recorder("subprocess." + name))
os.system = recorder("os.system")
found = importlib.util.find_spec("attn_lib") is not None
exec(compile(sys.stdin.read(), "<colab-cell>", "exec"), {"__name__": "__main__"})
print(json.dumps({"attn_lib_found": found, "calls": calls, "python": sys.executable}))
"""


def run_colab_cell(docname: str, tmp_path: Path, *, attn_lib_importable: bool, cwd: Path | None = None) -> dict:
    """장의 첫 코드 셀을 새 프로세스에서 실행합니다. ``-I``: PYTHONPATH, 현재 폴더, 사용자 site 무시.

    attn_lib 를 없게 하려면 ``-S`` (site-packages 를 아예 보지 않음) 를 더합니다: 셀은 표준
    라이브러리만 쓰므로 그대로 돕니다. (-S hides every installed package, attn_lib included.)
    """
    flags = ["-I"] if attn_lib_importable else ["-I", "-S"]
    out = subprocess.run([sys.executable, *flags, "-c", HARNESS], input=cell_source(colab_cell(docname)),
                         capture_output=True, text=True, cwd=cwd or tmp_path, timeout=120)
    assert out.returncode == 0, f"{docname}: Colab 설치 셀이 오류로 끝났습니다:\n{out.stderr}"
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_every_chapter_starts_with_the_same_hidden_colab_cell() -> None:
    sources = {}
    for docname in CHAPTERS:
        path = ROOT / f"{docname}.ipynb"
        text = path.read_text(encoding="utf-8")
        notebook = json.loads(text)
        assert text == json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", f"{docname}: 저장 형식이 바뀌었습니다"
        cell = colab_cell(docname)
        tags = cell["metadata"].get("tags", [])
        assert "remove-cell" in tags or "hide-input" in tags, f"{docname}: 첫 코드 셀이 웹사이트에서 숨겨지지 않습니다"
        assert not cell["outputs"] and cell["execution_count"] is None, f"{docname}: 출력 없이 저장해야 합니다"
        sources[docname] = cell_source(cell)
    assert len(set(sources.values())) == 1, "장마다 Colab 설치 셀이 다릅니다: 모두 같아야 합니다"
    source = next(iter(sources.values()))
    assert f'REPO_URL = "{REPO_URL}"' in source
    assert len(source.splitlines()) <= 22, "준비 셀은 짧게 유지합니다"
    comments = [line for line in source.splitlines() if line.lstrip().startswith("#")]
    assert comments and all(re.search(r"[가-힣]", c) or "(" in c for c in comments), "주석은 한국어로 씁니다"


@pytest.mark.parametrize("docname", CHAPTERS)
def test_colab_cell_does_nothing_when_attn_lib_is_importable(docname: str, tmp_path: Path) -> None:
    result = run_colab_cell(docname, tmp_path, attn_lib_importable=True)
    assert result["attn_lib_found"], "이 검사는 attn_lib 가 설치된 환경에서 돌아야 합니다 (pip install -e .)"
    assert result["calls"] == [], f"{docname}: attn_lib 가 있는데도 무언가를 실행하려 했습니다: {result['calls']}"


@pytest.mark.parametrize("docname", CHAPTERS)
def test_colab_cell_installs_attn_lib_from_the_repository_when_missing(docname: str, tmp_path: Path) -> None:
    result = run_colab_cell(docname, tmp_path, attn_lib_importable=False)
    assert not result["attn_lib_found"], "attn_lib 를 숨기지 못했습니다 (python -I -S 에서도 보임)"
    assert len(result["calls"]) == 1, f"{docname}: pip 설치를 한 번 불러야 합니다: {result['calls']}"
    call = result["calls"][0]
    argv = call["args"][0]
    assert call["api"] == "subprocess.run" and "check" in call["kwargs"], call
    assert argv[:4] == [result["python"], "-m", "pip", "install"], f"같은 파이썬의 pip 이어야 합니다: {argv}"
    targets = [a for a in argv[4:] if not a.startswith("-")]
    assert targets == [f"attn_lib @ git+{REPO_URL}#subdirectory=attn_lib",
                       f"attn_course @ git+{REPO_URL}#subdirectory=attn_course"], (
        f"{docname}: _config.yml 의 repository.url ({REPO_URL})의 하위 폴더에서 attn_lib 과 attn_course 만 설치해야 "
        f"합니다 (채점기는 설치하지 않음): {argv}")


def test_setup_cell_leaves_the_book_s_own_attn_lib_alone(tmp_path: Path) -> None:
    """로컬과 책 빌드: 설치된(editable) attn_lib 가 곧 ``../attn_lib`` 이므로 아무것도 하지 않습니다."""
    result = run_colab_cell(CHAPTERS[0], tmp_path, attn_lib_importable=True, cwd=ROOT / "chapters")
    assert result["attn_lib_found"] and result["calls"] == [], result["calls"]


def _content_copy(tmp_path: Path, change: bool) -> Path:
    """nbgitpuller 가 받은 내용처럼: ``<tmp>/repo/chapters`` (작업 폴더) 와 ``<tmp>/repo/attn_lib`` (책의 판)."""
    content = tmp_path / "repo"
    shutil.copytree(ROOT / "attn_lib", content / "attn_lib", ignore=shutil.ignore_patterns("__pycache__"))
    (content / "chapters").mkdir()
    if change:
        init = content / "attn_lib" / "metrics.py"
        init.write_text(init.read_text(encoding="utf-8") + "\n# 책에서 바뀐 줄\n", encoding="utf-8")
    return content


def test_setup_cell_accepts_an_environment_with_the_book_s_attn_lib(tmp_path: Path) -> None:
    """Binder: 환경의 attn_lib(여기서는 이 저장소의 것)와 받은 책의 ``attn_lib/`` 가 같으면 설치하지 않습니다."""
    content = _content_copy(tmp_path, change=False)
    result = run_colab_cell(CHAPTERS[0], tmp_path, attn_lib_importable=True, cwd=content / "chapters")
    assert result["calls"] == [], f"같은 판인데 다시 설치하려 했습니다: {result['calls']}"


def test_setup_cell_reinstalls_when_the_environment_s_attn_lib_is_stale(tmp_path: Path) -> None:
    """Binder: 환경 브랜치가 낡아(강사가 make binder 를 잊음) 책의 ``attn_lib/`` 와 다르면 책의 폴더에서
    의존성 없이 다시 설치하고, 그 까닭을 한국어로 알립니다."""
    content = _content_copy(tmp_path, change=True)
    out = subprocess.run([sys.executable, "-I", "-c", HARNESS], input=cell_source(colab_cell(CHAPTERS[0])),
                         capture_output=True, text=True, cwd=content / "chapters", timeout=120)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(result["calls"]) == 1, result["calls"]
    argv = result["calls"][0]["args"][0]
    assert argv[:4] == [result["python"], "-m", "pip", "install"] and "--no-deps" in argv, argv
    targets = [a for a in argv[4:] if not a.startswith("-")]
    assert len(targets) == 1 and (content / "chapters" / targets[0]).resolve() == (content / "attn_lib").resolve(), argv
    assert "책의 attn_lib 와 달라" in out.stdout and "make binder" in out.stdout


def test_attn_course_brings_the_korean_font_package_and_attn_lib_only_torch() -> None:
    """Colab 셀은 attn_lib 과 attn_course 만 설치합니다: 한국어 글꼴(koreanize-matplotlib)은 attn_course 의 의존성으로
    따라오고, attn_lib 은 torch 말고 아무것도 끌어오지 않습니다."""
    deps = tomllib.loads((ROOT / "attn_course" / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert "koreanize-matplotlib" in {canonicalize_name(Requirement(d).name) for d in deps}
    core = tomllib.loads((ROOT / "attn_lib" / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    assert {canonicalize_name(Requirement(d).name) for d in core} == {"torch"}


# ---------------------------------------------------------------------------------------
# binder/ (구조만 확인합니다: Binder 를 실제로 띄우지는 못합니다 / structure only)
# ---------------------------------------------------------------------------------------


def test_binder_installs_cpu_torch_and_the_top_level_pins() -> None:
    """binder/requirements.txt 는 최상위와 같은 판(잠금은 tests/test_locks.py), torch 는 postBuild 가 CPU 색인에서."""
    text = (BINDER / "requirements.txt").read_text(encoding="utf-8")
    assert not [line for line in text.splitlines() if line.startswith(("-r", "--"))], (
        "옵션 줄(-r ../requirements.txt, 색인)이 없어야 합니다: 빌드 도구까지 설치되거나 색인이 섞입니다")
    reqs = read_lock(BINDER / "requirements.txt")
    assert "torch" not in reqs and not any(name.startswith("nvidia-") for name in reqs), "CUDA torch 가 들어갑니다"
    post_build = (BINDER / "postBuild").read_text(encoding="utf-8")
    assert "--index-url https://download.pytorch.org/whl/cpu" in post_build and '+cpu"' in post_build


def test_binder_leaves_out_build_and_test_tools() -> None:
    reqs = read_lock(BINDER / "requirements.txt")
    # otter-grader(과제 채점)가 꼭 요구하는 것(Sphinx, playwright, jupytext 등)은 pip 이 어차피 설치하므로 허용합니다.
    grading = closure(["otter-grader"])
    tools = sorted(name for name in reqs if BUILD_TEST_ONLY.match(name) and name not in grading)
    assert not tools, f"책 빌드·테스트 도구는 Binder 에 넣지 않습니다: {tools}"
    assert not {"jupyter-book", "myst-nb", "pytest", "nbgrader", "pip-tools", "check-jsonschema"} & set(reqs)


def test_binder_requirements_cover_attn_lib_and_the_launch_tools() -> None:
    """postBuild 는 attn_lib, attn_course 를 --no-deps 로 설치하므로 그 의존성이 모두 Binder 잠금에 있어야 합니다."""
    reqs = read_lock(BINDER / "requirements.txt")
    deps = [d for pkg in ("attn_lib", "attn_course") for d in
            tomllib.loads((ROOT / pkg / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
            if not d.startswith("attn_lib")]
    for dep in map(Requirement, deps):
        key = canonicalize_name(dep.name)
        if key == "torch":
            continue  # postBuild 가 CPU 색인에서
        assert key in reqs, f"attn_lib 의 의존성 {dep.name} 이(가) Binder 에 없습니다 (postBuild 는 --no-deps)"
        assert dep.specifier.contains(reqs[key], prereleases=True), f"{dep} 를 만족하지 않습니다"
    for needed in ("pandas", "jupyterlab", "ipykernel", "nbgitpuller"):
        assert needed in reqs, f"Binder 에 {needed} 가 없습니다"


def test_student_assignment_runs_without_otter() -> None:
    """학생판의 자기 점검은 attn_course.practice 로 하므로 Binder 에 otter-grader 가 없어도 됩니다."""
    master = json.loads((ROOT / "assignments" / "attention_hw.ipynb").read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in master["cells"] if c["cell_type"] == "code")
    assert "korean_grader(" in code, "과제의 자기 점검이 korean_grader 를 쓰지 않습니다"
    assert not re.search(r"^\s*(import otter|from otter)", code, re.M), "과제가 otter 를 import 합니다: Binder 잠금에 otter-grader 가 필요해집니다"


def test_binder_runtime_and_apt_files() -> None:
    runtime = (BINDER / "runtime.txt").read_text(encoding="utf-8").strip()
    assert runtime == f"python-{sys.version_info.major}.{sys.version_info.minor}", (
        f"binder/runtime.txt ({runtime}) 가 이 venv 의 Python 과 다릅니다")
    apt = [line.strip() for line in (BINDER / "apt.txt").read_text(encoding="utf-8").splitlines()
           if line.strip() and not line.startswith("#")]
    assert "fonts-nanum" in apt, "Binder 에 한국어 글꼴(fonts-nanum)이 없습니다"


@pytest.mark.parametrize("on_env_branch", [True, False], ids=["env-branch", "content-branch"])
def test_binder_postbuild_installs_attn_lib_and_rebuilds_the_font_cache(tmp_path: Path, on_env_branch: bool) -> None:
    """환경 브랜치(binder/attn_lib.txt 가 있음)에서는 고정한 판을, 아니면 저장소의 attn_lib 를 설치합니다."""
    post_build = BINDER / "postBuild"
    cwd = ROOT
    if on_env_branch:
        cwd = tmp_path / "env"
        (cwd / "binder").mkdir(parents=True)
        (cwd / "binder" / "attn_lib.txt").write_text(f"attn_lib @ git+{REPO_URL}@{'0' * 40}\n", encoding="utf-8")
    assert post_build.read_text(encoding="utf-8").startswith("#!/usr/bin/env bash\n")
    assert os.stat(post_build).st_mode & stat.S_IXUSR, "postBuild 에 실행 권한이 없습니다"
    mode = subprocess.run(["git", "ls-files", "-s", "binder/postBuild"], cwd=ROOT, capture_output=True, text=True)
    assert mode.stdout.startswith("100755"), f"git 에 실행 권한(100755)으로 기록해야 합니다: {mode.stdout!r}"
    assert subprocess.run(["bash", "-n", str(post_build)]).returncode == 0, "postBuild 문법 오류"

    # pip 은 기록만 하는 가짜로 바꾸고(설치하지 않음), matplotlib 캐시는 임시 폴더에서 실행합니다.
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    log = tmp_path / "pip.log"
    (fake_bin / "pip").write_text(f'#!/bin/sh\necho "$PWD|$*" >> "{log}"\n', encoding="utf-8")
    (fake_bin / "pip").chmod(0o755)
    cache = tmp_path / "mpl"
    cache.mkdir()
    (cache / "stale-marker").write_text("낡은 캐시", encoding="utf-8")
    path = os.pathsep.join([str(fake_bin), str(Path(sys.executable).parent), os.environ["PATH"]])
    env = {**os.environ, "PATH": path, "MPLCONFIGDIR": str(cache)}
    run = subprocess.run(["bash", str(post_build)], cwd=cwd, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, f"postBuild 실패:\n{run.stdout}\n{run.stderr}"
    calls = [line.split("|") for line in log.read_text(encoding="utf-8").strip().splitlines()]
    installs = [args.split() for where, args in calls if Path(where) == cwd and args.split()[0] == "install"]
    attn = [a for a in installs if "torch" not in " ".join(a)]
    assert len(attn) == 1 and "--no-deps" in attn[0], f"attn_lib 를 의존성 없이 한 번 설치해야 합니다: {calls}"
    if on_env_branch:
        assert attn[0][-2:] == ["-r", "binder/attn_lib.txt"], f"고정한 attn_lib 판을 설치하지 않습니다: {attn}"
    else:
        assert attn[0][-4:] == ["-e", "./attn_lib", "-e", "./attn_course"], f"두 패키지 폴더를 설치하지 않습니다: {attn}"
    assert not (cache / "stale-marker").exists(), "matplotlib 글꼴 캐시를 지우지 않았습니다"
    fontlists = list(cache.glob("fontlist-*.json"))
    assert fontlists, "postBuild 가 글꼴 캐시를 다시 만들지 않았습니다"
    if shutil.which("fc-list") and "nanum" in subprocess.run(["fc-list"], capture_output=True, text=True).stdout.lower():
        assert "Nanum" in fontlists[0].read_text(encoding="utf-8"), "새 글꼴 캐시에 fonts-nanum 이 없습니다"


def test_readme_says_what_was_and_was_not_verified() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for phrase in ("검증한 것", "검증하지 못한 것", "What was verified", "What was not verified",
                   "Binder", "Colab", "Live Code", "GB"):
        assert phrase in readme, f"README 에 {phrase!r} 가 없습니다"


# ---------------------------------------------------------------------------------------
# Binder 주소: 환경 브랜치 + nbgitpuller (launch URLs) 와 환경 브랜치 (make binder)
# ---------------------------------------------------------------------------------------


def parse_binder_url(url: str) -> tuple[tuple[str, str, str], dict[str, str]]:
    """Binder 주소를 Binder 와 nbgitpuller 가 읽는 대로 풉니다: (조직, 저장소, 환경 ref), ``git-pull`` 의 인자."""
    outer = urlparse(url)
    parts = outer.path.split("/")
    assert parts[:3] == ["", "v2", "gh"] and len(parts) == 6, f"Binder 의 /v2/gh/<조직>/<저장소>/<ref> 꼴이 아닙니다: {url}"
    query = parse_qs(outer.query, strict_parsing=True)
    assert list(query) == ["urlpath"] and len(query["urlpath"]) == 1, f"Binder 인자는 urlpath 하나여야 합니다: {query}"
    inner = urlparse(query["urlpath"][0])
    assert inner.path == "git-pull", f"Binder 가 nbgitpuller(git-pull)로 열지 않습니다: {inner}"
    pulled = parse_qs(inner.query, strict_parsing=True)
    assert all(len(v) == 1 for v in pulled.values()), pulled
    return (parts[3], parts[4], parts[5]), {k: v[0] for k, v in pulled.items()}


@pytest.mark.parametrize("path", [f"{d}.ipynb" for d in CHAPTERS] + ASSIGNMENTS)
def test_binder_links_build_the_environment_branch_and_pull_the_notebook(path: str) -> None:
    """모든 장과 과제: Binder 는 환경 브랜치로 이미지를 만들고, nbgitpuller 가 내용 브랜치에서 그 노트북을 받아 엽니다."""
    links = launch_links.links(SETTINGS, path)
    assert links["binder"].startswith(f"{LAUNCH['binderhub_url']}/v2/gh/"), links["binder"]
    image, pulled = parse_binder_url(links["binder"])
    assert image == (ORG, REPO, ENV_BRANCH) and ENV_BRANCH != BRANCH, (
        f"Binder 이미지는 내용 브랜치가 아닌 환경 브랜치로 만들어야 합니다: {image}")
    assert pulled == {"repo": REPO_URL, "branch": BRANCH, "urlpath": f"lab/tree/{REPO}/{path}"}, (
        "nbgitpuller 는 내용 브랜치를 홈의 <저장소 이름>/ 에 받아 그 노트북을 JupyterLab 으로 열어야 합니다: "
        f"{pulled}")
    assert (ROOT / path).is_file()
    assert links["colab"] == f"{LAUNCH['colab_url']}/github/{ORG}/{REPO}/blob/{BRANCH}/{path}"


def test_binder_env_links_command_prints_the_same_urls() -> None:
    """강사가 과제 주소를 얻는 명령: ``python scripts/binder_env.py links <노트북>`` (책의 단추와 같은 함수)."""
    paths = [f"{CHAPTERS[1]}.ipynb", *ASSIGNMENTS]
    out = subprocess.run([sys.executable, str(ROOT / "scripts" / "binder_env.py"), "links", *paths],
                         capture_output=True, text=True, check=True).stdout
    for path in paths:
        for url in launch_links.links(SETTINGS, path).values():
            assert url in out, f"{path}: {url} 가 출력에 없습니다"


def _git(repo: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    return subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True, check=True).stdout.strip()


@pytest.fixture
def course_repo(tmp_path: Path) -> Path:
    """이 저장소의 binder/, _config.yml, 장 하나, attn_lib 조금을 담은 작은 git 저장소."""
    repo = tmp_path / "course"
    (repo / "attn_lib").mkdir(parents=True)
    (repo / "chapters").mkdir()
    shutil.copytree(BINDER, repo / "binder")
    for name in ("_config.yml", "pyproject.toml"):
        shutil.copy(ROOT / name, repo / name)
    (repo / "attn_lib" / "__init__.py").write_text("# attn_lib\n", encoding="utf-8")
    shutil.copy(ROOT / f"{CHAPTERS[0]}.ipynb", repo / "chapters")
    _git(repo, "init", "-q", "-b", BRANCH)
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "처음")
    return repo


def env_branch_files(repo: Path) -> dict[str, str]:
    names = _git(repo, "ls-tree", "-r", "--name-only", ENV_BRANCH).splitlines()
    return {name: _git(repo, "show", f"{ENV_BRANCH}:{name}") for name in names}


def test_make_binder_keeps_the_environment_branch_in_sync(course_repo: Path) -> None:
    """환경 브랜치: binder/ 와 attn_lib 을 마지막으로 바꾼 커밋의 고정. 장만 바뀌면 그대로(Binder 이미지 재사용),
    attn_lib 이 바뀌면 새 커밋, 커밋하지 않은 attn_lib 변경이 있으면 멈춤."""
    first_lib = _git(course_repo, "rev-parse", "HEAD")
    commit, made = binder_env.sync(course_repo)
    assert made and _git(course_repo, "rev-parse", ENV_BRANCH) == commit
    files = env_branch_files(course_repo)
    binder_files = {p.relative_to(ROOT).as_posix() for p in BINDER.iterdir() if p.is_file()}
    assert set(files) == binder_files | {"binder/attn_lib.txt", "README.md"}, sorted(files)
    assert files["binder/attn_lib.txt"] == (f"attn_lib @ git+{REPO_URL}@{first_lib}#subdirectory=attn_lib\n"
                                            f"attn_course @ git+{REPO_URL}@{first_lib}#subdirectory=attn_course")
    assert files["binder/postBuild"] == (BINDER / "postBuild").read_text(encoding="utf-8").rstrip("\n")
    mode = _git(course_repo, "ls-tree", ENV_BRANCH, "binder/postBuild").split()[0]
    assert mode == "100755", "환경 브랜치의 postBuild 에 실행 권한이 없습니다"
    assert "chapters" not in {name.split("/")[0] for name in files}, "환경 브랜치에 장(내용)이 들어가면 안 됩니다"

    # 장만 고친 커밋: 환경 브랜치는 그대로 (content push does not touch the environment)
    nb = course_repo / f"{CHAPTERS[0]}.ipynb"
    nb.write_text(nb.read_text(encoding="utf-8").replace("attn_lib", "attn_lib ", 1), encoding="utf-8")
    _git(course_repo, "commit", "-q", "-am", "장 고침")
    assert binder_env.sync(course_repo) == (commit, False)

    # 커밋하지 않은 attn_lib 변경: 그 판은 어느 커밋에도 없으므로 멈춥니다
    lib = course_repo / "attn_lib" / "__init__.py"
    lib.write_text("# attn_lib 2\n", encoding="utf-8")
    with pytest.raises(SystemExit, match="커밋하지 않은"):
        binder_env.sync(course_repo)

    # attn_lib 을 바꾼 커밋: 새 환경 커밋, 앞 환경 커밋을 부모로, 새 커밋을 고정
    _git(course_repo, "commit", "-q", "-am", "attn_lib 고침")
    second_lib = _git(course_repo, "rev-parse", "HEAD")
    new_commit, made = binder_env.sync(course_repo)
    assert made and new_commit != commit and _git(course_repo, "rev-parse", f"{new_commit}^") == commit
    assert env_branch_files(course_repo)["binder/attn_lib.txt"].startswith(f"attn_lib @ git+{REPO_URL}@{second_lib}#")
    assert _git(course_repo, "status", "--porcelain") == "", "작업 트리를 건드리면 안 됩니다"


def test_makefile_binder_target_syncs_the_environment_branch() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^binder:.*\n((?:\t.*\n)+)", makefile, re.M)
    assert recipe and "scripts/binder_env.py sync" in recipe.group(1), "make binder 가 환경 브랜치를 맞추지 않습니다"


# ---------------------------------------------------------------------------------------
# 빌드된 사이트 (built site)
# ---------------------------------------------------------------------------------------

THEBE_JS_DECL = re.compile(r'const THEBE_JS_URL = "([^"]*)"')
THEBE_CSS_DECL = re.compile(r'const THEBE_CSS_URL = "([^"]*)"')
HREF = re.compile(r'<a href="([^"]+)"')


@pytest.mark.site
@pytest.mark.parametrize("docname", CHAPTERS)
def test_every_chapter_page_has_binder_colab_and_live_code(docname: str, html_dir: Path) -> None:
    html = (html_dir / f"{docname}.html").read_text(encoding="utf-8")
    hrefs = set(HREF.findall(html))
    binder = html_module.escape(launch_links.links(SETTINGS, f"{docname}.ipynb")["binder"])
    colab = f"{LAUNCH['colab_url']}/github/{ORG}/{REPO}/blob/{BRANCH}/{docname}.ipynb"
    assert binder in hrefs, f"{docname}: Binder(JupyterLab) 링크가 없습니다. 있는 것: {sorted(h for h in hrefs if 'binder' in h)}"
    assert colab in hrefs, f"{docname}: Colab 링크가 없습니다"
    assert re.search(r'<button onclick="initThebeSBT\(\)"\s+class="[^"]*btn-launch-thebe', html), (
        f"{docname}: Live Code 단추가 없습니다")
    config = re.search(r'<script type="text/x-thebe-config">(.*?)</script>', html, re.S)
    assert config, f"{docname}: thebe 설정이 없습니다"
    assert f'repo: "{ORG}/{REPO}"' in config.group(1) and f'ref: "{ENV_BRANCH}"' in config.group(1), (
        f"{docname}: Live Code(thebe)는 환경 브랜치({ENV_BRANCH})로 Binder 를 띄워야 합니다")


@pytest.mark.site
@pytest.mark.parametrize("docname", MARKDOWN_PAGES)
def test_markdown_pages_have_no_launch_buttons(docname: str, html_dir: Path) -> None:
    """Jupyter Book 은 노트북(커널 정보가 있는 페이지)에만 실행 단추를 답니다: .md 쪽에는 없음."""
    html = (html_dir / f"{docname}.html").read_text(encoding="utf-8")
    assert "btn-launch-thebe" not in html and "mybinder.org/v2/" not in html


@pytest.mark.site
def test_every_page_declares_thebe_once_and_points_at_the_site(html_dir: Path) -> None:
    pages = sorted(html_dir.rglob("*.html"))
    checked = 0
    for path in pages:
        html = path.read_text(encoding="utf-8")
        if "sphinx-thebe.js" not in html:
            continue  # 리디렉트 페이지 등 (e.g. index.html redirect)
        rel = path.relative_to(html_dir).as_posix()
        js, css = THEBE_JS_DECL.findall(html), THEBE_CSS_DECL.findall(html)
        assert len(js) == 1 and len(css) == 1, f"{rel}: THEBE_JS_URL/THEBE_CSS_URL 선언이 하나씩이어야 합니다: {js} {css}"
        for url, target in ((js[0], "_static/vendor/thebe/index.js"), (css[0], "_static/vendor/thebe/thebe.css")):
            assert not urlparse(url).scheme and not url.startswith("//"), f"{rel}: 외부 주소입니다: {url}"
            resolved = urlparse(urljoin(f"http://site/{rel}", url)).path.lstrip("/")
            assert resolved == target and (html_dir / resolved).is_file(), f"{rel}: {url} -> {resolved}"
        assert "_static/js/thebe-local.js" in html, f"{rel}: thebe-local.js 가 없습니다"
        checked += 1
    assert checked >= len(TOC_DOCNAMES), f"검사한 페이지가 너무 적습니다: {checked}"


@pytest.mark.site
def test_vendored_thebe_is_complete(html_dir: Path) -> None:
    thebe = html_dir / "_static" / "vendor" / "thebe"
    package = json.loads((thebe / "package.json").read_text(encoding="utf-8"))
    pinned = re.search(r"^THEBE_VERSION := (\S+)$", (ROOT / "Makefile").read_text(encoding="utf-8"), re.M).group(1)
    assert package["name"] == "thebe" and package["version"] == pinned and package["license"] == "BSD-3-Clause"
    index = (thebe / "index.js").read_text(encoding="utf-8")
    assert f'default="{pinned}"' in index and "window.thebelab" in index, "index.js 가 thebe 번들이 아닙니다"
    chunks = sorted(thebe.glob("[0-9]*.index.js"))
    assert len(chunks) >= 100, f"thebe 의 조각(chunk) 파일이 모자랍니다: {len(chunks)}"
    assert (thebe / "6807.index.js").is_file(), "index.js 가 직접 부르는 조각 6807 이 없습니다"
    assert (thebe / "thebe.css").stat().st_size > 10_000 and (thebe / "index.js.LICENSE.txt").is_file()
    assert not list(thebe.glob("*.map")) and not (thebe / "types").exists(), "소스맵/타입 파일은 복사하지 않습니다"
    assert (html_dir / "_static" / "js" / "thebe-mathjax.js").is_file()


# ---------------------------------------------------------------------------------------
# 브라우저 (headless Chromium; every host but 127.0.0.1 is blocked by the fixture)
# ---------------------------------------------------------------------------------------

LIVE_CODE_PAGE = "chapters/02_multi_head"  # 수식과 위젯이 함께 있는 장 (math and widgets)


def press_live_code(probe: OfflinePage) -> None:
    page = probe.page
    page.locator(".dropdown-launch-buttons > button").click()
    page.locator("button.btn-launch-thebe").click()
    page.wait_for_function("window.thebelab && typeof window.thebelab.bootstrap === 'function'", timeout=30_000)


def thebe_files(probe: OfflinePage) -> dict[str, int]:
    return {p: s for p, s in probe.local_responses.items() if "/_static/vendor/thebe/" in p}


@pytest.mark.browser
def test_live_code_loads_thebe_from_the_site(open_offline_page: Callable[..., OfflinePage]) -> None:
    probe = open_offline_page()
    probe.goto(LIVE_CODE_PAGE)
    assert probe.page_errors == [], f"Live Code 를 누르기 전의 페이지 오류: {probe.page_errors}"
    assert probe.external_requests == [], f"페이지를 여는 것만으로 외부 요청: {probe.external_requests}"
    press_live_code(probe)
    probe.page.wait_for_timeout(2_000)  # Binder 로의 연결 시도까지 (until it tries Binder)
    files = thebe_files(probe)
    assert files.get("/_static/vendor/thebe/index.js") == 200, f"thebe 를 사이트에서 싣지 않았습니다: {files}"
    assert files.get("/_static/vendor/thebe/thebe.css") == 200, f"thebe.css 를 싣지 않았습니다: {files}"
    assert probe.page.evaluate("window.thebe.version") == "0.9.2"
    hosts = {urlparse(u).hostname for u in probe.external_requests}
    assert hosts == {"mybinder.org"}, f"Binder 말고 다른 호스트로 요청했습니다: {probe.external_requests}"
    assert probe.external_requests == [launch_links.thebe_build_url(LAUNCH['binderhub_url'], REPO_URL, ENV_BRANCH)]
    # 막힌 Binder 연결이 남기는 오류 하나만 허용 (the blocked Binder build stream rejects once)
    others = [e for e in probe.page_errors if "mybinder.org/build/" not in e]
    assert not others, f"예상하지 못한 페이지 오류: {others}"
    assert probe.failed_local == []


@pytest.fixture(scope="module")
def jupyter_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """Binder 가 띄워 줄 서버 대신, 이 venv 의 Jupyter 서버를 127.0.0.1 에 띄웁니다 (root_dir=저장소)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    token = secrets.token_hex(16)
    runtime = tmp_path_factory.mktemp("jupyter-runtime")
    env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(runtime), "MPLBACKEND": "Agg"}
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyter_server", "--no-browser", "--ip=127.0.0.1", f"--port={port}",
         f"--IdentityProvider.token={token}", "--ServerApp.allow_origin=*", f"--ServerApp.root_dir={ROOT}",
         "--allow-root"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env,
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(f"{url}api/status?token={token}", timeout=2)
                break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    pytest.fail("로컬 Jupyter 서버가 뜨지 않았습니다 (jupyter_server did not start)", pytrace=False)
                time.sleep(0.3)
        yield url, token
    finally:
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()


# 셀 하나를 실행하고, 출력 HTML 에 expected 가 나타날 때까지 기다립니다 (위젯·MathJax 는 비동기로 그림).
EXECUTE = """async ([index, code, expected]) => {
    const cell = window.thebe.notebook.cells[index];
    const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
    const done = cell.execute(code).then(() => "done");
    const state = await Promise.race([done, sleep(30000).then(() => "timeout")]);
    const html = () => (cell.area ? cell.area.node.innerHTML : "");
    for (let i = 0; state === "done" && i < 150 && !html().includes(expected); i++) {
        await sleep(200);
    }
    return [state, html()];
}"""


@pytest.mark.browser
def test_live_code_runs_cells_through_a_binder_stand_in(
    open_offline_page: Callable[..., OfflinePage], jupyter_server: tuple[str, str]
) -> None:
    """Binder 의 빌드 응답(event-stream, phase=ready)을 흉내 내어 로컬 Jupyter 서버로 연결하고 셀을 실행합니다.

    mybinder.org 는 여기서 닿을 수 없으므로 이미지 빌드는 검사하지 못합니다. 대신 thebe 0.9.2 +
    sphinx-thebe 0.3.1 + thebe-local.js 가 실제 커널 세션을 열고, 출력(텍스트, LaTeX, 위젯, JSON)을
    CDN 없이 그리는지 봅니다. (Binder itself is stood in for; everything after it is real.)
    """
    server_url, token = jupyter_server
    probe = open_offline_page()
    builds: list[str] = []

    def fake_binder(route: Any) -> None:
        builds.append(route.request.url)
        ready = {"phase": "ready", "message": "stand-in", "url": server_url, "token": token}
        route.fulfill(status=200, body=f"data: {json.dumps(ready)}\n\n",
                      headers={"Content-Type": "text/event-stream", "Access-Control-Allow-Origin": "*"})

    probe.page.route(f"{LAUNCH['binderhub_url']}/build/**", fake_binder)
    probe.goto(LIVE_CODE_PAGE)
    press_live_code(probe)
    probe.page.wait_for_function("window.thebe.session && window.thebe.session.kernel", timeout=90_000)
    assert builds == [launch_links.thebe_build_url(LAUNCH['binderhub_url'], REPO_URL, ENV_BRANCH)]

    state, html = probe.page.evaluate(EXECUTE, [0, "import attn_lib; print(6 * 7, attn_lib.__name__)", "42 attn_lib"])
    assert state == "done" and "42 attn_lib" in html, f"셀 실행 결과가 없습니다: {state} {html[:300]}"
    state, html = probe.page.evaluate(EXECUTE, [1, r"from IPython.display import Math; Math(r'\sqrt{d_k}')", "mjx-container"])
    assert state == "done" and "mjx-container" in html, f"LaTeX 출력을 페이지의 MathJax 3 이 조판하지 않았습니다: {html[:300]}"
    state, html = probe.page.evaluate(EXECUTE, [1, "import ipywidgets as w; w.IntSlider(3)", "widget-slider"])
    assert state == "done" and "widget-slider" in html, f"위젯이 그려지지 않았습니다 ({state}): {html[:300]}"
    state, html = probe.page.evaluate(EXECUTE, [1, "from IPython.display import JSON; JSON({'heads': [1, 2]})", "jp-RenderedJSON"])
    assert state == "done" and "jp-RenderedJSON" in html, f"JSON 출력이 없습니다: {html[:300]}"
    probe.page.wait_for_timeout(1_000)

    files = thebe_files(probe)
    assert files.get("/_static/vendor/thebe/6807.index.js") == 200, f"조각(chunk)을 사이트에서 싣지 않았습니다: {files}"
    assert set(files.values()) == {200}, files
    assert probe.external_requests == [], f"Binder 말고 외부로 간 요청 (CDN 등): {probe.external_requests}"
    assert probe.page_errors == [] and probe.failed_local == [], (probe.page_errors, probe.failed_local)
