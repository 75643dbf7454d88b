"""사이트 확장 패키지 ``attn_site`` (이슈 35: 누가 돌리는가에 따라 패키지로 나누기). 빌드는 필요 없습니다.

- 모든 모듈이 강좌 패키지(``attn_lib``, ``attn_course...``) 없이 import 됩니다: 모듈마다 새 파이썬 프로세스에서
  ``sys.meta_path`` 맨 앞에 그 이름들을 막는 찾개(finder)를 두고 import 합니다 (한 모듈이 고친 sys.path 가 다른
  모듈을 살리지 않도록 따로따로). 확장은 책을 빌드하는 사람만
  쓰고, 강좌 코드가 바뀌었다고 사이트 확장이 깨지면 안 됩니다. (Every module imports with the course packages blocked.)
- 패키지 안의 어떤 파일도 ``sys.path`` 를 고치거나 파일 경로로 모듈을 싣지 않습니다: 확장끼리는 상대 import
  (``from .reading_time import ...``)로 씁니다.
- ``_config.yml`` 의 ``sphinx.extra_extensions`` 가 패키지의 확장을 모두 싣고, 확장이 넣는 js/css 는 패키지의
  ``static/`` 에 있으며 wheel 에 들어갑니다 (``attn_site/pyproject.toml`` 의 package-data).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "attn_site"
STATIC = PACKAGE / "static"
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")
#: 확장이 아닌 도우미 모듈 (setup 이 없음; 다른 확장이 씀)
HELPERS = {"figure_png", "reading_time", "syllabus"}
#: 사이트 확장이 import 하면 안 되는 강좌 패키지 (이름이 이것으로 시작하는 모든 모듈)
BLOCKED = ("attn_lib", "attn_course")
FORBIDDEN = ("sys.path.insert", "spec_from_file_location")

#: 새 프로세스에서 돌리는 코드: 강좌 패키지를 막고 모듈 하나를 import 해 결과를 JSON 으로 찍음
IMPORT_SCRIPT = r"""
import importlib, importlib.abc, json, sys

BLOCKED = tuple(sys.argv[1].split(","))
blocked_tries = []

class BlockCoursePackages(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.startswith(BLOCKED):
            blocked_tries.append(name)
            raise ImportError(f"{name} 은 이 테스트에서 막혀 있습니다 (blocked course package)")
        return None

sys.meta_path.insert(0, BlockCoursePackages())
result = {"blocker_works": False, "error": None, "file": None}
try:
    import attn_lib  # noqa: F401
except ImportError:
    result["blocker_works"] = True
blocked_tries.clear()
path_before = list(sys.path)
try:
    result["file"] = importlib.import_module(f"attn_site.{sys.argv[2]}").__file__
except Exception as exc:  # noqa: BLE001
    result["error"] = f"{type(exc).__name__}: {exc}"
result["sys_path_changed"] = sys.path != path_before
result["blocked_tries"] = sorted(set(blocked_tries))
result["loaded_course_modules"] = sorted(m for m in sys.modules if m.startswith(BLOCKED))
print(json.dumps(result, ensure_ascii=False))
"""


def _package_files() -> list[Path]:
    """패키지의 글 파일 (설치가 만든 egg-info, build, 캐시는 뺌)."""
    skip = {"__pycache__", "build", "dist"}
    return sorted(p for p in PACKAGE.rglob("*")
                  if p.is_file() and not skip & set(p.relative_to(PACKAGE).parts)
                  and not any(part.endswith(".egg-info") for part in p.parts) and p.suffix != ".pyc")


def test_the_package_holds_the_site_extensions() -> None:
    assert (PACKAGE / "__init__.py").is_file(), "attn_site/__init__.py 가 없습니다 (attn_site 는 패키지여야 합니다)"
    assert len(MODULES) >= 15, f"attn_site 의 모듈이 모자랍니다: {MODULES}"
    assert not (ROOT / "_ext").exists(), "_ext/ 가 남아 있습니다: 확장은 attn_site/ 로 옮겼습니다"


@pytest.mark.parametrize("name", MODULES)
def test_every_module_imports_without_the_course_packages(name: str) -> None:
    """강좌 패키지를 막은 새 프로세스에서 ``attn_site.<name>`` 을 import 합니다 (책 폴더가 sys.path 맨 앞: cwd)."""
    out = subprocess.run([sys.executable, "-c", IMPORT_SCRIPT, ",".join(BLOCKED), name],
                         cwd=ROOT, capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["blocker_works"], "막는 찾개가 attn_lib 를 막지 못했습니다 (테스트가 아무것도 확인하지 않음)"
    assert result["error"] is None, f"attn_site/{name}.py 가 강좌 패키지 없이 import 되지 않습니다: {result['error']}"
    assert not result["blocked_tries"], f"attn_site/{name}.py 가 강좌 패키지를 import 하려 했습니다: {result['blocked_tries']}"
    assert not result["loaded_course_modules"], result["loaded_course_modules"]
    assert not result["sys_path_changed"], f"attn_site/{name}.py 가 import 때 sys.path 를 고칩니다"
    assert Path(result["file"]).resolve() == PACKAGE / f"{name}.py", f"다른 곳의 attn_site 를 import 했습니다: {result['file']}"


def test_no_file_in_the_package_edits_sys_path_or_loads_by_file_path() -> None:
    hits = []
    for path in _package_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        hits += [f"{path.relative_to(ROOT)}: {word}" for word in FORBIDDEN if word in text]
    assert not hits, "확장끼리는 상대 import 로 씁니다 (from .reading_time import ...):\n" + "\n".join(hits)


def test_config_loads_every_extension_from_the_package() -> None:
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))["sphinx"]
    assert "local_extensions" not in config, "sphinx.local_extensions 대신 extra_extensions 에 attn_site.<모듈> 로"
    listed = {e.removeprefix("attn_site.") for e in config["extra_extensions"] if e.startswith("attn_site.")}
    extensions = {name for name in MODULES
                  if re.search(r"^def setup\(", (PACKAGE / f"{name}.py").read_text(encoding="utf-8"), re.M)}
    assert extensions == set(MODULES) - HELPERS, "setup() 이 있는 모듈과 도우미 목록(HELPERS)이 다릅니다"
    assert listed == extensions, f"_config.yml 에 빠지거나 남은 확장: {sorted(listed ^ extensions)}"


def test_static_files_live_beside_the_extensions_that_add_them() -> None:
    """확장이 ``add_js_file``/``add_css_file`` 로 넣는 ``js/...``, ``css/...`` 는 모두 ``attn_site/static/`` 에 있고,
    거기 있는 파일은 모두 어느 확장이 씁니다. ``_assets`` 에는 ``vendor/`` (make book 이 복사)만 남습니다."""
    referenced = set()
    for name in MODULES:
        source = (PACKAGE / f"{name}.py").read_text(encoding="utf-8")
        referenced |= set(re.findall(r'"((?:js|css)/[\w.-]+\.(?:js|css))"', source))
    present = {p.relative_to(STATIC).as_posix() for p in STATIC.rglob("*") if p.is_file()}
    assert referenced, "확장에서 js/css 경로를 찾지 못했습니다"
    assert referenced <= present, f"attn_site/static/ 에 없는 파일: {sorted(referenced - present)}"
    assert present <= referenced, f"어느 확장도 쓰지 않는 파일: {sorted(present - referenced)}"
    leftovers = [p for d in ("js", "css") for p in (ROOT / "_assets" / d).glob("*")]
    assert not leftovers, f"_assets 에 남은 책의 js/css (attn_site/static/ 으로): {leftovers}"
    project = tomllib.loads((PACKAGE / "pyproject.toml").read_text(encoding="utf-8"))
    assert project["project"]["name"] == "attn_site"
    assert "static/**" in project["tool"]["setuptools"]["package-data"]["attn_site"], "wheel 에 static/ 이 빠집니다"
