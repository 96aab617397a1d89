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
#include "core/hmac_sha256.hpp"
#include "generate/chat_client.hpp"
#include "generate/code_extraction.hpp"
#include "generate/generation_cache.hpp"
#include "generate/price_table.hpp"
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

void write_atomically(const std::filesystem::path& file, const std::string& text) {
  const auto temp = file.string() + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw EnvironmentError(fmt::format("cannot write {}", temp));
  }
  std::filesystem::rename(temp, file);
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

}  // namespace

std::vector<ChatMessage> first_turn_messages(const Problem& problem, const GenerateSettings& settings,
                                             const std::string& device) {
  return render_prompt(prompt_template_file(settings),
                       {problem.id, read_file(problem.file), settings.backend, device});
}

std::vector<GeneratedCandidate> generate_candidates(const Suite& suite, const GenerationRequest& options) {
  const auto& settings = options.settings;
  std::optional<PriceTable> prices;
  if (options.prices_file) {
    prices = PriceTable::load(*options.prices_file);
    if (!prices->has(settings.model))
      throw InputError(fmt::format("{}: no prices for the model '{}' (add `{}: {{prompt: .., completion: ..}}`)",
                                   options.prices_file->string(), settings.model, settings.model));
  }
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

  EndpointOptions endpoint;
  endpoint.base_url = settings.base_url;
  endpoint.api_key = api_key_from_environment(settings);
  endpoint.timeouts = {settings.connect_timeout_s, settings.request_timeout_s};
  endpoint.retry.max_retries = settings.max_retries;
  endpoint.log = options.log;
  endpoint.sleep = options.sleep;
  std::atomic<bool> failed{false};
  endpoint.cancelled = options.cancelled;
  const ChatClient client(endpoint);

  std::mutex mutex;  // guards next_unit, first_failure, samples, log lines
  std::size_t next_unit = 0, requests_sent = 0;
  std::exception_ptr first_failure;
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
          const ChatReply reply = client.complete(request, n, first);
          if (reply.choices.empty())
            throw EnvironmentError(fmt::format("{}: the reply for problem '{}' has no choices", client.url(),
                                               suite.problems[unit.problem].id));
          const auto body = request_body(request, n, first);
          const std::string request_key = to_hex(sha256(body.dump())).substr(0, 16);
          const std::size_t used = std::min(reply.choices.size(), std::size_t(n));
          std::lock_guard lock(mutex);
          ++requests_sent;
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
  for (std::size_t p = 0; p < suite.problems.size(); ++p) {
    const auto& problem = suite.problems[p];
    const auto dir = options.output_dir / problem.id;
    std::filesystem::create_directories(dir);
    for (int k = 0; k < settings.samples; ++k) {
      const auto& sample = *samples[p][std::size_t(k)];
      const std::string stem = fmt::format("sample-{}-turn-1", k);
      GeneratedCandidate generated;
      generated.problem_id = problem.id;
      auto& origin = generated.origin;
      origin.sample = k;
      origin.turn = 1;
      origin.model = sample.model;
      origin.request = sample.request;
      origin.choices_in_request = sample.choices_in_request;
      origin.from_cache = from_cache[p][std::size_t(k)];
      origin.usage = sample.usage;
      if (prices) origin.cost_usd = prices->cost_usd(settings.model, sample.usage);
      origin.reply_file = dir / (stem + ".reply.json");
      const ExtractedCode code = extract_code(sample.content);
      origin.extraction = code.rule;
      if (code.code) {
        generated.source_file = dir / (stem + ".py");
        write_atomically(*generated.source_file, *code.code);
      }
      const nlohmann::json reply_record = {
          {"problem", problem.id},          {"sample", k},
          {"turn", 1},                      {"model", sample.model},
          {"request", sample.request},      {"from_cache", origin.from_cache},
          {"finish_reason", sample.finish_reason}, {"usage", to_json(sample.usage)},
          {"extraction", code.rule},        {"content", sample.content},
          {"reply", sample.reply}};
      write_atomically(origin.reply_file, reply_record.dump(2) + "\n");
      out.push_back(std::move(generated));
    }
  }
  return out;
}

}  // namespace kbench
