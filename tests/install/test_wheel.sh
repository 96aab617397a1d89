#!/usr/bin/env bash
# Issue #19: the pip wheel. Builds it from SOURCE with the torch venv's pip (no build isolation,
# so CMake imports that torch), installs it into a fresh venv beside the torch one, then, from
# another directory with nothing of the checkout on any path: `kbench --version` (the wheel's
# version and a commit), `import kbench` (the installed package; its Evaluator runs the venv's
# worker for one candidate of the test data), and the smoke suite's first problem through the
# installed command and the installed suite.
#
# Cost: the wheel's CMake build lives in BUILD-wheel, a sibling of BUILD, kept between runs, and
# runs with CCACHE_BASEDIR=SOURCE like scripts/setup.sh's build: a sibling has the same relative
# paths, so its compilations are the main build's ccache hits (same interpreter, same flags). It
# builds kbench, kbench-worker and the module only (pyproject.toml's build.targets). On the 2-core
# machine under load: cold (no BUILD-wheel) ~85 s, of which the wheel ~55 s (CMake, ccache hits,
# links); warm ~40 s, the wheel ~8 s; the rest is two CPU evaluations of small problems.
# Exit 77 (CTest: skipped) when the torch venv lacks scikit-build-core; scripts/setup.sh installs it.
# Usage: test_wheel.sh SOURCE_DIR BUILD_DIR PYTHON
set -euo pipefail
SOURCE="$1" BUILD="$2" PYTHON="$3"
TMP="$(mktemp -d /tmp/kbench-wheel-test.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
fail() { echo "test_wheel: FAIL: $*" >&2; exit 1; }
unset PYTHONPATH KBENCH_BINARY KBENCH_PROMPTS_DIR

if ! "$PYTHON" -c "import scikit_build_core" 2>/dev/null; then
  echo "test_wheel: skipped: $PYTHON has no scikit-build-core (scripts/setup.sh installs it)"
  exit 77
fi

WHEEL_BUILD="$(dirname "$BUILD")/$(basename "$BUILD")-wheel"
# The main build's compiler by the same name: scikit-build-core would otherwise take Python's
# (sysconfig's x86_64-linux-gnu-g++), the same g++ to the compiler but another ccache key.
CXX="$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$BUILD/CMakeCache.txt")"
[ -n "$CXX" ] || fail "no CMAKE_CXX_COMPILER in $BUILD/CMakeCache.txt"
started=$SECONDS
# pip wheel reads the tree in place (no copy), so the commit compiled in is the checkout's.
CXX="$CXX" CCACHE_BASEDIR="$SOURCE" CCACHE_NOHASHDIR=1 "$PYTHON" -m pip wheel --no-build-isolation --no-deps \
  --no-index -C build-dir="$WHEEL_BUILD" -w "$TMP/dist" "$SOURCE" > "$TMP/wheel.log" 2>&1 \
  || { tail -n 60 "$TMP/wheel.log"; fail "pip wheel"; }
echo "test_wheel: wheel built in $((SECONDS - started)) s ($WHEEL_BUILD)"
wheels=("$TMP"/dist/kbench-*.whl)
[ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ] || fail "no single kbench wheel in $TMP/dist: $(ls "$TMP/dist")"
WHEEL="${wheels[0]}"

# A fresh venv beside the torch one: venv's --system-site-packages would reach the base
# interpreter's packages, not the torch venv's, so a .pth file puts those on its path instead.
V="$TMP/venv"
"$PYTHON" -m venv --without-pip "$V"
torch_site="$("$PYTHON" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
venv_site="$("$V/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
echo "$torch_site" > "$venv_site/torch_venv.pth"
# pip itself comes from the torch venv through that path; it installs into the running venv.
"$V/bin/python" -m pip install --no-deps --no-index "$WHEEL" > "$TMP/install.log" 2>&1 \
  || { cat "$TMP/install.log"; fail "pip install of the wheel"; }
for f in bin/kbench bin/kbench-worker share/kbench/suites/smoke.yaml share/kbench/prompts/rules-triton.md \
         share/kbench/problems share/doc/kbench/README.md; do
  [ -e "$V/$f" ] || fail "$f not installed in the venv"
done
[ -x "$V/bin/kbench" ] && [ -x "$V/bin/kbench-worker" ] || fail "the installed commands are not executable"

mkdir "$TMP/elsewhere" && cd "$TMP/elsewhere"
export PATH="$V/bin:$PATH"
[ "$(command -v kbench)" = "$V/bin/kbench" ] || fail "kbench on PATH is $(command -v kbench)"

# The version: the wheel's file name, its metadata and the binary agree, with a commit.
version_line="$(kbench --version)"
wheel_version="$(basename "$WHEEL" | cut -d- -f2)"
echo "$version_line" | grep -Eq "^kbench ${wheel_version//./\\.} \(commit [0-9a-f]{7,}" \
  || fail "--version '$version_line' is not the wheel's $wheel_version with a commit"

# The module: the venv's copy (not the checkout's), whose Evaluator runs the venv's worker (one
# evaluation of the test data's quick suite).
"$V/bin/python" - "$V" "$SOURCE" "$wheel_version" <<'PY' || fail "import kbench in the venv"
import importlib.metadata, os, sys
import kbench
from kbench import _kbench, evaluator
venv, source, version = sys.argv[1:]
venv = os.path.realpath(venv)
assert os.path.realpath(kbench.__file__).startswith(venv + os.sep), kbench.__file__
assert importlib.metadata.version("kbench") == version, importlib.metadata.version("kbench")
assert evaluator._kbench_binary(None) == os.path.join(venv, "bin", "kbench"), evaluator._kbench_binary(None)
data = os.path.join(source, "tests", "data")
with kbench.Evaluator(os.path.join(data, "suites", "quick.yaml"), devices="cpu", work_dir="module-work") as ev:
    assert _kbench.worker_executable() == os.path.join(venv, "bin", "kbench-worker"), _kbench.worker_executable()
    result = ev.evaluate("add_one_a", open(os.path.join(data, "candidates", "add_one_ok.py")).read())
    assert result.status == "ok", (result.status, result.message, result.diagnostics)
PY

# One smoke problem through the installed command and suite, nothing from SOURCE or BUILD.
kbench run "$V/share/kbench/suites/smoke.yaml" --device cpu --problems 01_leaky_relu_scale \
  --baselines eager --max-time 1 --work-dir run-work -o r.json > run.log 2>&1 || { cat run.log; fail "installed run"; }
"$PYTHON" - r.json "$SOURCE" "$BUILD" "$V" <<'PY' || fail "installed run's results"
import json, sys
doc = json.load(open(sys.argv[1]))
statuses = [(r["problem"], r["status"]) for r in doc["results"]]
assert statuses == [("01_leaky_relu_scale", "ok")], statuses
text = json.dumps(doc["results"][0]["candidate_file"])
assert sys.argv[2] not in text and sys.argv[3] not in text and sys.argv[4] in text, text
PY
echo "test_wheel: ok ($((SECONDS - started)) s in all)"
