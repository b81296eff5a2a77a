// Haptic tools in a World: who may attach, the coupling the tool takes at a tick, and the
// local model exported after it.

#include <gtest/gtest.h>

#include <memory>

#include "absl/strings/str_cat.h"
#include "server/haptics/haptic_core.h"
#include "server/world/world.h"

namespace ligature {
namespace {

BodyDesc Body(const std::string& id, const Shape& shape, const Vec3& at, BodyKind kind) {
  BodyDesc b;
  b.id = id;
  b.kind = kind;
  b.rigid()->shape = shape;
  b.rigid()->pose.position = at;
  b.rigid()->material.mass = 0.1;
  return b;
}

std::unique_ptr<World> ProbeWorld(const Vec3& gravity = Vec3::Zero()) {
  SceneDesc scene;
  scene.settings.rate_hz = 100;
  scene.settings.gravity = gravity;
  scene.bodies.push_back(Body("ground", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic));
  scene.bodies.push_back(Body("probe", Shape::Sphere(0.02), Vec3(0, 0.025, 0), BodyKind::kDynamic));
  scene.bodies.push_back(Body("wall", Shape::Box(Vec3(0.1, 0.1, 0.1)), Vec3(1, 0.1, 0),
                              BodyKind::kStatic));
  scene.bodies.push_back(Body("far", Shape::Sphere(0.02), Vec3(0, 2, 0), BodyKind::kDynamic));
  auto w = World::FromScene("worlds/h", scene, WorldLimits{});
  EXPECT_TRUE(w.ok());
  return std::move(*w);
}

auto Channel(const std::string& session) {
  return std::make_shared<haptics::ToolChannel>(session, "dev");
}

// A session pressing a 0.1 kg probe: a 400 N/m coupling, critically damped, and limits
// that leave its forces alone.
haptics::HapticParams PressParams() {
  haptics::HapticParams params;
  params.coupling.stiffness = 400;
  params.coupling.damping = 2 * std::sqrt(400 * 0.1);
  params.limits.force_limit = 10;
  params.limits.torque_limit = 1;
  params.limits.force_rate_limit = 1e5;
  params.limits.torque_rate_limit = 1e4;
  params.limits.watchdog_timeout = 0.01;
  return params;
}

TEST(WorldHapticsTest, OnlyOneSessionHoldsATool) {
  auto w = ProbeWorld();
  auto a = Channel("a");
  ASSERT_TRUE(w->AttachHapticTool("probe", a).ok());
  const absl::Status second = w->AttachHapticTool("probe", Channel("b"));
  EXPECT_EQ(second.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(second.message().find("held by haptic session a"), std::string::npos);
  // Detaching with another channel does nothing; with the holder it frees the tool.
  auto b = Channel("b");
  w->DetachHapticTool("probe", b.get());
  EXPECT_FALSE(w->AttachHapticTool("probe", b).ok());
  w->DetachHapticTool("probe", a.get());
  EXPECT_TRUE(w->AttachHapticTool("probe", b).ok());
}

TEST(WorldHapticsTest, ToolMustBeADynamicRigidBody) {
  auto w = ProbeWorld();
  EXPECT_EQ(w->AttachHapticTool("nope", Channel("a")).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(w->AttachHapticTool("wall", Channel("a")).code(),
            absl::StatusCode::kFailedPrecondition);
}

TEST(WorldHapticsTest, AttachingPublishesAModelWithTheToolsContactPlanes) {
  auto w = ProbeWorld();
  auto c = Channel("a");
  ASSERT_TRUE(w->AttachHapticTool("probe", c).ok());
  auto m = c->model();
  ASSERT_NE(m, nullptr);
  EXPECT_NEAR(m->mass, 0.1, 1e-12);
  EXPECT_TRUE(m->tool.position.isApprox(Vec3(0, 0.025, 0)));
  // The ground, 5 mm under the probe, is a plane pushing it up; the wall and the far ball
  // are out of reach.
  ASSERT_EQ(m->planes.size(), 1u);
  EXPECT_EQ(m->planes[0].body, "ground");
  EXPECT_TRUE(m->planes[0].normal.isApprox(Vec3::UnitY()));
  EXPECT_NEAR(m->planes[0].gap, 0.005, 1e-9);
  EXPECT_NEAR(m->planes[0].point.y(), 0.005, 1e-9);
  EXPECT_EQ(m->planes[0].compliance, 0.0);
}

TEST(WorldHapticsTest, TheToolTakesTheAverageCouplingOverTheTick) {
  auto w = ProbeWorld();
  auto c = Channel("a");
  ASSERT_TRUE(w->AttachHapticTool("far", c).ok());
  // Two samples, 1 N and 3 N along x for 1 ms and 3 ms: average (1 + 9) / 4 = 2.5 N.
  c->AddCoupling(Vec3(1, 0, 0), Vec3::Zero(), 1e-3);
  c->AddCoupling(Vec3(3, 0, 0), Vec3::Zero(), 3e-3);
  w->Step();
  const double v = w->GetBody("far")->rigid()->linear_velocity.x();
  EXPECT_NEAR(v, 2.5 / 0.1 * 0.01, 1e-12);  // a = F / m over one 10 ms tick
  // Viewers see it in the frame.
  const Frame f = w->MakeFrame();
  ASSERT_EQ(f.tools.size(), 1u);
  EXPECT_EQ(f.tools[0].body_id, "far");
  EXPECT_NEAR(f.tools[0].coupling_force.x(), 2.5, 1e-12);
  // Nothing accumulated: nothing applied.
  w->Step();
  EXPECT_NEAR(w->GetBody("far")->rigid()->linear_velocity.x(), v, 1e-12);
  EXPECT_EQ(c->model()->tick, w->tick());
}

TEST(WorldHapticsTest, RemovedToolEndsTheModel) {
  auto w = ProbeWorld();
  auto c = Channel("a");
  ASSERT_TRUE(w->AttachHapticTool("far", c).ok());
  ASSERT_TRUE(w->RemoveBody("far").ok());
  w->Step();
  EXPECT_TRUE(c->model()->tool_removed);
  // The tool is free again (another body of that id would be attachable).
  EXPECT_EQ(w->AttachHapticTool("far", Channel("b")).code(), absl::StatusCode::kNotFound);
}

// A 10 cm block of soft FEM tissue (2 x 2 x 2 cells) centred at the origin, free or held at
// its base, in a 100 Hz world without gravity.
SceneDesc BlockScene(bool held_base) {
  SceneDesc scene;
  scene.settings.rate_hz = 100;
  scene.settings.gravity = Vec3::Zero();
  BodyDesc block;
  block.id = "block";
  SoftBodyDesc soft;
  soft.id = "block";
  soft.mesh = MakeBoxMesh(Vec3(0.05, 0.05, 0.05), 2, 2, 2);
  soft.model = SoftModelKind::kCorotational;
  soft.fem.young = 2e4;
  for (size_t v = 0; held_base && v < soft.mesh.vertices.size(); ++v) {
    if (soft.mesh.vertices[v].y() < -0.049) soft.fixed.push_back(static_cast<int>(v));
  }
  block.body = soft;
  scene.bodies.push_back(block);
  return scene;
}

TEST(WorldHapticsTest, SoftBodyNearTheToolGivesABufferWithItsCompliance) {
  SceneDesc scene = BlockScene(/*held_base=*/false);
  scene.bodies.push_back(Body("probe", Shape::Sphere(0.01), Vec3(0, 0.062, 0), BodyKind::kDynamic));
  auto w = std::move(*World::FromScene("worlds/s", scene, WorldLimits{}));
  auto c = Channel("a");
  ASSERT_TRUE(w->AttachHapticTool("probe", c).ok());
  w->Step();  // assembles the FEM system
  auto m = c->model();
  ASSERT_EQ(m->buffers.size(), 1u);
  const haptics::BufferModel& b = m->buffers[0];
  EXPECT_EQ(b.body, "block");
  ASSERT_FALSE(b.vertex_indices.empty());
  const int n = static_cast<int>(b.vertex_indices.size());
  ASSERT_EQ(b.compliance.rows(), 3 * n);
  // The nearest vertex is the top face's centre, under the probe.
  EXPECT_NEAR(b.positions[0].x(), 0.0, 1e-6);
  EXPECT_NEAR(b.positions[0].y(), 0.05, 1e-3);
  // The compliance is the world's: symmetric, positive on the diagonal, and its blocks are
  // what the FEM system answers.
  EXPECT_LT((b.compliance - b.compliance.transpose()).norm(), 1e-9 * b.compliance.norm());
  for (int i = 0; i < 3 * n; ++i) EXPECT_GT(b.compliance(i, i), 0.0);
  const SoftWorld::Body* body = w->soft_bodies().FindBody("block");
  const Mat3 c00 = body->system->Compliance(b.vertex_indices[0]);
  EXPECT_LT((b.compliance.block<3, 3>(0, 0) - c00).norm(), 1e-12);
}

// A rope along x from 0 to 0.4 m (radius 5 mm) at height 0, held, or free with its ends
// pinned, and a probe sphere of radius 1 cm above it; no gravity.
std::unique_ptr<World> RopeWorld(bool held, const Vec3& probe_at) {
  SceneDesc scene;
  scene.settings.rate_hz = 100;
  scene.settings.gravity = Vec3::Zero();
  BodyDesc rope;
  rope.id = "rope";
  rope.kind = held ? BodyKind::kStatic : BodyKind::kDynamic;
  RodDesc r;
  r.points = {Vec3(0, 0, 0), Vec3(0.4, 0, 0)};
  r.control_points = 21;
  r.material.radius = 0.005;
  r.material.young = 5.0e8;
  r.material.damping = 1.0;
  rope.body = r;
  scene.bodies.push_back(rope);
  scene.bodies.push_back(Body("probe", Shape::Sphere(0.01), probe_at, BodyKind::kDynamic));
  for (double u : {0.0, 0.4}) {
    if (held) break;
    ConstraintDesc pin;
    pin.id = absl::StrCat("pin", u);
    RodConstraintDesc c;
    c.id = pin.id;
    c.kind = RodConstraintKind::kPosition;
    c.a = {"rope", u};
    c.target = Vec3(u, 0, 0);
    pin.rod = c;
    scene.constraints.push_back(pin);
  }
  auto w = World::FromScene("worlds/r", scene, WorldLimits{});
  EXPECT_TRUE(w.ok()) << w.status();
  return std::move(*w);
}

TEST(WorldHapticsTest, ARodUnderTheToolGivesOneContactPlane) {
  // The probe's centre 2 cm above the rope's axis: 5 mm between the surfaces.
  auto w = RopeWorld(/*held=*/true, Vec3(0.1234, 0.02, 0));
  auto c = Channel("a");
  ASSERT_TRUE(w->AttachHapticTool("probe", c).ok());
  auto m = c->model();
  ASSERT_EQ(m->planes.size(), 1u);
  const haptics::ContactPlane& p = m->planes[0];
  EXPECT_EQ(p.body, "rope");
  EXPECT_TRUE(p.normal.isApprox(Vec3::UnitY(), 1e-9));
  EXPECT_NEAR(p.gap, 0.005, 1e-9);
  EXPECT_TRUE(p.point.isApprox(Vec3(0.1234, 0.01, 0), 1e-9));
  EXPECT_EQ(p.compliance, 0.0);  // a held rope does not yield
  // A free rope yields over a tick like the mass of one control-point span.
  auto free = RopeWorld(/*held=*/false, Vec3(0.1234, 0.02, 0));
  auto d = Channel("b");
  ASSERT_TRUE(free->AttachHapticTool("probe", d).ok());
  ASSERT_EQ(d->model()->planes.size(), 1u);
  const RodWorld::Rod& rod = free->rods().rods()[0];
  const double span = rod.model.mass() / 20.0;
  EXPECT_NEAR(d->model()->planes[0].compliance, 0.01 * 0.01 / span, 1e-12);
  // Beyond the rope's end nothing is within reach.
  auto past = RopeWorld(/*held=*/true, Vec3(0.5, 0.02, 0));
  auto e = Channel("c");
  ASSERT_TRUE(past->AttachHapticTool("probe", e).ok());
  EXPECT_TRUE(e->model()->planes.empty());
}

// A tool feels only the rods and soft bodies its shapes' filters meet: once the rope is on
// layer 1 (bit 2) and the probe's mask leaves that out, the next tick's model has no plane
// for it.
TEST(WorldHapticsTest, ARodOnALayerTheToolLeavesOutGivesNoPlane) {
  auto w = RopeWorld(/*held=*/true, Vec3(0.1234, 0.02, 0));
  auto c = Channel("a");
  ASSERT_TRUE(w->AttachHapticTool("probe", c).ok());
  ASSERT_EQ(c->model()->planes.size(), 1u);
  BodyUpdate rope, probe;
  rope.collision = CollisionFilter{2, ~0u};
  probe.collision = CollisionFilter{1, ~2u};
  ASSERT_TRUE(w->UpdateBody("rope", rope).ok());
  w->Step();
  EXPECT_EQ(c->model()->planes.size(), 1u);  // the probe still takes layer 1
  ASSERT_TRUE(w->UpdateBody("probe", probe).ok());
  w->Step();
  EXPECT_TRUE(c->model()->planes.empty());
}

TEST(WorldHapticsTest, AProbeStrokingAlongARopeFeelsItAndNothingPastItsEnd) {
  // A rope pinned at both ends; the device strokes at 5 cm/s along it, 1 cm below the
  // probe's resting contact. The world ticks at 100 Hz; the haptic core runs at 1 kHz on
  // the models it exports and the world takes the coupling, so the rope sags under the
  // press and holds the probe up.
  auto w = RopeWorld(/*held=*/false, Vec3(0.05, 0.015, 0));
  auto c = Channel("a");
  ASSERT_TRUE(w->AttachHapticTool("probe", c).ok());
  haptics::HapticCore core(PressParams());
  const double depth = 0.01;
  uint64_t seq = 0;
  double time = 0.0;
  double min_on_rope = 1e9, max_past_end = 0.0;
  int contacts_on_rope = 0, poses_on_rope = 0;
  double sum_on_rope = 0.0;
  for (int tick = 0; tick < 900; ++tick) {
    for (int k = 0; k < 10; ++k) {
      time += 1e-3;
      haptics::DevicePose pose;
      pose.sequence = ++seq;
      pose.client_time = time;
      const double x = 0.05 + 0.05 * time;
      pose.position = Vec3(x, 0.015 - depth, 0);
      core.SetModel(c->model());
      const haptics::HapticReply r = core.OnPose(pose, time);
      c->AddCoupling(r.world_force, r.world_torque, r.world_weight);
      if (time < 0.5) continue;  // settling on the rope
      // Along the rope (away from its pinned ends) the device is pushed up.
      if (x > 0.1 && x < 0.3) {
        min_on_rope = std::min(min_on_rope, r.force.y());
        sum_on_rope += r.force.y();
        ++poses_on_rope;
        contacts_on_rope += r.contacts > 0 ? 1 : 0;
      }
      // Well past the end the probe has followed the device down: no force.
      if (x > 0.47) max_past_end = std::max(max_past_end, std::abs(r.force.y()));
    }
    w->Step();
  }
  // The rope never lets the probe go through, and the local model's rope contact carries
  // it through much of every tick (the rest of each tick the probe closes the small gap
  // the world's rod contact leaves).
  EXPECT_GT(min_on_rope, 0.05 * 400 * depth);
  EXPECT_GT(sum_on_rope / poses_on_rope, 0.2 * 400 * depth);
  EXPECT_GT(contacts_on_rope, 0.3 * poses_on_rope);
  EXPECT_LT(max_past_end, 0.01 * 400 * depth);
  EXPECT_GT(poses_on_rope, 3000);
}

// A needle (a capsule of 1 mm radius, upright) over a coarse FEM block held at its base,
// between the block's top vertices: they are 5 cm apart and the nearest is 1.8 cm from the
// needle. The device takes the needle down 1 cm below where its tip meets the top, over
// 0.2 s, and holds it there. The world ticks at 100 Hz; the haptic core runs at 1 kHz on
// the models it exports and the world takes the coupling.
struct NeedleRun {
  double lowest_tip = 1e9;      // m, the world's needle
  double lowest_force = 1e9;    // N, upwards on the device, while held
  double highest_force = -1e9;  // N, while held
  double mean_force = 0.0;      // N, while held
  double buffer_faces = 0;      // in the last model
};

NeedleRun PressNeedle(double depth) {
  SceneDesc scene = BlockScene(/*held_base=*/true);
  constexpr double kHalf = 0.02, kRadius = 0.001;
  const Vec3 start(0.0125, 0.05 + kHalf + kRadius + 0.001, 0.0375);  // tip 1 mm above
  scene.bodies.push_back(Body("needle", Shape::Capsule(kRadius, kHalf), start, BodyKind::kDynamic));
  auto made = World::FromScene("worlds/n", scene, WorldLimits{});
  EXPECT_TRUE(made.ok()) << made.status();
  auto w = std::move(*made);
  auto c = Channel("a");
  EXPECT_TRUE(w->AttachHapticTool("needle", c).ok());
  haptics::HapticCore core(PressParams());
  NeedleRun run;
  int held = 0;
  uint64_t seq = 0;
  double time = 0.0;
  for (int tick = 0; tick < 100; ++tick) {
    for (int k = 0; k < 10; ++k) {
      time += 1e-3;
      haptics::DevicePose pose;
      pose.sequence = ++seq;
      pose.client_time = time;
      pose.position = start - Vec3(0, (0.001 + depth) * std::min(1.0, time / 0.2), 0);
      core.SetModel(c->model());
      const haptics::HapticReply r = core.OnPose(pose, time);
      c->AddCoupling(r.world_force, r.world_torque, r.world_weight);
      if (time < 0.5) continue;  // settling
      run.lowest_force = std::min(run.lowest_force, r.force.y());
      run.highest_force = std::max(run.highest_force, r.force.y());
      run.mean_force += r.force.y();
      ++held;
    }
    w->Step();
    EXPECT_EQ(w->bodies().id[0], "needle");  // the one rigid body
    const Vec3 tip = w->bodies().position[0] - Vec3(0, kHalf + kRadius, 0);
    run.lowest_tip = std::min(run.lowest_tip, tip.y());
  }
  run.mean_force /= held;
  run.buffer_faces = c->model()->buffers.empty() ? 0 : c->model()->buffers[0].faces.size();
  return run;
}

TEST(WorldHapticsTest, ANeedleBetweenCoarseVerticesIsHeldByTheFaceItPresses) {
  const double depth = 0.01;
  const NeedleRun run = PressNeedle(depth);
  EXPECT_GE(run.buffer_faces, 1);
  // The block gives under the needle but holds it: the needle stops well short of the
  // device's 1 cm, and the device is pushed up all through the hold.
  EXPECT_GT(run.lowest_tip, 0.05 - 0.5 * depth);
  EXPECT_GT(run.lowest_force, 0.5 * 400 * depth);
  EXPECT_GT(run.mean_force, 0.5 * 400 * depth);
  // The haptic model's triangle holds the needle as the world's does, so the held force
  // does not saw at the world's rate (it measured 0.3 % peak to peak; the model without
  // its triangle let the force fall to 0.27 of its mean every tick).
  EXPECT_LT(run.highest_force - run.lowest_force, 0.015 * run.mean_force);
}

}  // namespace
}  // namespace ligature
