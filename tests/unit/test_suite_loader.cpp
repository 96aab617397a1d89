#include <cmath>
#include <locale>
#include <string>

#include "catch.hpp"
#include "core/error.hpp"
#include "suite/suite.hpp"
#include "suite/yaml_value.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"

using namespace kbench;
using kbench::test::TempDir;

namespace {

// Loads `yaml` (with a problem file p.py beside it) and returns the error message, or "".
std::string load_error(const TempDir& dir, const std::string& yaml) {
  dir.write("p.py", "class Model: pass\n");
  const auto file = dir.write("suite.yaml", yaml);
  try {
    load_suite(file);
  } catch (const InputError& e) {
    CHECK(e.code() == kExitBadInput);
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("the shipped smoke suite loads") {
  const Suite suite = load_suite(test::kSourceDir / "configs/suites/smoke.yaml");
  CHECK(suite.name == "smoke");
  REQUIRE(suite.problems.size() >= 6);
  CHECK(suite.defaults.seeds >= 3);
  for (const auto& problem : suite.problems) {
    CHECK(std::filesystem::is_regular_file(problem.file));
    CHECK(problem.sizes.count("cpu") == 1);
  }
}

TEST_CASE("defaults, overrides and sizes are read") {
  TempDir dir;
  dir.write("p.py", "");
  const auto file = dir.write("suite.yaml", R"(suite: s
defaults: {dtype: float16, seeds: 5, timing: {mode: hot, min_samples: 7}, baselines: [eager], atol: 0.5}
candidates: c/{id}.py
problems:
  - id: a
    file: p.py
    level: 2
    tags: [x, y]
    sizes: {cpu: {N: 8, SCALE: 0.5}}
    overrides: {timing: {min_samples: 3, target_ci: 0.01}, rtol: 0.25}
)");
  const Suite suite = load_suite(file);
  const auto& p = suite.problems.at(0);
  CHECK(p.settings.dtype == "float16");
  CHECK(p.settings.seeds == 5);
  CHECK(*p.settings.timing.min_samples == 3);
  CHECK(p.settings.timing.target_ci == 0.01);
  // Override blocks replace only the fields they name.
  CHECK(p.settings.timing.mode == TimingMode::hot);
  CHECK(*p.settings.atol == 0.5);
  CHECK(*p.settings.rtol == 0.25);
  CHECK(p.settings.baselines == std::vector<std::string>{"eager"});
  CHECK(p.level == 2);
  CHECK(p.tags.size() == 2);
  CHECK(p.sizes.at("cpu")["N"] == 8);
  CHECK(p.sizes.at("cpu")["SCALE"] == 0.5);
  CHECK(p.candidate_patterns == std::vector<std::string>{"c/{id}.py"});
  CHECK(p.where.line == 5);
}

TEST_CASE("a timing preset is read as `timing: NAME` or `preset:`, and other keys merge with it") {
  TempDir dir;
  dir.write("p.py", "");
  const auto file = dir.write("suite.yaml", R"(suite: s
defaults: {timing: rl}
candidates: c/{id}.py
problems:
  - {id: a, file: p.py}
  - {id: b, file: p.py, overrides: {timing: {max_time_s: 2}}}
  - {id: c, file: p.py, overrides: {timing: {preset: full}}}
)");
  const Suite suite = load_suite(file);
  CHECK(suite.problems.at(0).settings.timing.preset == TimingPreset::rl);
  CHECK(suite.problems.at(1).settings.timing.preset == TimingPreset::rl);
  CHECK(*suite.problems.at(1).settings.timing.max_time_s == 2);
  CHECK(suite.problems.at(2).settings.timing.preset == TimingPreset::full);
  CHECK_FALSE(suite.problems.at(0).settings.timing.target_ci);  // the preset's, at resolution

  const std::string prefix = (dir.path() / "suite.yaml").string() + ":";
  auto error = load_error(dir, "suite: s\ncandidates: x.py\ndefaults: {timing: rll}\nproblems:\n  - {id: a, file: p.py}\n");
  CHECK(error.find(prefix + "3:20: unknown timing preset 'rll' (did you mean 'rl'?)") == 0);
  error = load_error(dir, "suite: s\ncandidates: x.py\ndefaults: {timing: {preset: quick}}\nproblems:\n  - {id: a, file: p.py}\n");
  CHECK(error.find("unknown timing preset 'quick'") != std::string::npos);
  CHECK(error.find("use one of: full, rl") != std::string::npos);
  error = load_error(dir, "suite: s\ncandidates: x.py\ndefaults: {timing: [rl]}\nproblems:\n  - {id: a, file: p.py}\n");
  CHECK(error.find("`timing:` must be a preset name (full, rl) or a mapping") != std::string::npos);
}

TEST_CASE("integrity settings and alt_sizes are read, with documented defaults") {
  TempDir dir;
  dir.write("p.py", "");
  const auto file = dir.write("suite.yaml", R"(suite: s
defaults: {checks: standard, require_custom_kernel: true, flag_speedup_above: 20}
candidates: c.py
problems:
  - id: a
    file: p.py
    alt_sizes: {cpu: {N: 9}}
    overrides: {alt_inputs: none, min_custom_kernel_share: 0.8, checks: minimal}
  - id: b
    file: p.py
)");
  const Suite suite = load_suite(file);
  const auto& a = suite.problems.at(0);
  CHECK(a.settings.checks == CheckLevel::minimal);
  CHECK(a.settings.require_custom_kernel);
  CHECK(a.settings.flag_speedup_above == 20);
  CHECK(a.settings.min_custom_kernel_share == 0.8);
  CHECK(!a.settings.alt_inputs);
  CHECK(a.alt_sizes.at("cpu")["N"] == 9);
  const auto& b = suite.problems.at(1);
  CHECK(b.settings.checks == CheckLevel::standard);
  CHECK(b.settings.alt_inputs);
  CHECK(b.alt_sizes.empty());
  const EvalSettings defaults;
  CHECK(defaults.seeds == 5);
  CHECK(defaults.checks == CheckLevel::strict);
  CHECK(!defaults.require_custom_kernel);
  CHECK(defaults.flag_speedup_above == 10);
}

TEST_CASE("every integrity check has a level; levels nest") {
  for (const auto& c : integrity_checks()) {
    CHECK(check_enabled(CheckLevel::strict, c.name));
    CHECK(!check_enabled(CheckLevel::minimal, c.name));
    CHECK(check_enabled(CheckLevel::standard, c.name) == (c.level == CheckLevel::standard));
  }
  CHECK_THROWS(check_enabled(CheckLevel::strict, "no_such_check"));
  CHECK(check_level_from_string("standard") == CheckLevel::standard);
  CHECK(!check_level_from_string("paranoid"));
}

TEST_CASE("schema errors point at file:line:col and say what to do") {
  TempDir dir;
  const std::string prefix = (dir.path() / "suite.yaml").string() + ":";

  SECTION("unknown key with a did-you-mean hint") {
    const auto error = load_error(dir, "suite: s\ncandidates: x.py\ndefaults:\n  sedes: 5\nproblems:\n  - {id: a, file: p.py}\n");
    CHECK(error.find(prefix + "4:3: unknown key 'sedes'") == 0);
    CHECK(error.find("did you mean 'seeds'") != std::string::npos);
  }
  SECTION("missing problem file") {
    const auto error = load_error(dir, "suite: s\ncandidates: x.py\nproblems:\n  - id: a\n    file: nope.py\n");
    CHECK(error.find(prefix + "5:11: problem file") == 0);
    CHECK(error.find("relative to the suite file") != std::string::npos);
  }
  SECTION("YAML syntax error") {
    const auto error = load_error(dir, "suite: s\nproblems: [\n  {id: a, file: p.py\n");
    CHECK(error.find(prefix) == 0);
    CHECK(error.find("YAML syntax error") != std::string::npos);
  }
  SECTION("wrong type") {
    const auto error = load_error(dir, "suite: s\ncandidates: x.py\ndefaults: {seeds: many}\nproblems:\n  - {id: a, file: p.py}\n");
    CHECK(error.find(prefix + "3:19: `seeds` must be a number, got 'many'") == 0);
  }
  SECTION("out of range") {
    const auto error = load_error(dir, "suite: s\ncandidates: x.py\ndefaults: {seeds: 0}\nproblems:\n  - {id: a, file: p.py}\n");
    CHECK(error.find(prefix + "3:19: `seeds` must be an integer in [1, 10000], got 0") == 0);
  }
  SECTION("unknown dtype") {
    const auto error = load_error(dir, "suite: s\ncandidates: x.py\ndefaults: {dtype: float8}\nproblems:\n  - {id: a, file: p.py}\n");
    CHECK(error.find(prefix + "3:19: unknown dtype 'float8'") == 0);
  }
  SECTION("unknown timing mode") {
    const auto error = load_error(dir, "suite: s\ncandidates: x.py\ndefaults: {timing: {mode: colt}}\nproblems:\n  - {id: a, file: p.py}\n");
    CHECK(error.find(prefix + "3:27: unknown timing mode 'colt' (did you mean 'cold'?)") == 0);
  }
  SECTION("unknown baseline") {
    const auto error = load_error(dir, "suite: s\ncandidates: x.py\ndefaults: {baselines: [eager, inductr]}\nproblems:\n  - {id: a, file: p.py}\n");
    CHECK(error.find(prefix + "3:31: unknown baseline 'inductr' (did you mean 'inductor'?)") == 0);
  }
  SECTION("unknown check level") {
    const auto error = load_error(dir, "suite: s\ncandidates: x.py\ndefaults: {checks: paranoid}\nproblems:\n  - {id: a, file: p.py}\n");
    CHECK(error.find(prefix + "3:20: unknown check level 'paranoid'; use one of: minimal, standard, strict") == 0);
  }
  SECTION("bad alt_inputs") {
    const auto error = load_error(dir, "suite: s\ncandidates: x.py\ndefaults: {alt_inputs: yes}\nproblems:\n  - {id: a, file: p.py}\n");
    CHECK(error.find(prefix + "3:24: `alt_inputs` is `auto`") == 0);
  }
  SECTION("unknown check in skip_checks") {
    const auto error = load_error(dir, "suite: s\ncandidates: x.py\ndefaults: {skip_checks: [forbiden_api]}\nproblems:\n  - {id: a, file: p.py}\n");
    CHECK(error.find(prefix + "3:26: unknown check 'forbiden_api' in skip_checks (did you mean 'forbidden_api'?)") == 0);
  }
  SECTION("duplicate id") {
    const auto error = load_error(dir, "suite: s\ncandidates: x.py\nproblems:\n  - {id: a, file: p.py}\n  - {id: a, file: p.py}\n");
    CHECK(error.find(prefix + "5:10: duplicate problem id 'a'") == 0);
  }
  SECTION("missing suite name") {
    const auto error = load_error(dir, "problems:\n  - {id: a, file: p.py}\n");
    CHECK(error.find(prefix + "1:1: missing `suite:`") == 0);
  }
  SECTION("problem without candidates") {
    const auto error = load_error(dir, "suite: s\nproblems:\n  - {id: a, file: p.py}\n");
    CHECK(error.find(prefix + "3:5: problem 'a' has no candidates") == 0);
  }
  SECTION("unsupported schema version") {
    const auto error = load_error(dir, "schema_version: 9\nsuite: s\nproblems:\n  - {id: a, file: p.py}\n");
    CHECK(error.find(prefix + "1:17: schema_version 9 is not supported") == 0);
  }
  SECTION("unknown device kind in sizes") {
    const auto error = load_error(dir, "suite: s\ncandidates: x.py\nproblems:\n  - {id: a, file: p.py, sizes: {gpu: {N: 1}}}\n");
    CHECK(error.find(prefix + "4:33: unknown key 'gpu' in sizes") == 0);
  }
}

TEST_CASE("a missing suite file is an input error") {
  CHECK_THROWS_AS(load_suite("/nonexistent/suite.yaml"), InputError);
}

TEST_CASE("the watchdog and sandbox limits are read, overridden per problem and checked") {
  TempDir dir;
  dir.write("p.py", "");
  const auto file = dir.write("suite.yaml", R"(suite: s
candidates: x.py
defaults: {compile_timeout_s: 30, run_timeout_s: 20, memory_limit_gb: 8, output_cap_mb: 0.5}
problems:
  - {id: a, file: p.py}
  - {id: b, file: p.py, overrides: {run_timeout_s: 5, file_size_limit_gb: 1}}
)");
  const Suite suite = load_suite(file);
  const auto& a = suite.problems[0].settings;
  const auto& b = suite.problems[1].settings;
  CHECK(*a.compile_timeout_s == 30);
  CHECK(*a.run_timeout_s == 20);
  CHECK(*a.memory_limit_gb == 8);
  CHECK(a.output_cap_mb == 0.5);
  CHECK(a.file_size_limit_gb == 4);
  CHECK(*b.run_timeout_s == 5);
  CHECK(*b.compile_timeout_s == 30);
  CHECK(b.file_size_limit_gb == 1);
  const EvalSettings plain;
  CHECK(!plain.compile_timeout_s);
  CHECK(!plain.memory_limit_gb);
  CHECK(default_memory_limit_gb() > 0);
  CHECK(default_memory_limit_gb() <= 32);

  const auto error = load_error(dir, "suite: s\ncandidates: x.py\ndefaults: {run_timeout_s: 0}\nproblems:\n  - {id: a, file: p.py}\n");
  CHECK(error.find("`run_timeout_s` must be a number in (0, 604800], got 0") != std::string::npos);
}

#define CHECK_CONTAINS(text, part)                    \
  do {                                               \
    const std::string text_ = (text);                \
    INFO(text_);                                     \
    CHECK(text_.find(part) != std::string::npos);    \
  } while (false)

// Issue 17, defects 3, 8, 9: every number finite and in its documented range, no duplicate keys,
// no quoted numbers, messages that say what is really wrong.
TEST_CASE("non-finite, absurd and quoted numbers are refused naming the key and its line") {
  TempDir dir;
  auto with_default = [&](const std::string& setting) {
    return load_error(dir, "suite: s\ncandidates: c.py\ndefaults:\n  " + setting +
                               "\nproblems:\n  - id: a\n    file: p.py\n");
  };
  const std::pair<const char*, const char*> cases[] = {
      {"timeout_s: .inf", "suite.yaml:4:14: `timeout_s` is infinite"},
      {"timeout_s: 1e300", "suite.yaml:4:14: `timeout_s` must be a number in (0, 604800], got 1e+300"},
      {"run_timeout_s: .inf", "suite.yaml:4:18: `run_timeout_s` is infinite"},
      {"compile_timeout_s: .nan", "`compile_timeout_s` is not a number (NaN)"},
      {"file_size_limit_gb: .inf", "suite.yaml:4:23: `file_size_limit_gb` is infinite"},
      {"output_cap_mb: .inf", "`output_cap_mb` is infinite"},
      {"memory_limit_gb: 1e30", "`memory_limit_gb` must be a number in (0, 65536]"},
      {"atol: .nan", "`atol` is not a number (NaN)"},
      {"rtol: -.inf", "`rtol` is infinite"},
      {"seeds: 1e20", "`seeds` must be an integer in [1, 10000], got 1e+20"},
      {"seeds: 2.5", "`seeds` must be an integer in [1, 10000], got 2.5"},
      {"seeds: \"3\"", "`seeds` must be a number, got the string \"3\""},
      {"flag_speedup_above: .inf", "`flag_speedup_above` is infinite"},
      {"timing: {max_time_s: .inf}", "`max_time_s` is infinite"},
      {"timing: {target_ci: .nan}", "`target_ci` is not a number (NaN)"},
      {"timing: {max_samples: 1e12}", "`max_samples` must be an integer in [1, 100000000]"},
  };
  for (const auto& [setting, expected] : cases) {
    INFO(setting);
    CHECK_CONTAINS(with_default(setting), (expected));
  }
  CHECK_CONTAINS(load_error(dir, "suite: s\ncandidates: c.py\nproblems:\n  - id: a\n    file: p.py\n"
                             "    sizes: {cpu: {N: .inf}}\n"),
             ("`size constant` is infinite"));
  CHECK_CONTAINS(load_error(dir, "schema_version: \"1\"\nsuite: s\ncandidates: c.py\nproblems:\n  - id: a\n"
                             "    file: p.py\n"),
             ("suite.yaml:1:17: `schema_version` must be a number, got the string \"1\""));
}

TEST_CASE("a duplicate key is refused at the second one, at any depth") {
  TempDir dir;
  CHECK_CONTAINS(load_error(dir, "suite: s\ncandidates: c.py\nsuite: t\nproblems:\n  - id: a\n    file: p.py\n"),
             ("suite.yaml:3:1: duplicate key 'suite' (first given on line 1)"));
  CHECK_CONTAINS(load_error(dir, "suite: s\ncandidates: c.py\nproblems:\n  - id: a\n    file: p.py\n"
                             "    overrides: {seeds: 2, seeds: 3}\n"),
             ("suite.yaml:6:27: duplicate key 'seeds'"));
}

TEST_CASE("a problem `file:` that is a directory says so") {
  TempDir dir;
  CHECK_CONTAINS(load_error(dir, "suite: s\ncandidates: c.py\nproblems:\n  - id: a\n    file: ..\n"),
             ("is a directory"));
}

// Found by tests/unit/test_input_fuzz.cpp: a list or mapping as a key was an internal error.
TEST_CASE("a list or a mapping used as a key is bad input, not an internal error") {
  TempDir dir;
  CHECK_CONTAINS(load_error(dir, "suite: s\n[a]: 1\ncandidates: c.py\nproblems:\n  - id: a\n    file: p.py\n"),
                 "suite.yaml:2:1: a key must be a plain name");
  CHECK_CONTAINS(load_error(dir, "suite: s\ncandidates: c.py\nproblems:\n  - id: a\n    file: p.py\n"
                                 "    sizes: {cpu: {[N]: 1}}\n"),
                 "suite.yaml:6:19: a key must be a plain name");
}

TEST_CASE("build_timeout_s is a finite number of seconds up to a day, and travels with the job") {
  TempDir dir;
  dir.write("p.py", "");
  const auto file = dir.write("suite.yaml", "suite: s\ncandidates: x.py\ndefaults: {build_timeout_s: 300}\n"
                                            "problems:\n  - {id: a, file: p.py}\n");
  CHECK(*load_suite(file).problems[0].settings.build_timeout_s == 300);
  CHECK(!EvalSettings{}.build_timeout_s);
  for (const char* bad : {"0", "-5", ".inf", ".nan", "100000"}) {
    INFO(bad);
    const auto error = load_error(dir, std::string("suite: s\ncandidates: x.py\ndefaults: {build_timeout_s: ") + bad +
                                           "}\nproblems:\n  - {id: a, file: p.py}\n");
    CHECK(error.find("build_timeout_s") != std::string::npos);
    CHECK(error.find("suite.yaml:3:") != std::string::npos);
  }
}

TEST_CASE("degenerate: true needs a degenerate_reason, and reaches the planned jobs") {
  TempDir dir;
  const std::string head = "suite: s\ncandidates: p.py\nproblems:\n  - id: a\n    file: p.py\n";
  CHECK(load_error(dir, head + "    degenerate: true\n    degenerate_reason: zeros pass it\n").empty());
  const Suite suite = load_suite(dir.path() / "suite.yaml");
  REQUIRE(suite.problems[0].degenerate_reason);
  CHECK(*suite.problems[0].degenerate_reason == "zeros pass it");
  CHECK(load_error(dir, head + "    degenerate: false\n").empty());
  CHECK(!load_suite(dir.path() / "suite.yaml").problems[0].degenerate_reason);
  CHECK(load_error(dir, head + "    degenerate: true\n").find(
            ":6:17: problem 'a' is `degenerate: true` without a `degenerate_reason:`") != std::string::npos);
  CHECK(load_error(dir, head + "    degenerate_reason: why\n").find("without `degenerate: true`") !=
        std::string::npos);
  CHECK(load_error(dir, head + "    degenerate: true\n    degenerate_reason: ''\n").find("must not be empty") !=
        std::string::npos);
  CHECK(load_error(dir, head + "    degenerate: maybe\n    degenerate_reason: x\n").find("true or false") !=
        std::string::npos);
}

namespace {
// A global C++ locale that writes and reads "0,5": what a library in the loading process may
// install. Numbers in suites are YAML's, whatever it is.
struct CommaDecimal : std::numpunct<char> {
  char do_decimal_point() const override { return ','; }
  char do_thousands_sep() const override { return '.'; }
  std::string do_grouping() const override { return "\3"; }
};
}  // namespace

TEST_CASE("suite numbers are read without the C++ global locale (the in-process Evaluator's crash)") {
  TempDir dir;
  dir.write("p.py", "");
  const auto file = dir.write("suite.yaml", R"(suite: s
defaults: {atol: 0.5, rtol: +1.5e-3, timing: {target_ci: .01}}
candidates: c.py
problems:
  - id: a
    file: p.py
    sizes: {cpu: {N: 8, SCALE: 0.25}}
)");
  const std::locale previous = std::locale::global(std::locale(std::locale::classic(), new CommaDecimal));
  Suite suite;
  std::string error;
  try {
    suite = load_suite(file);
  } catch (const InputError& e) {
    error = e.what();
  }
  std::locale::global(previous);
  INFO(error);
  REQUIRE(error.empty());
  const auto& p = suite.problems.at(0);
  CHECK(p.settings.atol == 0.5);
  CHECK(p.settings.rtol == 0.0015);
  CHECK(p.settings.timing.target_ci == 0.01);
  // And the forms YAML has that from_chars alone does not read, or reads too widely.
  CHECK(yaml_scalar_number("-.inf") == -HUGE_VAL);
  CHECK(std::isnan(*yaml_scalar_number(".nan")));
  CHECK(yaml_scalar_number("+-1") == std::nullopt);
  CHECK(yaml_scalar_number("1.5x") == std::nullopt);
  CHECK(yaml_scalar_number("") == std::nullopt);
  CHECK(yaml_scalar_integer("+42") == 42);
  CHECK(yaml_scalar_integer("4.2") == std::nullopt);
}
