#!/usr/bin/env python3
"""Soak test of `kbench serve` (docs/serve.md#soak): N requests (default 1,000) from concurrent
clients, a share of them hostile (default 5%), against one server on the loopback.

Asserts what the issue asks of the service and prints it:
  - no hung request: every request ends (200) within --client-deadline seconds;
  - no lost or duplicated result: every id comes back once over HTTP and is written once to the
    server's results log, with the status its candidate deserves (honest ok, each hostile its own);
  - idempotency: resubmitted ids return the same result and run nothing (the finished counter);
    with --keep-results N, a sampled id whose result was evicted must answer 410 (evicted) instead,
    and /metrics must count N kept and the rest evicted;
  - bounded memory: the server's RSS sampled throughout, and its peak (VmHWM) at the end;
  - a clean drain: SIGTERM, exit 0.
Clients honour 429 + Retry-After. Exit 0 when every check holds, 1 otherwise.

Usage: benchmarks/serve/soak.py [--kbench build/bin/kbench] [--requests 1000] [--hostile 0.05]
                                [--clients 16] [--workers 2] [--device cpu] [--keep-results N]
Only the Python standard library (urllib), so it runs with any python3.
"""
import argparse
import collections
import concurrent.futures
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TESTS = os.path.join(ROOT, "tests")
SUITE = os.path.join(TESTS, "data", "suites", "serve.yaml")

HONEST = [("add_one", "data/candidates/add_one_ok.py", "ok"),
          ("clamp_affine", "hostile/exploits/honest_torch.py", "ok")]
# Each hostile candidate with the status it must get (as in tests/e2e/test_run_faults.cpp and
# test_integrity_exploits.cpp).
HOSTILE = [("add_one", "hostile/segfault.py", "crashed"),
           ("add_one", "hostile/os_exit_in_forward.py", "crashed"),
           ("add_one", "hostile/raise_in_forward.py", "runtime_error"),
           ("add_one", "hostile/syntax_error.py", "compile_error"),
           ("add_one", "data/candidates/add_one_wrong_shape.py", "mismatch"),
           ("add_one", "data/candidates/add_one_forged_frame.py", "ok"),
           ("clamp_affine", "hostile/exploits/inplace_mutation.py", "rejected"),
           ("add_one_hang", "hostile/infinite_loop.py", "timeout")]


def read(path):
    with open(os.path.join(TESTS, path)) as f:
        return f.read()


def rss_kb(pid, field):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


class Http:
    def __init__(self, port):
        self.base = f"http://127.0.0.1:{port}"

    def call(self, method, path, body=None, timeout=900):
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                return r.status, r.headers, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.headers, e.read()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kbench", default=os.path.join(ROOT, "build", "bin", "kbench"))
    ap.add_argument("--requests", type=int, default=1000)
    ap.add_argument("--hostile", type=float, default=0.05)
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--max-queue", type=int, default=32)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--keep-results", type=int, default=0,
                    help="passed to kbench serve --keep-results (0: the server's default, 4096)")
    ap.add_argument("--client-deadline", type=float, default=1800, help="seconds one request may take, 429s included")
    ap.add_argument("--max-seconds", type=float, default=0,
                    help="stop sending new requests after this many seconds (0: send all); every request sent "
                         "is still checked, the ones not sent are reported as such")
    args = ap.parse_args()

    every = max(1, round(1 / args.hostile)) if args.hostile > 0 else 0
    plan = []  # (id, problem, file, expected)
    for i in range(args.requests):
        if every and i % every == every // 2:
            problem, path, expected = HOSTILE[(i // every) % len(HOSTILE)]
        else:
            problem, path, expected = HONEST[i % len(HONEST)]
        plan.append((f"soak-{i:05d}", problem, path, expected))
    sources = {path: read(path) for _, _, path, _ in plan}

    work = tempfile.mkdtemp(prefix="kbench-soak-")
    results_log = os.path.join(work, "results.jsonl")
    err = open(os.path.join(work, "serve.err"), "w")
    server = subprocess.Popen([args.kbench, "serve", SUITE, "--port", "0", "--device", args.device,
                               "--workers", str(args.workers), "--max-queue", str(args.max_queue),
                               "--request-timeout", "30", "--results", results_log]
                              + (["--keep-results", str(args.keep_results)] if args.keep_results else []),
                              stdout=subprocess.PIPE, stderr=err, text=True)
    line = server.stdout.readline()
    match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", line)
    if not match:
        server.kill()
        sys.exit(f"soak: the server did not start ({line!r}); see {err.name}")
    http = Http(int(match.group(1)))
    print(f"soak: server pid {server.pid} on port {match.group(1)}; {args.requests} requests "
          f"({sum(1 for p in plan if p[1:] in HOSTILE)} hostile or wrong), "
          f"{args.clients} clients, {args.workers} workers, queue {args.max_queue}"
          + (f", keep-results {args.keep_results}" if args.keep_results else ""), flush=True)

    rss_samples = []
    stop_sampling = threading.Event()

    def sample():
        while not stop_sampling.is_set():
            rss_samples.append((time.time(), rss_kb(server.pid, "VmRSS")))
            stop_sampling.wait(1.0)
    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()

    refusals = collections.Counter()
    done_count = [0]
    lock = threading.Lock()
    started = time.time()

    def one(item):
        rid, problem, path, _ = item
        if args.max_seconds and time.time() - started > args.max_seconds:
            return rid, None, "not sent"
        deadline = time.time() + args.client_deadline
        body = {"problem_id": problem, "source": sources[path], "request_id": rid}
        while True:
            if time.time() > deadline:
                return rid, None, "hung"
            status, headers, raw = http.call("POST", "/evaluate?wait=1", body)
            if status == 429:
                with lock:
                    refusals["429"] += 1
                time.sleep(min(float(headers.get("Retry-After", "1")), 5.0))
                continue
            if status == 202:  # the request timeout passed: poll
                while time.time() < deadline:
                    status, headers, raw = http.call("GET", f"/results/{rid}")
                    if status != 202:
                        break
                    time.sleep(0.5)
            if status != 200:
                return rid, None, f"HTTP {status}: {raw[:200]!r}"
            with lock:
                done_count[0] += 1
                if done_count[0] % 100 == 0:
                    print(f"soak: {done_count[0]} done after {time.time() - started:.0f} s, "
                          f"server RSS {rss_kb(server.pid, 'VmRSS') / 1024:.0f} MiB", flush=True)
            return rid, json.loads(raw), None

    replies = {}
    failures = []
    not_sent = set()
    with concurrent.futures.ThreadPoolExecutor(args.clients) as pool:
        for rid, reply, failure in pool.map(one, plan):
            if failure == "not sent":
                not_sent.add(rid)
            elif failure:
                failures.append((rid, failure))
            else:
                replies[rid] = reply
    elapsed = time.time() - started
    plan = [p for p in plan if p[0] not in not_sent]  # what was sent is what is checked

    # Idempotency: resubmit every 50th id (and the last); the same result, nothing run again. An
    # id evicted under --keep-results answers 410 and is not resubmitted (that would run it again).
    _, _, raw = http.call("GET", "/metrics")
    finished_before = float(re.search(r"^kbench_evaluations_finished_total (\S+)$", raw.decode(), re.M).group(1))
    repeat_mismatch = 0
    evicted_seen = 0
    sampled = plan[::50] + plan[-1:]
    for rid, problem, path, _ in sampled:
        if args.keep_results:
            status, _, raw = http.call("GET", f"/results/{rid}")
            if status == 410 and json.loads(raw)["error"]["code"] == "evicted":
                evicted_seen += 1
                continue
            if status != 200:
                repeat_mismatch += 1
                continue
        status, _, raw = http.call("POST", "/evaluate?wait=1", {"problem_id": problem, "source": sources[path],
                                                               "request_id": rid})
        if status != 200 or rid not in replies or json.loads(raw)["result"] != replies[rid]["result"]:
            repeat_mismatch += 1
    _, _, raw = http.call("GET", "/metrics")
    metrics = raw.decode()
    finished_after = float(re.search(r"^kbench_evaluations_finished_total (\S+)$", metrics, re.M).group(1))
    kept = float(re.search(r"^kbench_results_kept (\S+)$", metrics, re.M).group(1))
    evicted = float(re.search(r'^kbench_results_evicted_total\{reason="count"\} (\S+)$', metrics, re.M).group(1))
    cap = args.keep_results or 4096
    retention_ok = kept == min(cap, finished_after) and evicted == finished_after - kept

    peak_kb = rss_kb(server.pid, "VmHWM")
    stop_sampling.set()
    server.send_signal(signal.SIGTERM)
    try:
        code = server.wait(timeout=600)
    except subprocess.TimeoutExpired:
        server.kill()
        code = "killed after 600 s"
    err.close()

    logged = collections.Counter()
    log_status = {}
    with open(results_log) as f:
        for line in f:
            entry = json.loads(line)
            logged[entry["request_id"]] += 1
            log_status[entry["request_id"]] = entry["status"]
    wrong_status = [(rid, replies[rid]["status"], expected) for rid, _, _, expected in plan
                    if rid in replies and replies[rid]["status"] != expected]
    lost = [rid for rid, _, _, _ in plan if rid not in replies or rid not in logged]
    duplicated = [rid for rid, n in logged.items() if n > 1]
    statuses = collections.Counter(r["status"] for r in replies.values())
    walls = sorted(r["time"]["worker_wall_s"] for r in replies.values())
    totals = sorted(r["time"]["total_s"] for r in replies.values())
    third = max(1, len(rss_samples) // 3)
    rss_first = max((kb for _, kb in rss_samples[:third]), default=0)
    rss_last = max((kb for _, kb in rss_samples[-third:]), default=0)

    if not_sent:
        print(f"soak: --max-seconds {args.max_seconds:.0f}: {len(not_sent)} of {args.requests} requests not sent; "
              f"the {len(plan)} sent are checked")
    print(f"soak: {len(replies)}/{len(plan)} results in {elapsed:.0f} s "
          f"({len(replies) / elapsed:.2f} evaluations/s); statuses {dict(sorted(statuses.items()))}")
    if walls:
        print(f"soak: worker wall median {walls[len(walls) // 2]:.2f} s, p99 {walls[int(len(walls) * 0.99)]:.2f} s; "
              f"request total median {totals[len(totals) // 2]:.2f} s, max {totals[-1]:.2f} s")
    print(f"soak: 429 answers {refusals['429']}; hung {sum(1 for _, f in failures if f == 'hung')}; "
          f"other failures {sum(1 for _, f in failures if f != 'hung')}; lost {len(lost)}; duplicated {len(duplicated)}; "
          f"wrong status {len(wrong_status)}; logged {len(logged)}")
    print(f"soak: idempotent resubmissions {len(sampled) - evicted_seen}: {repeat_mismatch} differed, "
          f"finished counter {finished_before:.0f} -> {finished_after:.0f}; {evicted_seen} sampled ids evicted (410)")
    print(f"soak: results kept {kept:.0f} (cap {cap}), evicted {evicted:.0f}"
          + ("" if retention_ok else " -- NOT what the cap implies"))
    print(f"soak: server RSS peak (VmHWM) {peak_kb / 1024:.1f} MiB; max RSS first third {rss_first / 1024:.1f} MiB, "
          f"last third {rss_last / 1024:.1f} MiB; SIGTERM exit {code}")
    for rid, failure in failures[:5]:
        print(f"soak: FAILED {rid}: {failure}")
    for rid, got, expected in wrong_status[:5]:
        print(f"soak: WRONG {rid}: {got}, expected {expected}")
    ok = (not failures and not lost and not duplicated and not wrong_status and repeat_mismatch == 0
          and finished_after == finished_before and code == 0 and retention_ok)
    print("soak: PASS" if ok else f"soak: FAIL (server log {err.name})")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
