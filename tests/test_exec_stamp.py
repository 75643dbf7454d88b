"""장의 실행 캐시를 지우는 규칙 (scripts/exec_stamp.py, Makefile 의 EXEC_STAMP): 장이 import하는 패키지
(``attn_lib``, ``attn_course``)의 **내용**이 바뀔 때만 지우고, 채점기(``attn_harness``, ``attn_grader``)나 사이트
확장(``attn_site``)을 고치거나 파일의 수정 시각만 바뀌면 그대로 둡니다."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("exec_stamp", ROOT / "scripts" / "exec_stamp.py")
exec_stamp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(exec_stamp)


def _tree(tmp: Path) -> Path:
    for pkg in ("attn_lib", "attn_course", "attn_grader", "attn_harness", "attn_site"):
        for path in (ROOT / pkg).rglob("*.py"):
            if "build" not in path.parts:
                dest = tmp / path.relative_to(ROOT)
                dest.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(path, dest)
    return tmp


def _cache(build: Path) -> None:
    (build / ".jupyter_cache").mkdir(parents=True, exist_ok=True)
    (build / ".jupyter_cache" / "global.db").write_text("x")
    (build / ".doctrees").mkdir(exist_ok=True)
    (build / ".doctrees" / "environment.pickle").write_text("x")


def test_the_cache_goes_only_when_a_chapter_package_changes_content(tmp_path):
    tree, build = _tree(tmp_path / "repo"), tmp_path / "_build"
    stamp = build / ".stamp-chapter-packages"
    folders = [tree / "attn_lib", tree / "attn_course"]
    _cache(build)
    assert exec_stamp.refresh(stamp, build, folders) is True  # 처음: stamp 가 없음
    assert not (build / ".jupyter_cache").exists() and not (build / ".doctrees" / "environment.pickle").exists()
    _cache(build)
    assert exec_stamp.refresh(stamp, build, folders) is False
    # 수정 시각만 바뀜 (새 clone, checkout): 그대로
    later = time.time() + 100
    for path in (tree / "attn_lib").rglob("*.py"):
        os.utime(path, (later, later))
    assert exec_stamp.refresh(stamp, build, folders) is False
    # 채점기와 사이트 확장을 고침: 그대로
    for rel in ("attn_grader/checkers.py", "attn_harness/harness.py", "attn_site/korean_ui.py"):
        (tree / rel).write_text((tree / rel).read_text(encoding="utf-8") + "\n# 고침\n", encoding="utf-8")
    assert exec_stamp.refresh(stamp, build, folders) is False and (build / ".jupyter_cache" / "global.db").exists()
    # 강좌 패키지의 힌트 한 줄을 고침: 지움
    hints = tree / "attn_course" / "practice" / "hints.py"
    hints.write_text(hints.read_text(encoding="utf-8") + "\n# 힌트를 고침\n", encoding="utf-8")
    assert exec_stamp.refresh(stamp, build, folders) is True and not (build / ".jupyter_cache").exists()
    # 파일 이름만 바뀌어도(내용은 같음) 지움
    _cache(build)
    (tree / "attn_lib" / "metrics.py").rename(tree / "attn_lib" / "metrics2.py")
    assert exec_stamp.refresh(stamp, build, folders) is True


def test_bytecode_and_install_metadata_do_not_count(tmp_path):
    tree = _tree(tmp_path / "repo")
    folders = [tree / "attn_lib"]
    before = exec_stamp.content_hash(folders)
    (tree / "attn_lib" / "__pycache__").mkdir(exist_ok=True)
    (tree / "attn_lib" / "__pycache__" / "masks.cpython-311.pyc").write_bytes(b"\0")
    (tree / "attn_lib" / "attn_lib.egg-info").mkdir()
    (tree / "attn_lib" / "attn_lib.egg-info" / "PKG-INFO").write_text("x")
    (tree / "attn_lib" / "build" / "lib").mkdir(parents=True)
    (tree / "attn_lib" / "build" / "lib" / "old.py").write_text("x")
    assert exec_stamp.content_hash(folders) == before


def test_make_hashes_exactly_the_chapter_packages():
    """Makefile 은 장이 import하는 두 패키지를 해시하고, 그 파일을 모두 지켜봅니다 (채점기, 사이트는 빠짐)."""
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^CHAPTER_PACKAGES := attn_lib attn_course$", makefile, re.M)
    assert "scripts/exec_stamp.py --stamp $@ --build $(BUILD_DIR) $(CHAPTER_PACKAGES)" in makefile
    out = subprocess.run(["make", "-s", "print-watched"], capture_output=True, text=True, cwd=ROOT, check=True)
    watched = set(out.stdout.split())
    hashed = {p.relative_to(ROOT).as_posix() for p in exec_stamp.watched_files([ROOT / "attn_lib", ROOT / "attn_course"])}
    assert hashed == watched, sorted(hashed ^ watched)[:10]
    assert not [w for w in watched if w.startswith(("attn_grader/", "attn_harness/", "attn_site/"))]
