"""One evaluation's outcome, read from the JSON the C++ core writes (service/evaluation.hpp, the
results entry of model/codec.hpp): nothing here re-derives a figure the core computed."""
from __future__ import annotations

import json as _json
from dataclasses import dataclass
from typing import Any, Callable, Dict, Optional, Tuple

# Statuses (docs/results-format.md). Only "ok" is correct.
STATUSES = ("ok", "compile_error", "runtime_error", "mismatch", "timeout", "crashed",
            "problem_error", "rejected", "no_code")


@dataclass(frozen=True)
class Speedup:
    """headline(baseline) / headline(candidate), with its 95% CI and verdict (docs/metrics.md)."""
    value: float
    ci: Optional[Tuple[float, float]]
    verdict: Optional[str]  # "FASTER", "SLOWER", "SAME", "AMBIGUOUS"


class Result:
    """What `Evaluator.evaluate` returns. `reward` is the evaluator's reward function applied to
    this result (kbench.rewards); `to_dict()` is the core's JSON, unchanged."""

    def __init__(self, data: Dict[str, Any], reward_fn: Optional[Callable[["Result"], Any]] = None):
        self._data = data
        self._reward_fn = reward_fn

    @classmethod
    def from_json(cls, text: str, reward_fn=None) -> "Result":
        return cls(_json.loads(text), reward_fn)

    # Identity of the request.
    @property
    def request_id(self) -> str:
        return self._data["request_id"]

    @property
    def session_id(self) -> Optional[str]:
        return self._data.get("session_id")

    @property
    def problem_id(self) -> str:
        return self._data["problem_id"]

    @property
    def backend(self) -> str:
        return self._data["backend"]

    # The verdict.
    @property
    def status(self) -> str:
        return self._data["status"]

    @property
    def correct(self) -> bool:
        return self.status == "ok"

    @property
    def message(self) -> str:
        return self._data["message"]

    @property
    def diagnostics(self) -> Dict[str, Any]:
        """Evidence per status: traceback, mismatch figures, integrity, stdout/stderr tails."""
        return self._data["result"]["diagnostics"]

    @property
    def feedback(self) -> str:
        """The text a model is told about this candidate before its next turn."""
        return self._data["feedback"]

    # Speed.
    @property
    def speedups(self) -> Dict[str, Speedup]:
        out = {}
        for baseline, s in self._data["result"]["speedups"].items():
            ci = s.get("ci")
            out[baseline] = Speedup(s["value"], (ci[0], ci[1]) if ci else None, s.get("verdict"))
        return out

    def speedup(self, baseline: str = "eager") -> Optional[float]:
        """The point speedup vs `baseline` ("eager", "inductor"); None unless correct and timed."""
        key = "speedup_vs_" + baseline
        if key in self._data["result"]:
            return self._data["result"][key]
        s = self.speedups.get(baseline)
        return s.value if s else None

    @property
    def speedup_vs_eager(self) -> Optional[float]:
        return self.speedup("eager")

    @property
    def speedup_vs_inductor(self) -> Optional[float]:
        return self.speedup("inductor")

    # Integrity (docs/integrity.md).
    @property
    def integrity(self) -> Optional[Dict[str, Any]]:
        """The failed check and its evidence (status "rejected"), else None."""
        return self.diagnostics.get("integrity")

    @property
    def integrity_notes(self) -> Dict[str, Any]:
        """Flags that did not reject: first-call launches, thread growth, kernel share..."""
        return self.diagnostics.get("integrity_notes", {})

    @property
    def custom_kernel_share(self) -> Optional[float]:
        """Share of GPU time in the candidate's own kernels (CUDA with require_custom_kernel)."""
        share = self.integrity_notes.get("kernel_share")
        return share.get("share") if isinstance(share, dict) else None

    # Where the time went (seconds): queue_wait_s, worker_wall_s, gpu_lock_wait_s, total_s, phases_s.
    @property
    def time(self) -> Dict[str, Any]:
        return self._data["time"]

    @property
    def reward(self) -> Any:
        if self._reward_fn is None:
            raise ValueError("this Result has no reward function: pass reward= to the Evaluator")
        return self._reward_fn(self)

    def to_dict(self) -> Dict[str, Any]:
        return self._data

    def json(self) -> str:
        return _json.dumps(self._data)

    def __repr__(self) -> str:
        speed = self.speedup_vs_eager
        extra = f", speedup_vs_eager={speed:.3f}" if speed is not None else ""
        return f"Result({self.problem_id!r}, status={self.status!r}{extra}, request_id={self.request_id!r})"
