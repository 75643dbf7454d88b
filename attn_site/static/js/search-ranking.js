/*
 * search-ranking.js: 검색 결과 순서 = 페이지 제목 > 절 제목 > 본문.
 * Result order: a hit in a page title, then in a section title, then in body text.
 *
 * Sphinx 7.4 의 searchtools.js 에서는
 *  - 낱말마다 "제목에 있음"(15) / "본문에 있음"(5) 점수를 매기고 페이지 점수는 그 최댓값이라서,
 *    "크로스 어텐션" 을 찾으면 제목에 "어텐션" 만 있는 페이지(멀티헤드 어텐션)가 제목이 "크로스 어텐션을
 *    한 단계씩" 인 절(8점)보다 앞에 옵니다.
 *  - 절 결과는 검색어 원문이 제목 길이의 절반 이상일 때만 만들어서, 조사가 붙은 한국어 검색어
 *    ("마스크를")나 긴 한국어 제목("인과 마스크가 미래를 막는다는 증거")은 절 결과가 되지 못합니다.
 *  - 점수 조정 고리 Scorer.score 는 결과 하나만 받고 검색어를 모르므로 이 일을 할 수 없습니다.
 * 그래서 Search._performSearch 를 감싸 Sphinx 가 찾은 페이지들을 다시 나눕니다.
 *  1. 페이지 제목에 검색어의 낱말이 모두 있으면: 페이지 결과 (맨 앞)
 *  2. 절 제목(색인의 alltitles)에 낱말이 모두 있으면: 그 절로 가는 결과, 한 페이지에서 최대
 *     KO_SEARCH.maxSectionsPerPage 개 (짧은 제목, 곧 검색어가 제목의 큰 몫인 것부터). 해답 드롭다운은 뺌.
 *  3. 나머지: 본문 결과. 검색어 낱말을 더 많이 가진 페이지가 앞.
 * 같은 층 안에서는 제목에서 검색어가 차지하는 몫, Sphinx 점수, 문서 순서(장 번호) 차례입니다.
 * 낱말이 제목에 "있다" 는 색인과 같은 규칙입니다 (KO_SEARCH.titleWords: 한글 n-gram 과 조사 떼기,
 * 영어는 어간; 세 글자 이상은 부분 일치). 책 어디에도 없는 낱말은 Sphinx 처럼 따지지 않습니다.
 * attn_site/korean_search.py 가 search.html 에만 넣습니다.
 */
(function () {
  "use strict";

  var TIER = { page: 3, section: 2, body: 1 };

  function plainText(html) {
    return new DOMParser().parseFromString(html, "text/html").body.textContent;
  }

  function escapeHtml(text) {
    var span = document.createElement("span");
    span.textContent = text;
    return span.innerHTML;
  }

  /** 색인에 낱말이 있는 파일 번호들 (정확히 일치, 세 글자 이상이면 부분 일치도; Sphinx 와 같음). */
  function filesWith(index, term) {
    var files = new Set();
    [index.terms, index.titleterms].forEach(function (map) {
      Object.keys(map).forEach(function (key) {
        if (key === term || (term.length > 2 && key.indexOf(term) > -1)) {
          var hit = map[key];
          (Array.isArray(hit) ? hit : [hit]).forEach(function (f) { files.add(f); });
        }
      });
    });
    return files;
  }

  function titleHas(words, term) {
    if (words.has(term)) return true;
    if (term.length <= 2) return false;
    for (var w of words) if (w.indexOf(term) > -1) return true;
    return false;
  }

  function rerank(results, searchTerms) {
    var index = Search._index;
    var stemmer = new Stemmer();
    var fileOf = new Map(index.docnames.map(function (d, i) { return [d, i]; }));
    var termFiles = new Map();
    [...searchTerms].forEach(function (t) { termFiles.set(t, filesWith(index, t)); });
    // 책 어디에도 없는 낱말은 빼고 따집니다 (Sphinx 도 두 글자 이하의 없는 낱말은 무시)
    var terms = [...searchTerms].filter(function (t) { return termFiles.get(t).size > 0; });
    if (terms.length === 0) return results;
    var inTitle = function (title) {
      var words = KO_SEARCH.titleWords(title, stemmer);
      return terms.every(function (t) { return titleHas(words, t); });
    };

    // Sphinx 가 찾은 페이지 (파일 번호 -> 가장 높은 Sphinx 점수). 객체/색인 항목 결과는 그대로 둡니다.
    var found = new Map();
    var others = [];
    results.forEach(function (r) {
      var file = fileOf.get(r[0]);
      if (file === undefined || r[3]) { others.push(r); return; }
      found.set(file, Math.max(found.has(file) ? found.get(file) : -Infinity, r[4]));
    });

    // 절 제목 (alltitles: 제목 -> [[파일, id], ...]; 페이지 제목은 id 가 null)
    var sections = new Map();
    Object.entries(index.alltitles).forEach(function (entry) {
      var title = entry[0];
      var places = entry[1].filter(function (p) {
        return p[1] !== null && found.has(p[0]) && !/-solution-\d+$/.test(p[1]);
      });
      if (places.length === 0 || !inTitle(title)) return;
      var share = terms.join("").length / Math.max(title.trim().length, 1);
      places.forEach(function (p) {
        if (!sections.has(p[0])) sections.set(p[0], []);
        sections.get(p[0]).push({ title: title.trim(), id: p[1], share: share });
      });
    });

    var out = [];
    var push = function (file, title, anchor, tier, within) {
      // 점수: 층 * 1000 + 층 안의 순서 (몫 0..1 -> 0..100, Sphinx 점수, 앞 장이 앞)
      var score = tier * 1000 + within;
      out.push([index.docnames[file], title, anchor, null, score, index.filenames[file], file]);
    };
    found.forEach(function (sphinxScore, file) {
      var pageTitle = index.titles[file];
      var pageHit = inTitle(plainText(pageTitle));
      var own = (sections.get(file) || [])
        .sort(function (a, b) { return b.share - a.share; })
        .slice(0, KO_SEARCH.maxSectionsPerPage);
      if (pageHit) push(file, pageTitle, "", TIER.page, 100);
      own.forEach(function (s) {
        push(file, pageTitle + " &gt; " + escapeHtml(s.title), "#" + s.id, TIER.section, Math.round(100 * s.share));
      });
      if (!pageHit && own.length === 0) {
        var matched = terms.filter(function (t) { return termFiles.get(t).has(file); }).length;
        push(file, pageTitle, "", TIER.body, matched * 100 + sphinxScore);
      }
    });
    // 오름차순 (searchtools.js 는 목록 끝에서부터 꺼내 보여 줍니다). 같은 점수면 앞 장이 먼저 보이도록.
    out.sort(function (a, b) { return a[4] - b[4] || b[6] - a[6]; });
    return others.concat(out.map(function (r) { return r.slice(0, 6); }));
  }

  function patch() {
    if (typeof Search === "undefined" || typeof Search._performSearch !== "function" || Search.__koRanking) {
      return;
    }
    if (typeof KO_SEARCH === "undefined" || typeof KO_SEARCH.titleWords !== "function") {
      return;  // 한국어 검색 확장이 없으면 Sphinx 의 원래 순서
    }
    var original = Search._performSearch;
    Search._performSearch = function (query, searchTerms, excludedTerms, highlightTerms, objectTerms) {
      var results = original.apply(this, arguments);
      return rerank(results, searchTerms);
    };
    Search.__koRanking = true;
  }

  // search-snippets.js 와 같은 까닭으로: 지금 바꿀 수 있으면 바로, 아니면 DOMContentLoaded 에서.
  patch();
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", patch);
  }
})();
