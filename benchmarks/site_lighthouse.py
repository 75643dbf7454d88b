"""사이트 속도: 모든 페이지에 Lighthouse 12 (기본 모바일 설정) (``make bench-site``).

``_build/html`` 을 gzip 으로 내보내는 서버(``scripts/serve_gzip.py``)를 127.0.0.1 에 띄우고, npm 의
``lighthouse@12`` 를 Debian 의 chromium 으로 페이지마다 한 번씩 돌립니다. 설정은 Lighthouse 의 기본값
그대로입니다: 휴대폰 화면, 느린 4G 와 4배 느린 CPU 를 흉내 낸 계산(simulated throttling).
표에는 페이지마다 성능 점수, 가장 큰 콘텐츠가 그려진 시각(LCP), 총 차단 시간(TBT), 받은 바이트를 찍고,
목표(점수 90 이상, LCP 2.5초 이하, TBT 200 ms 이하)를 넘는 페이지를 표시합니다.
시간은 기계에 따라 흔들리므로 테스트가 아니라 여기서만 잽니다.
(Lighthouse on every page of the built site, served with gzip; numbers, not a test.)

    .venv/bin/python benchmarks/site_lighthouse.py [--lighthouse PATH] [이름 일부 ...]
"""

from __future__ import annotations

import argparse
import json
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HTML = ROOT / "_build" / "html"
sys.path.insert(0, str(ROOT / "tests"))
from conftest import CHROMIUM_ARGS, CHROMIUM_PATH, read_toc_docnames  # noqa: E402 - 브라우저 테스트와 같은 목록과 인자

CHROME_FLAGS = " ".join(CHROMIUM_ARGS)
TARGET_SCORE, TARGET_LCP_MS, TARGET_TBT_MS = 90, 2500, 200


def pages() -> list[str]:
    """``_toc.yml`` 의 모든 페이지와 검색 페이지 (사이트 안의 상대 경로)."""
    return [f"{d}.html" for d in read_toc_docnames()] + ["search.html"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run_lighthouse(lighthouse: str, url: str, out: Path) -> dict:
    cmd = [lighthouse, url, "--quiet", "--output=json", f"--output-path={out}", "--only-categories=performance",
           f"--chrome-path={CHROMIUM_PATH}", f"--chrome-flags={CHROME_FLAGS}"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    report = json.loads(out.read_text(encoding="utf-8"))
    audits = report["audits"]
    return {
        "score": round(100 * (report["categories"]["performance"]["score"] or 0)),
        "lcp": audits["largest-contentful-paint"]["numericValue"],
        "tbt": audits["total-blocking-time"]["numericValue"],
        "fcp": audits["first-contentful-paint"]["numericValue"],
        "bytes": audits["total-byte-weight"]["numericValue"],
    }


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lighthouse", default=str(ROOT / "node_modules" / ".bin" / "lighthouse"))
    parser.add_argument("filters", nargs="*")
    args = parser.parse_args()
    if not (HTML / "index.html").exists():
        print("_build/html 이 없습니다. 먼저 make book", file=sys.stderr)
        return 1
    todo = [p for p in pages() if not args.filters or any(f in p for f in args.filters)]
    port = free_port()
    server = subprocess.Popen([sys.executable, str(ROOT / "scripts" / "serve_gzip.py"), str(HTML), "--port", str(port)],
                              stdout=subprocess.DEVNULL)
    try:
        for _ in range(100):  # 서버가 뜰 때까지
            try:
                urllib.request.urlopen(f"http://127.0.0.1:{port}/index.html", timeout=1)
                break
            except OSError:
                time.sleep(0.1)
        rows = []
        with tempfile.TemporaryDirectory() as tmp:
            for page in todo:
                r = run_lighthouse(args.lighthouse, f"http://127.0.0.1:{port}/{page}", Path(tmp) / "report.json")
                rows.append((page, r))
                ok = r["score"] >= TARGET_SCORE and r["lcp"] <= TARGET_LCP_MS and r["tbt"] <= TARGET_TBT_MS
                print(f"{page:42s} 성능 {r['score']:3d}  FCP {r['fcp'] / 1000:5.2f} s  LCP {r['lcp'] / 1000:5.2f} s  "
                      f"TBT {r['tbt']:5.0f} ms  {r['bytes'] / 1024:7.0f} KiB  {'' if ok else '  <- 목표 밖'}", flush=True)
    finally:
        server.terminate()
    scores = [r["score"] for _, r in rows]
    print(f"\n페이지 {len(rows)}개: 성능 중앙값 {statistics.median(scores):.0f}, 최저 {min(scores)}, "
          f"LCP 최대 {max(r['lcp'] for _, r in rows) / 1000:.2f} s, TBT 최대 {max(r['tbt'] for _, r in rows):.0f} ms")
    print(f"목표: 모든 페이지 성능 {TARGET_SCORE} 이상, LCP {TARGET_LCP_MS / 1000} s 이하, TBT {TARGET_TBT_MS} ms 이하")
    return 0


if __name__ == "__main__":
    sys.exit(main())
