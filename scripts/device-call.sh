#!/usr/bin/env bash
# One device-tool call of scripts/device-test.sh that a later call (or a later session) can resume.
# Usage, as the device tool's command (carry the journals folder, e.g. [".resume"]):
#   KBENCH_DEVICE_STAGES=kbmemory KBENCH_KB_SUBSET=all CALL_TIMEOUT=540 scripts/device-call.sh NAME
# Why a fixed OUTDIR: a stage's journal names its jobs' candidates by absolute path (aa_run.sh writes
# them under OUTDIR), so a resumed journal only matches when every call uses the same OUTDIR.
# Why copy only this call's files, packed into one: the tool brings back at most 8 files (2026-12-06:
# a call's probe outputs were left behind by its count), and OUTDIR keeps the earlier calls' files
# while the machine stays warm. $OUT/NAME.tgz holds them (journals/ included); unpack it here with
# scripts/device-unpack.sh, which also copies the 250-problem run's journal into .resume/journals
# for the next call (never over a longer one).
# Env: CALL_TIMEOUT (s, default 540: under the tool's 600 s, so what finished still comes back),
# KBENCH_DEVICE_JOURNALS (default .resume/journals: the last call's journals, copied there by hand
# from the tool's files), KBENCH_CALL_OUTDIR (default /tmp/kbench-device-out). Everything else is
# device-test.sh's (its header lists the stages and their settings).
set -uo pipefail
name="${1:?usage: scripts/device-call.sh NAME}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
outdir="${KBENCH_CALL_OUTDIR:-/tmp/kbench-device-out}"
back="${OUT:?OUT is the device tool folder of files that come back}/$name"
mkdir -p "$outdir" "$back"
stamp="$(mktemp)"
export KBENCH_DEVICE_JOURNALS="${KBENCH_DEVICE_JOURNALS:-$ROOT/.resume/journals}"
timeout -s INT "${CALL_TIMEOUT:-540}" bash "$ROOT/scripts/device-test.sh" "$outdir" > "$outdir/log-$name.txt" 2>&1
rc=$?
# The journals always come back (they are what the next call resumes); other files only when new.
(cd "$outdir" && find . -type f \( -newer "$stamp" -o -path './journals/*' \) -size -40M -print0 \
  | xargs -0 -r cp --parents -t "$back")
rm -f "$stamp"
tar czf "$back.tgz" -C "$(dirname "$back")" "$name" && rm -rf "$back"
echo "device-call $name: device-test.sh exit $rc; files in $back.tgz"
tail -n "${CALL_TAIL_LINES:-60}" "$outdir/log-$name.txt"
exit "$rc"
