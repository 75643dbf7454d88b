"""라이브러리 코드 규칙: 한국어 독스트링과 Shape 절, 타입 힌트, 맨 assert 금지, 모양 주석,
한 방향 import, 경고 숨기기 금지."""

from __future__ import annotations

import ast
import inspect
import io
import tokenize
import json
import re
from pathlib import Path

import pytest

import attn_course
import attn_course.practice
import attn_lib

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT  # 모듈 경로는 저장소 최상위에서 (attn_lib/masks.py, attn_course/viz/plots.py ...)
HANGUL = re.compile(r"[가-힣]")
#: 파이썬 패키지 넷 (사이트 확장 attn_site 는 Sphinx 코드라 tests/test_site_package.py 가 따로 봄)
PY_PACKAGES = ("attn_lib", "attn_course", "attn_harness", "attn_grader")
LIB_FILES = sorted(p for pkg in PY_PACKAGES for p in (ROOT / pkg).rglob("*.py")
                   if "__pycache__" not in p.parts and "build" not in p.parts)


def public_callables():
    for module in (attn_lib, attn_course, attn_course.practice):
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj):
                yield f"{module.__name__}.{name}", obj
                base_names = set(dir(obj.__mro__[1])) if len(obj.__mro__) > 2 else set()
                for meth_name in vars(obj):
                    if not meth_name.startswith("_") and meth_name not in base_names and callable(getattr(obj, meth_name)):
                        yield f"{module.__name__}.{name}.{meth_name}", getattr(obj, meth_name)
                if hasattr(obj, "forward"):
                    yield f"{module.__name__}.{name}.forward", obj.forward
            elif callable(obj):
                yield f"{module.__name__}.{name}", obj


@pytest.mark.parametrize("name,obj", list(public_callables()), ids=lambda x: x if isinstance(x, str) else "")
def test_public_api_has_korean_docstring_with_shape_section(name, obj):
    doc = inspect.getdoc(obj) or ""
    assert HANGUL.search(doc), f"{name}: 한국어 독스트링이 없습니다"
    assert "Shape:" in doc, f"{name}: 독스트링에 Shape: 절이 없습니다"


@pytest.mark.parametrize("name,obj", [(n, o) for n, o in public_callables() if not inspect.isclass(o)], ids=lambda x: x if isinstance(x, str) else "")
def test_public_functions_have_type_hints(name, obj):
    sig = inspect.signature(obj)
    for p in sig.parameters.values():
        if p.name in {"self", "cls"}:
            continue
        assert p.annotation is not inspect.Parameter.empty, f"{name}: 인자 {p.name}에 타입 힌트가 없습니다"
    assert sig.return_annotation is not inspect.Signature.empty, f"{name}: 반환 타입 힌트가 없습니다"


@pytest.mark.parametrize("path", LIB_FILES, ids=lambda p: p.relative_to(LIB).as_posix())
def test_no_bare_assert_in_library(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    asserts = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Assert)]
    assert not asserts, f"{path.name}: assert 대신 ValueError/TypeError를 쓰세요 (줄 {asserts})"


RESHAPE = re.compile(r"\.(view|reshape|transpose|permute|expand|unsqueeze|flatten)\(|\[\s*:\s*,\s*None|\[\s*None")


@pytest.mark.parametrize("path", LIB_FILES, ids=lambda p: p.relative_to(LIB).as_posix())
def test_every_reshape_line_has_a_shape_comment(path):
    source = path.read_text(encoding="utf-8")
    code_by_line: dict[int, str] = {}
    comment_by_line: dict[int, str] = {}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.COMMENT:
            comment_by_line[tok.start[0]] = tok.string
        elif tok.type != tokenize.STRING:  # 문자열(독스트링, 메시지) 안의 글자는 코드가 아님
            code_by_line[tok.start[0]] = code_by_line.get(tok.start[0], "") + tok.string
    missing = [
        i for i, code in code_by_line.items()
        # def 줄은 건너뜀: 타입 주석 Iterator[None]은 모양 바꾸기가 아님
        if RESHAPE.search(code) and not code.startswith("def") and not re.search(r"\(.*\)\s*->\s*\(", comment_by_line.get(i, ""))
    ]
    assert not missing, f"{path.name}: 모양 주석 '# (..) -> (..)'이 없는 줄 {missing}"


# 패키지와 폴더의 층: 핵심(attn_lib: attention, masks, metrics, kv_cache, rope, blockwise, _checks)은 아무것도
# import하지 않고, attn_course 의 폴더끼리, 그리고 채점 쪽은 아래 규칙으로만 import합니다 (패키지 사이의 규칙은
# tests/test_import_graph.py). 핵심 안에서도 순서가 있습니다: 같은 층이나 위층은 import하지 않습니다
# (kv_cache -> masks, attention -> kv_cache·rope).
CORE_LAYERS = {"_checks": 0, "masks": 1, "rope": 1, "blockwise": 1, "kv_cache": 2, "attention": 3, "metrics": 3,
               "exercises": 4}
ALLOWED = {  # 어디서 -> 어디로 import해도 되는가 ("core" = 핵심 모듈)
    "core": {"core"},
    "viz": {"core", "viz"},
    "explorer": {"core", "viz", "explorer"},
    "experiments": {"core", "experiments"},
    "practice": {"core", "viz", "explorer", "practice"},
    "course": {"core", "viz", "explorer", "experiments", "practice", "course"},
    "harness": {"core", "practice", "harness"},
    "grader": {"core", "practice", "harness", "grader"},
}
#: matplotlib, seaborn, ipywidgets, IPython 을 import하면 안 되는 곳: 수학과 실험 (그림은 viz 와 explorer 의 보기만)
NO_DRAWING = {"core", "experiments"}
NO_DRAWING_MODULES = {"attn_course/explorer/model.py"}
DRAWING = {"matplotlib", "seaborn", "ipywidgets", "IPython"}
_PACKAGE_AREA = {"attn_lib": "core", "attn_harness": "harness", "attn_grader": "grader"}


def _area_of(parts: tuple[str, ...]) -> str | None:
    """모듈 경로(저장소 최상위에서, 확장자 없이)의 자리: 'core', attn_course 의 폴더 이름, 'harness', 'grader'."""
    if not parts or parts[0] not in (*_PACKAGE_AREA, "attn_course"):
        return None
    if parts[0] != "attn_course":
        return _PACKAGE_AREA[parts[0]]
    return parts[1] if len(parts) > 2 or (len(parts) == 2 and parts[1] in ALLOWED) else "course"


def area(path: Path) -> str:
    """모듈 파일이 속한 곳."""
    rel = path.relative_to(LIB)
    parts = rel.parts[:-1] + ((rel.stem,) if rel.stem != "__init__" else ())
    if rel.parts[0] == "attn_course" and len(rel.parts) == 2:
        return "course"
    return _area_of(parts if rel.stem != "__init__" else rel.parts[:-1] + ("__init__",))


def resolve(path: Path, node: ast.ImportFrom) -> str | None:
    """import 가 가리키는 모듈 경로 ('attn_lib/masks', 'attn_course/viz/figures' 같은), 우리 패키지가 아니면 None."""
    if node.level == 0:
        mod = node.module or ""
        return mod.replace(".", "/") if mod.split(".")[0] in (*_PACKAGE_AREA, "attn_course") else None
    base = path.relative_to(LIB).parent.parts
    base = base[: len(base) - (node.level - 1)] if node.level > 1 else base
    parts = [*base, *((node.module or "").split(".") if node.module else [])]
    return "/".join(parts)


def layer_errors(path: Path, source: str) -> list[str]:
    """한 모듈의 import 가 폴더 규칙을 어기는 곳을 모두 돌려줍니다."""
    errors = []
    here = area(path)
    rel = path.relative_to(LIB).as_posix()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom):
            target = resolve(path, node)
            if target is None:
                if node.level == 0 and (here in NO_DRAWING or rel in NO_DRAWING_MODULES):
                    if (node.module or "").split(".")[0] in DRAWING:
                        errors.append(f"{rel}: 그림 라이브러리 {node.module} 을(를) import합니다")
                continue
            parts = tuple(target.split("/"))
            there = _area_of(parts) if len(parts) > 1 or parts[0] != "attn_course" else "course"
            if there == "course" and len(parts) == 2 and parts[1] in ALLOWED:
                there = parts[1]
            if there not in ALLOWED[here]:
                errors.append(f"{rel}: {here} 가 {there} ({target}) 를 import합니다 (허용: {sorted(ALLOWED[here])})")
            elif here == "core" and there == "core" and len(parts) > 1 and parts[1] in CORE_LAYERS \
                    and CORE_LAYERS[parts[1]] >= CORE_LAYERS[path.stem]:
                errors.append(f"{rel}: 핵심 안에서 같은 층이나 위층 {target} 을(를) import합니다")
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if (here in NO_DRAWING or rel in NO_DRAWING_MODULES) and alias.name.split(".")[0] in DRAWING:
                    errors.append(f"{rel}: 그림 라이브러리 {alias.name} 을(를) import합니다")
                root = alias.name.split(".")[0]
                if root in (*_PACKAGE_AREA, "attn_course"):
                    there = _area_of(tuple(alias.name.split("."))) or "course"
                    if there not in ALLOWED[here]:
                        errors.append(f"{rel}: {here} 가 {there} ({alias.name}) 를 import합니다")
    return errors


def test_every_library_module_is_in_a_known_place():
    for path in LIB_FILES:
        assert area(path) in ALLOWED, f"{path}: 알려진 곳(핵심, attn_course 의 폴더, 하네스, 채점)이 아닙니다"
        if area(path) == "core" and path.name != "__init__.py":
            assert path.stem in CORE_LAYERS, f"{path.name}: 핵심 모듈 목록(CORE_LAYERS)에 없습니다"


@pytest.mark.parametrize("path", [p for p in LIB_FILES if p.name != "__init__.py"],
                         ids=lambda p: p.relative_to(LIB).as_posix())
def test_imports_flow_one_way_between_folders(path):
    errors = layer_errors(path, path.read_text(encoding="utf-8"))
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("where, source", [
    ("attn_lib/attention.py", "from attn_course.viz.figures import PALETTE\n"),  # 핵심 -> 강좌
    ("attn_lib/masks.py", "from .attention import scaled_dot_product_attention\n"),  # 핵심 안 같은 층
    ("attn_lib/rope.py", "from .kv_cache import KVCache\n"),  # 핵심 안 위층
    ("attn_lib/blockwise.py", "from .rope import apply_rope\n"),  # 핵심 안 같은 층
    ("attn_course/viz/plots.py", "from ..explorer.model import ExplorerModel\n"),  # viz -> explorer
    ("attn_course/viz/plots.py", "from ..experiments.toy import ToyConfig\n"),  # viz -> experiments
    ("attn_course/explorer/live.py", "from ..practice import check_attention\n"),  # explorer -> practice
    ("attn_course/experiments/toy.py", "from ..viz import plot_curves\n"),  # experiments -> viz
    ("attn_course/experiments/toy.py", "import matplotlib.pyplot as plt\n"),  # 실험이 그림 라이브러리를
    ("attn_course/explorer/model.py", "from IPython.display import display\n"),
    ("attn_course/experiments/toy.py", "from attn_course.explorer import AttentionExplorer\n"),  # 절대 경로도 잡음
    ("attn_harness/harness.py", "from attn_grader.registry import CHECKERS\n"),  # 샌드박스 쪽 -> 판정 쪽
    ("attn_course/practice/selfcheck.py", "import attn_grader.judge\n"),  # 강좌 -> 채점
])
def test_layer_check_rejects_a_back_arrow(where, source):
    assert layer_errors(LIB / where, source), f"{where}: {source.strip()!r} 를 잡지 못했습니다"


def test_layer_check_accepts_the_allowed_directions():
    for where, source in [("attn_course/viz/plots.py", "from attn_lib.metrics import saturation\n"),
                          ("attn_course/explorer/live.py", "from ..viz.plots import plot_head_heatmaps\n"),
                          ("attn_course/practice/compare.py", "from ..explorer.model import ExplorerModel\n"),
                          ("attn_course/experiments/sweep.py", "from .training import train_with_history\n"),
                          ("attn_grader/judge.py", "from attn_course.practice.codec import decode\n")]:
        assert layer_errors(LIB / where, source) == [], source


MAX_LINES = 400  # 목표는 약 300줄, 이것은 넘으면 안 되는 한계


@pytest.mark.parametrize("path", LIB_FILES, ids=lambda p: p.relative_to(LIB).as_posix())
def test_no_module_is_longer_than_the_hard_limit(path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{path.relative_to(LIB)}: {n}줄 (한계 {MAX_LINES}줄; 일을 나눠 모듈을 쪼개세요)"


HIDERS = re.compile(r"filterwarnings|simplefilter\(\s*[\"']ignore|warnings\.catch_warnings\(\s*\)\s*:?\s*$")


def test_no_global_warning_filters_in_library_chapters_or_config():
    offenders = []
    for path in LIB_FILES:
        if "filterwarnings" in path.read_text(encoding="utf-8") or "simplefilter" in path.read_text(encoding="utf-8"):
            offenders.append(str(path))
    for nb in ROOT.glob("chapters/**/*.ipynb"):
        for cell in json.loads(nb.read_text(encoding="utf-8"))["cells"]:
            src = "".join(cell["source"])
            if cell["cell_type"] == "code" and ("filterwarnings" in src or "simplefilter" in src):
                offenders.append(str(nb))
    for cfg in [ROOT / "_config.yml", ROOT / "pyproject.toml", ROOT / "tests" / "conftest.py"]:
        if cfg.exists() and "filterwarnings" in cfg.read_text(encoding="utf-8"):
            offenders.append(str(cfg))
    assert not offenders, f"경고를 숨기는 설정: {offenders}"
