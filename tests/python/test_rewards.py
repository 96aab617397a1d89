"""The built-in rewards' definitions (docs/rl.md), on Results made from the core's JSON form."""
import math

import pytest

from kbench import Result, rewards


def make(status="ok", eager=None, inductor=None, integrity=None, share=None):
    speedups = {}
    if eager is not None:
        speedups["eager"] = {"value": eager, "ci": [eager * 0.99, eager * 1.01], "verdict": "FASTER"}
    if inductor is not None:
        speedups["inductor"] = {"value": inductor, "ci": None, "verdict": None}
    diagnostics = {}
    if integrity:
        diagnostics["integrity"] = {"check": integrity, "evidence": "x"}
    if share is not None:
        diagnostics["integrity_notes"] = {"kernel_share": {"share": share}}
    return Result({"request_id": "r", "session_id": None, "backend": "triton", "problem_id": "p",
                   "status": status, "message": "", "feedback": "", "time": {},
                   "result": {"status": status, "diagnostics": diagnostics, "speedups": speedups,
                              "speedup_vs_eager": eager, "speedup_vs_inductor": inductor}})


def sigmoid(x):
    return 1 / (1 + math.exp(-x))


def test_seed_paper():
    assert rewards.seed_paper(make("mismatch")) == 0.0
    assert rewards.seed_paper(make("rejected", integrity="side_stream")) == 0.0
    assert rewards.seed_paper(make(eager=3.0, inductor=1.0)) == pytest.approx(sigmoid(0.2))  # vs Inductor
    assert rewards.seed_paper(make(eager=2.0)) == pytest.approx(sigmoid(1.2))  # Inductor not timed: eager
    assert rewards.seed_paper(make(inductor=0.5)) == pytest.approx(sigmoid(-0.3))
    assert rewards.seed_paper(make("problem_error")) is None


def test_kernelbench_tinker():
    assert rewards.kernelbench_tinker(make("compile_error")) == 0.0
    assert rewards.kernelbench_tinker(make(eager=0.8)) == pytest.approx(0.3)
    assert rewards.kernelbench_tinker(make(eager=2.5)) == pytest.approx(1.8)
    assert rewards.kernelbench_tinker(make(eager=40.0)) == pytest.approx(10.3)  # capped at +10


def test_dr_kernel():
    assert rewards.dr_kernel(make("mismatch")) == 0.0
    assert rewards.dr_kernel(make("rejected", integrity="custom_kernel_not_launched")) == -1.0
    assert rewards.dr_kernel(make("rejected", integrity="no_custom_kernel")) == -1.0
    assert rewards.dr_kernel(make(eager=2.0, share=0.9)) == pytest.approx(0.5 + 1.0 + 0.45)
    assert rewards.dr_kernel(make(eager=10.0)) == pytest.approx(0.5 + 1.5)  # min(s, 3), no coverage


@pytest.mark.parametrize("status,eager,expected", [
    ("compile_error", None, -0.5), ("no_code", None, -0.5), ("mismatch", None, -0.3),
    ("timeout", None, -0.3), ("rejected", None, -0.3), ("ok", 0.9, -0.1), ("ok", 1.0, 0.2),
    ("ok", 1.3, 0.4), ("ok", 1.5, 0.6), ("ok", 2.9, 0.8), ("ok", 3.0, 1.0), ("ok", 7.0, 1.0)])
def test_dr_kernel_tiered(status, eager, expected):
    assert rewards.dr_kernel_tiered(make(status, eager=eager)) == pytest.approx(expected)


def test_speedup_and_resolution():
    assert rewards.speedup(make(eager=1.7)) == pytest.approx(1.7)
    assert rewards.speedup(make(eager=1.7, inductor=0.6), baseline="inductor") == pytest.approx(0.6)
    assert rewards.speedup(make("crashed")) == 0.0
    assert rewards.resolve("dr_kernel_tiered") is rewards.dr_kernel_tiered
    custom = lambda r: 1.0 if r.correct else -1.0  # noqa: E731
    assert rewards.resolve(custom) is custom
    with pytest.raises(ValueError, match="unknown reward"):
        rewards.resolve("kevin")
    assert set(rewards.BUILTIN) == {"seed_paper", "kernelbench_tinker", "dr_kernel", "dr_kernel_tiered", "speedup"}


def test_result_reads_the_core_form():
    r = make(eager=2.0, inductor=1.1)
    assert r.correct and r.speedup_vs_eager == 2.0 and r.speedup_vs_inductor == 1.1
    assert r.speedups["eager"].ci == pytest.approx((1.98, 2.02))
    assert r.speedups["inductor"].ci is None
    with pytest.raises(ValueError, match="no reward function"):
        r.reward
