// running_descendants: the processes below this one, as the child_process check reads them.
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>

#include "catch.hpp"
#include "exec/process_tree.hpp"

using namespace kbench;

namespace {

// A child that sleeps until killed (and, with `grandchild`, a grandchild of its own).
pid_t start_sleeper(bool grandchild) {
  const pid_t pid = fork();
  if (pid == 0) {
    if (grandchild && fork() == 0) pause();
    pause();
    _exit(0);
  }
  return pid;
}

bool listed(pid_t pid) { return running_descendants(getpid()).count(pid) > 0; }

}  // namespace

TEST_CASE("children and grandchildren are listed while alive, with their names") {
  const auto before = running_descendants(getpid());
  const pid_t child = start_sleeper(/*grandchild=*/true);
  std::map<pid_t, std::string> now;
  for (int i = 0; i < 200 && now.size() < before.size() + 2; ++i) {  // the grandchild starts late
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    now = running_descendants(getpid());
  }
  REQUIRE(now.count(child) == 1);
  CHECK(now.size() == before.size() + 2);  // the grandchild too
  CHECK(now.count(getpid()) == 0);  // never the root itself
  CHECK_FALSE(now.at(child).empty());  // its comm
  for (const auto& [pid, name] : now)
    if (!before.count(pid)) kill(pid, SIGKILL);  // the grandchild too, not left behind
  waitpid(child, nullptr, 0);
  CHECK_FALSE(listed(child));
}

TEST_CASE("an exited child that is not yet reaped (a zombie) is not listed; reaped, it is gone") {
  const pid_t child = fork();
  if (child == 0) _exit(0);
  bool zombie = false;
  for (int i = 0; i < 200 && !zombie; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    siginfo_t info{};
    zombie = waitid(P_PID, id_t(child), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
             info.si_pid == child;  // exited, still unreaped
  }
  REQUIRE(zombie);
  CHECK_FALSE(listed(child));
  waitpid(child, nullptr, 0);
  CHECK_FALSE(listed(child));
}

TEST_CASE("a process with no children has none; an unknown root has none") {
  CHECK(running_descendants(999999999).empty());
}
