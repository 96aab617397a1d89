#include "worker/call_tracer.hpp"

#include <Python.h>
#include <frameobject.h>
#include <fmt/format.h>

#include <functional>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace kbench {

int TraceRecord::total_launches() const {
  int total = 0;
  for (const auto& [name, count] : launches) total += count;
  return total;
}

namespace {
enum class CodeKind { other, reference, launch };

// True for a builtin function of a module compiled by torch.utils.cpp_extension (load_inline,
// load): those live under the torch_extensions build folder.
bool is_extension_function(PyObject* function) {
  if (!PyCFunction_Check(function)) return false;
  PyObject* self = PyCFunction_GET_SELF(function);
  if (!self || !PyModule_Check(self)) return false;
  PyObject* file = PyModule_GetFilenameObject(self);
  if (!file) {
    PyErr_Clear();
    return false;
  }
  const char* path = PyUnicode_AsUTF8(file);
  const bool extension = path && std::string(path).find("torch_extensions") != std::string::npos;
  Py_DECREF(file);
  PyErr_Clear();
  return extension;
}
}  // namespace

struct CallTracer::State {
  py::object problem_file;                       // str
  std::vector<PyObject*> launch_codes;           // borrowed from live functions, kept by `keep`
  std::vector<py::object> keep;
  // Per-code verdicts; the codes are referenced so an address cannot be reused mid-trace.
  std::unordered_map<PyObject*, CodeKind> seen;
  TraceRecord* record = nullptr;

  CodeKind classify(PyCodeObject* code) {
    PyObject* key = reinterpret_cast<PyObject*>(code);
    auto it = seen.find(key);
    if (it != seen.end()) return it->second;
    CodeKind kind = CodeKind::other;
    for (PyObject* launch : launch_codes)
      if (launch == key) kind = CodeKind::launch;
    if (kind == CodeKind::other && PyUnicode_Compare(code->co_filename, problem_file.ptr()) == 0)
      kind = CodeKind::reference;
    if (PyErr_Occurred()) PyErr_Clear();
    Py_INCREF(key);
    seen.emplace(key, kind);
    return kind;
  }

  void clear_seen() {
    for (auto& [code, kind] : seen) Py_DECREF(code);
    seen.clear();
  }

  // The launched kernel's name: `self.fn.__name__` of the JITFunction/InterpretedFunction.
  static std::string kernel_name(PyFrameObject* frame) {
    std::string name = "?";
    PyObject* locals = PyFrame_GetLocals(frame);
    if (!locals) {
      PyErr_Clear();
      return name;
    }
    PyObject* self = PyMapping_GetItemString(locals, "self");
    if (self) {
      PyObject* fn = PyObject_GetAttrString(self, "fn");
      PyObject* text = fn ? PyObject_GetAttrString(fn, "__name__") : nullptr;
      if (text && PyUnicode_Check(text)) name = PyUnicode_AsUTF8(text);
      Py_XDECREF(text);
      Py_XDECREF(fn);
      Py_DECREF(self);
    }
    Py_DECREF(locals);
    PyErr_Clear();
    return name;
  }

  // Calls into compiled extension functions count as launches of a custom (CUDA/C++) kernel.
  void on_c_call(PyObject* function) {
    auto it = seen.find(function);
    if (it == seen.end()) {
      const CodeKind kind = is_extension_function(function) ? CodeKind::launch : CodeKind::other;
      Py_INCREF(function);
      it = seen.emplace(function, kind).first;
    }
    if (it->second != CodeKind::launch) return;
    const char* name = reinterpret_cast<PyCFunctionObject*>(function)->m_ml->ml_name;
    ++record->launches[std::string("extension:") + (name ? name : "?")];
  }

  static int hook(PyObject* object, PyFrameObject* frame, int what, PyObject* arg) {
    auto* state = static_cast<State*>(PyCapsule_GetPointer(object, "kbench.tracer"));
    if (!state || !state->record) return 0;
    if (what == PyTrace_C_CALL) {
      state->on_c_call(arg);
      return 0;
    }
    if (what != PyTrace_CALL) return 0;
    PyCodeObject* code = PyFrame_GetCode(frame);
    const CodeKind kind = state->classify(code);
    if (kind == CodeKind::reference && state->record->reference_code.empty()) {
      state->record->reference_code =
          fmt::format("{} (line {})", PyUnicode_AsUTF8(code->co_qualname), code->co_firstlineno);
    } else if (kind == CodeKind::launch) {
      ++state->record->launches[kernel_name(frame)];
    }
    Py_DECREF(code);
    return 0;
  }
};

CallTracer::CallTracer(const std::string& problem_file) : state_(new State) {
  state_->problem_file = py::str(problem_file);
  // Triton may be absent (plain PyTorch candidates); then there is nothing to count.
  const std::pair<const char*, const char*> entries[] = {
      {"triton.runtime.jit", "JITFunction"}, {"triton.runtime.interpreter", "InterpretedFunction"}};
  for (const auto& [module, cls] : entries) {
    try {
      py::object run = py::module_::import(module).attr(cls).attr("run");
      py::object code = run.attr("__code__");
      state_->keep.push_back(code);
      state_->launch_codes.push_back(code.ptr());
    } catch (const py::error_already_set&) {
    }
  }
}

CallTracer::~CallTracer() {
  state_->clear_seen();
  delete state_;
}

py::object CallTracer::trace(const std::function<py::object()>& fn, TraceRecord& record) {
  py::capsule capsule(static_cast<void*>(state_), "kbench.tracer");
  state_->record = &record;
  PyEval_SetProfile(&State::hook, capsule.ptr());
  auto uninstall = [&] {
    PyThreadState* thread = PyThreadState_Get();
    // The hook function and its object must still be ours; anything else means tampering.
    if (thread->c_profilefunc != &State::hook || thread->c_profileobj != capsule.ptr())
      record.hook_removed = true;
    PyEval_SetProfile(nullptr, nullptr);
    state_->record = nullptr;
  };
  py::object result;
  try {
    result = fn();
  } catch (...) {
    uninstall();
    throw;
  }
  uninstall();
  return result;
}

}  // namespace kbench
