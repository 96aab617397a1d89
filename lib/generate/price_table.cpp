#include "generate/price_table.hpp"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>

#include "core/error.hpp"
#include "core/text.hpp"
#include "suite/yaml_value.hpp"

namespace kbench {

PriceTable PriceTable::load(const std::filesystem::path& file) {
  PriceTable table;
  table.file_ = file;
  YAML::Node root;
  try {
    root = YAML::LoadFile(file.string());
  } catch (const YAML::BadFile&) {
    throw InputError(fmt::format("{}: cannot open the price table (--prices)", file.string()));
  } catch (const YAML::ParserException& e) {
    throw InputError(fmt::format("{}:{}:{}: YAML syntax error: {}", file.string(), e.mark.line + 1,
                                 e.mark.column + 1, e.msg));
  }
  auto fail = [&](const YAML::Node& node, const std::string& what) {
    const auto mark = node.Mark();
    throw InputError(fmt::format("{}:{}:{}: {}", file.string(), mark.line + 1, mark.column + 1, what));
  };
  if (!root.IsMap()) fail(root, "a price table maps model names to {prompt, cached_prompt, completion} (USD per 1M tokens)");
  const std::vector<std::string> keys = {"prompt", "cached_prompt", "completion"};
  for (const auto& entry : root) {
    const auto model = entry.first.as<std::string>();
    if (!entry.second.IsMap()) fail(entry.second, fmt::format("'{}': expected {{prompt: .., completion: ..}}", model));
    TokenPrices prices;
    bool cached_given = false;
    for (const auto& item : entry.second) {
      const auto key = item.first.as<std::string>();
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) {
        const auto hint = closest_match(key, keys);
        fail(item.first, fmt::format("unknown price '{}'{}; use: {}", key,
                                     hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint),
                                     join(keys, ", ")));
      }
      const auto value = item.second.IsScalar() ? yaml_scalar_number(item.second.Scalar()) : std::nullopt;
      if (!value || !std::isfinite(*value) || *value < 0)
        fail(item.second, fmt::format("'{}' must be a finite number >= 0 (USD per 1M tokens)", key));
      (key == "prompt" ? prices.prompt : key == "completion" ? prices.completion : prices.cached_prompt) = *value;
      cached_given |= key == "cached_prompt";
    }
    if (!cached_given) prices.cached_prompt = prices.prompt;
    table.prices_[model] = prices;
  }
  return table;
}

std::optional<double> PriceTable::cost_usd(const std::string& model, const TokenUsage& usage) const {
  const auto it = prices_.find(model);
  if (it == prices_.end()) return std::nullopt;
  const auto& p = it->second;
  const double uncached = double(std::max(0LL, usage.prompt - usage.cached));
  return (uncached * p.prompt + double(usage.cached) * p.cached_prompt +
          double(usage.completion) * p.completion) / 1e6;
}

}  // namespace kbench
