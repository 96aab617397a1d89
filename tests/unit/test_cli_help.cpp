#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <fstream>
#include <iterator>
#include <regex>
#include <string>
#include <vector>

#include "catch.hpp"
#include "run_kbench.hpp"

using kbench::test::run_kbench;

TEST_CASE("kbench --help lists the subcommands and exit codes, not internal ones") {
  const auto out = run_kbench("--help");
  CHECK(out.exit_code == 0);
  CHECK(out.output.find("run") != std::string::npos);
  CHECK(out.output.find("Exit codes") != std::string::npos);
  CHECK(out.output.find("worker") == std::string::npos);
}

TEST_CASE("kbench run --help shows grouped options with explanations") {
  const auto out = run_kbench("run --help");
  CHECK(out.exit_code == 0);
  for (const char* text : {"Output", "Execution", "--output", "--device", "--timeout",
                           "auto (GPU if present), cpu, cuda or cuda:N"})
    CHECK(out.output.find(text) != std::string::npos);
}

TEST_CASE("bad command lines exit 2 with a message") {
  CHECK(run_kbench("").exit_code == 2);
  CHECK(run_kbench("run").exit_code == 2);
  CHECK(run_kbench("run /nonexistent.yaml").exit_code == 2);
  const auto out = run_kbench("run " + (kbench::test::kSourceDir / "configs/suites/smoke.yaml").string() + " --device tpu");
  CHECK(out.exit_code == 2);
  CHECK(out.output.find("--device 'tpu'") != std::string::npos);
}

TEST_CASE("a schema error in a suite exits 2 with file:line:col") {
  const auto file = kbench::test::kDataDir / "suites" / "bad_key.yaml";
  const auto out = run_kbench("run " + file.string());
  CHECK(out.exit_code == 2);
  CHECK(out.output.find(file.string() + ":5:3: unknown key 'sedes'") != std::string::npos);
}

TEST_CASE("an unwritable output path fails before any work") {
  const auto out = run_kbench("run " + (kbench::test::kSourceDir / "configs/suites/smoke.yaml").string() +
                              " --device cpu -o /nonexistent-dir/r.json");
  CHECK(out.exit_code == 2);
  CHECK(out.output.find("does not exist") != std::string::npos);
  CHECK(out.output.find("[1/") == std::string::npos);
}

TEST_CASE("report format flags are listed and a bad --html path fails before any work") {
  const auto help = run_kbench("run --help");
  for (const char* flag : {"--json", "--md", "--html", "--junit", "--csv"})
    CHECK(help.output.find(flag) != std::string::npos);
  const auto out = run_kbench("run " + (kbench::test::kSourceDir / "configs/suites/smoke.yaml").string() +
                              " --device cpu --md - --html /nonexistent-dir/r.html");
  CHECK(out.exit_code == 2);
  CHECK(out.output.find("/nonexistent-dir/r.html") != std::string::npos);
  CHECK(out.output.find("[1/") == std::string::npos);
}

TEST_CASE("--candidates and --baselines take one value each, so the suite path may follow") {
  const auto suite = (kbench::test::kDataDir / "suites" / "bad_key.yaml").string();
  // The bad suite is reached (exit 2 with its own error), proving it was parsed as the suite.
  const auto out = run_kbench("run --candidates x.py --baselines eager " + suite);
  CHECK(out.exit_code == 2);
  CHECK(out.output.find("unknown key 'sedes'") != std::string::npos);
}

TEST_CASE("kbench compare checks its output paths before reading or printing anything") {
  const auto golden = (kbench::test::kGoldenDir / "results_sample.json").string();
  const auto out = run_kbench("compare " + golden + " " + golden + " --md /nonexistent-dir/c.md");
  CHECK(out.exit_code == 2);
  CHECK(out.output.find("/nonexistent-dir/c.md") != std::string::npos);
  CHECK(out.output.find("SAME") == std::string::npos);  // no table was printed first
}

TEST_CASE("scheduling flags are listed; bad values and a --resume with nothing to resume fail at once") {
  const auto help = run_kbench("run --help");
  for (const char* flag : {"--jobs", "--workers-per-gpu", "--journal", "--resume"})
    CHECK(help.output.find(flag) != std::string::npos);
  const auto suite = (kbench::test::kSourceDir / "configs/suites/smoke.yaml").string();
  CHECK(run_kbench("run " + suite + " --device cpu -j 0").exit_code == 2);
  CHECK(run_kbench("run " + suite + " --device cpu --workers-per-gpu 0").exit_code == 2);
  const auto no_journal = run_kbench("run " + suite + " --device cpu --resume");
  CHECK(no_journal.exit_code == 2);
  CHECK(no_journal.output.find("--resume needs a journal") != std::string::npos);
  const auto missing = run_kbench("run " + suite + " --device cpu --resume -o /tmp/kbench-none-" +
                                  std::to_string(::getpid()) + ".json");
  CHECK(missing.exit_code == 2);
  CHECK(missing.output.find("no journal to resume") != std::string::npos);
  CHECK(missing.output.find("[1/") == std::string::npos);
}

TEST_CASE("an unknown --checks level fails before any work") {
  const auto out = run_kbench("run " + (kbench::test::kSourceDir / "configs/suites/smoke.yaml").string() +
                              " --device cpu --checks paranoid");
  CHECK(out.exit_code == 2);
  CHECK(out.output.find("--checks 'paranoid' is not one of minimal, standard, strict") != std::string::npos);
  CHECK(out.output.find("[1/") == std::string::npos);
}

// Issue 17, defects 3 and 9: command-line numbers are finite and in their documented range,
// and an unknown subcommand is named.
TEST_CASE("non-finite or absurd numbers on the command line exit 2 with the option's range") {
  const auto suite = (kbench::test::kSourceDir / "configs/suites/smoke.yaml").string();
  for (const char* value : {"nan", "inf", "1e300", "-1", "abc"}) {
    INFO(value);
    const auto out = run_kbench("run " + suite + " --device cpu --timeout " + value);
    CHECK(out.exit_code == 2);
    CHECK(out.output.find("--timeout") != std::string::npos);
    CHECK(out.output.find("(0, 604800]") != std::string::npos);
    CHECK(out.output.find("1797693") == std::string::npos);  // no 309-digit DBL_MAX
    CHECK(out.output.find("[1/") == std::string::npos);
  }
  const auto gate = run_kbench("compare " + suite + " " + suite + " --fail-on-regression nan");
  CHECK(gate.exit_code == 2);
  CHECK(gate.output.find("is not a number") != std::string::npos);
}

TEST_CASE("an unknown subcommand is named, with the subcommands there are") {
  const auto out = run_kbench("frobnicate");
  CHECK(out.exit_code == 2);
  CHECK(out.output.find("unknown subcommand 'frobnicate'") != std::string::npos);
  CHECK(out.output.find("run, compare, merge") != std::string::npos);
  CHECK(out.output.find("worker") == std::string::npos);
  CHECK(run_kbench("rnu").output.find("did you mean 'run'?") != std::string::npos);
}

namespace {

// Peak RSS in KB of `kbench ARGS...` run as a child (getrusage of the reaped child).
long peak_rss_kb(const std::vector<std::string>& arguments) {
  std::vector<std::string> argv_text = {kbench::test::kKbench.string()};
  argv_text.insert(argv_text.end(), arguments.begin(), arguments.end());
  std::vector<char*> argv;
  for (auto& a : argv_text) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = fork();
  if (pid == 0) {
    const int null = open("/dev/null", O_WRONLY);
    dup2(null, STDOUT_FILENO);
    dup2(null, STDERR_FILENO);
    execv(argv[0], argv.data());
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  if (pid < 0 || wait4(pid, &status, 0, &usage) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return -1;
  return usage.ru_maxrss;
}

}  // namespace

// Issue 17: the controller binary does not link LibTorch (482,604 KB peak before kbench-worker
// was split off); benchmarks/startup/run.sh prints the figures.
TEST_CASE("kbench --version and --help start without loading LibTorch") {
  for (const auto& args : {std::vector<std::string>{"--version"}, std::vector<std::string>{"--help"},
                           std::vector<std::string>{"compare", "--help"}}) {
    INFO(args.front() << " " << args.back());
    const long kb = peak_rss_kb(args);
    CHECK(kb > 0);
    CHECK(kb < 64 * 1024);
  }
  // The worker side still answers through kbench, from kbench-worker.
  const auto help = run_kbench("check-candidate --help");
  CHECK(help.exit_code == 0);
  CHECK(help.output.find("--require-kernel") != std::string::npos);
  CHECK(run_kbench("worker --job /nonexistent.json").exit_code == 2);
}

TEST_CASE("history trend and slurm refuse a non-finite or negative --fail-on-regression") {
  const auto suite = (kbench::test::kSourceDir / "configs/suites/smoke.yaml").string();
  for (const char* value : {"nan", "inf", "-1", "1e300"}) {
    INFO(value);
    for (const auto& command : {"history trend --db /nonexistent/h.db --fail-on-regression " + std::string(value),
                                "slurm " + suite + " --out /nonexistent/slurm --fail-on-regression " + std::string(value)}) {
      INFO(command);
      const auto out = run_kbench(command);
      CHECK(out.exit_code == 2);
      CHECK(out.output.find("--fail-on-regression") != std::string::npos);
      CHECK(out.output.find("[0, 1000000]") != std::string::npos);
    }
  }
}

namespace {

// Runs `script` in `shell` with the completion script of this kbench loaded; what it prints.
std::string run_in_shell(const std::string& shell, const std::string& script) {
  const std::string file = "/tmp/kbench-completion-test-" + std::to_string(getpid()) + "." + shell;
  REQUIRE(run_kbench("completion " + shell + " > " + file).exit_code == 0);
  const std::string command = shell + " -c '" + "source " + file + "; " +
                              script + "' 2>&1";
  const auto ran = kbench::test::run_command(command);
  REQUIRE(ran.exit_code >= 0);  // the shell started and exited
  std::remove(file.c_str());
  return ran.output;
}

// The blocks are compared for their words, not their layout: CLI11 2.1 (Debian, where docs/cli.md is
// regenerated) and 2.4 (the GPU machine) wrap descriptions at different columns, indent option
// groups differently and print a default as `TEXT=auto` or `TEXT [auto]`.
std::string help_text_as_compared(const std::string& text) {
  static const std::regex default_value(R"((\S)=(\S+)(?=\s))");
  const std::string defaults_bracketed = std::regex_replace(text, default_value, "$1[$2]");
  std::string words;
  for (const char c : defaults_bracketed)
    if (!std::isspace(static_cast<unsigned char>(c))) words += c;
  return words;
}

}  // namespace

TEST_CASE("bash completion comes from the CLI definition: subcommands, nested ones, options") {
  const auto complete = [](const std::string& line_words, int cword) {
    return run_in_shell("bash", "COMP_WORDS=(" + line_words + "); COMP_CWORD=" + std::to_string(cword) +
                                    "; _kbench; echo \"${COMPREPLY[*]}\"");
  };
  CHECK(complete("kbench ru", 1) == "run\n");
  CHECK(complete("kbench c", 1) == "compare check-candidate cache completion\n");
  CHECK(complete("kbench history t", 2) == "trend\n");
  CHECK(complete("kbench run suite.yaml --dev", 2 + 1) == "--device --device-memory-gb\n");
  CHECK(complete("kbench run suite.yaml --device-m", 2 + 1) == "--device-memory-gb\n");
  CHECK(complete("kbench history trend --fail", 3) == "--fail-on-regression\n");
  // The internal `worker` subcommand is hidden, as in --help.
  CHECK(complete("kbench work", 1).find("worker") == std::string::npos);
  CHECK(run_kbench("completion fish").exit_code == 2);
}

TEST_CASE("zsh completion parses and describes the same commands") {
  // CI and scripts/setup.sh install zsh; the GPU machine's image has none, and there is no
  // package registry to install it from.
  if (kbench::test::run_command("command -v zsh >/dev/null 2>&1").exit_code != 0) {
    WARN("zsh is not installed on this machine: the zsh tables are checked where it is (CI)");
    return;
  }
  // The generated tables as zsh reads them (_describe itself needs a live completion widget).
  const auto out = run_in_shell("zsh", "_kbench_children \"history\"; print -l -- $reply; "
                                       "_kbench_options \"run\"; print -l -- $reply | grep -c .");
  CHECK(out.find("add:Store one results JSON") != std::string::npos);
  CHECK(out.find("trend:") != std::string::npos);
  const auto count = std::stoi(out.substr(out.find_last_of('\n', out.size() - 2) + 1));
  CHECK(count > 30);  // run's flags, each with its help line
  CHECK(run_in_shell("zsh", "print ok").find("ok") != std::string::npos);
}

TEST_CASE("the --help blocks of docs/cli.md are what kbench prints") {
  std::ifstream in(kbench::test::kSourceDir / "docs" / "cli.md");
  REQUIRE(in);
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  int blocks = 0;
  for (std::size_t at = doc.find("```\n$ kbench "); at != std::string::npos;
       at = doc.find("```\n$ kbench ", at + 1)) {
    const auto line_end = doc.find('\n', at + 4);
    const std::string arguments = doc.substr(at + 13, line_end - (at + 13));
    if (arguments.find("--help") == std::string::npos) continue;
    const auto block_end = doc.find("\n```", line_end);
    const std::string shown = doc.substr(line_end + 1, block_end - line_end);
    INFO("docs/cli.md block: kbench " << arguments << " (regenerate it from the binary's output)");
    CHECK(help_text_as_compared(run_kbench(arguments).output) == help_text_as_compared(shown));
    ++blocks;
  }
  CHECK(blocks >= 4);
}
