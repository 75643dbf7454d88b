/*
 * thebe-mathjax.js: thebe 0.9 의 LaTeX 조판기가 CDN(cdnjs)의 MathJax 2.7.5 대신 싣는 작은 어댑터.
 * thebe-local.js 가 bootstrap 에 `mathjaxUrl` 로 이 파일 주소를 넘깁니다.
 * Loaded by thebe 0.9's LaTeX typesetter instead of MathJax 2.7.5 from a CDN.
 *
 * thebe 는 이 스크립트를 실은 뒤 MathJax 2 API 를 부릅니다:
 *   MathJax.Hub.Config({...}), MathJax.Hub.Register.StartupHook(...), MathJax.Hub.Configured(),
 *   MathJax.Hub.Queue(["Typeset", MathJax.Hub, el]),
 *   MathJax.Hub.Queue(["Require", MathJax.Ajax, "...AMSmath.js"], fn)  (fn: 수식 번호 초기화)
 * 수식이나 위젯이 있는 페이지에는 이미 MathJax 3 과 offline-setup.js 의 MathJax.Hub.Queue 호환층이
 * 있으므로, 조판은 그쪽으로 넘기고 나머지(설정, Require)는 MathJax 3 에서 할 일이 없어 건너뜁니다.
 * MathJax 가 없는 페이지에서는 아무것도 조판하지 않습니다 (LaTeX 출력은 글자 그대로 보입니다).
 * (Typesetting goes to the page's MathJax 3 through offline-setup.js's Hub.Queue shim; the rest of
 * the MathJax 2 API thebe touches is a no-op. Pages without MathJax typeset nothing.)
 */
(function () {
  "use strict";

  var mj = window.MathJax;
  if (!mj || typeof mj !== "object") {
    mj = window.MathJax = {};
  }
  var hub = mj.Hub || (mj.Hub = { Queue: function () {} });
  if (hub.thebeLocal) {
    return;
  }
  var queue = hub.Queue;
  hub.Queue = function () {
    var jobs = Array.prototype.filter.call(arguments, function (job) {
      return !(Array.isArray(job) && job[0] === "Require"); // MathJax 3 은 확장을 따로 부르지 않음
    });
    if (jobs.length) {
      queue.apply(hub, jobs);
    }
  };
  hub.Config = hub.Config || function () {};
  hub.Configured = hub.Configured || function () {};
  hub.Register = hub.Register || { StartupHook: function () {} };
  hub.config = hub.config || {};
  hub.thebeLocal = true;
  // 수식 번호 초기화: MathJax 3 에서는 texReset (resetEquationNumbers in MathJax 3 terms)
  mj.InputJax = mj.InputJax || {
    TeX: {
      resetEquationNumbers: function () {
        if (typeof window.MathJax.texReset === "function") {
          window.MathJax.texReset();
        }
      },
    },
  };
})();
