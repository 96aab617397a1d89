#!/usr/bin/env bash
# Issue #19: an installed kbench works from anywhere. Installs BUILD into a temporary prefix, then,
# from another directory: --version, the smoke suite's first problem on the CPU with the installed
# binary and the installed suite, the clear exit 3 for a missing Python, completion, and a C++
# project that links the library through find_package(kbench). Also: no build machine's absolute
# path in docs/ or README.md. About 1-3 minutes (one CPU evaluation, one small CMake build).
# Usage: test_install.sh SOURCE_DIR BUILD_DIR PYTHON
set -euo pipefail
SOURCE="$1" BUILD="$2" PYTHON="$3"
TMP="$(mktemp -d /tmp/kbench-install-test.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT
fail() { echo "test_install: FAIL: $*" >&2; exit 1; }

cmake --install "$BUILD" --prefix "$TMP/prefix" > "$TMP/install.log" || { cat "$TMP/install.log"; fail "cmake --install"; }
P="$TMP/prefix"
for f in bin/kbench bin/kbench-worker share/kbench/suites/smoke.yaml share/kbench/prompts/rules-triton.md \
         share/doc/kbench/README.md include/kbench/suite/suite.hpp lib/libkbench_core.a lib/cmake/kbench/kbenchConfig.cmake; do
  [ -e "$P/$f" ] || fail "$f not installed"
done

mkdir "$TMP/elsewhere" && cd "$TMP/elsewhere"
"$P/bin/kbench" --version | grep -Eq '^kbench [0-9]+\.[0-9]+\.[0-9]+ \(commit [0-9a-f]{7,}' || fail "--version: $("$P/bin/kbench" --version)"

# The installed binary and suite, nothing from the checkout or the build tree.
KBENCH_PYTHON="$PYTHON" "$P/bin/kbench" run "$P/share/kbench/suites/smoke.yaml" --device cpu \
  --problems 01_leaky_relu_scale --baselines eager --max-time 1 -o r.json > run.log 2>&1 || { cat run.log; fail "installed run"; }
"$PYTHON" - r.json "$SOURCE" "$BUILD" <<'PY' || fail "installed run's results"
import json, sys
doc = json.load(open(sys.argv[1]))
statuses = [(r["problem"], r["status"]) for r in doc["results"]]
assert statuses == [("01_leaky_relu_scale", "ok")], statuses
text = json.dumps(doc["results"][0]["candidate_file"])
assert sys.argv[2] not in text and sys.argv[3] not in text, text  # ran the installed copy
PY

set +e
KBENCH_PYTHON=/nonexistent/python "$P/bin/kbench" run "$P/share/kbench/suites/smoke.yaml" --device cpu \
  --problems 01_leaky_relu_scale -o r2.json > missing.log 2>&1
rc=$?
set -e
[ $rc -eq 3 ] || { cat missing.log; fail "a missing KBENCH_PYTHON exits $rc, not 3"; }
grep -q "set KBENCH_PYTHON to the python that has torch" missing.log || { cat missing.log; fail "no hint for KBENCH_PYTHON"; }

"$P/bin/kbench" completion bash | bash -n || fail "completion bash"

cmake -S "$SOURCE/tests/install/consumer" -B consumer -DCMAKE_PREFIX_PATH="$P" > consumer.log 2>&1 \
  && cmake --build consumer >> consumer.log 2>&1 || { cat consumer.log; fail "find_package(kbench) consumer"; }
./consumer/count_problems "$P/share/kbench/suites/smoke.yaml" | head -1 | grep -q "^smoke: 6 problems" \
  || fail "consumer: $(./consumer/count_problems "$P/share/kbench/suites/smoke.yaml")"
version="$("$P/bin/kbench" --version | cut -d' ' -f2)"
./consumer/count_problems "$P/share/kbench/suites/smoke.yaml" | tail -1 | grep -qx "kbench $version" \
  || fail "consumer's kbench::kVersion is not the binary's $version"

# Docs show paths relative to the repository or the prefix, never one machine's.
if grep -rnE '/work/|/root/|/home/[a-z]' "$SOURCE/docs" "$SOURCE/README.md"; then fail "absolute paths above"; fi
echo "test_install: ok"
