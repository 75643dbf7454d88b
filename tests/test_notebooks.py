"""챕터 노트북: 출력 없이 저장되었는지, 빌드에서 오류·stderr 없이 실행되었는지 확인합니다.

실행 결과는 `make book`이 남긴 `_build/jupyter_execute/`의 노트북에서 읽습니다
(같은 노트북을 테스트에서 또 실행하지 않도록). 원본과 셀 내용이 같은지도 확인해서
오래된 빌드 결과로 통과하는 일을 막습니다.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from conftest import read_toc_docnames

ROOT = Path(__file__).resolve().parents[1]
EXECUTED = ROOT / "_build" / "jupyter_execute"


TOC_NOTEBOOKS = [f for f in read_toc_docnames() if (ROOT / f"{f}.ipynb").exists()]
ALL_NOTEBOOKS = sorted(p.relative_to(ROOT) for p in ROOT.glob("chapters/**/*.ipynb") if ".ipynb_checkpoints" not in p.parts)


def tags(cell) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def test_there_are_chapter_notebooks_in_the_toc():
    assert "chapters/02_multi_head" in TOC_NOTEBOOKS


@pytest.mark.parametrize("path", ALL_NOTEBOOKS, ids=str)
def test_notebook_is_stored_without_outputs(path):
    nb = nbformat.read(ROOT / path, as_version=4)
    dirty = [i for i, c in enumerate(nb.cells) if c.cell_type == "code" and (c.outputs or c.execution_count is not None)]
    assert not dirty, f"{path}: 출력이 저장된 셀 {dirty} (출력을 지우고 커밋하세요)"


@pytest.mark.site
@pytest.mark.parametrize("name", TOC_NOTEBOOKS)
def test_notebook_executed_in_build_without_errors_or_stderr(name):
    executed_path = EXECUTED / f"{name}.ipynb"
    assert executed_path.exists(), f"{executed_path}가 없습니다: 먼저 `make book`을 실행하세요"
    source = nbformat.read(ROOT / f"{name}.ipynb", as_version=4)
    executed = nbformat.read(executed_path, as_version=4)
    src_code = [c.source for c in source.cells if c.cell_type == "code"]
    exe_code = [c.source for c in executed.cells if c.cell_type == "code"]
    assert src_code == exe_code, f"{name}: 빌드 결과가 원본과 다릅니다 (다시 `make book`)"
    code_cells = [c for c in executed.cells if c.cell_type == "code"]
    # jupyter-cache는 실행 번호를 지우므로, 출력이 실제로 있는지로 실행 여부를 봅니다
    with_output = sum(bool(c.outputs) for c in code_cells)
    assert with_output >= len(code_cells) // 2, f"{name}: 출력이 있는 코드 셀이 {with_output}/{len(code_cells)}개뿐입니다"
    for i, cell in enumerate(code_cells):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        stderr = [o for o in cell.outputs if o.output_type == "stream" and o.name == "stderr"]
        assert not stderr, f"{name} 코드 셀 {i}: stderr 출력 {[o.text[:200] for o in stderr]}"
        if "raises-exception" in tags(cell):
            assert errors, f"{name} 코드 셀 {i}: raises-exception 태그가 있지만 실제로 예외가 나지 않았습니다"
        else:
            assert not errors, f"{name} 코드 셀 {i}: 예외 {[e.ename + ': ' + e.evalue for e in errors]}"
        text = "".join(o.get("text", "") for o in cell.outputs if o.output_type == "stream")
        assert "Glyph" not in text and "missing from font" not in text
