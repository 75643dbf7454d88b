/*
 * search-snippets.js: 검색 결과 요약을 본문(article)의 읽을 글에서만 뽑습니다.
 * Search result snippets come from the article's readable text only.
 *
 * Sphinx 7.4 의 searchtools.js 는 결과 페이지의 [role="main"] 전체 글에서 요약을 뽑습니다. 그러면
 *  - 테마의 내려받기 단추(.ipynb, .pdf)와 목차 제목("내용")이 요약 앞에 붙고,
 *  - 수식이 TeX 원문으로 나오며("\mathrm{Attention}"; 한국어 글꼴은 역슬래시를 ₩ 로 그림),
 *  - 정적 탐색기의 "불러오는 중" 안내, 숨긴 셀 단추의 글이 섞입니다.
 * 그래서 article.bd-article 만 쓰고, KO_SEARCH.skipSelector 의 요소(스크립트, 스타일, 안내 글...)는
 * 지우고, 수식(KO_SEARCH.mathSelector)은 "(수식)" 으로 바꿉니다. 빈칸으로 지우면 "먼저 를 곱합니다"
 * 처럼 조사만 남아 문장이 끊기므로 자리표시를 둡니다. 다만 TeX 명령이 없는 짧은 수식("d_k", "h = 8")은
 * 그 글 그대로 둡니다: 색인이 수식 안의 이름을 찾으므로 요약에도 보여야 합니다. 목록은 attn_site/korean_search.py 에 있고
 * (language_data.js 의 KO_SEARCH), 검색 색인도 같은 목록으로 같은 글을 뺍니다.
 * attn_site/korean_search.py 가 search.html 에만 넣습니다.
 */
(function () {
  "use strict";

  function squash(text) {
    return text.replace(/\s+/g, " ").trim();
  }

  // TeX 명령, 중괄호, 위첨자가 없는 짧은 수식 (글자 그대로 읽힘)
  var PLAIN_MATH = /^[\p{Letter}\p{Number}_ ,.=+\-*\/()|<>:;'×·−]{1,40}$/u;

  /** 수식 요소 자리에 넣을 글: 짧고 평범한 수식은 그 글, 나머지는 자리표시. */
  function mathText(el, settings) {
    if (el.children.length === 0) {
      var tex = el.textContent.trim().replace(/^\\[(\[]/, "").replace(/\\[)\]]$/, "").trim();
      if (PLAIN_MATH.test(tex)) return tex;
    }
    return settings.mathPlaceholder;
  }

  /** 본문 요소에서 읽을 글만 (요소를 바꾸므로 파싱한 사본에만 씁니다). */
  function readableText(root, settings) {
    root.querySelectorAll(settings.mathSelector).forEach(function (el) {
      // 겹친 수식 요소(span.math 안의 mjx-container)는 바깥 것만 바꿉니다
      if (el.parentElement && el.parentElement.closest(settings.mathSelector)) return;
      el.replaceWith(el.ownerDocument.createTextNode(mathText(el, settings)));
    });
    root.querySelectorAll(settings.skipSelector).forEach(function (el) { el.remove(); });
    return squash(root.textContent);
  }

  function patch() {
    if (typeof Search === "undefined" || typeof Search.htmlToText !== "function" || Search.__articleOnly) {
      return;
    }
    if (typeof KO_SEARCH === "undefined" || !KO_SEARCH.skipSelector) {
      return;  // 한국어 검색 확장이 없으면 Sphinx 의 원래 동작 (language_data.js 에 KO_SEARCH 가 없음)
    }
    var original = Search.htmlToText;
    Search.htmlToText = function (htmlString, anchor) {
      var doc = new DOMParser().parseFromString(htmlString, "text/html");
      var article = doc.querySelector("article.bd-article");
      if (!article) {
        return original(htmlString, anchor);
      }
      if (anchor) {
        // id 에 "/" 나 숫자 머리가 있으면 querySelector 가 예외를 내므로 getElementById 를 씁니다
        var block = doc.getElementById(decodeURIComponent(anchor.replace(/^#/, "")));
        if (block && article.contains(block)) {
          return readableText(block, KO_SEARCH);
        }
      }
      return readableText(article, KO_SEARCH);
    };
    Search.__articleOnly = true;
  }

  // 이 파일은 searchtools.js 보다 먼저 실릴 수 있습니다 (Search 는 그 파일의 전역 const).
  // 이미 있으면 바로, 없으면 DOMContentLoaded 에서 바꿉니다. 검색(Search.init)도 DOMContentLoaded 에서
  // 시작하지만 이 듣개가 먼저 등록되므로 먼저 돕니다.
  patch();
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", patch);
  }
})();
