#include "cli_main.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "core/error.hpp"
#include "core/text.hpp"

namespace kbench::cli {

const char* const kExitCodesFooter =
    "Exit codes: 0 done, 1 regression (compare --fail-on-regression, history trend) or a failed check-candidate, 2 bad input, 3 environment (Python/torch/GPU) unusable, "
    "4 internal error, 130 interrupted. See docs/cli.md.";

int run_cli(CLI::App& app, int argc, char** argv, const std::function<void()>& before_parse) {
  try {
    if (before_parse) before_parse();
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : kExitBadInput;
  } catch (const Error& e) {
    std::fprintf(stderr, "kbench: error: %s\n", printable(e.what()).c_str());
    return e.code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kbench: internal error: %s\n", printable(e.what()).c_str());
    return kExitInternal;
  }
  return 0;
}

}  // namespace kbench::cli
