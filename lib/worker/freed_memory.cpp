#include "worker/freed_memory.hpp"

#include <malloc.h>
#include <pybind11/embed.h>

namespace py = pybind11;

namespace kbench {
namespace {

// torch.as_tensor over __cuda_array_interface__ views a block by its address without
// allocating, so the fill lands in the block itself, not in a fresh one.
constexpr const char* kPoisonInactiveBlocks = R"(
def _kbench_poison_inactive_blocks(device):
    import torch
    if device < 0:
        device = torch.cuda.current_device()
    class _Block:
        def __init__(self, address, size):
            self.__cuda_array_interface__ = {"shape": (size,), "typestr": "|u1", "data": (address, False),
                                             "version": 2}
    torch.cuda.synchronize(device)
    blocks = poisoned = 0
    for segment in torch.cuda.memory_snapshot():
        if segment.get("device") != device:
            continue
        for block in segment.get("blocks", []):
            if block.get("state") != "inactive" or block.get("size", 0) <= 0:
                continue
            torch.as_tensor(_Block(block["address"], block["size"]), device=f"cuda:{device}").fill_(255)
            blocks += 1
            poisoned += block["size"]
    torch.cuda.synchronize(device)
    torch.cuda.empty_cache()
    return blocks, poisoned
)";

}  // namespace

nlohmann::json release_freed_memory(const Device& device) {
  nlohmann::json out = {{"host_trimmed", malloc_trim(0) == 1}};
  if (!device.is_cuda()) return out;
  py::dict scope;  // private: never in sys.modules
  scope["__builtins__"] = py::module_::import("builtins");
  py::exec(kPoisonInactiveBlocks, scope);
  const py::tuple done = scope["_kbench_poison_inactive_blocks"](device.index.value_or(-1));
  out["device_blocks"] = done[0].cast<long long>();
  out["device_bytes_poisoned"] = done[1].cast<long long>();
  return out;
}

}  // namespace kbench
