# Finds the result pipe among its fds and writes a well-formed frame claiming "ok" with very fast
# timings, then leaves without letting the worker deliver. Without the per-job key it cannot
# produce a valid MAC: the controller must record a failure, never ok.
import json
import os
import stat

import torch.nn as nn

PAYLOAD = json.dumps({
    "status": "ok", "message": "", "diagnostics": {}, "protocol": {},
    "timings": {"candidate": {"timer": "host_clock", "mode": "cold", "samples_ms": [0.001] * 5,
                              "rounds": [0] * 5}},
})


class ModelNew(nn.Module):
    def forward(self, x):
        for name in os.listdir("/proc/self/fd"):
            fd = int(name)
            try:
                if fd > 2 and stat.S_ISFIFO(os.fstat(fd).st_mode):
                    body = PAYLOAD.encode()
                    # The header shape of a real frame, with a guessed MAC.
                    os.write(fd, b"KBENCH-RESULT/1 %d %s\n" % (len(body), b"0" * 64) + body)
            except OSError:
                pass
        os._exit(0)
