# Every third-party dependency is found here, once, and exposed as a kbench::dep_* target, so
# the rest of the build does not care which distribution (Debian 12 or Ubuntu 24.04) it is on.

find_package(fmt REQUIRED)
find_package(CLI11 REQUIRED)
find_package(nlohmann_json 3.10 REQUIRED)
find_package(yaml-cpp REQUIRED)

# yaml-cpp 0.7 exports `yaml-cpp`, 0.8 exports `yaml-cpp::yaml-cpp`.
add_library(kbench_dep_yaml INTERFACE)
if(TARGET yaml-cpp::yaml-cpp)
  target_link_libraries(kbench_dep_yaml INTERFACE yaml-cpp::yaml-cpp)
else()
  target_link_libraries(kbench_dep_yaml INTERFACE yaml-cpp)
endif()
add_library(kbench::dep_yaml ALIAS kbench_dep_yaml)

# Python: the interpreter that has torch decides everything else (its libpython, its LibTorch).
# scripts/setup.sh passes -DPython3_EXECUTABLE=<venv python>; on the H200 it is the system python3.
find_package(Python3 3.9 REQUIRED COMPONENTS Interpreter Development.Embed)
execute_process(
  COMMAND ${Python3_EXECUTABLE} -c "import torch, torch.utils, os; print(torch.utils.cmake_prefix_path, end=';'); print(os.path.dirname(torch.__file__), end='')"
  OUTPUT_VARIABLE KBENCH_TORCH_QUERY RESULT_VARIABLE KBENCH_TORCH_RC ERROR_QUIET)
if(NOT KBENCH_TORCH_RC EQUAL 0)
  message(FATAL_ERROR "${Python3_EXECUTABLE} cannot import torch. Run scripts/setup.sh, or pass "
                      "-DPython3_EXECUTABLE=/path/to/python-with-torch.")
endif()
list(GET KBENCH_TORCH_QUERY 0 KBENCH_TORCH_CMAKE_PREFIX)
list(GET KBENCH_TORCH_QUERY 1 KBENCH_TORCH_DIR)
list(APPEND CMAKE_PREFIX_PATH ${KBENCH_TORCH_CMAKE_PREFIX})
find_package(Torch REQUIRED)
find_library(KBENCH_TORCH_PYTHON_LIBRARY torch_python PATHS "${KBENCH_TORCH_DIR}/lib" NO_DEFAULT_PATH REQUIRED)

# Only the CPU-side LibTorch and torch_python are linked: CUDA kernels are reached through the
# dispatcher once the embedded `import torch` has loaded libtorch_cuda. The controller therefore
# never loads CUDA libraries. torch's own pybind11 copy (torch/include/pybind11) is used so the
# embedded interpreter and torch_python agree on pybind11's ABI.
add_library(kbench_dep_torch INTERFACE)
target_include_directories(kbench_dep_torch SYSTEM INTERFACE ${TORCH_INCLUDE_DIRS})
target_link_libraries(kbench_dep_torch INTERFACE torch_cpu c10 ${KBENCH_TORCH_PYTHON_LIBRARY} Python3::Python)
target_compile_definitions(kbench_dep_torch INTERFACE _GLIBCXX_USE_CXX11_ABI=1)
add_library(kbench::dep_torch ALIAS kbench_dep_torch)

# CUDA is optional: with the toolkit's headers the CUDA-event timer is compiled; it loads the
# driver (libcuda.so.1) at run time, so the same binary starts on machines without a GPU.
find_package(CUDAToolkit QUIET)
set(KBENCH_WITH_CUDA ${CUDAToolkit_FOUND})
message(STATUS "kbench: CUDA timer ${KBENCH_WITH_CUDA}; Python ${Python3_EXECUTABLE}; torch ${KBENCH_TORCH_DIR}")

# Candidates from a model endpoint (lib/generate) need libcurl and SQLite. Both are in
# scripts/setup.sh here; where either is missing (the GPU image may lack libsqlite3-dev) kbench is
# built without the feature, and a suite with `generate:` says so (docs/endpoints.md).
find_package(CURL QUIET)
find_package(SQLite3 QUIET)
if(CURL_FOUND AND SQLite3_FOUND)
  set(KBENCH_WITH_GENERATE ON)
else()
  set(KBENCH_WITH_GENERATE OFF)
endif()
message(STATUS "kbench: model-endpoint generation ${KBENCH_WITH_GENERATE} (libcurl ${CURL_FOUND}, SQLite3 ${SQLite3_FOUND})")

if(KBENCH_BUILD_TESTS)
  # Debian 12 ships Catch2 v2, Ubuntu 24.04 v3; tests include tests/unit/catch.hpp, which picks.
  find_package(Catch2 3 QUIET)
  if(NOT Catch2_FOUND)
    find_package(Catch2 2 REQUIRED)
  endif()
endif()

# `kbench history` databases, each optional (the GPU image may lack them): SQLite files through
# libsqlite3, PostgreSQL through libpq. Without either, `kbench history` says how to get it.
find_package(PkgConfig QUIET)
# SQLite3 was found above (model-endpoint generation); history uses the same result.
set(KBENCH_WITH_SQLITE ${SQLite3_FOUND})
set(KBENCH_WITH_POSTGRES OFF)
if(PkgConfig_FOUND)
  pkg_check_modules(KBENCH_LIBPQ QUIET IMPORTED_TARGET libpq)
  set(KBENCH_WITH_POSTGRES ${KBENCH_LIBPQ_FOUND})
endif()
message(STATUS "kbench: history back ends: SQLite ${KBENCH_WITH_SQLITE}, PostgreSQL ${KBENCH_WITH_POSTGRES}")

# `kbench serve` (lib/serve) needs cpp-httplib. Debian 12's libcpp-httplib-dev is a split build
# (httplib.h + libcpp-httplib.so, pkg-config `cpp-httplib`, whose flags must match the library's);
# upstream's install is header-only with a CMake package (`httplib::httplib`). Where neither is
# found (the GPU image has no package registry) serve is left out and the rest builds;
# docs/serve.md#building says how to carry the package there.
set(KBENCH_WITH_SERVE OFF)
add_library(kbench_dep_httplib INTERFACE)
find_package(httplib QUIET CONFIG)
if(httplib_FOUND AND TARGET httplib::httplib)
  target_link_libraries(kbench_dep_httplib INTERFACE httplib::httplib)
  set(KBENCH_WITH_SERVE ON)
  set(KBENCH_HTTPLIB_VERSION "${httplib_VERSION} (CMake package)")
elseif(PkgConfig_FOUND)
  pkg_check_modules(KBENCH_HTTPLIB QUIET IMPORTED_TARGET cpp-httplib)
  if(KBENCH_HTTPLIB_FOUND)
    target_link_libraries(kbench_dep_httplib INTERFACE PkgConfig::KBENCH_HTTPLIB)
    set(KBENCH_WITH_SERVE ON)
    set(KBENCH_HTTPLIB_VERSION "${KBENCH_HTTPLIB_VERSION} (pkg-config)")
  endif()
endif()
add_library(kbench::dep_httplib ALIAS kbench_dep_httplib)
if(KBENCH_WITH_SERVE)
  message(STATUS "kbench: serve ON (cpp-httplib ${KBENCH_HTTPLIB_VERSION})")
else()
  message(STATUS "kbench: serve OFF: cpp-httplib not found (apt-get install libcpp-httplib-dev; "
                 "docs/serve.md#building); `kbench serve` will say so, everything else builds")
endif()
