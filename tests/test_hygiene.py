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

import attn_lib

ROOT = Path(__file__).resolve().parents[1]
LIB = ROOT / "attn_lib"
HANGUL = re.compile(r"[가-힣]")
LIB_FILES = sorted(p for p in LIB.rglob("*.py") if "__pycache__" not in p.parts)


def public_callables():
    for name in attn_lib.__all__:
        obj = getattr(attn_lib, name)
        if inspect.isclass(obj):
            yield name, obj
            base_names = set(dir(obj.__mro__[1])) if len(obj.__mro__) > 2 else set()
            for meth_name in vars(obj):
                if not meth_name.startswith("_") and meth_name not in base_names and callable(getattr(obj, meth_name)):
                    yield f"{name}.{meth_name}", getattr(obj, meth_name)
            if hasattr(obj, "forward"):
                yield f"{name}.forward", obj.forward
        elif callable(obj):
            yield name, obj


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


# 폴더 층: 핵심(attention, masks, metrics, kv_cache, rope, blockwise, _checks)은 어떤 폴더도 import하지 않고,
# 폴더끼리는 아래 규칙으로만 import합니다 (attn_lib/__init__.py 의 설명과 같음). 핵심 안에서도 순서가 있습니다:
# 같은 층이나 위층은 import하지 않습니다 (kv_cache -> masks, attention -> kv_cache·rope).
CORE_LAYERS = {"_checks": 0, "masks": 1, "rope": 1, "blockwise": 1, "kv_cache": 2, "attention": 3, "metrics": 3}
ALLOWED = {  # 어디서 -> 어디로 import해도 되는가 ("core" = 핵심 모듈)
    "core": {"core"},
    "viz": {"core", "viz"},
    "explorer": {"core", "viz", "explorer"},
    "experiments": {"core", "experiments"},
    "exercises": {"core", "viz", "explorer", "exercises"},
}
#: matplotlib, seaborn, ipywidgets, IPython 을 import하면 안 되는 곳: 수학과 실험 (그림은 viz 와 explorer 의 보기만)
NO_DRAWING = {"core", "experiments"}
NO_DRAWING_MODULES = {"explorer/model.py"}
DRAWING = {"matplotlib", "seaborn", "ipywidgets", "IPython"}


def area(path: Path) -> str:
    """모듈 파일이 속한 곳: 'core' 또는 하위 폴더 이름."""
    rel = path.relative_to(LIB)
    return "core" if len(rel.parts) == 1 else rel.parts[0]


def resolve(path: Path, node: ast.ImportFrom) -> str | None:
    """상대 import 가 가리키는 attn_lib 안의 모듈 경로 ('masks', 'viz/figures', 'viz' 같은)."""
    if node.level == 0:
        mod = node.module or ""
        return mod.split(".", 1)[1].replace(".", "/") if mod.startswith("attn_lib.") else None
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
            there = "core" if "/" not in target and target in CORE_LAYERS else target.split("/")[0]
            if there not in ALLOWED[here]:
                errors.append(f"{rel}: {here} 가 {there} ({target}) 를 import합니다 (허용: {sorted(ALLOWED[here])})")
            elif here == "core" and there == "core" and CORE_LAYERS[target] >= CORE_LAYERS[path.stem]:
                errors.append(f"{rel}: 핵심 안에서 같은 층이나 위층 {target} 을(를) import합니다")
        elif isinstance(node, ast.Import) and (here in NO_DRAWING or rel in NO_DRAWING_MODULES):
            for alias in node.names:
                if alias.name.split(".")[0] in DRAWING:
                    errors.append(f"{rel}: 그림 라이브러리 {alias.name} 을(를) import합니다")
    return errors


def test_every_library_module_is_in_a_known_place():
    for path in LIB_FILES:
        if path == LIB / "__init__.py":
            continue
        assert area(path) in ALLOWED, f"{path}: 알려진 폴더(viz, explorer, experiments, exercises)나 핵심이 아닙니다"
        if area(path) == "core":
            assert path.stem in CORE_LAYERS, f"{path.name}: 핵심 모듈 목록(CORE_LAYERS)에 없습니다"


@pytest.mark.parametrize("path", [p for p in LIB_FILES if p != LIB / "__init__.py"],
                         ids=lambda p: p.relative_to(LIB).as_posix())
def test_imports_flow_one_way_between_folders(path):
    errors = layer_errors(path, path.read_text(encoding="utf-8"))
    assert not errors, "\n".join(errors)


@pytest.mark.parametrize("where, source", [
    ("attention.py", "from .viz.figures import PALETTE\n"),  # 핵심 -> viz
    ("masks.py", "from .attention import scaled_dot_product_attention\n"),  # 핵심 안 같은 층
    ("rope.py", "from .kv_cache import KVCache\n"),  # 핵심 안 위층
    ("blockwise.py", "from .rope import apply_rope\n"),  # 핵심 안 같은 층
    ("viz/plots.py", "from ..explorer.model import ExplorerModel\n"),  # viz -> explorer
    ("viz/plots.py", "from ..experiments.toy import ToyConfig\n"),  # viz -> experiments
    ("explorer/live.py", "from ..exercises import check_attention\n"),  # explorer -> exercises
    ("experiments/toy.py", "from ..viz import plot_curves\n"),  # experiments -> viz
    ("experiments/toy.py", "import matplotlib.pyplot as plt\n"),  # 실험이 그림 라이브러리를
    ("explorer/model.py", "from IPython.display import display\n"),
    ("experiments/toy.py", "from attn_lib.explorer import AttentionExplorer\n"),  # 절대 경로도 잡음
])
def test_layer_check_rejects_a_back_arrow(where, source):
    assert layer_errors(LIB / where, source), f"{where}: {source.strip()!r} 를 잡지 못했습니다"


def test_layer_check_accepts_the_allowed_directions():
    for where, source in [("viz/plots.py", "from ..metrics import saturation\n"),
                          ("explorer/live.py", "from ..viz.plots import plot_head_heatmaps\n"),
                          ("exercises/checkers.py", "from ..explorer.model import ExplorerModel\n"),
                          ("experiments/sweep.py", "from .training import train_with_history\n")]:
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
