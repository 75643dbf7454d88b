/*
 * thebe-local.js: sphinx-thebe 0.3.1 의 페이지 스크립트가 사이트에 함께 올린 thebe 0.9.2 와
 * 함께 동작하게 하는 작은 호환층입니다.
 * A small shim so sphinx-thebe 0.3.1 (written for thebe 0.8) works with the vendored thebe 0.9.2.
 *
 * attn_site/thebe_local.py 가 모든 페이지에 넣고, 페이지의 인라인 설정이
 * `THEBE_JS_URL` (사이트 안의 _static/vendor/thebe/index.js) 과 `THEBE_CSS_URL` 을 정합니다.
 * 독자가 'Live Code' 를 누르면 sphinx-thebe 가 THEBE_JS_URL 의 스크립트를 싣고
 * `thebelab.bootstrap()` 을 부릅니다. thebe 는 실릴 때 `window.thebelab = window.thebe` 를
 * 두는데, 그 순간을 잡아 두 가지를 고칩니다.
 *
 * (a) thebe 0.9 의 `bootstrap(opts)` 는 병합한 설정이 아니라 넘겨받은 `opts.requestKernel` 만
 *     보고, 없으면 Binder 서버에만 연결하고 커널 세션을 열지 않습니다. sphinx-thebe 는 인자 없이
 *     부르므로, 페이지 설정(`requestKernel: true`)이 무시되어 셀을 실행할 수 없습니다.
 *     그래서 `{requestKernel: true}` 를 기본값으로 넘깁니다.
 *     (thebe 0.9 only starts a kernel session when the *argument* has requestKernel: true.)
 * (b) thebe 0.8 은 CSS 를 JS 안에 담았지만 0.9 는 thebe.css 로 따로 둡니다 (CodeMirror,
 *     출력 영역). 모든 페이지에 100 KB 를 싣지 않도록 thebe 가 실릴 때에만 <link> 를 넣습니다.
 *     (thebe 0.9 ships its CSS separately: load it only when thebe itself is loaded.)
 * (c) thebe 0.9 의 LaTeX 조판기는 bootstrap 때 cdnjs 에서 MathJax 2.7.5 를 싣습니다. 그 대신 이 폴더의
 *     thebe-mathjax.js (페이지의 MathJax 3 으로 넘기는 어댑터)를 `mathjaxUrl` 로 넘깁니다.
 *     (thebe would fetch MathJax 2.7.5 from a CDN at bootstrap; point it at a local adapter.)
 *
 * (d) 실행한 셀이 위젯을 처음 보여 줄 때 thebe 의 위젯 관리자는 번들에 고정된 주소(cdnjs)에서
 *     require.js 2.3.6 을 fetch 로 받습니다. 그 요청 하나만 사이트의 vendor/requirejs/require.js 로
 *     돌립니다 (ipywidgets 기본 위젯은 thebe 번들 안에 있어 그것으로 충분합니다).
 *     (Redirect thebe's one hard-coded require.js fetch to the site's own copy.)
 *
 * 바꾸지 않는 것 (left as is): 번들에 없는 제3자 위젯 모듈은 thebe 가 cdn.jsdelivr.net 에서
 * 찾습니다. 이 책의 장은 ipywidgets 기본 위젯만 씁니다. README 의 'Live Code' 절을 보세요.
 */
(function () {
  "use strict";

  var current;
  var self = document.currentScript;
  // 이 스크립트 옆의 어댑터 (the adapter next to this script), ?v= 없이
  var mathjaxUrl = self && self.src ? new URL("thebe-mathjax.js", self.src).href : undefined;

  function addStylesheet() {
    if (typeof THEBE_CSS_URL === "undefined" || document.querySelector("link[data-thebe-local]")) {
      return;
    }
    var link = document.createElement("link");
    link.rel = "stylesheet";
    link.href = THEBE_CSS_URL;
    link.setAttribute("data-thebe-local", "");
    document.head.appendChild(link);
  }

  // thebe 번들의 require.js 주소: https://<cdnjs>/ajax/libs/require.js/<버전>/require.min.js
  var REQUIREJS_PATH = /^\/ajax\/libs\/require\.js\/[\d.]+\/require(\.min)?\.js$/;
  var localRequire = self && self.src ? new URL("../vendor/requirejs/require.js", self.src).href : undefined;

  function redirectRequireJs() {
    var fetch = window.fetch;
    if (!localRequire || typeof fetch !== "function" || fetch.thebeLocal) {
      return;
    }
    var wrapped = function (input, init) {
      if (typeof input === "string") {
        var url = new URL(input, document.baseURI);
        if (url.hostname === "cdnjs.cloudflare.com" && REQUIREJS_PATH.test(url.pathname)) {
          input = localRequire;
        }
      }
      return fetch.call(this, input, init);
    };
    wrapped.thebeLocal = true;
    window.fetch = wrapped;
  }

  function patch(thebe) {
    if (!thebe || typeof thebe.bootstrap !== "function" || thebe.bootstrap.thebeLocal) {
      return;
    }
    var bootstrap = thebe.bootstrap;
    var wrapped = function (opts) {
      var defaults = { requestKernel: true };
      if (mathjaxUrl) {
        defaults.mathjaxUrl = mathjaxUrl;
      }
      return bootstrap(Object.assign(defaults, opts || {}));
    };
    wrapped.thebeLocal = true;
    thebe.bootstrap = wrapped;
    addStylesheet();
    redirectRequireJs();
  }

  Object.defineProperty(window, "thebelab", {
    configurable: true,
    enumerable: true,
    get: function () {
      return current;
    },
    set: function (value) {
      current = value;
      patch(value);
    },
  });
})();
