"""장과 과제 노트북의 ``attn_lib`` import 를 패키지 나누기(이슈 35)에 맞춰 고칩니다. 여러 번 돌려도 같은 결과.

    python scripts/rewrite_chapter_imports.py chapters/*.ipynb assignments/*.ipynb

- ``from attn_lib import a, b`` 에서 핵심(``attn_lib.__all__``)이 아닌 이름은 ``from attn_course import ...`` 로.
- ``from attn_lib.explorer.model import``, ``attn_lib.experiments.sinks`` 처럼 옮긴 모듈에서 곧장 가져오던 것은
  공개 이름(``attn_course.__all__``)으로, ``attn_lib.attention``/``attn_lib.rope`` 의 이름은 ``attn_lib`` 에서.
- ``attn_lib.exercises`` 는 ``attn_course.practice`` 로.
- ``attn_course`` 를 처음 쓰는 셀에 ``attn_course.setup()`` (한글 글꼴, 그림의 대체 텍스트)을 한 번 넣습니다.

다른 브랜치에서 만든 장을 합친 뒤에도 다시 돌리면 됩니다.
"""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

import attn_course
import attn_lib

CORE = set(attn_lib.__all__)
COURSE = set(attn_course.__all__)
SETUP = "attn_course.setup()  # 한글 글꼴과 그림의 대체 텍스트"


def _render(module: str, names: list[tuple[str, str | None]], comment: str) -> str:
    items = [n if a is None else f"{n} as {a}" for n, a in names]
    one = f"from {module} import {', '.join(items)}{comment}"
    if len(one) <= 110:
        return one
    body = "".join(f"    {i},\n" for i in items)
    return f"from {module} import (\n{body}){comment}"


def rewrite_source(src: str, *, top_only: bool = False) -> str:
    """셀 하나의 소스를 고칩니다 (import 문만; 나머지 줄은 그대로). ``top_only``면 ``from attn_lib import``만."""
    try:
        tree = ast.parse(src)
    except SyntaxError:
        return src
    lines = src.split("\n")
    edits = []
    for node in tree.body:
        if not isinstance(node, ast.ImportFrom) or not node.module or not node.module.startswith("attn_lib"):
            continue
        if top_only and node.module != "attn_lib":
            continue
        names = [(a.name, a.asname) for a in node.names]
        first, last = node.lineno - 1, node.end_lineno - 1
        tail = lines[last]
        comment = ""
        if "#" in tail and node.end_col_offset is not None and "#" in tail[node.end_col_offset:]:
            comment = "  " + tail[node.end_col_offset:].split("#", 1)[1].join(["#", ""]).strip()
        if node.module == "attn_lib.exercises":
            new = [_render("attn_course.practice", names, comment)]
        else:
            core = [n for n in names if n[0] in CORE]
            course = [n for n in names if n[0] not in CORE]
            unknown = [n for n, _ in course if n not in COURSE]
            if unknown:
                raise SystemExit(f"{node.module} 의 {unknown} 는 attn_lib 에도 attn_course 에도 공개 이름이 아닙니다")
            new = []
            if core:
                new.append(_render("attn_lib", core, comment if not course else ""))
            if course:
                new.append(_render("attn_course", course, comment))
        edits.append((first, last, new))
    for first, last, new in reversed(edits):
        lines[first:last + 1] = "\n".join(new).split("\n")
    return "\n".join(lines)


def rewrite_notebook(path: Path) -> bool:
    nb = json.loads(path.read_text(encoding="utf-8"))
    changed, has_setup = False, any("attn_course.setup()" in "".join(c.get("source", "")) for c in nb["cells"])
    for cell in nb["cells"]:
        if cell.get("cell_type") != "code":
            continue
        src = "".join(cell["source"])
        new = rewrite_source(src)
        if "from attn_course import" in new and not has_setup:
            lines = new.split("\n")
            tree = ast.parse(new)
            end = max(n.end_lineno for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom)))
            first = min(n.lineno for n in tree.body if isinstance(n, ast.ImportFrom) and (n.module or "").startswith("attn_"))
            lines[end:end] = ["", SETUP]
            lines.insert(first - 1, "import attn_course")
            new = "\n".join(lines)
            has_setup = True
        if new != src:
            cell["source"] = new.splitlines(keepends=True)
            changed = True
    if changed:
        path.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return changed


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        if rewrite_notebook(Path(arg)):
            print(f"고침: {arg}")
