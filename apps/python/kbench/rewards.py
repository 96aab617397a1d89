"""Reward functions of a Result, each named after where it comes from (docs/rl.md has the
definitions and sources). A reward function is any callable Result -> float (or None: "not
applicable", e.g. the reference itself failed, which TRL and verl accept as no signal)."""
from __future__ import annotations

import math
from typing import Callable, Dict, Optional, Union

# Statuses that mean the candidate never ran: Dr. Kernel's "compile failure" tier.
_NOT_BUILT = ("compile_error", "no_code")


def _speedup(result, baseline: str) -> float:
    value = result.speedup(baseline)
    return float(value) if value is not None else 0.0


def seed_paper(result, baseline: str = "inductor", delta: float = 1.8) -> Optional[float]:
    """Tehrani et al. (Makora), "Fine-Tuning GPT-5 for GPU Kernel Generation" (arXiv 2602.11000):
    0 unless correct (a failed integrity check is a hack: 0); else sigmoid(1 + max(0, s) - delta),
    s the speedup vs Inductor (eager when Inductor was not timed)."""
    if result.status == "problem_error":
        return None
    if not result.correct:
        return 0.0
    s = result.speedup(baseline)
    if s is None:
        s = result.speedup("eager")
    r_raw = 1.0 + max(0.0, float(s or 0.0))
    return 1.0 / (1.0 + math.exp(-(r_raw - delta)))


def kernelbench_tinker(result, baseline: str = "eager", cap: float = 10.0) -> Optional[float]:
    """kernelbench-tinker (training/reward.py): 0 unless correct; else 0.3, plus min(s - 1, 10)
    when the speedup s vs eager is above 1."""
    if result.status == "problem_error":
        return None
    if not result.correct:
        return 0.0
    s = _speedup(result, baseline)
    return 0.3 + (min(s - 1.0, cap) if s > 1.0 else 0.0)


def dr_kernel(result, baseline: str = "eager", cap: float = 3.0) -> Optional[float]:
    """Dr. Kernel / KernelGYM (calculate_reward_speedup): 0.5 * correct + 0.5 * min(s, 3) +
    0.5 * coverage, coverage the share of GPU time in the candidate's own kernels (0 where it is
    not measured, e.g. on the CPU); a decoy (a kernel defined but none of its own
    launched: no_custom_kernel, custom_kernel_not_launched) scores -1."""
    if result.status == "problem_error":
        return None
    integrity = result.integrity or {}
    if integrity.get("check") in ("no_custom_kernel", "custom_kernel_not_launched"):
        return -1.0
    if not result.correct:
        return 0.0
    coverage = result.custom_kernel_share or 0.0
    return 0.5 + 0.5 * min(_speedup(result, baseline), cap) + 0.5 * float(coverage)


_TIERS = ((3.0, 1.0), (2.0, 0.8), (1.5, 0.6), (1.2, 0.4), (1.0, 0.2))


def dr_kernel_tiered(result, baseline: str = "eager") -> Optional[float]:
    """Dr. Kernel's tiered reward: compile failure -0.5, incorrect -0.3, correct but slower -0.1,
    speedup >= 1 / 1.2 / 1.5 / 2 / 3 -> 0.2 / 0.4 / 0.6 / 0.8 / 1.0."""
    if result.status == "problem_error":
        return None
    if result.status in _NOT_BUILT:
        return -0.5
    if not result.correct:
        return -0.3
    s = _speedup(result, baseline)
    for threshold, reward in _TIERS:
        if s >= threshold:
            return reward
    return -0.1


def speedup(result, baseline: str = "eager") -> Optional[float]:
    """Plain speedup vs `baseline` for a correct candidate (CUDA-L1's t_ref / t_gen), else 0."""
    if result.status == "problem_error":
        return None
    return _speedup(result, baseline) if result.correct else 0.0


BUILTIN: Dict[str, Callable] = {
    "seed_paper": seed_paper,
    "kernelbench_tinker": kernelbench_tinker,
    "dr_kernel": dr_kernel,
    "dr_kernel_tiered": dr_kernel_tiered,
    "speedup": speedup,
}

RewardSpec = Union[str, Callable]


def resolve(reward: RewardSpec) -> Callable:
    """A built-in's name, or any callable of the Result."""
    if callable(reward):
        return reward
    if reward in BUILTIN:
        return BUILTIN[reward]
    raise ValueError(f"unknown reward {reward!r}: use one of {', '.join(BUILTIN)} or a callable of the Result")
