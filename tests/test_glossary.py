"""용어집(chapters/appendix/glossary.md)을 기준으로 책 본문의 용어를 검사합니다.

검사 두 가지:
1. 쓰지 않는 말: 목차(_toc.yml)의 모든 페이지 본문에 용어집의 '쓰지 않는 말'이 낱말로 나오면 실패합니다.
2. 첫 사용 규칙: chapters/ 아래 페이지에서 용어집 용어가 본문에 처음 나올 때는
   바로 뒤에 `(English)`가 붙어야 합니다. 예: `어텐션(attention)`.

본문(prose)이란 코드 블록, 인라인 코드, 수식, URL, 지시문 옵션 줄, HTML 주석을 뺀 글입니다.
노트북은 마크다운 셀만 봅니다. 용어집 자신은 검사하지 않습니다.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import read_toc_docnames

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "chapters" / "appendix" / "glossary.md"
TOC = ROOT / "_toc.yml"
HEADER = ["English", "용어", "쓰지 않는 말", "설명"]

# ---------------------------------------------------------------------------
# 용어집 읽기
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    english: str
    korean: str
    banned: tuple[str, ...]
    definition: str


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse_glossary(text: str) -> list[Term]:
    """용어집 마크다운에서 표 하나를 읽어 Term 목록을 돌려줍니다."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if line.lstrip().startswith("|") and _cells(line) == HEADER]
    if len(starts) != 1:
        raise ValueError(f"머리 행이 {HEADER}인 표가 정확히 하나 있어야 하는데 {len(starts)}개입니다.")
    i = starts[0] + 1
    if i >= len(lines) or not re.fullmatch(r"\|?(\s*:?-{3,}:?\s*\|)+\s*:?-{0,}:?\s*", lines[i].strip()):
        raise ValueError(f"용어집 {i + 1}행: 머리 행 다음에 구분 행(|---|...)이 있어야 합니다.")
    terms: list[Term] = []
    for j in range(i + 1, len(lines)):
        line = lines[j]
        if not line.lstrip().startswith("|"):
            break
        cells = _cells(line)
        if len(cells) != 4:
            raise ValueError(f"용어집 {j + 1}행: 칸이 4개여야 하는데 {len(cells)}개입니다: {line!r}")
        english, korean, banned, definition = cells
        banned_list = () if banned in {"-", ""} else tuple(b.strip() for b in banned.split(",") if b.strip())
        terms.append(Term(english, korean, banned_list, definition))
    return terms


# ---------------------------------------------------------------------------
# 본문만 남기기
# ---------------------------------------------------------------------------

# 내용이 글이 아닌 지시문: 펜스 안을 통째로 지웁니다.
NON_PROSE_DIRECTIVES = {
    "code", "code-block", "code-cell", "sourcecode", "math", "literalinclude",
    "glue", "glue:any", "glue:figure", "glue:math", "raw", "mermaid", "csv-table",
}
FENCE_RE = re.compile(r"^(\s*)(`{3,}|~{3,}|:{3,})(.*)$")
OPTION_RE = re.compile(r"^\s*:[\w-]+:(\s|$)")
HEADING_RE = re.compile(r"^\s{0,3}#")


@dataclass
class ProseLine:
    where: str  # 사람이 읽는 위치: "intro.md 12행" 또는 "...ipynb 셀 3, 5행"
    text: str
    is_heading: bool
    raw: str = ""  # 인라인 요소를 지우기 전의 원문 줄 (링크를 찾을 때 씀)


def _blank(m: re.Match) -> str:
    """지운 자리를 같은 길이의 공백으로 채워 줄 번호와 위치를 지킵니다."""
    return re.sub(r"[^\n]", " ", m.group(0))


def _strip_inline(text: str) -> str:
    text = re.sub(r"<!--.*?-->", _blank, text, flags=re.S)  # HTML 주석
    text = re.sub(r"\$\$.*?\$\$", _blank, text, flags=re.S)  # 블록 수식
    text = re.sub(r"(?<![\\$])\$(?!\$)[^$\n]+?\$", _blank, text)  # 인라인 수식
    # 역할(role): {doc}`글 <대상>` 은 '글'만 남기고, 나머지 역할은 통째로 지웁니다.
    text = re.sub(
        r"\{[\w:.-]+\}`([^`<]*?)\s*<[^`>]*>`",
        lambda m: " " * (m.start(1) - m.start(0)) + m.group(1) + " " * (m.end(0) - m.end(1)),
        text,
    )
    text = re.sub(r"\{[\w:.-]+\}`[^`]*`", _blank, text)
    text = re.sub(r"(`+)(?:(?!\1).)+?\1", _blank, text, flags=re.S)  # 인라인 코드
    text = re.sub(r"\]\([^)\s]*\)", lambda m: "]" + " " * (len(m.group(0)) - 1), text)  # 링크 주소
    text = re.sub(r"<?https?://[^\s)>]+>?", _blank, text)  # URL
    text = re.sub(r"^\([\w:.-]+\)=\s*$", _blank, text, flags=re.M)  # MyST 대상 이름 (sec-x)=
    return text


def prose_lines(source: str, where_prefix: str) -> list[ProseLine]:
    """마크다운 원문에서 본문 줄만 돌려줍니다(코드, 수식, 옵션 줄 등은 지움)."""
    lines = source.split("\n")
    # YAML 머리글
    if lines and lines[0].strip() == "---":
        for k in range(1, len(lines)):
            if lines[k].strip() == "---":
                lines[: k + 1] = [""] * (k + 1)
                break
    kept: list[tuple[int, str, bool]] = []
    stack: list[tuple[str, int, bool]] = []  # (펜스 문자, 길이, 코드인가)
    option_zone = False
    yaml_zone = False
    for n, line in enumerate(lines, start=1):
        m = FENCE_RE.match(line)
        in_code = any(code for _, _, code in stack)
        if m:
            fence, info = m.group(2), m.group(3).strip()
            if stack and fence[0] == stack[-1][0] and len(fence) >= stack[-1][1] and not info:
                stack.pop()
                option_zone = yaml_zone = False
                continue
            if not in_code:
                d = re.match(r"^\{([\w:.-]+)\}\s*(.*)$", info)
                is_code = d is None or d.group(1) in NON_PROSE_DIRECTIVES
                stack.append((fence[0], len(fence), is_code))
                option_zone = not is_code
                if d is not None and not is_code and d.group(2):
                    kept.append((n, d.group(2), True))  # 지시문 제목은 제목처럼 취급
                continue
        if in_code:
            continue
        if option_zone:
            if line.strip() == "---" and not yaml_zone:
                yaml_zone = True
                continue
            if yaml_zone:
                if line.strip() == "---":
                    yaml_zone = False
                    option_zone = False
                continue
            if OPTION_RE.match(line):
                continue
            option_zone = False
        kept.append((n, line, bool(HEADING_RE.match(line))))
    # 줄 구조를 지키며 인라인 요소를 지웁니다.
    joined = _strip_inline("\n".join(text for _, text, _ in kept))
    out = []
    for (n, raw, heading), text in zip(kept, joined.split("\n")):
        out.append(ProseLine(f"{where_prefix}{n}행", text, heading, raw))
    return out


def page_prose(path: Path, root: Path = ROOT) -> list[ProseLine]:
    rel = path.relative_to(root).as_posix()
    if path.suffix == ".ipynb":
        nb = json.loads(path.read_text(encoding="utf-8"))
        out: list[ProseLine] = []
        for idx, cell in enumerate(nb["cells"]):
            if cell["cell_type"] != "markdown":
                continue
            src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            out.extend(prose_lines(src, f"{rel} 셀 {idx}, "))
        return out
    return prose_lines(path.read_text(encoding="utf-8"), f"{rel} ")


# ---------------------------------------------------------------------------
# 낱말 찾기
# ---------------------------------------------------------------------------

HANGUL_OR_LATIN = r"가-힣A-Za-z"
# 명사 바로 뒤에 붙는 조사와 접미사. 이것들이 붙어도 같은 낱말로 봅니다.
PARTICLES = (
    "에서는", "으로는", "이라는", "에서", "으로", "에는", "로는", "와는", "과는", "이나", "라는",
    "까지", "부터", "마다", "처럼", "보다", "에게", "끼리", "이고", "이며", "이다", "입니다",
    "은", "는", "이", "가", "을", "를", "의", "에", "와", "과", "로", "도", "만", "나",
)
SUFFIXES = ("되는", "되어", "됩니다", "하는", "합니다", "하면", "하여", "하고", "들", "별", "당", "된", "한", "해", "했", "할")
_SUFFIX_RE = "(?:" + "|".join(SUFFIXES) + ")?" + "(?:" + "|".join(PARTICLES) + ")?"


def _word_pattern(word: str) -> str:
    return r"\s+".join(re.escape(part) for part in word.split())


def word_regex(word: str) -> re.Pattern:
    """`word`가 낱말로 나오는 자리. 앞뒤가 한글 음절이나 로마자가 아니어야 하며,
    뒤에는 조사나 접미사(예: -를, -들의, -된)가 붙을 수 있습니다. 그룹 'w'가 낱말 자체입니다."""
    return re.compile(
        rf"(?<![{HANGUL_OR_LATIN}])(?P<w>{_word_pattern(word)}){_SUFFIX_RE}(?![{HANGUL_OR_LATIN}])"
    )


def _joined(lines: list[ProseLine], *, skip_headings: bool) -> tuple[str, list[int]]:
    """줄들을 이어 한 글로 만듭니다(줄바꿈을 넘는 낱말도 찾도록). 각 줄의 시작 위치도 돌려줍니다."""
    starts, parts, pos = [], [], 0
    for pl in lines:
        text = " " * len(pl.text) if (skip_headings and pl.is_heading) else pl.text
        starts.append(pos)
        parts.append(text)
        pos += len(text) + 1
    return "\n".join(parts), starts


def _line_at(lines: list[ProseLine], starts: list[int], offset: int) -> ProseLine:
    return lines[bisect.bisect_right(starts, offset) - 1]


def find_banned(lines: list[ProseLine], terms: list[Term]) -> list[str]:
    text, starts = _joined(lines, skip_headings=False)
    errors = []
    for term in terms:
        for bad in term.banned:
            for m in word_regex(bad).finditer(text):
                pl = _line_at(lines, starts, m.start())
                errors.append(
                    f"{pl.where}: '{' '.join(m.group(0).split())}' — 용어집에서 쓰지 않기로 한 말입니다. "
                    f"'{term.english}'에는 '{term.korean}'을(를) 쓰세요. 줄: {pl.text.strip()!r}"
                )
    return errors


def first_uses(lines: list[ProseLine], terms: list[Term]) -> tuple[dict[str, re.Match], str, list[int]]:
    """용어마다 본문(제목 제외)에서의 첫 등장. 더 긴 용어 안에 든 짧은 용어(예: '멀티헤드 어텐션' 안의
    '어텐션')는 세지 않습니다. (첫 등장, 이은 글, 줄 시작 위치)를 돌려줍니다."""
    text, starts = _joined(lines, skip_headings=True)
    # 긴 용어부터 자리를 차지하고, 이미 차지된 자리와 겹치는 짧은 용어는 건너뜁니다.
    taken: list[tuple[int, int]] = []
    first: dict[str, re.Match] = {}
    for term in sorted(terms, key=lambda t: len(t.korean), reverse=True):
        for m in word_regex(term.korean).finditer(text):
            s, e = m.span("w")
            if any(s < te and ts < e for ts, te in taken):
                continue
            taken.append((s, e))
            if term.korean not in first:
                first[term.korean] = m
    return first, text, starts


def _english_regex(term: Term) -> str:
    return r"[-\s]+".join(re.escape(p) for p in re.split(r"[-\s]+", term.english))


def first_use_errors(lines: list[ProseLine], terms: list[Term], page: str) -> list[str]:
    """용어마다 본문(제목 제외)에서의 첫 등장 바로 뒤에 `(English)`가 있는지 검사합니다."""
    first, text, starts = first_uses(lines, terms)
    errors = []
    for term in terms:
        m = first.get(term.korean)
        if m is None:
            continue
        after = text[m.end("w"):]
        if not re.match(rf"(\*\*)?\(\s*{_english_regex(term)}(?![A-Za-z])[^)]*\)", after, flags=re.I):
            pl = _line_at(lines, starts, m.start("w"))
            errors.append(
                f"{pl.where}: '{term.korean}'이(가) 이 페이지({page})에서 처음 나오는 자리인데 "
                f"바로 뒤에 '({term.english})'가 없습니다. 처음 쓸 때는 '{term.korean}({term.english})'로 쓰세요. "
                f"줄: {pl.text.strip()!r}"
            )
    return errors


# ---------------------------------------------------------------------------
# 용어의 순서: 정의하기 전에 쓰지 않기
# ---------------------------------------------------------------------------
# 용어를 가르치는 자리(정의 자리)는 본문에 `**한국어**(English)`처럼 한국어를 굵게 적습니다. (`**한국어(English)**은`처럼
# 닫는 `**`이 괄호 뒤에 오고 바로 한글이 이어지면 CommonMark가 굵게 그리지 않으므로 그 꼴은 쓰지 않습니다.) 목차 순서로 정의 자리보다
# 앞선 페이지가 그 용어를 쓰면, 그 페이지의 첫 사용 줄에 정의 자리가 있는 페이지로 가는 링크
# ({ref}`그 페이지의 이름표`, {doc}`그 페이지`, [글](그 페이지))가 있어야 합니다. 정의 자리도, 선행 목록도
# 손으로 적은 표가 아니라 책 본문에서 읽습니다.

LABEL_RE = re.compile(r"^\(([\w:.-]+)\)=\s*$", re.M)
ROLE_LINK_RE = re.compile(r"\{(ref|numref|doc)\}`(?:[^`<]*<([^`>]+)>|([^`]+))`")
MD_LINK_RE = re.compile(r"\]\(([^)\s]+)\)")


@dataclass
class BookPage:
    docname: str  # 예: "chapters/02_multi_head" (확장자 없음)
    lines: list[ProseLine]
    labels: set[str]  # 이 페이지에 있는 (이름표)=


def definition_regex(term: Term) -> re.Pattern:
    """정의 자리 `**용어**(English)`."""
    return re.compile(
        rf"(?<![\w*])\*\*{_word_pattern(term.korean)}\*\*\(\s*{_english_regex(term)}(?![A-Za-z])[^)]*\)", re.I
    )


def broken_bold(lines: list[ProseLine]) -> list[str]:
    """닫는 `**` 바로 앞이 문장 부호이고 바로 뒤가 한글이면 CommonMark는 굵게 그리지 않습니다
    (`**어텐션(attention)**은` -> 별표가 그대로 보임). 줄 안의 `**`을 여는 것, 닫는 것 순서로 보고 닫는 것만 검사합니다."""
    errors = []
    for pl in lines:
        marks = [m.start() for m in re.finditer(r"\*\*", pl.text)]
        for pos in marks[1::2]:  # 닫는 **
            before, after = pl.text[pos - 1: pos], pl.text[pos + 2: pos + 3]
            if before and not re.match(r"[\w가-힣\s]", before) and re.match(r"[가-힣]", after):
                errors.append(f"{pl.where}: 굵은 글씨가 그려지지 않습니다(닫는 ** 앞이 문장 부호, 뒤가 한글). "
                              f"'**용어**(English)'처럼 쓰세요. 줄: {pl.text.strip()!r}")
    return errors


def _normalize_doc(target: str, page_docname: str) -> str:
    target = re.sub(r"#.*$", "", target)
    target = re.sub(r"\.(md|ipynb|html)$", "", target)
    if target.startswith("/"):
        return target.lstrip("/")
    parts = page_docname.split("/")[:-1]
    for piece in target.split("/"):
        if piece == "..":
            parts = parts[:-1]
        elif piece not in ("", "."):
            parts.append(piece)
    return "/".join(parts)


def link_targets(raw_line: str, page_docname: str) -> set[str]:
    """원문 한 줄에 있는 링크가 가리키는 이름표와 문서 이름."""
    found: set[str] = set()
    for role, angled, plain in ROLE_LINK_RE.findall(raw_line):
        target = (angled or plain).strip()
        found.add(_normalize_doc(target, page_docname) if role == "doc" else target)
    for target in MD_LINK_RE.findall(raw_line):
        if target.startswith("#"):
            found.add(target[1:])
        elif not re.match(r"[a-z]+://", target):
            found.add(_normalize_doc(target, page_docname))
    return found


def term_order_errors(pages: list[BookPage], terms: list[Term]) -> list[str]:
    """목차 순서로, 정의 자리보다 앞선 페이지가 링크 없이 용어를 쓰면 오류. 정의 자리가 없는 용어도 오류."""
    defined_at: dict[str, int] = {}
    for i, page in enumerate(pages):
        text, _ = _joined(page.lines, skip_headings=False)
        for term in terms:
            if term.korean not in defined_at and definition_regex(term).search(text):
                defined_at[term.korean] = i
    errors = []
    for i, page in enumerate(pages):
        first, _, starts = first_uses(page.lines, terms)
        for term in terms:
            m = first.get(term.korean)
            if m is None:
                continue
            pl = _line_at(page.lines, starts, m.start("w"))
            d = defined_at.get(term.korean)
            if d is None:
                errors.append(
                    f"{pl.where}: '{term.korean}'을(를) 쓰는데 책 어디에도 정의 자리가 없습니다. 이 용어를 가르치는 "
                    f"곳에 '**{term.korean}**({term.english})'처럼 굵게 적으세요."
                )
            elif d > i:
                home = pages[d]
                targets = link_targets(pl.raw, page.docname)
                if home.docname not in targets and not targets & home.labels:
                    errors.append(
                        f"{pl.where}: '{term.korean}'은(는) 목차에서 뒤에 오는 {home.docname}에서 정의되는데, 이 페이지의 "
                        f"첫 사용 줄에 그 페이지로 가는 링크가 없습니다. 같은 줄에 {{ref}}`이름표`를 넣거나, 정의를 "
                        f"이 페이지로 옮기세요. 줄: {pl.raw.strip()!r}"
                    )
    return errors


def book_page(path: Path, root: Path = ROOT) -> BookPage:
    rel = path.relative_to(root).with_suffix("").as_posix()
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        raw = "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        raw = path.read_text(encoding="utf-8")
    return BookPage(rel, page_prose(path, root), set(LABEL_RE.findall(raw)))


# ---------------------------------------------------------------------------
# 목차의 페이지
# ---------------------------------------------------------------------------


def toc_pages() -> tuple[list[Path], list[str]]:
    """(_toc.yml에 있는 페이지 파일들, 파일을 찾지 못한 항목들)"""
    pages, missing = [], []
    for entry in dict.fromkeys(read_toc_docnames(TOC)):
        base = ROOT / entry
        candidates = [base.with_suffix(".md"), base.with_suffix(".ipynb")]
        hit = next((c for c in candidates if c.is_file()), None)
        if hit is None:
            missing.append(entry)
        else:
            pages.append(hit)
    return pages, missing


def _is_chapter(path: Path) -> bool:
    return path.relative_to(ROOT).parts[0] == "chapters"


@pytest.fixture(scope="module")
def terms() -> list[Term]:
    return parse_glossary(GLOSSARY.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def pages() -> list[Path]:
    assert TOC.is_file(), f"목차 파일 {TOC}이 없습니다."
    found, missing = toc_pages()
    assert not missing, f"_toc.yml에 있지만 파일(.md/.ipynb)을 찾지 못한 항목: {missing}"
    checked = [p for p in found if p.resolve() != GLOSSARY.resolve()]
    assert checked, "_toc.yml에서 검사할 페이지를 하나도 찾지 못했습니다."
    return checked


# ---------------------------------------------------------------------------
# 책 전체 검사
# ---------------------------------------------------------------------------


def test_glossary_table_is_complete(terms):
    assert len(terms) >= 20, f"용어집 표에 용어가 {len(terms)}개뿐입니다(20개 이상이어야 합니다)."
    english = [t.english for t in terms]
    korean = [t.korean for t in terms]
    assert len(set(english)) == len(english), f"영어 용어가 겹칩니다: {english}"
    assert len(set(korean)) == len(korean), f"한국어 용어가 겹칩니다: {korean}"
    for t in terms:
        assert t.english == t.english.lower(), f"영어 용어는 소문자로 씁니다: {t.english!r}"
        assert t.korean and t.definition, f"'{t.english}' 행에 용어나 설명이 비었습니다."
        assert "," not in t.korean, f"'{t.english}'의 용어는 하나만 적습니다: {t.korean!r}"
        assert t.korean not in t.banned, f"'{t.english}': 쓰는 말 '{t.korean}'이 쓰지 않는 말에도 있습니다."
        for other in terms:
            assert other.korean not in t.banned, (
                f"'{t.english}'의 쓰지 않는 말에 다른 용어 '{other.korean}'({other.english})이 들어 있습니다."
            )
    by_en = {t.english: t for t in terms}
    assert by_en["attention"].banned == ("주의 메커니즘", "주의", "집중 메커니즘")
    assert "머리" in by_en["head"].banned
    assert by_en["softmax"].korean == "소프트맥스"
    # 쉼표 목록이 빠짐없이 읽혔는지: 원문 행의 셋째 칸에 든 쉼표 수와 읽은 개수가 맞아야 합니다.
    rows = {
        _cells(line)[0]: _cells(line)
        for line in GLOSSARY.read_text(encoding="utf-8").splitlines()
        if line.lstrip().startswith("|") and len(_cells(line)) == 4
    }
    for t in terms:
        raw = rows[t.english][2]
        expected = 0 if raw in {"-", ""} else raw.count(",") + 1
        assert len(t.banned) == expected and all(t.banned), (
            f"'{t.english}'의 쓰지 않는 말 {raw!r}을(를) {t.banned}로 잘못 읽었습니다."
        )
        assert all(b in raw for b in t.banned)


# ---------------------------------------------------------------------------
# 장 글을 고치기 전에 더한 용어 (pending chapter edits)
# ---------------------------------------------------------------------------
# 이슈 26이 용어집에 극성, 빠른 경로, 융합 커널, 노름, 손실, 역전파를 더했습니다. 장의 첫 사용에 '(English)'를 붙이고
# 정의 자리('**용어**(English)')를 넣는 일은 장 노트북을 고치는 일이라, 그 장들을 다른 이슈가 고치는 동안에는 미룹니다.
# 아래 (페이지, 용어)의 첫 사용 규칙·용어 순서 오류만 잠시 봐줍니다. 고치면 짝 테스트가 목록에서 지우라고 알립니다.
PENDING_CHAPTER_EDITS: dict[tuple[str, str], str] = {
}
_ERROR_KEY_RE = re.compile(r"^(\S+) [^:]*: '([^']+)'")


def _pending_key(error: str) -> tuple[str, str] | None:
    m = _ERROR_KEY_RE.match(error)
    return (m.group(1), m.group(2)) if m else None


def _not_pending(errors: list[str]) -> list[str]:
    return [e for e in errors if _pending_key(e) not in PENDING_CHAPTER_EDITS]


def _all_term_errors(terms, pages) -> list[str]:
    errors = []
    for page in pages:
        if _is_chapter(page):
            errors += first_use_errors(page_prose(page), terms, page.relative_to(ROOT).as_posix())
    for page in pages:
        errors += find_banned(page_prose(page), terms)
    return errors + term_order_errors([book_page(p) for p in pages], terms)


@pytest.mark.parametrize("key", sorted(PENDING_CHAPTER_EDITS))
def test_pending_chapter_edits_are_still_pending(terms, pages, key):
    """목록에 남은 (페이지, 용어)가 이미 규칙을 지키면 목록에서 지우라고 알립니다 (목록이 낡지 않도록)."""
    keys = {_pending_key(e) for e in _all_term_errors(terms, pages)}
    assert key in keys, f"{key} 는 이제 규칙을 지킵니다: tests/test_glossary.py 의 PENDING_CHAPTER_EDITS 에서 지우세요."


def test_issue_26_terms_are_in_the_glossary(terms):
    """이슈 26이 더한 용어: 개념 하나에 한국어 하나, 빠른 경로는 영어 표기도 하나('fast path', 'fastpath'는 쓰지 않음)."""
    by_en = {t.english: t for t in terms}
    expected = {"polarity": "극성", "fast path": "빠른 경로", "fused kernel": "융합 커널", "norm": "노름",
                "loss": "손실", "backpropagation": "역전파"}
    assert {en: by_en[en].korean for en in expected if en in by_en} == expected
    assert "fastpath" in by_en["fast path"].banned
    assert find_banned(prose_lines("평가 모드의 빠른 경로(fastpath)를 탑니다. `set_fastpath_enabled`", "t "), terms)
    assert not find_banned(prose_lines("빠른 경로(fast path). `torch.backends.mha.set_fastpath_enabled(False)`", "t "), terms)


def test_toc_pages_have_no_banned_variants(terms, pages):
    errors = []
    for page in pages:
        errors += find_banned(page_prose(page), terms)
    errors = _not_pending(errors)
    assert not errors, "쓰지 않는 말이 본문에 있습니다:\n" + "\n".join(errors)


def test_chapters_follow_first_use_rule(terms, pages):
    chapters = [p for p in pages if _is_chapter(p)]
    assert chapters, "_toc.yml에 chapters/ 아래 페이지가 없습니다."
    errors = []
    for page in chapters:
        errors += first_use_errors(page_prose(page), terms, page.relative_to(ROOT).as_posix())
    errors = _not_pending(errors)
    assert not errors, "첫 사용 규칙 위반:\n" + "\n".join(errors)


def test_bold_renders_before_hangul(pages):
    errors = []
    for page in pages:
        errors += broken_bold(page_prose(page))
    assert not errors, "\n".join(errors)


def test_broken_bold_detector():
    assert broken_bold(prose_lines("**어텐션(attention)**은 연산입니다.", "t ")), "괄호 뒤 **에 한글이 붙은 꼴을 찾아야 합니다"
    assert broken_bold(prose_lines("**True**=참여", "t ")) == []
    assert broken_bold(prose_lines("**어텐션**(attention)은 **중요**합니다. **(가)** 다음. (**나**)와", "t ")) == []


def test_no_term_is_used_before_the_page_that_defines_it(terms, pages):
    book = [book_page(p) for p in pages]
    errors = _not_pending(term_order_errors(book, terms))
    assert not errors, "용어 순서 위반:\n" + "\n".join(errors)


def test_multi_head_chapter_is_checked(pages):
    """핵심 장이 목차에 있어 실제로 검사되는지 확인합니다(검사가 헛돌지 않도록)."""
    names = {p.relative_to(ROOT).as_posix() for p in pages}
    assert "chapters/02_multi_head.ipynb" in names, f"검사 대상에 02_multi_head가 없습니다: {sorted(names)}"


# ---------------------------------------------------------------------------
# 검사기 자체의 단위 테스트 (검사가 헛돌지 않는지)
# ---------------------------------------------------------------------------

MINI_TERMS = [
    Term("attention", "어텐션", ("주의 메커니즘", "주의", "집중 메커니즘"), "-"),
    Term("multi-head attention", "멀티헤드 어텐션", ("멀티 헤드 어텐션",), "-"),
    Term("attention weights", "어텐션 가중치", ("주의 가중치",), "-"),
    Term("head", "헤드", ("머리",), "-"),
    Term("key", "키", ("열쇠",), "-"),
    Term("mask", "마스크", ("가면",), "-"),
]


def _banned_in(text: str) -> list[str]:
    return find_banned(prose_lines(text, "test "), MINI_TERMS)


def _first_use_in(text: str) -> list[str]:
    return first_use_errors(prose_lines(text, "test "), MINI_TERMS, "test")


@pytest.mark.parametrize("text", ["머리말을 읽습니다.", "우두머리가 있습니다.", "머리카락", "주의사항"])
def test_matcher_ignores_longer_words(text):
    assert _banned_in(text) == [], f"{text!r}를 잘못 잡았습니다."


@pytest.mark.parametrize(
    "text",
    ["머리가 둘입니다.", "주의 메커니즘은 오래되었습니다.", "주의를 기울입니다.", "머리.", "각 머리마다",
     "**머리**", "멀티 헤드\n어텐션을 씁니다.", "열쇠(key)"],
)
def test_matcher_flags_banned_words(text):
    assert _banned_in(text), f"{text!r}에서 쓰지 않는 말을 찾지 못했습니다."


def test_matcher_skips_code_math_and_urls():
    text = (
        "```python\n머리 = 1\n```\n"
        "`주의`는 코드입니다. $머리$ 수식, https://example.com/머리 주소.\n"
        "<!-- 머리 -->\n"
        "```{code-cell} python\n주의 = 2\n```\n"
        "```{note}\n:class: 머리\n본문은 검사합니다: 가면을 씁니다.\n```\n"
    )
    errors = _banned_in(text)
    assert len(errors) == 1 and "가면" in errors[0], errors
    assert "test 11행" in errors[0], errors  # 줄 번호가 원문과 같아야 합니다.


def test_first_use_rule_passes_on_good_page():
    page = (
        "# 어텐션 이야기\n\n"
        "어텐션(attention)은 쿼리로 찾습니다. 어텐션을 여러 번 합니다.\n"
        "멀티헤드 어텐션(multi-head attention, MHA)에는 헤드(head)가 여럿입니다.\n"
        "어텐션 가중치(Attention Weights)는 헤드마다 다릅니다. 키(key)와 마스크(mask).\n"
    )
    assert _first_use_in(page) == []


def test_first_use_rule_detects_violations():
    page = (
        "# 헤드\n\n"
        "멀티헤드 어텐션(multi-head attention)을 봅니다.\n"  # '어텐션'은 긴 용어 안이라 세지 않음
        "헤드들이 있습니다. 헤드(head)는 나중에 설명합니다.\n"  # 위반: 첫 등장 '헤드들'
        "어텐션은 쿼리를 씁니다. 어텐션(attention).\n"  # 위반: 첫 등장에 괄호 없음
        "마스크(masking)를 씁니다.\n"  # 위반: 영어가 다름
        "어텐션 가중치(attention weights)와 키(key).\n"  # 통과
    )
    errors = _first_use_in(page)
    joined = "\n".join(errors)
    assert len(errors) == 3, joined
    assert "'헤드'" in joined and "test 4행" in joined
    assert "'어텐션'" in joined and "test 5행" in joined
    assert "'마스크'" in joined
    assert "'멀티헤드 어텐션'" not in joined and "'어텐션 가중치'" not in joined and "'키'" not in joined


def test_first_use_ignores_headings_and_notebook_code(tmp_path):
    nb = {
        "cells": [
            {"cell_type": "markdown", "metadata": {}, "source": ["# 헤드와 어텐션\n"]},
            {"cell_type": "code", "metadata": {}, "source": "# 헤드 어텐션 머리\n", "outputs": [], "execution_count": None},
            {"cell_type": "markdown", "metadata": {}, "source": "헤드(head)와 어텐션(attention).\n\n머리말"},
        ],
        "metadata": {}, "nbformat": 4, "nbformat_minor": 5,
    }
    path = tmp_path / "x.ipynb"
    path.write_text(json.dumps(nb, ensure_ascii=False), encoding="utf-8")
    lines = page_prose(path, root=tmp_path)
    assert first_use_errors(lines, MINI_TERMS, "x") == []
    assert find_banned(lines, MINI_TERMS) == []
    assert any("셀 2, 1행" in pl.where for pl in lines)


def _mini_page(docname: str, text: str) -> BookPage:
    return BookPage(docname, prose_lines(text, f"{docname} "), set(LABEL_RE.findall(text)))


def test_term_order_flags_use_before_definition_and_accepts_a_link():
    later = _mini_page("chapters/03_masks", "(sec-masks)=\n# 마스크\n\n**마스크**(mask)는 볼 자리를 정합니다.\n")
    early = _mini_page("chapters/01_a", "# 하나\n\n마스크(mask)를 씁니다.\n")
    errors = term_order_errors([early, later], MINI_TERMS)
    assert len(errors) == 1 and "'마스크'" in errors[0] and "chapters/03_masks" in errors[0], errors
    for link in ["{ref}`sec-masks`", "{ref}`마스크 장 <sec-masks>`", "{doc}`03_masks`", "[마스크 장](03_masks.ipynb)"]:
        linked = _mini_page("chapters/01_a", f"# 하나\n\n마스크(mask)를 씁니다({link}).\n")
        assert term_order_errors([linked, later], MINI_TERMS) == [], link
    wrong = _mini_page("chapters/01_a", "# 하나\n\n마스크(mask)를 씁니다({ref}`sec-other`).\n")
    assert len(term_order_errors([wrong, later], MINI_TERMS)) == 1
    # 정의 자리가 앞에 있으면 링크가 없어도 됩니다.
    assert term_order_errors([later, early], MINI_TERMS) == []


def test_term_order_requires_a_definition_somewhere():
    page = _mini_page("chapters/01_a", "# 하나\n\n키(key)를 씁니다. **마스크**(mask)도 정의합니다.\n")
    errors = term_order_errors([page], MINI_TERMS)
    assert len(errors) == 1 and "'키'" in errors[0] and "정의 자리가 없습니다" in errors[0], errors
