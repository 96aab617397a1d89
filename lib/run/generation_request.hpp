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
  // Requests in flight and the tokens of those answered so far, whenever either changes (the
  // live progress line). May be empty.
  std::function<void(std::size_t requests_in_flight, long long tokens)> progress;
};

// $XDG_CACHE_HOME/kbench/generations.sqlite, else ~/.cache/kbench/generations.sqlite.
std::filesystem::path default_generation_cache_path();

// In suite order, samples 0..samples-1 of each problem.
using CandidateGenerator =
    std::function<std::vector<GeneratedCandidate>(const Suite& suite, const GenerationRequest& request)>;

// One earlier turn of a conversation (the agent loop, run/agent_loop.hpp): the model's reply and
// the evaluator's feedback on the candidate it held (run/turn_feedback.hpp).
struct TurnExchange {
  std::string reply;
  std::string feedback;
  std::string feedback_key;  // what the cache key uses in place of `feedback` (no timing figures)
};

// Turn history.size() + 1 of sample `sample` of `problem`: the first turn's messages, then each
// exchange as an assistant and a user message; one choice, from the cache or the endpoint.
// Called from several threads at once. Throws like CandidateGenerator.
using FollowUpGenerator = std::function<GeneratedCandidate(const Problem& problem, int sample,
                                                           const std::vector<TurnExchange>& history)>;
// Made once per run (one client, one cache, one price table for every later turn).
using FollowUpFactory = std::function<FollowUpGenerator(const GenerationRequest& request)>;

}  // namespace kbench
