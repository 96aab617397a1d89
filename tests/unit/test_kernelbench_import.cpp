// `kbench import kernelbench`: a fake KernelBench tree written by the test is imported, read back
// by load_suite and planned; bad checkouts and unsafe outputs are refused with exit 2.
#include "catch.hpp"

#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "error_of.hpp"
#include "run/job_planning.hpp"
#include "kernelbench_tree.hpp"
#include "run_kbench.hpp"
#include "suite/kernelbench_import.hpp"
#include "suite/suite.hpp"

using namespace kbench;
using kbench::test::TempDir;
using kbench::test::error_of;
using kbench::test::read_text;

namespace {

std::vector<std::string> ids_of(const Suite& suite) {
  std::vector<std::string> ids;
  for (const auto& p : suite.problems) ids.push_back(p.id);
  return ids;
}

}  // namespace

TEST_CASE("tags come from the words of KernelBench file names") {
  using V = std::vector<std::string>;
  CHECK(kernelbench_tags(1, "ReLU") == V{"activation", "single_op"});
  CHECK(kernelbench_tags(1, "Max_Pooling_2D") == V{"pooling", "single_op"});
  CHECK(kernelbench_tags(1, "Max_reduction_over_a_dimension") == V{"reduction", "single_op"});
  CHECK(kernelbench_tags(1, "LogSoftmax") == V{"softmax", "single_op"});
  CHECK(kernelbench_tags(1, "Square_matrix_multiplication_") == V{"matmul", "single_op"});
  CHECK(kernelbench_tags(1, "conv_transposed_2D__square_input__square_kernel") == V{"conv", "single_op"});
  CHECK(kernelbench_tags(1, "cumsum_reverse") == V{"scan", "single_op"});
  CHECK(kernelbench_tags(1, "HingeLoss") == V{"loss", "single_op"});
  CHECK(kernelbench_tags(2, "Gemm_Multiply_LeakyReLU") == V{"matmul", "activation", "fusion"});
  CHECK(kernelbench_tags(2, "Conv2d_GroupNorm_Tanh_HardSwish_ResidualAdd_LogSumExp") ==
        V{"conv", "norm", "activation", "reduction", "fusion"});
  CHECK(kernelbench_tags(3, "MinGPTCausalAttention") == V{"attention", "architecture"});
  CHECK(kernelbench_tags(3, "LSTMBidirectional") == V{"rnn", "architecture"});
}

TEST_CASE("candidate patterns expand {level} {number} {name} {id}") {
  KernelBenchProblem p;
  p.level = 2;
  p.number = 12;
  p.name = "Gemm_Multiply";
  p.id = "L2_12_Gemm_Multiply";
  CHECK(expand_problem_pattern("runs/{level}/{id}_*.py", p) == "runs/2/L2_12_Gemm_Multiply_*.py");
  CHECK(expand_problem_pattern("l{level}/p{number}_{name}/{number}.py", p) ==
        "l2/p12_Gemm_Multiply/12.py");
  CHECK(expand_problem_pattern("plain.py", p) == "plain.py");
}

TEST_CASE("a KernelBench checkout imports into a suite that loads and plans") {
  TempDir dir;
  kbench::test::write_kernelbench_tree(dir);
  std::filesystem::create_directories(dir.path() / "suites");
  KernelBenchImportOptions options;
  options.checkout = dir.path() / "kb";
  options.output = dir.path() / "suites" / "kb.yaml";

  SECTION("default levels, default candidates: ids, levels, tags, relative paths, KB tolerances") {
    const auto problems = import_kernelbench(options);
    REQUIRE(problems.size() == 7);
    const auto text = read_text(options.output);
    CHECK(text.find("file: \"../kb/KernelBench/level1/19_ReLU.py\"") != std::string::npos);
    CHECK(text.find("get_tolerance_for_precision") != std::string::npos);
    CHECK(text.find(dir.path().string()) == std::string::npos);  // nothing absolute
    // Candidates for a few problems, then the suite reads back and plans.
    for (const auto* id : {"L1_2_Standard_matrix_multiplication_", "L1_19_ReLU", "L1_23_Softmax",
                           "L1_42_Max_Pooling_2D", "L2_3_ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU",
                           "L2_12_Gemm_Multiply_LeakyReLU", "L3_1_MLP"})
      dir.write(std::string("suites/candidates/") + id + "/a.py", "# candidate\n");
    const Suite suite = load_suite(options.output);
    CHECK(ids_of(suite) == std::vector<std::string>{
                               "L1_2_Standard_matrix_multiplication_", "L1_19_ReLU", "L1_23_Softmax",
                               "L1_42_Max_Pooling_2D", "L2_3_ConvTranspose3d_Sum_LayerNorm_AvgPool_GELU",
                               "L2_12_Gemm_Multiply_LeakyReLU", "L3_1_MLP"});
    CHECK(suite.problems[1].level == 1);
    CHECK(suite.problems[6].level == 3);
    CHECK(suite.problems[1].tags == std::vector<std::string>{"activation", "single_op"});
    CHECK(suite.problems[1].file ==
          std::filesystem::weakly_canonical(dir.path() / "kb/KernelBench/level1/19_ReLU.py"));
    CHECK(suite.defaults.dtype == "float32");
    CHECK(suite.defaults.atol == Approx(1e-4));
    CHECK(suite.defaults.rtol == Approx(1e-4));
    const auto jobs = plan_jobs(suite, cpu_device());
    REQUIRE(jobs.size() == 7);
    CHECK(jobs[1].candidate_file.filename() == "a.py");
    CHECK(jobs[1].candidate_file.parent_path().filename() == "L1_19_ReLU");
  }

  SECTION("--levels and a {level}/{number} pattern relative to the current directory") {
    options.levels = {2, 1, 2};  // order and repeats do not matter
    options.candidate_patterns = {(dir.path() / "runs/level_{level}/{number}_*.py").string()};
    options.precision = "bf16";
    const auto problems = import_kernelbench(options);
    CHECK(problems.size() == 6);
    dir.write("runs/level_1/19_sample0.py", "# candidate\n");
    dir.write("runs/level_1/19_sample1.py", "# candidate\n");
    const Suite suite = load_suite(options.output);
    CHECK(suite.defaults.dtype == "bfloat16");
    CHECK(suite.defaults.atol == Approx(1e-2));
    const auto relu = std::find_if(suite.problems.begin(), suite.problems.end(),
                                   [](const auto& p) { return p.id == "L1_19_ReLU"; });
    REQUIRE(relu != suite.problems.end());
    CHECK(relu->candidate_patterns == std::vector<std::string>{"../runs/level_1/19_*.py"});
    Suite one = suite;
    one.problems = {*relu};
    CHECK(plan_jobs(one, cpu_device()).size() == 2);
  }

  SECTION("the KernelBench/ folder itself works as DIR") {
    options.checkout = dir.path() / "kb" / "KernelBench";
    options.levels = {3};
    CHECK(import_kernelbench(options).size() == 1);
  }

  SECTION("refusals: existing output, output inside the checkout, missing level") {
    dir.write("suites/kb.yaml", "keep me\n");
    CHECK(error_of([&] { import_kernelbench(options); }).find("--force") != std::string::npos);
    CHECK(read_text(options.output) == "keep me\n");
    options.force = true;
    CHECK(import_kernelbench(options).size() == 7);
    options.output = dir.path() / "kb" / "suite.yaml";
    CHECK(error_of([&] { import_kernelbench(options); }).find("inside the KernelBench checkout") != std::string::npos);
    CHECK_FALSE(std::filesystem::exists(options.output));
    options.output = dir.path() / "suites" / "kb4.yaml";
    options.levels = {4};
    CHECK(error_of([&] { import_kernelbench(options); }).find("no level4/") != std::string::npos);
  }
}

TEST_CASE("kbench import kernelbench through the binary: output, exit codes") {
  TempDir dir;
  kbench::test::write_kernelbench_tree(dir);
  const auto out = dir.path() / "kb.yaml";
  auto r = kbench::test::run_kbench("import kernelbench " + (dir.path() / "kb").string() +
                                    " --levels 1,3 -o " + out.string());
  CHECK(r.exit_code == 0);
  CHECK(r.output.find("imported 5 KernelBench problems (level 1: 4, level 3: 1)") != std::string::npos);
  CHECK(load_suite(out).problems.size() == 5);

  r = kbench::test::run_kbench("import kernelbench " + (dir.path() / "kb").string() + " -o " + out.string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("the file exists") != std::string::npos);

  dir.write("not_kb/level1/notes.txt", "no problems here\n");
  r = kbench::test::run_kbench("import kernelbench " + (dir.path() / "not_kb").string() + " -o " +
                               (dir.path() / "x.yaml").string());
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("not a KernelBench checkout") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir.path() / "x.yaml"));

  r = kbench::test::run_kbench("import kernelbench " + (dir.path() / "kb").string() +
                               " --levels 0 -o " + (dir.path() / "y.yaml").string());
  CHECK(r.exit_code == 2);
}
