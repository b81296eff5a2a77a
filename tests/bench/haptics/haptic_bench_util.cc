#include "tests/bench/haptics/haptic_bench_util.h"

#include <algorithm>
#include <cstdio>
#include <thread>

#include "absl/strings/str_cat.h"
#include "server/haptics/datagram/sealed_datagram.h"
#include "server/haptics/wire/haptics_proto.h"
#include "server/scene/scene_proto.h"
#include "tests/bench/json_line.h"
#include "tests/bench/stats.h"

namespace ligature::bench {

v1::Scene ProbeScene(int probes) {
  v1::Scene scene;
  scene.mutable_settings()->set_rate_hz(100);
  v1::Body* ground = scene.add_bodies();
  ground->set_id("ground");
  ground->set_kind(v1::BODY_KIND_STATIC);
  ground->mutable_shape()->mutable_plane();
  for (int i = 0; i < probes; ++i) {
    v1::Body* probe = scene.add_bodies();
    probe->set_id(absl::StrCat("probe", i));
    probe->mutable_shape()->mutable_sphere()->set_radius(0.01);
    probe->mutable_material()->set_mass(0.05);
    probe->mutable_pose()->mutable_position()->set_x(0.1 * i);
    probe->mutable_pose()->mutable_position()->set_y(0.01);
  }
  return scene;
}

absl::StatusOr<BenchServer> StartProbeServer(int probes) {
  ServerOptions options;
  options.listen_address = "127.0.0.1:0";
  options.worlds.worker_threads = 1;
  BenchServer out;
  out.server = std::make_unique<Server>(options);
  if (absl::Status s = out.server->Start(); !s.ok()) return s;
  out.address = absl::StrCat("127.0.0.1:", out.server->port());
  absl::StatusOr<SceneDesc> desc = SceneFromProto(ProbeScene(probes));
  if (!desc.ok()) return desc.status();
  auto world = out.server->worlds().Create("probes", *desc);
  if (!world.ok()) return world.status();
  return out;
}

void PaceUntil(std::chrono::steady_clock::time_point deadline, bool busy) {
  const auto spin = std::chrono::microseconds(busy ? 150 : 0);
  if (deadline - std::chrono::steady_clock::now() > spin) {
    std::this_thread::sleep_until(deadline - spin);
  }
  while (std::chrono::steady_clock::now() < deadline) {
  }
}

int CountOver(const std::vector<double>& us, double limit_us) {
  return static_cast<int>(std::count_if(us.begin(), us.end(), [&](double v) { return v > limit_us; }));
}

std::string RoundTripLine(const std::string& bench, const std::vector<double>& ours_us,
                          const std::string& peer, const std::vector<double>& peer_us,
                          const std::string& notes) {
  JsonLine line;
  line.String("bench", bench)
      .String("metric", "rtt_us")
      .Number("median", Median(ours_us))
      .Number("p99", Percentile(ours_us, 99.0))
      .Integer("n", static_cast<long long>(ours_us.size()))
      .Number("paper", std::nullopt)
      .String("peer", peer)
      .Number("peer_median", Median(peer_us))
      .Number("ratio", Median(ours_us) / Median(peer_us))
      .Number("peer_p99", Percentile(peer_us, 99.0))
      .Integer("over_1ms", CountOver(ours_us, 1000.0))
      .String("notes", notes);
  return line.Finish();
}

std::string LatencySummary(const std::vector<double>& us) {
  auto f = [](double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%.1f", v);
    return std::string(buf);
  };
  const double max = us.empty() ? 0.0 : *std::max_element(us.begin(), us.end());
  return absl::StrCat("p50=", f(Median(us)), " p99=", f(Percentile(us, 99.0)),
                      " p99.9=", f(Percentile(us, 99.9)), " max=", f(max),
                      " over_1ms=", CountOver(us, 1000.0), " n=", us.size());
}

int PoseDatagramBytes() {
  haptics::DevicePose pose;
  pose.sequence = 1000;
  pose.client_time = 1.0;
  pose.position = Vec3(0, 0.005, 0);
  v1::HapticDatagram d;
  DevicePoseToProto(pose, d.mutable_pose());
  return static_cast<int>(d.ByteSizeLong() + haptics::kDatagramOverhead);
}

}  // namespace ligature::bench
