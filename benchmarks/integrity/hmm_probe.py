#!/usr/bin/env python3
"""Can a GPU kernel on this machine read the process's pageable host memory (HMM or ATS)?

Where it can, a Triton candidate's pointer (`x_ptr + (address - x_address) // 4`) reaches the
worker's heap, so kbench places Triton candidates apart there (docs/threat-model.md, "Raw memory
from pure Python"; `cuda::pageable_memory_access`). This prints the driver's attributes and then
tries it: a Triton kernel loads a float from a numpy array's host address. Run it alone: a
kernel that faults leaves the CUDA context unusable.
"""
import ctypes

import numpy as np
import torch
import triton
import triton.language as tl

# CUdevice_attribute values (cuda.h).
ATTRIBUTES = {"PAGEABLE_MEMORY_ACCESS": 88, "CONCURRENT_MANAGED_ACCESS": 89,
              "PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES": 100, "DIRECT_MANAGED_MEM_ACCESS_FROM_HOST": 101}


@triton.jit
def _load_at(x_ptr, out_ptr, delta):
    tl.store(out_ptr, tl.load(x_ptr + delta))


def main():
    cuda = ctypes.CDLL("libcuda.so.1")
    cuda.cuInit(0)
    device, value = ctypes.c_int(), ctypes.c_int()
    cuda.cuDeviceGet(ctypes.byref(device), 0)
    print("device:", torch.cuda.get_device_name(0), "| torch", torch.__version__, "| triton", triton.__version__)
    for name, attribute in ATTRIBUTES.items():
        rc = cuda.cuDeviceGetAttribute(ctypes.byref(value), attribute, device)
        print(f"{name}: {value.value if rc == 0 else f'error {rc}'}")
    host = np.array([42.0], dtype=np.float32)
    x = torch.zeros(1, device="cuda")
    out = torch.full((1,), -1.0, device="cuda")
    delta = (host.ctypes.data - x.data_ptr()) // 4
    try:
        _load_at[(1,)](x, out, delta)
        torch.cuda.synchronize()
        print(f"kernel read of pageable host memory: {'yes' if out.item() == 42.0 else 'no'} (read {out.item()})")
    except Exception as error:  # an illegal address: the driver refused the access
        print(f"kernel read of pageable host memory: no ({type(error).__name__}: {str(error)[:160]})")


if __name__ == "__main__":
    main()
