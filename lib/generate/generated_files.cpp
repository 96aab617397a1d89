#include "generate/generated_files.hpp"

#include <fmt/format.h>

#include <fstream>

#include "core/error.hpp"
#include "generate/code_extraction.hpp"

namespace kbench {

void write_atomically(const std::filesystem::path& file, const std::string& text) {
  const auto temp = file.string() + ".tmp";
  {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw EnvironmentError(fmt::format("cannot write {}", temp));
  }
  std::filesystem::rename(temp, file);
}

GeneratedCandidate save_generated(const std::filesystem::path& output_dir, const std::string& problem_id,
                                  int sample_index, int turn, const CachedSample& sample, bool from_cache,
                                  const PriceTable* prices, const std::string& model) {
  const auto dir = output_dir / problem_id;
  std::filesystem::create_directories(dir);
  const std::string stem = fmt::format("sample-{}-turn-{}", sample_index, turn);
  GeneratedCandidate generated;
  generated.problem_id = problem_id;
  generated.reply = sample.content;
  auto& origin = generated.origin;
  origin.sample = sample_index;
  origin.turn = turn;
  origin.model = sample.model;
  origin.request = sample.request;
  origin.choices_in_request = sample.choices_in_request;
  origin.from_cache = from_cache;
  origin.usage = sample.usage;
  if (prices) origin.cost_usd = prices->cost_usd(model, sample.usage);
  origin.reply_file = dir / (stem + ".reply.json");
  const ExtractedCode code = extract_code(sample.content);
  origin.extraction = code.rule;
  if (code.code) {
    generated.source_file = dir / (stem + ".py");
    write_atomically(*generated.source_file, *code.code);
  }
  const nlohmann::json reply_record = {
      {"problem", problem_id},          {"sample", sample_index},
      {"turn", turn},                   {"model", sample.model},
      {"request", sample.request},      {"from_cache", from_cache},
      {"finish_reason", sample.finish_reason}, {"usage", to_json(sample.usage)},
      {"extraction", code.rule},        {"content", sample.content},
      {"reply", sample.reply}};
  write_atomically(origin.reply_file, reply_record.dump(2) + "\n");
  return generated;
}

}  // namespace kbench
