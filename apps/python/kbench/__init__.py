"""kbench for RL trainers: evaluate GPU-kernel candidates (KernelBench format) in kbench's C++
core and sandboxed worker processes, with every integrity check, and turn results into rewards.

    from kbench import Evaluator
    with Evaluator("configs/suites/smoke.yaml", devices="cuda") as ev:
        result = ev.evaluate("03_matmul", source, backend="triton")
        result.status, result.speedup_vs_inductor, result.reward

docs/rl.md has the API, the reward definitions and trainer adapters."""
from . import rewards, trainers
from ._kbench import EnvironmentError, InputError
from .evaluator import (BadRequestError, ConflictError, DrainingError, Evaluator, QueueFullError,
                        RefusedError, Request, ResultEvictedError, UnknownProblemError)
from .result import STATUSES, Result, Speedup

# InputError and EnvironmentError (ValueError and RuntimeError subclasses) are kbench.InputError and
# kbench.EnvironmentError; left out of __all__ so a star import never shadows the builtin.
__all__ = ["Evaluator", "Request", "Result", "Speedup", "STATUSES", "rewards", "trainers", "RefusedError",
           "UnknownProblemError", "BadRequestError", "ConflictError", "QueueFullError", "DrainingError",
           "ResultEvictedError"]
