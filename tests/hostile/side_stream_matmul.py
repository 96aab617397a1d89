# Phase-detecting side-stream exploit (GPU only): honest while the harness checks correctness
# (synchronises its side stream on the first calls), then leaves the matmul running on a side
# stream that the timing events on the default stream do not wait for. kbench must still report
# the matmul's real time (device-wide synchronisation after the end event) and flag the samples.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0
        self.side = None

    def forward(self, a, b):
        if self.side is None:
            self.side = torch.cuda.Stream()
        out = torch.empty(a.shape[0], b.shape[1], device=a.device, dtype=a.dtype)
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            torch.matmul(a, b, out=out)
        self.calls += 1
        if self.calls <= 3:  # the correctness seeds
            self.side.synchronize()
        return out
