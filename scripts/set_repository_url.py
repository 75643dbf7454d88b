"""저장소 주소를 한 곳(``_config.yml`` 의 ``repository.url``)에서 나머지 사본으로 옮깁니다.

Keeps the repository URL in one place: ``repository.url`` in ``_config.yml``.

    python scripts/set_repository_url.py                 # _config.yml 의 주소로 사본을 모두 다시 씀
    python scripts/set_repository_url.py URL             # _config.yml 에 URL 을 쓰고 사본을 맞춤
    python scripts/set_repository_url.py --check         # 어긋난 사본이 있으면 종료 코드 1

사본 (copies): 목차(_toc.yml)에 있는 장 노트북마다 첫 코드 셀(Colab 설치 셀, ``remove-cell``)의
``REPO_URL = "..."`` 한 줄, 그리고 과제 마스터(``assignments/*.ipynb``)의 첫 셀(학생이 처음 실행하는 준비 셀)의
같은 줄. Binder·Colab·Live Code 단추와 저장소 단추는 Jupyter Book 이
``_config.yml`` 에서 바로 읽으므로 사본이 아닙니다. 노트북은 지금과 같은 형식(indent=1,
ensure_ascii=False, 끝 줄바꿈)으로 다시 쓰고, 바뀐 파일만 씁니다.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
REPO_URL_LINE = re.compile(r'^REPO_URL = "[^"\n]*"$', re.M)
GITHUB_URL = re.compile(r"^https://github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
# _config.yml 의 repository: 블록 안의 url: 줄 (주석과 나머지 형식은 그대로 둡니다)
CONFIG_URL_LINE = re.compile(r'^(repository:\n(?:(?:[ \t]+.*|[ \t]*)\n)*?[ \t]+url:[ \t]*)(\S.*)$', re.M)


def config_url(root: Path = ROOT) -> str:
    """``_config.yml`` 의 ``repository.url``."""
    config = yaml.safe_load((root / "_config.yml").read_text(encoding="utf-8"))
    return str(config["repository"]["url"])


def check_url(url: str) -> str:
    """Binder(gh)·Colab 단추가 쓸 수 있는 GitHub 저장소 주소인지 확인합니다."""
    url = url.strip().removesuffix(".git").rstrip("/")
    if not GITHUB_URL.match(url):
        raise SystemExit(
            f"GitHub 저장소 주소가 아닙니다: {url!r}. 예: https://github.com/<조직>/<저장소> "
            "(Colab 단추는 GitHub 저장소만 열 수 있습니다 / Colab launch links need a GitHub repository)"
        )
    return url


def set_config_url(url: str, root: Path = ROOT) -> bool:
    """``_config.yml`` 의 ``repository.url`` 줄만 바꿉니다. 바뀌었으면 True."""
    path = root / "_config.yml"
    text = path.read_text(encoding="utf-8")
    new, count = CONFIG_URL_LINE.subn(lambda m: m.group(1) + json.dumps(url), text, count=1)
    if count != 1:
        raise SystemExit(f"{path} 에서 repository: 아래의 url: 줄을 찾지 못했습니다 (repository.url not found)")
    if new == text:
        return False
    path.write_text(new, encoding="utf-8")
    if config_url(root) != url:
        raise SystemExit(f"{path} 를 고쳤지만 repository.url 이 {url!r} 가 아닙니다")
    return True


def chapter_notebooks(root: Path = ROOT) -> list[Path]:
    """목차(_toc.yml)에 있는 노트북 장, 목차 순서대로 (``file:`` 항목 가운데 .ipynb 가 있는 것)."""
    toc = yaml.safe_load((root / "_toc.yml").read_text(encoding="utf-8"))
    names: list[str] = []

    def walk(node: object) -> None:
        if isinstance(node, dict):
            if "file" in node:
                names.append(re.sub(r"\.(md|ipynb)$", "", node["file"]))
            for key in ("parts", "chapters", "sections"):
                walk(node.get(key) or [])
        elif isinstance(node, list):
            for child in node:
                walk(child)

    walk(toc)
    return [root / f"{name}.ipynb" for name in names if (root / f"{name}.ipynb").is_file()]


def url_notebooks(root: Path = ROOT) -> list[Path]:
    """``REPO_URL`` 사본이 있는 노트북: 목차의 장 노트북, 그다음 과제 마스터."""
    return chapter_notebooks(root) + sorted((root / "assignments").glob("*.ipynb"))


def colab_cell(notebook: dict, *, hidden: bool = True) -> dict:
    """첫 코드 셀 (Colab 설치 셀). ``REPO_URL`` 줄이 있어야 하고, 장(``hidden``)에서는 ``remove-cell`` 태그도."""
    code = [c for c in notebook["cells"] if c["cell_type"] == "code"]
    if not code or (hidden and "remove-cell" not in code[0]["metadata"].get("tags", [])):
        raise ValueError("첫 코드 셀이 remove-cell 태그가 붙은 Colab 설치 셀이 아닙니다")
    if len(REPO_URL_LINE.findall("".join(code[0]["source"]))) != 1:
        raise ValueError('Colab 설치 셀에 REPO_URL = "..." 줄이 정확히 하나 있어야 합니다')
    return code[0]


def notebook_url(path: Path) -> str:
    """노트북의 Colab 설치 셀에 적힌 주소."""
    hidden = path.parent.name != "assignments"
    source = "".join(colab_cell(json.loads(path.read_text(encoding="utf-8")), hidden=hidden)["source"])
    return REPO_URL_LINE.search(source).group(0).split('"')[1]


def sync_notebook(path: Path, url: str) -> bool:
    """노트북의 ``REPO_URL`` 줄을 ``url`` 로 바꿉니다. 바뀌었으면 True."""
    text = path.read_text(encoding="utf-8")
    notebook = json.loads(text)
    cell = colab_cell(notebook, hidden=path.parent.name != "assignments")
    source = "".join(cell["source"])
    new_source = REPO_URL_LINE.sub(f"REPO_URL = {json.dumps(url)}", source)
    if new_source == source:
        return False
    cell["source"] = new_source.splitlines(keepends=True)
    path.write_text(json.dumps(notebook, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return True


def mismatches(root: Path = ROOT) -> list[str]:
    """``_config.yml`` 과 다른 사본 목록 (빈 목록이면 모두 같음)."""
    url = config_url(root)
    return [f"{p.relative_to(root)}: {notebook_url(p)!r} != {url!r}"
            for p in url_notebooks(root) if notebook_url(p) != url]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url", nargs="?", help="새 저장소 주소 (https://github.com/<조직>/<저장소>)")
    parser.add_argument("--check", action="store_true", help="고치지 않고, 어긋난 사본이 있으면 1 로 끝냄")
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    root = args.root.resolve()

    if args.check:
        bad = mismatches(root)
        for line in bad:
            print(f"어긋남 (mismatch): {line}", file=sys.stderr)
        return 1 if bad else 0

    if args.url:
        url = check_url(args.url)
        if set_config_url(url, root):
            print(f"_config.yml: repository.url = {url}")
    url = config_url(root)
    for path in url_notebooks(root):
        if sync_notebook(path, url):
            print(f"{path.relative_to(root)}: REPO_URL = {url}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
