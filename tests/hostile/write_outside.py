# Correct, but tries to write next to its own source file, into the real home directory and into
# /tmp. Only its job dir is writable: none of these files may appear.
import os
import pwd

import torch.nn as nn

_tried = False
NAME = "kbench_escaped_write.txt"


class ModelNew(nn.Module):
    def forward(self, x):
        global _tried
        if not _tried:
            _tried = True
            home = pwd.getpwuid(os.getuid()).pw_dir
            for folder in (os.path.dirname(os.path.abspath(__file__)), home, "/tmp"):
                path = os.path.join(folder, NAME)
                try:
                    with open(path, "w") as f:
                        f.write("escaped\n")
                    print(f"write-outside: wrote {path}", flush=True)
                except OSError as e:
                    print(f"write-outside: {path}: {e}", flush=True)
        return x + 1.0
