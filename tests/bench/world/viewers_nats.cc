// world/viewers_nats: the crowd of world/viewers served through the NATS tier. The server
// (a process of its own) publishes the 60 Hz world's frames to a nats-server; two viewer
// gateways (ligature-gateway, each in a process of its own) serve the crowd, its
// connections spread over them; the editor edits the world on the server directly. In the
// same run the same server then feeds the same crowd itself (the peer). Per crowd size: the
// world's server CPU per second (against its idle figure, publishing included) and per
// frame delivered above idle, the gateways' CPU per frame sent, the share of the world's frames each
// viewer got, the frame interval, tick overruns and the edit latency p99, each beside the
// direct layout's.

#include <chrono>
#include <cstdio>
#include <thread>

#include "absl/strings/str_cat.h"
#include "ligature/v1/session_service.grpc.pb.h"
#include "ligature/v1/world_service.grpc.pb.h"
#include "tests/bench/child_process.h"
#include "tests/bench/json_line.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"
#include "tests/bench/world/crowd_server.h"
#include "tests/bench/world/crowd_window.h"
#include "tests/bench/world/viewer_crowd.h"
#include "tests/support/nats_broker.h"

namespace ligature::bench {
namespace {

constexpr char kName[] = "world/viewers_nats";
constexpr int kPerConnection = 20;
constexpr int kGateways = 2;

// Whether a gateway at `address` serves the world's frames, within 20 s.
bool Serves(const std::string& address) {
  auto sessions = v1::SessionService::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  v1::WatchRequest req;
  req.set_world("worlds/crowd");
  for (int i = 0; i < 400; ++i) {
    grpc::ClientContext ctx;
    auto reader = sessions->Watch(&ctx, req);
    v1::Frame f;
    if (reader->Read(&f)) {
      ctx.TryCancel();
      while (reader->Read(&f)) {
      }
      reader->Finish();
      return true;
    }
    reader->Finish();
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return false;
}

RunResult Run(const RunOptions& options) {
  RunResult result;
  auto fail = [&](const std::string& why) {
    std::fprintf(stderr, "[%s] %s\n", kName, why.c_str());
    result.ok = false;
    return result;
  };
  testing::Broker broker;
  const int nats_port = testing::FreePort();
  if (!broker.Start(nats_port)) return fail("nats-server did not start (is it installed?)");
  const std::string url = absl::StrCat("nats://127.0.0.1:", nats_port);
  std::string ready;
  auto server = ChildProcess::Start(kServeCrowdEnv, "default " + url, &ready);
  int port = 0, bare_port = 0, tcp_port = 0;
  if (!server.ok() ||
      std::sscanf(ready.c_str(), "ports %d %d %d", &port, &bare_port, &tcp_port) != 3) {
    return fail(server.ok() ? "no ports from the server" : server.status().ToString());
  }
  const pid_t pid = (*server)->pid();
  const std::string address = absl::StrCat("127.0.0.1:", port);
  std::vector<std::unique_ptr<ChildProcess>> gateways;
  std::vector<pid_t> gateway_pids;
  std::vector<std::string> gateway_addresses;
  for (int i = 0; i < kGateways; ++i) {
    auto gateway = ChildProcess::Start(kServeGatewayEnv, url, &ready);
    int gateway_port = 0;
    if (!gateway.ok() || std::sscanf(ready.c_str(), "port %d", &gateway_port) != 1) {
      return fail(gateway.ok() ? "no port from a gateway" : gateway.status().ToString());
    }
    gateway_pids.push_back((*gateway)->pid());
    gateway_addresses.push_back(absl::StrCat("127.0.0.1:", gateway_port));
    gateways.push_back(*std::move(gateway));
    if (!Serves(gateway_addresses.back())) return fail("a gateway never served the world");
  }
  auto control = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto worlds = v1::WorldService::NewStub(control);
  Editor editor(control);

  const double window_s = options.quick ? 1.0 : 5.0;
  const std::vector<int> crowds =
      options.quick ? std::vector<int>{50} : std::vector<int>{1000, 3000};
  // No viewer: the server steps, publishes and takes edits; the gateways take the frames.
  const Phase idle = Measure(kName, pid, gateway_pids, 0, nullptr, window_s, *worlds, editor);
  const double idle_cpu_per_s = idle.server_cpu_s / idle.window_s;
  const double idle_gateways_per_s = idle.others_cpu_s / idle.window_s;
  for (const int viewers : crowds) {
    std::fprintf(stderr, "[%s] %d viewers\n", kName, viewers);
    const Phase tier = Measure(
        kName, pid, gateway_pids, viewers,
        [&] {
          return std::make_unique<ViewerCrowd>(gateway_addresses, "worlds/crowd", viewers,
                                               kPerConnection);
        },
        window_s, *worlds, editor);
    const Phase direct = Measure(
        kName, pid, gateway_pids, viewers,
        [&] {
          return std::make_unique<ViewerCrowd>(std::vector<std::string>{address}, "worlds/crowd",
                                               viewers, kPerConnection);
        },
        window_s, *worlds, editor);
    const CrowdFigures& c = tier.crowd;
    const double frames = static_cast<double>(c.frames);
    // The server's CPU (ms per second of wall time) per slice: with the tier it stays what
    // it is with no viewer; feeding the crowd itself, it grows with the crowd.
    const auto cpu_ms_per_s = [](const Phase& phase) {
      std::vector<double> ms;
      for (const Slice& slice : phase.slices) ms.push_back(1e3 * slice.cpu_s / slice.s);
      return ms;
    };
    const std::vector<double> ours_ms = cpu_ms_per_s(tier);
    const double direct_ms = Median(cpu_ms_per_s(direct));
    const double gateways_us =
        1e6 * (tier.others_cpu_s - idle_gateways_per_s * tier.window_s) / frames;
    const auto share = [viewers](const CrowdFigures& f) {
      return static_cast<double>(f.frames) / (static_cast<double>(f.ticks) * viewers);
    };
    JsonLine line;
    line.String("bench", kName)
        .String("metric", "world_server_cpu_ms_per_s")
        .Number("median", Median(ours_ms))
        .Number("p99", Percentile(ours_ms, 99.0))
        .Integer("n", static_cast<long long>(ours_ms.size()))
        .Number("paper", std::nullopt)
        .String("peer", "the same server feeding the same crowd itself (Watch)")
        .Number("peer_median", direct_ms)
        .Number("ratio", Median(ours_ms) / direct_ms)
        .Number("idle_server_cpu_ms_per_s", 1e3 * idle_cpu_per_s)
        .Integer("viewers", viewers)
        .Integer("gateways", kGateways)
        .Number("server_cpu_us_per_frame", Median(tier.CpuPerFrameUs(idle_cpu_per_s)))
        .Number("peer_server_cpu_us_per_frame", Median(direct.CpuPerFrameUs(idle_cpu_per_s)))
        .Number("gateways_cpu_us_per_frame", gateways_us)
        .Number("frames_per_s", frames / tier.window_s)
        .Number("share_at_rate", share(c))
        .Number("peer_share_at_rate", share(direct.crowd))
        .Number("interval_p50_ms", Median(c.interval_ms))
        .Number("interval_p99_ms", Percentile(c.interval_ms, 99.0))
        .Number("peer_interval_p99_ms", Percentile(direct.crowd.interval_ms, 99.0))
        .Integer("overruns", static_cast<long long>(tier.counts.overruns))
        .Integer("peer_overruns", static_cast<long long>(direct.counts.overruns))
        .Number("edit_p99_ms", Percentile(tier.edit_ms, 99.0))
        .Number("peer_edit_p99_ms", Percentile(direct.edit_ms, 99.0))
        .String(
            "notes",
            absl::StrCat(
                "world 'default' (73 bodies, 60 Hz) on a server in its own process, publishing "
                "its whole frames to a local nats-server; ours: ",
                viewers, " viewers on ", kGateways,
                " ligature-gateway processes (raw Watch streams, ", kPerConnection,
                " to a connection, connections alternating between gateways, one client "
                "thread); the peer: the same crowd on the server itself; all on this "
                "machine's two cores. The server's CPU in ms per second, median and p99 over ",
                kSliceS, " s slices of a ", tier.window_s,
                " s window, beside the same with no viewer (idle, publishing included); per "
                "frame received: the same above idle; gateways' CPU per frame above theirs "
                "with no viewer (",
                1e3 * idle_gateways_per_s, " ms/s). 20 edits/s to the server; ", c.ended,
                " streams ended early, ", editor.errors(), " edit errors"));
    result.json_lines.push_back(line.Finish());
    if (!tier.ok || !direct.ok) result.ok = false;
  }
  return result;
}

const Registrar kReg(Benchmark{kName, Run});

}  // namespace
}  // namespace ligature::bench
