#pragma once
// The multi-turn agent (`--turns K`, docs/endpoints.md#turns) on a RunSession: every (problem,
// sample) is a conversation. Its turn-1 candidate is evaluated; each result goes back to the
// model as feedback (run/turn_feedback.hpp) and the reply is evaluated as the next turn, until K
// turns. Every turn is kept and reported; the per-turn figures are report/turn_metrics.hpp's.
//
// Threads: the session's result callback only files a conversation's next turn; `concurrency`
// agent threads ask the model (cache first) and push the job, so a slow reply never holds up
// the worker slots, and turns of different problems and samples overlap. The last result of
// the last conversation closes the session. The first Ctrl-C asks for no new turn (in-flight
// replies finish into the cache); a failed request ends the run with its error.
#include <memory>
#include <vector>

#include "device/device.hpp"
#include "model/candidate_origin.hpp"
#include "run/generation_request.hpp"
#include "run/run_session.hpp"
#include "suite/suite.hpp"

namespace kbench {

struct AgentSettings {
  int turns = 2;        // >= 2
  int concurrency = 4;  // agent threads: requests in flight for later turns
  Device device;        // the jobs' planned device (resolve_devices().front())
  FollowUpGenerator next_turn;
  std::function<bool()> stopping;  // the first Ctrl-C; may be empty
};

class AgentLoop {
 public:
  AgentLoop(const Suite& suite, AgentSettings settings);
  ~AgentLoop();
  AgentLoop(const AgentLoop&) = delete;
  AgentLoop& operator=(const AgentLoop&) = delete;

  // For SessionSetup::on_result: files the conversation's next turn, or counts it finished.
  void on_result(const JobResult& result);

  // Evaluates `first_turn` (generate_candidates' list) and every later turn in `session`,
  // which must have been made with on_result above and the turn-1 jobs that have code as its
  // plan. Returns the session's report.
  RunReport run(RunSession& session, const std::vector<GeneratedCandidate>& first_turn);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace kbench
