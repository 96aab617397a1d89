import torch
import torch.nn as nn

# ResNet-18 basic block, 128 channels on 16 x 56 x 56: two 3x3 convs (2 x 29 GFLOP).
BATCH = 16
CHANNELS = 128
SIZE = 56


class Model(nn.Module):
    """relu(bn2(conv2(relu(bn1(conv1(x))))) + x); BatchNorm in training mode (batch stats)."""

    def __init__(self, channels):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(channels)

    def forward(self, x):
        out = torch.relu(self.bn1(self.conv1(x)))
        return torch.relu(self.bn2(self.conv2(out)) + x)


def get_inputs():
    return [torch.relu(torch.randn(BATCH, CHANNELS, SIZE, SIZE))]


def get_init_inputs():
    return [CHANNELS]
