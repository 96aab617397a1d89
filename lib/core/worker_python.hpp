#pragma once
// Which Python the workers run: KBENCH_PYTHON, else the one kbench was built against. The
// controller needs it too (the bytecode cache is filled by that interpreter), so it lives here,
// with no Python headers.
#include <string>

namespace kbench {

std::string python_executable();

}  // namespace kbench
