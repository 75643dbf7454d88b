# 멀티헤드 어텐션 강좌: 준비, 빌드, 테스트 (set up, build, test)
#
#   make book    .venv 와 node_modules 를 준비하고 사이트를 _build/html 에 빌드
#   make test    make book 다음, 브라우저 테스트용 시스템 패키지를 확인하고 pytest 전체 실행
#   make test-fast  책 빌드 없이 빠른 테스트만 (사이트, 브라우저, 학습, 채점 빼고; 3분 안)
#   make bench   benchmarks/bench_*.py 를 모두 실행
#   make bench-site  모든 페이지에 Lighthouse 12 (gzip 으로 내보낸 사이트, 휴대폰 기본 설정)
#   make serve   _build/html 을 http://127.0.0.1:8000 에서 gzip 으로 보여 줌
#   make clean   빌드 결과와 복사한 자산 삭제 (distclean: .venv, node_modules 까지)
#   make binder  binder/requirements.txt 를 다시 만들고 Binder 환경 브랜치를 맞춤 (CPU torch, 실행에 필요한 것만)
#   make lock    requirements.in -> requirements.txt, binder/requirements.in -> binder/requirements.txt (UPGRADE=1: 새 판으로)
#
# 준비 단계는 stamp 파일로 건너뜁니다. stamp 는 자기가 설명하는 폴더 안에 있어서
# 폴더를 지우면 stamp 도 같이 사라집니다 (.venv/.stamp-venv, node_modules/.stamp-node,
# _assets/vendor/.stamp-assets).

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := book
MAKEFLAGS += --no-builtin-rules
.DELETE_ON_ERROR:

# ---- 변수 (variables) ---------------------------------------------------------------
ifeq ($(origin PYTHON),undefined)
PYTHON := $(shell command -v python3.11 2>/dev/null || command -v python3 2>/dev/null)
endif
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
JB := $(VENV)/bin/jupyter-book
TORCH_VERSION := 2.13.0
# torch 를 받을 색인 (비우면 pip 설정 그대로). GitHub 워크플로는 PyTorch 의 CPU 색인을 줍니다: PyPI 의 기본 휠은
# CUDA 패키지(nvidia-*, 수 GB)를 끌어옵니다. (Index for torch only; the workflows set PyTorch's CPU index.)
TORCH_INDEX_URL ?=
NPM ?= npm
NODE_MODULES := node_modules
VENDOR := _assets/vendor
BUILD_DIR := _build
HTML_DIR := $(BUILD_DIR)/html
JB_FLAGS := -W -n --keep-going
PYTEST_ARGS ?=
PYTEST_JOBS ?= 2
FAST_MARKERS := not site and not browser and not slow and not training and not grading
HOST ?= 127.0.0.1
PORT ?= 8000
CHROMIUM ?= /usr/bin/chromium
APT_PACKAGES := chromium fonts-nanum bubblewrap

VENV_STAMP := $(VENV)/.stamp-venv
# 강좌의 패키지 (저장소 최상위의 같은 이름 폴더, 폴더마다 pyproject.toml). 누가 돌리느냐로 나눔:
#   attn_lib (학생이 읽는 핵심, torch 만) <- attn_course (그림, 탐색기, 실험, 연습) <- attn_harness (채점 샌드박스 안)
#   <- attn_grader (채점 판정, 강사만); attn_site (사이트의 Sphinx 확장)
PACKAGES := attn_lib attn_course attn_harness attn_grader attn_site
PACKAGE_FILES := $(foreach p,$(PACKAGES),$(p)/pyproject.toml)
# jupyter-cache 는 노트북 내용만 보고 결과를 재사용합니다. 장들이 import 하는 패키지(attn_lib, attn_course)의 내용이
# 바뀌면 저장된 출력(그림, 숫자, 대체 텍스트)이 낡으므로 캐시를 지워 모든 노트북을 다시 실행합니다. 바뀌었는지는
# 수정 시각이 아니라 내용의 해시로 봅니다 (scripts/exec_stamp.py; 채점기나 사이트 확장을 고쳐도 캐시는 그대로).
# Sphinx 환경도 지웁니다: 환경이 남아 있으면 바뀌지 않은 노트북은 다시 읽지 않아(곧 실행하지 않아)
# 낡은 출력이 페이지에 남고 캐시만 빈 채가 됩니다.
# (The execution cache keys on notebook content only; a changed attn_lib or attn_course invalidates it, by content hash.)
EXEC_STAMP := $(BUILD_DIR)/.stamp-chapter-packages
# 장의 실행 결과를 바꿀 수 있는 패키지 (tests/test_exec_stamp.py 가 `make print-watched` 로 확인)
CHAPTER_PACKAGES := attn_lib attn_course
LIB_FILES := $(shell find $(CHAPTER_PACKAGES) -type f -not -path '*/__pycache__/*' -not -name '*.pyc' \
  -not -path '*.egg-info/*' -not -path '*/build/*' -not -name public_spec.json | sort)
GRADER_FILES := $(shell find attn_harness attn_grader -type f -name '*.py' -not -path '*/build/*' | sort)
NODE_STAMP := $(NODE_MODULES)/.stamp-node
ASSETS_STAMP := $(VENDOR)/.stamp-assets

MATHJAX := $(NODE_MODULES)/mathjax/es5
HTML_MANAGER := $(NODE_MODULES)/@jupyter-widgets/html-manager/dist
NODE ?= node
# Live Code(thebe)를 사이트에서 직접 내보냅니다 (thebe is served by the site, not by a CDN).
# `npm install thebe` 는 @jupyterlab 의존성이 없어 실패하므로, 패키지 파일만 `npm pack` 으로 받고
# 레지스트리가 밝힌 무결성 값(sha512)과 맞춰 봅니다. 버전을 올리면 둘을 함께 바꾸세요:
#   npm view thebe@<버전> dist.integrity
THEBE_VERSION := 0.9.2
THEBE_INTEGRITY := sha512-qjUpg33VY4CT2hKl+N+FiglTJPfmlA/lQdsJofK2WPAvkiM/l7zTG6MtXNj/pA5YGk11Opcax9EGuBXIz3T1JQ==

# 노트북 커널과 하위 명령이 venv 의 도구를 쓰도록 (kernel and tools come from the venv)
export PATH := $(abspath $(VENV))/bin:$(PATH)
export PIP_NO_INPUT := 1
export PYDEVD_DISABLE_FILE_VALIDATION := 1
# 책을 빌드할 때 그림 함수가 휴대폰용 그림(한 열, 좁은 너비)도 그려 PNG 에 넣습니다 (attn_course/viz/phone.py,
# attn_site/figure_alt.py 가 <picture> 로). 노트북을 직접 열면 이 변수가 없어 넓은 그림만 그립니다.
export ATTN_PHONE_FIGURES := 1

.PHONY: book test test-fast bench bench-site serve clean distclean setup browser-deps assignments grade binder lock print-watched

# ---- 목표 (targets) -----------------------------------------------------------------
book: setup $(EXEC_STAMP)
	@# 경고로 실패한 빌드 다음의 증분 빌드는 그 경고를 다시 내지 않습니다 (문서를 다시 읽지
	@# 않으므로). 실패하면 Sphinx 환경을 지워 다음 빌드가 모든 문서를 다시 읽게 합니다.
	@# (노트북 실행 결과는 jupyter-cache 에 남아 다시 실행하지 않습니다.)
	@echo "$(JB) build . $(JB_FLAGS)"
	@$(JB) build . $(JB_FLAGS) || { \
	  rm -f $(BUILD_DIR)/.doctrees/environment.pickle; \
	  echo "!!! 사이트 빌드 실패 (site build failed): 위의 경고/오류를 보세요." >&2; \
	  exit 1; }

# 두 코어를 씁니다 (pytest-xdist, 파일마다 한 작업자). 채점(grading)·학습(training) 표시의 테스트는 그 뒤에 한 프로세스에서
# 차례로 (다른 테스트와 나란히 돌지 않게; 표시는 tests/conftest.py). 고른 테스트가 없으면(종료 코드 5) 괜찮습니다.
test: book browser-deps assignments
	$(PY) -m pytest -n $(PYTEST_JOBS) --dist loadfile -m "not grading and not training" $(PYTEST_ARGS)
	$(PY) -m pytest -m "grading or training" $(PYTEST_ARGS) || test $$? = 5

# 빠른 고리: 책을 빌드하지 않고, 빌드된 사이트·브라우저·학습·채점·노트북 실행이 필요 없는 테스트만 (tests/conftest.py 의
# 표시). 라이브러리·스크립트·설정을 고칠 때 씁니다. 사이트나 장을 고쳤으면 `make test` 로.
test-fast: setup
	$(PY) -m pytest -n $(PYTEST_JOBS) --dist loadfile -m "$(FAST_MARKERS)" $(PYTEST_ARGS)

bench: $(VENV_STAMP)
	$(PY) benchmarks/run_all.py

# 사이트 속도: 빌드한 사이트를 gzip 으로 내보내고 모든 페이지에 Lighthouse 12 (기본 모바일 설정).
# lighthouse 는 책의 node_modules 와 따로 .bench-tools/ 에 받습니다 (빌드에는 필요 없음).
# lighthouse 13 은 Node 22 가 필요해서 12 에 묶습니다. (Lighthouse on every page, served with gzip.)
LIGHTHOUSE_VERSION ?= 12.8.2
LIGHTHOUSE := .bench-tools/node_modules/.bin/lighthouse
$(LIGHTHOUSE):
	$(NPM) install --prefix .bench-tools --no-audit --no-fund --no-save lighthouse@$(LIGHTHOUSE_VERSION)

bench-site: book browser-deps $(LIGHTHOUSE)
	$(PY) benchmarks/site_lighthouse.py --lighthouse $(LIGHTHOUSE)

serve:
	@test -f $(HTML_DIR)/index.html || { echo "$(HTML_DIR) 이 없습니다. 먼저 'make book' (run 'make book' first)" >&2; exit 1; }
	@echo ">>> http://$(HOST):$(PORT)/  (gzip, Ctrl+C 로 멈춤)"
	$(PY) scripts/serve_gzip.py $(HTML_DIR) --port $(PORT) --bind $(HOST)

clean:
	rm -rf $(BUILD_DIR) $(VENDOR) .pytest_cache

distclean: clean
	rm -rf $(VENV) $(NODE_MODULES) .bench-tools

setup: $(VENV_STAMP) $(ASSETS_STAMP)

# 실행 캐시가 지켜보는 파일 목록 (tests/test_exec_stamp.py 가 씀)
print-watched:
	@printf '%s\n' $(LIB_FILES)

# ---- 잠금 파일 (locks) -----------------------------------------------------------------
# requirements.in(직접 의존성) -> requirements.txt, binder/requirements.in(-c ../requirements.txt) -> binder/requirements.txt.
# pip-tools 의 pip-compile. torch 는 적지만 내보내지 않습니다(--unsafe-package torch: uv 의 --no-emit-package 와 같은 일):
# torch 의 판은 위의 TORCH_VERSION 과 binder/postBuild 에 있습니다. 기본은 있는 고정값을 그대로 두고 .in 에 새로 적은
# 것만 풀고, UPGRADE=1 이면 모두 새 판으로 (README '올릴 때'). pip 이 CPU torch 휠을 찾지 못하는 기계에서는
# TORCH_INDEX_URL=https://download.pytorch.org/whl/cpu 를 주세요: 아니면 CUDA torch 의 nvidia-*·triton 이 잠금에 들어가고
# tests/test_locks.py 가 실패합니다. (Locks are compiled with pip-tools; torch is never emitted.)
PIP_COMPILE = CUSTOM_COMPILE_COMMAND="make lock" $(VENV)/bin/pip-compile --quiet --strip-extras --no-allow-unsafe \
  --unsafe-package torch --unsafe-package pip --unsafe-package setuptools --unsafe-package distribute \
  --no-emit-index-url --no-emit-find-links --annotation-style line \
  $(if $(TORCH_INDEX_URL),--extra-index-url $(TORCH_INDEX_URL)) $(if $(UPGRADE),--upgrade)

lock: $(VENV_STAMP)
	$(PIP_COMPILE) --output-file requirements.txt requirements.in
	$(PIP_COMPILE) --output-file binder/requirements.txt binder/requirements.in

# Binder: 설치 목록을 최상위 잠금에 맞춰 다시 만들고, 환경 브랜치(_config.yml 의 sphinx.config.binder_env_branch)를
# binder/ 와 attn_lib 을 마지막으로 바꾼 커밋으로 옮깁니다 (scripts/binder_env.py). 장만 바뀌었으면 환경 브랜치는
# 그대로라 Binder 가 이미지를 다시 만들지 않습니다. 끝나면 찍힌 push 명령을 실행하세요.
binder: $(VENV_STAMP)
	$(PIP_COMPILE) --output-file binder/requirements.txt binder/requirements.in
	$(PY) scripts/binder_env.py sync

# ---- 과제 (coursework) ---------------------------------------------------------------
#   make assignments                  assignments/*.ipynb (연습판, 풀이 공개) -> dist/<이름>/
#   make assignments MASTER=<비공개 경로>/<이름>.ipynb [CLASS_SECRET=<파일>]
#                                     강사만 읽는 마스터로 반마다 다른 판 (비밀 값 파일이 없으면 새로 만듦)
#   make grade SUBMISSIONS=<폴더>      제출마다 샌드박스(bubblewrap)에서 실행하고 값만 받아 채점 -> $(GRADES)
DIST := dist
MASTER ?=
CLASS_SECRET ?=
ASSIGNMENT ?= $(if $(MASTER),$(basename $(notdir $(MASTER))),attention_hw)
BUNDLE := $(DIST)/$(ASSIGNMENT)/$(ASSIGNMENT)-grading.json
AUTOGRADER := $(DIST)/$(ASSIGNMENT)/$(ASSIGNMENT)-autograder.zip
ASSIGNMENT_INPUTS := $(if $(MASTER),$(MASTER),$(wildcard assignments/*.ipynb)) $(GRADER_FILES) \
  $(filter attn_course/practice/%.py,$(LIB_FILES))
SUBMISSIONS ?=
GRADES ?= $(DIST)/grades.csv
GRADE_TIMEOUT ?= 300
# 동시에 채점할 제출 수: 기본은 코어 수 (제출마다 torch 스레드 하나, 작업 칸마다 다른 uid)
GRADE_JOBS ?= $(shell nproc 2>/dev/null || echo 1)

assignments: $(BUNDLE)

# 채점 묶음과 자동 채점 zip 은 함께 만들어지고(읽기 전용), 마스터나 채점기가 바뀌면 다시 만듭니다.
$(BUNDLE) $(AUTOGRADER) &: $(ASSIGNMENT_INPUTS) | $(VENV_STAMP)
	$(VENV)/bin/attn-build-assignments --dist $(DIST) $(if $(MASTER),--master "$(MASTER)") \
	  $(if $(CLASS_SECRET),--secret "$(CLASS_SECRET)")

grade: assignments
	@test -n "$(SUBMISSIONS)" || { echo "제출 폴더를 주세요: make grade SUBMISSIONS=<폴더> (give a folder of .ipynb)" >&2; exit 1; }
	$(VENV)/bin/attn-grade "$(SUBMISSIONS)" --bundle $(BUNDLE) --output $(GRADES) \
	  --timeout $(GRADE_TIMEOUT) --jobs $(GRADE_JOBS)

# ---- 준비 단계 (setup steps) --------------------------------------------------------
# 해시가 바뀌었을 때만 캐시를 지웁니다 (수정 시각만 바뀐 clone, checkout 에는 그대로). 늘 실행되는 작은 단계.
.PHONY: $(EXEC_STAMP)
$(EXEC_STAMP): | $(VENV_STAMP)
	@$(PY) scripts/exec_stamp.py --stamp $@ --build $(BUILD_DIR) $(CHAPTER_PACKAGES)


# torch 를 먼저 설치합니다 (CPU 휠). 그다음 고정된 requirements, 마지막으로 강좌의 패키지들 (editable, 폴더마다).
$(VENV_STAMP): requirements.txt $(PACKAGE_FILES)
	@test -n "$(PYTHON)" || { echo "python3.11 (또는 python3) 이 필요합니다 (Python 3.11 required)" >&2; exit 1; }
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install $(if $(TORCH_INDEX_URL),--index-url $(TORCH_INDEX_URL)) torch==$(TORCH_VERSION)
	$(PIP) install -r requirements.txt
	$(PIP) install --no-deps $(foreach p,$(PACKAGES),-e ./$(p))
	touch $@

$(NODE_STAMP): package.json package-lock.json
	@command -v $(NPM) >/dev/null || { echo "npm 이 필요합니다 (npm is required)" >&2; exit 1; }
	$(NPM) ci --no-audit --no-fund --loglevel=error
	touch $@

# node_modules 에서 사이트가 쓰는 파일만 _assets/vendor/ 로 복사합니다 (CDN 대신).
# MathJax 는 tex-chtml.js 와 실행 중에 불러오는 것만: TeX 확장(autoload), CHTML 글꼴,
# 메뉴/접근성(ui, a11y), 음성 규칙(sre, 영어와 점자만).
# vega, vega-lite, vega-embed 는 UMD 빌드 하나씩 (정적 어텐션 탐색기, attn_course/explorer/static.py).
$(ASSETS_STAMP): $(NODE_STAMP) Makefile
	rm -rf $(VENDOR)
	mkdir -p $(VENDOR)/requirejs $(VENDOR)/html-manager $(VENDOR)/mathjax/input/tex \
	  $(VENDOR)/mathjax/output/chtml/fonts $(VENDOR)/mathjax/sre/mathmaps $(VENDOR)/vega
	for pkg in vega vega-lite vega-embed; do \
	  cp $(NODE_MODULES)/$$pkg/build/$$pkg.min.js $(VENDOR)/vega/; \
	  cp $(NODE_MODULES)/$$pkg/LICENSE $(VENDOR)/vega/LICENSE-$$pkg; \
	done
	cp $(NODE_MODULES)/requirejs/require.js $(VENDOR)/requirejs/
	cp $(HTML_MANAGER)/embed-amd.js $(VENDOR)/html-manager/
	cp $(HTML_MANAGER)/*.woff $(HTML_MANAGER)/*.woff2 $(HTML_MANAGER)/*.ttf \
	  $(HTML_MANAGER)/*.eot $(HTML_MANAGER)/*.svg $(VENDOR)/html-manager/
	cp $(MATHJAX)/../LICENSE $(MATHJAX)/tex-chtml.js $(VENDOR)/mathjax/
	cp -R $(MATHJAX)/input/tex/extensions $(VENDOR)/mathjax/input/tex/
	cp -R $(MATHJAX)/output/chtml/fonts/woff-v2 $(VENDOR)/mathjax/output/chtml/fonts/
	cp -R $(MATHJAX)/ui $(MATHJAX)/a11y $(VENDOR)/mathjax/
	cp $(MATHJAX)/sre/mathmaps/base.json $(MATHJAX)/sre/mathmaps/en.json \
	  $(MATHJAX)/sre/mathmaps/nemeth.json $(VENDOR)/mathjax/sre/mathmaps/
	@# thebe: webpack 번들 lib/index.js 와, 그것이 자기 주소 옆에서 불러오는 번호 붙은 조각(N.index.js),
	@# thebe.css, 번들에 든 라이브러리의 저작권 고지(*.LICENSE.txt), 라이선스(BSD-3-Clause)가 적힌
	@# package.json 만 복사합니다 (.map, types/, src/ 는 뺌). npm 패키지에는 LICENSE 파일이 없습니다.
	tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	( cd "$$tmp" && $(NPM) pack thebe@$(THEBE_VERSION) --silent --loglevel=error >/dev/null ); \
	tgz="$$tmp/thebe-$(THEBE_VERSION).tgz"; \
	got=$$($(NODE) -e 'const c=require("crypto"),f=require("fs"); process.stdout.write("sha512-"+c.createHash("sha512").update(f.readFileSync(process.argv[1])).digest("base64"))' "$$tgz"); \
	if [ "$$got" != "$(THEBE_INTEGRITY)" ]; then \
	  echo "!!! thebe@$(THEBE_VERSION) 패키지의 무결성 값이 고정값과 다릅니다. 받은 파일을 쓰지 않습니다." >&2; \
	  echo "!!! Integrity mismatch for thebe@$(THEBE_VERSION); refusing to vendor it." >&2; \
	  echo "    expected $(THEBE_INTEGRITY)" >&2; \
	  echo "    got      $$got" >&2; \
	  exit 1; \
	fi; \
	tar -xzf "$$tgz" -C "$$tmp"; \
	mkdir -p $(VENDOR)/thebe; \
	cp "$$tmp"/package/lib/*.js "$$tmp"/package/lib/thebe.css "$$tmp"/package/lib/*.LICENSE.txt \
	  "$$tmp"/package/package.json $(VENDOR)/thebe/
	touch $@

# ---- 테스트용 시스템 패키지: 브라우저, 한국어 글꼴, 채점 샌드박스 (system packages for tests) --
browser-deps:
	@missing=""; \
	test -x "$(CHROMIUM)" || missing="$$missing chromium"; \
	command -v bwrap >/dev/null || missing="$$missing bubblewrap"; \
	{ fc-list 2>/dev/null | grep -i nanum >/dev/null || dpkg -s fonts-nanum >/dev/null 2>&1; } || missing="$$missing fonts-nanum"; \
	if [ -z "$$missing" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo ">>> apt-get install -y$$missing"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get update && apt-get install -y --no-install-recommends$$missing; \
	else \
	  echo "테스트에 시스템 패키지가 필요합니다 (tests need):$$missing" >&2; \
	  echo "  sudo apt-get update && sudo apt-get install -y $(APT_PACKAGES)" >&2; \
	  exit 1; \
	fi
