# Correct, but tries to SIGKILL its parent and every kbench ancestor it finds through /proc (the
# worker IS the candidate's process, so its parent would be the controller). The run must go on.
import os
import signal

import torch.nn as nn

_tried = False


def _ancestors():
    # /proc/self, not os.getpid(): inside a PID namespace only the former names this process in
    # the (host) /proc, and the chain of host PIDs leads to the controller.
    pid = "self"
    for _ in range(6):
        try:
            with open(f"/proc/{pid}/stat") as f:
                pid = int(f.read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return
        if pid <= 1:
            return
        yield pid


class ModelNew(nn.Module):
    def forward(self, x):
        global _tried
        if not _tried:
            _tried = True
            targets = [os.getppid()]
            for pid in _ancestors():
                try:
                    with open(f"/proc/{pid}/cmdline", "rb") as f:
                        if b"kbench" in f.read():
                            targets.append(pid)
                except OSError:
                    pass
            for pid in targets:
                try:
                    os.kill(pid, signal.SIGKILL)
                    print(f"kill-parent: kill({pid}) returned", flush=True)
                except OSError as e:
                    print(f"kill-parent: kill({pid}) failed: {e}", flush=True)
        return x + 1.0
