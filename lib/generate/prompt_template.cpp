#include "generate/prompt_template.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "core/text.hpp"
#include "exec/worker_process.hpp"

namespace kbench {
namespace {

std::string read_text(const std::filesystem::path& file, const std::string& what) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the {}", file.string(), what));
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

const std::vector<std::string> kPlaceholders = {"problem_id", "problem_source", "backend",
                                                "backend_rules", "device"};

}  // namespace

std::filesystem::path prompts_dir() {
  if (const char* dir = std::getenv("KBENCH_PROMPTS_DIR"); dir && *dir) return dir;
  // Installed (cmake --install, the wheel): PREFIX/bin/kbench beside PREFIX/share/kbench/prompts.
  std::error_code ignored;
  const auto installed = self_executable().parent_path().parent_path() / "share" / "kbench" / "prompts";
  if (std::filesystem::is_directory(installed, ignored)) return installed;
  return std::filesystem::path(KBENCH_SOURCE_PROMPTS_DIR);
}

std::filesystem::path prompt_template_file(const GenerateSettings& settings) {
  const auto& names = builtin_prompt_names();
  if (std::find(names.begin(), names.end(), settings.prompt) != names.end())
    return prompts_dir() / fmt::format("{}-{}.md", settings.backend, settings.prompt);
  return settings.prompt;
}

std::string device_facts(const nlohmann::json& environment, const Device& device) {
  if (!device.is_cuda()) {
    std::string name = environment.value("device_name", std::string("unknown CPU"));
    if (name.rfind("CPU", 0) != 0) name = "CPU: " + name;
    return fmt::format("{} (no GPU: Triton kernels run in Triton's interpreter, so times say nothing "
                       "about GPU speed)",
                       name);
  }
  std::string facts = environment.value("device_name", std::string("an NVIDIA GPU"));
  std::vector<std::string> details;
  if (environment.contains("sm_count")) details.push_back(fmt::format("{} SMs", environment["sm_count"].get<int>()));
  if (environment.contains("gpu_memory_bytes"))
    details.push_back(fmt::format("{:.1f} GiB memory",
                                  environment["gpu_memory_bytes"].get<double>() / double(1ull << 30)));
  if (environment.contains("compute_capability"))
    details.push_back(fmt::format("compute capability {}", environment["compute_capability"].get<std::string>()));
  if (!details.empty()) facts += " (" + join(details, ", ") + ")";
  return facts;
}

std::vector<ChatMessage> render_prompt(const std::filesystem::path& template_file, const PromptInputs& inputs) {
  const std::string text = read_text(template_file, "prompt template");
  const std::string rules =
      read_text(prompts_dir() / fmt::format("rules-{}.md", inputs.backend), "backend rules");
  auto value_of = [&](const std::string& name) -> std::string {
    if (name == "problem_id") return inputs.problem_id;
    if (name == "problem_source") return inputs.problem_source;
    if (name == "backend") return inputs.backend;
    if (name == "backend_rules") return rules;
    return inputs.device;
  };
  std::vector<ChatMessage> messages;
  std::istringstream lines(text);
  std::string line;
  int number = 0;
  while (std::getline(lines, line)) {
    ++number;
    if (line.rfind("@@ ", 0) == 0) {
      const std::string role = line.substr(3);
      if (role != "system" && role != "user" && role != "assistant")
        throw InputError(fmt::format("{}:{}: unknown role '{}' (use @@ system, @@ user or @@ assistant)",
                                     template_file.string(), number, role));
      messages.push_back({role, ""});
      continue;
    }
    if (messages.empty()) messages.push_back({"user", ""});
    std::string filled;
    for (std::size_t at = 0;;) {
      const auto open = line.find("{{", at);
      if (open == std::string::npos) {
        filled += line.substr(at);
        break;
      }
      const auto close = line.find("}}", open);
      if (close == std::string::npos) {
        filled += line.substr(at);
        break;
      }
      const std::string name = line.substr(open + 2, close - open - 2);
      if (std::find(kPlaceholders.begin(), kPlaceholders.end(), name) == kPlaceholders.end()) {
        const auto hint = closest_match(name, kPlaceholders);
        throw InputError(fmt::format("{}:{}: unknown placeholder {{{{{}}}}}{}; use: {}", template_file.string(),
                                     number, name,
                                     hint.empty() ? "" : fmt::format(" (did you mean {{{{{}}}}}?)", hint),
                                     join(kPlaceholders, ", ")));
      }
      filled += line.substr(at, open - at);
      std::string value = value_of(name);
      while (!value.empty() && value.back() == '\n') value.pop_back();
      filled += value;
      at = close + 2;
    }
    messages.back().content += filled + "\n";
  }
  for (auto& m : messages)
    while (!m.content.empty() && m.content.back() == '\n') m.content.pop_back();
  if (messages.empty() || messages.back().content.empty())
    throw InputError(fmt::format("{}: the prompt template is empty", template_file.string()));
  return messages;
}

std::string prompt_text(const std::vector<ChatMessage>& messages) {
  std::string out;
  for (const auto& m : messages) out += fmt::format("@@ {}\n{}\n", m.role, m.content);
  return out;
}

}  // namespace kbench
