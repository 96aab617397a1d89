import torch
import torch.nn as nn

# ViT front end: 16 x 3 x 224 x 224 images, 16x16 patches -> 196 tokens of 512, + position,
# one encoder layer (8 heads, MLP 1024), mean-pooled (~22 GFLOP).
BATCH = 16
IMAGE = 224
PATCH = 16
WIDTH = 512
HEADS = 8


class Model(nn.Module):
    """Patch embedding (strided conv) + learned positions + one nn.TransformerEncoderLayer."""

    def __init__(self, image, patch, width, heads):
        super().__init__()
        self.embed = nn.Conv2d(3, width, kernel_size=patch, stride=patch)
        self.position = nn.Parameter(torch.randn(1, (image // patch) ** 2, width) * 0.02)
        self.encoder = nn.TransformerEncoderLayer(width, heads, dim_feedforward=2 * width, dropout=0.0,
                                                  activation="gelu", batch_first=True, norm_first=True)

    def forward(self, x):
        tokens = self.embed(x).flatten(2).transpose(1, 2) + self.position
        return self.encoder(tokens).mean(dim=1)


def get_inputs():
    return [torch.rand(BATCH, 3, IMAGE, IMAGE) * 2 - 1]


def get_init_inputs():
    return [IMAGE, PATCH, WIDTH, HEADS]
