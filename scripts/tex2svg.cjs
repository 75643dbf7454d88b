#!/usr/bin/env node
/*
 * tex2svg.cjs: 빌드할 때 페이지의 TeX 수식을 SVG 로 바꿉니다 (npm mathjax-full 3, 오프라인).
 * Renders a page's TeX formulas to SVG at build time, so the site ships no MathJax for its own math.
 *
 * _ext/math_svg.py 가 페이지마다 한 번 부릅니다. 표준 입력으로 JSON 을 받고 표준 출력으로 JSON 을 냅니다.
 *   입력  {"items": [{"tex": "d_k", "display": false}, ...]}
 *   출력  {"items": [{"svg": "<svg ...>", "mml": "<math ...>"} 또는 {"error": "..."}, ...],
 *          "cache": "<svg id=\"MJX-SVG-global-cache\" ...>",   // 페이지에 한 번 두는 글리프 정의
 *          "css": "mjx-container[jax=\"SVG\"] {...}"}
 * 글리프 모양(path)은 페이지마다 한 번만 cache 에 두고 수식은 <use> 로 가리킵니다 (fontCache: global).
 * mml 은 화면 낭독기가 읽는 MathML 입니다 (MathJax 의 assistive MathML 과 같은 역할).
 */
"use strict";

const { mathjax } = require("mathjax-full/js/mathjax.js");
const { TeX } = require("mathjax-full/js/input/tex.js");
const { SVG } = require("mathjax-full/js/output/svg.js");
const { liteAdaptor } = require("mathjax-full/js/adaptors/liteAdaptor.js");
const { RegisterHTMLHandler } = require("mathjax-full/js/handlers/html.js");
const { AllPackages } = require("mathjax-full/js/input/tex/AllPackages.js");
const { SerializedMmlVisitor } = require("mathjax-full/js/core/MmlTree/SerializedMmlVisitor.js");
const { STATE } = require("mathjax-full/js/core/MathItem.js");

function main(input) {
  const request = JSON.parse(input);
  const adaptor = liteAdaptor();
  RegisterHTMLHandler(adaptor);
  // Sphinx 의 MathJax 3 기본 설정과 같은 꾸러미 (ams 포함 전부, 'noundefined' 는 오류를 보이게 뺌)
  const packages = AllPackages.filter((name) => name !== "noundefined" && name !== "bussproofs");
  const tex = new TeX({ packages, formatError: (jax, err) => { throw err; } });
  const svg = new SVG({ fontCache: "global" });
  const doc = mathjax.document("", { InputJax: tex, OutputJax: svg });
  const visitor = new SerializedMmlVisitor();
  const items = request.items.map(({ tex: source, display }) => {
    try {
      const options = { display: !!display, em: 16, ex: 8, containerWidth: 80 * 16 };
      const node = doc.convert(source, options);
      const mml = visitor.visitTree(doc.convert(source, { ...options, end: STATE.CONVERT }));
      return { svg: adaptor.outerHTML(node), mml };
    } catch (err) {
      return { error: String((err && err.message) || err) };
    }
  });
  const cacheNode = svg.pageElements(doc);
  const css = adaptor.textContent(svg.styleSheet(doc));
  return { items, cache: cacheNode ? adaptor.outerHTML(cacheNode) : "", css };
}

let input = "";
process.stdin.setEncoding("utf8");
process.stdin.on("data", (chunk) => { input += chunk; });
process.stdin.on("end", () => {
  process.stdout.write(JSON.stringify(main(input)));
});
