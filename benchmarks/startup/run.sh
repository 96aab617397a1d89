#!/usr/bin/env bash
# Start-up cost of the kbench controller binary: peak RSS and wall time of commands that never
# evaluate anything (`--version`, `--help`, `list`, `compare --help`) against the worker side
# (`check-candidate`, which embeds Python and links LibTorch), measured with /usr/bin/time -v.
# Since kbench-worker was split off (apps/kbench/worker_commands.hpp) the first group does not
# load LibTorch. Usage: benchmarks/startup/run.sh [BUILD_DIR] (default: build)
# Prints one line per command: peak RSS in KB, wall seconds, the command.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
BUILD="${1:-$ROOT/build}"
KBENCH="$BUILD/bin/kbench"
[ -x /usr/bin/time ] || { echo "benchmarks/startup: /usr/bin/time is missing (apt-get install time)" >&2; exit 3; }
[ -x "$KBENCH" ] || { echo "benchmarks/startup: $KBENCH is missing; build first (scripts/setup.sh)" >&2; exit 3; }
measure() {
  local log
  log="$(mktemp)"
  /usr/bin/time -v "$KBENCH" "$@" >/dev/null 2>"$log" || true
  local rss wall
  rss="$(awk -F': ' '/Maximum resident set size/ {print $2}' "$log")"
  wall="$(awk -F': ' '/Elapsed \(wall clock\)/ {print $2}' "$log")"
  rm -f "$log"
  printf '%10s KB  %8s  kbench %s\n' "$rss" "$wall" "$*"
}
printf '%13s  %8s  %s\n' "peak RSS" "wall" "command"
measure --version
measure --help
measure run --help
measure compare --help
measure list "$ROOT/configs/suites/smoke.yaml"
measure check-candidate "$ROOT/benchmarks/solutions/smoke/01_leaky_relu_scale_triton.py"
