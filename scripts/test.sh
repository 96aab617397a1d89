#!/usr/bin/env bash
# Installs what is missing (scripts/setup.sh), builds, then runs every test with CTest.
# The last line printed is CTest's summary.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${KBENCH_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/setup.sh"
cd "$BUILD"
exec ctest --output-on-failure --parallel 2 "$@"
