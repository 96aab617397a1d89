#include "generate/candidate_generator.hpp"

#include <fmt/format.h>

#include <atomic>
#include <cstdlib>
#include <exception>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "generate/chat_client.hpp"
#include "generate/code_extraction.hpp"
#include "generate/generation_cache.hpp"
#include "generate/price_table.hpp"
#include "generate/generated_files.hpp"
#include "generate/prompt_template.hpp"

namespace kbench {
namespace {

std::string read_file(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the problem file", file.string()));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// One problem's missing samples, asked for by one thread, request after request.
struct Unit {
  std::size_t problem = 0;
  std::vector<int> missing;
};

std::string api_key_from_environment(const GenerateSettings& settings) {
  const char* value = std::getenv(settings.api_key_env.c_str());
  if (value && *value) return value;
  if (settings.api_key_env_given)
    throw InputError(fmt::format("the environment variable {} (api_key_env) is not set; export it "
                                 "with the endpoint's API key, or name another with --api-key-env",
                                 settings.api_key_env));
  return "";  // local servers (vLLM, SGLang, Ollama) need none
}

std::optional<PriceTable> load_prices(const GenerationRequest& options) {
  if (!options.prices_file) return std::nullopt;
  PriceTable prices = PriceTable::load(*options.prices_file);
  const auto& model = options.settings.model;
  if (!prices.has(model))
    throw InputError(fmt::format("{}: no prices for the model '{}' (add `{}: {{prompt: .., completion: ..}}`)",
                                 options.prices_file->string(), model, model));
  return prices;
}

EndpointOptions endpoint_options(const GenerationRequest& options) {
  const auto& settings = options.settings;
  EndpointOptions endpoint;
  endpoint.base_url = settings.base_url;
  endpoint.api_key = api_key_from_environment(settings);
  endpoint.timeouts = {settings.connect_timeout_s, settings.request_timeout_s};
  endpoint.retry.max_retries = settings.max_retries;
  endpoint.log = options.log;
  endpoint.sleep = options.sleep;
  endpoint.cancelled = options.cancelled;
  return endpoint;
}

}  // namespace

std::vector<ChatMessage> first_turn_messages(const Problem& problem, const GenerateSettings& settings,
                                             const std::string& device) {
  return render_prompt(prompt_template_file(settings),
                       {problem.id, read_file(problem.file), settings.backend, device});
}

std::vector<GeneratedCandidate> generate_candidates(const Suite& suite, const GenerationRequest& options) {
  const auto& settings = options.settings;
  const std::optional<PriceTable> prices = load_prices(options);
  auto log = [&](const std::string& line) {
    if (options.log) options.log(line);
  };
  std::vector<ChatRequest> requests;
  for (const auto& problem : suite.problems)
    requests.push_back({settings.model, first_turn_messages(problem, settings, device_facts(options.environment, options.device)), settings.sampling});

  std::optional<GenerationCache> cache;
  if (options.cache_file) cache.emplace(*options.cache_file);
  // samples[problem][k]: filled from the cache now, or by the request threads.
  std::vector<std::vector<std::optional<CachedSample>>> samples(suite.problems.size());
  std::vector<std::vector<bool>> from_cache(suite.problems.size());
  std::vector<Unit> units;
  std::size_t cached = 0;
  for (std::size_t p = 0; p < suite.problems.size(); ++p) {
    samples[p].resize(std::size_t(settings.samples));
    from_cache[p].assign(std::size_t(settings.samples), false);
    Unit unit{p, {}};
    for (int k = 0; k < settings.samples; ++k) {
      if (cache) samples[p][std::size_t(k)] = cache->find(sample_cache_key(requests[p], k));
      if (samples[p][std::size_t(k)]) {
        from_cache[p][std::size_t(k)] = true;
        ++cached;
      } else {
        unit.missing.push_back(k);
      }
    }
    if (!unit.missing.empty()) units.push_back(std::move(unit));
  }
  const std::size_t total = suite.problems.size() * std::size_t(settings.samples);
  log(fmt::format("kbench: generation: {} samples of {} problems from {} ({}): {} from the cache{}, "
                  "{} to ask for",
                  total, suite.problems.size(), settings.base_url, settings.model, cached,
                  cache ? "" : " (--no-cache)", total - cached));

  std::atomic<bool> failed{false};
  const ChatClient client(endpoint_options(options));

  std::mutex mutex;  // guards next_unit, first_failure, samples, log lines
  std::size_t next_unit = 0, requests_sent = 0, in_flight = 0, answered = cached;
  long long tokens = 0;
  std::exception_ptr first_failure;
  auto show_progress = [&] {  // under `mutex`
    if (options.progress) options.progress(in_flight, tokens);
  };
  auto work = [&] {
    for (;;) {
      Unit unit;
      {
        std::lock_guard lock(mutex);
        if (next_unit >= units.size() || failed || (options.stopping && options.stopping())) return;
        unit = units[next_unit++];
      }
      try {
        const auto& request = requests[unit.problem];
        std::size_t filled = 0;
        while (filled < unit.missing.size() && !failed) {
          const int first = unit.missing[filled];
          const int n = int(unit.missing.size() - filled);
          {
            std::lock_guard lock(mutex);
            ++in_flight;
            show_progress();
          }
          ChatReply reply;
          try {
            reply = client.complete(request, n, first);
          } catch (...) {
            std::lock_guard lock(mutex);
            --in_flight;
            throw;
          }
          if (reply.choices.empty())
            throw EnvironmentError(fmt::format("{}: the reply for problem '{}' has no choices", client.url(),
                                               suite.problems[unit.problem].id));
          const auto body = request_body(request, n, first);
          const std::string request_key = request_id(body);
          const std::size_t used = std::min(reply.choices.size(), std::size_t(n));
          std::lock_guard lock(mutex);
          ++requests_sent;
          --in_flight;
          tokens += reply.usage.total();
          answered += used;
          // A plain line per request (CI logs); the live line on a terminal.
          log(fmt::format("kbench: generation: {}/{} samples ({} request{} in flight, {} tokens so far)", answered,
                          total, in_flight, in_flight == 1 ? "" : "s", tokens));
          show_progress();
          for (std::size_t c = 0; c < used; ++c, ++filled) {
            const int k = unit.missing[filled];
            CachedSample sample{reply.choices[c].content, reply.choices[c].finish_reason,
                                reply.model.empty() ? settings.model : reply.model, request_key,
                                int(used), reply.usage, reply.raw};
            if (cache) cache->store(sample_cache_key(request, k), body, sample);
            samples[unit.problem][std::size_t(k)] = std::move(sample);
          }
        }
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!first_failure) first_failure = std::current_exception();
        failed = true;
        return;
      }
    }
  };
  std::vector<std::thread> threads;
  const std::size_t thread_count = std::min(units.size(), std::size_t(std::max(1, settings.concurrency)));
  for (std::size_t t = 0; t < thread_count; ++t) threads.emplace_back(work);
  for (auto& t : threads) t.join();
  if (first_failure) std::rethrow_exception(first_failure);
  if (options.stopping && options.stopping())
    throw Error(kExitInterrupted, "interrupted during generation; the replies received are in the cache, a "
                                  "re-run asks only for the rest");
  if (requests_sent) log(fmt::format("kbench: generation: {} requests answered", requests_sent));

  std::vector<GeneratedCandidate> out;
  for (std::size_t p = 0; p < suite.problems.size(); ++p)
    for (int k = 0; k < settings.samples; ++k)
      out.push_back(save_generated(options.output_dir, suite.problems[p].id, k, 1, *samples[p][std::size_t(k)],
                                   from_cache[p][std::size_t(k)], prices ? &*prices : nullptr, settings.model));
  return out;
}

FollowUpGenerator follow_up_generator(const GenerationRequest& options) {
  // Shared by every later turn of the run, from several agent threads at once: the client is
  // const and the cache serialises its connection.
  struct Shared {
    explicit Shared(const GenerationRequest& request)
        : options(request), prices(load_prices(request)), client(endpoint_options(request)),
          device(device_facts(request.environment, request.device)) {
      if (request.cache_file) cache.emplace(*request.cache_file);
    }
    GenerationRequest options;
    std::optional<PriceTable> prices;
    std::optional<GenerationCache> cache;
    ChatClient client;
    std::string device;
  };
  auto shared = std::make_shared<Shared>(options);
  return [shared](const Problem& problem, int sample, const std::vector<TurnExchange>& history) {
    const auto& settings = shared->options.settings;
    const int turn = int(history.size()) + 1;
    ChatRequest request{settings.model, first_turn_messages(problem, settings, shared->device), settings.sampling};
    ChatRequest replay = request;  // the cache's view: feedback without its timing figures
    for (const auto& exchange : history) {
      request.messages.push_back({"assistant", exchange.reply});
      request.messages.push_back({"user", exchange.feedback});
      replay.messages.push_back({"assistant", exchange.reply});
      replay.messages.push_back({"user", exchange.feedback_key});
    }
    const std::string key = sample_cache_key(replay, sample);
    std::optional<CachedSample> found = shared->cache ? shared->cache->find(key) : std::nullopt;
    const bool from_cache = found.has_value();
    if (!found) {
      if (shared->options.stopping && shared->options.stopping())
        throw Error(kExitInterrupted, "interrupted during generation; the replies received are in the cache, a "
                                      "re-run asks only for the rest");
      // One choice: a conversation has one next turn. The seed moves with the sample index.
      const ChatReply reply = shared->client.complete(request, 1, sample);
      if (reply.choices.empty())
        throw EnvironmentError(fmt::format("{}: the reply for problem '{}' (sample {}, turn {}) has no choices",
                                           shared->client.url(), problem.id, sample, turn));
      const auto body = request_body(request, 1, sample);
      found = CachedSample{reply.choices[0].content, reply.choices[0].finish_reason,
                           reply.model.empty() ? settings.model : reply.model, request_id(body), 1,
                           reply.usage, reply.raw};
      if (shared->cache) shared->cache->store(key, body, *found);
    }
    return save_generated(shared->options.output_dir, problem.id, sample, turn, *found, from_cache,
                          shared->prices ? &*shared->prices : nullptr, settings.model);
  };
}

}  // namespace kbench
