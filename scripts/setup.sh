#!/usr/bin/env bash
# Idempotent set-up of a Debian 12 / Ubuntu 24.04 developer or CI machine:
#   1. the Debian packages kbench builds against (apt-get, only those missing),
#   2. a Python environment outside the repo with torch >= 2.9, triton and numpy,
#   3. a CMake + Ninja (+ ccache) build that leaves the binary at build/bin/kbench.
# Environment: KBENCH_VENV (default ~/.cache/kbench/venv), KBENCH_BUILD_DIR (default build/),
# KBENCH_PYTHON_BASE (python used to create the venv; default /usr/bin/python3).
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${KBENCH_VENV:-$HOME/.cache/kbench/venv}"
BUILD="${KBENCH_BUILD_DIR:-$ROOT/build}"
BASE_PYTHON="${KBENCH_PYTHON_BASE:-/usr/bin/python3}"
# torch 2.11 matches the H200 machine; Triton 3.6's interpreter (CPU runs) breaks with numpy 2.4.
TORCH_SPEC="${KBENCH_TORCH_SPEC:-torch==2.11.0}"
NUMPY_SPEC="numpy<2.4"

log() { printf 'setup: %s\n' "$*" >&2; }

SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi

PACKAGES=(build-essential cmake ninja-build ccache pkg-config python3-dev python3-venv
          libcli11-dev libfmt-dev libyaml-cpp-dev catch2 nlohmann-json3-dev
          libcurl4-openssl-dev libsqlite3-dev
          pybind11-dev  # the `kbench` Python module (apps/python/); optional: skipped without it
          libcpp-httplib-dev  # optional: `kbench serve` (docs/serve.md#building)
          libpq-dev  # optional: `kbench history --db postgresql://...`
          chromium   # the HTML report render tests (tests/render)
          slurm-wlm  # the real single-node Slurm of tests/cluster/test_slurm.sh
          zsh        # the shell-completion test (kbench completion zsh)
          postgresql)  # the real PostgreSQL server of the history tests
missing=()
for package in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ ! -x "$VENV/bin/python3" ]; then
  log "creating the Python environment $VENV"
  mkdir -p "$(dirname "$VENV")"
  "$BASE_PYTHON" -m venv "$VENV"
fi
if ! "$VENV/bin/python3" - <<'PY' 2>/dev/null
import numpy, torch, triton, jsonschema, kubernetes_validate, pytest
major, minor = (int(x) for x in torch.__version__.split(".")[:2])
assert (major, minor) >= (2, 9), torch.__version__
assert tuple(int(x) for x in numpy.__version__.split(".")[:2]) < (2, 4), numpy.__version__
PY
then
  log "installing $TORCH_SPEC, triton and $NUMPY_SPEC into $VENV (several GB, once)"
  "$VENV/bin/python3" -m pip install -q --upgrade pip >/dev/null
  # kubernetes-validate: the Kubernetes manifests' schema check (tests: test_k8s_manifests);
  # pytest: the `kbench` Python module's tests (tests/python).
  "$VENV/bin/python3" -m pip install -q "$TORCH_SPEC" "$NUMPY_SPEC" pyyaml jsonschema kubernetes-validate pytest
fi

# scikit-build-core: the build backend of `pip install --no-build-isolation .` (pyproject.toml,
# docs/install.md#pip; tests: test_wheel). pybind11 comes from the OS (pybind11-dev above).
if ! "$VENV/bin/python3" -c "import scikit_build_core" 2>/dev/null; then
  log "installing scikit-build-core into $VENV (the wheel's build backend)"
  "$VENV/bin/python3" -m pip install -q "scikit-build-core>=0.10"
fi

# ccache: hash paths relative to the checkout so every clone shares one cache.
export CCACHE_BASEDIR="$ROOT" CCACHE_NOHASHDIR=1
export CCACHE_DIR="${CCACHE_DIR:-$HOME/.cache/ccache}"
if [ ! -f "$BUILD/build.ninja" ]; then
  log "configuring $BUILD"
  cmake -S "$ROOT" -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DPython3_EXECUTABLE="$VENV/bin/python3" >/dev/null
fi
log "building (ccache: $CCACHE_DIR)"
cmake --build "$BUILD" --parallel "$(nproc)" 2>&1 | grep -Ev '^\[[0-9]+/[0-9]+\] ' || true
test -x "$BUILD/bin/kbench" || { log "build failed: $BUILD/bin/kbench is missing"; exit 1; }
log "ready: $BUILD/bin/kbench"
