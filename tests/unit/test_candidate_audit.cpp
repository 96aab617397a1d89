// The audit hook over a candidate judged free of native code (lib/integrity/candidate_audit.hpp):
// what it records when the candidate's own frames reach native code or text run as code, and
// what it leaves alone when the same happens for a library (Triton's driver builds its own
// launchers; torch and triton evaluate their own code).
#include <filesystem>
#include <string>

#include <pybind11/embed.h>

#include "catch.hpp"
#include "integrity/candidate_audit.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"
#include "worker/python_runtime.hpp"

using namespace kbench;
namespace py = pybind11;

namespace {

constexpr const char* kCandidate = "kbench_candidate";

// Imports `source` from a file as a module named `name` (as the worker imports a candidate):
// its frames carry that __name__.
void run_as_module(const std::string& name, const std::string& source) {
  static const bool started = (start_python(), true);
  (void)started;
  static test::TempDir sources;
  const auto file = sources.write(name + ".py", source);
  py::gil_scoped_acquire gil;
  py::module_ util = py::module_::import("importlib.util");
  py::object spec = util.attr("spec_from_file_location")(name, file.string());
  py::object module = util.attr("module_from_spec")(spec);
  py::module_::import("sys").attr("modules")[py::str(name)] = module;
  spec.attr("loader").attr("exec_module")(module);
}

std::string seen() {
  const auto use = candidate_audit::native_use();
  candidate_audit::forget();
  return use.value_or("");
}

// The evaluated-annotation gadget: a string nested in an annotation, evaluated by
// functools.singledispatch's register, binds __import__ (then opens libc through ctypes).
// `spelling` varies the annotation's text: typing caches a subscripted type by its text, and a
// cached one is not evaluated again in this process.
std::string annotation_gadget(int spelling) {
  std::string source = test::read_text(test::kSourceDir / "tests/hostile/exploits/eval_gadget_ctypes.py");
  const std::string walrus = "(_imp := ";
  source.replace(source.find(walrus), walrus.size(), "(_imp" + std::string(spelling + 1, ' ') + ":= ");
  return source;
}

// The Python line that defines SOURCE, a C extension module named `name` (a fresh name per
// build: an extension module loads once per process).
std::string c_module(const std::string& name) {
  return "SOURCE = r\"\"\"\n#include <Python.h>\n"
         "static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, \"" + name + "\", NULL, -1, NULL};\n"
         "PyMODINIT_FUNC PyInit_" + name + "(void) { return PyModule_Create(&module); }\n\"\"\"\n";
}

}  // namespace

TEST_CASE("text run as code by typing: recorded under the candidate's frames, not a library's") {
  candidate_audit::install(kCandidate);
  candidate_audit::forget();
  run_as_module("kbench_audit_library", annotation_gadget(0));
  CHECK(seen().empty());
  run_as_module(kCandidate, annotation_gadget(1));
  CHECK(seen().find("typing evaluated text as code (a string annotation) under the candidate's line") == 0);
  // Honest typing use evaluates nothing: plain annotations, a dataclass, a NamedTuple.
  run_as_module(kCandidate, R"(
import dataclasses
import typing

@dataclasses.dataclass
class Config:
    block: int = 128
    name: "str" = "k"

class Pair(typing.NamedTuple):
    a: int
    b: "float"

def launch(x: int, y: typing.Optional[float] = None) -> typing.List[int]:
    return [x]

launch(Config().block)
)");
  CHECK(seen().empty());
}

TEST_CASE("ctypes under the candidate's frames is recorded") {
  candidate_audit::install(kCandidate);
  candidate_audit::forget();
  run_as_module(kCandidate, "import ctypes\nctypes.CDLL(None)\n");
  CHECK(seen().find("ctypes.") == 0);
}

TEST_CASE("Triton's host compiler called by the candidate is recorded; called by a library, it is not") {
  test::TempDir cache;
  ::setenv("TRITON_CACHE_DIR", cache.path().c_str(), 1);
  candidate_audit::install(kCandidate);
  // A library module that builds (as Triton's driver builds its launchers), called by the candidate.
  run_as_module("kbench_audit_driver", c_module("kb_audit_driver_probe") +
                                           "from triton.runtime.build import compile_module_from_src\n"
                                           "def build():\n"
                                           "    return compile_module_from_src(SOURCE, 'kb_audit_driver_probe')\n");
  run_as_module(kCandidate, "import kbench_audit_driver\nkbench_audit_driver.build()\n");
  CHECK(seen().empty());
  run_as_module(kCandidate, c_module("kb_audit_candidate_probe") +
                                "from triton.runtime.build import compile_module_from_src\n"
                                "compile_module_from_src(SOURCE, 'kb_audit_candidate_probe')\n");
  CHECK(seen().find("triton.runtime.build (compiles and loads C source) called at line") == 0);
}
