#pragma once
// Python objects <-> ATen tensors. The only worker file that includes torch's Python headers.
#include <ATen/core/Tensor.h>
#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace kbench {

// The tensors of a forward() result, in order, and its structure ("tensor", "tuple[2]",
// "list[tensor, tuple[2]]"...). Throws std::invalid_argument for a non-tensor leaf.
struct FlatOutputs {
  std::vector<at::Tensor> tensors;
  std::string structure;
  // Each tensor's exact Python type: "torch.Tensor", or a subclass's "module.QualName".
  std::vector<std::string> types;
};
FlatOutputs flatten_outputs(pybind11::handle output);

bool is_tensor(pybind11::handle object);
at::Tensor to_tensor(pybind11::handle object);  // throws std::invalid_argument if not a tensor
pybind11::object to_python(const at::Tensor& tensor);

}  // namespace kbench
