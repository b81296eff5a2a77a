// haptics/remote: how far remote mode's forces stray from server mode's along the same
// device trajectory when the network delays each way by 20 or 50 ms. Run in simulated
// time, in process, with the same haptic core the server and the client library use:
//  - server mode (the reference): every pose is solved against the newest model and the
//    world takes the forces at once;
//  - remote mode: the client solves against models that reach it `delay` after the world
//    published them, and the world takes the client's rendered forces `delay` late.
// The device presses 2 cm below a probe resting on the floor (0.5 s), strokes it 5 cm along x and back
// twice (2 s), and lifts it off (0.5 s), at 1 kHz; the world ticks at 100 Hz.
// One line per delay: median and p99 of |F_remote - F_server| (N), notes with RMS, max and
// the reference force's RMS.

#include <cmath>
#include <deque>
#include <memory>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/haptics/haptic_core.h"
#include "server/world/world.h"
#include "tests/bench/json_line.h"
#include "tests/bench/registry.h"
#include "tests/bench/stats.h"

namespace ligature::bench {
namespace {

constexpr char kName[] = "haptics/remote";
constexpr double kPeriod = 1e-3;

Vec3 Trajectory(double t) {
  if (t < 0.5) return Vec3(0, 0.01 - 0.02 * t / 0.5 * 1.0, 0);                 // press
  if (t < 2.5) return Vec3(0.05 * std::sin(2 * M_PI * (t - 0.5)), -0.01, 0);  // stroke
  return Vec3(0, -0.01 + 0.06 * (t - 2.5) / 0.5, 0);                         // lift
}

std::unique_ptr<World> MakeWorld() {
  SceneDesc scene;
  scene.settings.rate_hz = 100;
  BodyDesc ground;
  ground.id = "ground";
  ground.kind = BodyKind::kStatic;
  ground.rigid()->shape = Shape::Plane();
  scene.bodies.push_back(ground);
  BodyDesc probe;
  probe.id = "probe";
  probe.rigid()->shape = Shape::Sphere(0.01);
  probe.rigid()->material.mass = 0.05;
  probe.rigid()->pose.position = Vec3(0, 0.01, 0);
  scene.bodies.push_back(probe);
  return std::move(*World::FromScene("worlds/r", scene, WorldLimits{}));
}

// The device forces along the trajectory with models and forces delayed by `delay` s
// (0: server mode).
std::vector<Vec3> Forces(double delay, double seconds) {
  auto world = MakeWorld();
  auto channel = std::make_shared<haptics::ToolChannel>("s", "dev");
  (void)world->AttachHapticTool("probe", channel);
  const auto first = channel->model();
  auto params = haptics::ResolveParams({}, first->mass, first->inertia_local.diagonal().minCoeff());
  haptics::HapticCore core(*params);
  if (delay > 0.0) core.SetRemoteResync(haptics::kRemoteResyncBlend);
  struct Timed {
    double at;
    std::shared_ptr<const haptics::ToolLocalModel> model;
  };
  struct Push {
    double at;
    Vec3 force;
    double weight;
  };
  std::deque<Timed> models;  // in flight to the client
  std::deque<Push> pushes;   // in flight to the world
  std::shared_ptr<const haptics::ToolLocalModel> client_model = first;
  uint64_t last_tick = first->tick;
  std::vector<Vec3> out;
  double next_tick = world->settings().dt();
  const int steps = static_cast<int>(seconds / kPeriod);
  for (int i = 1; i <= steps; ++i) {
    const double t = i * kPeriod;
    // Forces that have reached the world by now join its next tick.
    while (!pushes.empty() && pushes.front().at <= t) {
      channel->AddCoupling(pushes.front().force, Vec3::Zero(), pushes.front().weight);
      pushes.pop_front();
    }
    while (t >= next_tick) {
      world->Step();
      next_tick += world->settings().dt();
    }
    if (auto m = channel->model(); m->tick != last_tick) {
      last_tick = m->tick;
      models.push_back({t + delay, m});
    }
    while (!models.empty() && models.front().at <= t) {
      client_model = models.front().model;
      models.pop_front();
    }
    // The model's age is what the client sees: stamp it with its arrival.
    auto stamped = std::make_shared<haptics::ToolLocalModel>(*client_model);
    stamped->published_at = t;
    core.SetModel(stamped);
    haptics::DevicePose pose;
    pose.sequence = i;
    pose.client_time = t;
    pose.position = Trajectory(t);
    const haptics::HapticReply r = core.OnPose(pose, t);
    out.push_back(r.force);
    pushes.push_back({t + delay, r.world_force, r.world_weight});
  }
  return out;
}

RunResult Run(const RunOptions& options) {
  RunResult result;
  const double seconds = 3.0;
  (void)options;  // simulated time: the quick run is the full run (about 0.2 s of CPU)
  const std::vector<Vec3> reference = Forces(0.0, seconds);
  double ref_sq = 0.0;
  for (const Vec3& f : reference) ref_sq += f.squaredNorm();
  const double ref_rms = std::sqrt(ref_sq / reference.size());
  for (const double delay : {0.020, 0.050}) {
    const std::vector<Vec3> remote = Forces(delay, seconds);
    std::vector<double> err;
    double sq = 0.0, max = 0.0;
    for (size_t i = 0; i < remote.size(); ++i) {
      const double e = (remote[i] - reference[i]).norm();
      err.push_back(e);
      sq += e * e;
      max = std::max(max, e);
    }
    JsonLine line;
    line.String("bench", absl::StrCat(kName, "/delay", static_cast<int>(delay * 1000), "ms"))
        .String("metric", "force_error_n")
        .Number("median", Median(err))
        .Number("p99", Percentile(err, 99.0))
        .Integer("n", static_cast<long long>(err.size()))
        .Number("paper", std::nullopt)
        .String("peer", "server-mode")
        .Number("peer_median", std::nullopt)
        .Number("ratio", std::nullopt)
        .String("notes", absl::StrCat("one-way delay ", delay * 1000, " ms (simulated, in "
                                      "process), rms error=", std::sqrt(sq / err.size()),
                                      " N, max=", max, " N, reference force rms=", ref_rms,
                                      " N; device 2 cm below the resting probe, stroke +-5 cm twice, lift; world 100 Hz, "
                                      "device 1 kHz, k=400 N/m"));
    result.json_lines.push_back(line.Finish());
  }
  return result;
}

const Registrar kRegistrar(Benchmark{kName, Run});

}  // namespace
}  // namespace ligature::bench
