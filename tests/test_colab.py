"""Colab: attn_lib 이 Colab 이 설치해 둔 패키지 위에서 돌고, 설치가 Colab 앞단의 패키지를 바꾸지 않는지.

What Colab preinstalls comes from Colab's published ``pip-freeze.txt`` (googlecolab/backend-info, commit
a72407924822, 2026-08-19, "Upgrade to Python 3.13"): ipywidgets 7.7.1 with widgetsnbextension 3.6.10, IPython
7.34.0, ipykernel 6.17.1, traitlets 5.7.1, torch 2.11.0+cpu, matplotlib 3.10.0, numpy 2.1.3, pandas 2.2.3,
seaborn 0.13.2. Colab's own front-end renders ipywidgets 7; with ipywidgets 8 it asks for the custom widget
manager and still does not render (colabtools issues 3020 and 4525, the latter open). So attn_lib supports
ipywidgets 7 and 8 (``pyproject.toml``: ``ipywidgets>=7.7``) instead of upgrading Colab's.

검사 (checks):

1. Colab 의 설치 목록을 흉내 낸 빈 환경(이름과 판만 있는 dist-info)에 pip 이 attn_lib wheel 을 설치한다고 할 때
   (``--dry-run --no-index``), 새로 설치하는 것은 attn_lib 과 koreanize-matplotlib 뿐이고 Colab 의 패키지는 하나도
   바꾸지 않습니다. 같은 방법으로 ``ipywidgets>=8`` 을 요구하면 실패하는 것도 봅니다 (검사가 실패할 수 있음).
2. ipywidgets 7.7.1, IPython 7.34.0, ipykernel 6.17.1, traitlets 5.7.1 (Colab 과 같은 판, PyPI 에서 임시 폴더로)을
   이 venv 의 패키지보다 앞에 두고 헤드 탭과 어텐션 탐색기를 만듭니다: 탭 제목(7 의 ``_titles``), 툴팁
   (``description_tooltip``), IPython 7 이 고르는 표시 묶음(위젯 보기), 조작기로 다시 그리기, 경고 없음.
3. 이 venv 의 ipywidgets 8 에서도 같은 API 가 경고 없이 (``titles``, ``tooltip``) 동작합니다.

Colab 에서 실제로 실행해 보지는 못했습니다 (이 기계에서 Colab 에 닿을 수 없음): Python 은 Colab 의 3.13 이 아닌
이 venv 의 3.11 이고, 화면(앞단)이 위젯을 그리는 것은 확인하지 못합니다.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]

#: Colab 이 설치해 둔 판 (googlecolab/backend-info pip-freeze.txt, a72407924822, 2026-08-19) 가운데 attn_lib 과
#: 그 의존성, 위젯 앞단이 쓰는 것
COLAB = {
    "torch": "2.11.0+cpu", "matplotlib": "3.10.0", "numpy": "2.1.3", "pandas": "2.2.3", "seaborn": "0.13.2",
    "ipywidgets": "7.7.1", "widgetsnbextension": "3.6.10", "jupyterlab-widgets": "3.0.16",
    "ipykernel": "6.17.1", "ipython": "7.34.0", "traitlets": "5.7.1", "jupyter-client": "7.4.9",
    "notebook": "6.5.7", "jupyter-core": "5.9.1", "setuptools": "75.2.0",
}
#: 2 번 검사에서 이 venv 의 것보다 앞에 둘 Colab 의 판 (ipywidgets 7 과 그것이 기대는 커널 쪽 패키지)
COLAB_WIDGET_STACK = (
    "ipywidgets==7.7.1", "widgetsnbextension==3.6.10", "ipykernel==6.17.1", "ipython==7.34.0", "traitlets==5.7.1",
    "jupyter_client==7.4.9", "ipython_genutils==0.2.0", "backcall==0.2.0", "pickleshare==0.7.5",
    "decorator==4.4.2", "entrypoints==0.4",
)


def _clean_pip_env() -> dict[str, str]:
    """이 기계의 pip 설정(로컬 색인, find-links, 제약)을 빼고 실행합니다 (명령줄에 준 것만 보도록)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    return {**env, "PIP_CONFIG_FILE": os.devnull, "PIP_DISABLE_PIP_VERSION_CHECK": "1"}


def _write_wheel(folder: Path, name: str, version: str, requires: list[str]) -> Path:
    """METADATA 만 든 wheel (pip 이 의존성을 읽는 데 필요한 것)."""
    dist = f"{name.replace('-', '_')}-{version}"
    path = folder / f"{dist}-py3-none-any.whl"
    meta = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n" + "".join(f"Requires-Dist: {r}\n" for r in requires)
    wheel = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"{dist}.dist-info/METADATA", meta)
        zf.writestr(f"{dist}.dist-info/WHEEL", wheel)
        zf.writestr(f"{dist}.dist-info/RECORD", "")
    return path


@pytest.fixture(scope="module")
def colab_like_env(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(Colab 의 판을 dist-info 로만 담은 빈 venv 의 파이썬, attn_lib·attn_course·koreanize-matplotlib 의 wheel 폴더)."""
    base = tmp_path_factory.mktemp("colab")
    venv = base / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    for name, version in COLAB.items():
        info = site / f"{name.replace('-', '_')}-{version}.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")
        (info / "INSTALLER").write_text("colab\n", encoding="utf-8")
    wheels = base / "wheels"
    wheels.mkdir()
    for package in ("attn_lib", "attn_course"):  # Colab 셀이 설치하는 둘 (저장소의 하위 폴더에서)
        # 저장소 안에서 빌드하면 setuptools 가 패키지 폴더에 build/ 를 남기므로, 사본에서 빌드합니다
        src = base / "src" / package
        shutil.copytree(ROOT / package, src, ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
        subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(wheels),
                        str(src)], check=True, env=_clean_pip_env(), capture_output=True)
    korean = metadata.distribution("koreanize-matplotlib")
    _write_wheel(wheels, "koreanize-matplotlib", korean.version, korean.requires or [])
    return python, wheels


def _dry_run(python: Path, wheels: Path, *targets: str, report: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--dry-run", "--no-index",
         "--find-links", str(wheels), "--report", str(report), *targets],
        capture_output=True, text=True, env=_clean_pip_env(), timeout=300)


def test_installing_attn_lib_on_colab_changes_none_of_colab_s_packages(colab_like_env: tuple[Path, Path],
                                                                      tmp_path: Path) -> None:
    python, wheels = colab_like_env
    wheel = [str(next(wheels.glob(f"{p}-*.whl"))) for p in ("attn_lib", "attn_course")]
    out = _dry_run(python, wheels, *wheel, report=tmp_path / "report.json")
    assert out.returncode == 0, f"Colab 의 판 위에 attn_lib 을 설치할 수 없습니다:\n{out.stdout}\n{out.stderr}"
    installed = {canonicalize_name(item["metadata"]["name"]): item["metadata"]["version"]
                 for item in json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))["install"]}
    assert set(installed) == {"attn-lib", "attn-course", "koreanize-matplotlib"}, (
        f"Colab 에 이미 있는 패키지를 바꾸려 합니다: {sorted(set(installed) & set(map(canonicalize_name, COLAB)))}")


def test_the_colab_harness_catches_an_upgrade(colab_like_env: tuple[Path, Path], tmp_path: Path) -> None:
    """같은 환경에서 ipywidgets 8 을 요구하면 (예전 attn_lib 처럼) 설치할 수 없다고 나와야 합니다."""
    python, wheels = colab_like_env
    out = _dry_run(python, wheels, "ipywidgets>=8", report=tmp_path / "report.json")
    assert out.returncode != 0 and "ipywidgets" in out.stderr


def test_every_attn_lib_dependency_accepts_colab_s_version() -> None:
    deps = [d for pkg in ("attn_lib", "attn_course") for d in
            tomllib.loads((ROOT / pkg / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
            if not d.startswith("attn_lib")]
    for dep in map(Requirement, deps):
        version = COLAB.get(canonicalize_name(dep.name))
        if version is not None:
            assert dep.specifier.contains(version, prereleases=True), f"{dep} 가 Colab 의 {version} 을 받지 않습니다"


PROBE = textwrap.dedent("""
    import json, warnings
    warnings.simplefilter("always")
    with warnings.catch_warnings(record=True) as caught:
        import ipywidgets, IPython, traitlets
        import torch
        from IPython.core.formatters import DisplayFormatter
        import attn_course
        from attn_course import AttentionExplorer, head_tabs
        attn_course.setup()  # 장의 첫 셀처럼
        weights = torch.softmax(torch.randn(3, 4, 4, generator=torch.Generator().manual_seed(0)), dim=-1)
        tabs = head_tabs(weights, list("abcd"), list("abcd"))
        explorer = AttentionExplorer("나는 어제 책을 읽었다", num_heads=2, d_k=8)
        data, _ = DisplayFormatter().format(explorer)
        tooltip = "tooltip" if ipywidgets.__version__.startswith("8") else "description_tooltip"
        state = explorer.set(num_heads=4, mask="causal")
    ours = [f"{w.filename}:{w.lineno}: {w.message}" for w in caught if "attn_lib" in w.filename or "attn_course" in w.filename]
    print(json.dumps({
        "versions": [ipywidgets.__version__, IPython.__version__, traitlets.__version__],
        "tab_class": type(tabs).__mro__[1].__name__,
        "titles": [tabs.get_title(h) for h in range(len(tabs.children))],
        "synced_titles": (list(tabs.titles) if hasattr(tabs, "titles") and not isinstance(tabs.titles, property)
                          else [tabs._titles[str(h)] for h in range(len(tabs.children))]),
        "tooltips": {n: getattr(c, tooltip) for n, c in explorer.controls.items()},
        "mime": sorted(data),
        "model_id": data.get("application/vnd.jupyter.widget-view+json", {}).get("model_id") == explorer.widget.model_id,
        "state": [state["num_heads"], state["mask"], explorer.controls["num_heads"].value, len(explorer.image)],
        "warnings": ours,
    }))
""")


def run_probe(pythonpath: str | None) -> dict:
    env = {**os.environ, "MPLBACKEND": "Agg"}
    env.pop("ATTN_PHONE_FIGURES", None)
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def check_probe(result: dict) -> None:
    assert result["tab_class"] == "Tab"
    assert result["titles"] == result["synced_titles"] == ["헤드 0", "헤드 1", "헤드 2"], result
    from attn_course.explorer.texts import LIVE_CONTROL_HELP

    for name, _, text in LIVE_CONTROL_HELP:
        assert result["tooltips"][name] == text, f"{name} 의 툴팁이 위젯에 없습니다: {result['tooltips']}"
    assert "application/vnd.jupyter.widget-view+json" in result["mime"] and result["model_id"], result["mime"]
    assert result["state"][:3] == [4, "causal", 4] and result["state"][3] > 1000, result["state"]
    assert result["warnings"] == [], f"attn_lib 이 경고를 냅니다: {result['warnings']}"


@pytest.fixture(scope="module")
def colab_widget_stack(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Colab 과 같은 판의 ipywidgets 7 과 커널 쪽 패키지 (PyPI 에서 받아 임시 폴더에; 의존성은 이 venv 의 것)."""
    target = tmp_path_factory.mktemp("colab-widgets")
    out = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target),
                          *COLAB_WIDGET_STACK], capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, f"PyPI 에서 Colab 의 위젯 판을 받지 못했습니다:\n{out.stderr}"
    return target


def test_explorer_and_head_tabs_work_on_colab_s_ipywidgets_7(colab_widget_stack: Path) -> None:
    result = run_probe(str(colab_widget_stack))
    assert result["versions"] == ["7.7.1", "7.34.0", "5.7.1"], result["versions"]
    check_probe(result)
    # ipywidgets 7 에서는 위젯 보기만 (정적 탐색기의 text/html 은 책 사이트의 파일을 싣므로 Colab 에서 못 씀)
    assert result["mime"] == ["application/vnd.jupyter.widget-view+json", "text/plain"], result["mime"]


def test_explorer_and_head_tabs_work_on_ipywidgets_8_without_warnings() -> None:
    result = run_probe(None)
    assert result["versions"][0].startswith("8."), result["versions"]
    check_probe(result)
    assert "text/html" in result["mime"], "책 사이트용 정적 탐색기(text/html)가 빠졌습니다"
