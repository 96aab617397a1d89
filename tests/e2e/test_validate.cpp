// `kbench validate` through the binary: planted problems, each checked in its own sandboxed
// worker on the CPU. An honest problem passes (Inductor included); one that returns zeros, one
// with a near-constant output, one that ignores its input, one whose forward raises and one that
// does not import fail, each naming its check; a problem the suite marks degenerate is "ok (known
// degenerate)". About 7 CPU workers plus one Inductor C++ compile: 1-2 min.
#include "catch.hpp"
#include "kernelbench_tree.hpp"
#include "run_kbench.hpp"

using kbench::test::TempDir;
using kbench::test::kernelbench_problem;

namespace {

// The line `validate` printed for `id` ("" when none).
std::string line_of(const std::string& output, const std::string& id) {
  for (std::size_t at = output.find(id + "  "); at != std::string::npos; at = output.find(id + "  ", at + 1)) {
    if (at == 0 || output[at - 1] == '\n') return output.substr(at, output.find('\n', at) - at);
  }
  return "";
}

}  // namespace

TEST_CASE("validate flags degenerate and broken problems, passes an honest one") {
  TempDir dir;
  const std::string x = "torch.randn(batch_size, dim)";
  dir.write("p/relu.py", kernelbench_problem("torch.relu(x)", x));
  dir.write("p/zeros.py", kernelbench_problem("x * 0.0", x));
  dir.write("p/constant.py", kernelbench_problem("torch.ones_like(x) * 3.0 + x * 1e-9", x));
  dir.write("p/ignores_input.py", kernelbench_problem("torch.arange(x.numel(), dtype=x.dtype).reshape(x.shape)", x));
  dir.write("p/raises.py", kernelbench_problem("x[1000000]", x));
  dir.write("p/broken.py", "import torch\nclass Model(torch.nn.Module)\n");
  dir.write("c/any.py", "# unused\n");
  const auto suite = dir.write("s.yaml", R"(suite: planted
candidates: c/any.py
problems:
  - {id: relu, file: p/relu.py, sizes: {cpu: {dim: 32}}}
  - {id: zeros, file: p/zeros.py}
  - {id: constant, file: p/constant.py}
  - {id: ignores_input, file: p/ignores_input.py}
  - {id: raises, file: p/raises.py}
  - {id: broken, file: p/broken.py}
  - {id: known_zeros, file: p/zeros.py, degenerate: true, degenerate_reason: planted}
)");

  SECTION("every check but Inductor, all problems") {
    const auto r = kbench::test::run_kbench("validate " + suite.string() + " --device cpu --no-inductor");
    INFO(r.output);
    CHECK(r.exit_code == 1);
    CHECK(line_of(r.output, "relu").find("relu  ok  ") == 0);
    CHECK(line_of(r.output, "relu").find("output (8, 32) torch.float32, deterministic: bit-exact") != std::string::npos);
    CHECK(line_of(r.output, "relu").find("host RSS") != std::string::npos);
    CHECK(line_of(r.output, "zeros").find("FAIL") != std::string::npos);
    CHECK(line_of(r.output, "zeros").find("not_zeros: all outputs are within atol=0.0001/rtol=0.0001 of zeros") !=
          std::string::npos);
    CHECK(line_of(r.output, "constant").find("not_constant: every output is within atol/rtol of its mean") !=
          std::string::npos);
    CHECK(line_of(r.output, "ignores_input").find("depends_on_input: two different input seeds") !=
          std::string::npos);
    CHECK(line_of(r.output, "ignores_input").find("not_constant") == std::string::npos);
    CHECK(line_of(r.output, "raises").find("runs: IndexError") != std::string::npos);
    CHECK(line_of(r.output, "broken").find("imports: SyntaxError") != std::string::npos);
    CHECK(line_of(r.output, "known_zeros").find("known_zeros  ok (known degenerate)") == 0);
    CHECK(r.output.find("7 problems: 2 ok, 5 failed (1 ok only because the suite marks them degenerate)") !=
          std::string::npos);
    CHECK(r.output.find("kbench: error: 5 of 7 problems failed validation") != std::string::npos);
  }
  SECTION("Inductor on the honest problem; a selection; exit 0") {
    const auto r = kbench::test::run_kbench("validate " + suite.string() + " --device cpu --problems relu");
    INFO(r.output);
    CHECK(r.exit_code == 0);
    CHECK(line_of(r.output, "relu").find("inductor ok") != std::string::npos);
    CHECK(r.output.find("1 problem: 1 ok, 0 failed") != std::string::npos);
  }
  SECTION("bad input is exit 2 before any worker starts") {
    CHECK(kbench::test::run_kbench("validate " + suite.string() + " --device cpu --problems nosuch").exit_code == 2);
  }
}
