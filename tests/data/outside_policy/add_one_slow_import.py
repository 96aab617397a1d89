# Honest add_one that takes a few seconds to import: a job still running when the Ctrl-C test
# interrupts kbench, which must let it finish. It imports `time`, outside the static import
# policy (its suite skips forbidden_api), so it lives outside tests/data/candidates.
import time

import torch.nn as nn

time.sleep(6)


class ModelNew(nn.Module):
    def forward(self, x):
        return x + 1.0
