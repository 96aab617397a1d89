#pragma once
// The embedded Python interpreter of a worker process.
#include <filesystem>
#include <string>

#include <pybind11/pybind11.h>

#include "core/worker_python.hpp"  // python_executable(): the interpreter as configured

namespace kbench {

// Starts the interpreter as if it were the Python that has torch (KBENCH_PYTHON, else the one
// kbench was built against), so that its virtual environment's packages are importable.
// Throws EnvironmentError when the interpreter cannot start.
void start_python();


// Imports a Python file as a fresh module named `module_name` (registered in sys.modules, so
// decorators such as @triton.jit can read its source).
pybind11::module_ import_file(const std::filesystem::path& file, const std::string& module_name);

// "Type: message" plus the traceback of a Python exception, last `max_bytes` kept.
std::string describe_python_error(const pybind11::error_already_set& error,
                                  std::size_t max_bytes = 6000);

// Full name of the Python exception's type, e.g. "triton.compiler.errors.CompilationError".
std::string python_error_type(const pybind11::error_already_set& error);

}  // namespace kbench
