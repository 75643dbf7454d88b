"""채점 샌드박스: 제출 하나를 bubblewrap(bwrap) 안에서, 작업 칸마다 다른 권한 없는 uid로 실행합니다 (``grade.py``가 씀).

지키는 것 (강사용 안내의 '채점을 믿을 수 있는 범위' 절):

- **보이는 파일**: ``/usr``, 파이썬 런타임, venv(제3자 패키지), 샌드박스의 런타임인 세 패키지 ``attn_lib``,
  ``attn_course``, ``attn_harness``의 폴더(모두 읽기 전용), 그 제출 하나의 사본(읽기 전용), 크기를 제한한 자기만의
  ``/tmp``(메모리). 판정 쪽 ``attn_grader``(참조 구현, 숨은 경우)는 붙이지 않고, 붙인 곳 안에 있으면(venv에 설치한
  경우) 빈 폴더로 가립니다. 공개 명세(공개 경우의 기대 출력)도 빈 파일로 가립니다. ``/``를 읽기 전용으로 붙이지
  않습니다(누구나 읽을 수 있는 파일도 보이게 되므로). 다른 제출, 채점 묶음과 자동 채점 zip, 성적 CSV, 피드백, 마스터,
  강사의 홈은 샌드박스 안에 없습니다. 바깥에 쓸 수 있는 폴더도 없습니다: 값은 바깥이 열어 넘겨준 파이프 둘(요청을
  읽고 답을 씀)로만 주고받고, 출력 기록은 파일 크기 제한을 받습니다.
- **프로세스와 네트워크**: 새 pid·네트워크·IPC·UTS·cgroup 이름공간 (``--unshare-net``: 바깥의 127.0.0.1에도 닿지 못함),
  ``--die-with-parent``, ``--new-session``. bwrap을 root로 user 이름공간 없이 돌리고(user 이름공간 안에서는 커널이
  프로세스 수 제한을 무시), 안에서 ``setpriv``로 작업 칸의 uid로 내려가며 모든 권한(capability)을 버리고
  ``no_new_privs``를 켭니다. 작업 칸마다 uid가 달라 한 칸의 fork 폭탄이 다른 칸의 프로세스 수를 잡아먹지 못합니다.
- **한계** (``prlimit``): 주소 공간, CPU 초, 프로세스 수, 파일 크기, 열린 파일 수.
- **시간 제한**: 넘으면 바깥의 bwrap을 SIGKILL합니다. ``--die-with-parent``로 안의 init이 죽고, pid 이름공간의 모든
  프로세스가 함께 끝납니다(setsid로 떨어져 나간 것도). 값은 파이프 둘로 오가지만 채점 프로세스는 답을
  호출마다, 그리고 제출의 마감까지만 기다리므로(``session.py``) 남은 프로세스가 채점을 붙잡지 못합니다. 끝난 뒤 그 uid의 프로세스가 남았는지 확인하고, 남았으면 죽이고 알립니다.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

#: 작업 칸 uid의 시작 (GRADE_UID_BASE 로 바꿈). 칸 i는 BASE + i.
UID_BASE = int(os.environ.get("GRADE_UID_BASE", "61000"))
LIMITS = {"as": 4 * 2**30, "nproc": 128, "fsize": 64 * 2**20, "nofile": 1024, "tmp": 256 * 2**20}

INSTALL_HINT = ("샌드박스 채점에는 bubblewrap(bwrap)이 필요합니다. Debian/Ubuntu: sudo apt-get install -y bubblewrap\n"
                "믿을 수 있는 제출만 샌드박스 없이 채점하려면 GRADE_SANDBOX=none 을 주세요 (매번 경고가 나옵니다).")


class SandboxUnavailable(RuntimeError):
    """샌드박스를 쓸 수 없을 때 (bwrap 없음, root 아님). 메시지는 한국어 안내입니다."""


@dataclass
class Outcome:
    """샌드박스 실행 하나의 결과."""

    returncode: int | None
    timed_out: bool
    seconds: float
    leftover: int  # 끝난 뒤 남아 있던 (그리고 죽인) 그 uid의 프로세스 수


def check_available() -> None:
    """bwrap, setpriv, prlimit가 있고 root인지 확인합니다. 아니면 ``SandboxUnavailable``."""
    missing = [tool for tool in ("bwrap", "setpriv", "prlimit") if shutil.which(tool) is None]
    if missing:
        raise SandboxUnavailable(f"{', '.join(missing)}을(를) 찾지 못했습니다.\n{INSTALL_HINT}")
    if os.geteuid() != 0:
        raise SandboxUnavailable("샌드박스 채점은 root로 실행해야 합니다 (작업 칸마다 다른 uid로 내려가고, 프로세스 수 "
                                 "제한이 user 이름공간 밖에서만 지켜지므로). 예: sudo make grade SUBMISSIONS=...\n"
                                 "Docker나 Podman이 있으면 강사용 안내의 '컨테이너로 채점하기'를 보세요.")


def _package_dir(name: str) -> Path | None:
    import importlib.util

    spec = importlib.util.find_spec(name)
    return Path(spec.origin).resolve().parent if spec is not None and spec.origin else None


#: 샌드박스의 런타임: 학생 노트북이 import하는 두 패키지와 하네스
RUNTIME_PACKAGES = ("attn_lib", "attn_course", "attn_harness")


def _runtime_paths() -> list[Path]:
    """샌드박스에 읽기 전용으로 붙일 것: 파이썬 런타임(sys.base_prefix), venv(sys.prefix), 런타임 패키지의 폴더."""
    paths = [Path(sys.base_prefix).resolve(), Path(sys.prefix).resolve()]
    paths += [p for p in (_package_dir(n) for n in RUNTIME_PACKAGES) if p is not None]
    return list(dict.fromkeys(paths))


def hidden_paths() -> list[Path]:
    """붙인 곳 안에 있어도 샌드박스에서 가릴 것: 판정 쪽 패키지 폴더(venv에 설치했을 때)와 공개 명세 파일."""
    hidden = []
    judge = _package_dir("attn_grader")
    if judge is not None:
        hidden.append(judge)
    course = _package_dir("attn_course")
    if course is not None:
        hidden += sorted(p for p in course.rglob("*.json") if p.name == "public_spec.json" or p.name.endswith(".spec.json"))
    bound = _runtime_paths()
    return [h for h in hidden if any(h == b or b in h.parents for b in bound)]


def bound_files() -> list[Path]:
    """샌드박스 안에서 읽을 수 있는 파일 목록 (붙인 곳의 파일에서 가린 것을 뺌; ``/usr``는 빼고). 테스트가 씀."""
    hidden = hidden_paths()
    files = []
    for root in _runtime_paths():
        for path in root.rglob("*"):
            if path.is_file() and not any(path == h or h in path.parents for h in hidden):
                files.append(path)
    return files


def _parents(path: Path) -> list[Path]:
    return [p for p in reversed(path.parents) if str(p) != "/"]


def command(slot: int, job: Path, argv: list[str], cpu_seconds: int) -> list[str]:
    """작업 칸 ``slot``에서 ``argv``를 실행하는 bwrap 명령. ``job/in/``이 ``/job/in``에 읽기 전용으로 붙습니다."""
    uid = UID_BASE + slot
    cmd = ["bwrap", "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
           "--die-with-parent", "--new-session",
           "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP",
           "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib", "--symlink", "usr/lib64", "/lib64",
           "--symlink", "usr/bin", "/bin", "--symlink", "usr/sbin", "/sbin",
           "--proc", "/proc", "--dev", "/dev", "--perms", "1777", "--size", str(LIMITS["tmp"]), "--tmpfs", "/tmp"]
    made: set[Path] = set()
    for path in _runtime_paths():
        for parent in _parents(path):
            if parent not in made and parent not in _runtime_paths():
                cmd += ["--perms", "0755", "--dir", str(parent)]
                made.add(parent)
        cmd += ["--ro-bind", str(path), str(path)]
    for path in hidden_paths():  # 붙인 곳 안의 판정 쪽 코드와 공개 명세를 가림
        cmd += ["--tmpfs", str(path)] if path.is_dir() else ["--ro-bind", "/dev/null", str(path)]
    cmd += ["--perms", "0755", "--dir", "/job", "--ro-bind", str(job / "in"), "/job/in", "--chdir", "/tmp",
            "--clearenv", "--setenv", "HOME", "/tmp", "--setenv", "PATH", f"{Path(sys.prefix) / 'bin'}:/usr/bin:/bin",
            "--setenv", "MPLBACKEND", "Agg", "--setenv", "MPLCONFIGDIR", "/tmp/mpl",
            "--setenv", "OMP_NUM_THREADS", "1", "--setenv", "MKL_NUM_THREADS", "1", "--setenv", "OPENBLAS_NUM_THREADS", "1",
            "--setenv", "PYTHONDONTWRITEBYTECODE", "1", "--setenv", "LANG", "C.UTF-8",
            "--", "setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--bounding-set=-all",
            "--inh-caps=-all", "--no-new-privs",
            "prlimit", f"--as={LIMITS['as']}", f"--cpu={cpu_seconds}", f"--nproc={LIMITS['nproc']}",
            f"--fsize={LIMITS['fsize']}", f"--nofile={LIMITS['nofile']}", "--", *argv]
    return cmd


def uid_processes(uid: int) -> list[int]:
    """실제 uid가 ``uid``인 프로세스의 pid 목록 (/proc 에서)."""
    pids = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            for line in (entry / "status").read_text().splitlines():
                if line.startswith("Uid:"):
                    if int(line.split()[1]) == uid:
                        pids.append(int(entry.name))
                    break
        except (OSError, ValueError):
            continue
    return pids


def kill_uid(uid: int) -> int:
    """그 uid의 프로세스를 모두 SIGKILL하고, 죽인 수를 돌려줍니다 (남은 것이 없을 때까지)."""
    killed = 0
    for _ in range(50):
        pids = uid_processes(uid)
        if not pids:
            return killed
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except ProcessLookupError:
                pass
        time.sleep(0.02)
    return killed


def prepare_job(root: Path, slot: int) -> Path:
    """작업 칸의 폴더 (root 소유): ``in/``은 샌드박스에 읽기 전용으로 붙고, 나머지(결과, 출력 기록)는 보이지 않습니다."""
    job = root / f"slot{slot}-{time.monotonic_ns()}"
    (job / "in").mkdir(parents=True)
    (job / "in").chmod(0o755)
    return job


def spawn(slot: int, job: Path, argv: list[str], timeout: float, pass_fds: tuple[int, ...], out) -> subprocess.Popen:
    """샌드박스 안에서 ``argv``를 띄우고 기다리지 않습니다. ``pass_fds``(하네스의 파이프)만 넘깁니다.

    끝난 뒤에는 ``finish(slot)``로 그 uid에 남은 프로세스를 끝내세요.
    """
    kill_uid(UID_BASE + slot)  # 앞의 실행이 남긴 것이 있으면 (있으면 안 됨)
    cmd = command(slot, job, argv, int(timeout) + 5)
    return subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, pass_fds=pass_fds)


def finish(slot: int) -> int:
    """작업 칸 ``slot``의 uid에 남은 프로세스를 모두 끝내고 그 수를 돌려줍니다."""
    return kill_uid(UID_BASE + slot)


def run(slot: int, job: Path, argv: list[str], timeout: float, log: Path, results: Path) -> Outcome:
    """샌드박스 안에서 ``argv``를 실행하고 끝나기를(또는 시간 제한을) 기다립니다.

    ``argv`` 안의 ``{fd}``는 ``results`` 파일을 쓰기로 연 서술자 번호로 바뀝니다(그 파일 하나로만 값을 내보냄).
    """
    uid = UID_BASE + slot
    kill_uid(uid)  # 앞의 실행이 남긴 것이 있으면 (있으면 안 됨)
    start = time.monotonic()
    with log.open("wb") as out, results.open("ab") as res:
        fd = res.fileno()
        cmd = command(slot, job, [a.replace("{fd}", str(fd)) for a in argv], int(timeout) + 5)
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, pass_fds=(fd,))
        try:
            proc.wait(timeout=timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            proc.kill()  # 바깥의 bwrap -> --die-with-parent 로 안의 init과 pid 이름공간 전체
            proc.wait()
            timed_out = True
    leftover = kill_uid(uid)
    return Outcome(None if timed_out else proc.returncode, timed_out, time.monotonic() - start, leftover)
