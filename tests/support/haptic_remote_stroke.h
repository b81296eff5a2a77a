#pragma once
// A scripted haptic stroke run in simulated time, in process, with the haptic core the
// server and the client library use: a 1 cm sphere probe (50 g) resting on a static floor
// in a 100 Hz world, driven by a device at 1 kHz that presses 2 cm below it (0.5 s),
// strokes it 5 cm along x and back twice (2 s), and lifts it off (0.5 s).
//  - Server mode (delay 0): every pose is solved against the newest model and the world
//    takes the forces at once.
//  - Remote mode (delay > 0): the client solves against models that reach it `delay` after
//    the world published them, and the world takes the client's forces `delay` late.
// Shared by the remote-mode validation test and the haptics/remote benchmark.

#include <cmath>
#include <deque>
#include <memory>
#include <vector>

#include "server/haptics/haptic_core.h"
#include "server/world/world.h"

namespace ligature::testing {

constexpr double kStrokePeriod = 1e-3;  // s, the device's
constexpr double kStrokeSeconds = 3.0;

// The device's position at time t (s).
inline Vec3 StrokeTrajectory(double t) {
  if (t < 0.5) return Vec3(0, 0.01 - 0.02 * t / 0.5, 0);                    // press
  if (t < 2.5) return Vec3(0.05 * std::sin(2 * M_PI * (t - 0.5)), -0.01, 0);  // stroke
  return Vec3(0, -0.01 + 0.06 * (t - 2.5) / 0.5, 0);                         // lift
}

inline std::unique_ptr<World> MakeStrokeWorld() {
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
  return std::move(*World::FromScene("worlds/stroke", scene, WorldLimits{}));
}

// The force at the device for each pose of the stroke, with models and forces delayed by
// `delay` s each way (0: server mode).
inline std::vector<Vec3> StrokeForces(double delay) {
  auto world = MakeStrokeWorld();
  auto channel = std::make_shared<haptics::ToolChannel>("s", "dev");
  (void)world->AttachHapticTool("probe", channel);
  const auto first = channel->model();
  auto params =
      haptics::ResolveParams({}, first->mass, first->inertia_local.diagonal().minCoeff());
  haptics::HapticCore core(*params);
  if (delay > 0.0) core.SetRemoteResync(haptics::kRemoteResyncBlend);
  struct Timed {
    double at;
    std::shared_ptr<const haptics::ToolLocalModel> model;
  };
  struct Push {
    double at;
    Vec3 force;
    Vec3 torque;
    double weight;
  };
  std::deque<Timed> models;  // in flight to the client
  std::deque<Push> pushes;   // in flight to the world
  std::shared_ptr<const haptics::ToolLocalModel> client_model = first;
  uint64_t last_tick = first->tick;
  std::vector<Vec3> out;
  double next_tick = world->settings().dt();
  const int steps = static_cast<int>(kStrokeSeconds / kStrokePeriod);
  for (int i = 1; i <= steps; ++i) {
    const double t = i * kStrokePeriod;
    // Forces that have reached the world by now join its next tick.
    while (!pushes.empty() && pushes.front().at <= t) {
      channel->AddCoupling(pushes.front().force, pushes.front().torque, pushes.front().weight);
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
    pose.position = StrokeTrajectory(t);
    const haptics::HapticReply r = core.OnPose(pose, t);
    out.push_back(r.force);
    pushes.push_back({t + delay, r.world_force, r.world_torque, r.world_weight});
  }
  return out;
}

// The root mean square of the forces' magnitudes (N).
inline double StrokeRms(const std::vector<Vec3>& forces) {
  double sq = 0.0;
  for (const Vec3& f : forces) sq += f.squaredNorm();
  return std::sqrt(sq / forces.size());
}

}  // namespace ligature::testing
