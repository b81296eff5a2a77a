// haptics/rtt: the round trip of our haptic stream against the transport floor, in the
// same run. Each 1 ms period sends one message on each of three loopback transports, in an
// order that rotates every period:
//  - ours: a HapticsService session on a probe pressed 5 mm into the floor (a contact in
//    its local model), the server solving the tool for every pose;
//  - raw TCP: a 96-byte echo over a TCP_NODELAY socket (a thread blocking in read/write);
//  - bare gRPC: a callback-API bidi echo of the same messages, no physics.
// One line per peer: median and p99 of ours, the peer's median and p99, ratio = ours /
// peer (medians); notes hold p99.9, max and messages over 1 ms for each, and the p99 ratio
// against raw TCP (target: within 1.5).

#include <chrono>
#include <cstdio>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/cpp/haptic_session.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "ligature/v1/haptics_service.grpc.pb.h"
#include "tests/bench/haptics/haptic_bench_util.h"
#include "tests/bench/haptics/peer_process.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

constexpr char kName[] = "haptics/rtt";
constexpr int kEchoBytes = 96;
using Clock = std::chrono::steady_clock;

// A line against `peer`, its notes led by our p99 against the raw TCP echo's.
std::string LineFor(const std::vector<double>& ours, const std::vector<double>& peer,
                    const std::string& peer_name, const std::vector<double>& tcp,
                    const std::string& notes) {
  return RoundTripLine(kName, ours, peer_name, peer,
                       absl::StrCat("p99 ratio vs raw-tcp=",
                                    Percentile(ours, 99.0) / Percentile(tcp, 99.0),
                                    " (target <= 1.5); ", notes));
}

RunResult Run(const RunOptions& options) {
  RunResult result;
  const int periods = options.quick ? 2000 : 10000;
  // The three servers run in a process of their own (see peer_process.h).
  auto peers = PeerProcess::Start(1);
  if (!peers.ok()) {
    std::fprintf(stderr, "[%s] %s\n", kName, peers.status().ToString().c_str());
    result.ok = false;
    return result;
  }
  const PeerPorts ports = (*peers)->ports();
  EchoClient tcp(EchoClient::Kind::kTcp, ports.tcp_echo, kEchoBytes);
  if (!tcp.ok()) {
    std::fprintf(stderr, "[%s] cannot reach the TCP echo\n", kName);
    result.ok = false;
    return result;
  }
  auto ours_channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", ports.ligatured),
                                          grpc::InsecureChannelCredentials());
  v1::HapticOpen open;
  open.set_world("worlds/probes");
  open.set_tool_body_id("probe0");
  open.set_device_id("bench");
  auto session = client::HapticSession::Open(ours_channel, open);
  if (!session.ok()) {
    std::fprintf(stderr, "[%s] %s\n", kName, session.status().ToString().c_str());
    result.ok = false;
    return result;
  }
  auto echo_channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", ports.grpc_echo),
                                          grpc::InsecureChannelCredentials());
  auto echo_stub = v1::HapticsService::NewStub(echo_channel);
  grpc::ClientContext echo_ctx;
  auto echo = echo_stub->Haptics(&echo_ctx);

  std::fprintf(stderr, "[%s] %d periods of 1 ms, three transports each\n", kName, periods);
  std::vector<double> ours_us, tcp_us, grpc_us;
  int contacts = 0;
  uint64_t seq = 0;
  auto deadline = Clock::now();
  v1::HapticsRequest req;
  v1::HapticsResponse resp;
  // Settle the probe on the floor first (untimed).
  const int settle = 300;
  for (int p = 0; p < settle + periods; ++p) {
    deadline += std::chrono::milliseconds(1);
    PaceUntil(deadline);
    for (int k = 0; k < 3; ++k) {
      const int which = (p + k) % 3;
      const auto t0 = Clock::now();
      if (which == 0) {
        haptics::DevicePose pose;
        pose.sequence = ++seq;
        pose.client_time = seq * 1e-3;
        pose.position = Vec3(0, 0.005, 0);  // 5 mm into the floor
        auto r = (*session)->Force(pose);
        if (!r.ok()) {
          result.ok = false;
          return result;
        }
        contacts = r->contacts;
      } else if (which == 1) {
        if (!tcp.RoundTrip()) result.ok = false;
      } else {
        req.Clear();
        req.mutable_pose()->set_sequence(seq);
        req.mutable_pose()->mutable_position()->set_y(0.005);
        if (!echo->Write(req) || !echo->Read(&resp)) result.ok = false;
      }
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      if (p < settle) continue;
      (which == 0 ? ours_us : which == 1 ? tcp_us : grpc_us).push_back(us);
    }
  }
  (void)(*session)->Close();
  echo->WritesDone();
  (void)echo->Finish();

  const std::string notes = absl::StrCat(
      "ours ", LatencySummary(ours_us), " contacts=", contacts, "; raw-tcp ",
      LatencySummary(tcp_us), "; grpc-echo ", LatencySummary(grpc_us),
      "; loopback, servers in a second process, 1 kHz, rotating order, world 100 Hz, probe "
      "pressed 5 mm into the floor");
  result.json_lines.push_back(LineFor(ours_us, tcp_us, "raw-tcp-echo", tcp_us, notes));
  result.json_lines.push_back(LineFor(ours_us, grpc_us, "grpc-bidi-echo", tcp_us, notes));
  return result;
}

const Registrar kRegistrar(Benchmark{kName, Run});

}  // namespace
}  // namespace ligature::bench
