"""채점 과제의 풀이가 책에 (이름만 바꿔) 실려 있지 않은지 **코드로** 비교합니다.

책이 라이브러리의 소스를 보여 주는 것은 그대로 두고, 문제가 그것을 베끼지 않게 합니다. 비교하는 책의 코드:

- 장(``chapters/*.ipynb``, 연습 페이지 포함)의 코드 셀과 마크다운 안의 ```python 블록,
- 장이 ``inspect.getsource(...)``로 출력하는 attn_lib 함수의 소스,
- 치트시트와 부록(``chapters/appendix/*.md``), ``intro.md``의 ```python 블록과 ``literalinclude``(``:pyobject:``)가
  싣는 attn_lib 함수 전체 (일부 줄만 싣는 경우도 함수 전체로 봅니다: 더 엄격한 쪽).

비교 방법: 코드를 AST로 바꾸고, 문장마다 이름(변수, 인자, 함수 이름)을 나타난 순서대로 ``_0, _1, ...``로 바꿉니다
(속성 이름, 키워드 인자 이름, 상수는 그대로). ``return e``, ``x = e``, 식 문장 ``e``는 값 ``e``로 견줍니다. 주석과
독스트링, import는 뺍니다. 풀이 한 덩어리(함수 본문 하나, 또는 셀의 맨 위 문장들)의 문장 열과 책의 문장 블록(셀, 함수
본문, if/for 본문 …) 하나의 문장 열 사이에서 가장 긴 공통 부분 열(순서는 지키고 사이는 건너뛰어도 됨)을 찾아,
풀이 AST 노드의 절반 이상이 한 블록에서 나오면 "책에 실린 풀이"로 봅니다(노드 8개 미만인 아주 짧은 덩어리는 비교하지
않음). 어텐션의 한 단계(점수, 소프트맥스 같은 줄)가 책에 있는 것은 괜찮고, 풀이 전체가 있으면 안 된다는 기준입니다.
"""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MASTER = ROOT / "assignments" / "attention_hw.ipynb"
SHARE = 0.5  # 풀이 노드 가운데 한 블록에서 나온 몫이 이 이상이면 베낀 것
MIN_NODES = 8  # 이보다 작은 풀이 덩어리는 비교하지 않음 (예: return embed_dim // num_heads)
_SKIP_NODES = (ast.expr_context, ast.operator, ast.unaryop, ast.cmpop, ast.boolop)


# ---- AST 정규화 --------------------------------------------------------------------------------

class _Rename(ast.NodeTransformer):
    """이름을 나타난 순서대로 _0, _1, ...로 (속성·키워드 이름과 상수는 그대로)."""

    def __init__(self) -> None:
        self.names: dict[str, str] = {}

    def _new(self, name: str) -> str:
        return self.names.setdefault(name, f"_{len(self.names)}")

    def visit_Name(self, node: ast.Name) -> ast.AST:
        return ast.copy_location(ast.Name(id=self._new(node.id), ctx=ast.Load()), node)

    def visit_arg(self, node: ast.arg) -> ast.AST:
        return ast.arg(arg=self._new(node.arg), annotation=None)

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.name = self._new(node.name)
        node.returns, node.decorator_list = None, []
        return self.generic_visit(node)


def _strip(body: list[ast.stmt]) -> list[ast.stmt]:
    """독스트링, import, pass, ``...``을 뺍니다."""
    out = []
    for i, s in enumerate(body):
        if isinstance(s, (ast.Import, ast.ImportFrom, ast.Pass)):
            continue
        if isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant) and (i == 0 or s.value.value is Ellipsis):
            continue
        out.append(s)
    return out


def _value(stmt: ast.stmt) -> ast.AST:
    if isinstance(stmt, (ast.Return, ast.Expr)) and stmt.value is not None:
        return stmt.value
    if isinstance(stmt, ast.Assign):
        return stmt.value
    return stmt


def key(stmt: ast.stmt) -> str:
    """문장 하나의 정규형 (이름을 문장 안에서 순서대로 바꾼 AST dump)."""
    node = copy.deepcopy(_value(stmt))
    if isinstance(node, ast.stmt) and hasattr(node, "body"):  # 복합문은 안의 독스트링·import도 뺌
        for field in ("body", "orelse", "finalbody"):
            if isinstance(getattr(node, field, None), list):
                setattr(node, field, _strip(getattr(node, field)))
    return ast.dump(_Rename().visit(node), annotate_fields=False)


def size(stmt: ast.stmt) -> int:
    return sum(1 for n in ast.walk(_value(stmt)) if not isinstance(n, _SKIP_NODES))


def blocks(tree: ast.AST) -> list[list[ast.stmt]]:
    """모든 문장 블록: 모듈 본문, 함수·클래스 본문, if/for/while/with/try 본문."""
    found = []
    for node in ast.walk(tree):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(node, field, None)
            if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
                stripped = _strip(body)
                if stripped:
                    found.append(stripped)
    return found


# ---- 책의 코드 ---------------------------------------------------------------------------------

def _parse(source: str) -> ast.AST | None:
    lines = [line for line in source.splitlines() if not line.lstrip().startswith(("%", "!"))]
    try:
        return ast.parse("\n".join(lines))
    except SyntaxError:
        return None


FENCE = re.compile(r"^(`{3,})python\s*\n(.*?)^\1\s*$", re.M | re.S)
LITERALINCLUDE = re.compile(r"```\{literalinclude\}\s+(\S+)\s*\n(.*?)```", re.S)


def _imported_names(trees: list[ast.AST]) -> dict[str, str]:
    names = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("attn_lib"):
                for alias in node.names:
                    names[alias.asname or alias.name] = f"{node.module}:{alias.name}"
    return names


def _resolve(expr: ast.AST, names: dict[str, str]) -> object | None:
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.insert(0, expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name) or expr.id not in names:
        return None
    module, attr = names[expr.id].split(":")
    obj = getattr(importlib.import_module(module), attr)
    for part in parts:
        obj = getattr(obj, part)
    return obj


def _pyobject_source(path: Path, qualname: str) -> str:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    scope: list[ast.stmt] = tree.body
    node = None
    for part in qualname.split("."):
        node = next(n for n in scope if isinstance(n, (ast.FunctionDef, ast.ClassDef)) and n.name == part)
        scope = node.body
    return ast.get_source_segment(path.read_text(encoding="utf-8"), node)


@dataclass
class BookCode:
    where: str
    tree: ast.AST


def book_code() -> list[BookCode]:
    """책의 코드 전부 (장의 코드 셀과 코드 블록, 출력하는 라이브러리 소스, 부록의 코드 블록과 literalinclude)."""
    found: list[BookCode] = []
    unparsed = []
    for nb_path in sorted((ROOT / "chapters").glob("*.ipynb")):
        cells = json.loads(nb_path.read_text(encoding="utf-8"))["cells"]
        trees = []
        for i, cell in enumerate(cells):
            src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
            sources = [src] if cell["cell_type"] == "code" else [m.group(2) for m in FENCE.finditer(src)]
            for s in sources:
                tree = _parse(s)
                if tree is None:
                    unparsed.append(f"{nb_path.name} 셀 {i}")
                    continue
                trees.append(tree)
                found.append(BookCode(f"{nb_path.name} 셀 {i}", tree))
        names = _imported_names(trees)
        for tree in trees:
            for node in ast.walk(tree):
                if isinstance(node, ast.Call) and ast.unparse(node.func) == "inspect.getsource" and node.args:
                    obj = _resolve(node.args[0], names)
                    if obj is not None:
                        found.append(BookCode(f"{nb_path.name}: getsource({ast.unparse(node.args[0])})",
                                              ast.parse(inspect.cleandoc("\n" + inspect.getsource(obj)))))
    for md in [ROOT / "intro.md", *sorted((ROOT / "chapters").rglob("*.md"))]:
        text = md.read_text(encoding="utf-8")
        for m in FENCE.finditer(text):
            tree = _parse(m.group(2))
            if tree is None:
                unparsed.append(md.name)
                continue
            found.append(BookCode(f"{md.relative_to(ROOT)} 코드 블록", tree))
        for m in LITERALINCLUDE.finditer(text):
            obj = re.search(r":pyobject:\s*(\S+)", m.group(2))
            path = (md.parent / m.group(1)).resolve()
            source = _pyobject_source(path, obj.group(1)) if obj else path.read_text(encoding="utf-8")
            found.append(BookCode(f"{md.relative_to(ROOT)}: literalinclude {obj.group(1) if obj else path.name}",
                                  ast.parse(inspect.cleandoc("\n" + source))))
    assert not unparsed, f"파싱하지 못한 책의 코드: {unparsed}"
    return found


# ---- 풀이 ---------------------------------------------------------------------------------------

def _is_literal(stmt: ast.stmt) -> bool:
    """값을 묻는 문제의 답(함수 호출 없이 상수와 이름만으로 된 대입)은 코드가 아니므로 비교하지 않습니다."""
    return isinstance(stmt, ast.Assign) and not any(isinstance(n, ast.Call) for n in ast.walk(stmt.value))


def solution_units(master: Path = MASTER) -> dict[str, list[ast.stmt]]:
    """마스터 노트북의 풀이 셀에서 덩어리를 모읍니다: 함수 본문마다 하나, 셀의 맨 위 문장들 하나."""
    import sys

    import nbformat

    from attn_grader.master import render  # 연습판의 값으로 채운 마스터 ({{이름}} 자리표시를 바꿈)

    nb = json.loads(nbformat.writes(render(nbformat.read(master, as_version=4), None, master.stem).nb))
    units: dict[str, list[ast.stmt]] = {}
    question, in_solution = None, False
    for cell in nb["cells"]:
        src = "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]
        if cell["cell_type"] == "raw":
            m = re.search(r"name:\s*(\w+)", src)
            question = m.group(1) if src.startswith("# BEGIN QUESTION") and m else question
            in_solution = {"# BEGIN SOLUTION": True, "# END SOLUTION": False}.get(src.strip(), in_solution)
            continue
        if cell["cell_type"] != "code" or not in_solution:
            continue
        tree = ast.parse(src)
        top = [s for s in _strip(tree.body) if not isinstance(s, ast.FunctionDef) and not _is_literal(s)]
        if top:
            units[f"{question}: 맨 위 문장"] = top
        for node in tree.body:
            if isinstance(node, ast.FunctionDef):
                units[f"{question}: {node.name}"] = _strip(node.body)
    return units


def _lcs(a: list[str], b: list[str]) -> list[int]:
    """a와 b의 가장 긴 공통 부분 열에 든 a의 위치들."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) - 1, -1, -1):
        for j in range(len(b) - 1, -1, -1):
            table[i][j] = table[i + 1][j + 1] + 1 if a[i] == b[j] else max(table[i + 1][j], table[i][j + 1])
    picked, i, j = [], 0, 0
    while i < len(a) and j < len(b):
        if a[i] == b[j]:
            picked.append(i)
            i, j = i + 1, j + 1
        elif table[i + 1][j] >= table[i][j + 1]:
            i += 1
        else:
            j += 1
    return picked


def book_blocks(book: list[BookCode]) -> list[tuple[str, list[str]]]:
    """책의 문장 블록마다 (어디, 정규형 목록)."""
    return [(code.where, [key(s) for s in block]) for code in book for block in blocks(code.tree)]


def printed_in_book(unit: list[ast.stmt], book: list[tuple[str, list[str]]]) -> tuple[float, str] | None:
    """풀이 덩어리가 책의 한 블록에 실려 있으면 (몫, 어디)를, 아니면 None."""
    total = sum(size(s) for s in unit)
    if total < MIN_NODES:
        return None
    keys = [key(s) for s in unit]
    wanted = set(keys)
    best = (0.0, "")
    for where, block in book:
        if wanted.isdisjoint(block):
            continue
        covered = sum(size(unit[i]) for i in _lcs(keys, block))
        best = max(best, (covered / total, where))
    return best if best[0] >= SHARE else None


@pytest.fixture(scope="module")
def book() -> list[BookCode]:
    return book_code()


@pytest.fixture(scope="module")
def book_keys(book) -> list[tuple[str, list[str]]]:
    return book_blocks(book)


def test_book_code_is_collected_from_every_source(book):
    wheres = " ".join(c.where for c in book)
    for needle in ("02_multi_head.ipynb: getsource(MultiHeadAttention.merge_heads)", "07_kv_cache_gqa.ipynb: getsource(repeat_kv)",
                   "cheatsheet.md: literalinclude softmax_or_zero", "cheatsheet.md 코드 블록", "11_practice.ipynb 셀"):
        assert needle in wheres, f"책의 코드에 {needle!r}이(가) 없습니다"


def test_no_graded_solution_is_printed_in_the_book(book_keys):
    units = solution_units()
    assert len({name.split(":")[0] for name in units}) >= 10, "풀이 덩어리를 너무 적게 찾았습니다 (검사가 헛돌지 않는지)"
    copies = {name: hit for name, unit in units.items() if (hit := printed_in_book(unit, book_keys))}
    assert not copies, "책에 실린 풀이: " + "; ".join(f"{n} ({share:.0%}, {where})" for n, (share, where) in copies.items())


# 이 검사가 헛돌지 않는다는 증거: 예전 과제의 풀이 가운데 책에 실려 있던 것들 (issue 15가 찾은 사본)
OLD_COPIES = {
    "merge_heads (2장과 치트시트의 merge_heads)": '''
def merge_heads(x):
    B_23, H_23, L_23, Dh_23 = x.shape
    return x.transpose(1, 2).contiguous().view(B_23, L_23, H_23 * Dh_23)
''',
    "attention_weights (6장 '한 단계씩' 셀의 점수와 소프트맥스)": '''
def attention_weights(query, key):
    d_k = query.shape[-1]
    scores_12 = query @ key.transpose(-2, -1) / math.sqrt(d_k)
    return torch.softmax(scores_12, dim=-1)
''',
    "cross_attention (6장의 cross_attn 호출)": '''
def cross_attention(mha, decoder_x, encoder_out, src_lengths):
    mask_52 = padding_mask(src_lengths, encoder_out.shape[1])
    return mha(decoder_x, encoder_out, encoder_out, attn_mask=mask_52)
''',
}


@pytest.mark.parametrize("name", sorted(OLD_COPIES))
def test_the_check_catches_the_copies_the_issue_found(book_keys, name):
    unit = _strip(ast.parse(OLD_COPIES[name]).body[0].body)
    assert printed_in_book(unit, book_keys), f"{name}: 책에 실린 풀이인데 잡지 못했습니다"


def test_renaming_and_layout_do_not_hide_a_copy():
    a = ast.parse("def f(x):\n    B, H, L, D = x.shape\n    return x.transpose(1, 2).contiguous().view(B, L, H * D)").body[0].body
    b = ast.parse("def g(t):\n    '''doc'''\n    import torch\n    n0, n1, n2, n3 = t.shape\n    y = t.transpose(1, 2).contiguous().view(n0, n2, n1 * n3)  # 주석\n").body[0].body
    assert [key(s) for s in _strip(a)] == [key(s) for s in _strip(b)]
    c = ast.parse("x.transpose(1, 2).reshape(B, L, H * D)").body
    assert key(c[0]) != key(_strip(a)[1])
