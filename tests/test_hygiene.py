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
LIB_FILES = sorted(LIB.glob("*.py"))


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


@pytest.mark.parametrize("path", LIB_FILES, ids=lambda p: p.name)
def test_no_bare_assert_in_library(path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    asserts = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Assert)]
    assert not asserts, f"{path.name}: assert 대신 ValueError/TypeError를 쓰세요 (줄 {asserts})"


RESHAPE = re.compile(r"\.(view|reshape|transpose|permute|expand|unsqueeze|flatten)\(|\[\s*:\s*,\s*None|\[\s*None")


@pytest.mark.parametrize("path", LIB_FILES, ids=lambda p: p.name)
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


# 모듈 층: 아래층만 import (widgets -> plots/mask_plots -> figures -> 실험·그림 요약 -> metrics
# -> attention/masks -> _checks). 층 MATH_TOP 이하(수학·실험)는 matplotlib/ipywidgets를 import하지 않습니다.
MATH_TOP = 5
LAYERS = {
    "_checks": 0,
    "attention": 1, "masks": 1,
    "metrics": 2,
    "toy": 3, "seq2seq": 3, "scaling": 3, "exercises": 3, "explorer_model": 3,  # 작은 실험과 채점기
    "describe": 3,  # 그림 요약(대체 텍스트): 데이터 -> 한국어 글, matplotlib 없음
    "head_training": 4,  # toy 과제의 학습 (학습 중 기록 포함)
    "head_sweep": 5,  # 헤드 수 x 학습률 x 시드 스윕 (프로세스 여러 개)
    "figures": 6,  # 한글 글꼴, 공통 색, 대체 텍스트 장치, 그림 입력 도우미 (그림 함수 없음)
    "static_explorer": 6,  # 커널 없는 탐색기 HTML: explorer_model과 describe만 씀
    "plots": 7, "mask_plots": 7,  # 그림 함수: figures만 함께 쓰고 서로는 import하지 않음
    "sweep_plots": 7,  # 스윕과 학습 기록 그림 (seaborn)
    "widgets": 8,
}
DRAWING = {"matplotlib", "seaborn", "ipywidgets", "IPython"}


def test_every_library_module_has_a_layer():
    modules = {p.stem for p in LIB_FILES} - {"__init__"}
    assert modules == set(LAYERS), f"LAYERS에 없는 모듈: {sorted(modules - set(LAYERS))}, 없는 파일: {sorted(set(LAYERS) - modules)}"


@pytest.mark.parametrize("module", sorted(LAYERS), ids=str)
def test_imports_flow_one_way_and_math_never_imports_drawing(module):
    tree = ast.parse((LIB / f"{module}.py").read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 1 and node.module:
            target = node.module.split(".")[0]
            assert LAYERS[target] < LAYERS[module], f"{module}이(가) 위층 {target}을(를) import합니다"
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""] if isinstance(node, ast.ImportFrom) and node.level == 0 else []
        if LAYERS[module] <= MATH_TOP:
            for n in names:
                assert n.split(".")[0] not in DRAWING, f"수학 모듈 {module}이(가) {n}을(를) import합니다"


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
