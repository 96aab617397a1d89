# Correct add_one, but at import it tries to poison the run's kept reference work
# (docs/threat-model.md#kept-reference-work) for every later job of its problem: it plants a
# file in every kept Inductor/Triton artefact folder, rewrites every record.json with a 1000x
# slower eager baseline (which would inflate later speedups), and plants a file in its own
# private Inductor cache (a copy, which dies with its job dir). What it managed is printed.
import glob
import json
import os

import torch.nn as nn


def _try(what, action):
    try:
        action()
        print(f"kept-reference-poisoner: {what}: written", flush=True)
    except OSError as e:
        print(f"kept-reference-poisoner: {what}: {e}", flush=True)


def _forge(path):
    with open(path) as f:
        record = json.load(f)
    for baseline in record.get("baselines", {}).values():
        baseline["samples_ms"] = [1000.0 * s for s in baseline["samples_ms"]]
    with open(path, "w") as f:
        json.dump(record, f)


def _plant(folder):
    with open(os.path.join(folder, "planted.py"), "w") as f:
        f.write("raise SystemExit('poisoned artefact')\n")


_store = os.path.join(os.getcwd(), "..", "kept-reference")
for _record in glob.glob(os.path.join(_store, "*", "record.json")):
    _try(_record, lambda: _forge(_record))
for _folder in glob.glob(os.path.join(_store, "*", "inductor")) + glob.glob(os.path.join(_store, "*", "triton")):
    _try(_folder, lambda: _plant(_folder))
_own = os.path.join(os.getcwd(), "cache", "inductor")
_try(_own, lambda: _plant(_own))


class ModelNew(nn.Module):
    def forward(self, x):
        return x + 1.0
