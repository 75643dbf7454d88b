/*
 * nav-toggle.js: 머리글의 ≡ (장 목록) 단추와 "이 페이지" 단추가 실제로 동작하게 합니다.
 *
 * pydata-sphinx-theme 0.17 은 sphinx-book-theme 1.3 아래에서 .primary-toggle (.secondary-toggle)
 * 단추를 두 개 그리는데, 테마 스크립트는 querySelector 로 첫 번째(화면에 보이지 않는) 단추에만
 * 이벤트를 붙입니다. 그래서 보이는 단추를 눌러도 휴대폰에서는 장 목록이 열리지 않고, 노트북에서는
 * 사이드바가 숨지 않습니다. 윗물 이슈 (둘 다 2026-11 에 열려 있음):
 *   - pydata-sphinx-theme issue 2451
 *   - sphinx-book-theme issue 988
 * 두 이슈가 닫히고 테마를 올리면 이 파일과 attn_site/korean_ui.py 의 등록 한 줄을 지우세요.
 *
 * 동작: 테마가 이미 이벤트를 붙인 첫 단추는 건드리지 않습니다(두 번 토글되지 않도록). 나머지 단추를 누르면
 *   - 사이드바가 화면에 보이는 넓은 화면: 사이드바를 숨기고, 다시 누르면 보입니다 (aria-expanded 갱신).
 *   - 사이드바가 숨은 좁은 화면(휴대폰): 테마가 붙인 첫 단추를 대신 눌러 테마의 대화상자(목록)를 엽니다.
 *     대화상자는 Escape 와 바깥 누르기로 닫힙니다 (테마의 동작).
 */
(function () {
  "use strict";
  var HIDDEN = "attn-sidebar-hidden";

  function visible(el) {
    if (!el) { return false; }
    var style = window.getComputedStyle(el);
    return style.display !== "none" && style.visibility !== "hidden" && el.getBoundingClientRect().width > 0;
  }

  function wire(kind, sidebarId, labelOpen, labelClose) {
    var buttons = document.querySelectorAll("." + kind);
    if (buttons.length < 2) { return; }
    var wired = buttons[0];  // 테마가 이벤트를 붙인 단추
    var sidebar = document.getElementById(sidebarId);
    Array.prototype.slice.call(buttons, 1).forEach(function (button) {
      if (button.dataset.attnNavToggle) { return; }
      button.dataset.attnNavToggle = "1";
      button.setAttribute("aria-controls", sidebarId);
      button.setAttribute("aria-label", labelOpen);
      button.setAttribute("title", labelOpen);
      button.removeAttribute("data-bs-toggle");  // 영어 툴팁 대신 한국어 title
      // 사이드바가 보이는지는 IntersectionObserver 로 묻습니다: 브라우저가 어차피 하는 배치 뒤에 답하므로,
      // getBoundingClientRect 처럼 큰 페이지의 배치를 그 자리에서 강제하지 않습니다 (느린 휴대폰에서 0.2~0.3초의
      // 긴 작업이었음, make bench-site). Asked without forcing a synchronous layout.
      button.setAttribute("aria-expanded", "false");
      if (sidebar && "IntersectionObserver" in window) {
        var seen = new IntersectionObserver(function (entries) {
          var rect = entries[entries.length - 1].boundingClientRect;
          if (!sidebar.classList.contains(HIDDEN)) {
            button.setAttribute("aria-expanded", rect.width > 0 && rect.height > 0 ? "true" : "false");
          }
          seen.disconnect();
        });
        seen.observe(sidebar);
      }
      button.addEventListener("click", function (event) {
        event.preventDefault();
        event.stopPropagation();
        if (sidebar && sidebar.classList.contains(HIDDEN)) {
          sidebar.classList.remove(HIDDEN);
          button.setAttribute("aria-expanded", "true");
          button.setAttribute("aria-label", labelClose);
        } else if (visible(sidebar)) {
          sidebar.classList.add(HIDDEN);
          button.setAttribute("aria-expanded", "false");
          button.setAttribute("aria-label", labelOpen);
        } else {
          wired.click();  // 좁은 화면: 테마의 대화상자
        }
      });
    });
  }

  function init() {
    wire("primary-toggle", "pst-primary-sidebar", "장 목록 열기", "장 목록 숨기기");
    wire("secondary-toggle", "pst-secondary-sidebar", "이 페이지의 차례 열기", "이 페이지의 차례 숨기기");
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", init);
  } else {
    init();
  }
})();
