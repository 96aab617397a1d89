#include "worker/tensor_bridge.hpp"

#include <torch/csrc/autograd/python_variable.h>

#include <stdexcept>

namespace py = pybind11;

namespace kbench {

bool is_tensor(py::handle object) { return THPVariable_Check(object.ptr()); }

at::Tensor to_tensor(py::handle object) {
  if (!is_tensor(object)) {
    throw std::invalid_argument("expected a torch.Tensor, got " +
                                py::str(py::type::of(object).attr("__name__")).cast<std::string>());
  }
  return THPVariable_Unpack(object.ptr());
}

py::object to_python(const at::Tensor& tensor) {
  return py::reinterpret_steal<py::object>(THPVariable_Wrap(tensor));
}

namespace {
void flatten_into(py::handle object, FlatOutputs& out, std::string& structure) {
  if (is_tensor(object)) {
    out.tensors.push_back(to_tensor(object));
    structure += "tensor";
    py::handle type = py::type::of(object);
    // Leaked on purpose: a static py::object would be released after Python has shut down.
    static const py::handle tensor_class = py::object(py::module_::import("torch").attr("Tensor")).release();
    out.types.push_back(type.is(tensor_class)
                            ? "torch.Tensor"
                            : py::str(type.attr("__module__")).cast<std::string>() + "." +
                                  py::str(type.attr("__qualname__")).cast<std::string>());
    return;
  }
  // The items are read from the container's own storage, never through __len__, __getitem__
  // or __iter__: a subclass of tuple or list could compute its items there, after the timed
  // interval has closed (namedtuples and torch.return_types keep working: their items are in
  // the storage).
  const bool tuple = PyTuple_Check(object.ptr());
  if (tuple || PyList_Check(object.ptr())) {
    const Py_ssize_t size = tuple ? PyTuple_GET_SIZE(object.ptr()) : PyList_GET_SIZE(object.ptr());
    structure += tuple ? "tuple[" : "list[";
    for (Py_ssize_t i = 0; i < size; ++i) {
      if (i) structure += ", ";
      // Borrowed, so held while it is read: flatten_into runs no Python code on tuples and lists.
      py::object item = py::reinterpret_borrow<py::object>(tuple ? PyTuple_GET_ITEM(object.ptr(), i)
                                                                 : PyList_GET_ITEM(object.ptr(), i));
      flatten_into(item, out, structure);
    }
    structure += "]";
    return;
  }
  throw std::invalid_argument(
      "forward() returned a " + py::str(py::type::of(object).attr("__name__")).cast<std::string>() +
      "; outputs must be tensors or tuples/lists of tensors");
}
}  // namespace

FlatOutputs flatten_outputs(py::handle output) {
  FlatOutputs out;
  flatten_into(output, out, out.structure);
  return out;
}

}  // namespace kbench
