// Haptic coupling against physics: a probe pressed into a rigid floor and into soft tissue
// along scripted trajectories, world at 60-200 Hz and device at 1 kHz, run in simulated
// time (the world ticks when its period has passed, the haptic loop takes every pose). The
// coupling must stay passive: its energy bounded by the work the device put in, never
// growing while the device holds still, and the force settling without oscillation.

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <functional>
#include <memory>
#include <vector>

#include "server/haptics/haptic_core.h"
#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "server/world/world.h"

namespace ligature {
namespace {

constexpr double kDevicePeriod = 1e-3;

struct Trace {
  std::vector<double> time;
  std::vector<double> energy;  // J, coupling spring + tool kinetic (haptic side)
  std::vector<Vec3> force;     // N, on the device
  std::vector<double> tool_y;  // m, the world's tool
};

// Runs the world and one haptic session on tool "probe" for `seconds`, the device at
// `path(t)` (body frame position).
Trace RunSession(World& world, const std::function<Vec3(double)>& path, double seconds,
                 haptics::HapticParams given = {}) {
  auto channel = std::make_shared<haptics::ToolChannel>("s", "dev");
  EXPECT_TRUE(world.AttachHapticTool("probe", channel).ok());
  const auto model = channel->model();
  const Mat3 inertia = model->inertia_local;
  auto params = haptics::ResolveParams(given, model->mass, inertia.diagonal().minCoeff());
  EXPECT_TRUE(params.ok());
  haptics::HapticCore core(*params);
  Trace trace;
  const double tick = world.settings().dt();
  double next_tick = tick;
  const int steps = static_cast<int>(seconds / kDevicePeriod);
  for (int i = 1; i <= steps; ++i) {
    const double t = i * kDevicePeriod;
    while (t >= next_tick) {
      world.Step();
      next_tick += tick;
    }
    haptics::DevicePose pose;
    pose.sequence = i;
    pose.client_time = t;
    pose.position = path(t);
    core.SetModel(channel->model());
    const haptics::HapticReply r = core.OnPose(pose, t);
    EXPECT_FALSE(r.rejected_pose);
    channel->AddCoupling(r.world_force, r.world_torque, r.world_weight);
    haptics::DeviceTarget target;
    target.position = pose.position + model->center_local;
    const haptics::ToolState& s = core.simulator().state();
    trace.time.push_back(t);
    trace.energy.push_back(core.simulator().CouplingEnergy(target) +
                           0.5 * model->mass * s.linear_velocity.squaredNorm());
    trace.force.push_back(r.force);
    trace.tool_y.push_back(world.GetBody("probe")->rigid()->pose.position.y());
  }
  return trace;
}

BodyDesc Probe(const Vec3& at, double radius = 0.01) {
  BodyDesc b;
  b.id = "probe";
  b.rigid()->shape = Shape::Sphere(radius);
  b.rigid()->material.mass = 0.05;
  b.rigid()->pose.position = at;
  return b;
}

// A static ground plane and a probe at `probe_at`, stepped at `rate_hz` in `substeps`.
std::unique_ptr<World> FloorWorld(double rate_hz, const Vec3& probe_at, int substeps = 1) {
  SceneDesc scene;
  scene.settings.rate_hz = rate_hz;
  scene.settings.solver.substeps = substeps;
  BodyDesc ground;
  ground.id = "ground";
  ground.kind = BodyKind::kStatic;
  ground.rigid()->shape = Shape::Plane();
  scene.bodies.push_back(ground);
  scene.bodies.push_back(Probe(probe_at));
  auto world = World::FromScene("worlds/floor", scene, WorldLimits{});
  EXPECT_TRUE(world.ok()) << world.status();
  return world.ok() ? *std::move(world) : nullptr;
}

// Press 2 cm down from 3 cm above the contact at 5 cm/s, hold 1 s.
Vec3 Press(double t, double top) { return Vec3(0, top - 0.05 * std::min(t, 1.0), 0); }

// Largest value of `v` over samples [from, to).
double MaxOver(const std::vector<double>& v, size_t from, size_t to) {
  double m = -INFINITY;
  for (size_t i = from; i < to; ++i) m = std::max(m, v[i]);
  return m;
}

// `v` with every value's sign turned (MaxOver of it is minus the smallest value).
std::vector<double> Negated(std::vector<double> v) {
  for (double& x : v) x = -x;
  return v;
}

// Largest minus smallest vertical force over samples [from, to).
double Ripple(const Trace& tr, size_t from, size_t to) {
  double lo = INFINITY, hi = -INFINITY;
  for (size_t i = from; i < to; ++i) {
    lo = std::min(lo, tr.force[i].y());
    hi = std::max(hi, tr.force[i].y());
  }
  return hi - lo;
}

void ExpectPassiveHold(const Trace& tr, double spring_bound, double ripple_bound) {
  const size_t n = tr.time.size();
  for (size_t i = 0; i < n; ++i) ASSERT_TRUE(tr.force[i].allFinite());
  // Bounded: never more than the energy of the spring stretched over the whole press.
  EXPECT_LT(MaxOver(tr.energy, 0, n), spring_bound);
  // Held still (the last 0.8 s): not growing, and the force settles without oscillating.
  const size_t hold = n - 800;
  EXPECT_LE(MaxOver(tr.energy, n - 200, n), MaxOver(tr.energy, hold, hold + 200) + 1e-6);
  EXPECT_LT(Ripple(tr, n - 300, n), ripple_bound) << "force still varies over the last 0.3 s";
  // Whatever varies does not grow.
  EXPECT_LE(Ripple(tr, n - 300, n), Ripple(tr, hold, hold + 300) + 1e-9);
}

// A probe held pressed into soft tissue: passive and bounded (`spring_bound`, J), its force
// still within 1 % of itself over the last 0.3 s, pushed back, and the world's probe at rest.
void ExpectHeldInTissue(const char* what, const Trace& tr, double spring_bound) {
  const size_t n = tr.time.size();
  const double held = std::abs(tr.force.back().y());
  std::printf("%s hold: force %.4f N, ripple %.5f N (%.3f %%)\n", what, tr.force.back().y(),
              Ripple(tr, n - 300, n), 100.0 * Ripple(tr, n - 300, n) / held);
  ExpectPassiveHold(tr, spring_bound, 0.01 * held);
  EXPECT_GT(tr.force.back().y(), 0.5);
  EXPECT_LT(MaxOver(tr.tool_y, n - 300, n) + MaxOver(Negated(tr.tool_y), n - 300, n), 1e-4);
}

// The world in one step per tick, and in 4 substeps (SolverSettings::substeps).
TEST(HapticsPassivityTest, ProbePressedIntoARigidFloorAt60Hz) {
  for (int substeps : {1, 4}) {
    SCOPED_TRACE(substeps);
    auto world = FloorWorld(60, Vec3(0, 0.04, 0), substeps);
    ASSERT_NE(world, nullptr);
    const Trace tr = RunSession(
        *world, [](double t) { return Press(t, 0.04); }, 2.0);
    // k = 400 N/m over at most 3 cm of stretch: 0.18 J.
    ExpectPassiveHold(tr, 0.5 * 400 * 0.03 * 0.03, 0.02);
    // At rest the device feels the spring's stretch: the probe rests on the floor (its
    // centre at 1 cm; the floor carries its weight) and the device is at -1 cm, so
    // 400 N/m * 0.02 m = 8 N up.
    EXPECT_NEAR(tr.force.back().y(), 8.0, 0.1);
    EXPECT_NEAR(tr.tool_y.back(), 0.01, 1e-3);  // the world's probe rests on the floor
  }
}

// A block of FEM tissue 10 x 4 x 10 cm held at its bottom face, with a probe 3 cm in radius
// (wider than the mesh's cells, so that it meets the tissue at its vertices) above it,
// stepped at 200 Hz without gravity.
std::unique_ptr<World> TissueWorld() {
  SceneDesc scene;
  scene.settings.rate_hz = 200;
  scene.settings.gravity = Vec3::Zero();
  BodyDesc block;
  block.id = "block";
  SoftBodyDesc soft;
  soft.id = "block";
  soft.mesh = MakeBoxMesh(Vec3(0.05, 0.02, 0.05), 4, 2, 4);
  soft.model = SoftModelKind::kCorotational;
  soft.fem.young = 2e4;
  soft.fem.mass_damping = 5;
  // The bottom face is held.
  for (size_t v = 0; v < soft.mesh.vertices.size(); ++v) {
    if (soft.mesh.vertices[v].y() < -0.019) soft.fixed.push_back(static_cast<int>(v));
  }
  block.body = soft;
  scene.bodies.push_back(block);
  scene.bodies.push_back(Probe(Vec3(0, 0.08, 0), 0.03));
  auto world = World::FromScene("worlds/t", scene, WorldLimits{});
  EXPECT_TRUE(world.ok()) << world.status();
  return world.ok() ? *std::move(world) : nullptr;
}

TEST(HapticsPassivityTest, ProbePressedIntoSoftTissueAt200Hz) {
  std::unique_ptr<World> world = TissueWorld();
  ASSERT_NE(world, nullptr);
  const Trace tr = RunSession(
      *world, [](double t) { return Press(t, 0.08); }, 2.0);
  // Each tick restarts the haptic tool from the world's, at the velocity it moved with
  // (the tissue's reaction is the buffer's alone): held still, the force keeps no trace of
  // the world's rate.
  ExpectHeldInTissue("soft tissue", tr, 0.5 * 400 * 0.03 * 0.03);
  // The tissue pushes back less than a rigid floor would. Held still, the device feels the
  // coupling's stretch to the world's resting probe (k = 400 N/m, the device at y = 3 cm),
  // with no damping force from a tool velocity.
  const double held = tr.force.back().y();
  EXPECT_LT(held, 8.0);
  EXPECT_NEAR(held, 400 * (tr.tool_y.back() - 0.03), 0.02 * held);
}

// The built-in organ (5,184 tets, corotational, its 121 tray vertices in the world's solve,
// 100 Hz) with a dynamic probe over its middle in place of the scene's kinematic one.
std::unique_ptr<World> OrganWorld() {
  absl::StatusOr<v1::Scene> proto = LoadBuiltinScene("organ");
  EXPECT_TRUE(proto.ok()) << proto.status();
  if (!proto.ok()) return nullptr;
  absl::StatusOr<SceneDesc> scene = SceneFromProto(*proto);
  EXPECT_TRUE(scene.ok()) << scene.status();
  if (!scene.ok()) return nullptr;
  std::erase_if(scene->bodies, [](const BodyDesc& b) { return b.id == "probe"; });
  scene->bodies.push_back(Probe(Vec3(0, 0.93, 0), 0.03));
  auto world = World::FromScene("worlds/organ", *scene, WorldLimits{});
  EXPECT_TRUE(world.ok()) << world.status();
  return world.ok() ? *std::move(world) : nullptr;
}

// Surgical scale: the device holds a 3 cm probe over the organ while it lands on its tray
// (0.5 s), presses it 5 cm down at 5 cm/s (about 2 cm into the organ's 6 cm) and holds. The
// force stays passive and bounded, and its ripple at the world's 10 ms ticks stays within
// 1 %: the probe is held up by the organ's push and by friction, and the buffer carries
// both to the haptic solve.
TEST(HapticsPassivityTest, ProbePressedIntoTheOrganAt100Hz) {
  std::unique_ptr<World> world = OrganWorld();
  ASSERT_NE(world, nullptr);
  const double above = 0.93;
  const Trace tr = RunSession(
      *world, [&](double t) { return t < 0.5 ? Vec3(0, above, 0) : Press(t - 0.5, above); }, 2.5);
  ExpectHeldInTissue("organ", tr, 0.5 * 400 * 0.05 * 0.05);
}

TEST(HapticsPassivityTest, StrokeAlongTheFloorStaysBounded) {
  auto world = FloorWorld(100, Vec3(0, 0.011, 0));
  ASSERT_NE(world, nullptr);
  // Pressed 5 mm in, stroking 10 cm/s along x and back.
  const Trace tr = RunSession(
      *world, [](double t) { return Vec3(0.1 * std::sin(t), 0.005, 0); }, 3.0);
  const size_t n = tr.time.size();
  for (size_t i = 0; i < n; ++i) {
    ASSERT_TRUE(tr.force[i].allFinite());
    EXPECT_LE(tr.force[i].norm(), 10.0 + 1e-9);
  }
  // Energy stays within the press's spring energy plus what friction drag can store.
  EXPECT_LT(MaxOver(tr.energy, 0, n), 0.05);
  // Later strokes store no more than the first: nothing builds up.
  EXPECT_LE(MaxOver(tr.energy, 2000, 3000), 1.5 * MaxOver(tr.energy, 0, 1000) + 1e-4);
}

}  // namespace
}  // namespace ligature
