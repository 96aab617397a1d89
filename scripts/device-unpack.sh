#!/usr/bin/env bash
# Unpacks a device-call.sh result (the device tool's NAME.tgz) here and copies its journals into
# .resume/journals, where the next call resumes from them. Why a script: on 2026-12-06 a call
# resumed a 36-result journal because the 57-result one of the call before had not been copied
# back, and ran 8 problems again. A journal with fewer results than the one it would replace is
# left alone (and said so): an older call's file must never overwrite a newer one. Only the
# journals of JOURNALS (default the 250-problem runs, `kbmemory-*`): a resumed stage skips every
# job its journal holds, whatever code ran it, so a suite that must run again on new code (smoke,
# integrity) is never resumed by accident.
# Usage: [JOURNALS='kbmemory-* honest-gpu-*'] scripts/device-unpack.sh /work/.device/N/NAME.tgz [DEST]
# (DEST default /tmp/device-NAME)
set -euo pipefail
archive="${1:?usage: scripts/device-unpack.sh NAME.tgz [DEST]}"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
name="$(basename "$archive" .tgz)"
dest="${2:-/tmp/device-$name}"
mkdir -p "$dest" "$ROOT/.resume/journals"
tar xzf "$archive" -C "$dest"
results() { grep -c '"result"' "$1" 2>/dev/null || true; }
for pattern in ${JOURNALS:-kbmemory-*}; do
for journal in "$dest/$name"/journals/$pattern.journal.jsonl; do
  [ -e "$journal" ] || continue
  target="$ROOT/.resume/journals/$(basename "$journal")"
  new=$(results "$journal") old=$(results "$target")
  if [ -e "$target" ] && [ "${new:-0}" -lt "${old:-0}" ]; then
    echo "kept $target ($old results; $journal has $new)"
  else
    cp "$journal" "$target" && echo "$(basename "$journal"): ${old:-0} -> $new results"
  fi
done
done
echo "unpacked into $dest/$name"
