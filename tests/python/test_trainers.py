"""The trainer adapters (kbench.trainers) called as verl, TRL and Verifiers call them, with model
replies: fenced code is extracted, a reply without code is no_code without a worker (~4 workers)."""
import asyncio

import pytest

from kbench import rewards, trainers
from conftest import DATA, text

NO_CODE = "I would write a Triton kernel here, but I am not sure how."


@pytest.fixture(scope="module")
def replies(ok_source):
    wrong = text(DATA / "candidates" / "add_one_wrong_shape.py")
    return {"ok": f"Here it is:\n```python\n{ok_source}\n```\n", "wrong": f"```python\n{wrong}```", "none": NO_CODE}


def test_a_reply_without_code_is_no_code_at_once(evaluator):
    before = evaluator.stats()
    r = evaluator.evaluate("add_one", NO_CODE, reply=True)
    assert r.status == "no_code" and "no code" in r.message
    assert r.time["worker_wall_s"] == 0
    assert evaluator.stats()["by_status"].get("no_code", 0) == before["by_status"].get("no_code", 0) + 1
    assert rewards.dr_kernel_tiered(r) == -0.5


def test_verl_compute_score_per_sample_and_batch(evaluator, replies):
    score = trainers.verl_compute_score(evaluator)
    out = score("kbench", replies["ok"], "add_one", {"problem_id": "add_one"})
    assert out["correct"] == 1.0 and 0 < out["score"] < 1 and out["speedup_vs_eager"] > 0
    batch = trainers.verl_batch_compute_score(evaluator)
    outs = batch(["kbench"] * 2, [replies["wrong"], replies["none"]], ["add_one", "add_one"], None)
    assert [o["correct"] for o in outs] == [0.0, 0.0]
    assert [o["score"] for o in outs] == [0.0, 0.0]


def test_trl_reward_functions_async_and_sync(evaluator, replies):
    prompts = ["p1", "p2"]
    completions = [[{"role": "assistant", "content": replies["ok"]}], [{"role": "assistant", "content": NO_CODE}]]
    reward = trainers.trl_reward_func(evaluator)
    got = asyncio.run(reward(prompts, completions, problem_id=["add_one", "add_one"]))
    assert got[0] > 0.5 and got[1] == 0.0
    sync = trainers.trl_reward_func(evaluator, asynchronous=False)
    again = sync(prompts, [replies["ok"], NO_CODE], problem_id=["add_one", "add_one"])
    assert again[0] > 0.5 and again[1] == 0.0  # a new evaluation: its own timing


def test_verifiers_rubric_function(evaluator, replies):
    f = trainers.verifiers_reward_func(evaluator)
    assert asyncio.run(f([{"role": "assistant", "content": replies["wrong"]}], info={"problem_id": "add_one"})) == 0.0
