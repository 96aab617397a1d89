"""Reward functions in the shapes RL trainers call (docs/rl.md): verl's compute_score (per
sample and batch), TRL's reward functions (async and sync), and a Verifiers rubric function.
Each takes model replies, lets kbench extract the code (a reply without code is "no_code"),
evaluates through the given Evaluator and returns its reward (kbench.rewards)."""
from __future__ import annotations

import asyncio
from typing import Any, Callable, Dict, List, Optional

from .evaluator import Evaluator, Request
from .result import Result


def _text(completion: Any) -> str:
    """A completion as TRL and Verifiers pass it: a string, or chat messages (the last
    assistant message's content)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        return str(completion.get("content", ""))
    for message in reversed(list(completion)):
        if isinstance(message, dict) and message.get("role", "assistant") == "assistant":
            return str(message.get("content", ""))
    return ""


def _score(result: Result) -> float:
    reward = result.reward
    return 0.0 if reward is None else float(reward)


def _details(result: Result) -> Dict[str, Any]:
    # verl logs every key but "score"; keep them numbers.
    return {"score": _score(result), "correct": float(result.correct),
            "speedup_vs_eager": result.speedup_vs_eager or 0.0,
            "speedup_vs_inductor": result.speedup_vs_inductor or 0.0,
            "eval_wall_s": result.time.get("total_s", 0.0)}


def verl_compute_score(evaluator: Evaluator, *, problem_key: str = "problem_id", backend: str = "auto",
                       timeout: Optional[float] = None) -> Callable:
    """verl's `custom_reward_function` (naive/prime reward managers): compute_score(data_source,
    solution_str, ground_truth, extra_info) -> {"score", ...}. The problem id is
    extra_info[problem_key], else ground_truth."""
    def compute_score(data_source, solution_str, ground_truth, extra_info=None, **_):
        problem_id = (extra_info or {}).get(problem_key) or ground_truth
        result = evaluator.evaluate(problem_id, solution_str, backend, reply=True, timeout=timeout)
        return _details(result)
    return compute_score


def verl_batch_compute_score(evaluator: Evaluator, *, problem_key: str = "problem_id", backend: str = "auto",
                             timeout: Optional[float] = None) -> Callable:
    """verl's batch reward manager (reward_model.reward_manager=batch): compute_score(data_sources,
    solution_strs, ground_truths, extra_infos) -> list of {"score", ...}, one evaluate_batch."""
    def compute_score(data_sources, solution_strs, ground_truths, extra_infos=None, **_):
        infos = extra_infos if extra_infos is not None else [None] * len(solution_strs)
        batch = [Request((info or {}).get(problem_key) or truth, text, backend, reply=True)
                 for text, truth, info in zip(solution_strs, ground_truths, infos)]
        return [_details(r) for r in evaluator.evaluate_batch(batch, timeout=timeout)]
    return compute_score


def trl_reward_func(evaluator: Evaluator, *, problem_column: str = "problem_id", backend: str = "auto",
                    asynchronous: bool = True) -> Callable:
    """A GRPOTrainer reward function: f(prompts, completions, **dataset_columns) -> list of
    rewards (None: not applicable, e.g. the reference failed). The dataset needs a column with the
    suite's problem id. Async by default (TRL gathers async reward functions); asynchronous=False
    gives the sync form (one evaluate_batch)."""
    if asynchronous:
        async def kbench_reward(prompts, completions, **kwargs) -> List[Optional[float]]:
            problems = kwargs[problem_column]
            results = await asyncio.gather(*(evaluator.submit(p, _text(c), backend, reply=True)
                                             for p, c in zip(problems, completions)))
            return [r.reward for r in results]
        return kbench_reward

    def kbench_reward_sync(prompts, completions, **kwargs) -> List[Optional[float]]:
        problems = kwargs[problem_column]
        batch = [Request(p, _text(c), backend, reply=True) for p, c in zip(problems, completions)]
        return [r.reward for r in evaluator.evaluate_batch(batch)]
    return kbench_reward_sync


def verifiers_reward_func(evaluator: Evaluator, *, problem_key: str = "problem_id",
                          backend: str = "auto") -> Callable:
    """A Verifiers rubric function: async f(completion, answer, state, info) -> float, the problem
    id in info[problem_key] (else `answer`). Use as vf.Rubric(funcs=[f])."""
    async def kbench_reward(completion, answer=None, state=None, info=None, **_) -> float:
        problem_id = (info or {}).get(problem_key) or answer
        return _score(await evaluator.submit(problem_id, _text(completion), backend, reply=True))
    return kbench_reward
