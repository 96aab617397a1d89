#include "worker/witness_groups.hpp"

#include <fmt/format.h>

#include <functional>
#include <optional>
#include <stdexcept>

#include "worker/commitment.hpp"
#include "worker/phase_clock.hpp"
#include "worker/phase_signal.hpp"
#include "worker/verdict.hpp"

namespace kbench {
namespace {

// The controller's seed for a group, asked for by `ask`; a `commitment` rejection when it sends
// none (the witness's seeds came from a controller, which answers these too).
std::uint64_t controller_seed(const std::function<std::optional<std::uint64_t>()>& ask) {
  const PhaseStep step("witness_reveal");  // the round trip to the controller
  std::optional<std::uint64_t> seed;
  try {
    seed = ask();
  } catch (const std::exception& e) {
    throw rejection("commitment", fmt::format("no reveal for a group of timing witness calls: {}", e.what()));
  }
  if (!seed) throw rejection("commitment", "no controller answers the timing witness's reveals");
  return *seed;
}

}  // namespace

long long witness_group_budget(bool cuda) { return cuda ? (1LL << 30) : (64LL << 20); }

void WitnessGroups::add(long long index, long long seed, const std::vector<at::Tensor>& outputs) {
  SampledCall call;
  call.call.index = index;
  call.call.fresh_seed = seed;
  std::vector<CommittedOutput> committed;
  long long bytes = 0;
  for (const auto& t : outputs) {
    try {
      const PhaseStep step("witness_commit");
      committed.push_back(commit_output_in_place(t));
    } catch (const std::exception& e) {
      throw std::invalid_argument(
          fmt::format("an output that cannot be committed: {}", std::string(e.what()).substr(0, 1000)));
    }
    // The copy and its tree (two digests of 32 bytes per 256-byte leaf, at most).
    bytes += t.nbytes() + t.nbytes() / 4;
  }
  if (!pending_.empty() && held_ + bytes > budget_) {
    const std::string digest = pending_digest();
    open_group({digest, controller_seed([&] { return request_reveal(digest); }), /*witness=*/true});
  }
  call.reveal = int(reveals_.size());
  call.place_in_sample = int(pending_.size());
  pending_.emplace_back(std::move(call), std::move(committed));
  held_ += bytes;
}

void WitnessGroups::finish() {
  std::vector<std::string> digests;
  for (const auto& r : reveals_) digests.push_back(r.digest);
  digests.push_back(pending_digest());
  const std::string closing = witness_digest(digests);
  open_group({closing, controller_seed([&] { return close_witness_window(closing); }), /*witness=*/true});
}

std::string WitnessGroups::pending_digest() const {
  std::vector<std::string> lines;
  for (const auto& [call, outputs] : pending_) {
    std::vector<OpenedOutput> roots;
    for (const auto& o : outputs) roots.push_back(o.opened);
    lines.push_back(witness_call_line(call.call.index, call.call.fresh_seed, roots));
  }
  return sample_digest(lines);
}

void WitnessGroups::open_group(SampleReveal reveal) {
  const PhaseStep step("witness_open");
  for (std::size_t place = 0; place < pending_.size(); ++place) {
    auto& [call, outputs] = pending_[place];
    for (std::size_t i = 0; i < outputs.size(); ++i) {
      open_output(outputs[i], opening_positions(reveal.seed, place, i, outputs[i].tree.leaves(),
                                                std::size_t(kCheckedElementsPerCall)));
      call.outputs.push_back(std::move(outputs[i].opened));
    }
    calls_.push_back(std::move(call));
  }
  pending_.clear();
  held_ = 0;
  reveals_.push_back(std::move(reveal));
}

}  // namespace kbench
