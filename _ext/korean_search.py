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
3. 이 파일이 바뀌면 모든 페이지를 다시 씁니다: ``_ext/offline_assets.py`` 의 지문이 ``_ext/`` 의
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
from typing import Any

from sphinx.application import Sphinx
from sphinx.errors import ExtensionError
from sphinx.search.en import SearchEnglish

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
/* korean_search: 한국어 검색어 나누기 (Korean query splitter, see _ext/korean_search.py) */
var KO_SEARCH = {
  particles: __PARTICLES__,
  minQueryStem: __MIN_QUERY_STEM__,
  hangul: new RegExp("[__HANGUL__]"),
  runs: new RegExp("[__HANGUL__]+|[^__HANGUL__]+", "gu"),
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


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_search_language(SearchKorean)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
