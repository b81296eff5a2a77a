// query/stream_latency: a VR pointer's ray cast at 90 Hz over a StreamQueries stream, round
// trip against a bare gRPC echo of the same messages in the same run. Both servers run in a
// second process (see haptics/peer_process.h):
//  - ours: ligatured answering each request from the newest published frame of a world of
//    1,000 resting probe spheres (250 with --quick) on a floor, stepping at 100 Hz the whole
//    time, so that queries meet the world's steps and frame publishing;
//  - the echo: a gRPC QueryService on the same transport that answers each request at once
//    with a response of the same shape (one hit), doing no query work.
// Each 1/90 s period asks one ray on each stream, in an order that alternates every period.
// The ray goes from a hand at 1.2 m height down to the next probe; ours must hit that probe
// (any other answer fails the run). One line: our median and p99, the echo's median and p99,
// ratio = ours / echo (medians); the notes hold the p99 ratio (target <= 1.5) and the tails.

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/cpp/client.h"
#include "tests/bench/haptics/haptic_bench_util.h"
#include "tests/bench/haptics/peer_process.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

constexpr char kName[] = "query/stream_latency";
constexpr double kP99Target = 1.5;  // our p99 / the echo's p99
using Clock = std::chrono::steady_clock;

// The pointer's ray at `probe` (ProbeScene puts probe i at x = 0.1 i on the floor).
v1::SceneQuery PointerRay(int probe) {
  v1::SceneQuery query;
  v1::RayQuery* ray = query.mutable_ray();
  const double x = 0.1 * probe;
  ray->mutable_origin()->set_x(x + 0.05);
  ray->mutable_origin()->set_y(1.2);
  ray->mutable_origin()->set_z(-0.6);
  ray->mutable_direction()->set_x(-0.05);
  ray->mutable_direction()->set_y(0.01 - 1.2);
  ray->mutable_direction()->set_z(0.6);
  ray->set_max_distance(10.0);
  return query;
}

RunResult Run(const RunOptions& options) {
  RunResult result;
  const int probes = options.quick ? 250 : 1000;
  const int periods = options.quick ? 360 : 5400;  // 4 s or 60 s at 90 Hz
  auto peers = PeerProcess::Start(probes);
  if (!peers.ok()) {
    std::fprintf(stderr, "[%s] %s\n", kName, peers.status().ToString().c_str());
    result.ok = false;
    return result;
  }
  const PeerPorts ports = (*peers)->ports();
  client::Client ours_client(absl::StrCat("127.0.0.1:", ports.ligatured));
  client::Client echo_client(absl::StrCat("127.0.0.1:", ports.grpc_echo));
  auto ours = ours_client.OpenQueryStream("probes");
  auto echo = echo_client.OpenQueryStream("probes");
  if (!ours.ok() || !echo.ok()) {
    result.ok = false;
    return result;
  }

  std::fprintf(stderr, "[%s] %d periods at 90 Hz, %d probes, both streams each\n", kName,
               periods, probes);
  const auto period = std::chrono::nanoseconds(1'000'000'000 / 90);
  const int settle = 30;  // untimed: connections warm, the world publishing
  std::vector<double> ours_us, echo_us;
  int wrong = 0;
  auto deadline = Clock::now();
  for (int p = 0; p < settle + periods; ++p) {
    deadline += period;
    PaceUntil(deadline, /*spin=*/false);
    const int probe = p % probes;
    const std::vector<v1::SceneQuery> queries = {PointerRay(probe)};
    for (int k = 0; k < 2; ++k) {
      const bool our_turn = (p + k) % 2 == 0;
      const auto t0 = Clock::now();
      auto answer = (our_turn ? *ours : *echo)->Ask(queries);
      const double us = std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
      if (!answer.ok()) {
        std::fprintf(stderr, "[%s] %s\n", kName, answer.status().ToString().c_str());
        result.ok = false;
        return result;
      }
      if (our_turn) {
        const bool hit = answer->results_size() == 1 && answer->results(0).hits_size() == 1 &&
                         answer->results(0).hits(0).body() == absl::StrCat("probe", probe);
        if (!hit) ++wrong;
      }
      if (p >= settle) (our_turn ? ours_us : echo_us).push_back(us);
    }
  }
  (void)(*ours)->Close();
  (void)(*echo)->Close();
  if (wrong > 0) {
    std::fprintf(stderr, "[%s] %d of our rays missed the probe they aimed at\n", kName, wrong);
    result.ok = false;
  }

  const double p99_ratio = Percentile(ours_us, 99.0) / Percentile(echo_us, 99.0);
  result.json_lines.push_back(RoundTripLine(
      kName, ours_us, "grpc-query-echo", echo_us,
      absl::StrCat("p99 ratio vs echo=", p99_ratio, " (target <= ", kP99Target, "); ours ",
                   LatencySummary(ours_us), "; echo ", LatencySummary(echo_us),
                   "; one nearest-hit ray per request on a StreamQueries stream, loopback, "
                   "servers in a second process, 90 Hz, alternating order; ours: ",
                   probes, " resting spheres on a floor, world stepping at 100 Hz, every ray "
                   "checked to hit its probe; echo: same messages, no query work")));
  return result;
}

const Registrar kRegistrar(Benchmark{kName, Run});

}  // namespace
}  // namespace ligature::bench
