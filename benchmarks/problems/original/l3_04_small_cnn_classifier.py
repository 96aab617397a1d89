import torch
import torch.nn as nn

# A small CNN on 64 x 3 x 128 x 128 images, 10 classes (~9 GFLOP).
BATCH = 64
SIZE = 128
CLASSES = 10


class Model(nn.Module):
    """conv-relu-pool x3, global average pool, linear."""

    def __init__(self, classes):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 128, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        )
        self.head = nn.Linear(128, classes)

    def forward(self, x):
        return self.head(self.features(x).mean(dim=(2, 3)))


def get_inputs():
    # Normalised image statistics: mean ~0, a few channels offset.
    return [torch.randn(BATCH, 3, SIZE, SIZE) + torch.tensor([0.2, -0.1, 0.0]).view(1, 3, 1, 1)]


def get_init_inputs():
    return [CLASSES]
