// haptics/devices8 and haptics/devices8_udp: eight devices at 1 kHz on one world, each
// driving its own probe (pressed 5 mm into the floor) through its own HapticsService
// session from its own thread, on the stream or over the datagram channel. Per device: RTT
// p50/p99 and misses (a round trip over 1 ms, a period whose deadline had passed before its
// pose went out, or, over datagrams, a pose whose force did not come within the wait). One
// line: all devices' RTTs pooled. Over datagrams the line has a floor: eight devices paced
// and waiting alike, each round trip a raw UDP echo of a pose datagram's bytes (no crypto,
// no physics, the echo in a second process), run after ours and counted alike; what this
// machine's scheduling alone costs eight device threads on two cores.

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/cpp/haptic_session.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "tests/bench/haptics/haptic_bench_util.h"
#include "tests/bench/haptics/peer_process.h"
#include "tests/bench/json_line.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

constexpr char kStreamName[] = "haptics/devices8";
constexpr char kUdpName[] = "haptics/devices8_udp";
constexpr int kDevices = 8;
using Clock = std::chrono::steady_clock;

struct Device {
  std::vector<double> rtt_us;
  int late_periods = 0;
  int lost = 0;  // over datagrams: poses answered with an older force
  bool ok = true;
};

// Paces `periods` device periods of 1 ms by sleeping, after 200 that settle and are not
// counted, each one round trip by `round_trip(p)`, which says whether its answer came (or
// nothing, when the session failed): the round trips' times, the late periods and the lost
// answers go to `out`.
void PaceDevice(int periods, const std::function<std::optional<bool>(int)>& round_trip,
                Device* out) {
  const int settle = 200;
  auto deadline = Clock::now();
  for (int p = 0; p < settle + periods; ++p) {
    deadline += std::chrono::milliseconds(1);
    const bool late = Clock::now() > deadline;
    PaceUntil(deadline, /*spin=*/false);
    const auto t0 = Clock::now();
    const std::optional<bool> answered = round_trip(p);
    const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
    if (!answered) {
      out->ok = false;
      return;
    }
    if (p < settle) continue;
    out->rtt_us.push_back(us);
    if (late) ++out->late_periods;
    if (!*answered) ++out->lost;
  }
}

void RunDevice(const char* name, const std::string& address, int index, int periods, bool datagrams,
               Device* out) {
  // One channel per device, as separate device stations would have.
  grpc::ChannelArguments args;
  args.SetInt("grpc.channel_id", index);  // no sharing of the subchannel
  auto channel = grpc::CreateCustomChannel(address, grpc::InsecureChannelCredentials(), args);
  v1::HapticOpen open;
  open.set_world("worlds/probes");
  open.set_tool_body_id(absl::StrCat("probe", index));
  open.set_device_id(absl::StrCat("device", index));
  open.set_datagrams(datagrams);
  client::HapticSessionOptions options;
  options.datagram_host = "127.0.0.1";
  // A stall of the loaded machine must not turn the session to its stream mid-run.
  options.fallback_after = 1.0;
  options.reply_spin = 0.0;  // eight device threads on two cores: none may spin
  auto session = client::HapticSession::Open(channel, open, options);
  if (!session.ok() ||
      (datagrams && (*session)->transport() != client::HapticSession::Transport::kDatagrams)) {
    std::fprintf(stderr, "[%s] device %d: %s\n", name, index,
                 session.ok() ? "no datagram channel" : session.status().ToString().c_str());
    out->ok = false;
    return;
  }
  PaceDevice(
      periods,
      [&](int p) -> std::optional<bool> {
        haptics::DevicePose pose;
        pose.sequence = p + 1;
        pose.client_time = (p + 1) * 1e-3;
        pose.position = Vec3(0.1 * index, 0.005, 0);
        auto r = (*session)->Force(pose);
        if (!r.ok()) return std::nullopt;
        return r->sequence == pose.sequence;
      },
      out);
  // A session that fell back to the stream did not measure what it was run for.
  if (datagrams && (*session)->transport() != client::HapticSession::Transport::kDatagrams) {
    out->ok = false;
  }
  (void)(*session)->Close();
}

// The floor's device: the same pacing, a raw UDP echo waited for as our client waits for a
// force (no spin, `wait` seconds at most); a late or missing echo is lost.
void RunEchoDevice(int port, double wait, int periods, Device* out) {
  EchoClient echo(EchoClient::Kind::kUdp, port, PoseDatagramBytes());
  if (!echo.ok()) {
    out->ok = false;
    return;
  }
  PaceDevice(
      periods, [&](int) -> std::optional<bool> { return echo.BoundedRoundTrip(0.0, wait); }, out);
}

// Misses of one device: a round trip over 1 ms, a late period, or a lost answer.
int Misses(const Device& d) { return CountOver(d.rtt_us, 1000.0) + d.late_periods + d.lost; }

// Eight floor devices against a UDP echo in a second process: their misses and pooled RTTs.
struct Floor {
  int misses = 0;
  std::vector<double> rtt_us;
  bool ok = true;
};
Floor RunFloor(int periods) {
  Floor floor;
  auto peer = PeerProcess::Start(1);
  if (!peer.ok()) {
    floor.ok = false;
    return floor;
  }
  const double wait = client::HapticSessionOptions().reply_wait;
  std::vector<Device> devices(kDevices);
  std::vector<std::thread> threads;
  for (int i = 0; i < kDevices; ++i) {
    threads.emplace_back(RunEchoDevice, (*peer)->ports().udp_echo, wait, periods, &devices[i]);
  }
  for (std::thread& t : threads) t.join();
  for (const Device& d : devices) {
    floor.ok = floor.ok && d.ok;
    floor.misses += Misses(d);
    floor.rtt_us.insert(floor.rtt_us.end(), d.rtt_us.begin(), d.rtt_us.end());
  }
  return floor;
}

RunResult RunDevices(const char* name, bool datagrams, const RunOptions& options) {
  RunResult result;
  const int periods = options.quick ? 2000 : 10000;
  auto server = StartProbeServer(kDevices);
  if (!server.ok()) {
    result.ok = false;
    return result;
  }
  std::fprintf(stderr, "[%s] %d devices x %d periods of 1 ms\n", name, kDevices, periods);
  std::vector<Device> devices(kDevices);
  std::vector<std::thread> threads;
  for (int i = 0; i < kDevices; ++i) {
    threads.emplace_back(RunDevice, name, server->address, i, periods, datagrams, &devices[i]);
  }
  for (std::thread& t : threads) t.join();
  server->server->Shutdown(absl::Milliseconds(100));

  std::vector<double> all;
  std::string per_device;
  int misses = 0;
  for (int i = 0; i < kDevices; ++i) {
    const Device& d = devices[i];
    result.ok = result.ok && d.ok;
    all.insert(all.end(), d.rtt_us.begin(), d.rtt_us.end());
    const int miss = Misses(d);
    misses += miss;
    char buf[128];
    std::snprintf(buf, sizeof(buf), "%sdevice%d p50=%.0f p99=%.0f misses=%d", i ? "; " : "", i,
                  Median(d.rtt_us), Percentile(d.rtt_us, 99.0), miss);
    per_device += buf;
  }
  std::optional<Floor> floor;
  if (datagrams) {
    std::fprintf(stderr, "[%s] the floor: %d raw UDP echo devices x %d periods\n", name, kDevices,
                 periods);
    floor = RunFloor(periods);
    result.ok = result.ok && floor->ok && !floor->rtt_us.empty();
    if (!result.ok) return result;
  }
  const std::string floor_notes =
      floor ? absl::StrCat(
                  "; the floor (raw UDP echo devices, run after ours): misses=", floor->misses,
                  " of ", floor->rtt_us.size(), ", ", LatencySummary(floor->rtt_us))
            : "";
  JsonLine line;
  line.String("bench", name)
      .String("metric", "rtt_us")
      .Number("median", Median(all))
      .Number("p99", Percentile(all, 99.0))
      .Integer("n", static_cast<long long>(all.size()))
      .Number("paper", std::nullopt)
      .String("peer", floor ? std::optional<std::string>("raw-udp-echo-devices") : std::nullopt)
      .Number("peer_median", floor ? std::optional<double>(Median(floor->rtt_us)) : std::nullopt)
      .Number("ratio",
              floor ? std::optional<double>(Median(all) / Median(floor->rtt_us)) : std::nullopt)
      .Integer("over_1ms", CountOver(all, 1000.0))
      .Integer("misses", misses)
      .Integer("peer_misses", floor ? std::optional<long long>(floor->misses) : std::nullopt)
      .String("notes",
              absl::StrCat("misses (rtt > 1 ms, late period, or force lost) total=", misses, " of ",
                           all.size(), floor_notes, "; ", per_device, "; all ", LatencySummary(all),
                           "; one world at 100 Hz, 8 probes, 8 sessions, 8 threads, ",
                           datagrams ? "datagrams (2 copies each way, no spin while waiting)"
                                     : "gRPC streams",
                           ", 2-core machine, client and server in one process, periods "
                           "paced by sleeping (no spin)"));
  result.json_lines.push_back(line.Finish());
  return result;
}

RunResult RunStream(const RunOptions& options) { return RunDevices(kStreamName, false, options); }
RunResult RunUdp(const RunOptions& options) { return RunDevices(kUdpName, true, options); }

const Registrar kStreamRegistrar(Benchmark{kStreamName, RunStream});
const Registrar kUdpRegistrar(Benchmark{kUdpName, RunUdp});

}  // namespace
}  // namespace ligature::bench
