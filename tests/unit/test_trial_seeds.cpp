// The trial builder seeds torch's generators from C++ (lib/worker/trial.cpp): the inputs are the
// ones `torch.manual_seed(seed + 1); get_inputs()` makes, and nothing on torch.manual_seed's
// Python path runs, so a spy put there (tests/hostile/exploits/seed_spy_precompute.py) learns no
// seed.
#include <pybind11/eval.h>
#include <pybind11/pybind11.h>

#include "catch.hpp"
#include "worker/python_runtime.hpp"
#include "worker/trial.hpp"

using namespace kbench;
namespace py = pybind11;

TEST_CASE("inputs are seeded from C++: the same values as torch.manual_seed, and its Python path never runs") {
  start_python();
  py::gil_scoped_acquire gil;
  py::module_ torch = py::module_::import("torch");
  py::module_ problem =
      py::reinterpret_borrow<py::module_>(py::module_::import("types").attr("ModuleType")("seeded_problem"));
  py::exec("import torch\n"
           "def get_inputs():\n"
           "    return [torch.rand(8, 8), torch.randn(5), 3]\n",
           problem.attr("__dict__"));

  py::dict scope;
  scope["torch"] = torch;
  scope["problem"] = problem;
  py::exec("torch.manual_seed(1235)\nexpected = problem.get_inputs()\n"
           "calls = []\n"
           "original_seed = torch.manual_seed\n"
           "def spy(seed):\n"
           "    calls.append(seed)\n"
           "    return original_seed(seed)\n"
           "torch.manual_seed = spy\n",
           scope);

  const TrialBuilder builder(torch, torch.attr("device")("cpu"), torch.attr("float32"), problem);
  py::list inputs = builder.build_inputs(1234);
  py::exec("torch.manual_seed = original_seed", scope);

  REQUIRE(py::len(inputs) == 3);
  py::list expected = scope["expected"];
  for (int i = 0; i < 2; ++i) CHECK(py::bool_(torch.attr("equal")(inputs[i], expected[i])));
  CHECK(inputs[2].cast<int>() == 3);
  CHECK(py::len(scope["calls"]) == 0);

  // A different seed, different values: the seed reached the generator.
  py::list other = builder.build_inputs(99);
  CHECK_FALSE(py::bool_(torch.attr("equal")(other[0], expected[0])));
}
