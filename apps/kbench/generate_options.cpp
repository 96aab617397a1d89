#include "generate_options.hpp"

#ifdef KBENCH_WITH_GENERATE
#include "generate/candidate_generator.hpp"
#endif

namespace kbench::cli {

void add_generate_options(CLI::App& run, SuiteRunOptions& options) {
  auto& g = options.generation;
  const char* group = "Model endpoint (docs/endpoints.md)";
  run.add_option("--base-url", g.base_url,
                 "OpenAI-compatible endpoint's /v1 root; candidates come from it (overrides generate.base_url)")
      ->envname("KBENCH_BASE_URL")
      ->type_name("URL")
      ->group(group);
  run.add_option("--model", g.model, "Model name sent in each request (overrides generate.model)")
      ->type_name("NAME")
      ->group(group);
  run.add_option("--api-key-env", g.api_key_env,
                 "Environment variable holding the API key (default OPENAI_API_KEY; unset: no key sent)")
      ->type_name("VAR")
      ->group(group);
  run.add_option("--samples", g.samples, "Candidates asked for per problem (overrides generate.samples)")
      ->check(CLI::Range(1, 1000))
      ->group(group);
  run.add_option("--turns", g.turns, "Conversation turns per sample: after each evaluation the model gets the evaluator's feedback "
                 "and answers again (default 1)")
      ->check(CLI::Range(1, 20))
      ->group(group);
  run.add_option("--backend", g.backend, "Kernel language the prompt asks for: triton or cuda")
      ->group(group);
  run.add_option("--concurrency", g.concurrency, "Requests in flight at once (default 4)")
      ->check(CLI::Range(1, 256))
      ->group(group);
  run.add_flag("--no-cache", g.no_cache, "Ask the endpoint again instead of replaying cached replies")
      ->group(group);
  run.add_option("--generate-cache", g.cache_file,
                 "SQLite cache of replies (default $XDG_CACHE_HOME/kbench/generations.sqlite)")
      ->type_name("FILE")
      ->group(group);
  run.add_option("--prices", g.prices_file, "Price table (YAML, USD per 1M tokens) for cost figures")
      ->check(CLI::ExistingFile)
      ->type_name("FILE")
      ->group(group);
}

void attach_generator(SuiteRunOptions& options) {
#ifdef KBENCH_WITH_GENERATE
  options.generator = generate_candidates;
  options.follow_up = follow_up_generator;
#else
  (void)options;
#endif
}

}  // namespace kbench::cli
