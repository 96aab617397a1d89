#include "run/agent_loop.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <thread>

#include "core/error.hpp"
#include "run/generated_results.hpp"
#include "run/job_planning.hpp"
#include "run/turn_feedback.hpp"

namespace kbench {
namespace {

using ConversationKey = std::pair<std::string, int>;  // (problem id, sample)

struct Conversation {
  const Problem* problem = nullptr;
  std::vector<std::string> replies;   // replies[t - 1]: the model's reply of turn t
  std::vector<TurnExchange> history;  // the turns evaluated so far, with their feedback
};

}  // namespace

struct AgentLoop::State {
  const Suite& suite;
  AgentSettings settings;
  RunSession* session = nullptr;
  std::mutex mutex;  // guards everything below
  std::condition_variable wake;
  std::map<ConversationKey, Conversation> conversations;
  std::deque<ConversationKey> next_turns;  // conversations whose next turn is to be asked for
  std::size_t finished = 0;                // conversations with all their turns evaluated
  std::size_t in_flight = 0;               // requests being asked for now
  std::int64_t tokens = 0;                 // of the later turns' requests sent now
  bool stop = false;
  std::vector<std::thread> threads;

  State(const Suite& s, AgentSettings a) : suite(s), settings(std::move(a)) {}

  // Called without `mutex`: the session's lock is taken before the agent's in on_result.
  void show_generation(std::size_t requests, std::int64_t sent_tokens) {
    if (session) session->note_generation(requests, sent_tokens);
  }

  // One agent thread: a conversation's next turn, asked for and pushed, then the next.
  void work() {
    for (;;) {
      ConversationKey key;
      const Problem* problem = nullptr;
      std::vector<TurnExchange> history;
      {
        std::unique_lock lock(mutex);
        wake.wait(lock, [&] { return stop || !next_turns.empty(); });
        if (stop) return;
        key = next_turns.front();
        next_turns.pop_front();
        const auto& conversation = conversations.at(key);
        problem = conversation.problem;
        history = conversation.history;
        ++in_flight;
      }
      // After the first Ctrl-C no new turn is asked for; the session stops on its own.
      if (settings.stopping && settings.stopping()) {
        std::lock_guard lock(mutex);
        --in_flight;
        continue;
      }
      try {
        show_generation(in_flight_now(), tokens_now());
        GeneratedCandidate candidate = settings.next_turn(*problem, key.second, history);
        Job job = plan_generated_jobs(suite, settings.device, {candidate}).front();
        {
          std::lock_guard lock(mutex);
          conversations.at(key).replies.push_back(candidate.reply);
          --in_flight;
          if (!candidate.origin.from_cache) tokens += candidate.origin.usage.total();
        }
        show_generation(in_flight_now(), tokens_now());
        // Without the agent's lock: a push the journal answers calls on_result at once.
        if (candidate.source_file) session->push(std::move(job));
        else session->record(no_code_result(job));
      } catch (const Error& e) {
        std::lock_guard lock(mutex);
        --in_flight;
        if (e.code() == kExitInterrupted) continue;  // Ctrl-C: the session stops by itself
        session->fail(std::current_exception());
        stop = true;
        wake.notify_all();
        return;
      } catch (...) {
        std::lock_guard lock(mutex);
        --in_flight;
        session->fail(std::current_exception());
        stop = true;
        wake.notify_all();
        return;
      }
    }
  }

  std::size_t in_flight_now() {
    std::lock_guard lock(mutex);
    return in_flight;
  }
  std::int64_t tokens_now() {
    std::lock_guard lock(mutex);
    return tokens;
  }

  void stop_threads() {
    {
      std::lock_guard lock(mutex);
      stop = true;
    }
    wake.notify_all();
    for (auto& t : threads)
      if (t.joinable()) t.join();
    threads.clear();
  }
};

AgentLoop::AgentLoop(const Suite& suite, AgentSettings settings)
    : state_(std::make_unique<State>(suite, std::move(settings))) {
  if (state_->settings.turns < 2) throw std::logic_error("AgentLoop needs turns >= 2");
}

AgentLoop::~AgentLoop() { state_->stop_threads(); }

void AgentLoop::on_result(const JobResult& result) {
  auto& s = *state_;
  if (!result.job.origin) return;
  const ConversationKey key{result.job.problem_id, result.job.origin->sample};
  const int turn = result.job.origin->turn;
  std::lock_guard lock(s.mutex);
  auto it = s.conversations.find(key);
  if (it == s.conversations.end()) return;
  auto& conversation = it->second;
  if (turn >= s.settings.turns) {
    if (++s.finished == s.conversations.size()) s.session->close();
    return;
  }
  // The reply of this turn with what the evaluator says of it: the next request's last messages.
  const TurnFeedback feedback = turn_feedback(result);
  conversation.history.push_back({conversation.replies.at(std::size_t(turn - 1)), feedback.text, feedback.replay_key});
  s.next_turns.push_back(key);
  s.wake.notify_one();
}

RunReport AgentLoop::run(RunSession& session, const std::vector<GeneratedCandidate>& first_turn) {
  auto& s = *state_;
  std::vector<JobResult> no_code;
  {
    std::lock_guard lock(s.mutex);
    s.session = &session;
    for (const auto& candidate : first_turn) {
      const auto problem = std::find_if(s.suite.problems.begin(), s.suite.problems.end(),
                                        [&](const Problem& p) { return p.id == candidate.problem_id; });
      auto& conversation = s.conversations[{candidate.problem_id, candidate.origin.sample}];
      conversation.problem = &*problem;
      conversation.replies = {candidate.reply};
      if (!candidate.source_file)
        no_code.push_back(no_code_result(plan_generated_jobs(s.suite, s.settings.device, {candidate}).front()));
    }
  }
  session.expect(s.conversations.size() * std::size_t(s.settings.turns));
  if (s.conversations.empty()) session.close();
  for (int t = 0; t < std::max(1, s.settings.concurrency); ++t) s.threads.emplace_back([&s] { s.work(); });
  for (auto& result : no_code) session.record(std::move(result));
  RunReport report;
  try {
    report = session.run();
  } catch (...) {
    s.stop_threads();
    throw;
  }
  s.stop_threads();
  return report;
}

}  // namespace kbench
