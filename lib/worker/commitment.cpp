#include "worker/commitment.hpp"

#include <stdexcept>

#include <ATen/ATen.h>

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

nlohmann::json put_calls(const std::vector<CommittedCall>& list, std::string& blob) {
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& c : list) {
    nlohmann::json outputs = nlohmann::json::array();
    for (const auto& o : c.outputs)
      outputs.push_back({{"dtype", o.dtype},
                         {"sizes", o.sizes},
                         {"root", to_hex(o.root)},
                         {"positions", put_tensor(o.positions, blob)},
                         {"leaves", put_tensor(o.leaves, blob)},
                         {"proofs", put_tensor(o.proofs, blob)}});
    calls.push_back({{"index", c.call.index},
                     {"value_set", c.call.value_set},
                     {"warmup", c.call.warmup},
                     {"fresh_reveal", c.call.fresh_reveal},
                     {"fresh_seed", c.call.fresh_seed},
                     {"reveal", c.reveal},
                     {"place", c.place_in_sample},
                     {"outputs", outputs}});
  }
  return calls;
}

std::vector<CommittedCall> get_calls(const nlohmann::json& headers, const std::string& bytes, std::size_t base) {
  std::vector<CommittedCall> calls;
  for (const auto& c : headers) {
    CommittedCall call;
    call.call.index = c.at("index").get<long long>();
    call.call.value_set = c.at("value_set").get<int>();
    call.call.warmup = c.at("warmup").get<bool>();
    call.call.fresh_reveal = c.at("fresh_reveal").get<int>();
    call.call.fresh_seed = c.at("fresh_seed").get<long long>();
    call.reveal = c.at("reveal").get<int>();
    call.place_in_sample = c.at("place").get<int>();
    for (const auto& o : c.at("outputs")) {
      OpenedOutput opened;
      opened.dtype = o.at("dtype").get<std::string>();
      opened.sizes = o.at("sizes").get<std::vector<int64_t>>();
      const auto root = o.at("root").get<std::string>();
      if (root.size() != 64 || root.find_first_not_of("0123456789abcdef") != std::string::npos)
        throw std::runtime_error("commitment: a root that is not 64 hex digits");
      for (std::size_t i = 0; i < 32; ++i) opened.root[i] = std::uint8_t(std::stoi(root.substr(2 * i, 2), nullptr, 16));
      opened.positions = get_tensor(o.at("positions"), bytes, base);
      opened.leaves = get_tensor(o.at("leaves"), bytes, base);
      opened.proofs = get_tensor(o.at("proofs"), bytes, base);
      call.outputs.push_back(std::move(opened));
    }
    calls.push_back(std::move(call));
  }
  return calls;
}

}  // namespace

std::string witness_digest(const std::vector<std::string>& group_digests) {
  std::string all;
  for (const auto& d : group_digests) all += d + "\n";
  return to_hex(sha256(all));
}

std::string encode_commitment(const Commitment& commitment) {
  std::string blob;
  // The full outputs, reserved whole (GBs at full size; the calls' openings are KBs).
  std::size_t values = 0;
  for (const auto& t : commitment.trials)
    for (const auto& o : t.outputs) values += o.nbytes();
  blob.reserve(values);
  nlohmann::json trials = put_trials(commitment.trials, blob);
  nlohmann::json calls = put_calls(commitment.calls, blob);
  nlohmann::json witness = put_calls(commitment.witness, blob);
  nlohmann::json reveals = nlohmann::json::array();
  for (const auto& r : commitment.reveals)
    reveals.push_back({{"digest", r.digest}, {"seed", r.seed}, {"witness", r.witness}});
  return frame_document(kMagic,
                        {{"trials", trials}, {"calls", calls}, {"reveals", reveals}, {"witness_calls", witness}}, blob);
}

Commitment decode_commitment(const std::string& bytes) {
  const auto [header, base] = unframe_document(kMagic, bytes, "commitment");
  Commitment commitment;
  try {
    commitment.trials = get_trials(header.at("trials"), bytes, base);
    commitment.calls = get_calls(header.at("calls"), bytes, base);
    commitment.witness = get_calls(header.at("witness_calls"), bytes, base);
    for (const auto& r : header.at("reveals"))
      commitment.reveals.push_back(
          {r.at("digest").get<std::string>(), r.at("seed").get<std::uint64_t>(), r.value("witness", false)});
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("commitment: malformed header: ") + e.what());
  }
  return commitment;
}

}  // namespace kbench
