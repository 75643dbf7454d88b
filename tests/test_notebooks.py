"""챕터 노트북: 출력 없이 저장되었는지, 빌드에서 오류·stderr 없이 실행되었는지 확인합니다.

실행 결과는 `make book`이 남긴 실행 캐시(`_build/.jupyter_cache`, jupyter-cache)에서 읽습니다
(같은 노트북을 테스트에서 또 실행하지 않도록). 캐시는 코드 셀이 원본과 똑같은 실행 결과만
돌려주므로 오래된 결과로 통과할 수 없습니다. (`_build/jupyter_execute/`의 사본은 캐시에서
꺼낸 경우 출력이 비어 있어서 쓰지 않습니다: myst-nb 1.4의 동작.)
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from conftest import read_toc_docnames
from jupyter_cache import get_cache

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "_build" / ".jupyter_cache"


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


@pytest.mark.parametrize("path", ALL_NOTEBOOKS + sorted(p.relative_to(ROOT) for p in ROOT.glob("assignments/*.ipynb")),
                         ids=str)
def test_notebook_is_stored_in_nbformat_canonical_form(path):
    # 셀 source 는 줄 목록, 들여쓰기 1칸: nbformat.write 가 쓰는 꼴 그대로. 스크립트로 고친 노트북이
    # 문자열 source 로 저장되면 Jupyter 에서 저장할 때나 set_repository_url.py 가 주소를 바꿀 때
    # 다른 줄까지 모두 바뀝니다. 고치기: nbformat.write(nbformat.read(p, 4), p)
    raw = (ROOT / path).read_text(encoding="utf-8")
    canonical = nbformat.writes(nbformat.reads(raw, as_version=4)) + "\n"
    assert raw == canonical, f"{path}: nbformat 이 쓰는 꼴과 다릅니다 (nbformat.write 로 다시 저장하세요)"


@pytest.mark.site
@pytest.mark.parametrize("name", TOC_NOTEBOOKS)
def test_notebook_executed_in_build_without_errors_or_stderr(name):
    assert CACHE.exists(), f"{CACHE}가 없습니다: 먼저 `make book`을 실행하세요"
    source = nbformat.read(ROOT / f"{name}.ipynb", as_version=4)
    try:
        _, executed = get_cache(str(CACHE)).merge_match_into_notebook(source)
    except KeyError:
        pytest.fail(f"{name}: 지금 원본과 맞는 실행 결과가 캐시에 없습니다 (다시 `make book`)")
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
