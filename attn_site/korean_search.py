"""한국어 검색 언어 (Korean search language for Sphinx's built-in HTML search).

Sphinx 에는 한국어 검색기가 없습니다. 기본 검색은 띄어쓰기와 문장 부호에서만 나누므로 "어텐션은" 이
한 단어가 되어 "어텐션" 으로 찾을 수 없고, 검색 스크립트는 세 글자 이상일 때만 단어의 일부를
찾으므로 "헤드", "토큰" 같은 두 음절 단어는 조사가 붙은 꼴("헤드가")을 아예 찾지 못합니다.
(Sphinx splits on spaces and punctuation only, and searchtools.js matches parts of words only for queries
longer than two characters, so Korean words with particles attached were unfindable.)

이 확장이 하는 일 (What it does), ``language: ko`` 일 때:

1. 색인 (index, Python): 토큰을 글자 체계 경계에서 나눕니다 ("d_k를" -> "d_k", "를").
   한글 덩어리는 (a) 덩어리 자체, (b) 길이 2 이상의 모든 부분 문자열(n-gram: "멀티헤드" ->
   "멀티", "티헤", "헤드", ...), (c) 끝의 조사/어미를 떼어 낸 꼴("키를" -> "키")로 색인합니다.
   조사만 있는 덩어리("를")는 색인하지 않습니다. 라틴 문자 단어는 영어처럼 Porter 어간 추출.
2. 검색어 (query, JavaScript ``splitQuery``): 같은 경계에서 나누고, 한글 덩어리의 끝 조사를
   떼어 냅니다. 단 남는 부분이 두 음절 이상일 때만 뗍니다 ("어텐션은" -> "어텐션", "키를" 은 그대로).
   남는 꼴은 원래 검색어의 앞부분이므로 (b) 의 n-gram 으로 항상 색인에 있습니다. 한 음절 검색어
   ("키")는 (c) 로 찾습니다.
3. 색인에서 빼는 것 (what the index skips): 수식(math, math_block 노드의 TeX 원문)과, 본문 안 raw HTML 의
   :data:`SKIP_TAGS`/:data:`SKIP_CLASSES`/:data:`SKIP_ATTRIBUTES` 요소(탐색기의 "불러오는 중" 안내,
   script/style/template). 검색 요약(snippet)이 같은 목록으로 같은 글을 빼므로, 색인에 있는 낱말은
   요약에 보일 수 있는 낱말뿐입니다: "mathrm", "sqrt" 로는 TeX 때문에 페이지가 나오지 않습니다.
   수식의 이름(d_k, softmax)은 이 책의 본문이 글로도 적으므로(소프트맥스(softmax), ``d_k``) 여전히 찾습니다.
   (Math and skipped raw-HTML elements are not indexed, so the index only holds words a snippet can show.)
4. 검색 페이지에만 (search.html only): ``_static/js/search-snippets.js`` (요약: 본문만, 수식은 "(수식)",
   안내 글/스크립트 없음), ``_static/js/search-ranking.js`` (순위: 페이지 제목 > 절 제목 > 본문),
   ``_static/css/search.css`` (요약 속 긴 코드 덩어리가 폰 화면을 옆으로 밀지 않게).
5. 이 파일이 바뀌면 모든 페이지를 다시 씁니다: ``attn_site/offline_assets.py`` 의 지문이 이 패키지의
   모든 확장을 덮고, Sphinx 는 다시 쓰는 페이지를 색인에 다시 넣습니다.

한계 (limits): 형태소 분석기가 아니라 규칙 몇 개입니다. 검색어 끝이 우연히 조사와 같은 글자이면
("유사도" -> "유사") 조금 더 넓게 찾습니다. 색인은 한글 덩어리마다 부분 문자열을 모두 넣으므로
searchindex.js 가 커집니다 (이 책에서 약 두 배: 160 KB -> 316 KB, gzip 34 KB -> 56 KB).
(A few rules, not a morphological analyser: a query that happens to end in a particle-like
syllable matches a little more broadly; n-grams make searchindex.js larger.)
"""

from __future__ import annotations

import json
import re
import html
import html.parser
from typing import Any

from docutils import nodes
from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.search.en import SearchEnglish

from . import add_static_dir

# 한글 음절과 자모 (Hangul syllables and jamo, incl. compatibility jamo)
HANGUL_CLASS = "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7af\ud7b0-\ud7ff"
HANGUL_RE = re.compile(f"[{HANGUL_CLASS}]")
# 한 토큰을 한글 덩어리와 그 밖의 덩어리로 나눕니다 ("d_k를" -> "d_k", "를")
SCRIPT_RUN_RE = re.compile(f"[{HANGUL_CLASS}]+|[^{HANGUL_CLASS}]+")

# 단어 끝에서 떼어 낼 조사와 서술격 어미 (particles and copula endings stripped from the end).
# 형태소 분석이 아니라 흔한 것만 적었습니다. "나", "다", "께", "란" 처럼 한 글자이면서 낱말 끝에도
# 흔한 것은 일부러 뺐습니다 (too ambiguous as word endings).
PARTICLES: tuple[str, ...] = (
    # 주격/보격 (subject)
    "이", "가", "께서",
    # 목적격 (object)
    "을", "를",
    # 관형격 (possessive)
    "의",
    # 부사격 (adverbial: place, direction, means, comparison)
    "에", "에서", "에게", "한테", "으로", "로", "으로서", "로서", "으로써", "로써",
    "처럼", "보다", "만큼", "마다", "같이",
    # 접속 (and/or)
    "와", "과", "하고", "이나", "이랑",
    # 보조사 (topic, also, only, until, from ...)
    "은", "는", "도", "만", "까지", "부터", "조차", "마저", "밖에",
    "이란", "이라는", "라는", "이라고", "라고",
    # 서술격 조사 '이다' 의 꼴 (copula)
    "이다", "입니다", "이며", "이고", "이면",
)
# 긴 것부터 맞춰 봅니다 ("에서" 를 "서" 보다 먼저; longest match first)
_PARTICLES_LONGEST_FIRST = tuple(sorted(set(PARTICLES), key=lambda p: (-len(p), p)))
_PARTICLE_SET = frozenset(PARTICLES)

#: 색인 쪽: 조사를 떼고 남는 부분의 최소 길이 ("키를" -> "키")
MIN_INDEX_STEM = 1
#: 검색어 쪽: 조사를 떼고 남는 부분의 최소 길이 ("키를" 은 그대로, "어텐션은" -> "어텐션")
MIN_QUERY_STEM = 2
#: n-gram 의 최소 길이 (검색 스크립트가 두 글자 단어는 부분 일치를 하지 않으므로 2 부터 모두 넣습니다)
MIN_NGRAM = 2


#: 검색 색인과 검색 요약에서 빼는 요소 (elements skipped by the index and by search snippets).
#: 수식은 MathJax 가 돌기 전 ``.math`` (Sphinx 의 ``\\(...\\)``), 돈 뒤 ``mjx-container``/``.MathJax``,
#: 빌드 때 미리 그린 SVG/HTML 도 ``.math`` 안에 있습니다. 탐색기의 "불러오는 중" 안내와 JSON 명세,
#: 숨긴 셀 단추의 글("숨긴 셀 펼쳐 보기"), 제목 옆 "#" 링크도 본문 글이 아닙니다.
SKIP_TAGS: tuple[str, ...] = ("script", "style", "template", "noscript", "mjx-container")
SKIP_CLASSES: tuple[str, ...] = (
    "math", "MathJax", "MathJax_Preview", "headerlink", "attn-explorer-status", "attn-explorer-meta",
)
SKIP_ATTRIBUTES: tuple[str, ...] = ("data-search-skip",)
#: 숨긴 셀(hide-input)의 여닫기 단추 (myst-nb): ``<details class="hide"><summary>``
SKIP_EXTRA_SELECTORS: tuple[str, ...] = ("details.hide > summary",)
#: 요약에서 수식 자리에 넣는 글. 빈칸으로 두면 "먼저 를 곱합니다" 처럼 조사만 남아 문장이 끊깁니다.
MATH_PLACEHOLDER = "(수식)"
#: 요약에서 :data:`MATH_PLACEHOLDER` 로 바꾸는 요소 (나머지 SKIP 요소는 지움)
MATH_SELECTOR = ".math, mjx-container, .MathJax"
#: 검색 결과에서 한 페이지가 따로 보여 주는 절 제목 수 (가장 짧은, 곧 검색어가 가장 큰 몫인 제목부터)
MAX_SECTIONS_PER_PAGE = 3


def skip_selector() -> str:
    """:data:`SKIP_TAGS` 등을 CSS 선택자 하나로 (검색 요약 스크립트가 씀)."""
    parts = [*SKIP_TAGS, *(f".{c}" for c in SKIP_CLASSES), *(f"[{a}]" for a in SKIP_ATTRIBUTES), *SKIP_EXTRA_SELECTORS]
    return ", ".join(parts)


# 내용이 없는 HTML 요소 (닫는 태그가 없음)
_VOID_TAGS = frozenset("area base br col embed hr img input link meta param source track wbr".split())


class _SearchTextParser(html.parser.HTMLParser):
    """raw HTML 에서 색인할 글만 모읍니다 (:data:`SKIP_TAGS` 등의 요소는 안의 글까지 뺌)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self._skip_tag: str | None = None
        self._depth = 0

    @staticmethod
    def _skipped(tag: str, attrs: list[tuple[str, str | None]]) -> bool:
        attributes = dict(attrs)
        classes = set((attributes.get("class") or "").split())
        return (tag in SKIP_TAGS or bool(classes & set(SKIP_CLASSES))
                or any(a in attributes for a in SKIP_ATTRIBUTES))

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _VOID_TAGS:
            return
        if self._skip_tag is not None:
            self._depth += tag == self._skip_tag
        elif self._skipped(tag, attrs):
            self._skip_tag, self._depth = tag, 1

    def handle_endtag(self, tag: str) -> None:
        if self._skip_tag is not None and tag == self._skip_tag:
            self._depth -= 1
            if self._depth == 0:
                self._skip_tag = None
        elif self._skip_tag is None:
            self.parts.append(" ")

    def handle_data(self, data: str) -> None:
        if self._skip_tag is None:
            self.parts.append(data)


def searchable_html_text(markup: str) -> str:
    """raw HTML 조각에서 검색할 글 (건너뛸 요소와 태그를 뺀 글).

    >>> searchable_html_text('<p class="attn-explorer-status">불러오는 중</p><p>헤드 <b>0</b></p>').split()
    ['헤드', '0']
    """
    parser = _SearchTextParser()
    parser.feed(markup)
    parser.close()
    return "".join(parser.parts)


# TeX 의 환경 이름(\\begin{split})과 명령(\\mathrm, \\sqrt, \\,)
_TEX_ENV_RE = re.compile(r"\\(?:begin|end)\s*\{[^}]*\}")
_TEX_COMMAND_RE = re.compile(r"\\(?:[A-Za-z]+|.)")


def tex_words_text(tex: str) -> str:
    r"""수식 원문에서 TeX 명령과 환경 이름을 뺀 글 (이름과 기호는 남김).

    >>> tex_words_text(r"\mathrm{softmax}\!\left(\frac{QK^\top}{\sqrt{d_k}}\right)")
    '{softmax}({QK^}{{d_k}})'
    """
    return _TEX_COMMAND_RE.sub("", _TEX_ENV_RE.sub(" ", tex))


def searchable_doctree(doctree: nodes.document) -> nodes.document:
    """색인에 넘길 문서 사본: 수식은 :func:`tex_words_text` 의 글로, raw HTML 은
    :func:`searchable_html_text` 의 글로 바꿉니다.

    수식 안의 이름(``d_k``, ``softmax``, ``QK``)은 찾을 수 있고 TeX 명령(``mathrm``, ``sqrt``, ``frac``)은
    색인에 들어가지 않습니다. HTML 로 쓰는 원본 문서는 그대로 둡니다 (a copy; the page keeps its math).
    """
    copy = doctree.deepcopy()
    for node in list(copy.findall(lambda n: isinstance(n, (nodes.math, nodes.math_block)))):
        text = nodes.Text(tex_words_text(node.astext()))  # 제목에 보이는 글이 바뀌지 않게 빈칸을 더하지 않음
        node.replace_self(nodes.paragraph("", "", text) if isinstance(node, nodes.math_block) else text)
    for node in list(copy.findall(nodes.raw)):
        if "html" in node.get("format", "").split():
            # Sphinx 의 색인기는 raw HTML 에서 태그를 지우고 글을 색인합니다: 건너뛸 요소를 미리 뺍니다.
            node.replace_self(nodes.raw("", searchable_html_text(node.astext()), format="html"))
    return copy


def index_searchable_text(app: Sphinx) -> None:
    """HTML 빌더가 색인에 :func:`searchable_doctree` 사본을 넘기게 합니다.

    Sphinx 7.4 에는 색인에서 노드를 빼는 설정이 없습니다 (``no-search`` 는 페이지 단위). 빌더의
    ``index_page`` 를 이 빌더 객체에서만 감쌉니다. (Sphinx 7.4 has no per-node opt-out; we wrap the
    builder instance's ``index_page`` so the indexer sees a copy without math and skipped HTML.)
    """
    builder = app.builder
    original = getattr(builder, "index_page", None)
    if original is None or getattr(original, "_korean_search", False):
        return

    def index_page(pagename: str, doctree: nodes.document, title: str) -> None:
        original(pagename, searchable_doctree(doctree), title)

    index_page._korean_search = True  # type: ignore[attr-defined]
    builder.index_page = index_page  # type: ignore[method-assign]


def is_hangul(text: str) -> bool:
    """한글이 한 글자라도 있으면 참 (true if the text contains any Hangul)."""
    return bool(HANGUL_RE.search(text))


def strip_particles(run: str, min_stem: int) -> list[str]:
    """끝의 조사를 되풀이해 떼어 낸 꼴들 ("헤드에서는" -> ["헤드에서", "헤드"]).

    남는 부분이 ``min_stem`` 글자보다 짧아지면 더 떼지 않습니다. 떼어 낼 것이 없으면 빈 목록.
    (Repeatedly strips a trailing particle while at least ``min_stem`` characters remain.)
    """
    stems: list[str] = []
    word = run
    while True:
        for particle in _PARTICLES_LONGEST_FIRST:
            if word.endswith(particle) and len(word) - len(particle) >= min_stem:
                word = word[: -len(particle)]
                stems.append(word)
                break
        else:
            return stems


def script_runs(token: str) -> list[str]:
    """토큰을 글자 체계 경계에서 나눕니다 ("d_k를" -> ["d_k", "를"])."""
    return SCRIPT_RUN_RE.findall(token)


def hangul_index_terms(run: str) -> list[str]:
    """한글 덩어리 하나를 색인할 낱말들: 덩어리, 길이 2 이상의 부분 문자열, 조사를 뗀 꼴.

    조사만 있는 덩어리는 색인하지 않습니다 (빈 목록). 순서는 처음 나온 순서, 중복 없음.
    """
    if run in _PARTICLE_SET:
        return []
    terms = dict.fromkeys([run])
    n = len(run)
    for size in range(MIN_NGRAM, n):
        for start in range(n - size + 1):
            terms[run[start : start + size]] = None
    terms.update(dict.fromkeys(strip_particles(run, MIN_INDEX_STEM)))
    return list(terms)


def hangul_query_term(run: str) -> str | None:
    """검색어의 한글 덩어리를 색인에서 찾을 낱말 하나로 바꿉니다 ("어텐션은" -> "어텐션").

    조사만 있으면 ``None`` (검색어에서 뺍니다). JavaScript ``splitQuery`` 와 같은 규칙입니다.
    """
    if run in _PARTICLE_SET:
        return None
    stems = strip_particles(run, MIN_QUERY_STEM)
    return stems[-1] if stems else run


# 기본 분리 규칙과 같습니다 (same as SearchLanguage._word_re and searchtools.js's default splitQuery)
_WORD_RE = re.compile(r"\w+")

# 검색 페이지의 splitQuery (language_data.js 에 들어감). 규칙은 위 Python 함수들과 같고,
# 조사 목록과 글자 범위는 이 파일의 값을 그대로 넣습니다 (single source of truth).
JS_SPLITTER_TEMPLATE = """
/* korean_search: 한국어 검색어 나누기 (Korean query splitter, see attn_site/korean_search.py) */
var KO_SEARCH = {
  particles: __PARTICLES__,
  minQueryStem: __MIN_QUERY_STEM__,
  hangul: new RegExp("[__HANGUL__]"),
  runs: new RegExp("[__HANGUL__]+|[^__HANGUL__]+", "gu"),
  minIndexStem: __MIN_INDEX_STEM__,
  minNgram: __MIN_NGRAM__,
  // 검색 요약과 순위 (search-snippets.js, search-ranking.js)가 쓰는 값
  skipSelector: __SKIP_SELECTOR__,
  mathSelector: __MATH_SELECTOR__,
  mathPlaceholder: __MATH_PLACEHOLDER__,
  maxSectionsPerPage: __MAX_SECTIONS__,
};
KO_SEARCH.particleSet = new Set(KO_SEARCH.particles);
KO_SEARCH.queryTerm = (run) => {
  if (KO_SEARCH.particleSet.has(run)) return null;  // 조사만 있음 (particle only)
  let word = run;
  for (;;) {
    const p = KO_SEARCH.particles.find(
      (p) => word.endsWith(p) && word.length - p.length >= KO_SEARCH.minQueryStem
    );
    if (p === undefined) return word;
    word = word.slice(0, word.length - p.length);
  }
};
// 색인 쪽 규칙 (hangul_index_terms 와 같음): 덩어리, 길이 2 이상의 부분 문자열, 조사를 뗀 꼴
KO_SEARCH.indexTerms = (run) => {
  if (KO_SEARCH.particleSet.has(run)) return [];
  const terms = new Set([run]);
  for (let size = KO_SEARCH.minNgram; size < run.length; size++)
    for (let start = 0; start + size <= run.length; start++) terms.add(run.slice(start, start + size));
  let word = run;
  for (;;) {
    const p = KO_SEARCH.particles.find(
      (p) => word.endsWith(p) && word.length - p.length >= KO_SEARCH.minIndexStem
    );
    if (p === undefined) break;
    word = word.slice(0, word.length - p.length);
    terms.add(word);
  }
  return [...terms];
};
// 제목 하나가 색인에 남기는 낱말들 (SearchKorean.split + stem 과 같음; 순위 매기기에 씀)
KO_SEARCH.titleWords = (title, stemmer) => {
  const words = new Set();
  (title.match(/[\\p{Letter}\\p{Number}_]+/gu) || []).forEach((token) =>
    (token.match(KO_SEARCH.runs) || []).forEach((run) => {
      if (KO_SEARCH.hangul.test(run)) KO_SEARCH.indexTerms(run).forEach((t) => words.add(t));
      else words.add(stemmer.stemWord(run.toLowerCase()));
    })
  );
  return words;
};
var splitQuery = (query) => {
  const terms = [];
  query
    .split(/[^\\p{Letter}\\p{Number}_\\p{Emoji_Presentation}]+/gu)
    .filter((token) => token)
    .forEach((token) =>
      (token.match(KO_SEARCH.runs) || []).forEach((run) => {
        const term = KO_SEARCH.hangul.test(run) ? KO_SEARCH.queryTerm(run) : run;
        if (term) terms.push(term);
      })
    );
  return terms;
};
"""

# 영어 Porter 어간 추출기를 감싸서 한글 낱말은 그대로 둡니다 (Hangul is never stemmed)
JS_STEMMER_WRAPPER = """
/* korean_search: 한글 낱말은 그대로, 나머지는 영어 Porter 어간 추출 */
var KoreanStemmer = function() {
  const porter = new PorterStemmer();
  const hangul = new RegExp("[__HANGUL__]");
  this.stemWord = (w) => (hangul.test(w) ? w : porter.stemWord(w));
};
var Stemmer = KoreanStemmer;
"""


def _js_splitter_code() -> str:
    return (
        JS_SPLITTER_TEMPLATE.replace("__PARTICLES__", json.dumps(list(_PARTICLES_LONGEST_FIRST), ensure_ascii=False))
        .replace("__MIN_QUERY_STEM__", str(MIN_QUERY_STEM))
        .replace("__MIN_INDEX_STEM__", str(MIN_INDEX_STEM))
        .replace("__MIN_NGRAM__", str(MIN_NGRAM))
        .replace("__SKIP_SELECTOR__", json.dumps(skip_selector()))
        .replace("__MATH_SELECTOR__", json.dumps(MATH_SELECTOR))
        .replace("__MATH_PLACEHOLDER__", json.dumps(MATH_PLACEHOLDER, ensure_ascii=False))
        .replace("__MAX_SECTIONS__", str(MAX_SECTIONS_PER_PAGE))
        .replace("__HANGUL__", HANGUL_CLASS.encode("unicode_escape").decode("ascii").replace("\\", "\\\\"))
    )


def _js_stemmer_code() -> str:
    # SearchEnglish 의 코드는 `var Stemmer = function() {...}` (Porter) 입니다. 이름을 바꿔 감쌉니다.
    porter = SearchEnglish.js_stemmer_code.replace("var Stemmer = function", "var PorterStemmer = function", 1)
    if "var PorterStemmer = function" not in porter:
        raise ExtensionError(
            "korean_search: Sphinx 의 영어 Porter 스테머 JavaScript 모양이 바뀌었습니다 ('var Stemmer = function' 없음). "
            "/ Sphinx's English stemmer code no longer starts with 'var Stemmer = function'."
        )
    hangul = HANGUL_CLASS.encode("unicode_escape").decode("ascii").replace("\\", "\\\\")
    return porter + JS_STEMMER_WRAPPER.replace("__HANGUL__", hangul)


class SearchKorean(SearchEnglish):
    """한국어 검색 언어: 한글은 n-gram 과 조사 떼기, 라틴 문자는 영어(Porter) 그대로."""

    lang = "ko"
    language_name = "Korean"
    js_splitter_code = _js_splitter_code()
    js_stemmer_code = _js_stemmer_code()

    def split(self, input: str) -> list[str]:  # noqa: A002 (Sphinx 의 인자 이름)
        """색인할 낱말들. 라틴 문자 등은 한 낱말로, 한글 덩어리는 :func:`hangul_index_terms`."""
        words: list[str] = []
        for token in _WORD_RE.findall(input):
            for run in script_runs(token):
                if is_hangul(run):
                    words.extend(hangul_index_terms(run))
                else:
                    words.append(run)
        return words

    def stem(self, word: str) -> str:
        """한글 낱말은 그대로 (소문자화/어간 추출 없음), 그 밖은 영어 Porter."""
        if is_hangul(word):
            return word
        return super().stem(word)


def query_terms(query: str) -> list[str]:
    """검색 페이지가 검색어를 나누는 규칙의 Python 판 (JavaScript ``splitQuery`` 와 같음; 시험용)."""
    terms: list[str] = []
    for token in _WORD_RE.findall(query):
        for run in script_runs(token):
            term = hangul_query_term(run) if is_hangul(run) else run
            if term:
                terms.append(term)
    return terms


#: 검색 페이지에만 싣는 스크립트와 스타일 (attn_site/static/ -> _static/)
SEARCH_PAGE_JS: tuple[str, ...] = ("js/search-snippets.js", "js/search-ranking.js")
SEARCH_PAGE_CSS: tuple[str, ...] = ("css/search.css",)


def add_search_page_assets(app: Sphinx, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """검색 결과 요약/순위 스크립트와 스타일은 ``search.html`` 에만 넣습니다 (다른 페이지는 검색을 돌리지 않음).

    ``html-page-context`` 안에서 부른 ``add_js_file`` 은 그 페이지에만 들어갑니다 (Sphinx 가 페이지마다 되돌림).
    """
    if pagename == "search":
        for path in SEARCH_PAGE_JS:
            app.add_js_file(path)
        for path in SEARCH_PAGE_CSS:
            app.add_css_file(path)


def setup(app: Sphinx) -> dict[str, Any]:
    add_static_dir(app)  # 검색 페이지의 js/css (attn_site/static -> _static)
    app.add_search_language(SearchKorean)
    app.connect("builder-inited", index_searchable_text)
    app.connect("html-page-context", add_search_page_assets)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
