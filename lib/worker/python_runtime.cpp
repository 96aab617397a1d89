#include "worker/python_runtime.hpp"

#include <Python.h>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>

#include "core/error.hpp"
#include "core/text.hpp"

namespace py = pybind11;

namespace kbench {

void start_python() {
  const std::string executable = python_executable();
  // Without this, a missing interpreter starts the system Python, which fails later and less
  // clearly ("No module named 'torch'"). An installed kbench outlives the venv it was built with.
  std::error_code ignored;
  if (!std::filesystem::exists(executable, ignored)) {
    const char* override_path = std::getenv("KBENCH_PYTHON");
    throw EnvironmentError(fmt::format(
        "{} does not exist ({}); set KBENCH_PYTHON to the python that has torch, e.g. "
        "KBENCH_PYTHON=~/.cache/kbench/venv/bin/python (scripts/setup.sh makes it)",
        executable, override_path && *override_path ? "KBENCH_PYTHON" : "the Python kbench was built with"));
  }
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  // program_name makes getpath find the venv's pyvenv.cfg, so sys.prefix and site-packages are
  // the venv's, exactly as when that python runs a script.
  PyStatus status = PyConfig_SetBytesString(&config, &config.program_name, executable.c_str());
  char* argv[] = {const_cast<char*>("kbench-worker")};
  if (!PyStatus_Exception(status)) status = PyConfig_SetBytesArgv(&config, 1, argv);
  config.parse_argv = 0;
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) {
    throw EnvironmentError(fmt::format("cannot start the embedded Python ({}): {}", executable,
                                       status.err_msg ? status.err_msg : "unknown error"));
  }
}

py::module_ import_file(const std::filesystem::path& file, const std::string& module_name) {
  auto util = py::module_::import("importlib.util");
  auto sys = py::module_::import("sys");
  py::object spec = util.attr("spec_from_file_location")(module_name, file.string());
  if (spec.is_none()) throw std::runtime_error("cannot load " + file.string());
  py::object module = util.attr("module_from_spec")(spec);
  sys.attr("modules")[py::str(module_name)] = module;
  spec.attr("loader").attr("exec_module")(module);
  return py::reinterpret_borrow<py::module_>(module);
}

std::string python_error_type(const py::error_already_set& error) {
  py::object type = error.type();
  if (!type) return "";
  const auto module = py::str(type.attr("__module__")).cast<std::string>();
  const auto name = py::str(type.attr("__qualname__")).cast<std::string>();
  return module == "builtins" ? name : module + "." + name;
}

std::string describe_python_error(const py::error_already_set& error, std::size_t max_bytes) {
  try {
    auto traceback = py::module_::import("traceback");
    py::list lines = traceback.attr("format_exception")(error.type(), error.value(), error.trace());
    std::string text;
    for (auto line : lines) text += line.cast<std::string>();
    return tail_of(text, max_bytes);
  } catch (...) {
    return tail_of(error.what(), max_bytes);
  }
}

}  // namespace kbench
