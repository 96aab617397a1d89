// Selection for big suites (--problems, --levels, --tags, --limit, with --shard) on the library,
// and `kbench list` / `kbench run --dry-run` through the binary over an imported fake
// KernelBench tree (nothing is run: no worker starts, so this test takes about a second).
#include <set>

#include <nlohmann/json.hpp>

#include "catch.hpp"
#include "core/error.hpp"
#include "kernelbench_tree.hpp"
#include "run/selection.hpp"
#include "run_kbench.hpp"

using namespace kbench;
using kbench::test::TempDir;

namespace {

std::vector<Problem> sample_problems() {
  std::vector<Problem> problems;
  auto add = [&](std::string id, int level, std::vector<std::string> tags) {
    Problem p;
    p.id = std::move(id);
    p.level = level;
    p.tags = std::move(tags);
    problems.push_back(std::move(p));
  };
  add("L1_19_ReLU", 1, {"activation"});
  add("L1_23_Softmax", 1, {"softmax"});
  add("L1_40_LayerNorm", 1, {"norm"});
  add("L2_12_Gemm_Multiply_LeakyReLU", 2, {"matmul", "activation"});
  add("L2_17_Conv2d_InstanceNorm_Divide", 2, {"conv", "norm"});
  add("L3_1_MLP", 3, {"architecture"});
  return problems;
}

std::vector<std::string> select(const ProblemSelection& s, std::optional<Shard> shard = std::nullopt) {
  auto problems = sample_problems();
  select_problems(s, shard, problems);
  std::vector<std::string> ids;
  for (const auto& p : problems) ids.push_back(p.id);
  return ids;
}

std::string error_of(const ProblemSelection& s) {
  try {
    select(s);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

using Ids = std::vector<std::string>;

}  // namespace

TEST_CASE("no selection keeps every problem in suite order") {
  CHECK(select({}).size() == 6);
  CHECK(ProblemSelection{}.empty());
}

TEST_CASE("each filter, and their combination (all must hold)") {
  ProblemSelection s;
  s.problem_patterns = {"L1_*"};
  CHECK(select(s) == Ids{"L1_19_ReLU", "L1_23_Softmax", "L1_40_LayerNorm"});
  s.problem_patterns = {"*ReLU*", "L3_*"};  // any pattern
  CHECK(select(s) == Ids{"L1_19_ReLU", "L2_12_Gemm_Multiply_LeakyReLU", "L3_1_MLP"});
  s = {};
  s.levels = {2, 3};
  CHECK(select(s) == Ids{"L2_12_Gemm_Multiply_LeakyReLU", "L2_17_Conv2d_InstanceNorm_Divide", "L3_1_MLP"});
  s = {};
  s.tags = {"norm", "softmax"};  // any tag
  CHECK(select(s) == Ids{"L1_23_Softmax", "L1_40_LayerNorm", "L2_17_Conv2d_InstanceNorm_Divide"});
  s.levels = {1};
  CHECK(select(s) == Ids{"L1_23_Softmax", "L1_40_LayerNorm"});
  s.limit = 1;
  CHECK(select(s) == Ids{"L1_23_Softmax"});
  s = {};
  s.limit = 100;
  CHECK(select(s).size() == 6);
}

TEST_CASE("--limit comes before --shard: the shards split the same first N problems") {
  ProblemSelection s;
  s.limit = 4;
  std::set<std::string> seen;
  std::size_t total = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    for (const auto& id : select(s, Shard{i, 3})) {
      seen.insert(id);
      ++total;
    }
  }
  CHECK(total == 4);
  CHECK(seen == std::set<std::string>{"L1_19_ReLU", "L1_23_Softmax", "L1_40_LayerNorm",
                                      "L2_12_Gemm_Multiply_LeakyReLU"});
}

TEST_CASE("a filter value that matches nothing is an error naming it, with a hint") {
  ProblemSelection s;
  s.problem_patterns = {"L1_19_Relu"};
  CHECK(error_of(s).find("did you mean 'L1_19_ReLU'") != std::string::npos);
  s = {};
  s.levels = {4};
  CHECK(error_of(s).find("no problem at level 4; its levels: 1, 2, 3") != std::string::npos);
  s = {};
  s.tags = {"activaton"};
  CHECK(error_of(s).find("did you mean 'activation'") != std::string::npos);
  s = {};
  s.levels = {3};
  s.tags = {"softmax"};  // each matches something, together nothing
  CHECK(error_of(s).find("keeps none of the suite's 6 problems") != std::string::npos);
  s = {};
  s.limit = 0;
  CHECK(error_of(s).find("--limit") != std::string::npos);
}

TEST_CASE("kbench list and run --dry-run through the binary") {
  TempDir dir;
  kbench::test::write_kernelbench_tree(dir);
  const auto suite = (dir.path() / "kb.yaml").string();
  REQUIRE(kbench::test::run_kbench("import kernelbench " + (dir.path() / "kb").string() + " -o " +
                                   suite + " --candidates '" + (dir.path() / "runs/{id}_*.py").string() + "'")
              .exit_code == 0);
  dir.write("runs/L1_19_ReLU_a.py", "# a\n");
  dir.write("runs/L1_19_ReLU_b.py", "# b\n");
  dir.write("runs/L2_12_Gemm_Multiply_LeakyReLU_a.py", "# a\n");

  SECTION("list: table with candidate counts, files and problems without candidates") {
    const auto r = kbench::test::run_kbench("list " + suite);
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("L1_19_ReLU") != std::string::npos);
    CHECK(r.output.find("L1_19_ReLU_b.py") != std::string::npos);
    CHECK(r.output.find("7 problems (L1 4, L2 2, L3 1); 3 candidate files; 5 problems match no candidate file") !=
          std::string::npos);
  }
  SECTION("list --json with a selection") {
    const auto r = kbench::test::run_kbench("list " + suite + " --json --levels 1 --tags activation");
    REQUIRE(r.exit_code == 0);
    const auto json = nlohmann::json::parse(r.output);
    REQUIRE(json["problems"].size() == 1);
    CHECK(json["problems"][0]["id"] == "L1_19_ReLU");
    CHECK(json["problems"][0]["level"] == 1);
    CHECK(json["problems"][0]["candidates"]["count"] == 2);
    CHECK(json["problems"][0]["candidates"]["files"].size() == 2);
    CHECK(json["summary"]["problems"] == 1);
    CHECK(json["summary"]["suite_problems"] == 7);
  }
  SECTION("run --dry-run prints the planned jobs, runs and writes nothing, exit 0") {
    const auto results = dir.path() / "r.json";
    const auto r = kbench::test::run_kbench("run " + suite + " --device cpu --dry-run --problems '*ReLU*' -o " +
                                            results.string());
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("2 problems, 3 evaluations on cpu; nothing is run") != std::string::npos);
    CHECK(r.output.find("L1_19_ReLU_a.py") != std::string::npos);
    CHECK(r.output.find("L2_12_Gemm_Multiply_LeakyReLU_a.py") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(results));
  }
  SECTION("run without a selection refuses a problem with no candidate; --limit and bad filters") {
    auto r = kbench::test::run_kbench("run " + suite + " --device cpu --dry-run");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("no candidate file matches") != std::string::npos);
    r = kbench::test::run_kbench("run " + suite + " --device cpu --dry-run --problems 'L1_19*' --limit 1");
    CHECK(r.exit_code == 0);
    CHECK(r.output.find("1 problem, 2 evaluations") != std::string::npos);
    r = kbench::test::run_kbench("run " + suite + " --device cpu --dry-run --tags nosuchtag");
    CHECK(r.exit_code == 2);
    CHECK(r.output.find("no problem of the suite has tag 'nosuchtag'") != std::string::npos);
    r = kbench::test::run_kbench("list " + suite + " --levels 0");
    CHECK(r.exit_code == 2);
  }
}
