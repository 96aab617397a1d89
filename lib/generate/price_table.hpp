#pragma once
// Token prices for the optional cost figures (`kbench run --prices FILE`, docs/endpoints.md#cost):
// a YAML mapping of model name -> USD per million tokens:
//   gpt-4o: {prompt: 2.50, cached_prompt: 1.25, completion: 10.00}
// Reasoning tokens are billed as completion tokens (they are counted in them).
#include <filesystem>
#include <map>
#include <optional>
#include <string>

#include "core/token_usage.hpp"

namespace kbench {

struct TokenPrices {
  double prompt = 0;         // USD per 1M prompt tokens not served from the prompt cache
  double cached_prompt = 0;  // USD per 1M cached prompt tokens (default: the prompt price)
  double completion = 0;     // USD per 1M completion tokens
};

class PriceTable {
 public:
  // Throws InputError with file:line:col for a malformed file or a negative price.
  static PriceTable load(const std::filesystem::path& file);
  // Nullopt when the model has no entry.
  [[nodiscard]] std::optional<double> cost_usd(const std::string& model, const TokenUsage& usage) const;
  [[nodiscard]] bool has(const std::string& model) const { return prices_.count(model) != 0; }
  [[nodiscard]] const std::filesystem::path& file() const { return file_; }

 private:
  std::filesystem::path file_;
  std::map<std::string, TokenPrices> prices_;
};

}  // namespace kbench
