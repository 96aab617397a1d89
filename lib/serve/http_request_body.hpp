#pragma once
// The JSON bodies of `POST /evaluate` and `POST /evaluate/batch` (docs/serve.md#requests) read
// into the Evaluator's requests. Every way a body can be wrong is one BadRequestBody naming the
// JSON path (`requests[3].source: ...`), which the server answers with 400: not JSON, unknown
// keys (with a did-you-mean), missing fields, wrong types, a batch's repeated id. The values are
// the Evaluator's to judge (an unknown problem, a backend not offered, an id outside its URL-safe
// alphabet): it refuses them, and the server answers those with 400 too.
#include <cstddef>
#include <stdexcept>
#include <string>
#include <vector>

#include "service/evaluation.hpp"

namespace kbench {

struct BadRequestBody : std::runtime_error {
  using std::runtime_error::runtime_error;
};

inline constexpr std::size_t kMaxBatchRequests = 1024;

struct EvaluateCall {
  EvaluationRequest request;  // request_id always set (a fresh one when the body had none)
  bool wait = false;          // the body's `wait`, or ?wait=1
};

struct BatchCall {
  std::vector<EvaluationRequest> requests;  // each with its request_id set
  bool wait = false;
};

// `wait_query`: the URL asked to wait (?wait=1); the body's `wait` may also say so.
EvaluateCall evaluate_call_from_body(const std::string& body, bool wait_query);
// {"requests": [ {...}, ... ], "wait": bool}; 1 to kMaxBatchRequests entries.
BatchCall batch_call_from_body(const std::string& body, bool wait_query);

// A new request id ("h-" and 24 random hex digits) for a request that came without one: the
// server answers 202 with it before the evaluation ends, so it cannot wait for the Evaluator's.
std::string fresh_request_id();

}  // namespace kbench
