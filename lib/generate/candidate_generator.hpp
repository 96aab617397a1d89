#pragma once
// Candidates from a model endpoint (docs/endpoints.md): for each problem, the prompt is rendered,
// `samples` replies are taken from the cache or asked for (one request with n, more when the
// server returns fewer choices), at most `concurrency` requests in flight, and each reply is
// saved beside the results with the code extracted from it:
//   <output_dir>/<problem>/sample-<k>-turn-<t>.py          the candidate (absent: no code)
//   <output_dir>/<problem>/sample-<k>-turn-<t>.reply.json  the reply, its usage and extraction
// Later turns (the agent loop) extend the conversation of one (problem, sample) with the
// evaluator's feedback: ChatRequest::messages grows, and the cache key follows.
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "generate/chat_request.hpp"
#include "run/generation_request.hpp"

namespace kbench {

// In suite order, samples 0..samples-1 per problem. The API key is read here from
// settings.api_key_env (unset: no key is sent, or InputError when the variable was named
// explicitly). Throws InputError (bad template, a 4xx, a model missing from the price table),
// EnvironmentError (retries ran out), Error(kExitInterrupted); samples finished before then are
// in the cache.
std::vector<GeneratedCandidate> generate_candidates(const Suite& suite, const GenerationRequest& request);

// The generator of later turns (run/generation_request.hpp): one request with n = 1 per turn,
// served from the cache when it has the same conversation. Throws like generate_candidates,
// InputError already here for a bad price table or an unset api_key_env.
FollowUpGenerator follow_up_generator(const GenerationRequest& request);

// The messages of a problem's first turn, exactly as sent (also for `kbench prompt`).
std::vector<ChatMessage> first_turn_messages(const Problem& problem, const GenerateSettings& settings,
                                             const std::string& device);

}  // namespace kbench
