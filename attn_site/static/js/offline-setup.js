/*
 * offline-setup.js: 네트워크 없이도 수식과 위젯이 보이도록 준비하는 스크립트.
 * Prepares every page so math and Jupyter widgets work with no network (no CDN).
 *
 * attn_site/offline_assets.py 가 모든 페이지에 이 스크립트를 넣습니다. 순서:
 * Sphinx 의 인라인 `window.MathJax = {...}` 설정 다음, MathJax 3 (defer) 와
 * require.js / @jupyter-widgets/html-manager (embed-amd.js) 앞.
 * Included by attn_site/offline_assets.py after the inline MathJax config and before
 * MathJax 3, require.js and embed-amd.js.
 *
 * (a) html-manager 는 글꼴(font-awesome)을 webpack public path 기준으로 찾습니다.
 *     `window.__jupyter_widgets_assets_path__` 를 이 스크립트 주소로부터 계산한
 *     `_static/vendor/html-manager/` 절대 주소로 둡니다 (페이지마다 깊이가 다름).
 *     embed-amd.js 의 일부 모듈은 그보다 먼저 require.js 의 모듈 주소로 글꼴 위치를 정하므로,
 *     위젯 페이지에서는 require.js 설정(paths)도 같은 폴더를 가리키게 합니다.
 *     embed-amd.js 에 없는 위젯 모듈은 jsDelivr 대신 로컬 주소에서 찾게 합니다.
 *     (Fonts: set the public path and the require.js paths to vendor/html-manager/;
 *     unknown widget modules are looked up on this site, never on a CDN.)
 * (b) html-manager 는 MathJax 2 API `MathJax.Hub.Queue(["Typeset", MathJax.Hub, el])`
 *     를 부르지만 Sphinx 는 MathJax 3 을 싣습니다. 작은 호환층(shim)이 이 요청을
 *     `MathJax.typesetPromise([el])` 로 넘기고, MathJax 가 준비되기 전 요청은 모아 둡니다.
 * (c) 본문 수식은 빌드 때 SVG 로 그려 두므로(attn_site/math_svg.py) 페이지는 MathJax 를 싣지 않습니다.
 *     Live Code(thebe)나 위젯이 처음 조판을 청할 때에만 vendor/mathjax/tex-chtml.js 를 불러옵니다
 *     (그때도 페이지 전체는 다시 조판하지 않음: startup.typeset = false).
 *     (Body math is SVG from the build; MathJax is loaded on the first typeset request only.)
 */
(function () {
  "use strict";

  var SELF = "js/offline-setup.js";
  var script = document.currentScript;
  if (!script || !script.src) {
    script = document.querySelector('script[src*="' + SELF + '"]');
  }
  if (!script || !script.src) {
    console.error("offline-setup.js: 자기 주소를 찾지 못했습니다 (cannot find own src)");
    return;
  }

  // .../_static/js/offline-setup.js?v=... -> .../_static/vendor/
  var vendor = new URL("../vendor/", script.src).href;

  // (a) 위젯 글꼴과 모듈 (widget fonts and modules) --------------------------------
  window.__jupyter_widgets_assets_path__ = vendor + "html-manager/";
  // embed-amd.js 의 AMD 모듈들은 글꼴 주소를 require.js 가 정한 모듈 주소(module.uri)의
  // 폴더로 정합니다. 기본 baseUrl 은 페이지 폴더라서 chapters/@jupyter-widgets/... 처럼 없는
  // 곳을 찾습니다. 위젯 페이지에서는 require.js 가 읽을 설정(window.require 객체)으로
  // 그 모듈들이 vendor/html-manager/ 에 있는 것처럼 알려 줍니다.
  // The AMD modules in embed-amd.js resolve their fonts next to their require.js module
  // URL (relative to baseUrl = the page folder by default); map them into vendor/html-manager/.
  if (script.hasAttribute("data-jupyter-widgets-page")) {
    var hm = vendor + "html-manager/";
    var paths = { "@jupyter-widgets/html-manager/dist": hm.replace(/\/$/, "") };
    ["base", "base7", "controls", "controls7", "html-manager", "output"].forEach(function (name) {
      paths["@jupyter-widgets/" + name] = hm + name;
    });
    if (typeof window.require === "function" && window.require.config) {
      window.require.config({ paths: paths });
    } else if (typeof window.require === "undefined") {
      window.require = { paths: paths }; // require.js 가 불러올 때 설정으로 씁니다
    }
  }

  // embed-amd.js 는 페이지의 script 태그에서 data-jupyter-widgets-cdn 을 읽습니다.
  // 번들에 없는 위젯 모듈도 CDN 이 아니라 이 사이트에서만 찾도록 로컬 주소를 둡니다.
  script.setAttribute("data-jupyter-widgets-cdn", vendor + "widgets-cdn/");

  // (b) MathJax 2 호환층 (MathJax 2 shim for html-manager) --------------------------
  var config = window.MathJax;
  if (!config || typeof config !== "object" || config.version) {
    // 수식이 없는 페이지: MathJax 를 싣지 않으므로 html-manager 도 조판하지 않습니다.
    return;
  }

  var pending = []; // MathJax 준비 전에 들어온 요청 (requests before MathJax is ready)
  var ready = false;
  var chain = null;
  var requested = false;

  // (c) 처음 조판 요청이 올 때 MathJax 를 불러옵니다 (페이지가 이미 싣고 있으면 그대로 기다림).
  function loadMathJax() {
    if (requested || ready) {
      return;
    }
    requested = true;
    if (current.version || document.querySelector('script[src*="vendor/mathjax/tex-chtml.js"]')) {
      return;
    }
    config.startup.typeset = false; // 본문 수식은 이미 SVG (body math is already SVG)
    var tag = document.createElement("script");
    tag.src = vendor + "mathjax/tex-chtml.js";
    tag.async = true;
    document.head.appendChild(tag);
  }

  function run(job) {
    var mj = window.MathJax;
    chain = (chain || mj.startup.promise)
      .then(job)
      .catch(function (err) {
        console.error("MathJax 조판 실패 (typeset failed):", err);
      });
    return chain;
  }

  function typeset(el) {
    return run(function () {
      var mj = window.MathJax;
      if (el && el.nodeType === 1 && mj.typesetClear) {
        mj.typesetClear([el]); // 같은 요소를 다시 조판할 때 (re-typeset the same element)
      }
      return mj.typesetPromise(el ? [el] : undefined);
    });
  }

  function handle(item) {
    if (typeof item === "function") {
      return run(function () { item(); });
    }
    if (Array.isArray(item)) {
      if (item[0] === "Typeset") {
        return typeset(item[2]);
      }
      if (typeof item[0] === "function") {
        var fn = item[0];
        var args = item.slice(1);
        return run(function () { fn.apply(null, args); });
      }
    }
    console.warn("MathJax.Hub.Queue: 지원하지 않는 요청 (unsupported request)", item);
  }

  var hub = {
    Queue: function () {
      for (var i = 0; i < arguments.length; i++) {
        if (ready) {
          handle(arguments[i]);
        } else {
          pending.push(arguments[i]);
          loadMathJax();
        }
      }
    },
    Typeset: function (el, callback) {
      hub.Queue(["Typeset", hub, el]);
      if (typeof callback === "function") {
        hub.Queue(callback);
      }
    }
  };

  function attachHub(obj) {
    if (obj && typeof obj === "object" && obj.Hub !== hub) {
      try {
        Object.defineProperty(obj, "Hub", {
          value: hub, writable: true, configurable: true, enumerable: false
        });
      } catch (e) { /* 얼린 객체 (frozen object) */ }
    }
  }

  // MathJax 3 은 불러올 때 window.MathJax 를 새 객체로 바꿉니다 (설정은 MathJax.config 로).
  // 그 사이에도 MathJax.Hub 가 있도록 window.MathJax 에 접근자를 둡니다.
  // MathJax 3 replaces window.MathJax on load; keep a Hub on whichever object is current.
  var current = config;
  attachHub(current);
  try {
    Object.defineProperty(window, "MathJax", {
      configurable: true,
      enumerable: true,
      get: function () { return current; },
      set: function (value) { current = value; attachHub(value); }
    });
  } catch (e) { /* startup.ready 가 아래에서 Hub 를 다시 붙입니다 */ }

  // 위젯 라벨은 Jupyter 처럼 $...$ 를 씁니다. Sphinx 본문 수식은 \( \) 그대로입니다.
  // Widget labels use $...$ as in Jupyter; Sphinx's own math keeps \( \).
  config.tex = config.tex || {};
  if (!config.tex.inlineMath) {
    config.tex.inlineMath = [["$", "$"], ["\\(", "\\)"]];
  }
  if (config.tex.processEscapes === undefined) {
    config.tex.processEscapes = true;
  }

  config.startup = config.startup || {};
  var userReady = config.startup.ready;
  config.startup.ready = function () {
    if (typeof userReady === "function") {
      userReady();
    } else {
      window.MathJax.startup.defaultReady();
    }
    window.MathJax.Hub = hub;
    ready = true;
    var queued = pending.splice(0, pending.length);
    for (var i = 0; i < queued.length; i++) {
      handle(queued[i]);
    }
  };
})();
