"""장의 실행 캐시를 지울지 정합니다: 장이 import하는 패키지의 **내용 해시**가 바뀌었을 때만 (make book 이 부름).

    python scripts/exec_stamp.py --stamp _build/.stamp-chapter-packages --build _build attn_lib attn_course

jupyter-cache는 노트북 내용만 보고 저장된 출력을 다시 씁니다. 장이 import하는 ``attn_lib``, ``attn_course``의 파일이
바뀌면 그 출력(그림, 숫자, 대체 텍스트)이 낡으므로, 이 스크립트가 두 폴더의 파일 이름과 내용으로 해시를 만들어
stamp 파일에 적힌 해시와 비교합니다. 다르면 실행 캐시와 Sphinx 환경을 지우고 새 해시를 적습니다.

수정 시각은 보지 않습니다: 새 clone, ``git checkout``, 편집기의 저장만으로는 캐시가 지워지지 않고, 채점기
(``attn_harness``, ``attn_grader``)나 사이트 확장(``attn_site``)을 고쳐도 장을 다시 실행하지 않습니다.
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
from pathlib import Path

#: 해시에 넣지 않는 것: 바이트코드, 설치 메타데이터, wheel 빌드의 사본, 과제의 공개 명세(장은 읽지 않음: 강사용
#: 안내 페이지는 Sphinx 가 파일 의존성으로 따로 다시 읽음)
SKIP_PARTS = ("__pycache__", "build")
SKIP_SUFFIXES = (".pyc",)
SKIP_NAMES = ("public_spec.json",)


def watched_files(folders: list[Path]) -> list[Path]:
    """해시에 들어가는 파일 (폴더 안의 모든 파일, 캐시와 설치 메타데이터 빼고), 경로 순서.

    Shape:
        - 해당 없음
    """
    files = []
    for folder in folders:
        for path in folder.rglob("*"):
            parts = path.relative_to(folder).parts
            if (path.is_file() and not path.name.endswith(SKIP_SUFFIXES) and path.name not in SKIP_NAMES
                    and not any(p in SKIP_PARTS for p in parts)
                    and not any(p.endswith(".egg-info") for p in parts)):
                files.append(path)
    return sorted(files)


def content_hash(folders: list[Path]) -> str:
    """폴더들의 파일 이름과 내용의 sha256.

    Shape:
        - 해당 없음
    """
    digest = hashlib.sha256()
    for path in watched_files(folders):
        data = path.read_bytes()
        digest.update(f"{path.as_posix()}\0{len(data)}\0".encode())
        digest.update(data)
    return digest.hexdigest()


def refresh(stamp: Path, build: Path, folders: list[Path]) -> bool:
    """해시가 stamp와 다르면 실행 캐시와 Sphinx 환경을 지우고 stamp를 새로 씁니다. 지웠으면 ``True``.

    Shape:
        - 해당 없음
    """
    new = content_hash(folders)
    old = stamp.read_text(encoding="utf-8").strip() if stamp.is_file() else None
    if old == new:
        return False
    shutil.rmtree(build / ".jupyter_cache", ignore_errors=True)
    (build / ".doctrees" / "environment.pickle").unlink(missing_ok=True)
    stamp.parent.mkdir(parents=True, exist_ok=True)
    stamp.write_text(new + "\n", encoding="utf-8")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--stamp", type=Path, required=True)
    parser.add_argument("--build", type=Path, required=True)
    parser.add_argument("folders", type=Path, nargs="+")
    args = parser.parse_args(argv)
    if refresh(args.stamp, args.build, args.folders):
        print(f"{', '.join(map(str, args.folders))} 의 내용이 바뀌어 장의 실행 캐시를 지웠습니다 (모든 장을 다시 실행).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
