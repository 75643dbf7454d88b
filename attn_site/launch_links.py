"""실행 단추의 주소: Binder 는 환경 브랜치 + nbgitpuller, Live Code 는 환경 브랜치, Colab 은 내용 브랜치.

Launch-button URLs. Binder builds its image from the *environment* branch (``binder_env_branch``, default
``binder-env``: only ``binder/`` and pinned attn_lib and attn_course, ``binder/attn_lib.txt``), and nbgitpuller pulls the *content* branch
(``repository.branch``) into the running server, so a content push never invalidates the image.

왜 (why): sphinx-book-theme 1.3 은 Binder 주소를 ``/v2/gh/<조직>/<저장소>/<내용 브랜치>?urlpath=lab/tree/<장>``
으로 만듭니다. 그러면 장 하나를 고칠 때마다 Binder 가 이미지(약 1.5 GB 의 패키지)를 처음부터 다시 만들고, 그다음
학생이 그 시간을 기다립니다. 테마는 nbgitpuller 를 ``jupyterhub_url`` 에만 씁니다. 그래서 이 확장이

1. 장 페이지의 Binder 단추 주소를 환경 브랜치의 Binder 가 nbgitpuller(``git-pull``)로 내용 브랜치를 받아
   그 장을 JupyterLab 으로 여는 주소로 바꿉니다 (:func:`binder_url`). 바꿀 단추가 없으면 경고(-W: 빌드 실패).
2. Live Code(thebe)는 내용이 필요 없고 커널(환경)만 쓰므로 ``thebe_config['repository_branch']`` 를 환경
   브랜치로 둡니다 (테마가 ``builder-inited`` 에서 내용 브랜치로 채우기 전에).

Colab 단추는 그대로(GitHub 의 내용 브랜치 노트북). 환경 브랜치는 ``make binder``
(``scripts/binder_env.py``)가 만들고, 같은 함수로 과제 노트북의 주소도 찍습니다.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

DEFAULT_ENV_BRANCH = "binder-env"
#: Jupyter Book 의 ``notebook_interface`` -> 서버 안의 경로 앞부분 (sphinx-book-theme 와 같음)
INTERFACE_PREFIX = {"classic": "tree", "jupyterlab": "lab/tree"}
GITHUB_REPO_RE = re.compile(r"^https://github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+?)(?:\.git)?/?$")


def github_parts(repo_url: str) -> tuple[str, str]:
    """``https://github.com/<조직>/<저장소>`` -> (조직, 저장소)."""
    match = GITHUB_REPO_RE.match(repo_url)
    if not match:
        raise ValueError(f"GitHub 저장소 주소가 아닙니다: {repo_url!r} (Binder·Colab 단추는 GitHub 저장소만 씁니다)")
    return match.group(1), match.group(2)


def binder_url(binderhub_url: str, repo_url: str, env_branch: str, content_branch: str, path: str,
               interface: str = "jupyterlab") -> str:
    """환경 브랜치로 Binder 를 띄우고 nbgitpuller 로 내용 브랜치를 받아 ``path`` 를 여는 주소.

    Binder 는 ``urlpath`` 를 서버 주소 뒤에 붙여 엽니다: ``git-pull?repo=...&branch=...&urlpath=...``
    (nbgitpuller). nbgitpuller 는 저장소를 홈의 ``<저장소 이름>/`` 에 받으므로(``targetpath`` 기본값) 연 노트북은
    ``lab/tree/<저장소 이름>/<path>`` 입니다. 안쪽 주소가 바깥 ``urlpath`` 의 값이라 두 번 인코딩됩니다
    (nbgitpuller 문서의 링크 생성기와 같은 꼴).
    """
    org, repo = github_parts(repo_url)
    inner = "git-pull?" + urlencode({
        "repo": f"https://github.com/{org}/{repo}",
        "branch": content_branch,
        "urlpath": f"{INTERFACE_PREFIX[interface]}/{repo}/{path}",
    })
    return f"{binderhub_url.rstrip('/')}/v2/gh/{org}/{repo}/{env_branch}?" + urlencode({"urlpath": inner})


def colab_url(colab: str, repo_url: str, content_branch: str, path: str) -> str:
    """GitHub 의 내용 브랜치 노트북을 Colab 에서 여는 주소 (sphinx-book-theme 와 같은 꼴)."""
    org, repo = github_parts(repo_url)
    return f"{colab.rstrip('/')}/github/{org}/{repo}/blob/{content_branch}/{path}"


def thebe_build_url(binderhub_url: str, repo_url: str, env_branch: str) -> str:
    """Live Code 가 여는 Binder 빌드 주소 (thebe: ``<binderhub>/build/gh/<조직>/<저장소>/<ref>``)."""
    org, repo = github_parts(repo_url)
    return f"{binderhub_url.rstrip('/')}/build/gh/{org}/{repo}/{env_branch}"


def settings_from_config(config: dict) -> dict[str, str]:
    """``_config.yml`` (Jupyter Book 형식) 에서 주소를 만드는 데 필요한 값 (scripts/, tests/ 가 씀)."""
    launch = config.get("launch_buttons", {})
    repository = config.get("repository", {})
    sphinx_config = config.get("sphinx", {}).get("config", {})
    return {
        "binderhub_url": launch.get("binderhub_url", ""),
        "colab_url": launch.get("colab_url", ""),
        "interface": launch.get("notebook_interface", "classic"),
        "repo_url": repository["url"],
        "content_branch": repository.get("branch", "main"),
        "env_branch": sphinx_config.get("binder_env_branch", DEFAULT_ENV_BRANCH),
    }


def links(settings: dict[str, str], path: str) -> dict[str, str]:
    """저장소 안의 노트북 ``path`` 의 Binder·Colab 주소."""
    return {
        "binder": binder_url(settings["binderhub_url"], settings["repo_url"], settings["env_branch"],
                             settings["content_branch"], path, settings["interface"]),
        "colab": colab_url(settings["colab_url"], settings["repo_url"], settings["content_branch"], path),
    }


# ---- Sphinx 확장 (the extension) ------------------------------------------------------


def _theme_settings(app: Any) -> dict[str, str]:
    options = app.config.html_theme_options
    launch = options.get("launch_buttons", {})
    return {
        "binderhub_url": launch.get("binderhub_url", ""),
        "colab_url": launch.get("colab_url", ""),
        "interface": launch.get("notebook_interface", "classic"),
        "repo_url": options.get("repository_url", ""),
        "content_branch": options.get("repository_branch") or "master",
        "env_branch": app.config.binder_env_branch,
    }


def thebe_uses_env_branch(app: Any) -> None:
    """Live Code 의 Binder 브랜치를 환경 브랜치로 (sphinx-book-theme 의 ``update_mode_thebe_config`` 보다 먼저)."""
    if not app.config.html_theme_options.get("launch_buttons", {}).get("thebe"):
        return
    app.config.thebe_config = {**(app.config.thebe_config or {}), "repository_branch": app.config.binder_env_branch}


def nbgitpuller_binder_button(app: Any, pagename: str, templatename: str, context: dict, doctree: Any) -> None:
    """테마가 만든 Binder 단추의 주소를 :func:`binder_url` 로 바꿉니다 (테마의 ``add_launch_buttons`` 다음)."""
    from sphinx.util import logging

    settings = _theme_settings(app)
    groups = [b for b in context.get("header_buttons") or [] if b.get("label") == "launch-buttons"]
    if not settings["binderhub_url"] or not groups:
        return
    binder = [b for g in groups for b in g.get("buttons", []) if b.get("text") == "Binder"]
    if len(binder) != 1:
        logging.getLogger(__name__).warning(
            "launch_links: %s 의 실행 단추에서 Binder 단추를 찾지 못했습니다 (sphinx-book-theme 의 단추 모양이 바뀜)",
            pagename)
        return
    path = Path(app.env.doc2path(pagename, False)).with_suffix(".ipynb").as_posix()
    book = app.config.html_theme_options.get("path_to_docs", "").strip("/")
    binder[0]["url"] = binder_url(settings["binderhub_url"], settings["repo_url"], settings["env_branch"],
                                  settings["content_branch"], f"{book}/{path}" if book else path,
                                  settings["interface"])


def setup(app: Any) -> dict[str, Any]:
    app.add_config_value("binder_env_branch", DEFAULT_ENV_BRANCH, "html", types=[str])
    app.connect("builder-inited", thebe_uses_env_branch, priority=400)
    app.connect("html-page-context", nbgitpuller_binder_button, priority=510)
    return {"version": "0.1", "parallel_read_safe": True, "parallel_write_safe": True}
