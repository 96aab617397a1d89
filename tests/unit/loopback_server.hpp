#pragma once
// A TCP listener on 127.0.0.1 (a free port) that sandboxed workers try to reach: whether any
// connection arrived tells if the worker had network access.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <stdexcept>

namespace kbench::test {

class LoopbackServer {
 public:
  LoopbackServer() : fd_(socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        listen(fd_, 4) != 0 || getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0)
      throw std::runtime_error("cannot listen on the loopback");
    port_ = ntohs(address.sin_port);
  }
  ~LoopbackServer() { close(fd_); }
  LoopbackServer(const LoopbackServer&) = delete;
  LoopbackServer& operator=(const LoopbackServer&) = delete;

  int port() const { return port_; }
  // True when a connection is waiting (non-blocking; call after the worker ended).
  bool was_connected() const {
    const int accepted = accept(fd_, nullptr, nullptr);
    if (accepted < 0) return false;
    close(accepted);
    return true;
  }

 private:
  int fd_;
  int port_ = 0;
};

}  // namespace kbench::test
