#include "run/generated_results.hpp"

#include <fmt/format.h>

#include <map>
#include <tuple>

namespace kbench {

JobResult no_code_result(const Job& job) {
  JobResult result;
  result.job = job;
  result.status = Status::no_code;
  result.message = fmt::format("the reply held no code ({}); kept in {}", job.origin->extraction,
                               job.origin->reply_file.string());
  return result;
}

std::function<bool(const JobResult&, const JobResult&)> generated_order(const Suite& suite) {
  std::map<std::string, std::size_t> position;
  for (std::size_t i = 0; i < suite.problems.size(); ++i) position.emplace(suite.problems[i].id, i);
  return [position](const JobResult& a, const JobResult& b) {
    auto rank = [&](const JobResult& r) {
      const auto it = position.find(r.job.problem_id);
      const std::size_t p = it == position.end() ? position.size() : it->second;
      return r.job.origin ? std::tuple(p, r.job.origin->sample, r.job.origin->turn) : std::tuple(p, 0, 0);
    };
    return rank(a) < rank(b);
  };
}

}  // namespace kbench
