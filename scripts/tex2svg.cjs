#!/usr/bin/env node
/*
 * tex2svg.cjs: 빌드할 때 페이지의 TeX 수식을 SVG 로 바꿉니다 (npm mathjax-full 3, 오프라인).
 * Renders a page's TeX formulas to SVG at build time, so the site ships no MathJax for its own math.
 *
 * attn_site/math_svg.py 가 페이지마다 한 번 부릅니다. 표준 입력으로 JSON 을 받고 표준 출력으로 JSON 을 냅니다.
 *   입력  {"items": [{"tex": "d_k", "display": false}, ...]}
 *   출력  {"items": [{"svg": "<svg ...>", "speech": "d 아래첨자 k"} 또는 {"error": "..."}, ...],
 *          "cache": "<svg id=\"MJX-SVG-global-cache\" ...>",   // 페이지에 한 번 두는 글리프 정의
 *          "css": "mjx-container[jax=\"SVG\"] {...}"}
 * 글리프 모양(path)은 페이지마다 한 번만 cache 에 두고 수식은 <use> 로 가리킵니다 (fontCache: global).
 * speech 는 화면 낭독기가 읽을 한국어 문장입니다. MathJax 4 가 기본으로 하는 것과 같이 speech-rule-engine
 * (SRE, mathjax-full 이 딸려 설치) 의 한국어(ko) ClearSpeak 규칙으로 만들고, SRE 가 어색하게 읽는 몇 가지를
 * SPEECH_FIXES 로 고칩니다. (한국어 화면 낭독기는 MathML 을 거의 읽지 못하므로 MathML 대신 이것을 씁니다.)
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
const sre = require("speech-rule-engine");

/**
 * SRE 한국어 규칙이 이 책의 수식에서 틀리거나 어색하게 읽는 것을 고치는 표 (순서대로 적용).
 * 각 줄은 tests/test_math_speech.py 가 확인합니다.
 */
const SPEECH_FIXES = [
  // A^\top 은 전치인데 SRE 는 ⊤ 를 논리의 '참 기호' 로, 위첨자를 거듭제곱으로 읽습니다
  [/ 의 기본 참 기호 제곱/g, " 의 전치"],
  [/기본 참 기호/g, "전치"],
  // \infty, \epsilon: '기본 무한대', '기본 엡실론' -> '무한대', '엡실론'
  [/기본 (무한대|엡실론)/g, "$1"],
  // \odot 은 요소별 곱, \cdot 은 글자 그대로 '점' ('닷' 은 영어 dot 을 소리로 적은 것)
  [/원문자 닷/g, "요소별 곱"],
  [/(^| )닷( |$)/g, "$1점$2"],
  // \mathbb{E} 는 기댓값
  [/칠판볼드체 E/g, "기댓값"],
  // \|q\| 는 노름입니다 ('메트릭' 이 아님)
  [/메트릭/g, "노름"],
  // \ln 을 글자로 읽음
  [/엘 엔 /g, "자연로그 "],
  // W^Q, W^O: 대문자 한 글자 위첨자는 거듭제곱이 아니라 이름표입니다 ('W 의 Q 제곱' -> 'W 위첨자 Q')
  [/ 의 ([A-Z]) 제곱/g, " 위첨자 $1"],
  // \mathrm{Var}(x), \mathrm{softmax}(x) 를 곱으로 읽음: 두 글자 이상 이름 뒤의 괄호는 함수 적용입니다
  [/\b([A-Za-z]{2,}) 곱하기 괄호 열고/g, "$1 의 괄호 열고"],
  // 한 줄짜리 split/aligned 환경 앞에 붙는 '총 줄 수 1 1행:' 은 뺍니다 (여러 줄일 때는 남김)
  [/^총 줄 수 1\s+1행:\s*/, ""],
];

/** SRE 는 \text{캐시 바이트} 같은 한글을 '캐 시 바 이 트' 로 한 글자씩 읽습니다: 원래 낱말로 되돌립니다. */
function joinHangul(speech, mml) {
  // MathML 직렬화는 한글을 &#xCE90; 처럼 씁니다
  const decode = (s) => s.replace(/&#x([0-9A-Fa-f]+);/g, (_, hex) => String.fromCodePoint(parseInt(hex, 16)));
  const texts = [...mml.matchAll(/<mtext[^>]*>([^<]*)<\/mtext>/g)]
    .map((m) => decode(m[1]).trim())
    .filter((text) => /[\uac00-\ud7a3]/.test(text));
  texts.sort((a, b) => b.length - a.length);
  for (const text of texts) {
    const spelled = [...text.replace(/\s+/g, "")].join(" ");
    speech = speech.split(spelled).join(text);
  }
  return speech;
}

function koreanSpeech(mml) {
  let speech = joinHangul(sre.toSpeech(mml), mml);
  for (const [pattern, replacement] of SPEECH_FIXES) speech = speech.replace(pattern, replacement);
  return speech.replace(/\s+/g, " ").trim();
}

async function main(input) {
  const request = JSON.parse(input);
  const adaptor = liteAdaptor();
  RegisterHTMLHandler(adaptor);
  // Sphinx 의 MathJax 3 기본 설정과 같은 꾸러미 (ams 포함 전부, 'noundefined' 는 오류를 보이게 뺌)
  const packages = AllPackages.filter((name) => name !== "noundefined" && name !== "bussproofs");
  const tex = new TeX({ packages, formatError: (jax, err) => { throw err; } });
  const svg = new SVG({ fontCache: "global" });
  const doc = mathjax.document("", { InputJax: tex, OutputJax: svg });
  await sre.setupEngine({ locale: "ko", domain: "clearspeak", modality: "speech" });
  await sre.engineReady();
  const visitor = new SerializedMmlVisitor();
  const items = request.items.map(({ tex: source, display }) => {
    try {
      const options = { display: !!display, em: 16, ex: 8, containerWidth: 80 * 16 };
      const node = doc.convert(source, options);
      const mml = visitor.visitTree(doc.convert(source, { ...options, end: STATE.CONVERT }));
      return { svg: adaptor.outerHTML(node), speech: koreanSpeech(mml) };
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
  main(input).then(
    (out) => process.stdout.write(JSON.stringify(out)),
    (err) => { process.stderr.write(String((err && err.stack) || err)); process.exit(1); },
  );
});
