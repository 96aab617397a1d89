#!/usr/bin/env bash
# The main job: installs what is missing, then runs the shipped smoke suite on the GPU when one
# is present, else on the CPU, and prints the results table. Extra arguments go to `kbench run`.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${KBENCH_BUILD_DIR:-$ROOT/build}"
"$ROOT/scripts/setup.sh"
exec "$BUILD/bin/kbench" run "$ROOT/configs/suites/smoke.yaml" --device auto -o "$ROOT/smoke-results.json" "$@"
