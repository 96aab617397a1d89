#!/usr/bin/env bash
# The agent loop's demo (issue #15): the smoke suite with --samples 4 --turns 3 on the CPU against
# the scripted loopback endpoint (tests/endpoint/scripted_openai.py), then the same run again,
# which the generation cache serves whole (no request).
#
#   benchmarks/agent_loop/demo.sh KBENCH OUT_DIR [more `kbench run` flags]
#
# The scripted model: turn 1 of samples 0 and 1 is the shipped Triton solution, of samples 2 and
# 3 the same code failing at import (compile_error). A failure's feedback is answered with the
# solution, a correct result's with a reply without code, and "no code" with the solution again:
# pass@1 0.5 after turn 1, 1.0 after turns 2 and 3. Writes OUT_DIR/run{1,2}.json and .log,
# requests.jsonl (every request the server got) and prints the figures to quote.
set -euo pipefail
kbench=$(realpath "$1")
out=$2
shift 2
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$out"
out=$(realpath "$out")
rm -f "$out"/port "$out"/requests.jsonl "$out"/cache.sqlite "$out"/run1.json* "$out"/run2.json*

python3 - "$root" > "$out/script.json" <<'PY'
import json, sys, pathlib
root = pathlib.Path(sys.argv[1])
routes = []
for solution in sorted((root / "benchmarks/solutions/smoke").glob("*_triton.py")):
    problem = solution.name[: -len("_triton.py")]
    code = solution.read_text()
    fixed = "Fixed:\n```python\n" + code + "```\n"
    # Later turns first: the feedback names the problem ("`ID`: status", "`ID`: it is correct",
    # "`ID` held no code"); then the first turn's prompt ("problem `ID`").
    routes.append({"match": f"`{problem}`: status", "action": {"content": fixed}})
    routes.append({"match": f"`{problem}`: it is correct", "action": {"content": "It cannot get faster."}})
    routes.append({"match": f"`{problem}` held no code", "action": {"content": fixed}})
    first = ("```python\n_DEMO_SAMPLE = {choice}\nif _DEMO_SAMPLE >= 2:\n"
             "    raise RuntimeError('demo: samples 2 and 3 fail at import')\n" + code + "```\n")
    routes.append({"match": f"`{problem}`", "action": {"content": first}})
print(json.dumps({"routes": routes}))
PY

python3 "$root/tests/endpoint/scripted_openai.py" --script "$out/script.json" --log "$out/requests.jsonl" \
  --port-file "$out/port" --max-seconds 3600 &
server=$!
trap 'kill $server 2>/dev/null || true' EXIT
for _ in $(seq 100); do [ -f "$out/port" ] && break; sleep 0.1; done
base_url="http://127.0.0.1:$(cat "$out/port")/v1"

run() {  # run N [FLAGS...]: one `kbench run`, its log and the requests it made
  local n=$1
  shift
  local before
  before=$( [ -f "$out/requests.jsonl" ] && wc -l < "$out/requests.jsonl" || echo 0)
  local start=$SECONDS
  set +e
  "$kbench" run "$root/configs/suites/smoke.yaml" --device cpu --base-url "$base_url" --model scripted-coder \
    --samples 4 --turns 3 --baselines eager --generate-cache "$out/cache.sqlite" -o "$out/run$n.json" \
    --work-dir "$out/work$n" "$@" > "$out/run$n.log" 2>&1
  local code=$?
  set -e
  local after
  after=$(wc -l < "$out/requests.jsonl")
  echo "run $n: exit $code, $((SECONDS - start)) s, $((after - before)) requests to the endpoint"
}
run 1 "$@"
run 2 "$@"
for n in 1 2; do
  echo "--- run $n: the table's last lines"
  grep -E "^(summary|generation|turn [0-9]):|pass@1" "$out/run$n.log" || tail -5 "$out/run$n.log"
done
python3 - "$out/run1.json" <<'PY'
import json, sys, collections
r = json.load(open(sys.argv[1]))
statuses = collections.Counter((x["generation"]["turn"], x["status"]) for x in r["results"])
for turn in sorted({t for t, _ in statuses}):
    print(f"turn {turn}:", ", ".join(f"{s} {n}" for (t, s), n in sorted(statuses.items()) if t == turn))
for t in r["generation"].get("by_turn", []):
    print(f"by_turn {t['turn']}: pass@1 {t['pass_at_1']:.3f}, fast_p(eager) {t['fast_p'].get('eager', {})}")
g = r["generation"]
print("tokens: prompt", g["usage"]["prompt"], "completion", g["usage"]["completion"], "requests", g["requests"])
PY
