#include "correctness/trivial_output.hpp"

#include <ATen/ATen.h>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>

#include "correctness/output_comparison.hpp"

namespace kbench {

double largest_magnitude(const at::Tensor& t) {
  if (t.numel() == 0 || !(at::isFloatingType(t.scalar_type()) || at::isComplexType(t.scalar_type()))) return -1;
  try {
    const double value = at::linalg_vector_norm(t.detach(), INFINITY).item<double>();
    return std::isfinite(value) ? value : -1;
  } catch (const std::exception&) {
    return -1;  // a dtype the norm does not take (float8): not judged, as for integers
  }
}

std::optional<std::string> trivial_match(const std::vector<at::Tensor>& expected,
                                         const std::vector<double>& expected_max_abs,
                                         const std::vector<at::Tensor>& actual, const Tolerance& tolerance) {
  for (std::size_t i = 0; i < expected.size() && i < expected_max_abs.size() && i < actual.size(); ++i) {
    const double largest = expected_max_abs[i];
    // Zeros pass where |0 - e| <= atol + rtol |e| for the largest |e|; an all-zero reference is
    // the degenerate_reference flag's, not this.
    if (largest <= 0 || largest > tolerance.atol + tolerance.rtol * largest) continue;
    const Tolerance strict{kTrivialOutputFraction * largest, 0};
    const ComparisonResult cmp = compare_outputs({expected[i]}, {actual[i]}, strict);
    if (!cmp.ok)
      return fmt::format(
          "output {}: the tolerance (atol {:g}, rtol {:g}) passes zeros here (every expected |value| <= {:.3g}), "
          "so it is compared within {:g}% of that: max abs err {:.3g} > {:.3g}",
          i, tolerance.atol, tolerance.rtol, largest, 100 * kTrivialOutputFraction, cmp.max_abs_error, strict.atol);
  }
  return std::nullopt;
}

CallTolerances sampled_call_tolerances(const std::vector<std::vector<double>>& trial_max_abs, std::size_t outputs,
                                       const Tolerance& tolerance) {
  CallTolerances result{tolerance, std::vector<Tolerance>(outputs, tolerance)};
  if (trial_max_abs.empty()) return result;
  for (std::size_t i = 0; i < outputs; ++i) {
    double largest = 0;
    bool trivial = true;
    for (const auto& trial : trial_max_abs) {
      const double value = i < trial.size() ? trial[i] : -1;
      trivial = trivial && value > 0 && value <= tolerance.atol + tolerance.rtol * value;
      largest = std::max(largest, value);
    }
    if (trivial) result.outputs[i] = Tolerance{kTrivialOutputFraction * largest, 0};
  }
  return result;
}

std::string CallTolerances::note(std::size_t output) const {
  const Tolerance& used = at(output);
  if (used.atol == suite.atol && used.rtol == suite.rtol) return "";
  return fmt::format(" (trivial_output: the tolerance passes zeros on this output, so its calls are compared within "
                     "{:g}% of the largest |value| the trials saw, atol {:.3g})",
                     100 * kTrivialOutputFraction, used.atol);
}

}  // namespace kbench
