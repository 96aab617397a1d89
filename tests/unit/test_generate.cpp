// lib/generate against a real HTTP server on the loopback (tests/endpoint/scripted_openai.py):
// the chat client's retries and errors, code extraction, the cache, and generate_candidates.
#include <cstdlib>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "catch.hpp"
#include "core/error.hpp"
#include "exec/sandbox.hpp"
#include "generate/candidate_generator.hpp"
#include "generate/chat_client.hpp"
#include "generate/code_extraction.hpp"
#include "generate/generation_cache.hpp"
#include "generate/price_table.hpp"
#include "generate/prompt_template.hpp"
#include "generate/retry_policy.hpp"
#include "scripted_openai_server.hpp"
#include "suite/number_range.hpp"
#include "temp_dir.hpp"

using namespace kbench;
using nlohmann::json;

namespace {

const char* kSecret = "sk-test-4b1d-secret-never-written";

ChatRequest simple_request() {
  ChatRequest r;
  r.model = "scripted-model";
  r.messages = {{"system", "be brief"}, {"user", "write ModelNew"}};
  r.sampling.temperature = 0.7;
  r.sampling.max_completion_tokens = 500;
  r.sampling.reasoning_effort = "low";
  r.sampling.stop = {"</answer>"};
  return r;
}

EndpointOptions endpoint(const test::ScriptedOpenAI& server, std::vector<double>* slept = nullptr) {
  EndpointOptions o;
  o.base_url = server.base_url() + "/";
  o.api_key = kSecret;
  o.timeouts = {5, 10};
  o.retry.max_retries = 3;
  o.sleep = [slept](double s) {
    if (slept) slept->push_back(s);
  };
  return o;
}

// The message of what `f` throws as E ("" when it throws nothing).
template <typename E, typename F>
std::string error_of_type(F&& f) {
  try {
    f();
  } catch (const E& e) {
    return e.what();
  }
  return "";
}

double sum(const std::vector<double>& v) {
  double total = 0;
  for (double x : v) total += x;
  return total;
}

const std::string kGoodCode =
    "import torch\n\nclass ModelNew(torch.nn.Module):\n    def forward(self, x):\n        return x + 1\n";

// A suite of `count` copies of tests/data/problems/add_one.py with a generate: block.
std::filesystem::path write_suite(const test::TempDir& dir, int count, const std::string& generate) {
  std::string yaml = "suite: gen\ngenerate:\n" + generate + "problems:\n";
  for (int i = 0; i < count; ++i)
    yaml += "  - {id: p" + std::to_string(i) + ", file: " + (test::kDataDir / "problems/add_one.py").string() + "}\n";
  return dir.write("suite.yaml", yaml);
}

// What loading a one-problem suite with this generate: block says, or "no error".
std::string generate_block_error(const test::TempDir& dir, const std::string& block) {
  try {
    load_suite(write_suite(dir, 1, block));
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

GenerationRequest request_for(const Suite& suite, const test::TempDir& dir, bool cache = true) {
  GenerationRequest r;
  r.settings = *suite.generate;
  r.output_dir = dir.path() / "out.generated";
  if (cache) r.cache_file = dir.path() / "cache.sqlite";
  r.environment = {{"device_name", "Test CPU"}};
  r.device = cpu_device();
  r.sleep = [](double) {};
  return r;
}

}  // namespace

TEST_CASE("code extraction: the last Python block defining ModelNew") {
  const std::string reply = "Plan:\n```cpp\nint main() {}\n```\nDraft:\n```python\nx = 1\n```\nFinal:\n"
                            "```python\n" + kGoodCode + "```\nA helper:\n```py\ndef helper(): pass\n```\n";
  const auto code = extract_code(reply);
  REQUIRE(code.code);
  CHECK(*code.code == kGoodCode);
  CHECK(code.blocks == 4);
  CHECK(code.rule.find("block 3 of 4") != std::string::npos);

  SECTION("no block defines ModelNew: the last Python block") {
    const auto c = extract_code("```python\na = 1\n```\n```\nb = 2\n```\n```cuda\n__global__ void k(){}\n```");
    REQUIRE(c.code);
    CHECK(*c.code == "b = 2\n");
  }
  SECTION("no code") {
    CHECK_FALSE(extract_code("I cannot help with that.").code);
    CHECK_FALSE(extract_code("").code);
    CHECK(extract_code("  \n").rule == "the reply is empty");
    CHECK_FALSE(extract_code("```cpp\nint x;\n```").code);
  }
  SECTION("unfenced, thinking, cut off, tildes") {
    CHECK(*extract_code(kGoodCode).code == kGoodCode);
    CHECK(*extract_code("<think>```python\nclass ModelNew: wrong\n```</think>```python\n" + kGoodCode + "```")
               .code == kGoodCode);
    CHECK(*extract_code("```python\n" + kGoodCode).code == kGoodCode);  // max_tokens cut the fence
    CHECK(*extract_code("~~~python\n" + kGoodCode + "~~~\n").code == kGoodCode);
  }
}

TEST_CASE("retry policy: transient statuses, retry-after, backoff with jitter") {
  for (long s : {408L, 409L, 429L, 500L, 502L, 503L, 599L}) CHECK(is_retryable_status(s));
  for (long s : {400L, 401L, 403L, 404L, 422L, 200L}) CHECK_FALSE(is_retryable_status(s));
  CHECK(*parse_retry_after("7", 0) == 7);
  CHECK(*parse_retry_after("Thu, 01 Jan 1970 00:01:40 GMT", 40) == Catch::Approx(60));
  CHECK_FALSE(parse_retry_after("soon", 0));
  CHECK_FALSE(parse_retry_after("-3", 0));
  RetryPolicy p;
  CHECK(retry_delay_s(p, 1, 2.5, 0.3) == 2.5);
  CHECK(retry_delay_s(p, 1, 1e6, 0.3) == p.max_retry_after_s);
  CHECK(retry_delay_s(p, 1, std::nullopt, 0.0) == Catch::Approx(0.5));
  CHECK(retry_delay_s(p, 3, std::nullopt, 1.0) == Catch::Approx(4.0));
  CHECK(retry_delay_s(p, 30, std::nullopt, 1.0) == Catch::Approx(p.max_backoff_s));
}

TEST_CASE("chat client: success, parameters, usage and the bearer key") {
  test::ScriptedOpenAI server(json{{"default", {{"content", "```python\n" + kGoodCode + "```"}}}});
  const ChatClient client(endpoint(server));
  const auto reply = client.complete(simple_request(), 1, 0);
  REQUIRE(reply.choices.size() == 1);
  CHECK(*extract_code(reply.choices[0].content).code == kGoodCode);
  CHECK(reply.usage.prompt == 11);
  CHECK(reply.usage.completion == 7);
  CHECK(reply.usage.reasoning == 2);
  CHECK(reply.usage.cached == 3);
  const auto requests = server.requests();
  REQUIRE(requests.size() == 1);
  const auto& r = requests[0];
  CHECK(r["path"] == "/v1/chat/completions");
  CHECK(r["headers"]["Authorization"] == std::string("Bearer ") + kSecret);
  CHECK(r["body"]["model"] == "scripted-model");
  CHECK(r["body"]["temperature"] == 0.7);
  CHECK(r["body"]["max_completion_tokens"] == 500);
  CHECK(r["body"]["reasoning_effort"] == "low");
  CHECK(r["body"]["stop"] == json::array({"</answer>"}));
  CHECK_FALSE(r["body"].contains("n"));
  CHECK(r["body"]["messages"].size() == 2);
}

TEST_CASE("chat client: 429 with retry-after, then success") {
  test::ScriptedOpenAI server(json{{"responses", {{{"status", 429}, {"headers", {{"retry-after", "2"}}}}}},
                               {"default", {{"content", "ok"}}}});
  std::vector<double> slept;
  const auto reply = ChatClient(endpoint(server, &slept)).complete(simple_request(), 1, 0);
  CHECK(reply.choices.at(0).content == "ok");
  CHECK(reply.attempts == 2);
  CHECK(sum(slept) == Catch::Approx(2.0));  // the server's wait, not the backoff's
  CHECK(server.requests().size() == 2);
}

TEST_CASE("chat client: 500s until the retries run out") {
  test::ScriptedOpenAI server(json{{"default", {{"status", 500}, {"error", "overloaded"}}}});
  std::vector<double> slept;
  const auto m = error_of_type<EnvironmentError>(
      [&] { ChatClient(endpoint(server, &slept)).complete(simple_request(), 1, 0); });
  CHECK(m.find("giving up after 4 tries") != std::string::npos);
  CHECK(m.find("HTTP 500: overloaded") != std::string::npos);
  CHECK(server.requests().size() == 4);
  // Exponential: 1, 2, 4 s, each halved at most by the jitter.
  CHECK(sum(slept) >= 3.5);
  CHECK(sum(slept) <= 7.0 + 1e-9);
}

TEST_CASE("chat client: a dropped connection and malformed JSON are retried") {
  test::ScriptedOpenAI server(json{{"responses", {{{"drop", true}}, {{"raw_body", "{\"choices\": [tru"}}}},
                               {"default", {{"content", "fine"}}}});
  const auto reply = ChatClient(endpoint(server)).complete(simple_request(), 1, 0);
  CHECK(reply.choices.at(0).content == "fine");
  CHECK(reply.attempts == 3);
  SECTION("malformed every time: the error says so") {
    test::ScriptedOpenAI bad(json{{"default", {{"raw_body", "<html>gateway</html>"}}}});
    auto options = endpoint(bad);
    options.retry.max_retries = 1;
    CHECK(error_of_type<EnvironmentError>([&] { ChatClient(options).complete(simple_request(), 1, 0); })
              .find("the reply is not JSON") != std::string::npos);
  }
}

TEST_CASE("chat client: a slow reply hits the request timeout") {
  test::ScriptedOpenAI server(json{{"default", {{"delay_s", 3}, {"content", "late"}}}});
  auto options = endpoint(server);
  options.timeouts.request_s = 0.5;
  options.retry.max_retries = 1;
  CHECK(error_of_type<EnvironmentError>([&] { ChatClient(options).complete(simple_request(), 1, 0); })
            .find("no complete reply within 0.5 s") != std::string::npos);
}

TEST_CASE("chat client: another 4xx is one clear error, the key scrubbed from it") {
  test::ScriptedOpenAI server(
      json{{"default", {{"status", 401}, {"error", std::string("Incorrect API key provided: ") + kSecret}}}});
  try {
    ChatClient(endpoint(server)).complete(simple_request(), 1, 0);
    FAIL("no error");
  } catch (const InputError& e) {
    const std::string m = e.what();
    CHECK(m.find("HTTP 401") != std::string::npos);
    CHECK(m.find("Incorrect API key provided") != std::string::npos);
    CHECK(m.find(kSecret) == std::string::npos);
  }
  CHECK(server.requests().size() == 1);  // not retried
}

TEST_CASE("the worker environment never holds the API key") {
  setenv("KBENCH_TEST_API_KEY", kSecret, 1);
  test::TempDir dir;
  SandboxOptions options;
  options.use_namespaces = false;
  const Sandbox sandbox(dir.path(), {}, options);
  for (char* const* e = sandbox.envp(); *e; ++e) {
    INFO(*e);
    CHECK(std::string(*e).find(kSecret) == std::string::npos);
  }
  unsetenv("KBENCH_TEST_API_KEY");
}

TEST_CASE("generate: n samples in one request; several when the server returns fewer") {
  test::TempDir dir;
  const auto suite = load_suite(write_suite(dir, 1, "  base_url: http://x/v1\n  model: m\n  samples: 3\n  seed: 40\n"));
  SECTION("one request with n") {
    test::ScriptedOpenAI server(json{{"default", {{"content", "```python\n" + kGoodCode + "# {choice}\n```"}}}});
    auto request = request_for(suite, dir);
    request.settings.base_url = server.base_url();
    const auto out = generate_candidates(suite, request);
    REQUIRE(out.size() == 3);
    const auto requests = server.requests();
    REQUIRE(requests.size() == 1);
    CHECK(requests[0]["body"]["n"] == 3);
    for (int k = 0; k < 3; ++k) {
      REQUIRE(out[std::size_t(k)].source_file);
      CHECK(out[std::size_t(k)].source_file->filename() == "sample-" + std::to_string(k) + "-turn-1.py");
      CHECK(out[std::size_t(k)].origin.choices_in_request == 3);
      std::ifstream in(*out[std::size_t(k)].source_file);
      std::string text((std::istreambuf_iterator<char>(in)), {});
      CHECK(text.find("# " + std::to_string(k)) != std::string::npos);
    }
  }
  SECTION("the server ignores n") {
    test::ScriptedOpenAI server(json{{"default", {{"content", "```python\n" + kGoodCode + "```"}, {"choices", 1}}}});
    auto request = request_for(suite, dir);
    request.settings.base_url = server.base_url();
    const auto out = generate_candidates(suite, request);
    REQUIRE(out.size() == 3);
    const auto requests = server.requests();
    REQUIRE(requests.size() == 3);
    std::set<int> ns, seeds;
    for (const auto& r : requests) {
      ns.insert(r["body"].value("n", 1));
      seeds.insert(r["body"]["seed"].get<int>());
    }
    CHECK(ns == std::set<int>{1, 2, 3});
    CHECK(seeds == std::set<int>{40, 41, 42});  // seed + first sample: the split requests differ
  }
}

TEST_CASE("generate: the concurrency limit is never exceeded (server side)") {
  test::TempDir dir;
  const auto suite = load_suite(write_suite(dir, 8, "  base_url: http://x/v1\n  model: m\n  concurrency: 3\n"));
  test::ScriptedOpenAI server(json{{"default", {{"content", "```python\n" + kGoodCode + "```"}, {"delay_s", 0.4}}}});
  auto request = request_for(suite, dir, false);
  request.settings.base_url = server.base_url();
  generate_candidates(suite, request);
  const auto requests = server.requests();
  REQUIRE(requests.size() == 8);
  int most = 0;
  for (const auto& r : requests) most = std::max(most, r["in_flight"].get<int>());
  CHECK(most <= 3);
  CHECK(most >= 2);  // it did run requests side by side
}

TEST_CASE("generate: empty content, no code block and several blocks; replies kept") {
  test::TempDir dir;
  const auto suite = load_suite(write_suite(dir, 3, "  base_url: http://x/v1\n  model: m\n"));
  test::ScriptedOpenAI server(
      json{{"routes",
        {{{"match", "`p0`"}, {"action", {{"content", ""}}}},
         {{"match", "`p1`"}, {"action", {{"content", "Sorry, I will not write code today."}}}},
         {{"match", "`p2`"},
          {"action", {{"content", "```python\nclass Model: pass\n```\n```python\n" + kGoodCode + "```\n```bash\nrun\n```"}}}}}}});
  auto request = request_for(suite, dir, false);
  request.settings.base_url = server.base_url();
  const auto out = generate_candidates(suite, request);
  REQUIRE(out.size() == 3);
  CHECK_FALSE(out[0].source_file);
  CHECK(out[0].origin.extraction == "the reply is empty");
  CHECK_FALSE(out[1].source_file);
  CHECK(out[1].origin.extraction == "no fenced code block in the reply");
  const auto kept = json::parse(std::ifstream(out[1].origin.reply_file));
  CHECK(kept["content"] == "Sorry, I will not write code today.");
  CHECK(kept["reply"]["choices"][0]["message"]["content"] == "Sorry, I will not write code today.");
  REQUIRE(out[2].source_file);
  std::ifstream in(*out[2].source_file);
  CHECK(std::string((std::istreambuf_iterator<char>(in)), {}) == kGoodCode);
}

TEST_CASE("generate: a cached re-run makes no request; an interrupted one resumes") {
  test::TempDir dir;
  const auto suite = load_suite(write_suite(dir, 4, "  base_url: http://x/v1\n  model: m\n  concurrency: 1\n"));
  {
    // The endpoint fails for good after two answers: generation stops, two samples are cached.
    test::ScriptedOpenAI server(json{{"responses", {{{"content", "```python\n" + kGoodCode + "```"}},
                                                {{"content", "```python\n" + kGoodCode + "```"}}}},
                                 {"default", {{"status", 400}, {"error", "quota"}}}});
    auto request = request_for(suite, dir);
    request.settings.base_url = server.base_url();
    REQUIRE_THROWS_AS(generate_candidates(suite, request), InputError);
    CHECK(server.requests().size() == 3);
  }
  test::ScriptedOpenAI server(json{{"default", {{"content", "```python\n" + kGoodCode + "```"}}}});
  auto request = request_for(suite, dir);
  request.settings.base_url = server.base_url();
  auto out = generate_candidates(suite, request);
  REQUIRE(out.size() == 4);
  CHECK(server.requests().size() == 2);  // only the two not answered before
  CHECK(out[0].origin.from_cache);
  CHECK(out[1].origin.from_cache);
  CHECK_FALSE(out[2].origin.from_cache);
  out = generate_candidates(suite, request);
  CHECK(server.requests().size() == 2);  // all from the cache now
  for (const auto& c : out) CHECK(c.origin.from_cache);
  SECTION("--no-cache asks again") {
    request.cache_file.reset();
    generate_candidates(suite, request);
    CHECK(server.requests().size() == 6);
  }
  SECTION("the cache holds no key") {
    std::ifstream in(dir.path() / "cache.sqlite", std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), {});
    CHECK(bytes.find(kSecret) == std::string::npos);
    CHECK(bytes.find("ModelNew") != std::string::npos);
  }
}

TEST_CASE("the generate: block is validated like the rest of the suite") {
  test::TempDir dir;
  auto error_of = [&](const std::string& block) { return generate_block_error(dir, block); };
  CHECK(error_of("  modle: m\n").find("suite.yaml:3:3: unknown key 'modle' in generate (did you mean 'model'?)") !=
        std::string::npos);
  // The words of every suite number (suite/number_range.cpp) since the block reads through it.
  CHECK(error_of("  temperature: .nan\n").find("`temperature` is not a number (NaN); it must be a number in [0, 2]") !=
        std::string::npos);
  CHECK(error_of("  top_p: 0\n").find("`top_p` must be a number in (0, 1], got 0") != std::string::npos);
  CHECK(error_of("  samples: 0\n").find("`samples` must be an integer in [1, 1000], got 0") != std::string::npos);
  CHECK(error_of("  backend: trition\n").find("did you mean 'triton'?") != std::string::npos);
  CHECK(error_of("  prompt: missing.md\n").find("prompt template") != std::string::npos);
  CHECK(error_of("  stop: [a, b, c, d, e]\n").find("at most 4") != std::string::npos);
  const auto suite = load_suite(write_suite(dir, 1, "  model: m\n  samples: 4\n  backend: cuda\n  seed: 7\n"));
  REQUIRE(suite.generate);
  CHECK(suite.generate->samples == 4);
  CHECK(suite.generate->backend == "cuda");
  CHECK(*suite.generate->sampling.seed == 7);
  CHECK(suite.problems.at(0).candidate_patterns.empty());  // no candidates: they are generated
}

// Issue 17: every number of the generate: block goes through the documented ranges
// (suite/number_range.cpp) like the other suite keys: NaN, infinities and negatives refused.
TEST_CASE("every number of the generate: block refuses nan, inf and negatives with its range") {
  test::TempDir dir;
  auto error_of = [&](const std::string& block) { return generate_block_error(dir, block); };
  for (const char* key : {"samples", "turns", "temperature", "top_p", "max_tokens", "max_completion_tokens",
                          "concurrency", "connect_timeout_s", "request_timeout_s", "max_retries"}) {
    for (const char* bad : {".nan", ".inf", "-.inf", "-1"}) {
      INFO(key << ": " << bad);
      const auto error = error_of(fmt::format("  {}: {}\n", key, bad));
      CHECK(error.find(fmt::format("suite.yaml:3:{}: `{}` ", 5 + std::string(key).size(), key)) != std::string::npos);
      CHECK(error.find(number_range(key).str()) != std::string::npos);
    }
  }
  CHECK(error_of("  max_retries: 2.5\n").find("`max_retries` must be an integer in [0, 100], got 2.5") !=
        std::string::npos);
  CHECK(error_of("  temperature: '1'\n").find("remove the quotes") != std::string::npos);
}

TEST_CASE("prompts: every built-in template renders with the problem, rules and device") {
  test::TempDir dir;
  const auto suite = load_suite(write_suite(dir, 1, "  model: m\n"));
  for (const char* backend : {"triton", "cuda"}) {
    for (const char* name : {"zero_shot", "one_shot"}) {
      GenerateSettings settings;
      settings.backend = backend;
      settings.prompt = name;
      const auto messages = first_turn_messages(
          suite.problems[0], settings,
          device_facts({{"device_name", "NVIDIA H200"}, {"sm_count", 132}, {"gpu_memory_bytes", 150754820096LL},
                        {"compute_capability", "9.0"}},
                       cuda_device(0)));
      REQUIRE(messages.size() == 2);
      CHECK(messages[0].role == "system");
      const auto& user = messages[1].content;
      CHECK(user.find("NVIDIA H200 (132 SMs, 140.4 GiB memory, compute capability 9.0)") != std::string::npos);
      CHECK(user.find("class Model") != std::string::npos);  // the problem source
      CHECK(user.find("`p0`") != std::string::npos);
      CHECK(user.find("Imports allowed") != std::string::npos);  // the rules
      CHECK(user.find("{{") == std::string::npos);
      CHECK((std::string(name) == "one_shot") == (user.find("a good answer is") != std::string::npos));
    }
  }
  CHECK(device_facts({{"device_name", "AMD EPYC"}}, cpu_device()).rfind("CPU: AMD EPYC (no GPU", 0) == 0);
  CHECK(device_facts({{"device_name", "CPU: AMD EPYC"}}, cpu_device()).rfind("CPU: AMD EPYC (no GPU", 0) == 0);
  const auto bad = dir.write("bad.md", "@@ user\nHello {{problem_sorce}}\n");
  GenerateSettings settings;
  settings.prompt = bad.string();
  CHECK(error_of_type<InputError>([&] { first_turn_messages(suite.problems[0], settings, "cpu"); })
            .find("bad.md:2: unknown placeholder {{problem_sorce}} (did you mean {{problem_source}}?)") !=
        std::string::npos);
}

TEST_CASE("price table: cost per request, cached prompt tokens cheaper") {
  test::TempDir dir;
  const auto file = dir.write("prices.yaml", "m: {prompt: 2.0, cached_prompt: 1.0, completion: 10.0}\n");
  const auto table = PriceTable::load(file);
  TokenUsage usage{1000, 500, 100, 200};
  CHECK(*table.cost_usd("m", usage) == Catch::Approx((800 * 2.0 + 200 * 1.0 + 500 * 10.0) / 1e6));
  CHECK_FALSE(table.cost_usd("other", usage));
  const auto bad = dir.write("bad.yaml", "m: {prompt: -1}\n");
  CHECK(error_of_type<InputError>([&] { PriceTable::load(bad); }).find("bad.yaml:1:") != std::string::npos);
}
