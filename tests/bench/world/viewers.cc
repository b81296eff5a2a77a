// world/viewers: one 60 Hz world (the built-in default scene: 73 bodies) watched by a crowd.
// The server runs in a process of its own; the crowd (raw Watch streams, 20 to a
// connection, one completion-queue thread) and an editor making 20 edits a second run in
// this one. Per crowd size, over a measured window: frames delivered per second, the share
// of the world's frames each viewer got, the frame interval p50/p99, the server's CPU per
// frame sent above what the same server spends with no viewer (measured first, in the same
// run, with the editor running), tick overruns, and the edit latency p99 beside the smallest
// crowd's. The same crowd size is then served by a bare gRPC fan-out (the peer) and by plain
// TCP (the floor) from the same process and world, one after the other.

#include <chrono>
#include <cstdio>
#include <functional>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "ligature/v1/scene_service.grpc.pb.h"
#include "ligature/v1/world_service.grpc.pb.h"
#include "tests/bench/child_process.h"
#include "tests/bench/json_line.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"
#include "tests/bench/world/crowd_server.h"
#include "tests/bench/world/crowd_window.h"
#include "tests/bench/world/viewer_crowd.h"

namespace ligature::bench {
namespace {

constexpr char kName[] = "world/viewers";
constexpr int kPerConnection = 20;
RunResult Run(const RunOptions& options) {
  RunResult result;
  std::string ready;
  auto server = ChildProcess::Start(kServeCrowdEnv, "default", &ready);
  int port = 0, bare_port = 0, tcp_port = 0;
  if (!server.ok() ||
      std::sscanf(ready.c_str(), "ports %d %d %d", &port, &bare_port, &tcp_port) != 3) {
    std::fprintf(stderr, "[%s] %s\n", kName,
                 server.ok() ? "no ports from the server" : server.status().ToString().c_str());
    result.ok = false;
    return result;
  }
  const pid_t pid = (*server)->pid();
  const std::string address = absl::StrCat("127.0.0.1:", port);
  const std::string bare_address = absl::StrCat("127.0.0.1:", bare_port);
  auto control = grpc::CreateChannel(address, grpc::InsecureChannelCredentials());
  auto worlds = v1::WorldService::NewStub(control);
  Editor editor(control);

  const double window_s = options.quick ? 1.0 : 5.0;
  const std::vector<int> crowds =
      options.quick ? std::vector<int>{50} : std::vector<int>{100, 1000, 3000};
  // The server with the world and the editor but no viewer: what every frame sent adds to.
  const Phase idle = Measure(kName, pid, {}, 0, nullptr, window_s, *worlds, editor);
  const double idle_cpu_per_s = idle.server_cpu_s / idle.window_s;
  std::optional<double> first_edit_p99;
  for (const int viewers : crowds) {
    std::fprintf(stderr, "[%s] %d viewers\n", kName, viewers);
    const Phase p = Measure(
        kName, pid, {}, viewers,
        [&] {
          return std::make_unique<ViewerCrowd>(std::vector<std::string>{address}, "worlds/crowd",
                                               viewers, kPerConnection);
        },
        window_s, *worlds, editor);
    const Phase bare = Measure(
        kName, pid, {}, viewers,
        [&] {
          return std::make_unique<ViewerCrowd>(std::vector<std::string>{bare_address},
                                               "worlds/crowd", viewers, kPerConnection);
        },
        window_s, *worlds, editor);
    const Phase tcp = Measure(
        kName, pid, {}, viewers, [&] { return std::make_unique<SocketCrowd>(tcp_port, viewers); },
        window_s, *worlds, editor);
    const CrowdFigures& c = p.crowd;
    const double frames = static_cast<double>(c.frames);
    const std::vector<double> ours_us = p.CpuPerFrameUs(idle_cpu_per_s);
    const double bare_us = Median(bare.CpuPerFrameUs(idle_cpu_per_s));
    const double tcp_us = Median(tcp.CpuPerFrameUs(idle_cpu_per_s));
    const double edit_p99 = Percentile(p.edit_ms, 99.0);
    if (!first_edit_p99) first_edit_p99 = edit_p99;
    JsonLine line;
    line.String("bench", kName)
        .String("metric", "server_cpu_us_per_frame")
        .Number("median", Median(ours_us))
        .Number("p99", Percentile(ours_us, 99.0))
        .Integer("n", static_cast<long long>(c.frames))
        .Number("paper", std::nullopt)
        .String("peer", "bare gRPC fan-out")
        .Number("peer_median", bare_us)
        .Number("ratio", Median(ours_us) / bare_us)
        .Number("floor_tcp_us", tcp_us)
        .Number("ratio_to_floor", Median(ours_us) / tcp_us)
        .Integer("viewers", viewers)
        .Number("frames_per_s", frames / p.window_s)
        .Number("share_at_rate", frames / (static_cast<double>(c.ticks) * viewers))
        .Number("peer_share_at_rate", static_cast<double>(bare.crowd.frames) /
                                          (static_cast<double>(bare.crowd.ticks) * viewers))
        .Number("floor_share_at_rate", static_cast<double>(tcp.crowd.frames) /
                                           (static_cast<double>(tcp.crowd.ticks) * viewers))
        .Number("interval_p50_ms", Median(c.interval_ms))
        .Number("interval_p99_ms", Percentile(c.interval_ms, 99.0))
        .Number("server_cpu_us_per_frame_total", 1e6 * p.server_cpu_s / frames)
        .Integer("overruns", static_cast<long long>(p.counts.overruns))
        .Integer("missed_ticks", static_cast<long long>(p.counts.missed_ticks))
        .Number("edit_p99_ms", edit_p99)
        .Number("edit_p99_vs_first", edit_p99 / *first_edit_p99)
        .String(
            "notes",
            absl::StrCat(
                "one process serves world 'default' (73 bodies, 60 Hz) to three crowds in turn, ",
                viewers, " viewers each, from one client thread: ours (Watch, whole frames, ",
                kPerConnection, " streams to a connection, raw bytes, only the tick decoded), ",
                "the peer (a bare gRPC callback fan-out of the same bytes, same layout) and the ",
                "floor (plain TCP, one connection per viewer, one send per frame); each figure ",
                "is server CPU per frame received above the same process with no viewer (",
                1e3 * idle_cpu_per_s, " ms/s; total = all its CPU per frame), median and p99 over ",
                kSliceS, " s slices of a ", p.window_s,
                " s window each; share_at_rate = frames / (viewers x world ticks); ",
                "20 edits/s, edit_p99_vs_first against the ", crowds.front(), "-viewer run; ",
                c.ended, " of our streams ended early, ", editor.errors(), " edit errors"));
    result.json_lines.push_back(line.Finish());
    if (!p.ok || !bare.ok || !tcp.ok) result.ok = false;
  }
  return result;
}

const Registrar kReg(Benchmark{kName, Run});

}  // namespace
}  // namespace ligature::bench
