#include "integrity/candidate_audit.hpp"

#include <Python.h>
#include <frameobject.h>

#include <cstring>

namespace kbench::candidate_audit {
namespace {

// Touched only with the GIL held (audit hooks run under it, and so does the monitor).
std::string watched_module;
std::optional<std::string> first_use;
bool installed = false;

bool is_candidate_frame(PyFrameObject* frame) {
  PyObject* globals = PyFrame_GetGlobals(frame);  // new reference
  if (globals == nullptr) return false;
  bool mine = false;
  if (PyDict_Check(globals)) {
    PyObject* name = PyDict_GetItemString(globals, "__name__");  // borrowed
    mine = name != nullptr && PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, watched_module.c_str()) == 0;
  }
  Py_DECREF(globals);
  return mine;
}

bool ends_with(const std::string& text, const char* tail) {
  const std::size_t n = std::strlen(tail);
  return text.size() >= n && text.compare(text.size() - n, n, tail) == 0;
}

// The file a frame's code comes from ("" when unknown).
std::string frame_file(PyFrameObject* frame) {
  PyCodeObject* code = PyFrame_GetCode(frame);  // new reference
  std::string file;
  if (PyObject* name = PyObject_GetAttrString(reinterpret_cast<PyObject*>(code), "co_filename")) {
    if (const char* text = PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : nullptr) file = text;
    Py_DECREF(name);
  }
  PyErr_Clear();
  Py_DECREF(code);
  return file;
}

// The first frame on the stack, from `innermost` outward, for which `stop` is true (a new
// reference), or nullptr.
template <class Stop>
PyFrameObject* first_frame(PyFrameObject* innermost, Stop stop) {
  PyFrameObject* frame = innermost;
  Py_XINCREF(frame);
  while (frame != nullptr && !stop(frame)) {
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    frame = back;
  }
  return frame;
}

PyFrameObject* candidate_frame_on_stack(PyFrameObject* innermost) {
  return first_frame(innermost, is_candidate_frame);
}

// Triton's compiler of host modules (`compile_module_from_src`, `_build`) compiles any C source
// and imports it. Triton calls it for its own launchers (from its driver); a call whose caller
// is the candidate's own frame is native code of the candidate's choosing
// (tests/hostile/exploits/triton_build_native.py).
constexpr const char* kTritonBuild = "/triton/runtime/build.py";

void record_native_build(PyFrameObject* innermost) {
  bool in_build = false;
  PyFrameObject* caller = first_frame(innermost, [&](PyFrameObject* frame) {
    if (ends_with(frame_file(frame), kTritonBuild)) {
      in_build = true;
      return false;
    }
    return in_build;  // the first frame outside build.py, once inside it: build.py's caller
  });
  if (caller == nullptr) return;
  if (is_candidate_frame(caller))
    first_use = "triton.runtime.build (compiles and loads C source) called at line " +
                std::to_string(PyFrame_GetLineNumber(caller));
  Py_DECREF(caller);
}

// Libraries that run text as code (the "code run from text" gadgets of docs/integrity-static.md,
// refused by name there): typing evaluates string annotations (a string nested in one reached
// `__import__`, then numpy or ctypes, without naming either: eval_gadget_ctypes.py,
// numpy_gadget_forgery.py); torch.fx and torch.package run generated or packaged source.
constexpr const char* kTextEvaluators[][2] = {
    {"/typing.py", "typing evaluated text as code (a string annotation)"},
    {"/torch/fx/graph_module.py", "torch.fx ran generated source"},
    {"/torch/package/package_importer.py", "torch.package ran packaged source"},
};

void record_text_evaluation(PyFrameObject* innermost) {
  if (innermost == nullptr) return;
  const std::string file = frame_file(innermost);
  for (const auto& evaluator : kTextEvaluators) {
    if (!ends_with(file, evaluator[0])) continue;
    if (PyFrameObject* mine = candidate_frame_on_stack(innermost)) {
      first_use = std::string(evaluator[1]) + " under the candidate's line " + std::to_string(PyFrame_GetLineNumber(mine));
      Py_DECREF(mine);
    }
    return;
  }
}

int audit(const char* event, PyObject* /*args*/, void* /*data*/) {
  if (first_use || watched_module.empty()) return 0;
  // eval() and exec() raise it, with the caller's frame current.
  if (std::strcmp(event, "exec") == 0) {
    record_text_evaluation(PyEval_GetFrame());
    return 0;
  }
  // Both seen inside compile_module_from_src: the compiler's process, then the module's import
  // (only the import when Triton's cache already held the module).
  if (std::strcmp(event, "subprocess.Popen") == 0 || std::strcmp(event, "import") == 0) {
    record_native_build(PyEval_GetFrame());
    return 0;
  }
  if (std::strncmp(event, "ctypes.", 7) != 0) return 0;
  if (PyFrameObject* mine = candidate_frame_on_stack(PyEval_GetFrame())) {
    first_use = std::string(event) + " at line " + std::to_string(PyFrame_GetLineNumber(mine));
    Py_DECREF(mine);
  }
  return 0;
}

}  // namespace

void install(const std::string& module_name) {
  watched_module = module_name;
  if (installed) return;
  installed = PySys_AddAuditHook(audit, nullptr) == 0;
  if (!installed) PyErr_Clear();  // refused by an existing hook: nothing watched, as before
}

std::optional<std::string> native_use() { return first_use; }

void forget() { first_use.reset(); }

}  // namespace kbench::candidate_audit
