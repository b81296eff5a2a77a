#include "server/ops/agones_sdk.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

// Closes a socket when it goes out of scope.
struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) close(fd);
  }
};

absl::Status Unavailable(const std::string& path, const std::string& why) {
  return absl::UnavailableError(absl::StrCat("agones sdk ", path, ": ", why));
}

}  // namespace

absl::Status PostAgonesSdk(int port, const std::string& path, absl::Duration timeout) {
  // Connect to the sidecar on loopback; the send/receive timeouts bound connect too.
  Socket s{socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)};
  if (s.fd < 0) return Unavailable(path, std::strerror(errno));
  const timeval tv = absl::ToTimeval(timeout);
  setsockopt(s.fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
  setsockopt(s.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(s.fd, reinterpret_cast<const sockaddr*>(&addr), sizeof(addr)) != 0) {
    return Unavailable(path, absl::StrCat("connect to 127.0.0.1:", port, ": ",
                                          std::strerror(errno)));
  }

  // One request with an empty JSON object, the connection closed after it.
  const std::string request = absl::StrCat(
      "POST ", path, " HTTP/1.1\r\nHost: 127.0.0.1:", port,
      "\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}");
  for (size_t sent = 0; sent < request.size();) {
    const ssize_t n = send(s.fd, request.data() + sent, request.size() - sent, MSG_NOSIGNAL);
    if (n <= 0) return Unavailable(path, absl::StrCat("send: ", std::strerror(errno)));
    sent += static_cast<size_t>(n);
  }

  // The status line is all that matters: "HTTP/1.1 200 OK".
  std::string reply;
  char buffer[512];
  while (reply.find("\r\n") == std::string::npos && reply.size() < 4096) {
    const ssize_t n = recv(s.fd, buffer, sizeof(buffer), 0);
    if (n < 0) return Unavailable(path, absl::StrCat("receive: ", std::strerror(errno)));
    if (n == 0) break;
    reply.append(buffer, static_cast<size_t>(n));
  }
  const std::string line = reply.substr(0, reply.find("\r\n"));
  const size_t space = line.find(' ');
  int code = 0;
  if (line.rfind("HTTP/", 0) != 0 || space == std::string::npos ||
      !absl::SimpleAtoi(line.substr(space + 1, 3), &code)) {
    return Unavailable(path, absl::StrCat("not an HTTP reply: \"", line, "\""));
  }
  if (code < 200 || code > 299) return Unavailable(path, absl::StrCat("HTTP ", code));
  return absl::OkStatus();
}

absl::StatusOr<std::optional<int>> AgonesSdk::PortFromEnv() {
  const char* value = std::getenv("AGONES_SDK_HTTP_PORT");
  if (value == nullptr || *value == '\0') return std::optional<int>();
  int port = 0;
  if (!absl::SimpleAtoi(value, &port) || port < 1 || port > 65535) {
    return absl::InvalidArgumentError(
        absl::StrCat("AGONES_SDK_HTTP_PORT: not a port number: \"", value, "\""));
  }
  return std::optional<int>(port);
}

AgonesSdk::AgonesSdk(int port, absl::Duration health_period, absl::Duration timeout)
    : port_(port), health_period_(health_period), timeout_(timeout) {}

AgonesSdk::~AgonesSdk() { StopHealth(); }

absl::Status AgonesSdk::Shutdown() {
  StopHealth();
  return PostAgonesSdk(port_, "/shutdown", timeout_);
}

void AgonesSdk::StartHealth() {
  absl::MutexLock lock(&mu_);
  if (health_.joinable()) return;
  stop_ = false;
  health_ = std::thread([this] { HealthLoop(); });
}

void AgonesSdk::StopHealth() {
  // Setting the flag wakes the thread's Await when mu_ is released.
  {
    absl::MutexLock lock(&mu_);
    stop_ = true;
  }
  if (health_.joinable()) health_.join();
}

// One ping per period, the first at once; failures are logged on a change only. mu_ is
// held throughout except during a ping.
void AgonesSdk::HealthLoop() {
  bool failing = false;
  mu_.Lock();
  while (!stop_) {
    mu_.Unlock();
    const absl::Status s = Health();
    mu_.Lock();
    if (!s.ok() && !failing) {
      std::fprintf(stderr, "ligatured: %s\n", std::string(s.message()).c_str());
    }
    failing = !s.ok();
    mu_.AwaitWithTimeout(absl::Condition(&stop_), health_period_);
  }
  mu_.Unlock();
}

}  // namespace ligature
