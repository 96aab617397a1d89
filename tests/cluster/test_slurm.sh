#!/usr/bin/env bash
# `kbench slurm` against a real single-node Slurm (Debian's slurmctld + slurmd, started here as
# root on loopback with auth/none, state and spool in a temp dir, the node's real CPUs and memory
# from `slurmd -C`). The suite tests/data/suites/cluster.yaml runs in 4 shards; task 1 is
# cancelled after its first evaluation and re-submitted alone, the merge job of the first
# submission must refuse the incomplete set, and the second merge must give the same statuses
# and pass@k as an unsharded run. The daemons are stopped on every exit path.
# Usage: test_slurm.sh SOURCE_DIR KBENCH PYTHON. Exit 77 (CTest: skipped) only when not root or
# Slurm is not installed (scripts/setup.sh installs it).
set -euo pipefail
SOURCE_DIR="$1"
KBENCH="$2"
PYTHON="${3:-python3}"
SUITE="$SOURCE_DIR/tests/data/suites/cluster.yaml"
if [ "$(id -u)" != 0 ]; then echo "SKIP: the Slurm test starts slurmd, which needs root" >&2; exit 77; fi
for tool in slurmctld slurmd sbatch squeue scontrol scancel; do
  command -v "$tool" >/dev/null ||
    { echo "SKIP: $tool is not installed; scripts/setup.sh installs Debian's slurm-wlm" >&2; exit 77; }
done

WORK="$(mktemp -d /tmp/kbench-slurm.XXXXXX)"
chmod 755 "$WORK"
PIDS=()
cleanup() {
  # Jobs still running at a failure are cancelled through this test's own slurmctld (SLURM_CONF),
  # so their slurmstepd and kbench processes end before the daemons do.
  if [ -n "${SLURM_CONF:-}" ] && [ -f "$WORK/slurmctld.pid" ]; then
    scancel --full --quiet --user=root 2>/dev/null || true
    for _ in $(seq 1 50); do [ -z "$(squeue -h 2>/dev/null)" ] && break; sleep 0.2; done
  fi
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ -n "${KBENCH_TEST_KEEP:-}" ]; then echo "kept $WORK" >&2; else rm -rf "$WORK"; fi
}
trap cleanup EXIT
fail() {
  echo "FAIL: $*" >&2
  for f in "$WORK"/log/*.log "$WORK"/out/logs/*; do [ -f "$f" ] && { echo "== $f" >&2; tail -n 30 "$f" >&2; }; done
  exit 1
}
started=$(date +%s)

# Two free loopback ports (the kernel picks them), so parallel runs never collide.
read -r CTLD_PORT SLURMD_PORT < <("$PYTHON" - <<'PY'
import socket
socks = [socket.socket() for _ in range(2)]
for s in socks: s.bind(("127.0.0.1", 0))
print(*(s.getsockname()[1] for s in socks))
PY
)
mkdir -p "$WORK/state" "$WORK/spool" "$WORK/log"
NODE_LINE="$(slurmd -C | head -n 1)"        # NodeName=<host> CPUs=... RealMemory=...
NODE_NAME="$(echo "$NODE_LINE" | sed -E 's/^NodeName=([^ ]+).*/\1/')"
export SLURM_CONF="$WORK/slurm.conf"
cat >"$SLURM_CONF" <<CONF
ClusterName=kbenchtest
SlurmctldHost=$NODE_NAME(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
# Debian 12's Slurm 22.05 takes auth/none only together with cred/none.
AuthType=auth/none
CredType=cred/none
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
# No cgroups in a container: track processes through /proc, no task binding.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MinJobAge=600
# A cancel must cut the running evaluation: with Slurm's default 30 s between SIGTERM and SIGKILL,
# kbench's graceful stop would let a short evaluation finish and the shard would end complete.
KillWait=1
$NODE_LINE NodeAddr=127.0.0.1 State=UNKNOWN
PartitionName=kbench Nodes=ALL Default=YES MaxTime=INFINITE State=UP
CONF
slurmctld -D -i -f "$SLURM_CONF" >"$WORK/log/slurmctld.stdout" 2>&1 &
PIDS+=($!)
slurmd -D -f "$SLURM_CONF" >"$WORK/log/slurmd.stdout" 2>&1 &
PIDS+=($!)
for _ in $(seq 1 100); do
  state="$(sinfo -h -o %T 2>/dev/null || true)"
  [ "$state" = idle ] && break
  sleep 0.2
done
[ "$state" = idle ] || fail "the node did not come up (sinfo: '$state')"
echo "slurm up in $(( $(date +%s) - started ))s: $NODE_LINE"

job_state() { scontrol show job "$1" 2>/dev/null | sed -nE 's/.*JobState=([A-Z_]+).*/\1/p' | head -n 1; }
job_exit() { scontrol show job "$1" 2>/dev/null | sed -nE 's/.* ExitCode=([0-9]+):.*/\1/p' | head -n 1; }
wait_done() {  # JOB SECONDS: until the job (every task of an array) has left the queue
  for _ in $(seq 1 $(( $2 * 5 ))); do
    [ -z "$(squeue -h -j "$1" 2>/dev/null)" ] && return 0
    sleep 0.2
  done
  fail "job $1 still queued or running after $2 s"
}

# The unsharded reference runs outside Slurm, beside the array.
"$KBENCH" run "$SUITE" --device cpu -q -o "$WORK/whole.json" >"$WORK/whole.log" 2>&1 &
WHOLE_PID=$!
PIDS+=($WHOLE_PID)

OUT="$WORK/out"
"$KBENCH" slurm "$SUITE" --shards 4 --gpus-per-task 0 --cpus-per-task 1 --partition kbench \
  --time 00:20:00 --out "$OUT" --submit -- --device cpu >"$WORK/submit.txt" || fail "kbench slurm --submit"
cat "$WORK/submit.txt"
ARRAY=$(sed -nE 's/^array job ([0-9]+).*/\1/p' "$WORK/submit.txt")
MERGE=$(sed -nE 's/^merge job ([0-9]+).*/\1/p' "$WORK/submit.txt")
[ -n "$ARRAY" ] && [ -n "$MERGE" ] || fail "no job ids in the output of --submit"
grep -q -- '--gres' "$OUT/array.sbatch" && fail "a CPU plan asked for GRES"
grep -q "Dependency=afterany:${ARRAY}_\*" <(scontrol show job "$MERGE") || fail "merge job $MERGE does not depend on array $ARRAY (afterany)"

# Cancel task 1 once its journal holds one finished evaluation (header + one line).
JOURNAL="$OUT/shard-1.journal.jsonl"
for _ in $(seq 1 900); do
  [ -f "$JOURNAL" ] && [ "$(wc -l <"$JOURNAL")" -ge 2 ] && break
  sleep 0.2
done
[ -f "$JOURNAL" ] && [ "$(wc -l <"$JOURNAL")" -ge 2 ] || fail "task 1 finished no evaluation in 180 s"
scancel "${ARRAY}_1"
wait_done "$ARRAY" 300
state1="$(job_state "${ARRAY}_1")"
[ "$state1" = CANCELLED ] || fail "task 1 ended $state1, not CANCELLED (it finished before the kill?)"
finished_before=$(( $(wc -l <"$JOURNAL") - 1 ))
echo "task 1 cancelled after $finished_before of 2 evaluations"
wait_done "$MERGE" 120
[ "$(job_exit "$MERGE")" = 2 ] || fail "the first merge job exited $(job_exit "$MERGE"), want 2 (shard 1 unfinished)"
grep -q "incomplete\|wrote no results" "$OUT"/logs/merge.job-"$MERGE".out ||
  fail "the first merge job's log does not say that shard 1 is unfinished"

# Re-submit task 1 alone, then the merge after it: it resumes from the journal.
RESUB=$(sbatch --parsable --array=1 "$OUT/array.sbatch")
MERGE2=$(sbatch --parsable --dependency=afterany:"$RESUB" "$OUT/merge.sbatch")
wait_done "$RESUB" 300
wait_done "$MERGE2" 120
[ "$(job_state "$MERGE2")" = COMPLETED ] || fail "the second merge job ended $(job_state "$MERGE2")"
grep -q "resum" "$OUT"/logs/shard-1.job-"$RESUB".out || fail "the re-submitted task did not resume its journal"
wait "$WHOLE_PID" || fail "the unsharded run failed: $(tail -n 5 "$WORK/whole.log")"

"$PYTHON" - "$WORK/whole.json" "$OUT/merged.json" "$finished_before" "$OUT/logs/shard-1.job-$RESUB.out" <<'PY' || fail "merged results differ from the unsharded run"
import json, sys
whole, merged = (json.load(open(f)) for f in sys.argv[1:3])
key = lambda r: (r["problem"], r["candidate"])
statuses = lambda run: sorted((key(r), r["status"]) for r in run["results"])
assert merged["complete"] is True, "merged.json is not complete"
assert statuses(whole) == statuses(merged), (statuses(whole), statuses(merged))
for k in ("pass_at_k", "evaluations", "correct", "problems", "pass_at_1"):
    assert whole["summary"].get(k) == merged["summary"].get(k), (k, whole["summary"].get(k), merged["summary"].get(k))
print(f"ok: merged {len(merged['results'])} results equal the unsharded run's statuses and "
      f"pass@k {merged['summary'].get('pass_at_k')}")
PY
echo "ok: the Slurm test took $(( $(date +%s) - started ))s"
