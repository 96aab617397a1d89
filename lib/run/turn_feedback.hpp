#pragma once
// What the model is told about its last candidate before it answers again (the agent loop,
// docs/endpoints.md#turns): the verdict, the evaluator's evidence (compile error, traceback,
// mismatch figures, the integrity check that rejected it) and, when it was correct, its time
// against eager and Inductor. Built only from the result, with rounded figures, so a result read
// back from the journal gives the same text and the next turn's request hits the cache.
#include <cstddef>
#include <string>

#include "model/job_result.hpp"

namespace kbench {

struct TurnFeedback {
  std::string text;        // sent to the model
  std::string replay_key;  // the verdict of `text` (status, message), without figures, details, output
};

// At most about `max_chars` characters (long tracebacks keep their end, where the error is).
TurnFeedback turn_feedback(const JobResult& result, std::size_t max_chars = 6000);

}  // namespace kbench
