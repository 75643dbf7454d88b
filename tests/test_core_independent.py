"""핵심은 심화에 기대지 않는다 (이슈 26): 심화 셀을 건너뛴 학생도 핵심의 코드 셀을 모두 실행할 수 있어야 합니다.

장의 심화 절은 제목에 '심화'가 든 절이고, 같은 수준이나 더 높은 수준의 다음 제목까지 이어집니다
(``attn_site/reading_time.py`` 와 같은 규칙). 이 테스트는 노트북을 실행하지 않고 코드를 읽어(``ast``) 확인합니다.

- 핵심 코드 셀이 읽는 이름(변수, 함수, 클래스, import한 이름) 가운데, 그보다 앞의 핵심 셀이나 그 셀 자신은
  정의하지 않고 심화 셀만 정의하는 이름이 있으면 실패합니다. 실패 메시지는 장, 셀 번호, 이름, 그 이름을 정의한
  심화 셀을 적습니다.
- 심화 셀에서만 정의되는 이름만 보므로, 라이브러리나 빌트인의 이름은 걸리지 않습니다.

고치는 법: 그 이름을 정의하는 줄을 핵심 셀로 옮기거나, 핵심 셀에서 그 이름을 쓰지 않게 바꿉니다.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest

from conftest import ROOT

DEEP_WORD = "심화"
_HEADING = re.compile(r"^(#{1,6})\s+(.*)$")
_FENCE = re.compile(r"^(`{3,}|~{3,})")
CHAPTERS = sorted((ROOT / "chapters").glob("[0-9][0-9]_*.ipynb"))


def _source(cell: dict) -> str:
    src = cell.get("source", "")
    return "".join(src) if isinstance(src, list) else src


def cells_with_depth(nb: dict) -> list[tuple[int, dict, bool]]:
    """``(셀 번호, 셀, 심화인가)`` 목록. 마크다운 셀은 셀 안의 제목마다 심화 여부를 바꿉니다.

    코드 셀은 그 앞의 마지막 제목이 정한 상태를 따릅니다. 마크다운 셀은 셀의 첫 제목이 정한 상태를 따릅니다
    (제목이 없으면 앞 셀에서 이어진 상태).
    """
    out: list[tuple[int, dict, bool]] = []
    deep_level: int | None = None
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] != "markdown":
            out.append((i, cell, deep_level is not None))
            continue
        deep_of_cell: bool | None = None
        fence: str | None = None
        for line in _source(cell).split("\n"):
            f = _FENCE.match(line)
            if f:
                mark = f.group(1)
                if fence is None:
                    fence = mark
                elif mark[0] == fence[0] and len(mark) >= len(fence) and not line[len(mark):].strip():
                    fence = None
                continue
            if fence is not None:
                continue
            m = _HEADING.match(line)
            if m:
                level, title = len(m.group(1)), m.group(2)
                if deep_level is not None and level <= deep_level:
                    deep_level = None
                if deep_level is None and DEEP_WORD in title:
                    deep_level = level
                if deep_of_cell is None:
                    deep_of_cell = deep_level is not None
        out.append((i, cell, deep_level is not None if deep_of_cell is None else deep_of_cell))
    return out


def _code(cell: dict) -> str:
    # IPython 매직과 셸 줄(%, !)은 파이썬 문법이 아니므로 빈 줄로 바꿉니다
    return "\n".join("" if line.lstrip().startswith(("%", "!")) else line for line in _source(cell).split("\n"))


class _Names(ast.NodeVisitor):
    """한 셀이 모듈 수준에서 정의하는 이름과, 셀 어디서든 읽는 이름."""

    def __init__(self) -> None:
        self.defined: set[str] = set()
        self.loaded: set[str] = set()
        self.local: set[str] = set()  # 함수·람다·컴프리헨션 안에서만 묶이는 이름 (읽어도 전역이 아님)
        self._depth = 0

    def _bind(self, name: str) -> None:
        (self.defined if self._depth == 0 else self.local).add(name)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self.loaded.add(node.id)
        else:
            self._bind(node.id)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._bind((alias.asname or alias.name).split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name != "*":
                self._bind(alias.asname or alias.name)

    def _scope(self, node: ast.AST, name: str | None, args: ast.arguments | None) -> None:
        if name is not None:
            self._bind(name)
        for d in getattr(node, "decorator_list", []):
            self.visit(d)
        self._depth += 1
        if args is not None:
            for a in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
                if a is not None:
                    self.local.add(a.arg)
            for default in [*args.defaults, *args.kw_defaults]:
                if default is not None:
                    self.visit(default)
        body = node.body if isinstance(node.body, list) else [node.body]
        for stmt in body:
            self.visit(stmt)
        self._depth -= 1

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._scope(node, node.name, node.args)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        for base in node.bases:
            self.visit(base)
        self._scope(node, node.name, None)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        self._scope(node, None, node.args)

    def _comprehension(self, node: ast.AST) -> None:
        self._depth += 1
        for gen in node.generators:
            self.visit(gen)
        for field in ("elt", "key", "value"):
            if getattr(node, field, None) is not None:
                self.visit(getattr(node, field))
        self._depth -= 1

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self._bind(node.name)
        self.generic_visit(node)


def cell_names(code: str) -> tuple[set[str], set[str]]:
    """``(정의하는 이름, 전역으로 읽는 이름)``."""
    visitor = _Names()
    visitor.visit(ast.parse(code))
    return visitor.defined, visitor.loaded - visitor.local - visitor.defined


def core_uses_of_deep_names(nb: dict) -> list[str]:
    """핵심 코드 셀이 심화 셀에서만 정의된 이름을 읽는 곳들 (비어 있어야 함)."""
    deep_defs: dict[str, list[int]] = {}
    parsed: list[tuple[int, bool, set[str], set[str]]] = []
    for i, cell, deep in cells_with_depth(nb):
        if cell["cell_type"] != "code":
            continue
        defined, loaded = cell_names(_code(cell))
        parsed.append((i, deep, defined, loaded))
        if deep:
            for name in defined:
                deep_defs.setdefault(name, []).append(i)
    problems: list[str] = []
    core_defined: set[str] = set()
    for i, deep, defined, loaded in parsed:
        if deep:
            continue
        for name in sorted(loaded - core_defined):
            if name in deep_defs:
                problems.append(f"핵심 셀 {i}이(가) 심화 셀 {deep_defs[name]}에서만 정의한 `{name}`을(를) 씁니다")
        core_defined |= defined
    return problems


@pytest.mark.parametrize("path", CHAPTERS, ids=lambda p: p.stem)
def test_core_cells_do_not_use_names_defined_only_in_deep_sections(path: Path):
    nb = json.loads(path.read_text(encoding="utf-8"))
    problems = core_uses_of_deep_names(nb)
    assert not problems, f"{path.relative_to(ROOT)}: 심화 셀을 건너뛰면 핵심 셀이 실행되지 않습니다.\n" + "\n".join(problems)


def _nb(*cells: tuple[str, str]) -> dict:
    return {"cells": [{"cell_type": kind, "source": src, "metadata": {}} for kind, src in cells]}


def test_the_check_finds_a_core_cell_that_needs_a_deep_cell():
    nb = _nb(
        ("markdown", "# 장\n\n## 핵심 절"),
        ("code", "import torch\nx = torch.zeros(3)"),
        ("markdown", "## 심화: 더 읽을거리\n\n### 작은 절"),
        ("code", "y = x + 1\ndef helper(a):\n    return a * 2"),
        ("markdown", "```python\n## 심화 (코드 펜스 안의 줄은 제목이 아님)\n```"),
        ("code", "z = helper(x)  # 아직 심화 안"),
        ("markdown", "## 다시 핵심"),
        ("code", "print(y, [t for t in range(3)], (lambda q: q)(1))"),
        ("code", "w = helper(2)"),
        ("code", "y = 5\nprint(y)"),
    )
    problems = core_uses_of_deep_names(nb)
    assert problems == [
        "핵심 셀 7이(가) 심화 셀 [3]에서만 정의한 `y`을(를) 씁니다",
        "핵심 셀 8이(가) 심화 셀 [3]에서만 정의한 `helper`을(를) 씁니다",
    ]
    # 셀 5는 심화 안(### 작은 절까지 이어짐), 셀 9는 y를 스스로 정의하므로 걸리지 않습니다
    assert [deep for _, _, deep in cells_with_depth(nb)] == [False, False, True, True, True, True, False, False, False, False]
