"""주장은 근거만큼만 (이슈 25): 일반화하는 낱말이 든 문장은 근거를 가리켜야 합니다.

빌드된 사이트(``_build/html``)의 본문 문장 가운데 ``CLAIM_WORDS``의 낱말("모든", "항상", "~뿐", "못한다",
"거의 그대로", "수백" ...)이 든 문장은, 원본에서 문장 바로 뒤에 HTML 주석으로 근거를 적어야 합니다.

- ``<!-- claim: <id> -->``: 같은 노트북에 ``# claim: <id>`` 줄과 ``assert``가 든 코드 셀이 있어야 합니다
  (그 셀이 이 페이지의 숫자로 문장을 확인함). ``torch.testing.assert_close(...)``처럼 ``assert_``로 시작하는 호출도
  assert로 셉니다. ``.md`` 페이지(부록)는 ``<!-- claim: 03_masks/<id> -->``처럼
  노트북 이름을 붙여 다른 장의 확인 셀을 가리킵니다.
- ``<!-- claim: test:tests/test_x.py::test_name -->``: 문장이 책의 계산이 아니라 저장소의 동작(채점기, 빌드)을
  말할 때, 그것을 확인하는 테스트 함수를 가리킵니다. 그 파일에 그 이름의 테스트 함수가 있고 몸에 assert가 있어야
  합니다 (``make test``가 그 테스트를 돌리므로 문장이 틀리면 빌드가 아니라 테스트가 실패합니다).
- ``<!-- claim: range -->``: 문장이 스스로 잰 범위를 적습니다 (예: "학습률 0.003~0.03, 시드 0~2에서"). 문장에
  숫자가 하나 이상 있어야 합니다.

MyST는 이 주석을 페이지에 보이지 않게 그대로 옮기고(HTML 주석), 검색 색인에도 넣지 않습니다. 빌드가 만든
문장(``display(Markdown(...))``)도 같은 주석을 글 안에 넣으면 됩니다. 표, 코드, 코드 출력, 그림(캡션과 탐색기·헤드 탭의
글 요약 포함: 그린 데이터에서 바로 계산한 글)은 주장하는 문장이 아니므로 보지 않습니다. 낱말이 주장이 아니라 정의나 지시(예: "모든 순서쌍의 출력을 만들고")라면 근거를
꾸며 붙이지 말고 문장을 정확하게 바꾸세요 (예: "순서쌍 16개의 출력을 만들고").

실패 메시지는 페이지, 문장, 낱말을 적습니다.
"""

from __future__ import annotations

import ast
import json
import sys
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from bs4 import BeautifulSoup, Comment, NavigableString, Tag

from conftest import HTML_DIR, ROOT, read_toc_docnames

#: 일반화하는 낱말: (보고할 이름, 정규식). 여기에 더하면 모든 페이지에 적용됩니다.
CLAIM_WORDS: list[tuple[str, str]] = [
    ("모든", r"모든"),
    ("모두", r"모두"),
    ("항상", r"항상"),
    ("언제나", r"언제나"),
    ("결코", r"결코"),
    ("반드시", r"반드시"),
    ("절대로", r"절대로"),
    ("~뿐", r"뿐(?!\s*(?:만\s*)?아니라)"),  # "A뿐 아니라 B도"는 한정이 아님
    ("못한다", r"(?<!잘)못(?:\s|하|합|했)"),  # "잘못"은 뺌
    ("수 없다", r"수\s?없"),
    ("거의 그대로", r"거의\s?그대로"),
    ("수백", r"수백"),
    ("수천", r"수천"),
]
_WORD_RES = [(name, re.compile(pattern)) for name, pattern in CLAIM_WORDS]
_QUOTED = re.compile(r'“[^”]*”|"[^"]*"|‘[^’]*’')
MARK = re.compile(r"^\s*claim:\s*(\S+)\s*$")
CELL_MARK = re.compile(r"^\s*#\s*claim:\s*(\S+)\s*$", re.M)
RANGE = "range"
#: 확인 셀이 주장을 확인하는 방법: assert 문이나 assert_로 시작하는 함수(torch.testing.assert_close 등)
ASSERTS = re.compile(r"^\s*assert\b|\bassert_\w+\(", re.M)

#: 아직 이 규칙으로 고치지 않은 페이지와 그 까닭. 고치고 나면 지우세요 (고친 페이지가 여기 남으면 실패합니다).
NOT_YET_CHECKED: dict[str, str] = {
}

# 본문에서 문장으로 보지 않는 것: 코드 셀의 입력, 코드와 출력 텍스트, 표, 그림, 수식 SVG, 위젯, 스크립트
_SKIP_SELECTORS = (
    "div.cell_input", "pre", "div.highlight", "table", "figure", "script", "style", "svg", "nav",
    ".jupyter-widgets", ".widget-subarea", ".output_widget_view", "[class^=attn-explorer]", ".attn-head-tab",
    ".attn-figure-details",
    ".toggle-hidden", ".headerlink",
    "h1", "h2", "h3", "h4", "h5", "h6",
)
_BLOCKS = ("p", "li", "dt", "dd")
# 문장 끝: 한글이나 닫는 괄호·따옴표 뒤의 . ? ! 다음에 빈칸(또는 끝)
_SENTENCE_END = re.compile(r"(?<=[가-힣)\]`'\"”’*])([.?!])(?=\s|$)")


@dataclass
class Sentence:
    text: str
    marks: list[str] = field(default_factory=list)

    def words(self) -> list[str]:
        # 따옴표 안은 말을 인용한 것(“못 한다”는 결론은 나오지 않습니다)이지 주장이 아니므로 보지 않습니다
        used = _QUOTED.sub(" ", self.text)
        return [name for name, pattern in _WORD_RES if pattern.search(used)]


def _block_text(block: Tag) -> str:
    """블록 하나의 글. 근거 주석은 ``⟦claim:id⟧``로 남기고, 안쪽 목록(li의 ul/ol)은 뺍니다."""
    parts: list[str] = []

    def walk(node: Tag) -> None:
        for child in node.children:
            if isinstance(child, Comment):
                m = MARK.match(str(child))
                if m:
                    parts.append(f" ⟦claim:{m.group(1)}⟧ ")
            elif isinstance(child, NavigableString):
                parts.append(str(child))
            elif isinstance(child, Tag):
                if child.name in ("ul", "ol") and block.name == "li":
                    continue
                if child.name in ("svg", "math") or "math" in (child.get("class") or []):
                    parts.append(" 수식 ")
                    continue
                walk(child)

    walk(block)
    return re.sub(r"\s+", " ", "".join(parts)).strip()


def split_sentences(text: str) -> list[Sentence]:
    """글을 문장으로 나누고, 문장 바로 뒤의 근거 표시를 그 문장에 붙입니다."""
    chunks, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        chunks.append(text[start : m.end()])
        start = m.end()
    chunks.append(text[start:])
    sentences: list[Sentence] = []
    for chunk in chunks:
        leading = re.match(r"^(\s*⟦claim:[^⟧]+⟧)+", chunk)
        if leading and sentences:
            sentences[-1].marks += re.findall(r"⟦claim:([^⟧]+)⟧", leading.group())
            chunk = chunk[leading.end():]
        marks = re.findall(r"⟦claim:([^⟧]+)⟧", chunk)
        body = re.sub(r"\s*⟦claim:[^⟧]+⟧\s*", " ", chunk).strip()
        if body:
            sentences.append(Sentence(body, marks))
        elif marks and sentences:
            sentences[-1].marks += marks
    return sentences


def page_sentences(html: str) -> list[Sentence]:
    """빌드된 페이지 본문의 문장 (코드, 출력 텍스트, 표, 그림, 제목은 뺌)."""
    soup = BeautifulSoup(html, "html.parser")
    article = soup.select_one("article.bd-article") or soup.select_one("main") or soup
    for selector in _SKIP_SELECTORS:
        for node in article.select(selector):
            node.decompose()
    out: list[Sentence] = []
    for block in article.find_all(_BLOCKS):
        if block.name == "p" and block.find_parent("li") is not None:
            continue  # li가 글을 모으므로 그 안의 p는 따로 보지 않음
        out += split_sentences(_block_text(block))
    return out


def check_cells(notebook: dict) -> dict[str, list[bool]]:
    """노트북의 확인 셀: ``# claim: <id>`` -> [그 셀에 assert가 있는가, ...]."""
    found: dict[str, list[bool]] = {}
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        source = "".join(cell.get("source", []))
        for claim_id in CELL_MARK.findall(source):
            found.setdefault(claim_id, []).append(bool(ASSERTS.search(source)))
    return found


def _notebook(stem: str) -> dict | None:
    path = ROOT / "chapters" / f"{stem}.ipynb"
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else None


def _test_function(ref: str) -> str | None:
    """``tests/test_x.py::test_name``이 assert가 든 테스트 함수인지. 문제가 없으면 ``None``."""
    path, sep, name = ref.partition("::")
    file = ROOT / path
    if not sep or not path.startswith("tests/") or not file.is_file():
        return f"'test:{ref}': 'tests/<파일>.py::<테스트 이름>' 꼴이어야 하고 파일이 있어야 합니다"
    tree = ast.parse(file.read_text(encoding="utf-8"))
    funcs = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name]
    if not funcs or not name.startswith("test"):
        return f"'test:{ref}': {path} 에 테스트 함수 {name} 이 없습니다"
    if not ASSERTS.search(ast.get_source_segment(file.read_text(encoding="utf-8"), funcs[0]) or ""):
        return f"'test:{ref}': 테스트 함수 {name} 에 assert가 없습니다"
    return None


def resolve(claim_id: str, docname: str) -> str | None:
    """근거 표시 하나를 확인합니다. 문제가 없으면 ``None``, 있으면 한국어로 까닭."""
    if claim_id == RANGE:
        return None
    if claim_id.startswith("test:"):
        return _test_function(claim_id.removeprefix("test:"))
    stem, _, name = claim_id.rpartition("/")
    if not stem:
        if not docname.startswith("chapters/") or "/" in docname.removeprefix("chapters/"):
            return f"'{claim_id}': .md 페이지는 '<노트북 이름>/<id>'로 적어야 합니다"
        stem = docname.removeprefix("chapters/")
    notebook = _notebook(stem)
    if notebook is None:
        return f"'{claim_id}': chapters/{stem}.ipynb 이 없습니다"
    cells = check_cells(notebook).get(name)
    if not cells:
        return f"'{claim_id}': chapters/{stem}.ipynb 에 '# claim: {name}' 줄이 든 코드 셀이 없습니다"
    if not any(cells):
        return f"'{claim_id}': chapters/{stem}.ipynb 의 '# claim: {name}' 셀에 assert가 없습니다"
    return None


def unbacked_claims(docname: str, sentences: list[Sentence]) -> list[str]:
    """근거 없는 일반화 문장과 잘못된 근거 표시를 모두 (한국어 메시지)."""
    problems = []
    for s in sentences:
        quote = s.text if len(s.text) <= 140 else s.text[:137] + "..."
        for mark in s.marks:
            reason = resolve(mark, docname)
            if reason:
                problems.append(f"{docname}: «{quote}» — 근거 표시 {reason}")
            elif mark == RANGE and not re.search(r"\d", s.text):
                problems.append(f"{docname}: «{quote}» — 'range'라고 했지만 문장에 잰 범위(숫자)가 없습니다")
        words = s.words()
        if words and not s.marks:
            problems.append(f"{docname}: «{quote}» — 일반화 낱말 {', '.join(words)}: 근거 표시 "
                            "<!-- claim: <확인 셀 id> --> 또는 <!-- claim: range -->가 없습니다")
    return problems


# ---------------------------------------------------------------------------------------
# 검사기 자체 (빌드 없이): 잡아야 할 것을 잡는지
# ---------------------------------------------------------------------------------------


def test_sentences_keep_the_mark_that_follows_them() -> None:
    html = ("<article class='bd-article'><p>첫 문장은 모든 경우입니다. <!-- claim: a --> 둘째 문장입니다.</p>"
            "<ul><li>항목은 항상 맞습니다. <!-- claim: range --><ul><li>안쪽 모든 항목.</li></ul></li></ul>"
            "<div class='cell_input'><p>코드 속 모든 것</p></div><table><tr><td>모든</td></tr></table></article>")
    sentences = page_sentences(html)
    assert [(s.text, s.marks) for s in sentences] == [
        ("첫 문장은 모든 경우입니다.", ["a"]),
        ("둘째 문장입니다.", []),
        ("항목은 항상 맞습니다.", ["range"]),
        ("안쪽 모든 항목.", []),
    ]


def test_the_checker_flags_what_it_should(monkeypatch: pytest.MonkeyPatch) -> None:
    notebook = {"cells": [
        {"cell_type": "code", "source": ["# claim: backed\n", "assert 1 + 1 == 2\n"]},
        {"cell_type": "code", "source": ["# claim: no-assert\n", "print('모든 것이 맞음')\n"]},
    ]}
    monkeypatch.setattr(sys.modules[__name__], "_notebook", lambda stem: notebook if stem == "99_x" else None)
    sentences = [
        Sentence("근거가 있는 모든 문장입니다.", ["backed"]),
        Sentence("범위를 적은 문장은 시드 0~2에서 모두 같았습니다.", ["range"]),
        Sentence("근거 없는 모든 문장입니다."),
        Sentence("assert 없는 셀을 가리키는 항상 맞는 문장입니다.", ["no-assert"]),
        Sentence("없는 셀을 가리키는 문장뿐입니다.", ["missing"]),
        Sentence("숫자 없이 범위라고 우기는 모든 문장입니다.", ["range"]),
        Sentence("잘못된 것은 아니고, 이것뿐만 아니라 저것도 됩니다."),
    ]
    problems = unbacked_claims("chapters/99_x", sentences)
    assert len(problems) == 4, problems
    assert "근거 없는 모든 문장" in problems[0] and "모든" in problems[0]
    assert "assert가 없습니다" in problems[1] and "셀이 없습니다" in problems[2] and "숫자" in problems[3]
    assert unbacked_claims("chapters/appendix/glossary", [Sentence("정의의 모든 것.", ["backed"])])


def test_the_checker_resolves_test_marks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_fake.py").write_text(
        "def test_backed():\n    assert 1 + 1 == 2\n\n\ndef test_hollow():\n    print('모든')\n", encoding="utf-8")
    (tmp_path / "lib.py").write_text("def test_backed():\n    assert True\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "ROOT", tmp_path)
    sentences = [
        Sentence("채점기는 모든 점수를 자릅니다.", ["test:tests/test_fake.py::test_backed"]),
        Sentence("없는 테스트를 가리키는 모든 문장.", ["test:tests/test_fake.py::test_missing"]),
        Sentence("테스트 밖 파일을 가리키는 모든 문장.", ["test:lib.py::test_backed"]),
        Sentence("assert 없는 테스트를 가리키는 모든 문장.", ["test:tests/test_fake.py::test_hollow"]),
    ]
    problems = unbacked_claims("chapters/appendix/instructors", sentences)
    assert len(problems) == 3, problems
    assert "test_missing 이 없습니다" in problems[0] and "꼴이어야" in problems[1] and "assert가 없습니다" in problems[2]


def test_every_claim_word_is_recognised() -> None:
    for name, example in [("모든", "모든 행"), ("항상", "항상 같다"), ("~뿐", "이것뿐입니다"), ("못한다", "보지 못합니다"),
                          ("못한다", "읽지 못 한다"), ("수 없다", "쓸 수 없습니다"), ("거의 그대로", "거의 그대로입니다"),
                          ("수백", "수백 GiB")]:
        assert name in Sentence(example).words(), (name, example)
    for harmless in ["잘못된 마스크", "A뿐 아니라 B", "그대로 둡니다", "“못 한다”는 결론은 나오지 않습니다"]:
        assert not Sentence(harmless).words(), harmless


# ---------------------------------------------------------------------------------------
# 빌드된 사이트의 모든 페이지
# ---------------------------------------------------------------------------------------

DOCNAMES = read_toc_docnames()


def _page(html_dir: Path, docname: str) -> list[Sentence]:
    path = html_dir / f"{docname}.html"
    assert path.is_file(), f"{path} 이 없습니다 (make book)"
    return page_sentences(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("docname", [d for d in DOCNAMES if d not in NOT_YET_CHECKED])
def test_every_general_claim_names_its_check_cell_or_range(docname: str, html_dir: Path) -> None:
    sentences = _page(html_dir, docname)
    problems = unbacked_claims(docname, sentences)
    assert not problems, f"근거 없는 주장 {len(problems)}개:\n" + "\n".join(problems)


@pytest.mark.parametrize("docname", sorted(NOT_YET_CHECKED))
def test_pages_not_yet_checked_still_need_it(docname: str, html_dir: Path) -> None:
    """목록에 남은 페이지가 이미 규칙을 지키면 목록에서 지우라고 알립니다 (목록이 낡지 않도록)."""
    assert unbacked_claims(docname, _page(html_dir, docname)), (
        f"{docname} 은 이제 규칙을 지킵니다: tests/test_claims.py 의 NOT_YET_CHECKED 에서 지우세요.")


def test_the_pages_have_sentences_to_check(html_dir: Path) -> None:
    """선택자가 본문을 놓쳐 아무것도 검사하지 않는 일이 없도록: 장마다 문장이 충분하고 근거 표시가 쓰였는지."""
    counts = {d: len(_page(html_dir, d)) for d in DOCNAMES if d.startswith("chapters/0")}
    assert counts and min(counts.values()) >= 40, counts
    marks = sum(len(s.marks) for d in DOCNAMES for s in _page(html_dir, d))
    assert marks >= 20, f"근거 표시가 {marks}개뿐입니다: 주석이 페이지에 남는지 확인하세요"
