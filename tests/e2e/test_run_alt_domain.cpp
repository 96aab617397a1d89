// A reference that breaks down on the alternative distribution (log of negatives): the
// alt_distribution trial is skipped with a note and an honest copy stays `ok`, since the seed
// trials are finite; a reference non-finite on its own seeds keeps the trial (no verdict is
// taken from it either way). One CPU job each, about 10 s.
#include <fstream>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "run_kbench.hpp"
#include "temp_dir.hpp"

using namespace kbench;

namespace {

// get_inputs gives `seed_inputs`, get_inputs_alt all-negative values.
void write_problem(const std::filesystem::path& file, const std::string& seed_inputs) {
  std::ofstream(file) << "import torch\n"
                         "class Model(torch.nn.Module):\n"
                         "    def forward(self, x):\n"
                         "        return torch.log(x)\n"
                         "def get_inputs():\n"
                         "    return [" << seed_inputs << "]\n"
                         "def get_inputs_alt():\n"
                         "    return [-torch.rand(64, 64) - 0.5]\n"
                         "def get_init_inputs():\n"
                         "    return []\n";
}

nlohmann::json run_one(const test::TempDir& dir, const std::string& seed_inputs) {
  write_problem(dir.path() / "log.py", seed_inputs);
  std::ofstream(dir.path() / "log_copy.py") << "import torch\n"
                                               "class ModelNew(torch.nn.Module):\n"
                                               "    def forward(self, x):\n"
                                               "        return torch.log(x)\n";
  std::ofstream(dir.path() / "suite.yaml") << "schema_version: 1\nsuite: alt_domain\n"
                                              "defaults:\n  seeds: 2\n  baselines: [eager]\n  timeout_s: 120\n"
                                              "  timing: {warmup: 1, min_samples: 2, max_time_s: 0.2}\n"
                                              "problems:\n  - id: log\n    file: log.py\n"
                                              "    candidates: [log_copy.py]\n";
  const auto out = dir.path() / "r.json";
  const auto run = test::run_kbench("run " + (dir.path() / "suite.yaml").string() + " --device cpu -o " + out.string());
  INFO(run.output);
  REQUIRE(std::filesystem::exists(out));
  const auto doc = nlohmann::json::parse(std::ifstream(out));
  REQUIRE(doc.at("results").size() == 1);
  return doc["results"][0];
}

nlohmann::json trials(const nlohmann::json& result) {
  return result["diagnostics"].value("correctness", nlohmann::json::object()).value("trials", nlohmann::json::array());
}

bool skipped_note(const nlohmann::json& result) {
  const auto notes = result["diagnostics"].value("correctness", nlohmann::json::object()).value("notes", nlohmann::json::array());
  for (const auto& note : notes)
    if (note.get<std::string>().find("alt_distribution trial skipped") != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("the alt-distribution trial is skipped where only it is outside the reference's domain") {
  test::TempDir dir;
  const auto result = run_one(dir, "torch.rand(64, 64) + 0.5");
  INFO(result.dump(1).substr(0, 4000));
  CHECK(result["status"] == "ok");
  CHECK(skipped_note(result));
  CHECK(trials(result) == nlohmann::json({"seed", "seed"}));
}

TEST_CASE("a reference non-finite on its own seeds keeps the alt-distribution trial") {
  test::TempDir dir;
  const auto result = run_one(dir, "torch.rand(64, 64) - 0.5");  // half the seeds' outputs are NaN
  INFO(result.dump(1).substr(0, 4000));
  CHECK_FALSE(skipped_note(result));
  CHECK(trials(result) == nlohmann::json({"seed", "seed", "alt_distribution"}));
}
