#pragma once
// Prompt templates (configs/prompts/, docs/endpoints.md#prompts): text with `@@ system` /
// `@@ user` lines opening messages (no such line: one user message) and placeholders
// {{problem_id}}, {{problem_source}}, {{backend}}, {{backend_rules}}, {{device}}.
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/device.hpp"
#include "generate/chat_request.hpp"
#include "suite/generate_settings.hpp"

namespace kbench {

struct PromptInputs {
  std::string problem_id;
  std::string problem_source;
  std::string backend;  // "triton" or "cuda"
  std::string device;   // device_facts()
};

// $KBENCH_PROMPTS_DIR, else PREFIX/share/kbench/prompts of an installed kbench, else the
// checkout's configs/prompts.
std::filesystem::path prompts_dir();

// The template file `settings.prompt` names (a path, or a built-in name for the backend).
std::filesystem::path prompt_template_file(const GenerateSettings& settings);

// The target as the prompt states it, from the probe's environment (device_name, sm_count,
// gpu_memory_bytes, compute_capability): "NVIDIA H200 (132 SMs, 139.8 GiB, compute capability
// 9.0)"; on the CPU "CPU: <model> (no GPU: ...)".
std::string device_facts(const nlohmann::json& environment, const Device& device);

// Fills the template. Throws InputError (file:line) for an unknown placeholder or a missing file.
std::vector<ChatMessage> render_prompt(const std::filesystem::path& template_file, const PromptInputs& inputs);

// The messages as one text, as `kbench prompt` prints them.
std::string prompt_text(const std::vector<ChatMessage>& messages);

}  // namespace kbench
