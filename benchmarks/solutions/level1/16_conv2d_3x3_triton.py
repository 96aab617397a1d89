import torch
import torch.nn as nn
import triton
import triton.language as tl


@triton.jit
def _conv3x3_kernel(x_ptr, w_ptr, b_ptr, y_ptr, C_in, C_out, H, W,
                    BLOCK_P: tl.constexpr, BLOCK_CO: tl.constexpr, BLOCK_CI: tl.constexpr):
    # Direct 3x3 convolution, stride 1, zero padding 1, as a small implicit GEMM: for each
    # of the 9 taps, a (pixels x C_in) slice of the shifted input times the tap's
    # (C_in x C_out) weights. Grid: (pixel blocks, C_out blocks, N).
    p = tl.program_id(0) * BLOCK_P + tl.arange(0, BLOCK_P)  # flattened oh * W + ow
    co = tl.program_id(1) * BLOCK_CO + tl.arange(0, BLOCK_CO)
    n = tl.program_id(2).to(tl.int64)
    HW = H * W
    oh = p // W
    ow = p % W
    ci_r = tl.arange(0, BLOCK_CI)
    x_img = x_ptr + n * C_in * HW
    acc = tl.zeros((BLOCK_P, BLOCK_CO), dtype=tl.float32)
    for kh in tl.static_range(3):
        for kw in tl.static_range(3):
            ih = oh + (kh - 1)
            iw = ow + (kw - 1)
            # Out-of-image taps load 0: that is the zero padding.
            inside = (p < HW) & (ih >= 0) & (ih < H) & (iw >= 0) & (iw < W)
            for ci0 in range(0, C_in, BLOCK_CI):
                ci = ci0 + ci_r
                a = tl.load(x_img + ci[None, :] * HW + (ih * W + iw)[:, None],
                            mask=inside[:, None] & (ci[None, :] < C_in), other=0.0)
                # weight is (C_out, C_in, 3, 3) contiguous.
                b = tl.load(w_ptr + co[None, :] * (C_in * 9) + ci[:, None] * 9 + (kh * 3 + kw),
                            mask=(ci[:, None] < C_in) & (co[None, :] < C_out), other=0.0)
                acc = tl.dot(a, b, acc, input_precision="ieee")  # not TF32: 1e-4 tolerance
    acc += tl.load(b_ptr + co, mask=co < C_out, other=0.0)[None, :]
    y_ptrs = y_ptr + n * C_out * HW + co[None, :] * HW + p[:, None]
    tl.store(y_ptrs, acc, mask=(p[:, None] < HW) & (co[None, :] < C_out))


class ModelNew(nn.Module):
    def __init__(self, c_in, c_out):
        super().__init__()
        # Parameter holder only, so names match the reference (conv.weight, conv.bias).
        self.conv = nn.Conv2d(c_in, c_out, kernel_size=3, padding=1)

    def forward(self, x):
        x = x.contiguous()
        N, C_in, H, W = x.shape
        w = self.conv.weight.contiguous()
        C_out = w.shape[0]
        y = torch.empty((N, C_out, H, W), device=x.device, dtype=x.dtype)
        # tl.dot needs every block dim >= 16; C_in/C_out below that are masked up.
        BLOCK_P = 64
        BLOCK_CO = min(64, max(16, triton.next_power_of_2(C_out)))
        BLOCK_CI = min(32, max(16, triton.next_power_of_2(C_in)))
        grid = (triton.cdiv(H * W, BLOCK_P), triton.cdiv(C_out, BLOCK_CO), N)
        _conv3x3_kernel[grid](x, w, self.conv.bias, y, C_in, C_out, H, W,
                              BLOCK_P=BLOCK_P, BLOCK_CO=BLOCK_CO, BLOCK_CI=BLOCK_CI,
                              num_warps=4, num_stages=2)
        return y
