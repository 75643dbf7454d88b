"""자리표시자 글: "…할 예정입니다", TODO/FIXME 같은 글은 책에 들어가면 안 됩니다.

빌드는 ``attn_site/placeholder_check.py`` 가 막고(경고 -> ``-W`` 실패), 여기서는 그 검사기 자체와
원본(마크다운 셀, .md 페이지)을 빠르게 확인합니다.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from attn_site import placeholder_check
from conftest import read_toc_docnames

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("text", [
    "대화형 탐색기가 뒤의 작업에서 이 자리에 들어올 예정입니다.",
    "TODO: 그림 넣기", "이 절은 FIXME", "그림은 나중에 추가합니다.", "값은 TBD",
])
def test_detector_flags_placeholders(text):
    assert placeholder_check.find_placeholders(text), text


@pytest.mark.parametrize("text", ["토큰(token)을 셉니다.", "TODOS가 아닌 todolist", "예정된 일정", "PyTorch 2.13"])
def test_detector_ignores_ordinary_text(text):
    assert placeholder_check.find_placeholders(text) == [], text


def test_extension_is_enabled_in_the_build():
    config = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
    assert "attn_site.placeholder_check" in config["sphinx"]["extra_extensions"]


def test_no_page_source_has_placeholder_text():
    hits = []
    for doc in read_toc_docnames():
        md, nb = ROOT / f"{doc}.md", ROOT / f"{doc}.ipynb"
        if md.is_file():
            texts = [md.read_text(encoding="utf-8")]
        else:
            cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
            texts = ["".join(c["source"]) for c in cells if c["cell_type"] == "markdown"]
        hits += [f"{doc}: {hit}" for text in texts for hit in placeholder_check.find_placeholders(text)]
    assert not hits, hits
