"""The `kbench` module against real sandboxed CPU workers (tests/data/suites/faults.yaml):
evaluate, evaluate_batch with hostile candidates, async submit, idempotent ids, lookups, stats,
refusals, the GIL released while waiting, and no evaluation in this process (~25 workers)."""
import asyncio
import json
import sys
import threading
import time

import pytest

import kbench
from conftest import DATA, HOSTILE, text


def test_evaluate_returns_a_timed_correct_result(evaluator, ok_source):
    r = evaluator.evaluate("add_one", ok_source, backend="triton")
    assert r.status == "ok", r.message
    assert r.correct and r.problem_id == "add_one" and r.backend == "triton"
    s = r.speedups["eager"]
    assert s.value > 0 and s.ci is not None and s.ci[0] <= s.value <= s.ci[1]
    assert r.speedup_vs_eager == pytest.approx(s.value)
    assert r.speedup_vs_inductor is None  # faults.yaml times eager only
    for key in ("queue_wait_s", "worker_wall_s", "gpu_lock_wait_s", "total_s", "phases_s"):
        assert key in r.time
    assert r.time["worker_wall_s"] > 0 and r.time["total_s"] >= r.time["worker_wall_s"]
    for phase in ("python_start", "reference", "candidate_import", "correctness", "timing"):
        assert r.time["phases_s"][phase] >= 0
    assert 0 < r.reward < 1  # seed_paper: sigmoid
    # to_dict() is the core's JSON: its result entry is the results file's form.
    d = json.loads(r.json())
    assert d == r.to_dict() and d["result"]["status"] == "ok" and d["result"]["problem"] == "add_one"
    assert "correct" in r.feedback
    assert r.integrity is None


def test_batch_with_hostile_candidates_never_raises(evaluator, ok_source):
    cases = [("segfault.py", "crashed"), ("abort.py", "crashed"), ("raise_in_forward.py", "runtime_error"),
             ("syntax_error.py", "compile_error"), ("exit_on_import.py", "compile_error"),
             ("os_exit_in_forward.py", "crashed"), ("no_model_new.py", "compile_error"),
             ("fork_child_delivers.py", "mismatch")]
    batch = [{"problem_id": "add_one", "source": text(HOSTILE / name)} for name, _ in cases]
    batch.append(kbench.Request("add_one", ok_source))
    batch.append(("add_one", text(DATA / "candidates" / "add_one_wrong_shape.py")))
    results = evaluator.evaluate_batch(batch)
    assert [r.status for r in results] == [s for _, s in cases] + ["ok", "mismatch"]
    for r in results:
        assert isinstance(r.reward, float)
        assert r.message or r.correct
    assert "signal 11" in results[0].message
    assert "traceback" in results[2].diagnostics


def test_async_submit_gathers_without_blocking_the_loop(evaluator, ok_source):
    wrong = text(DATA / "candidates" / "add_one_wrong_shape.py")

    async def main():
        ticks = 0

        async def ticker():
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        tick = asyncio.ensure_future(ticker())
        results = await asyncio.gather(evaluator.submit("add_one", ok_source + "\n# async 1"),
                                       evaluator.submit("add_one", wrong, session_id="conv-7"))
        tick.cancel()
        return results, ticks

    (a, b), ticks = asyncio.run(main())
    assert a.status == "ok" and b.status == "mismatch"
    assert b.session_id == "conv-7"
    assert ticks > 50  # the loop kept running while the workers did


def test_request_ids_are_idempotent_and_looked_up(evaluator, ok_source):
    before = evaluator.stats()["finished"]
    first = evaluator.evaluate("add_one", ok_source, request_id="py-idem-1")
    again = evaluator.evaluate("add_one", ok_source, request_id="py-idem-1")
    assert again.to_dict() == first.to_dict()
    assert evaluator.stats()["finished"] == before + 1  # one worker ran
    status = evaluator.status("py-idem-1")
    assert status["state"] == "finished" and status["problem_id"] == "add_one"
    assert evaluator.result("py-idem-1").status == "ok"
    assert evaluator.status("never-sent") is None
    with pytest.raises(kbench.ConflictError):
        evaluator.evaluate("add_one", ok_source + "\n# other", request_id="py-idem-1")


def test_refusals_are_exceptions_of_the_request(evaluator, ok_source):
    before = evaluator.stats()["finished"]
    with pytest.raises(kbench.UnknownProblemError, match="did you mean 'add_one'"):
        evaluator.evaluate("add_onne", ok_source)
    with pytest.raises(kbench.BadRequestError, match="backend"):
        evaluator.evaluate("add_one", ok_source, backend="opencl")
    with pytest.raises(kbench.UnknownProblemError):  # checked before anything is submitted
        evaluator.evaluate_batch([("add_one", ok_source + "\n# b"), ("nope", ok_source)])
    assert issubclass(kbench.QueueFullError, kbench.RefusedError)
    assert evaluator.stats()["finished"] == before
    assert evaluator.stats()["queued"] == 0


def test_waiting_releases_the_gil_and_evaluation_is_out_of_process(evaluator, ok_source):
    counted = 0
    stop = threading.Event()

    def count():
        nonlocal counted
        while not stop.is_set():
            counted += 1
            time.sleep(0.001)

    t = threading.Thread(target=count)
    t.start()
    r = evaluator.evaluate("add_one", ok_source + "\n# gil")
    stop.set()
    t.join()
    assert r.status == "ok"
    assert counted > 100
    assert "torch" not in sys.modules and "triton" not in sys.modules  # the candidate ran elsewhere


def test_stats_and_environment(evaluator):
    stats = evaluator.stats()
    assert stats["finished"] >= 1 and stats["by_status"]["ok"] >= 1
    assert stats["time_sums"]["worker_wall_s"] > 0
    assert stats["slots"] == 2 and stats["accepting"]
    assert "torch" in evaluator.environment
    assert "add_one" in evaluator.problems


def test_bad_configuration_is_a_value_error(tmp_path):
    with pytest.raises(ValueError):
        kbench.Evaluator(tmp_path / "missing.yaml", devices="cpu")
    with pytest.raises(ValueError, match="unknown reward"):
        kbench.Evaluator(DATA / "suites" / "faults.yaml", devices="cpu", reward="nope")


def test_device_memory_gb_caps_what_the_ledger_shares_out(tmp_path, ok_source):
    with pytest.raises(ValueError, match="device_memory_gb"):
        kbench.Evaluator(DATA / "suites" / "quick.yaml", devices="cpu", device_memory_gb=-1)
    # On the CPU the cap bounds the workers as on a GPU: it is each plan's device budget.
    ev = kbench.Evaluator(DATA / "suites" / "quick.yaml", devices="cpu", work_dir=tmp_path / "w", device_memory_gb=0.5)
    r = ev.evaluate("add_one_a", ok_source)
    ev.close()
    assert r.status == "ok"
    assert r.to_dict()["result"]["memory"]["plan"]["plan"]["budget_bytes"] == 2 ** 29


def test_a_closed_evaluator_refuses(tmp_path, ok_source):
    ev = kbench.Evaluator(DATA / "suites" / "quick.yaml", devices="cpu", work_dir=tmp_path / "w")
    r = ev.evaluate("add_one_a", ok_source)
    assert r.status == "ok"
    ev.close()
    with pytest.raises(kbench.DrainingError):
        ev.evaluate("add_one_a", ok_source)
    ev.close()  # idempotent


def test_an_evaluator_dropped_while_busy_drains_without_deadlock(tmp_path, ok_source):
    lines = []
    ev = kbench.Evaluator(DATA / "suites" / "quick.yaml", devices="cpu", work_dir=tmp_path / "w", log=lines.append)
    ev._core.submit("add_one_a", ok_source + "\n# dropped", "auto", None, None, lambda text: lines.append(text))
    del ev  # the destructor drains: the job finishes, its log line and callback take the GIL
    import gc
    gc.collect()
    assert any("evaluator drained" in line for line in lines)
    assert any('"status": "ok"' in line or '"status":"ok"' in line for line in lines)


def test_evicted_results_say_so_and_run_afresh(tmp_path):
    # keep_finished=2 crossed by replies without code (status no_code, no worker runs).
    ev = kbench.Evaluator(DATA / "suites" / "quick.yaml", devices="cpu", work_dir=tmp_path / "w", keep_finished=2)
    try:
        problem = ev.problems[0]
        for rid in ("e-1", "e-2", "e-3"):
            assert ev.evaluate(problem, "no code here", request_id=rid, reply=True).status == "no_code"
        status = ev.status("e-1")
        assert status["state"] == "evicted"
        assert status["evicted"] == {"reason": "count", "attempts": 1}
        with pytest.raises(kbench.ResultEvictedError) as gone:
            ev.result("e-1")
        assert gone.value.request_id == "e-1" and gone.value.attempts == 1
        assert isinstance(gone.value, LookupError)
        assert ev.result("e-3").status == "no_code"
        assert ev.status("never-sent") is None
        stats = ev.stats()
        assert stats["kept_results"] == 2 and stats["evicted_results"] == {"count": 1, "age": 0}
        assert stats["keep_finished"] == 2 and stats["keep_finished_s"] is None
        again = ev.evaluate(problem, "no code here", request_id="e-1", reply=True)
        assert again.status == "no_code" and ev.status("e-1")["evaluation"]["attempt"] == 2
        with pytest.raises(kbench.ConflictError):
            ev.evaluate(problem, "another reply", request_id="e-2", reply=True)
    finally:
        ev.close()
    with pytest.raises(ValueError):
        kbench.Evaluator(DATA / "suites" / "quick.yaml", devices="cpu", keep_finished_s=0)
