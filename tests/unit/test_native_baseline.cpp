// The native code present before the candidate's import (lib/integrity/native_baseline): what
// loads later outside the Python installation is the candidate's; torch's, numpy's and the
// interpreter's own objects and operator namespaces never are.
#include <pybind11/embed.h>

#include "catch.hpp"
#include "integrity/native_baseline.hpp"
#include "worker/python_runtime.hpp"

using namespace kbench;
namespace py = pybind11;

TEST_CASE("explicit baseline: new objects outside the install dirs and new namespaces are the candidate's") {
  const NativeBaseline baseline({"/usr/lib/libpython-fake.so"}, {"aten", "prims"}, {"/opt/venv", "/opt/site/"});
  CHECK(baseline.is_candidate_object("/tmp/job-0001/torch_extensions/kb_axpy/kb_axpy.so"));
  CHECK_FALSE(baseline.is_candidate_object("/usr/lib/libpython-fake.so"));  // loaded before
  CHECK_FALSE(baseline.is_candidate_object("/opt/venv/lib/python3.11/site-packages/numpy/core/_x.so"));
  CHECK(baseline.is_candidate_object("/opt/venvX/other.so"));  // a prefix is a directory
  CHECK_FALSE(baseline.is_candidate_object(""));
  CHECK(baseline.is_candidate_namespace("kbcpu"));
  CHECK_FALSE(baseline.is_candidate_namespace("aten"));
  CHECK_FALSE(baseline.is_candidate_namespace(""));
  // Never captured: nothing is attributed to the candidate.
  const NativeBaseline none;
  CHECK_FALSE(none.is_candidate_object("/tmp/job-0001/kb_axpy.so"));
  CHECK_FALSE(none.is_candidate_namespace("kbcpu"));
}

TEST_CASE("captured baseline: nothing is the candidate's until it loads something of its own") {
  start_python();
  py::module_::import("torch");
  const auto baseline = NativeBaseline::capture();
  CHECK(baseline.candidate_objects().empty());
  CHECK_FALSE(baseline.is_candidate_object("/proc/self/exe"));
  CHECK_FALSE(baseline.is_candidate_namespace("aten"));
  CHECK(baseline.is_candidate_namespace("kb_not_registered_yet"));
  // numpy's C modules load now, but from site-packages: still not the candidate's.
  py::module_::import("numpy");
  CHECK(baseline.candidate_objects().empty());
  const std::string torch_lib =
      py::str(py::module_::import("torch").attr("__file__")).cast<std::string>() + "/../lib/libfake.so";
  CHECK_FALSE(baseline.is_candidate_object(torch_lib));
  CHECK(baseline.is_candidate_object("/tmp/kbench-test-not-loaded/ext.so"));
}
