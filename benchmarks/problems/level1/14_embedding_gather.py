import torch
import torch.nn as nn

# Table 50257 x 1024 fp32 = 196 MiB (GPT-2 vocabulary); 16 x 2048 int64 token ids;
# out 16 x 2048 x 1024 fp32 = 128 MiB. Random rows: memory-bound gather.
VOCAB = 50257
DIM = 1024
BATCH = 16
SEQ = 2048


class Model(nn.Module):
    """y[b, s] = weight[idx[b, s]] via index_select."""

    def __init__(self, vocab, dim):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(vocab, dim))

    def forward(self, idx):
        rows = torch.index_select(self.weight, 0, idx.reshape(-1))
        return rows.view(*idx.shape, self.weight.shape[1])


def get_inputs():
    # int64 ids stay integer: the harness casts floating inputs only.
    return [torch.randint(0, VOCAB, (BATCH, SEQ))]


def get_init_inputs():
    return [VOCAB, DIM]
