#pragma once
// Shared pieces of the haptics benchmarks: an in-process ligatured with a probe world,
// 1 kHz pacing, and latency summaries.

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ligature/v1/scene.pb.h"
#include "server/rpc/server.h"

namespace ligature::bench {

// A world "probes" at 100 Hz: a ground plane and `probes` 50 g probe spheres (probe0,
// probe1, ...) resting 5 mm apart from their neighbours' reach, 1 cm radius, on the floor.
v1::Scene ProbeScene(int probes);

// A running server on a loopback port holding the probe world.
struct BenchServer {
  std::unique_ptr<Server> server;
  std::string address;  // 127.0.0.1:port
};
absl::StatusOr<BenchServer> StartProbeServer(int probes);

// Sleeps until `deadline`; with `spin`, the last 150 us busy-wait so that periods stay
// regular (one device thread; with many threads on two cores spinning would starve them).
void PaceUntil(std::chrono::steady_clock::time_point deadline, bool spin = true);

// A result line of round trips (metric rtt_us, microseconds): our median and p99 against a
// peer's, ratio = ours / peer (medians), the count of ours over 1 ms, and `notes`.
std::string RoundTripLine(const std::string& bench, const std::vector<double>& ours_us,
                          const std::string& peer, const std::vector<double>& peer_us,
                          const std::string& notes);

// The bytes of one of our pose datagrams for a probe pressed 5 mm into the floor, sealed:
// what an echo peer carries to do equal work on the wire.
int PoseDatagramBytes();

// Round-trip times in microseconds: "p50=.. p99=.. p99.9=.. max=.. over_1ms=.." text.
std::string LatencySummary(const std::vector<double>& us);
int CountOver(const std::vector<double>& us, double limit_us);

}  // namespace ligature::bench
