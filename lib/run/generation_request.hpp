#pragma once
// The seam between `kbench run` and the model endpoint: run_suite decides what to generate and
// where; the generator (lib/generate, built only with libcurl and SQLite) talks to the endpoint.
// A binary built without it leaves SuiteRunOptions::generator empty, and a suite that asks for
// generation then fails with one clear error.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "device/device.hpp"
#include "model/candidate_origin.hpp"
#include "suite/suite.hpp"

namespace kbench {

struct GenerationRequest {
  GenerateSettings settings;  // the suite's block with the CLI overrides applied, validated
  std::filesystem::path output_dir;  // <results>.generated/
  std::optional<std::filesystem::path> cache_file;  // nullopt: --no-cache
  std::optional<std::filesystem::path> prices_file;  // --prices
  nlohmann::json environment;  // the probe's: the target's facts for the prompt (device_facts)
  Device device;
  std::function<void(const std::string&)> log;  // may be empty
  // Ctrl-C, two stages like the evaluations: `stopping` (first signal) starts no new request and
  // lets those in flight finish into the cache; `cancelled` (second) drops them. May be empty.
  std::function<bool()> stopping;
  std::function<bool()> cancelled;
  std::function<void(double)> sleep;  // retry waits; empty: really sleep (tests shorten them)
};

// $XDG_CACHE_HOME/kbench/generations.sqlite, else ~/.cache/kbench/generations.sqlite.
std::filesystem::path default_generation_cache_path();

// In suite order, samples 0..samples-1 of each problem.
using CandidateGenerator =
    std::function<std::vector<GeneratedCandidate>(const Suite& suite, const GenerationRequest& request)>;

}  // namespace kbench
