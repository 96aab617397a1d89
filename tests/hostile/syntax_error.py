# Not valid Python: the candidate cannot even be imported.
import torch.nn as nn

class ModelNew(nn.Module)
    def forward(self, x):
        return x + 1.0
