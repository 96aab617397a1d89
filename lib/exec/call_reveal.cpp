#include "exec/call_reveal.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <random>
#include <stdexcept>

#include "core/hmac_sha256.hpp"

namespace kbench {

std::uint64_t draw_reveal_seed() {
  std::random_device entropy;
  return std::uint64_t(entropy()) << 32 | std::uint64_t(entropy());
}

long long fresh_call_seed(std::uint64_t reveal_seed, int buffer) {
  const Sha256Digest h = sha256(fmt::format("kbench fresh values {} {}", reveal_seed, buffer));
  std::uint64_t bits = 0;
  for (int i = 0; i < 8; ++i) bits = bits << 8 | h[std::size_t(i)];
  return kFirstFreshSeed + static_cast<long long>(bits % kFreshSeeds);
}

std::string fresh_start_digest() { return to_hex(sha256(std::string("kbench fresh values: start"))); }

std::string encode_call_reveals(const std::vector<CallReveal>& reveals) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& r : reveals) out.push_back({{"digest", r.digest}, {"seed", r.seed}, {"witness", r.witness}});
  return out.dump();
}

std::vector<CallReveal> decode_call_reveals(const std::string& text) {
  const auto json = nlohmann::json::parse(text, nullptr, false);
  if (!json.is_array()) throw std::runtime_error("call reveals: not a JSON array");
  std::vector<CallReveal> reveals;
  try {
    for (const auto& r : json)
      reveals.push_back({r.at("digest").get<std::string>(), r.at("seed").get<std::uint64_t>(),
                         r.value("witness", false)});
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("call reveals: ") + e.what());
  }
  return reveals;
}

}  // namespace kbench
