#include "tests/bench/haptics/peer_process.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "grpcpp/security/server_credentials.h"
#include "grpcpp/server_builder.h"
#include "ligature/v1/haptics_service.grpc.pb.h"
#include "ligature/v1/query_service.grpc.pb.h"
#include "tests/bench/child_process.h"
#include "tests/bench/haptics/haptic_bench_util.h"

namespace ligature::bench {
namespace {

constexpr int kEchoBytes = 96;

void NoDelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

bool ReadAll(int fd, char* p, int bytes) {
  for (int got = 0; got < bytes;) {
    const ssize_t n = read(fd, p + got, bytes - got);
    if (n <= 0) return false;
    got += static_cast<int>(n);
  }
  return true;
}

bool WriteAll(int fd, const char* p, int bytes) {
  for (int put = 0; put < bytes;) {
    const ssize_t n = write(fd, p + put, bytes - put);
    if (n <= 0) return false;
    put += static_cast<int>(n);
  }
  return true;
}

// A callback-API HapticsService that answers every pose with an empty force at once.
class EchoReactor final : public grpc::ServerBidiReactor<v1::HapticsRequest, v1::HapticsResponse> {
 public:
  EchoReactor() { StartRead(&in_); }
  void OnReadDone(bool ok) override {
    if (!ok) {
      Finish(grpc::Status::OK);
      return;
    }
    out_.Clear();
    out_.mutable_force()->set_sequence(in_.pose().sequence());
    out_.mutable_force()->set_client_time(in_.pose().client_time());
    StartWrite(&out_);
  }
  void OnWriteDone(bool ok) override {
    if (ok) {
      StartRead(&in_);
    } else {
      Finish(grpc::Status::OK);
    }
  }
  void OnDone() override { delete this; }

 private:
  v1::HapticsRequest in_;
  v1::HapticsResponse out_;
};

class EchoService final : public v1::HapticsService::CallbackService {
  grpc::ServerBidiReactor<v1::HapticsRequest, v1::HapticsResponse>* Haptics(
      grpc::CallbackServerContext*) override {
    return new EchoReactor();
  }
};

// A QueryService that does no query work: each request on a stream gets, at once, a
// response of the shape a pointer's answer has (one hit per query, on the first probe).
class QueryEchoService final : public v1::QueryService::Service {
  grpc::Status StreamQueries(
      grpc::ServerContext*,
      grpc::ServerReaderWriter<v1::QueryResponse, v1::QueryRequest>* stream) override {
    v1::QueryRequest req;
    v1::QueryResponse resp;
    while (stream->Read(&req)) {
      resp.Clear();
      resp.set_world(req.world());
      resp.set_request_id(req.request_id());
      for (int i = 0; i < req.queries_size(); ++i) {
        v1::QueryHit* hit = resp.add_results()->add_hits();
        hit->set_body("probe0");
        hit->set_distance(1.0);
        hit->mutable_point()->set_y(0.02);
        hit->mutable_normal()->set_y(1.0);
        hit->set_child(-1);
        hit->set_triangle(-1);
        hit->set_segment(-1);
      }
      if (!stream->Write(resp)) break;
    }
    return grpc::Status::OK;
  }
};

// Listens on a loopback port; every connection gets a thread echoing fixed-size messages.
int ListenTcpEcho(std::vector<std::thread>* threads, int* listen_fd) {
  *listen_fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(*listen_fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) return 0;
  if (listen(*listen_fd, 8) != 0) return 0;
  socklen_t len = sizeof(addr);
  getsockname(*listen_fd, reinterpret_cast<sockaddr*>(&addr), &len);
  threads->emplace_back([fd = *listen_fd] {
    std::vector<std::thread> echoes;
    for (;;) {
      const int c = accept(fd, nullptr, nullptr);
      if (c < 0) break;
      NoDelay(c);
      echoes.emplace_back([c] {
        char buf[kEchoBytes];
        while (ReadAll(c, buf, kEchoBytes) && WriteAll(c, buf, kEchoBytes)) {
        }
        close(c);
      });
    }
    for (std::thread& t : echoes) t.detach();
  });
  return ntohs(addr.sin_port);
}

// A UDP socket on a loopback port whose thread sends every datagram back where it came from.
int ListenUdpEcho(std::vector<std::thread>* threads, int* fd) {
  *fd = socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(*fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) return 0;
  socklen_t len = sizeof(addr);
  getsockname(*fd, reinterpret_cast<sockaddr*>(&addr), &len);
  threads->emplace_back([fd = *fd] {
    char buf[2048];
    for (;;) {
      sockaddr_in from{};
      socklen_t from_len = sizeof(from);
      const ssize_t n =
          recvfrom(fd, buf, sizeof(buf), 0, reinterpret_cast<sockaddr*>(&from), &from_len);
      if (n <= 0) break;
      sendto(fd, buf, n, 0, reinterpret_cast<sockaddr*>(&from), from_len);
    }
  });
  return ntohs(addr.sin_port);
}

// Sleeps in ppoll until `fd` can be read or `left` (under a second) has passed.
void SleepUntilReadable(int fd, std::chrono::duration<double> left) {
  timespec timeout{0, static_cast<long>(left.count() * 1e9)};
  pollfd fds{fd, POLLIN, 0};
  ppoll(&fds, 1, &timeout, nullptr);
}

}  // namespace

absl::StatusOr<std::unique_ptr<PeerProcess>> PeerProcess::Start(int probes) {
  std::string ready;
  auto child = ChildProcess::Start(kServeEnv, absl::StrCat(probes), &ready);
  if (!child.ok()) return child.status();
  std::unique_ptr<PeerProcess> p(new PeerProcess());
  PeerPorts& ports = p->ports_;
  if (std::sscanf(ready.c_str(), "ports %d %d %d %d", &ports.ligatured, &ports.grpc_echo,
                  &ports.tcp_echo, &ports.udp_echo) != 4) {
    return absl::UnavailableError("the peer process did not start its servers");
  }
  p->child_ = *std::move(child);
  return p;
}

int ServeHapticsPeers(int probes) {
  auto server = StartProbeServer(probes);
  if (!server.ok()) {
    std::fprintf(stderr, "peers: %s\n", server.status().ToString().c_str());
    return 1;
  }
  EchoService echo_service;
  QueryEchoService query_echo_service;
  grpc::ServerBuilder builder;
  int echo_port = 0;
  builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &echo_port);
  builder.RegisterService(&echo_service);
  builder.RegisterService(&query_echo_service);
  std::unique_ptr<grpc::Server> echo_server = builder.BuildAndStart();
  std::vector<std::thread> threads;
  int listen_fd = -1;
  const int tcp_port = ListenTcpEcho(&threads, &listen_fd);
  int udp_fd = -1;
  const int udp_port = ListenUdpEcho(&threads, &udp_fd);
  if (echo_server == nullptr || tcp_port == 0 || udp_port == 0) return 1;
  AnnounceAndWaitForParent(
      absl::StrCat("ports ", server->server->port(), " ", echo_port, " ", tcp_port, " ", udp_port));
  shutdown(listen_fd, SHUT_RDWR);
  close(listen_fd);
  shutdown(udp_fd, SHUT_RDWR);  // wakes the UDP echo's recvfrom
  for (std::thread& t : threads) t.join();
  echo_server->Shutdown(std::chrono::system_clock::now());
  server->server->Shutdown(absl::Milliseconds(100));
  // Echo threads may still block on sockets the parent closed: leave without joining.
  std::fflush(stdout);
  _exit(0);
}

EchoClient::EchoClient(Kind kind, int port, int bytes) : bytes_(bytes) {
  const int fd = socket(AF_INET, kind == Kind::kTcp ? SOCK_STREAM : SOCK_DGRAM, 0);
  if (kind == Kind::kTcp) {
    NoDelay(fd);
  } else {
    timeval wait{1, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof(wait));
  }
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0) {
    fd_ = fd;
  } else {
    close(fd);
  }
}

EchoClient::~EchoClient() {
  if (fd_ >= 0) close(fd_);
}

// A connected UDP socket sends and reads whole datagrams, so the same calls serve both.
bool EchoClient::RoundTrip() {
  std::vector<char> buf(bytes_, 0);
  return WriteAll(fd_, buf.data(), bytes_) && ReadAll(fd_, buf.data(), bytes_);
}

bool EchoClient::BoundedRoundTrip(double spin, double wait) {
  std::vector<char> buf(bytes_, 0);
  // A reply that came after an earlier message's wait is not this one's.
  while (recv(fd_, buf.data(), bytes_, MSG_DONTWAIT) >= 0) {
  }
  if (send(fd_, buf.data(), bytes_, 0) != bytes_) return false;
  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  const auto spin_until = start + std::chrono::duration<double>(spin);
  const auto deadline = start + std::chrono::duration<double>(wait);
  while (recv(fd_, buf.data(), bytes_, MSG_DONTWAIT) != bytes_) {
    const auto now = Clock::now();
    if (now >= deadline) return false;
    if (now < spin_until) {
      sched_yield();
      continue;
    }
    SleepUntilReadable(fd_, deadline - now);
  }
  return true;
}

uint64_t EchoClient::NumberedRoundTrip(uint64_t number, int copies, double wait) {
  std::vector<char> buf(std::max<int>(bytes_, sizeof(number)), 0);
  std::memcpy(buf.data(), &number, sizeof(number));
  for (int copy = 0; copy < copies; ++copy) send(fd_, buf.data(), buf.size(), MSG_DONTWAIT);
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::duration<double>(wait);
  uint64_t highest = 0;
  while (highest != number) {
    const ssize_t n = recv(fd_, buf.data(), buf.size(), MSG_DONTWAIT);
    if (n >= static_cast<ssize_t>(sizeof(number))) {
      uint64_t echoed = 0;
      std::memcpy(&echoed, buf.data(), sizeof(echoed));
      highest = std::max(highest, echoed);
      continue;
    }
    const auto now = Clock::now();
    if (now >= deadline) break;
    SleepUntilReadable(fd_, deadline - now);
  }
  return highest;
}

}  // namespace ligature::bench
