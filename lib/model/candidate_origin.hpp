#pragma once
// Where a generated candidate came from: which sample and turn of which model, the request that
// produced it and what it cost. Files from disk have no origin. Travels in the Job and the
// results JSON (`generation` of a result, docs/results-format.md).
#include <filesystem>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/token_usage.hpp"

namespace kbench {

struct CandidateOrigin {
  int sample = 0;  // 0-based sample index within its problem
  int turn = 1;    // 1-based turn of the conversation
  std::string model;
  std::string request;  // hash of the canonical request that produced it (several samples may share one)
  int choices_in_request = 1;  // samples that request returned; its usage covers all of them
  bool from_cache = false;     // served from the generation cache: no request was sent now
  TokenUsage usage;            // of the whole request
  std::optional<double> cost_usd;  // of the whole request, from --prices
  std::filesystem::path reply_file;  // the raw reply, kept beside the results
  std::string extraction;            // which code block was taken, or why none (code_extraction)
};

// One candidate a model wrote: its file (nullopt when the reply held no code: status no_code).
struct GeneratedCandidate {
  std::string problem_id;
  std::optional<std::filesystem::path> source_file;  // nullopt: the reply held no code (no_code)
  CandidateOrigin origin;
  std::string reply;  // the reply's text: the assistant message of the next turn's conversation
};


}  // namespace kbench
