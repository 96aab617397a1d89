#pragma once
// A real PostgreSQL server for one test: initdb into a temp dir, started with pg_ctl on a free
// loopback port as the `postgres` user (the server refuses to run as root), stopped by the
// destructor. Debian's `postgresql` package (scripts/setup.sh) provides the binaries.
#include <fmt/format.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>

namespace kbench::test {

class PostgresServer {
 public:
  // Why no server can be started here, or nullopt when one can.
  static std::optional<std::string> unavailable() {
    if (geteuid() != 0) return "not root: the test starts PostgreSQL as the postgres user through runuser";
    if (!getpwnam("postgres")) return "no postgres user: install Debian's postgresql (scripts/setup.sh)";
    if (bin_dir().empty()) return "no initdb/pg_ctl under /usr/lib/postgresql: install postgresql (scripts/setup.sh)";
    return std::nullopt;
  }

  PostgresServer() {
    std::string pattern = "/tmp/kbench-pg-XXXXXX";
    dir_ = mkdtemp(pattern.data());
    const passwd* user = getpwnam("postgres");
    if (chown(dir_.c_str(), user->pw_uid, user->pw_gid) != 0) throw std::runtime_error("chown " + dir_.string());
    port_ = free_port();
    const std::string bin = bin_dir();
    run(fmt::format("{}/initdb -D {}/data -U kbench -A trust --no-sync -E UTF8 >{}/initdb.log 2>&1", bin,
                    dir_.string(), dir_.string()));
    // Unix socket in the temp dir, TCP on loopback only; durability is not what is tested.
    run(fmt::format("{0}/pg_ctl -D {1}/data -l {1}/server.log -w -t 60 -o \"-p {2} -k {1} -c "
                    "listen_addresses=127.0.0.1 -c fsync=off\" start >{1}/pg_ctl.log 2>&1",
                    bin, dir_.string(), port_));
    started_ = true;
  }
  ~PostgresServer() {
    if (started_)
      (void)std::system(fmt::format("runuser -u postgres -- {}/pg_ctl -D {}/data -m immediate -w stop >/dev/null 2>&1",
                                    bin_dir(), dir_.string())
                            .c_str());
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }
  PostgresServer(const PostgresServer&) = delete;
  PostgresServer& operator=(const PostgresServer&) = delete;

  [[nodiscard]] std::string url() const { return fmt::format("postgresql://kbench@127.0.0.1:{}/postgres", port_); }
  [[nodiscard]] int port() const { return port_; }

 private:
  static std::string bin_dir() {
    std::error_code ec;
    for (const auto& entry : std::filesystem::directory_iterator("/usr/lib/postgresql", ec))
      if (std::filesystem::exists(entry.path() / "bin" / "pg_ctl")) return (entry.path() / "bin").string();
    return "";
  }
  static int free_port() {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t size = sizeof address;
    bind(fd, reinterpret_cast<sockaddr*>(&address), size);
    getsockname(fd, reinterpret_cast<sockaddr*>(&address), &size);
    close(fd);
    return ntohs(address.sin_port);
  }
  void run(const std::string& command) const {
    if (std::system(("cd / && runuser -u postgres -- sh -c '" + command + "'").c_str()) != 0)
      throw std::runtime_error(fmt::format("PostgreSQL did not start ({}); logs in {}", command, dir_.string()));
  }

  std::filesystem::path dir_;
  int port_ = 0;
  bool started_ = false;
};

}  // namespace kbench::test
