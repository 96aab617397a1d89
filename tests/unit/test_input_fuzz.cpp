// A bounded mutation fuzzer for the two readers of untrusted documents: the suite loader (YAML)
// and the results reader (JSON). Property: every input is either accepted or refused with an
// InputError (exit 2); no other exception, no crash, no hang. Seeded PRNG, so a failure
// reproduces; bounded by input count and wall time (about 20 s here), and prints what it tried.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/error.hpp"
#include "report/json_input.hpp"
#include "report/results_json.hpp"
#include "report/results_reader.hpp"
#include "sample_report.hpp"
#include "suite/suite.hpp"
#include "temp_dir.hpp"

using namespace kbench;

namespace {

// Tokens that reach the readers' edge cases: special numbers, nesting, YAML anchors and tags,
// quotes, control and non-UTF-8 bytes.
const std::vector<std::string> kTokens = {
    "{", "}", "[", "]", ":", ",", "\"", "'", "\n", "  ", "- ", "#", ".inf", "-.inf", ".nan",
    "1e400", "1e308", "-1", "0", "1e20", "nan", "null", "true", "~", "&a ", "*a", "!!str ",
    "!!binary ", "? ", "|\n", ">\n", "\xff", "\x01", "\t", "\\u0000", "\"\\ud800\"", "9999999999999999999",
    "[[[[[[[[", "{\"a\":{\"a\":", "timeout_s: ", "seeds: ", "suite: x\n", "<<: *a\n",
    "[k]: 1\n", "{k: v}: 1\n", "? [k]\n: 1\n"};

std::string mutate(std::string doc, std::mt19937& rng) {
  auto pick = [&](std::size_t n) { return std::uniform_int_distribution<std::size_t>(0, n - 1)(rng); };
  const int edits = 1 + int(pick(4));
  for (int e = 0; e < edits; ++e) {
    const std::size_t at = doc.empty() ? 0 : pick(doc.size());
    switch (pick(6)) {
      case 0:  // flip a byte
        if (!doc.empty()) doc[at] = char(pick(256));
        break;
      case 1:  // insert a token
        doc.insert(at, kTokens[pick(kTokens.size())]);
        break;
      case 2:  // delete a span
        doc.erase(at, 1 + pick(16));
        break;
      case 3:  // duplicate a span (duplicate keys, repeated blocks)
        doc.insert(at, doc.substr(at, 1 + pick(64)));
        break;
      case 4:  // truncate
        doc.resize(at);
        break;
      default:  // replace a number-like character with a special number
        for (std::size_t i = at; i < doc.size(); ++i)
          if (std::isdigit(static_cast<unsigned char>(doc[i]))) {
            doc.replace(i, 1, kTokens[13 + pick(9)]);
            break;
          }
    }
  }
  return doc;
}

struct Tally {
  std::size_t tried = 0, accepted = 0, refused = 0;
};

// Runs `read` on mutants of `seeds` until `count` inputs or `seconds` pass; FAILs on anything
// but success or InputError, printing the input (escaped) that caused it.
template <typename Read>
Tally fuzz(const std::vector<std::string>& seeds, unsigned seed, std::size_t count, double seconds,
           Read read) {
  std::mt19937 rng(seed);
  Tally tally;
  const auto start = std::chrono::steady_clock::now();
  while (tally.tried < count &&
         std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() < seconds) {
    const std::string doc = mutate(seeds[tally.tried % seeds.size()], rng);
    ++tally.tried;
    try {
      read(doc);
      ++tally.accepted;
    } catch (const InputError&) {
      ++tally.refused;
    } catch (const std::exception& e) {
      FAIL("input #" << tally.tried << " (seed " << seed << ") escaped as " << e.what() << "\n---\n"
                     << doc << "\n---");
    }
  }
  return tally;
}

const char* kSuite = R"(schema_version: 1
suite: fuzz
description: every key once
candidates: [c.py]
defaults:
  dtype: float32
  atol: 0.001
  rtol: 0.01
  seeds: 3
  baselines: [eager, inductor]
  timeout_s: 60
  compile_timeout_s: 30
  run_timeout_s: 30
  memory_limit_gb: 4
  output_cap_mb: 1
  file_size_limit_gb: 1
  checks: standard
  min_custom_kernel_share: 0.5
  flag_speedup_above: 10
  alt_inputs: auto
  skip_checks: [forbidden_api]
  timing: {mode: cold, target_ci: 0.01, min_time_s: 0.1, max_time_s: 2, warmup: 2, min_samples: 5, max_samples: 100, samples_per_round: 3, input_sets: 2}
problems:
  - id: a
    file: p.py
    level: 2
    tags: [x, y]
    sizes: {cpu: {N: 8, S: 0.5}, cuda: {N: 4096}}
    alt_sizes: {cpu: {N: 16}}
    overrides: {seeds: 2, timing: {max_time_s: 1}}
  - id: b
    file: p.py
    candidates: c.py
)";

}  // namespace

TEST_CASE("fuzz: the suite loader accepts or refuses every mutant with an InputError") {
  test::TempDir dir;
  dir.write("p.py", "class Model: pass\n");
  dir.write("c.py", "class ModelNew: pass\n");
  const auto file = dir.path() / "suite.yaml";
  const Tally t = fuzz({kSuite}, 17, 4000, 20.0, [&](const std::string& doc) {
    dir.write("suite.yaml", doc);
    const Suite suite = load_suite(file);
    // What is accepted is within range: nothing non-finite gets past the loader.
    for (const auto& p : suite.problems) {
      CHECK(std::isfinite(p.settings.timeout_s));
      CHECK(std::isfinite(p.settings.output_cap_mb));
      CHECK(std::isfinite(p.settings.file_size_limit_gb));
    }
  });
  std::printf("fuzz suite loader: %zu inputs, %zu accepted, %zu refused (exit 2), 0 escaped\n",
              t.tried, t.accepted, t.refused);
  CHECK(t.tried >= 500);
  CHECK(t.refused > 0);
  CHECK(t.accepted > 0);
}

TEST_CASE("fuzz: the results reader accepts or refuses every mutant with an InputError") {
  const std::string compact = results_json(test::sample_report()).dump();
  const std::string pretty = results_json(test::sample_report()).dump(1);
  const Tally t = fuzz({compact, pretty}, 29, 4000, 20.0, [&](const std::string& doc) {
    const RunReport report = read_results_json(parse_json_text(doc, "fuzz.json"), "fuzz.json");
    // An accepted file writes back out (no non-finite statistic, no type confusion).
    CHECK_NOTHROW(results_json(report).dump());
  });
  std::printf("fuzz results reader: %zu inputs, %zu accepted, %zu refused (exit 2), 0 escaped\n",
              t.tried, t.accepted, t.refused);
  CHECK(t.tried >= 500);
  CHECK(t.refused > 0);
}
