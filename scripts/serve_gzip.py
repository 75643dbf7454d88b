"""빌드된 사이트를 정적 호스트처럼 gzip 으로 내보내는 작은 HTTP 서버 (``make serve``, ``make bench-site``).

GitHub Pages, Netlify 같은 정적 호스트는 HTML, JS, CSS, JSON, SVG 를 gzip 으로 압축해 보냅니다.
``python -m http.server`` 는 압축하지 않아서, 그대로 Lighthouse 를 돌리면 페이지가 실제보다 몇 배 무겁게
잽니다. 이 서버는 ``Accept-Encoding: gzip`` 요청에 압축한 본문과 ``Content-Encoding: gzip`` 을 돌려줍니다
(압축한 결과는 파일의 수정 시각과 함께 기억해 두고 다시 씁니다).
(Serves _build/html with gzip, as a static host does.)

    python scripts/serve_gzip.py _build/html --port 8000
"""

from __future__ import annotations

import argparse
import gzip
import http.server
import os
import threading
from functools import partial
from pathlib import Path

#: 압축해 보내는 확장자 (정적 호스트가 압축하는 글 형식들)
COMPRESSIBLE = {".html", ".js", ".css", ".json", ".svg", ".txt", ".map", ".xml", ".woff", ".ttf", ".otf", ".ico"}
_cache: dict[tuple[str, float], bytes] = {}
_lock = threading.Lock()


class GzipHandler(http.server.SimpleHTTPRequestHandler):
    """``SimpleHTTPRequestHandler`` 에 gzip 과 캐시 머리글을 더한 처리기."""

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - 부모 이름 그대로
        pass  # 요청마다 줄을 찍지 않음

    def send_head(self):  # type: ignore[override]
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.is_file() and path.suffix in COMPRESSIBLE):
            return super().send_head()
        stat = path.stat()
        key = (str(path), stat.st_mtime)
        with _lock:
            body = _cache.get(key)
            if body is None:
                body = gzip.compress(path.read_bytes(), compresslevel=6)
                _cache[key] = body
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Vary", "Accept-Encoding")
        self.end_headers()
        if self.command == "HEAD":
            return None
        self.wfile.write(body)
        return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("directory", nargs="?", default="_build/html")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--bind", default="127.0.0.1")
    args = parser.parse_args()
    handler = partial(GzipHandler, directory=os.fspath(args.directory))
    server = http.server.ThreadingHTTPServer((args.bind, args.port), handler)
    print(f">>> http://{args.bind}:{args.port}/ (gzip; Ctrl+C 로 멈춤)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
