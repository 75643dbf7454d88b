"""GitHub 워크플로 (.github/workflows): 여기서는 돌릴 수 없으므로 스키마와 약속을 검사합니다.

The workflows cannot run here, so they are checked offline:

- GitHub 워크플로 JSON 스키마: PyPI ``check-jsonschema`` 에 든 ``vendor.github-workflows`` (네트워크 없이).
  잘못된 워크플로를 잡는지도 봅니다 (검사기가 아무것도 통과시키는 것이 아님).
- 스키마가 못 보는 것: 책 워크플로의 빌드 명령이 README 의 명령(``make book``)과 같고, Pages 에 올리는
  폴더가 ``_build/html`` 이며 공식 Pages 액션을 쓰고, 배포는 main 의 push 에서만; 테스트 워크플로는
  ``debian:12`` 컨테이너(``--privileged``)에서 ``.ci/run`` 을 부르고, ``.ci/run`` 은 README 의 ``make test`` 를 부름.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
WORKFLOWS = ROOT / ".github" / "workflows"
CHECK_JSONSCHEMA = Path(sys.executable).parent / "check-jsonschema"


def load(name: str) -> dict[str, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    # YAML 1.1 은 on: 을 True 로 읽습니다 (GitHub 는 문자열 "on")
    if True in data:
        data["on"] = data.pop(True)
    return data


def readme_commands() -> list[str]:
    """README 첫 코드 상자의 명령 (``make book   # ...`` -> ``make book``)."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"```bash\n(.*?)```", readme, re.S)
    assert block, "README 에 첫 bash 코드 상자가 없습니다"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines() if line.split("#", 1)[0].strip()]


def steps(job: dict) -> list[dict]:
    return job.get("steps", [])


def check_schema(*paths: Path) -> subprocess.CompletedProcess:
    return subprocess.run([str(CHECK_JSONSCHEMA), "--builtin-schema", "vendor.github-workflows", *map(str, paths)],
                          capture_output=True, text=True, timeout=300)


def test_workflows_are_valid_against_the_github_workflow_schema() -> None:
    files = sorted(WORKFLOWS.glob("*.yml"))
    assert [f.name for f in files] == ["book.yml", "test.yml"], files
    result = check_schema(*files)
    assert result.returncode == 0, f"워크플로가 GitHub 스키마에 맞지 않습니다:\n{result.stdout}\n{result.stderr}"


@pytest.mark.parametrize("broken", [
    ("runs-on: ubuntu-24.04", "runs_on: ubuntu-24.04"),     # 없는 키
    ("uses: actions/checkout@v4", "uses: 42"),               # 잘못된 형
    ("options: --privileged", "options: [--privileged]"),    # 문자열이어야 하는 값
])
def test_schema_check_rejects_a_broken_workflow(tmp_path: Path, broken: tuple[str, str]) -> None:
    """검사기가 실제로 틀린 워크플로를 잡는지 (a check that cannot fail would prove nothing)."""
    text = (WORKFLOWS / "test.yml").read_text(encoding="utf-8")
    assert broken[0] in text
    bad = tmp_path / "test.yml"
    bad.write_text(text.replace(broken[0], broken[1], 1), encoding="utf-8")
    assert check_schema(bad).returncode != 0, f"{broken} 를 잡지 못했습니다"


def test_book_workflow_builds_with_the_readme_command_and_publishes_build_html() -> None:
    book = load("book.yml")
    assert {"push", "pull_request"} <= set(book["on"]), "모든 push 와 pull request 에서 빌드해야 합니다"
    build, deploy = book["jobs"]["build"], book["jobs"]["deploy"]
    runs = [s["run"].strip() for s in steps(build) if "run" in s]
    assert readme_commands()[0] == "make book", readme_commands()
    assert runs == [readme_commands()[0]], f"빌드 명령은 README 의 것 하나여야 합니다: {runs}"
    uses = {s["uses"].split("@")[0]: s for s in steps(build) if "uses" in s}
    upload = uses.get("actions/upload-pages-artifact")
    assert upload and upload["with"]["path"] == "_build/html", "Pages 에 올리는 폴더는 _build/html 이어야 합니다"
    assert "actions/configure-pages" in uses
    build_index = [i for i, s in enumerate(steps(build)) if s.get("run", "").strip() == "make book"][0]
    upload_index = [i for i, s in enumerate(steps(build)) if s is upload][0]
    assert build_index < upload_index
    # 배포: 공식 deploy-pages, main 의 push 에서만, Pages 와 OIDC 권한
    assert [s["uses"].split("@")[0] for s in steps(deploy)] == ["actions/deploy-pages"]
    main_push = "github.event_name == 'push' && github.ref == 'refs/heads/main'"
    assert deploy["if"] == main_push and upload["if"] == main_push and deploy["needs"] == "build"
    assert deploy["permissions"] == {"pages": "write", "id-token": "write"}
    assert deploy["environment"]["name"] == "github-pages"
    assert book["permissions"] == {"contents": "read"}, "빌드 작업은 읽기 권한만"
    assert build["env"]["TORCH_INDEX_URL"].endswith("/whl/cpu"), "CI 는 CPU torch 만 받아야 합니다"


def test_test_workflow_runs_ci_run_in_a_privileged_debian_container() -> None:
    test = load("test.yml")
    job = test["jobs"]["test"]
    assert job["container"] == {"image": "debian:12", "options": "--privileged"}
    runs = "\n".join(s.get("run", "") for s in steps(job))
    assert "bash .ci/run" in runs
    uses = [s["uses"].split("@")[0] for s in steps(job) if "uses" in s]
    git_step = [i for i, s in enumerate(steps(job)) if "apt-get install" in s.get("run", "") and "git" in s["run"]]
    checkout = [i for i, s in enumerate(steps(job)) if s.get("uses", "").startswith("actions/checkout@")]
    assert git_step and checkout and git_step[0] < checkout[0], "git 이 있어야 checkout 이 .git 을 만듭니다"
    assert "actions/checkout" in uses and job["env"]["TORCH_INDEX_URL"].endswith("/whl/cpu")


def test_ci_run_calls_the_readme_test_command_and_installs_its_tools() -> None:
    script = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert readme_commands()[1] == "make test"
    assert re.search(r"^exec make test </dev/null$", script, re.M), "README 의 make test 를 불러야 합니다"
    for tool in ("make", "git", "npm", "python3-venv"):
        assert tool in script, f".ci/run 이 {tool} 을 설치하지 않습니다"
    assert subprocess.run(["bash", "-n", str(ROOT / ".ci" / "run")]).returncode == 0


def test_makefile_installs_torch_from_the_index_the_workflows_give() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^TORCH_INDEX_URL \?=\s*$", makefile, re.M), "TORCH_INDEX_URL 은 비어 있는 기본값이어야 합니다"
    assert "$(if $(TORCH_INDEX_URL),--index-url $(TORCH_INDEX_URL)) torch==$(TORCH_VERSION)" in makefile
