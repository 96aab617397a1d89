#pragma once
// An isolated candidate's baseline samples against trusted ones (docs/threat-model.md). The
// candidate worker times the baselines interleaved with the candidate, in the process where
// native code can forge any sample: a baseline made to look slower inflates the speedup. The
// reference worker (never loads candidate code) times the same baselines on the same inputs
// before; the judge compares. Only a reported baseline *slower* than the trusted one matters
// (a faster one only costs the candidate).
#include <optional>
#include <string>
#include <vector>

namespace kbench {

struct BaselineRule {
  // Two processes, minutes apart, the GPU held exclusively by each: medians agree within a
  // few percent; 1.5x leaves room for clocks and a quick trusted run, the margin for tiny calls.
  // Inductor's: each process compiles (and may autotune) its own.
  double factor = 1.5;
  double margin_ms = 0.02;
};

// The eager baseline runs the same kernels in both processes: on the H200 its reported/trusted
// medians were 0.997-1.020 over 20 blinded jobs (26 us to 2.7 ms calls, 2026-12-02/03). 1.10 and
// 5 us keep five times that spread and stop a candidate that slows the eager baseline it is
// timed beside (e.g. a layer of the reference swapped for a slower one) from 1.1x on.
inline constexpr BaselineRule kEagerBaselineRule{1.10, 0.005};

// On the CPU medians move more (an interpreted Triton candidate evicts the baseline's caches; a
// loaded two-core machine): over 114 honest comparisons (the honest corpus and level1 on the CI
// machine, 2026-12-05) the eager baseline beside the candidate was at most 1.81x its figure
// without it (16 us -> 29 us), 1.13x on calls of milliseconds; on 2026-11-30, with Triton still
// interpreted in the same process, up to 3x. 4x + 0.1 ms (the judge's form; the pre-import check
// asks for more than 4x and 0.1 ms, as on CUDA) stays clear of both and bounds what
// slowing the baselines earns there (interop_gil_spinner.py made eager 18x slower). Not beside a
// candidate whose Triton kernels run interpreted (kernels_interpreted_on_host): on the loaded CI
// machine an honest interpreted bmm took eager from 0.023 ms to 7.84 ms (335x, 2026-12-05), its
// interpreter's threads stalling the baseline's; there a slowed baseline is only noted.
inline constexpr BaselineRule kCpuBaselineRule{4.0, 0.1};

// An in-process candidate's baselines against the same process's run before its import, on
// CUDA (candidate_unit.cpp): refused when more than 1.10x *and* 0.02 ms slower (there both
// limits must be passed; on the CPU the same with kCpuBaselineRule). No honest H200 job did.
inline constexpr BaselineRule kPreImportCudaRule{1.10, 0.02};

// The rule for a baseline by name on a device: on the CPU kCpuBaselineRule; on CUDA
// kEagerBaselineRule for "eager", else the default.
BaselineRule baseline_rule(const std::string& baseline, bool cuda);

// nullopt when median(reported) <= factor * median(trusted) + margin (or either is empty);
// otherwise the evidence, one line naming `baseline`.
std::optional<std::string> baseline_disagreement(const std::string& baseline, const std::vector<double>& reported_ms,
                                                 const std::vector<double>& trusted_ms, const BaselineRule& rule = {});

}  // namespace kbench
