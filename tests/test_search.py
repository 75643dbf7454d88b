"""한국어 검색 (attn_site/korean_search.py) 을 검사합니다.

1. 나누기 규칙 (unit): 조사가 붙은 낱말("어텐션은", "헤드가", "키를")의 색인어에 낱말 자체가
   들어가는지, 영어는 예전처럼 Porter 어간 추출을 하는지, "d_k를" 이 글자 체계 경계에서 나뉘는지.
   알려진 틀린 규칙(띄어쓰기로만 나누기, Sphinx 기본 ``\\w+``)은 같은 검사에 떨어져야 합니다.
2. 색인 (site): ``_build/html/searchindex.js`` 에 두 음절 낱말(헤드, 토큰, 쿼리, 차원)과
   어텐션, 마스크, 스케일링이 있고, 각 낱말이 본문에 조사와 함께 나오는 페이지를 가리키는지.
3. 검색 페이지 (browser): 네트워크 없이 ``search.html?q=<낱말>`` 을 열어 결과 페이지 목록을
   원본에서 계산한 정답과 비교합니다. 본문 글(노트북의 마크다운 셀, .md 원본)에 "낱말+한글"
   ("헤드가", "마스크를")이 있는 페이지는 반드시 결과에 있어야 하고, 본문(<article>)에 낱말이
   아예 없는 페이지는 결과에 없어야 합니다. 계산 출력에만 나오는 경우는 따지지 않습니다.
   조사가 붙은 검색어("어텐션은")와, 어떤 페이지에는 조사가 붙은 꼴로만 나오는 두 음절 낱말도
   찾아 봅니다. 확장 없이 만든 사이트라면 이 검사가 실패해야 하고, 그 조건도 검사합니다.

4. 깨끗한 요약과 순서 (issue 13): 색인에 TeX 명령(mathrm, sqrt, frac)이 없고, 결과 요약에 TeX,
   역슬래시(₩), 탐색기의 "불러오는 중" 안내가 없고 (390 px 와 1280 px, 옆으로 넘치지 않음), 제목(페이지,
   절)에 검색어가 있는 결과가 본문에만 있는 결과보다 앞에 옵니다 (정답은 빌드된 HTML 의 제목에서 계산).

Checks the Korean search language: the splitter (and known wrong splitters failing the same
checks), the built index, and the search page in offline headless Chromium against ground
truth computed from the sources.
"""

from __future__ import annotations

import functools
import json
import re
from html import escape, unescape
from pathlib import Path
from typing import Any, Callable
from urllib.parse import quote

import pytest
from sphinx.search import SearchLanguage
from sphinx.search.en import SearchEnglish

from attn_site import korean_search
from attn_site.korean_search import SearchKorean, query_terms
from conftest import HTML_DIR, ROOT, OfflinePage, read_toc_docnames, unexpected_messages

# 색인과 검색 페이지에서 찾을 낱말 -> 화면 사진 / 테스트 id 에 쓰는 ASCII 이름
QUERIES = {
    "어텐션": "attention",
    "마스크": "mask",
    "헤드": "heads",
    "스케일링": "scaling",
    "토큰": "tokens",
    "쿼리": "query",
    "차원": "dims",
}
# 검색 페이지에서만 더 찾아 보는 검색어 -> (정답을 정하는 낱말, ASCII 이름).
# 위 일곱 낱말은 이 책에서 조사가 붙어 나오는 페이지마다 맨 낱말로도 나와서(예: "헤드(head)"),
# Sphinx 기본 검색도 페이지 단위로는 찾아 버립니다. 그래서 조사가 붙은 검색어와, 어떤 페이지에는
# 조사가 붙은 꼴로만 나오는 두 음절 낱말을 더합니다 (these make the browser test fail without
# the extension; test_browser_queries_need_the_korean_splitter keeps it that way).
EXTRA_BROWSER_QUERIES = {
    "어텐션은": ("어텐션", "attention-eun"),
    "마스크를": ("마스크", "mask-reul"),
    "헤드가": ("헤드", "heads-ga"),
    "스케일링의": ("스케일링", "scaling-ui"),
    "계산": ("계산", "compute"),
    "결과": ("결과", "result"),  # 끝 글자 '과' 가 조사와 같아도 떼지 않아야 함
    "숫자": ("숫자", "number"),
}
BROWSER_QUERIES = {**{q: (q, name) for q, name in QUERIES.items()}, **EXTRA_BROWSER_QUERIES}
NONSENSE_QUERY = "뷁뷁"
KO_SEARCH_TEXT = "이 책에서 검색..."
HANGUL_SYLLABLE = "[가-힣]"

# (본문에 나오는 글, 그 글을 찾아야 하는 검색어)
PARTICLE_CASES = [
    ("어텐션은 가중 평균입니다", "어텐션"),
    ("각 헤드가 다른 패턴을 봅니다", "헤드"),
    ("마스크를 씌웁니다", "마스크"),
    ("스케일링의 이유", "스케일링"),
    ("키를 비교합니다", "키"),
    ("토큰과 위치", "토큰"),
    ("쿼리와 키", "쿼리"),
    ("차원이 커지면", "차원"),
    ("멀티헤드 어텐션", "헤드"),
    ("헤드에서는 무엇을", "헤드"),
]
CASE_IDS = ["eun", "ga", "reul", "ui", "one-syllable", "gwa", "wa", "i", "infix", "two-particles"]


# ---------------------------------------------------------------------------------------
# 도우미 (helpers)
# ---------------------------------------------------------------------------------------


def indexed_words(lang: SearchLanguage, text: str) -> set[str]:
    """본문 ``text`` 가 색인에 남기는 낱말들 (sphinx.search.IndexBuilder.feed 와 같은 규칙)."""
    words = set()
    for word in lang.split(text):
        stemmed = lang.stem(word).lower()
        if not lang.word_filter(stemmed) and lang.word_filter(word):
            stemmed = word
        if lang.word_filter(stemmed):
            words.add(stemmed)
    return words


def query_finds(lang: SearchLanguage, query: str, text: str) -> bool:
    """검색어의 낱말이 모두 ``text`` 의 색인어에 정확히 있으면 참 (두 글자 이하는 부분 일치가 없음)."""
    terms = [lang.stem(t).lower() for t in query_terms(query)]
    return bool(terms) and set(terms) <= indexed_words(lang, text)


class WhitespaceSplit(SearchEnglish):
    """알려진 틀린 규칙: 띄어쓰기로만 나눔 (known wrong: whitespace only)."""

    def split(self, input: str) -> list[str]:  # noqa: A002
        return input.split()


#: 틀린 규칙들: Sphinx 기본(``\\w+``, 한국어 책이 예전에 쓰던 것)과 띄어쓰기 나누기
WRONG_VARIANTS = {"sphinx_default_w+": SearchEnglish, "whitespace": WhitespaceSplit}


@functools.cache
def korean() -> SearchKorean:
    return SearchKorean({})


@functools.cache
def source_prose(docname: str) -> str:
    """페이지의 글: 노트북이면 마크다운 셀, 아니면 .md 원본 (코드 셀과 계산 출력은 뺌)."""
    notebook = ROOT / f"{docname}.ipynb"
    if notebook.is_file():
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    return (ROOT / f"{docname}.md").read_text(encoding="utf-8")


#: 빌드 때 SVG 로 그린 수식(attn_site/math_svg.py). TeX 원문은 ``data-tex`` 속성에 남아 있습니다.
SVG_MATH = re.compile(r'<mjx-container\b[^>]*\bdata-tex="([^"]*)"[^>]*>.*?</mjx-container>', re.S)


@functools.cache
def article_html(docname: str) -> str:
    """빌드된 페이지의 본문 ``<article class="bd-article">`` (옆 목차에는 모든 장 제목이 있어서 뺌).

    SVG 로 그린 수식은 Sphinx 가 쓴 모양(``\\(TeX\\)``)으로 되돌려, 수식의 TeX 를 보는 검사가 그대로 돕니다.
    """
    html = (HTML_DIR / f"{docname}.html").read_text(encoding="utf-8")
    start, end = html.find('<article class="bd-article">'), html.find("</article>")
    if start < 0 or end < start:
        pytest.fail(f"{docname}.html 에 <article class=\"bd-article\"> 가 없습니다", pytrace=False)
    return SVG_MATH.sub(lambda m: "\\(" + escape(unescape(m.group(1)), quote=False) + "\\)", html[start:end])


def expected_pages(word: str) -> tuple[set[str], set[str]]:
    """(반드시 찾을 페이지, 찾으면 안 되는 페이지). 나머지 페이지는 따지지 않습니다."""
    must, must_not = set(), set()
    for docname in read_toc_docnames():
        if re.search(re.escape(word) + HANGUL_SYLLABLE, source_prose(docname)):
            must.add(docname)
        elif word not in article_html(docname):
            must_not.add(docname)
    return must, must_not


def load_search_index(html_dir: Path) -> dict[str, Any]:
    text = (html_dir / "searchindex.js").read_text(encoding="utf-8")
    prefix, suffix = "Search.setIndex(", ")"
    assert text.startswith(prefix) and text.endswith(suffix), "searchindex.js 모양이 낯섭니다"
    return json.loads(text[len(prefix) : -len(suffix)])


# ---------------------------------------------------------------------------------------
# 1. 나누기 규칙 (splitter unit tests)
# ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("text", "word"), PARTICLE_CASES, ids=CASE_IDS)
def test_word_with_particle_is_indexed_and_found(text: str, word: str) -> None:
    words = indexed_words(korean(), text)
    assert word in words, f"{text!r} 의 색인어에 {word!r} 가 없습니다: {sorted(words)}"
    assert query_finds(korean(), word, text), f"검색어 {word!r} 로 {text!r} 를 찾지 못합니다"


@pytest.mark.parametrize(("text", "word"), PARTICLE_CASES, ids=CASE_IDS)
@pytest.mark.parametrize("variant", WRONG_VARIANTS)
def test_known_wrong_splitters_fail_the_same_check(variant: str, text: str, word: str) -> None:
    """같은 검사가 틀린 규칙에서는 실패해야 합니다 (shows the check above can fail)."""
    lang = WRONG_VARIANTS[variant]({})
    assert word not in indexed_words(lang, text), f"{variant}: {text!r} 에서 {word!r} 를 찾으면 이 검사가 무의미합니다"


@pytest.mark.parametrize(
    ("query", "terms"),
    [
        ("어텐션은", ["어텐션"]),  # 조사를 떼고 찾음
        ("헤드가", ["헤드"]),
        ("스케일링의", ["스케일링"]),
        ("헤드에서는", ["헤드"]),  # 조사 두 개
        ("헤드", ["헤드"]),
        ("키", ["키"]),
        ("키를", ["키를"]),  # 한 음절만 남으면 떼지 않음 ("정의" -> "정" 같은 잘못을 막음)
        ("d_k를", ["d_k"]),  # 조사만 남은 조각은 버림
        ("멀티헤드 어텐션", ["멀티헤드", "어텐션"]),
        ("softmax heads", ["softmax", "heads"]),  # 영어는 그대로 (어간은 Stemmer 가)
        ("를", []),
    ],
)
def test_query_terms(query: str, terms: list[str]) -> None:
    assert query_terms(query) == terms, f"검색어 {query!r} -> {query_terms(query)}, 기대 {terms}"


def test_query_with_another_particle_finds_the_word() -> None:
    assert query_finds(korean(), "어텐션은", "어텐션을 계산합니다"), "'어텐션은' 으로 '어텐션을' 을 못 찾음"
    assert query_finds(korean(), "마스크로", "마스크를 씌웁니다"), "'마스크로' 로 '마스크를' 을 못 찾음"
    assert not query_finds(korean(), "차원", "어텐션은 헤드가"), "없는 낱말을 찾았습니다"
    assert not query_finds(korean(), "정도", "정의에 따르면"), "'정도' 가 '정의' 에 걸렸습니다"


def test_english_is_stemmed_as_before() -> None:
    text = "Multi-head attention heads are running; the masks were scaled by sqrt(d_k) Queries"
    before = indexed_words(SearchEnglish({}), text)
    after = indexed_words(korean(), text)
    assert after == before, f"영어 색인어가 바뀌었습니다: 빠짐 {before - after}, 더함 {after - before}"
    assert {"head", "run", "mask", "scale", "queri"} <= after, sorted(after)
    assert korean().stem("Heads") == "head"


def test_mixed_token_splits_at_script_boundary() -> None:
    assert korean_search.script_runs("d_k를") == ["d_k", "를"]
    assert korean().split("d_k를") == ["d_k"], korean().split("d_k를")
    words = indexed_words(korean(), "softmax는 W_q와 QK의 곱입니다")
    assert {"softmax", "w_q", "qk", "곱입니다", "곱"} <= words, sorted(words)
    assert not words & {"는", "와", "의", "softmax는"}, f"조사나 섞인 토큰이 색인됨: {sorted(words)}"
    assert indexed_words(SearchEnglish({}), "d_k를") == {"d_k를"}, "기본 규칙은 경계에서 나누지 않아야 합니다"


def test_hangul_is_not_changed_by_stemming() -> None:
    for word in ["어텐션", "헤드", "스케일링", "키"]:
        assert korean().stem(word) == word, f"한글 {word!r} 가 {korean().stem(word)!r} 로 바뀜"


# ---------------------------------------------------------------------------------------
# 2. 빌드된 색인 (built searchindex.js)
# ---------------------------------------------------------------------------------------


@pytest.mark.site
def test_search_index_has_korean_terms(html_dir: Path) -> None:
    index = load_search_index(html_dir)
    docnames = index["docnames"]
    for word in dict.fromkeys(word for word, _ in BROWSER_QUERIES.values()):  # QUERIES 와 계산, 결과, 숫자
        pages: set[str] = set()
        for key in ("terms", "titleterms"):  # 제목에 있는 낱말은 titleterms 에만 들어갑니다
            hits = index[key].get(word, [])
            pages |= {docnames[i] for i in ([hits] if isinstance(hits, int) else hits)}
        assert pages, f"searchindex.js 에 {word!r} 가 없습니다 (korean_search 확장이 꺼졌나요?)"
        must, must_not = expected_pages(word)
        assert must <= pages, f"{word!r}: 색인에 빠진 페이지 {sorted(must - pages)}"
        assert not pages & must_not, f"{word!r}: 낱말이 없는 페이지가 색인됨 {sorted(pages & must_not)}"
    assert NONSENSE_QUERY not in index["terms"]


def default_search_finds(query: str, docname: str) -> bool:
    """Sphinx 기본 검색(``\\w+`` 나누기, 세 글자 이상만 부분 일치)이 이 페이지를 찾는지 어림합니다."""
    tokens = set(re.findall(r"\w+", re.sub(r"<[^>]+>", " ", article_html(docname)).lower()))
    terms = re.findall(r"\w+", query.lower())
    return bool(terms) and all(t in tokens or (len(t) > 2 and any(t in tok for tok in tokens)) for t in terms)


@pytest.mark.site
def test_browser_queries_need_the_korean_splitter(html_dir: Path) -> None:
    """검색 페이지 검사가 이 확장 없이는 실패하도록: 기본 검색이 놓칠 정답 페이지가 있어야 합니다."""
    missed = {
        query: sorted(doc for doc in expected_pages(word)[0] if not default_search_finds(query, doc))
        for query, (word, _) in BROWSER_QUERIES.items()
    }
    assert any(missed.values()), (
        "검색 페이지의 모든 정답을 Sphinx 기본 검색도 찾습니다: 검사가 한국어 검색을 가려내지 못합니다. "
        f"조사가 붙은 꼴로만 나오는 낱말을 EXTRA_BROWSER_QUERIES 에 더하세요. {missed}"
    )
    # 두 음절 낱말(부분 일치가 없는 경우)도 하나는 있어야 합니다
    assert any(missed[q] for q in BROWSER_QUERIES if len(q) == 2), missed


# ---------------------------------------------------------------------------------------
# 3. 검색 페이지 (search page in offline headless Chromium)
# ---------------------------------------------------------------------------------------

WAIT_FOR_SEARCH_DONE = """() => {
    const status = document.querySelector('#search-results .search-summary');
    return status !== null && status.textContent.trim() !== '';
}"""
RESULT_HREFS = "() => Array.from(document.querySelectorAll('#search-results ul.search > li > a')).map(a => a.getAttribute('href'))"
SNIPPETS = "() => Array.from(document.querySelectorAll('#search-results ul.search > li p.context')).map(p => p.textContent)"


def run_search(open_offline_page: Callable[..., OfflinePage], query: str) -> tuple[OfflinePage, list[str]]:
    """``search.html?q=<query>`` 을 열고 검색이 끝나기를 기다려 결과 문서 이름을 돌려줍니다."""
    probe = open_offline_page()
    response = probe.page.goto(probe.base_url + "search.html?q=" + quote(query), wait_until="networkidle")
    assert response is not None and response.ok, f"search.html: HTTP {response and response.status}"
    probe.page.wait_for_function(WAIT_FOR_SEARCH_DONE, timeout=20_000)
    probe.page.wait_for_load_state("networkidle")  # 요약(snippet)을 가져오는 요청들
    hrefs = probe.page.evaluate(RESULT_HREFS)
    docnames = [re.sub(r"\.html$", "", h.split("#", 1)[0]) for h in hrefs]
    return probe, docnames


@pytest.mark.browser
@pytest.mark.parametrize("query", BROWSER_QUERIES, ids=[name for _, name in BROWSER_QUERIES.values()])
def test_search_page_finds_korean_words(
    query: str, open_offline_page: Callable[..., OfflinePage], screenshot_dir: Path
) -> None:
    word, name = BROWSER_QUERIES[query]
    must, must_not = expected_pages(word)
    assert must, f"{word!r}: 정답에 반드시 찾을 페이지가 없어 검사가 무의미합니다"
    probe, docnames = run_search(open_offline_page, query)
    probe.page.screenshot(path=str(screenshot_dir / f"search__{name}.png"), full_page=True)
    found = set(docnames)

    assert not unexpected_messages(probe), f"검색 페이지 오류 (page/console errors): {probe.page_errors + probe.console_errors}"
    assert not probe.external_requests, f"검색 페이지가 다른 호스트로 요청함: {probe.external_requests}"
    assert found <= set(read_toc_docnames()), f"{query!r}: 목차에 없는 결과 {sorted(found - set(read_toc_docnames()))}"
    assert must <= found, f"{query!r}: {word!r}+조사가 나오는 페이지를 못 찾음 {sorted(must - found)} (찾은 것 {docnames})"
    assert not found & must_not, f"{query!r}: {word!r} 가 없는 페이지가 결과에 나옴 {sorted(found & must_not)}"
    snippets = probe.page.evaluate(SNIPPETS)
    assert any(word in s for s in snippets), f"{query!r}: 결과 요약에 {word!r} 가 보이지 않습니다: {snippets[:3]}"


@pytest.mark.browser
def test_search_page_without_a_query_loads_the_index_after_the_page_is_drawn(
    open_offline_page: Callable[..., OfflinePage]
) -> None:
    """검색어 없이 연 검색 페이지: 색인은 load 뒤에 받고(attn_site/site_speed.py), 그 뒤 검색창으로 찾으면 결과가 나옵니다."""
    probe = open_offline_page()
    response = probe.page.goto(probe.base_url + "search.html", wait_until="load")
    assert response is not None and response.ok
    # searchtools.js 의 Search 는 const 라 window 의 속성이 아님
    probe.page.wait_for_function("() => typeof Search !== 'undefined' && Search.hasIndex()", timeout=20_000)
    load_end = probe.page.evaluate("() => performance.getEntriesByType('navigation')[0].loadEventEnd")
    index = probe.page.evaluate("() => performance.getEntriesByName(new URL('searchindex.js', location).href)[0].startTime")
    assert index >= load_end - 1, f"색인을 load({load_end:.0f} ms) 전에 받기 시작했습니다 ({index:.0f} ms)"
    probe.page.locator("input[name='q']:visible").first.fill("헤드")
    probe.page.keyboard.press("Enter")
    probe.page.wait_for_function(WAIT_FOR_SEARCH_DONE, timeout=20_000)
    assert probe.page.evaluate(RESULT_HREFS), "검색창으로 찾은 결과가 없습니다"


@pytest.mark.browser
def test_nonsense_query_finds_nothing(open_offline_page: Callable[..., OfflinePage]) -> None:
    probe, docnames = run_search(open_offline_page, NONSENSE_QUERY)
    assert docnames == [], f"{NONSENSE_QUERY!r} 로 결과가 나왔습니다: {docnames}"
    assert not unexpected_messages(probe), f"검색 페이지 오류 (page/console errors): {probe.page_errors + probe.console_errors}"


@pytest.mark.browser
def test_search_page_is_korean_and_uses_the_korean_splitter(open_offline_page: Callable[..., OfflinePage]) -> None:
    """검색창 안내 문구, 그리고 페이지의 JavaScript 규칙이 Python 규칙과 같은지."""
    probe, _ = run_search(open_offline_page, "헤드")
    placeholders = probe.page.evaluate(
        "() => Array.from(document.querySelectorAll('input[name=\"q\"]')).map(i => i.placeholder)"
    )
    assert placeholders and all(p == KO_SEARCH_TEXT for p in placeholders), f"검색창 안내 문구: {placeholders}"

    samples = ["어텐션은", "헤드가", "헤드에서는", "키를", "키", "d_k를", "멀티헤드 어텐션", "softmax heads", "를"]
    js = probe.page.evaluate(
        "(qs) => qs.map(q => splitQuery(q).map(t => new Stemmer().stemWord(t.toLowerCase())))", samples
    )
    py = [[korean().stem(t).lower() for t in query_terms(q)] for q in samples]
    assert js == py, f"JavaScript 와 Python 의 검색어 규칙이 다릅니다:\n{list(zip(samples, js, py))}"
    assert not unexpected_messages(probe), f"검색 페이지 오류 (page/console errors): {probe.page_errors + probe.console_errors}"


SNIPPET_SOURCES = r"""async () => {
  const squash = s => s.replace(/\s+/g, ' ').trim();
  const out = [];
  for (const li of document.querySelectorAll('#search-results ul.search > li')) {
    const a = li.querySelector('a'), p = li.querySelector('p.context');
    if (!a || !p) continue;
    const html = await (await fetch(a.href.split('#')[0])).text();
    const doc = new DOMParser().parseFromString(html, 'text/html');
    // 수식: 짧고 TeX 명령이 없으면 그 글, 아니면 자리표시 (search-snippets.js 의 규칙을 시험 쪽에서 다시 씀)
    doc.querySelectorAll(KO_SEARCH.mathSelector).forEach(el => {
      if (!el.isConnected || (el.parentElement && el.parentElement.closest(KO_SEARCH.mathSelector))) return;
      const tex = el.textContent.trim().replace(/^\\[(\[]/, '').replace(/\\[)\]]$/, '').trim();
      const plain = el.children.length === 0 && /^[\p{Letter}\p{Number}_ ,.=+\-*\/()|<>:;'×·−]{1,40}$/u.test(tex);
      el.replaceWith(doc.createTextNode(plain ? tex : KO_SEARCH.mathPlaceholder));
    });
    doc.querySelectorAll(KO_SEARCH.skipSelector).forEach(el => el.remove());
    const article = doc.querySelector('article.bd-article');
    const snippet = squash(p.textContent.replace(/^\.\.\./, '').replace(/\.\.\.$/, ''));
    out.push([a.getAttribute('href'), snippet, article ? squash(article.textContent).includes(snippet) : false]);
  }
  return out;
}"""


@pytest.mark.browser
def test_result_snippets_come_from_the_article(open_offline_page: Callable[..., OfflinePage]) -> None:
    """결과 요약은 본문에서 뽑은 글이어야 합니다 (테마의 내려받기 단추, '내용' 같은 글이 섞이지 않게)."""
    probe, docnames = run_search(open_offline_page, "헤드")
    assert docnames, "헤드 로 결과가 없습니다"
    probe.page.wait_for_function(
        "n => document.querySelectorAll('#search-results ul.search > li p.context').length >= n",
        arg=len(docnames), timeout=30_000)
    rows = probe.page.evaluate(SNIPPET_SOURCES)
    assert len(rows) == len(docnames)
    outside = [(href, snippet[:80]) for href, snippet, inside in rows if not inside]
    assert not outside, f"본문 밖 글이 섞인 검색 요약: {outside}"
    assert not probe.external_requests and not unexpected_messages(probe)


# ---------------------------------------------------------------------------------------
# 4. 깨끗한 요약, TeX 없는 색인, 제목 먼저 (issue 13: clean snippets, no TeX in the index, titles first)
# ---------------------------------------------------------------------------------------

#: 요약을 살펴볼 검색어 (수식이 많은 장의 낱말, 탐색기가 있는 장의 낱말, 수식 이름, 두 낱말)
SNIPPET_QUERIES = ["어텐션", "소프트맥스", "마스크", "스케일링", "교차 어텐션", "d_k", "헤드", "탐색기"]
#: 요약에 나오면 안 되는 글: TeX 원문, 역슬래시(한국어 글꼴에서는 ₩), 탐색기의 안내 글
FORBIDDEN_IN_SNIPPETS = ["\\", "₩", "mathrm", "frac", "sqrt", "{", "불러오는 중"]
#: 이 가운데 코드에도 나오는 것 ("{" 는 파이썬 사전과 f-문자열, "sqrt" 는 math.sqrt): 요약의 그 자리가 페이지의
#: 코드(pre, code) 글에 그대로 있으면 본문 글이므로 허용합니다.
ALSO_IN_CODE = {"{", "sqrt"}
CODE_TEXTS = r"""async (hrefs) => {
  const out = {};
  for (const href of hrefs) {
    const doc = new DOMParser().parseFromString(await (await fetch(href.split('#')[0])).text(), 'text/html');
    out[href] = Array.from(doc.querySelectorAll('article pre, article code'))
      .map(el => el.textContent.replace(/\s+/g, ' ').trim()).join('\n');
  }
  return out;
}"""


def forbidden_in_snippet(snippet: str, code_text: str) -> list[str]:
    """요약에 있으면 안 되는 글 (코드에서 온 "{", "sqrt" 는 뺌: 그 자리 앞뒤 몇 글자가 코드 글에 있으면)."""
    bad = []
    for word in FORBIDDEN_IN_SNIPPETS:
        for match in re.finditer(re.escape(word), snippet):
            i, j = match.start(), match.end()
            windows = [snippet[max(0, i - 6) : j], snippet[i : j + 6]]
            if word in ALSO_IN_CODE and any(len(w) > len(word) and w in code_text for w in windows):
                continue
            bad.append(word)
            break
    return bad
#: 제목 순서를 따지는 검색어: 어떤 페이지에는 (절) 제목에, 다른 페이지에는 본문에만 있는 낱말들.
#: 두 낱말 검색어는 Sphinx 기본 순위(낱말마다 점수의 최댓값)가 제목에 한 낱말만 있는 페이지를 앞에 두던 경우.
RANKING_QUERIES = ["포화", "인과 마스크", "크로스 어텐션", "소프트맥스", "d_k", "패딩 마스크"]
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 800}}

RESULT_ROWS = """() => Array.from(document.querySelectorAll('#search-results ul.search > li')).map(li => {
  const a = li.querySelector('a'), p = li.querySelector('p.context');
  return [a.getAttribute('href'), p ? p.textContent : null];
})"""


def math_free_article(docname: str) -> str:
    """본문 HTML 에서 수식(``class="math ..."``)과 건너뛸 요소를 뺀 글 (Python html.parser 로)."""
    return korean_search.searchable_html_text(article_html(docname))


@functools.cache
def page_titles(docname: str) -> list[tuple[str, str | None]]:
    """페이지의 제목들 (제목 글, id): h1~h6 와, id 가 있는 상자(연습 문제)의 제목. 빌드된 HTML 에서 읽음."""
    from html.parser import HTMLParser

    class Titles(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.out: list[tuple[str, str | None]] = []
            self.ids: list[str | None] = []  # 열린 section/div 의 id
            self.current: list[str] | None = None
            self.tag = ""
            self.skip = 0

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            a = dict(attrs)
            if tag in ("section", "div"):
                self.ids.append(a.get("id"))
            if self.current is not None and "headerlink" in (a.get("class") or ""):
                self.skip += 1
            if re.fullmatch(r"h[1-6]", tag) or (tag == "p" and "admonition-title" in (a.get("class") or "").split()):
                self.current, self.tag = [], tag

        def handle_endtag(self, tag: str) -> None:
            if tag in ("section", "div") and self.ids:
                self.ids.pop()
            elif tag == "a" and self.skip:
                self.skip -= 1
            elif self.current is not None and tag == self.tag:
                owner = self.ids[-1] if self.ids else None
                self.out.append((" ".join("".join(self.current).split()), owner))
                self.current = None

        def handle_data(self, data: str) -> None:
            if self.current is not None and not self.skip:
                self.current.append(data)

    parser = Titles()
    parser.feed(article_html(docname) + "</article>")
    return [(t, i) for t, i in parser.out if i is not None or parser.out.index((t, i)) == 0]


def title_has_terms(title: str, terms: list[str]) -> bool:
    """제목의 색인어(한글 n-gram, 영어 어간)에 검색어 낱말이 모두 있는지 (세 글자 이상은 부분 일치도)."""
    words = indexed_words(korean(), title)
    return all(t in words or (len(t) > 2 and any(t in w for w in words)) for t in terms)


def stemmed_query_terms(query: str) -> list[str]:
    return [korean().stem(t).lower() for t in query_terms(query)]


def run_search_at(open_offline_page: Callable[..., OfflinePage], query: str, viewport: dict[str, int]) -> tuple[OfflinePage, list[list[Any]]]:
    """검색 페이지를 주어진 화면 크기로 열고, 모든 결과의 요약이 붙을 때까지 기다려 (href, 요약) 목록을 돌려줍니다."""
    probe = open_offline_page(viewport=viewport)
    response = probe.page.goto(probe.base_url + "search.html?q=" + quote(query), wait_until="networkidle")
    assert response is not None and response.ok
    probe.page.wait_for_function(WAIT_FOR_SEARCH_DONE, timeout=20_000)
    probe.page.wait_for_function(
        "() => Array.from(document.querySelectorAll('#search-results ul.search > li')).every(li => li.querySelector('p.context'))",
        timeout=30_000)
    return probe, probe.page.evaluate(RESULT_ROWS)


@pytest.mark.site
def test_index_has_no_tex_commands(html_dir: Path) -> None:
    """색인에 TeX 명령 이름이 없어야 합니다: 수식 원문의 ``\\이름`` 이 색인에 있다면 그 페이지의 수식 밖 글에도 있어야 함."""
    index = load_search_index(html_dir)
    docnames = index["docnames"]
    commands: dict[str, set[str]] = {}
    for docname in read_toc_docnames():
        for tex in re.findall(r'class="math[^"]*">(.*?)</(?:span|div)>', article_html(docname), flags=re.S):
            for name in re.findall(r"\\([A-Za-z]+)", tex):
                commands.setdefault(korean().stem(name).lower(), set()).add(docname)
    assert {"mathrm", "sqrt", "frac"} <= set(commands), f"책의 수식에서 TeX 명령을 찾지 못했습니다: {sorted(commands)[:20]}"
    leaked = {}
    for word, pages_with_tex in commands.items():
        pages = set()
        for key in ("terms", "titleterms"):
            hits = index[key].get(word, [])
            pages |= {docnames[i] for i in ([hits] if isinstance(hits, int) else hits)}
        # 수식 밖의 글(코드, 본문)에 같은 낱말이 있는 페이지는 괜찮습니다 (예: 코드의 torch.sqrt)
        prose = {d for d in pages if word in indexed_words(korean(), math_free_article(d))}
        if pages - prose:
            leaked[word] = sorted(pages - prose)
    assert not leaked, f"TeX 명령이 색인에 들어갔습니다 (낱말: 수식에만 있는 페이지): {leaked}"
    assert not [t for t in index["alltitles"] if "\\" in t], "제목 색인에 역슬래시가 있습니다"
    # 탐색기의 '불러오는 중' 안내 글도 색인하지 않습니다 (이 낱말은 그 안내에만 나옴)
    # (증분 빌드는 페이지가 빠진 낱말을 빈 목록으로 남기므로 키가 아니라 페이지 목록을 봅니다)
    assert not index["terms"].get("자바스크립트가") and not index["terms"].get("자바스크립트"), "탐색기 안내 글이 색인됨"


def test_index_keeps_names_inside_math() -> None:
    """수식 안의 이름(d_k, softmax)은 색인어에 남고 TeX 명령은 빠집니다 (unit)."""
    text = korean_search.tex_words_text(r"\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)")
    words = indexed_words(korean(), text)
    assert {"softmax", "d_k", "qk"} <= words, words
    assert not words & {"mathrm", "frac", "sqrt", "left", "right", "top"}, words
    assert korean_search.searchable_html_text(
        '<p class="attn-explorer-status">정적 탐색기를 불러오는 중입니다.</p><script>var x = 1;</script><p>헤드 0</p>'
    ).split() == ["헤드", "0"]


@pytest.mark.browser
@pytest.mark.parametrize("viewport", VIEWPORTS)
@pytest.mark.parametrize("query", SNIPPET_QUERIES)
def test_snippets_have_no_tex_or_loading_text(
    query: str, viewport: str, open_offline_page: Callable[..., OfflinePage], screenshot_dir: Path
) -> None:
    probe, rows = run_search_at(open_offline_page, query, VIEWPORTS[viewport])
    assert rows, f"{query!r}: 결과가 없습니다"
    code = probe.page.evaluate(CODE_TEXTS, [href for href, _ in rows])
    bad = [(href, word, snippet) for href, snippet in rows for word in forbidden_in_snippet(snippet, code[href])]
    assert not bad, f"{query!r} ({viewport}): 요약에 TeX/안내 글이 섞였습니다: {bad[:5]}"
    width = probe.page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"검색 페이지가 옆으로 넘칩니다 ({viewport}): scrollWidth {width[0]} > {width[1]}"
    assert not unexpected_messages(probe), probe.page_errors + probe.console_errors
    if query == "소프트맥스":
        probe.page.screenshot(path=str(screenshot_dir / f"search__softmax__{viewport}.png"), full_page=False)


@pytest.mark.browser
@pytest.mark.parametrize("query", RANKING_QUERIES)
def test_title_hits_rank_above_body_hits(query: str, open_offline_page: Callable[..., OfflinePage]) -> None:
    """페이지 제목 > 절 제목 > 본문. 정답은 빌드된 HTML 의 제목(h1~h6, 연습 문제 제목)에서 계산합니다."""
    terms = stemmed_query_terms(query)
    probe, rows = run_search_at(open_offline_page, query, VIEWPORTS["desktop"])
    docnames = [re.sub(r"\.html$", "", href.split("#", 1)[0]) for href, _ in rows]
    anchors = [href.split("#", 1)[1] if "#" in href else "" for href, _ in rows]
    page_hit = {d for d in set(docnames) if title_has_terms(page_titles(d)[0][0], terms)}
    section_hit = {d for d in set(docnames) if any(title_has_terms(t, terms) for t, _ in page_titles(d)[1:])}
    title_docs = page_hit | section_hit
    assert title_docs and set(docnames) - title_docs, (
        f"{query!r}: 제목에 있는 페이지와 본문에만 있는 페이지가 모두 있어야 검사가 뜻이 있습니다 ({docnames})")
    last_title = max(i for i, d in enumerate(docnames) if d in title_docs)
    first_body = min(i for i, d in enumerate(docnames) if d not in title_docs)
    assert last_title < first_body, (
        f"{query!r}: 본문에만 있는 결과가 제목 결과보다 앞에 있습니다: "
        f"{[(d + ('#' + a if a else ''), d in title_docs) for d, a in zip(docnames, anchors)]}")
    # 페이지 제목에 있는 페이지가 맨 앞
    if page_hit:
        first_rows = docnames[: len(page_hit)]
        assert set(first_rows) == page_hit and all(a == "" for a in anchors[: len(page_hit)]), (
            f"{query!r}: 페이지 제목 결과 {sorted(page_hit)} 가 맨 앞이 아닙니다: {list(zip(docnames, anchors))[:6]}")
    # 절 결과(#id)는 그 절의 제목에 검색어가 있어야 합니다
    for doc, anchor in zip(docnames, anchors):
        if anchor:
            titles = [t for t, i in page_titles(doc) if i == anchor]
            assert titles and title_has_terms(titles[0], terms), f"{query!r}: {doc}#{anchor} 의 제목 {titles} 에 검색어가 없음"
    assert not unexpected_messages(probe), probe.page_errors + probe.console_errors


@pytest.mark.site
def test_search_scripts_only_on_the_search_page(html_dir: Path) -> None:
    """요약/순위 스크립트는 search.html 에만 (다른 페이지는 검색을 돌리지 않음)."""
    for docname in [*read_toc_docnames(), "search"]:
        html = (html_dir / f"{docname}.html").read_text(encoding="utf-8")
        # 스타일시트는 빌드가 페이지마다 파일 하나로 합칩니다 (attn_site/site_speed.py): 그 안의 파일 표시를 봅니다
        bundles = re.findall(r'<link rel="stylesheet" type="text/css" href="([^"]*bundle-[0-9a-f]+\.css)"', html)
        css = "".join((html_dir / docname).parent.joinpath(b).read_text(encoding="utf-8") for b in bundles)
        for asset in korean_search.SEARCH_PAGE_JS:
            assert (asset in html) == (docname == "search"), f"{docname}.html: {asset} 가 {'없음' if docname == 'search' else '있음'}"
        for asset in korean_search.SEARCH_PAGE_CSS:
            found = asset in html or f"/* _static/{asset} */" in css
            assert found == (docname == "search"), f"{docname}.html: {asset} 가 {'없음' if docname == 'search' else '있음'}"
