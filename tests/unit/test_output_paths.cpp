// Issue 17, defects 1 and 7: no output may be an input, another output or a directory; all of it
// refused (exit 2) before any work, leaving nothing behind.
#include <unistd.h>

#include <fstream>

#include "catch.hpp"
#include "core/error.hpp"
#include "report/output_paths.hpp"
#include "report/results_json.hpp"
#include "run_kbench.hpp"
#include "sample_report.hpp"
#include "temp_dir.hpp"

using namespace kbench;
namespace fs = std::filesystem;

namespace {

std::string guard_error(const std::vector<NamedPath>& outputs, const std::vector<NamedPath>& inputs) {
  try {
    check_output_paths(outputs, inputs);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// Every file under `dir`, for "nothing left behind".
std::vector<std::string> listing(const fs::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : fs::recursive_directory_iterator(dir))
    names.push_back(fs::relative(entry.path(), dir).string());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace

TEST_CASE("the guard compares files, not spellings") {
  test::TempDir dir;
  const auto input = dir.write("sub/p.py", "x = 1\n");
  fs::create_symlink(input, dir.path() / "link.py");
  fs::create_hard_link(input, dir.path() / "hard.py");
  const std::vector<NamedPath> inputs = {{"the problem file", input}};
  for (const auto& spelling : {input, dir.path() / "sub/../sub/./p.py", dir.path() / "link.py",
                               dir.path() / "hard.py"}) {
    INFO(spelling);
    CHECK(guard_error({{"--md", spelling}}, inputs).find("is the problem file") != std::string::npos);
  }
  CHECK(guard_error({{"--md", dir.path() / "new.md"}}, inputs).empty());
  CHECK(guard_error({{"--md", "-"}, {"--csv", "-"}}, inputs).empty());
  // Two outputs, one file (not yet existing, spelled differently).
  CHECK(guard_error({{"--md", dir.path() / "r.md"}, {"--csv", dir.path() / "sub/../r.md"}}, {})
            .find("is also the --md output") != std::string::npos);
  CHECK(guard_error({{"-o", dir.path() / "sub"}}, {}).find("is a directory") != std::string::npos);
  CHECK(guard_error({{"-o", dir.path() / "nothing-yet/"}}, {}).find("is a directory") != std::string::npos);
}

TEST_CASE("--work-dir must be a directory that exists or can be created") {
  test::TempDir dir;
  CHECK_NOTHROW(check_work_dir(dir.path()));
  CHECK_NOTHROW(check_work_dir(dir.path() / "a/b"));
  CHECK_THROWS_AS(check_work_dir("/proc/wd"), InputError);
  CHECK_THROWS_AS(check_work_dir(dir.write("file", "")), InputError);
  CHECK_THROWS_AS(check_work_dir(dir.path() / "file/below"), InputError);
  CHECK(!fs::exists(dir.path() / "a"));  // checking creates nothing
}

TEST_CASE("kbench run refuses outputs that are inputs, each other or directories, before any work") {
  test::TempDir dir;
  const auto problem = dir.write("p.py", "import torch\nclass Model(torch.nn.Module):\n    pass\n");
  const auto candidate = dir.write("c.py", "import torch\nclass ModelNew(torch.nn.Module):\n    pass\n");
  const auto suite = dir.write("s.yaml", "suite: s\ncandidates: c.py\nproblems:\n  - id: a\n    file: p.py\n");
  fs::create_directory(dir.path() / "out");
  const auto before = listing(dir.path());
  const std::string run = "run " + suite.string() + " --device cpu ";
  const std::pair<std::string, std::string> cases[] = {
      {"--md " + problem.string(), "is the problem file of 'a'"},
      {"-o " + suite.string(), "is the suite"},
      {"--csv " + candidate.string(), "is a candidate file of 'a'"},
      {"-o " + (dir.path() / "out").string(), "is a directory"},
      {"--md " + (dir.path() / "r.md").string() + " --html " + (dir.path() / "out/../r.md").string(),
       "is also the --md output"},
      {"-o " + (dir.path() / "r.json").string() + " --journal " + (dir.path() / "r.json").string(),
       "is also the -o output"},
      {"-o " + (dir.path() / "r.json").string() + " --md " + (dir.path() / "r.json.journal.jsonl").string(),
       "is also the --md output"},
      {"--work-dir /proc/wd", "--work-dir /proc/wd: cannot be created"},
  };
  for (const auto& [arguments, expected] : cases) {
    const auto out = test::run_kbench(run + arguments);
    INFO(arguments << "\n" << out.output);
    CHECK(out.exit_code == 2);
    CHECK(out.output.find(expected) != std::string::npos);
    CHECK(out.output.find("kbench: suite") == std::string::npos);  // refused before any work
  }
  CHECK(listing(dir.path()) == before);  // nothing written, nothing overwritten
  std::ifstream in(problem);
  CHECK(std::string(std::istreambuf_iterator<char>(in), {}).find("class Model") != std::string::npos);
}

TEST_CASE("kbench merge and compare refuse outputs that are inputs or directories") {
  test::TempDir dir;
  const auto a = (dir.path() / "a.json").string();
  std::ofstream(a) << results_json(test::sample_report()).dump(2);
  const auto b = (dir.path() / "b.json").string();
  fs::copy_file(a, b);
  fs::create_directory(dir.path() / "out");
  const auto before = listing(dir.path());
  const std::string out_dir = (dir.path() / "out").string();
  const std::pair<std::string, std::string> cases[] = {
      {"merge " + a + " -o " + a, "is an input"},
      {"merge " + a + " -o " + out_dir, "is a directory"},
      {"compare " + a + " " + b + " --md " + b, "is the new results"},
      {"compare " + a + " " + b + " --json " + out_dir, "is a directory"},
      {"compare " + a + " " + b + " --md " + out_dir + "/x.md --junit " + out_dir + "/x.md",
       "is also the --md output"},
  };
  for (const auto& [arguments, expected] : cases) {
    const auto out = test::run_kbench(arguments);
    INFO(arguments << "\n" << out.output);
    CHECK(out.exit_code == 2);
    CHECK(out.output.find(expected) != std::string::npos);
    CHECK(out.output.find("problem") == std::string::npos);  // no table printed first
  }
  CHECK(listing(dir.path()) == before);
}
