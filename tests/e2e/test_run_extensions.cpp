// End to end: load_inline candidates built on the CPU (C++ extensions) and Triton launch styles
// (tests/data/suites/cpu_extensions.yaml) under --checks strict with require_custom_kernel.
// Calls into the candidate's own extensions count as launches: pybind11 functions of two
// modules, one reached through a helper nn.Module in an nn.ModuleList, and an operator the
// extension registered with TORCH_LIBRARY; a built but never called extension is caught.
// Cost: three g++ builds of small extensions, ~1-1.5 min each on the 2-core CI machine.
#include <fstream>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "results_by_key.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;

TEST_CASE("load_inline and Triton launch styles: own launches seen, an uncalled extension caught") {
  test::TempDir dir;
  const auto results_file = dir.path() / "extensions.json";
  const auto out = test::run_kbench("run " + (test::kDataDir / "suites/cpu_extensions.yaml").string() +
                                    " --device cpu -q -o " + results_file.string());
  INFO(out.output);
  REQUIRE(out.exit_code == 0);
  const auto json = nlohmann::json::parse(std::ifstream(results_file));
  const auto results = test::results_by_key(json["results"]);
  REQUIRE(results.size() == 3);

  const auto& honest = results.at("clamp_affine/honest_cpu_extensions.py");
  INFO(honest.dump(1).substr(0, 3000));
  CHECK(honest["status"] == "ok");
  CHECK(honest["diagnostics"]["checks"] == "strict");
  CHECK(honest["diagnostics"].value("flags", nlohmann::json::array()).empty());
  // Each function of each module, called once per forward (clamp01 by both blocks).
  CHECK(honest["diagnostics"]["integrity_notes"]["launches_first_call"] ==
        nlohmann::json({{"extension:affine", 1}, {"extension:clamp01", 2}, {"op:kbcpu::add_scalar", 1}}));

  const auto& triton = results.at("clamp_affine/honest_triton_launch_styles.py");
  INFO(triton.dump(1).substr(0, 3000));
  CHECK(triton["status"] == "ok");
  CHECK(triton["diagnostics"]["integrity_notes"]["launches_first_call"] ==
        nlohmann::json({{"_affine_kernel", 1}, {"_clamp_kernel", 1}}));

  const auto& uncalled = results.at("clamp_affine/extension_not_called.py");
  INFO(uncalled.dump(1).substr(0, 3000));
  CHECK(uncalled["status"] == "rejected");
  CHECK(uncalled["diagnostics"]["integrity"]["check"] == "custom_kernel_not_launched");
}
