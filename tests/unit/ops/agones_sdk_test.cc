#include "server/ops/agones_sdk.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"

namespace ligature {
namespace {

// A stand-in for the Agones sidecar: a loopback HTTP listener that records each request
// (request line, content type, body) and answers with `status`.
class FakeSidecar {
 public:
  explicit FakeSidecar(int status = 200) : status_(status) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr));
    listen(fd_, 16);
    socklen_t len = sizeof(addr);
    getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { Serve(); });
  }
  ~FakeSidecar() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }

  int port() const { return port_; }

  struct Request {
    std::string line;  // "POST /ready HTTP/1.1"
    std::string content_type;
    std::string body;
  };

  // Waits (up to a generous bound, so a broken client fails instead of hanging) until
  // `count` requests with request line `line` arrived; returns how many did.
  int WaitFor(const std::string& line, int count) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::seconds(30), [&] { return CountLocked(line) >= count; });
    return CountLocked(line);
  }

  std::vector<Request> requests() {
    std::lock_guard<std::mutex> lock(mu_);
    return requests_;
  }

 private:
  int CountLocked(const std::string& line) {
    int n = 0;
    for (const Request& r : requests_) n += r.line == line;
    return n;
  }

  // One request per connection: headers, then Content-Length bytes of body.
  void Serve() {
    while (!stop_) {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) continue;
      std::string data;
      char buf[1024];
      size_t body_start = std::string::npos;
      size_t length = 0;
      while (true) {
        if (body_start == std::string::npos) {
          body_start = data.find("\r\n\r\n");
          if (body_start != std::string::npos) {
            body_start += 4;
            const size_t at = data.find("Content-Length: ");
            if (at != std::string::npos) {
              absl::SimpleAtoi(data.substr(at + 16, data.find("\r\n", at) - at - 16), &length);
            }
          }
        }
        if (body_start != std::string::npos && data.size() >= body_start + length) break;
        const ssize_t n = recv(c, buf, sizeof(buf), 0);
        if (n <= 0) break;
        data.append(buf, static_cast<size_t>(n));
      }
      Request r;
      r.line = data.substr(0, data.find("\r\n"));
      const size_t ct = data.find("Content-Type: ");
      if (ct != std::string::npos) r.content_type = data.substr(ct + 14, data.find("\r\n", ct) - ct - 14);
      if (body_start != std::string::npos) r.body = data.substr(body_start);
      // Recorded before the reply, so that a caller whose post returned finds it.
      {
        std::lock_guard<std::mutex> lock(mu_);
        requests_.push_back(r);
      }
      cv_.notify_all();
      const std::string reply = "HTTP/1.1 " + std::to_string(status_) +
                                " X\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}";
      send(c, reply.data(), reply.size(), MSG_NOSIGNAL);
      close(c);
    }
  }

  const int status_;
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Request> requests_;
};

// Ready, periodic health and shutdown reach the sidecar as JSON POSTs with body {}; no
// health ping follows shutdown.
TEST(AgonesSdkTest, PostsReadyHealthAndShutdown) {
  FakeSidecar sidecar;
  AgonesSdk sdk(sidecar.port(), absl::Milliseconds(20));
  ASSERT_TRUE(sdk.Ready().ok());
  sdk.StartHealth();
  EXPECT_GE(sidecar.WaitFor("POST /health HTTP/1.1", 3), 3);
  ASSERT_TRUE(sdk.Shutdown().ok());
  const std::vector<FakeSidecar::Request> requests = sidecar.requests();
  ASSERT_GE(requests.size(), 5u);
  EXPECT_EQ(requests.front().line, "POST /ready HTTP/1.1");
  EXPECT_EQ(requests.back().line, "POST /shutdown HTTP/1.1");
  for (const auto& r : requests) {
    EXPECT_EQ(r.content_type, "application/json") << r.line;
    EXPECT_EQ(r.body, "{}") << r.line;
  }
}

// A sidecar answering an error, and one that is not there, give UNAVAILABLE.
TEST(AgonesSdkTest, ErrorReplyOrNoSidecarIsUnavailable) {
  FakeSidecar failing(500);
  absl::Status s = PostAgonesSdk(failing.port(), "/ready", absl::Seconds(5));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable);
  EXPECT_NE(s.message().find("HTTP 500"), std::string::npos) << s;

  int closed_port = 0;
  {
    FakeSidecar gone;
    closed_port = gone.port();
  }
  s = PostAgonesSdk(closed_port, "/ready", absl::Seconds(5));
  EXPECT_EQ(s.code(), absl::StatusCode::kUnavailable) << s;
}

// The port comes from AGONES_SDK_HTTP_PORT: unset means not under Agones, garbage is an
// error naming the variable.
TEST(AgonesSdkTest, PortFromEnvironment) {
  unsetenv("AGONES_SDK_HTTP_PORT");
  auto port = AgonesSdk::PortFromEnv();
  ASSERT_TRUE(port.ok());
  EXPECT_FALSE(port->has_value());
  setenv("AGONES_SDK_HTTP_PORT", "9358", 1);
  port = AgonesSdk::PortFromEnv();
  ASSERT_TRUE(port.ok());
  EXPECT_EQ(port->value(), 9358);
  for (const char* bad : {"http", "0", "70000", "93a"}) {
    setenv("AGONES_SDK_HTTP_PORT", bad, 1);
    port = AgonesSdk::PortFromEnv();
    EXPECT_EQ(port.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_NE(port.status().message().find("AGONES_SDK_HTTP_PORT"), std::string::npos);
  }
  unsetenv("AGONES_SDK_HTTP_PORT");
}

}  // namespace
}  // namespace ligature
