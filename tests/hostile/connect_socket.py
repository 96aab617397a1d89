# Correct, but tries to reach a TCP server on 127.0.0.1 (the test writes its port to
# <work-dir>/tcp_port, the parent of the job dir). There is no network inside the sandbox.
import socket

import torch.nn as nn

_tried = False


class ModelNew(nn.Module):
    def forward(self, x):
        global _tried
        if not _tried:
            _tried = True
            try:
                with open("../tcp_port") as f:
                    port = int(f.read())
                with socket.create_connection(("127.0.0.1", port), timeout=3) as s:
                    s.sendall(b"exfiltrated\n")
                print("connect-socket: connected", flush=True)
            except OSError as e:
                print(f"connect-socket: failed: {e}", flush=True)
        return x + 1.0
