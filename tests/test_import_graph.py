"""패키지 사이의 import 규칙 (이슈 35): 누가 돌리는 코드인지에 따라 나눈 패키지가 한 방향으로만 기댑니다.

- ``attn_lib``(학생이 읽는 핵심)은 다른 패키지를 import하지 않습니다.
- ``attn_course``(그림, 탐색기, 실험, 연습)는 채점기(``attn_harness``, ``attn_grader``)를 import하지 않습니다.
- ``attn_harness``(샌드박스 쪽)는 판정 쪽 ``attn_grader``를 import하지 않습니다.
- 사이트 확장(``attn_site``)은 모듈을 불러올 때(맨 위 문장) 강좌의 패키지를 import하지 않습니다.
- 장은 공개 이름(패키지의 ``__all__``)만 씁니다: ``attn_lib``, ``attn_course``, ``attn_course.practice``에서만.

규칙은 파일의 경로로 역할을 정해(``role``) 정적으로(ast) 봅니다. 같은 검사를 패키지를 나누기 전의 커밋
(``OLD_TREE``)에 돌려 규칙이 실제로 어긋남을 잡는다는 것도 보입니다.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import tarfile
import io
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: 패키지를 나누기 전의 main (이슈 35가 잰 트리)
OLD_TREE = "4700f31"
PACKAGES = ("attn_lib", "attn_course", "attn_harness", "attn_grader", "attn_site")
#: 역할 -> import해도 되는 역할
ALLOWED = {
    "attn_lib": {"attn_lib"},
    "attn_course": {"attn_lib", "attn_course"},
    "attn_harness": {"attn_lib", "attn_course", "attn_harness"},
    "attn_grader": {"attn_lib", "attn_course", "attn_harness", "attn_grader"},
    "attn_site": {"attn_site"},
}
#: 장이 import해도 되는 모듈 (공개 이름은 그 모듈의 ``__all__``)
CHAPTER_MODULES = {"attn_lib": "attn_lib/__init__.py", "attn_course": "attn_course/__init__.py",
                   "attn_course.practice": "attn_course/practice/__init__.py"}
#: 옛 과제 노트북을 위한 안내 모듈: ``import attn_lib``으로는 불리지 않고, 옛 이름을 쓸 때만 attn_course 를 찾음
SHIM = "attn_lib/exercises.py"

_OLD_JUDGE = {"checkers", "checkers_models", "checkers_long", "references", "judge", "answers", "inline", "__init__"}
_OLD_HARNESS = {"harness", "codec", "calls"}


def role(rel: str) -> str | None:
    """저장소 안 경로의 역할 (새 배치는 첫 폴더, 나누기 전의 배치는 옮긴 곳)."""
    parts = rel.split("/")
    if parts[0] == "_ext":  # 나누기 전의 사이트 확장 폴더
        return "attn_site"
    if parts[0] == "attn_lib" and len(parts) > 2:  # 나누기 전: attn_lib/<폴더>/<모듈>.py
        if parts[1] == "exercises":
            stem = Path(parts[2]).stem
            return "attn_grader" if stem in _OLD_JUDGE else "attn_harness" if stem in _OLD_HARNESS else "attn_course"
        return "attn_course"
    return parts[0] if parts[0] in PACKAGES else None


def _module_file(tree: Path, module: str) -> str | None:
    path = tree.joinpath(*module.split("."))
    for cand in (path.with_suffix(".py"), path / "__init__.py"):
        if cand.is_file():
            return cand.relative_to(tree).as_posix()
    return None


def _target(tree: Path, rel: str, node: ast.ImportFrom | ast.Import, alias: ast.alias | None = None) -> str | None:
    """import 하나가 가리키는 저장소 안의 파일 (우리 패키지가 아니면 None)."""
    if isinstance(node, ast.Import):
        return _module_file(tree, alias.name) if alias.name.split(".")[0] in PACKAGES else None
    if node.level == 0:
        if (node.module or "").split(".")[0] not in PACKAGES:
            return None
        module = node.module
    else:
        base = rel.split("/")[:-1]
        base = base[: len(base) - (node.level - 1)]
        if rel.startswith("_ext/"):
            return None
        module = ".".join([*base, *([node.module] if node.module else [])])
    if node.level and not node.module:  # from . import x: 하위 모듈일 수도
        found = [_module_file(tree, f"{module}.{a.name}") for a in node.names]
        return next((f for f in found if f), _module_file(tree, module))
    return _module_file(tree, module) or _module_file(tree, module.rsplit(".", 1)[0])


def _site_sibling(tree: Path, rel: str, node: ast.AST) -> str | None:
    """나누기 전의 ``_ext`` 확장이 sys.path 로 옆 모듈을 import한 것."""
    if not rel.startswith("_ext/"):
        return None
    names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
    for name in names:
        if (tree / "_ext" / f"{name}.py").is_file():
            return f"_ext/{name}.py"
    return None


def package_files(tree: Path) -> list[str]:
    files = []
    for top in (*PACKAGES, "_ext"):
        for path in sorted((tree / top).rglob("*.py")) if (tree / top).is_dir() else []:
            rel = path.relative_to(tree).as_posix()
            if "/build/" not in rel and "__pycache__" not in rel:
                files.append(rel)
    return files


def violations(tree: Path) -> list[str]:
    """트리 하나에서 규칙을 어긴 곳 (한국어 한 줄씩)."""
    errors = []
    for rel in package_files(tree):
        here = role(rel)
        module = ast.parse((tree / rel).read_text(encoding="utf-8"))
        top_level = set(map(id, module.body))
        for node in ast.walk(module):
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            aliases = node.names if isinstance(node, ast.Import) else [None]
            for alias in aliases:
                target = _target(tree, rel, node, alias)
                if here == "attn_site":
                    if id(node) in top_level and target is not None and role(target) != "attn_site":
                        errors.append(f"{rel}: 사이트 확장이 불러올 때 {role(target)} ({target})를 import합니다")
                    if _site_sibling(tree, rel, node):
                        errors.append(f"{rel}: 사이트 확장이 sys.path 로 옆 모듈 {_site_sibling(tree, rel, node)}를 import합니다")
                    continue
                if target is None:
                    continue
                there = role(target)
                if there not in ALLOWED[here]:
                    errors.append(f"{rel}: {here}가 {there} ({target})를 import합니다 (허용: {sorted(ALLOWED[here])})")
        if here == "attn_lib" and rel != SHIM:
            text = (tree / rel).read_text(encoding="utf-8")
            if "import_module" in text or "__import__" in text:
                errors.append(f"{rel}: attn_lib 이 이름으로(importlib) 다른 모듈을 부릅니다")
    errors += chapter_violations(tree)
    return errors


def _all_names(tree: Path, rel: str) -> set[str]:
    for node in ast.parse((tree / rel).read_text(encoding="utf-8")).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "__all__" for t in node.targets):
            return set(ast.literal_eval(node.value))
    return set()


def chapter_violations(tree: Path) -> list[str]:
    """장의 코드 셀이 공개 이름 밖을 쓰는 곳."""
    errors = []
    for nb_path in sorted((tree / "chapters").glob("**/*.ipynb")):
        nb = json.loads(nb_path.read_text(encoding="utf-8"))
        for i, cell in enumerate(nb["cells"]):
            if cell["cell_type"] != "code":
                continue
            try:
                module = ast.parse("".join(cell["source"]))
            except SyntaxError:
                continue
            imported = {}
            for node in ast.walk(module):
                if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in PACKAGES:
                    where = CHAPTER_MODULES.get(node.module)
                    if where is None:
                        errors.append(f"{nb_path.name} 셀 {i}: {node.module} 는 장이 import할 공개 모듈이 아닙니다")
                        continue
                    public = _all_names(tree, where)
                    errors += [f"{nb_path.name} 셀 {i}: {node.module}.{a.name} 는 __all__ 에 없습니다"
                               for a in node.names if a.name not in public]
                elif isinstance(node, ast.Import):
                    for a in node.names:
                        if a.name.split(".")[0] in PACKAGES:
                            if a.name not in CHAPTER_MODULES:
                                errors.append(f"{nb_path.name} 셀 {i}: import {a.name} 는 공개 모듈이 아닙니다")
                            else:
                                imported[a.asname or a.name] = a.name
            for node in ast.walk(module):
                if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in imported
                        and node.attr not in _all_names(tree, CHAPTER_MODULES[imported[node.value.id]])):
                    errors.append(f"{nb_path.name} 셀 {i}: {imported[node.value.id]}.{node.attr} 는 __all__ 에 없습니다")
    return errors


def test_the_packages_and_chapters_follow_the_import_rules():
    errors = violations(ROOT)
    assert not errors, "\n".join(errors)


def test_importing_attn_lib_loads_no_other_package_and_not_the_shim():
    code = ("import sys, attn_lib\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in "
            "('attn_course', 'attn_harness', 'attn_grader', 'attn_site', 'matplotlib', 'IPython') "
            "or m == 'attn_lib.exercises'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.strip() == "[]", out.stdout


def test_the_old_grader_name_still_works_for_notebooks_already_handed_out():
    code = ("import warnings\nwith warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always')\n    from attn_lib.exercises import korean_grader\n"
            "print(korean_grader.__module__, [str(x.message) for x in w])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd="/")
    assert out.stdout.startswith("attn_course.practice.selfcheck") and "attn_course.practice" in out.stdout
    assert "옮겼습니다" in out.stdout


def _old_tree(tmp: Path) -> Path:
    raw = subprocess.run(["git", "-C", str(ROOT), "archive", OLD_TREE, "attn_lib", "_ext", "chapters"],
                         capture_output=True)
    if raw.returncode != 0:
        pytest.skip(f"git 기록에 {OLD_TREE}가 없습니다 (얕은 clone?)")
    with tarfile.open(fileobj=io.BytesIO(raw.stdout)) as tar:
        tar.extractall(tmp, filter="data")
    return tmp


def test_the_rules_catch_the_tree_before_the_split(tmp_path):
    """같은 검사가 나누기 전의 트리에서는 규칙마다 어긋남을 찾습니다 (검사가 늘 통과하는 것이 아님)."""
    errors = violations(_old_tree(tmp_path))
    text = "\n".join(errors)
    assert "attn_lib/__init__.py: attn_lib가 attn_course" in text  # 핵심이 그림·실험을 다시 내보냄
    assert "attn_lib/exercises/selfcheck.py: attn_course가 attn_harness" in text  # 자기 점검이 하네스를
    assert "attn_lib/exercises/harness.py: attn_harness가 attn_grader" in text  # 하네스가 채점기 목록을
    assert "_ext/course_plan.py: 사이트 확장이 sys.path 로" in text
    assert "attn_lib.explorer.stepper 는 장이 import할 공개 모듈이 아닙니다" in text
    assert "attn_lib.attention 는 장이 import할 공개 모듈이 아닙니다" in text


@pytest.mark.parametrize("rel, source, message", [
    ("attn_lib/masks.py", "from attn_course import plot_mask\n", "attn_lib가 attn_course"),
    ("attn_course/viz/plots.py", "from attn_grader.judge import LOCK\n", "attn_course가 attn_grader"),
    ("attn_course/practice/selfcheck.py", "from attn_harness.harness import serve\n", "attn_course가 attn_harness"),
    ("attn_harness/harness.py", "from attn_grader.registry import CHECKERS\n", "attn_harness가 attn_grader"),
    ("attn_site/korean_ui.py", "import attn_course\n", "사이트 확장이 불러올 때 attn_course"),
    ("attn_lib/rope.py", "import importlib\nimportlib.import_module('attn_course')\n", "importlib"),
])
def test_a_back_arrow_is_caught(tmp_path, rel, source, message):
    for pkg in ("attn_lib", "attn_course", "attn_harness", "attn_grader"):
        for path in (ROOT / pkg).rglob("*.py"):
            if "build" not in path.parts:
                dest = tmp_path / path.relative_to(ROOT)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(path.read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / rel).write_text(source, encoding="utf-8")
    assert any(message in e for e in violations(tmp_path)), f"{rel}: {source.strip()!r}를 잡지 못했습니다"
