#include "worker/commitment.hpp"

#include <stdexcept>

#include <ATen/ATen.h>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/hmac_sha256.hpp"
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

nlohmann::json put_trials(const std::vector<CommittedTrial>& list, std::string& blob) {
  nlohmann::json trials = nlohmann::json::array();
  for (const auto& t : list)
    trials.push_back({{"kind", to_string(t.kind)}, {"seed", t.seed}, {"outputs", put_all(t.outputs, blob)}});
  return trials;
}

std::vector<CommittedTrial> get_trials(const nlohmann::json& headers, const std::string& bytes, std::size_t base) {
  std::vector<CommittedTrial> trials;
  for (const auto& t : headers)
    trials.push_back({kind_named(t.at("kind").get<std::string>()), t.at("seed").get<int>(),
                      get_all(t.at("outputs"), bytes, base)});
  return trials;
}

}  // namespace

std::string witness_digest(const std::vector<CommittedTrial>& witness) {
  std::string data;
  for (const auto& trial : witness)
    for (const auto& output : trial.outputs) {
      const at::Tensor t = output.contiguous();
      // Each tensor hashed in place (witness outputs may be a GiB on CUDA), then the list.
      const auto bytes = to_hex(sha256(std::string_view(static_cast<const char*>(t.data_ptr()), t.nbytes())));
      data += fmt::format("{}:{}:{}:{}\n", trial.seed, c10::toString(t.scalar_type()), fmt::join(t.sizes(), "x"), bytes);
    }
  return to_hex(sha256(data));
}

std::string encode_commitment(const Commitment& commitment) {
  std::string blob;
  nlohmann::json trials = put_trials(commitment.trials, blob);
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& c : commitment.calls)
    calls.push_back({{"index", c.call.index},
                     {"value_set", c.call.value_set},
                     {"warmup", c.call.warmup},
                     {"indices", put_all(c.indices, blob)},
                     {"values", put_all(c.values, blob)}});
  nlohmann::json witness = put_trials(commitment.witness, blob);
  return frame_document(kMagic, {{"trials", trials}, {"calls", calls}, {"witness", witness}}, blob);
}

Commitment decode_commitment(const std::string& bytes) {
  const auto [header, base] = unframe_document(kMagic, bytes, "commitment");
  Commitment commitment;
  try {
    commitment.trials = get_trials(header.at("trials"), bytes, base);
    commitment.witness = get_trials(header.at("witness"), bytes, base);
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
