# Raw memory and files through allowed modules, no ctypes: numpy's array interface and
# as_strided view any address; numpy's text readers read /proc/self/maps; torch's storages map
# files or wrap a raw StorageImpl address. Each spelling is refused; the import of numpy also
# places the candidate apart from the expected values (its native_code).
import numpy as np
from numpy.lib.stride_tricks import as_strided
import torch


class Window:
    __array_interface__ = None

    def __cuda_array_interface__(self):
        return {}


View = type("View", (), {"__array_interface__": property(lambda self: {})})


def spans():
    return np.loadtxt("maps", dtype=str, delimiter="\t")


def peek(a):
    return as_strided(a, shape=(1 << 20,), strides=(8,))


def cache(a):
    a.tofile("cache.bin")
    return torch.UntypedStorage.from_file("cache.bin", False, 64)


def forge(address):
    return torch.UntypedStorage._new_with_weak_ptr(address)


class ModelNew(torch.nn.Module):
    def forward(self, x):
        return x
