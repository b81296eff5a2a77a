// haptics/rtt_udp: the round trip of our haptic datagram channel against a raw UDP echo, in
// the same run. Each 1 ms period sends one message on each of three loopback transports, in
// an order that rotates every period:
//  - ours: a HapticsService session over datagrams on a probe pressed 5 mm into the floor (a
//    contact in its local model), the server solving the tool for every pose, each
//    datagram sealed and opened with ChaCha20-Poly1305 on both sides;
//  - raw UDP: an echo of datagrams of our pose datagram's size by a blocking thread, no
//    crypto, no physics, its reply read by a blocking read;
//  - bounded raw UDP: the same echo, its reply waited for as our client waits for a force
//    (polling 0.1 ms, then a timed sleep up to 0.8 ms), as a client that must not block
//    past its device period has to.
// One line per echo: median and p99 of ours against the echo's, ratio = ours / echo
// (medians); the notes hold the p99 ratio against the blocking echo (target <= 1.2) and the
// messages over 1 ms on each side (target: no more than the echo).

#include <chrono>
#include <cstdio>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/cpp/haptic_session.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "tests/bench/haptics/haptic_bench_util.h"
#include "tests/bench/haptics/peer_process.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

constexpr char kName[] = "haptics/rtt_udp";
using Clock = std::chrono::steady_clock;

haptics::DevicePose PressedPose(uint64_t seq) {
  haptics::DevicePose pose;
  pose.sequence = seq;
  pose.client_time = seq * 1e-3;
  pose.position = Vec3(0, 0.005, 0);  // 5 mm into the floor
  return pose;
}

RunResult Run(const RunOptions& options) {
  RunResult result;
  const int periods = options.quick ? 2000 : 10000;
  auto peers = PeerProcess::Start(1);
  if (!peers.ok()) {
    std::fprintf(stderr, "[%s] %s\n", kName, peers.status().ToString().c_str());
    result.ok = false;
    return result;
  }
  const PeerPorts ports = (*peers)->ports();
  const int bytes = PoseDatagramBytes();
  EchoClient udp(EchoClient::Kind::kUdp, ports.udp_echo, bytes);
  EchoClient bounded(EchoClient::Kind::kUdp, ports.udp_echo, bytes);
  auto channel = grpc::CreateChannel(absl::StrCat("127.0.0.1:", ports.ligatured),
                                     grpc::InsecureChannelCredentials());
  v1::HapticOpen open;
  open.set_world("worlds/probes");
  open.set_tool_body_id("probe0");
  open.set_device_id("bench");
  open.set_datagrams(true);
  client::HapticSessionOptions session_options;
  session_options.datagram_host = "127.0.0.1";
  // A stall of the loaded machine must not turn the session to its stream mid-run.
  session_options.fallback_after = 1.0;
  auto session = client::HapticSession::Open(channel, open, session_options);
  if (!udp.ok() || !bounded.ok() || !session.ok() ||
      (*session)->transport() != client::HapticSession::Transport::kDatagrams) {
    std::fprintf(stderr, "[%s] no datagram session or no UDP echo: %s\n", kName,
                 session.ok() ? "no offer" : session.status().ToString().c_str());
    result.ok = false;
    return result;
  }

  std::fprintf(stderr, "[%s] %d periods of 1 ms, three transports each\n", kName, periods);
  std::vector<double> ours_us, udp_us, bounded_us;
  int contacts = 0, lost = 0, echo_lost = 0;
  uint64_t seq = 0;
  auto deadline = Clock::now();
  const int settle = 300;  // the probe settles on the floor first (untimed)
  for (int p = 0; p < settle + periods; ++p) {
    deadline += std::chrono::milliseconds(1);
    PaceUntil(deadline);
    for (int k = 0; k < 3; ++k) {
      const int which = (p + k) % 3;
      const auto t0 = Clock::now();
      if (which == 0) {
        const haptics::DevicePose pose = PressedPose(++seq);
        auto r = (*session)->Force(pose);
        if (!r.ok()) {
          result.ok = false;
          return result;
        }
        contacts = r->contacts;
        if (r->sequence != pose.sequence && p >= settle) ++lost;
      } else if (!(which == 1 ? udp.RoundTrip()
                              : bounded.BoundedRoundTrip(session_options.reply_spin,
                                                         session_options.reply_wait)) &&
                 p >= settle) {
        ++echo_lost;
      }
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      if (p >= settle) (which == 0 ? ours_us : which == 1 ? udp_us : bounded_us).push_back(us);
    }
  }
  const bool stayed = (*session)->transport() == client::HapticSession::Transport::kDatagrams;
  (void)(*session)->Close();
  result.ok = result.ok && stayed;

  const std::string notes = absl::StrCat(
      "p99 ratio vs raw-udp=", Percentile(ours_us, 99.0) / Percentile(udp_us, 99.0),
      " (target <= 1.2); over 1 ms ours=", CountOver(ours_us, 1000.0),
      " raw-udp=", CountOver(udp_us, 1000.0), " (target: ours <= raw-udp); ours ",
      LatencySummary(ours_us), " lost=", lost, " contacts=", contacts, "; raw-udp ",
      LatencySummary(udp_us), "; bounded raw-udp ", LatencySummary(bounded_us),
      "; echoes lost=", echo_lost, "; ", bytes,
      "-byte datagrams on loopback, servers in a second process, 1 kHz, rotating order, "
      "world 100 Hz, probe pressed 5 mm into the floor; ours seals and opens every datagram "
      "(ChaCha20-Poly1305) and solves the tool, the echo does neither");
  result.json_lines.push_back(RoundTripLine(kName, ours_us, "raw-udp-echo", udp_us, notes));
  result.json_lines.push_back(
      RoundTripLine(kName, ours_us, "raw-udp-echo-bounded-wait", bounded_us, notes));
  return result;
}

const Registrar kRegistrar(Benchmark{kName, Run});

}  // namespace
}  // namespace ligature::bench
