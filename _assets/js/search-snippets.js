/*
 * search-snippets.js: 검색 결과 요약을 본문(article)에서만 뽑습니다.
 * Search result snippets come from the article only.
 *
 * Sphinx 7.4 의 searchtools.js 는 결과 페이지의 [role="main"] 전체에서 요약 글을 뽑습니다.
 * pydata-sphinx-theme 에서는 그 안에 내려받기 단추(.ipynb, .pdf)와 목차 제목("내용")도 있어서
 * 요약이 "...df 단일 헤드의 한계 내용 ..." 처럼 시작했습니다. 본문 article.bd-article 이 있으면
 * 그것만 쓰고, 없으면 Sphinx 의 원래 동작을 따릅니다. _ext/korean_ui.py 가 모든 페이지에 넣습니다.
 */
(function () {
  "use strict";

  function patch() {
    if (typeof Search === "undefined" || typeof Search.htmlToText !== "function" || Search.__articleOnly) {
      return;
    }
    var original = Search.htmlToText;
    Search.htmlToText = function (htmlString, anchor) {
      var doc = new DOMParser().parseFromString(htmlString, "text/html");
      var article = doc.querySelector("article.bd-article");
      if (!article) {
        return original(htmlString, anchor);
      }
      article.querySelectorAll(".headerlink, script, style").forEach(function (el) { el.remove(); });
      if (anchor) {
        var block = article.querySelector(anchor);
        if (block) {
          return block.textContent;
        }
      }
      return article.textContent;
    };
    Search.__articleOnly = true;
  }

  // searchtools.js 의 Search 는 전역 const 라서 모든 스크립트가 실행된 뒤(DOMContentLoaded)에 바꿉니다.
  // 요약은 검색 색인과 결과 페이지를 비동기로 받은 뒤에 만들어지므로 그 전에 바뀝니다.
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", patch);
  } else {
    patch();
  }
})();
