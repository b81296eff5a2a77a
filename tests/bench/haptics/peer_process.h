#pragma once
// The servers of the haptics round-trip benchmark in a process of their own, as a device
// station and the physics server are in use: a ligatured with the probe world (and its
// haptic datagram port), a bare gRPC bidi echo of the haptics messages and of scene queries
// (the same server), a raw TCP echo (TCP_NODELAY, a blocking thread per connection) and a
// raw UDP echo (a blocking thread).
//
// Why a second process: gRPC's default poller (epoll1) keeps one epoll set per process and
// lets whichever gRPC thread is polling read any socket. With client and server in one
// process, the server's polling threads read most of the client's replies and must then
// wake the client thread (an eventfd kick and a context switch per message), a cost no
// separate device process pays. The TCP echo's blocking threads never share a poller, so
// only the gRPC transports were penalized.
//
// The child is this executable again (/proc/self/exe) with kServeEnv set; main() hands it
// to ServeHapticsPeers, which prints "ports <ligatured> <grpc-echo> <tcp-echo> <udp-echo>"
// on stdout and serves until its stdin closes.

#include <sys/types.h>

#include <string>

#include "absl/status/statusor.h"
#include "tests/bench/child_process.h"

namespace ligature::bench {

inline constexpr char kServeEnv[] = "LIGATURE_BENCH_SERVE_HAPTICS_PEERS";

struct PeerPorts {
  int ligatured = 0;
  int grpc_echo = 0;
  int tcp_echo = 0;
  int udp_echo = 0;
};

// The parent's handle on the child; the destructor ends it (closes its stdin, waits).
class PeerProcess {
 public:
  // Starts the child with `probes` probe bodies in its world.
  static absl::StatusOr<std::unique_ptr<PeerProcess>> Start(int probes);
  const PeerPorts& ports() const { return ports_; }

 private:
  PeerProcess() = default;
  std::unique_ptr<ChildProcess> child_;
  PeerPorts ports_;
};

// The child's side: runs the servers until stdin closes. Returns the exit code.
int ServeHapticsPeers(int probes);

// A connected client socket to a TCP (or UDP) echo of `bytes`-sized messages on
// 127.0.0.1:port. A UDP round trip gives up after a second.
class EchoClient {
 public:
  enum class Kind { kTcp, kUdp };
  EchoClient(Kind kind, int port, int bytes);
  ~EchoClient();
  bool ok() const { return fd_ >= 0; }
  bool RoundTrip();
  // UDP only: the reply waited for as the haptic client waits for a force: polling the socket
  // for `spin` seconds, then sleeping in ppoll until `wait` has passed; false when nothing
  // came by then. A late reply to an earlier message is dropped first.
  bool BoundedRoundTrip(double spin, double wait);
  // UDP only: message `number` (carried in its first 8 bytes) sent in `copies` datagrams, and
  // the echoes waited for (sleeping, as a device thread that must not spin) until one of
  // them carries `number` or `wait` seconds have passed. Returns the highest number echoed
  // meanwhile, 0 when nothing came.
  uint64_t NumberedRoundTrip(uint64_t number, int copies, double wait);

 private:
  int fd_ = -1;
  int bytes_ = 0;
};

}  // namespace ligature::bench
