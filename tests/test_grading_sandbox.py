"""적대적인 제출이 다른 학생과 채점기에 닿지 못하는지: 샌드박스 채점(make grade)을 공격하는 노트북들.

정직한 제출 둘(만점 alice, 틀린 풀이 bob)을 먼저 혼자 채점하고(기준), 같은 둘을 공격하는 제출들과 함께 다시 채점합니다.
공격마다 확인하는 것 (한 번의 채점에 모두 넣어, 서로를 가리지 못하게 결과를 공격마다 따로 봅니다):

- 다른 학생의 행은 기준과 바이트까지 같음 (``seconds`` 열만 빼고)
- 다른 제출, 채점 묶음, 자동 채점 zip, 강사의 비밀 파일은 바뀌지 않음; CSV와 피드백은 채점기가 쓴 것뿐
- 비밀 파일의 내용이 CSV와 피드백 어디에도 없음 (공격 노트북은 읽은 것을 자기 답에 담아 피드백으로 빼내려 함)
- 채점이 끝난 뒤 작업 칸 uid의 프로세스가 하나도 없음 (몇 초 뒤에도)
- 제출마다 시간 제한 + 여유 안에 끝남, 테스트가 127.0.0.1 에 연 포트로 들어온 연결이 없음
"""

from __future__ import annotations

import hashlib
import secrets
import socket
import threading
import time
from pathlib import Path

import nbformat
import pytest

from grading_support import NAME, grade, load_script, require_sandbox, solved, student, with_cell

pytestmark = pytest.mark.slow

TIMEOUT = 90
MARGIN = 20


def _attacks(targets: list[str], secret: str, port: int) -> dict[str, str]:
    """공격 이름 -> 학생판(빈 답)에 넣을 셀. ``targets``: 건드려 보려는 바깥 파일들."""
    t = repr(targets)
    return {
        # 다른 제출, 채점 묶음, zip, CSV, 비밀 파일을 읽고 쓰고 지우기; /proc 으로 부모 명령줄 찾기
        "snoop": f"""import os, glob
found = {{}}
for p in {t}:
    try:
        found[p] = open(p, "rb").read(200).decode("utf-8", "replace")
    except Exception as e:
        found[p] = ""
    for mode in ("ab", "wb"):
        try:
            open(p, mode).write(b"pwned")
        except Exception:
            pass
    try:
        os.remove(p)
    except Exception:
        pass
try:
    parent = open(f"/proc/{{os.getppid()}}/cmdline", "rb").read().decode("utf-8", "replace")
except Exception:
    parent = ""
q2_1_params = found[{secret!r}]            # 비밀이 읽히면 자기 피드백으로 새어 나옴
q2_1_params_16 = parent[:60]
q2_2_shape = repr(sorted(glob.glob("/**/*.ipynb", recursive=True)))[:60]
""",
        # 떨어져 나간 데몬: 채점이 끝난 뒤에도 CSV와 다른 제출을 계속 고치려 함
        "daemon": f"""import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        end = time.time() + 600
        while time.time() < end:
            for p in {t}:
                try:
                    open(p, "a").write("daemon")
                except Exception:
                    pass
            time.sleep(0.2)
    os._exit(0)
""",
        # fork + setsid 한 자식이 돌고, 본 프로세스는 인터프리터 잠금을 쥔 채 시간 제한을 넘김
        "hang": """import os
if os.fork() == 0:
    os.setsid()
    while True:
        pass
sum(range(10 ** 13))
""",
        "network": f"""import socket
try:
    s = socket.create_connection(("127.0.0.1", {port}), timeout=3)
    s.sendall(b"hello from the sandbox")
    q2_1_params = "connected"
except Exception as e:
    q2_1_params = type(e).__name__
""",
        "memory": """import torch
for make in (lambda: bytearray(20 * 2**30), lambda: torch.empty(10**10), lambda: open("/tmp/fill", "wb").write(b"x" * 2**30)):
    try:
        make()
    except Exception as e:
        print(type(e).__name__)
""",
        "exits": "import os\nos._exit(0)\n",
        # 가짜 점수를 출력하고, 열려 있을 만한 서술자마다 가짜 결과 줄을 씀
        "fake_scores": """import os, json
print("alice,ok,2,3,2,1,1,3,5,2,2,3,2,3,2,2,3,1,3,2,2,4,3,51,51,100.0,1.0,")
print("q1_1: 2/2점. 모든 부분을 맞혔습니다.")
line = (json.dumps({"question": "q1_1", "result": {"score": 2, "passed": True, "parts": [{"score": 99}]}}) + "\\n").encode()
for fd in range(3, 40):
    try:
        os.write(fd, line)
    except OSError:
        pass
""",
        "huge_repr": """class Big:
    def __repr__(self):
        return "x" * 20_000_000
q1_1_same_orders = Big()
q1_1_output = tuple(range(1_000_000))
q1_3_breaks = "a" * 5_000_000
q2_2_shape = Big()
""",
        # fork 폭탄 (자식이 잠들어 CPU는 쓰지 않음): 프로세스 수 제한에 걸려야 함
        "fork_bomb": """import os, time
if os.fork() == 0:
    os.setsid()
    for _ in range(10_000):
        try:
            if os.fork() == 0:
                time.sleep(600)
                os._exit(0)
        except OSError:
            break
    time.sleep(600)
""",
    }


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else "(없음)"


class _Listener:
    """127.0.0.1 의 포트 하나: 들어온 연결을 셉니다."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen()
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.connections = 0
        self.running = True
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()

    def _loop(self) -> None:
        while self.running:
            try:
                conn, _ = self.sock.accept()
                self.connections += 1
                conn.close()
            except OSError:
                continue

    def close(self) -> None:
        self.running = False
        self.thread.join()
        self.sock.close()


@pytest.fixture(scope="module")
def attacked(assignment_dist: Path, tmp_path_factory):
    require_sandbox()
    sandbox = load_script("sandbox")
    dist = assignment_dist
    base = tmp_path_factory.mktemp("baseline")
    honest = {"alice": solved(dist), "bob": solved(dist)}
    from test_assignments import WRONG, define

    for prefix, source in WRONG["wrong_a"][0].items():
        define(honest["bob"], prefix, source)
    (base / "subs").mkdir()
    for name, nb in honest.items():
        nbformat.write(nb, base / "subs" / f"{name}.ipynb")
    baseline = grade(base / "subs", dist, base / "grades.csv", timeout=TIMEOUT)

    run = tmp_path_factory.mktemp("attacked")
    subs, out = run / "subs", run / "grades.csv"
    subs.mkdir()
    secret_file = run / "grader-secret.txt"
    secret_file.write_text(secrets.token_hex(16), encoding="utf-8")
    for name, nb in honest.items():
        nbformat.write(nb, subs / f"{name}.ipynb")
    targets = [str(subs / "alice.ipynb"), str(subs / "bob.ipynb"), str(dist / f"{NAME}-grading.json"),
               str(dist / f"{NAME}-autograder.zip"), str(out), str(secret_file), str(run / "grades_feedback" / "alice.txt")]
    listener = _Listener()
    attacks = _attacks(targets, str(secret_file), listener.port)
    for name, cell in attacks.items():
        nbformat.write(with_cell(student(dist), cell), subs / f"{name}.ipynb")
    watched = [Path(p) for p in targets if not p.endswith((".csv", ".txt")) or p == str(secret_file)]
    before = {p: _digest(p) for p in watched}
    start = time.monotonic()
    rows = grade(subs, dist, out, timeout=TIMEOUT)
    elapsed = time.monotonic() - start
    csv_right_after = out.read_bytes()
    time.sleep(3)  # 데몬이 살아 있다면 이 사이에 무언가를 고쳤을 것
    listener.close()
    uids = range(sandbox.UID_BASE, sandbox.UID_BASE + 2)
    return {"baseline": baseline, "rows": rows, "attacks": attacks, "before": before, "after": {p: _digest(p) for p in watched},
            "csv_changed": out.read_bytes() != csv_right_after, "out": out, "secret": secret_file.read_text(encoding="utf-8"),
            "elapsed": elapsed, "connections": listener.connections,
            "leftover": [pid for uid in uids for pid in sandbox.uid_processes(uid)]}


def _without_seconds(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "seconds"}


@pytest.mark.parametrize("honest", ["alice", "bob"])
def test_other_rows_are_identical_to_a_run_without_attackers(attacked, honest):
    assert _without_seconds(attacked["rows"][honest]) == _without_seconds(attacked["baseline"][honest])


def test_every_submission_has_one_row(attacked):
    assert set(attacked["rows"]) == {"alice", "bob", *attacked["attacks"]}


def test_no_file_outside_the_sandbox_changed(attacked):
    changed = [str(p) for p in attacked["before"] if attacked["before"][p] != attacked["after"][p]]
    assert not changed, f"바뀐 파일: {changed}"
    assert not attacked["csv_changed"], "채점이 끝난 뒤 CSV가 바뀌었습니다"


def test_no_secret_in_any_output(attacked):
    out: Path = attacked["out"]
    texts = [out.read_text(encoding="utf-8")] + [p.read_text(encoding="utf-8") for p in out.with_name("grades_feedback").glob("*")]
    assert len(texts) == 1 + len(attacked["rows"])
    assert not [t for t in texts if attacked["secret"] in t]


def test_no_sandbox_process_outlives_grading(attacked):
    assert attacked["leftover"] == []


def test_network_is_closed(attacked):
    assert attacked["connections"] == 0
    assert attacked["rows"]["network"]["status"] == "ok"


def test_a_hang_stops_at_its_timeout(attacked):
    rows = attacked["rows"]
    assert rows["hang"]["status"] == "timeout"
    assert all(float(r["seconds"]) <= TIMEOUT + MARGIN for r in rows.values()), {n: r["seconds"] for n, r in rows.items()}
    # 제출 11개를 칸 둘에서: 제출마다 시간 제한 + 여유를 넘지 않으면 전체도 그 합의 절반을 크게 넘지 않음
    assert attacked["elapsed"] <= (len(rows) / 2 + 1) * (TIMEOUT + MARGIN)


def test_attackers_get_what_their_answers_earn(attacked):
    rows = attacked["rows"]
    for name in attacked["attacks"]:
        assert float(rows[name]["total"]) == 0.0, (name, rows[name])
    assert rows["exits"]["status"] == "error"


def test_feedback_stays_small_whatever_the_values(attacked):
    feedback = attacked["out"].with_name("grades_feedback")
    sizes = {p.name: p.stat().st_size for p in feedback.glob("*.txt")}
    assert max(sizes.values()) <= 20_000, sizes
