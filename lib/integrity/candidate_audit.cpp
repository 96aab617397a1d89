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

int audit(const char* event, PyObject* /*args*/, void* /*data*/) {
  if (first_use || watched_module.empty() || std::strncmp(event, "ctypes.", 7) != 0) return 0;
  PyFrameObject* frame = PyEval_GetFrame();  // borrowed
  Py_XINCREF(frame);
  while (frame != nullptr) {
    if (is_candidate_frame(frame)) {
      first_use = std::string(event) + " at line " + std::to_string(PyFrame_GetLineNumber(frame));
      Py_DECREF(frame);
      return 0;
    }
    PyFrameObject* back = PyFrame_GetBack(frame);  // new reference
    Py_DECREF(frame);
    frame = back;
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

}  // namespace kbench::candidate_audit
