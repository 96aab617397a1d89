#include "service/evaluation.hpp"

#include "model/codec.hpp"

namespace kbench {

const std::vector<std::string>& evaluation_backends() {
  static const std::vector<std::string> names = {"auto", "triton", "cuda"};
  return names;
}

nlohmann::json to_json(const TimeSplit& time) {
  return {{"queue_wait_s", time.queue_wait_s},
          {"worker_wall_s", time.worker_wall_s},
          {"gpu_lock_wait_s", time.gpu_lock_wait_s},
          {"total_s", time.total_s},
          {"phases_s", time.phases_s}};
}

nlohmann::json evaluation_json(const Evaluation& evaluation) {
  const auto& r = evaluation.result;
  return {{"request_id", evaluation.request_id},
          {"session_id", evaluation.session_id ? nlohmann::json(*evaluation.session_id) : nlohmann::json()},
          {"backend", evaluation.backend},
          {"problem_id", r.job.problem_id},
          {"status", to_string(r.status)},
          {"message", r.message},
          {"time", to_json(evaluation.time)},
          {"feedback", evaluation.feedback},
          {"attempt", evaluation.attempt},
          {"result", result_json(r)}};
}

}  // namespace kbench
