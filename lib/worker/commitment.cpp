#include "worker/commitment.hpp"

#include <stdexcept>

#include "worker/tensor_blob.hpp"

namespace kbench {
namespace {

constexpr const char* kMagic = "KBENCH-COMMITMENT/1\n";

nlohmann::json put_all(const std::vector<at::Tensor>& tensors, std::string& blob) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& t : tensors) out.push_back(put_tensor(t, blob));
  return out;
}

std::vector<at::Tensor> get_all(const nlohmann::json& headers, const std::string& bytes, std::size_t base) {
  std::vector<at::Tensor> out;
  for (const auto& h : headers) out.push_back(get_tensor(h, bytes, base));
  return out;
}

TrialKind kind_named(const std::string& text) {
  for (TrialKind k : {TrialKind::seed, TrialKind::alt_distribution, TrialKind::alt_shape,
                      TrialKind::post_timing, TrialKind::timing})
    if (to_string(k) == text) return k;
  throw std::runtime_error("commitment: unknown trial kind " + text);
}

}  // namespace

std::string encode_commitment(const Commitment& commitment) {
  std::string blob;
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& t : commitment.trials)
    trials.push_back({{"kind", to_string(t.kind)}, {"seed", t.seed}, {"outputs", put_all(t.outputs, blob)}});
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& c : commitment.calls)
    calls.push_back({{"index", c.call.index},
                     {"value_set", c.call.value_set},
                     {"warmup", c.call.warmup},
                     {"indices", put_all(c.indices, blob)},
                     {"values", put_all(c.values, blob)}});
  return frame_document(kMagic, {{"trials", trials}, {"calls", calls}}, blob);
}

Commitment decode_commitment(const std::string& bytes) {
  const auto [header, base] = unframe_document(kMagic, bytes, "commitment");
  Commitment commitment;
  try {
    for (const auto& t : header.at("trials"))
      commitment.trials.push_back({kind_named(t.at("kind").get<std::string>()), t.at("seed").get<int>(),
                                   get_all(t.at("outputs"), bytes, base)});
    for (const auto& c : header.at("calls")) {
      CommittedCall call;
      call.call.index = c.at("index").get<long long>();
      call.call.value_set = c.at("value_set").get<int>();
      call.call.warmup = c.at("warmup").get<bool>();
      call.indices = get_all(c.at("indices"), bytes, base);
      call.values = get_all(c.at("values"), bytes, base);
      if (call.indices.size() != call.values.size())
        throw std::runtime_error("commitment: indices and values differ in count");
      commitment.calls.push_back(std::move(call));
    }
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("commitment: malformed header: ") + e.what());
  }
  return commitment;
}

}  // namespace kbench
