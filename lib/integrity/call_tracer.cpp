#include "integrity/call_tracer.hpp"

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
enum class CodeKind { other, reference, triton_launch, operator_call };

// A string attribute of `object`, or "" (errors cleared).
std::string string_attr(PyObject* object, const char* name) {
  std::string value;
  PyObject* text = object ? PyObject_GetAttrString(object, name) : nullptr;
  if (text && PyUnicode_Check(text)) {
    const char* utf8 = PyUnicode_AsUTF8(text);
    if (utf8) value = utf8;
  }
  Py_XDECREF(text);
  PyErr_Clear();
  return value;
}

// `self` of a traced frame (a new reference), or nullptr.
PyObject* frame_self(PyFrameObject* frame) {
  PyObject* locals = PyFrame_GetLocals(frame);
  if (!locals) {
    PyErr_Clear();
    return nullptr;
  }
  PyObject* self = PyMapping_GetItemString(locals, "self");
  Py_DECREF(locals);
  PyErr_Clear();
  return self;
}
}  // namespace

struct CallTracer::State {
  py::object problem_file;                       // str
  std::string candidate_file;
  const NativeBaseline* natives = nullptr;
  // Borrowed from live functions, kept by `keep`: Triton's launch entry points, torch.ops calls.
  std::vector<PyObject*> triton_codes, operator_codes;
  std::vector<py::object> keep;
  // Per-code verdicts; the codes are referenced so an address cannot be reused mid-trace.
  std::unordered_map<PyObject*, CodeKind> seen;
  std::unordered_map<const void*, bool> code_is_candidate;  // C functions' verdicts
  TraceRecord* record = nullptr;

  CodeKind classify(PyCodeObject* code) {
    PyObject* key = reinterpret_cast<PyObject*>(code);
    auto it = seen.find(key);
    if (it != seen.end()) return it->second;
    CodeKind kind = CodeKind::other;
    for (PyObject* launch : triton_codes)
      if (launch == key) kind = CodeKind::triton_launch;
    for (PyObject* call : operator_codes)
      if (call == key) kind = CodeKind::operator_call;
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

  // A Triton launch of `self.fn`, counted by the function's name when the candidate's file
  // defines it (Triton kernels elsewhere, e.g. inside torch, are not the candidate's).
  void on_triton_launch(PyFrameObject* frame) {
    PyObject* self = frame_self(frame);
    PyObject* fn = self ? PyObject_GetAttrString(self, "fn") : nullptr;
    PyObject* code = fn ? PyObject_GetAttrString(fn, "__code__") : nullptr;
    PyErr_Clear();
    const std::string file = code ? string_attr(code, "co_filename") : "";
    const std::string name = fn ? string_attr(fn, "__name__") : "";
    Py_XDECREF(code);
    Py_XDECREF(fn);
    Py_XDECREF(self);
    if (file == candidate_file) ++record->launches[name.empty() ? "?" : name];
  }

  // torch.ops.<ns>.<op>(...) (OpOverloadPacket/OpOverload.__call__): counted when the candidate's
  // extension registered the namespace (TORCH_LIBRARY).
  void on_operator_call(PyFrameObject* frame) {
    PyObject* self = frame_self(frame);
    std::string name = string_attr(self, "_qualified_op_name");
    if (name.empty()) name = string_attr(self, "_name");
    Py_XDECREF(self);
    const auto ns = name.substr(0, name.find("::"));
    if (name.find("::") != std::string::npos && natives->is_candidate_namespace(ns))
      ++record->launches["op:" + name];
  }

  // A builtin function whose C implementation lives in a shared object the candidate loaded:
  // a function of its extension (pybind11's dispatcher is compiled into each extension).
  // Cached by the C function's address: bound builtin methods are new objects at every call.
  void on_c_call(PyObject* function) {
    if (!PyCFunction_Check(function)) return;
    const PyMethodDef* method = reinterpret_cast<PyCFunctionObject*>(function)->m_ml;
    if (!method || !method->ml_meth) return;
    const auto* address = reinterpret_cast<const void*>(method->ml_meth);
    auto it = code_is_candidate.find(address);
    if (it == code_is_candidate.end())
      it = code_is_candidate.emplace(address, natives->is_candidate_object(object_containing(address))).first;
    if (it->second) ++record->launches[std::string("extension:") + (method->ml_name ? method->ml_name : "?")];
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
    } else if (kind == CodeKind::triton_launch) {
      state->on_triton_launch(frame);
    } else if (kind == CodeKind::operator_call) {
      state->on_operator_call(frame);
    }
    Py_DECREF(code);
    return 0;
  }
};

CallTracer::CallTracer(const std::string& problem_file, const std::string& candidate_file,
                       const NativeBaseline& natives)
    : state_(new State) {
  state_->problem_file = py::str(problem_file);
  state_->candidate_file = candidate_file;
  state_->natives = &natives;
  const auto add_code = [&](const char* module, const char* cls, const char* method, std::vector<PyObject*>& codes) {
    try {
      py::object code = py::module_::import(module).attr(cls).attr(method).attr("__code__");
      state_->keep.push_back(code);
      codes.push_back(code.ptr());
    } catch (const py::error_already_set&) {
      // Triton may be absent (plain PyTorch candidates); then there is nothing to count.
    }
  };
  add_code("triton.runtime.jit", "JITFunction", "run", state_->triton_codes);
  add_code("triton.runtime.interpreter", "InterpretedFunction", "run", state_->triton_codes);
  add_code("torch._ops", "OpOverloadPacket", "__call__", state_->operator_codes);
  add_code("torch._ops", "OpOverload", "__call__", state_->operator_codes);
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
