// haptics/lossy: forces at a device over a lossy network. In the loss rig (loss_rig.h) a
// device at 1 kHz holds a probe pressed 5 mm into the floor, through our datagram channel
// and, in turn, through our gRPC stream (each its own probe and session), at 1 %, 5 % and
// 10 % random loss of every packet each way. What a device feels is the gap between fresh
// forces (a force answering a pose newer than the last one's): a lost datagram is replaced
// by the next period's, a lost TCP segment holds every force behind it until it is sent
// again.
// Beside them, the floor: a raw UDP echo device in the same rig, paced and waiting alike,
// each message in as many copies as ours (floor_max_gap_ms).
// One line per loss rate: our gaps' median and p99 against the stream's, ratio = ours /
// stream (medians); max_gap_ms and peer_max_gap_ms are the longest gaps (targets for ours:
// 3 ms at 1 %, 5 ms at 5 %, 8 ms at 10 %); the notes hold p99.9 of both, the poses whose
// force was lost, and the largest force and force step the device was given.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/cpp/haptic_session.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "tests/bench/haptics/haptic_bench_util.h"
#include "tests/bench/haptics/loss_rig.h"
#include "tests/bench/haptics/peer_process.h"
#include "tests/bench/json_line.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

constexpr char kName[] = "haptics/lossy";
using Clock = std::chrono::steady_clock;

struct LossLevel {
  double percent;
  double target_ms;  // the longest gap allowed ours
};
constexpr LossLevel kLevels[] = {{1.0, 3.0}, {5.0, 5.0}, {10.0, 8.0}};

// What the device felt over one run.
struct Felt {
  std::vector<double> gaps_ms;  // between fresh forces
  int lost = 0;                 // poses answered with an older force
  double max_force = 0.0;       // N
  double max_step = 0.0;        // N, between consecutive outputs
  bool ok = true;
};

// What a device got in one period: the sequence number its answer was for, and the force
// (zero for an echo).
struct Answer {
  uint64_t sequence = 0;
  Vec3 force = Vec3::Zero();
};

// `periods` device periods of 1 ms (a period that starts late starts the schedule again, as
// a device loop that cannot catch up would), each one message numbered from `*sequence` on
// and answered by `exchange(number)`, or nothing when the session failed. A fresh answer is
// one for a message newer than the last fresh one's.
Felt Feel(int periods, uint64_t* sequence,
          const std::function<std::optional<Answer>(uint64_t)>& exchange) {
  Felt felt;
  uint64_t fresh_sequence = 0;
  Clock::time_point fresh_at;
  Vec3 last = Vec3::Zero();
  auto deadline = Clock::now();
  for (int p = 0; p < periods; ++p) {
    deadline += std::chrono::milliseconds(1);
    if (Clock::now() > deadline) deadline = Clock::now();
    PaceUntil(deadline);
    const uint64_t number = ++*sequence;
    const std::optional<Answer> r = exchange(number);
    const auto now = Clock::now();
    if (!r || !r->force.allFinite()) {
      felt.ok = false;
      return felt;
    }
    if (r->sequence != number) ++felt.lost;
    if (r->sequence > fresh_sequence) {
      if (fresh_sequence != 0) {
        felt.gaps_ms.push_back(std::chrono::duration<double, std::milli>(now - fresh_at).count());
      }
      fresh_sequence = r->sequence;
      fresh_at = now;
    }
    felt.max_force = std::max(felt.max_force, r->force.norm());
    if (p > 0) felt.max_step = std::max(felt.max_step, (r->force - last).norm());
    last = r->force;
  }
  return felt;
}

// Our device: each pose 5 mm into the floor under probe `probe` (at x = 0.1 m per probe).
Felt Drive(client::HapticSession* session, int probe, int periods, uint64_t* sequence) {
  return Feel(periods, sequence, [&](uint64_t number) -> std::optional<Answer> {
    haptics::DevicePose pose;
    pose.sequence = number;
    pose.client_time = number * 1e-3;
    pose.position = Vec3(0.1 * probe, 0.005, 0);
    auto r = session->Force(pose);
    if (!r.ok()) return std::nullopt;
    return Answer{r->sequence, r->force};
  });
}

// The floor's device: each period's message a raw UDP echo sent in as many copies as ours
// and waited for as our client waits for a force (no crypto, no physics).
Felt DriveEcho(EchoClient* echo, int copies, double wait, int periods, uint64_t* sequence) {
  return Feel(periods, sequence, [&](uint64_t number) -> std::optional<Answer> {
    return Answer{echo->NumberedRoundTrip(number, copies, wait)};
  });
}

// The gaps and the answers lost.
std::string GapSummary(const Felt& f) {
  return absl::StrCat("p50=", Median(f.gaps_ms), " p99=", Percentile(f.gaps_ms, 99.0),
                      " p99.9=", Percentile(f.gaps_ms, 99.9),
                      " max=", *std::max_element(f.gaps_ms.begin(), f.gaps_ms.end()),
                      " ms, lost=", f.lost);
}

// The gaps, the answers lost and the forces the device was given.
std::string Summary(const Felt& f) {
  return absl::StrCat(GapSummary(f), ", largest force ", f.max_force, " N, largest step ",
                      f.max_step, " N");
}

std::unique_ptr<client::HapticSession> OpenProbe(const std::string& address, int probe,
                                                 bool datagrams) {
  v1::HapticOpen open;
  open.set_world("worlds/probes");
  open.set_tool_body_id(absl::StrCat("probe", probe));
  open.set_device_id(datagrams ? "udp" : "stream");
  open.set_datagrams(datagrams);
  client::HapticSessionOptions options;
  options.datagram_host = "127.0.0.1";
  // A stall of the loaded machine must not turn the session to its stream mid-run.
  options.fallback_after = 1.0;
  auto channel = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto session = client::HapticSession::Open(channel, open, options);
  if (!session.ok()) {
    std::fprintf(stderr, "[%s] %s\n", kName, session.status().ToString().c_str());
    return nullptr;
  }
  return *std::move(session);
}

// Inside the rig: both sessions opened on a clean loopback, then each loss rate in turn.
RunResult Measure(const RunOptions& options) {
  RunResult result;
  const int periods = options.quick ? 2000 : 10000;
  if (absl::Status s = SetLoss(0.0); !s.ok()) {  // loopback up, nothing dropped yet
    std::fprintf(stderr, "[%s] %s\n", kName, s.ToString().c_str());
    result.ok = false;
    return result;
  }
  auto peers = PeerProcess::Start(2);
  if (!peers.ok()) {
    std::fprintf(stderr, "[%s] %s\n", kName, peers.status().ToString().c_str());
    result.ok = false;
    return result;
  }
  const std::string address = absl::StrCat("127.0.0.1:", (*peers)->ports().ligatured);
  auto ours = OpenProbe(address, 0, true);
  auto stream = OpenProbe(address, 1, false);
  if (ours == nullptr || stream == nullptr ||
      ours->transport() != client::HapticSession::Transport::kDatagrams) {
    result.ok = false;
    return result;
  }
  EchoClient echo(EchoClient::Kind::kUdp, (*peers)->ports().udp_echo, PoseDatagramBytes());
  if (!echo.ok()) {
    result.ok = false;
    return result;
  }
  const client::HapticSessionOptions defaults;
  const int copies = static_cast<int>(ours->params().datagram_copies());
  uint64_t ours_sequence = 0, stream_sequence = 0, echo_sequence = 0;
  // Settle both probes on the floor before any loss.
  if (!Drive(ours.get(), 0, 300, &ours_sequence).ok ||
      !Drive(stream.get(), 1, 300, &stream_sequence).ok) {
    result.ok = false;
    return result;
  }
  for (const LossLevel& level : kLevels) {
    if (!SetLoss(level.percent).ok()) {
      result.ok = false;
      return result;
    }
    std::fprintf(stderr, "[%s] %.0f %% loss: %d periods on each transport\n", kName, level.percent,
                 periods);
    const Felt udp = Drive(ours.get(), 0, periods, &ours_sequence);
    const Felt tcp = Drive(stream.get(), 1, periods, &stream_sequence);
    const Felt floor = DriveEcho(&echo, copies, defaults.reply_wait, periods, &echo_sequence);
    const bool stayed = ours->transport() == client::HapticSession::Transport::kDatagrams;
    if (!udp.ok || !tcp.ok || !stayed || udp.gaps_ms.empty() || tcp.gaps_ms.empty() ||
        floor.gaps_ms.empty()) {
      std::fprintf(stderr, "[%s] a session failed or left the datagram channel\n", kName);
      result.ok = false;
      return result;
    }
    const double max_gap = *std::max_element(udp.gaps_ms.begin(), udp.gaps_ms.end());
    JsonLine line;
    line.String("bench", kName)
        .String("metric", "gap_ms")
        .Number("median", Median(udp.gaps_ms))
        .Number("p99", Percentile(udp.gaps_ms, 99.0))
        .Integer("n", static_cast<long long>(udp.gaps_ms.size()))
        .Number("paper", std::nullopt)
        .String("peer", "grpc-stream")
        .Number("peer_median", Median(tcp.gaps_ms))
        .Number("ratio", Median(udp.gaps_ms) / Median(tcp.gaps_ms))
        .Number("max_gap_ms", max_gap)
        .Number("peer_max_gap_ms", *std::max_element(tcp.gaps_ms.begin(), tcp.gaps_ms.end()))
        .Number("floor_max_gap_ms", *std::max_element(floor.gaps_ms.begin(), floor.gaps_ms.end()))
        .String("notes", absl::StrCat("loss=", level.percent,
                                      "% of packets each way, at random; "
                                      "longest gap ours=",
                                      max_gap, " ms (target <= ", level.target_ms, "); datagrams ",
                                      Summary(udp), "; grpc stream ", Summary(tcp),
                                      "; floor (a raw UDP echo in ", copies,
                                      " copies each way, paced and waited for alike, no crypto, "
                                      "no physics) ",
                                      GapSummary(floor),
                                      "; 1 kHz device, probe pressed 5 mm into the floor, world "
                                      "100 Hz, server in a second process, all in a network "
                                      "namespace whose loopback drops packets (nftables numgen)"));
    result.json_lines.push_back(line.Finish());
  }
  (void)SetLoss(0.0);
  (void)ours->Close();
  (void)stream->Close();
  return result;
}

RunResult Run(const RunOptions& options) {
  if (InLossRig()) return Measure(options);
  RunResult result;
  auto lines = RunInLossRig(kName, options.quick);
  if (!lines.ok()) {
    std::fprintf(stderr, "[%s] %s\n", kName, lines.status().ToString().c_str());
    result.ok = false;
    return result;
  }
  result.json_lines = *std::move(lines);
  return result;
}

const Registrar kRegistrar(Benchmark{kName, Run});

}  // namespace
}  // namespace ligature::bench
