// Haptic tools in a World: who may attach, the coupling the tool takes at a tick, and the
// local model exported after it.

#include <gtest/gtest.h>

#include <memory>

#include "server/world/world.h"

namespace ligature {
namespace {

BodyDesc Body(const std::string& id, const Shape& shape, const Vec3& at, BodyKind kind) {
  BodyDesc b;
  b.id = id;
  b.kind = kind;
  b.shape = shape;
  b.pose.position = at;
  b.material.mass = 0.1;
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
  const double v = w->GetBody("far")->linear_velocity.x();
  EXPECT_NEAR(v, 2.5 / 0.1 * 0.01, 1e-12);  // a = F / m over one 10 ms tick
  // Viewers see it in the frame.
  const Frame f = w->MakeFrame();
  ASSERT_EQ(f.tools.size(), 1u);
  EXPECT_EQ(f.tools[0].body_id, "far");
  EXPECT_NEAR(f.tools[0].coupling_force.x(), 2.5, 1e-12);
  // Nothing accumulated: nothing applied.
  w->Step();
  EXPECT_NEAR(w->GetBody("far")->linear_velocity.x(), v, 1e-12);
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

TEST(WorldHapticsTest, SoftBodyNearTheToolGivesABufferWithItsCompliance) {
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
  block.soft = soft;
  scene.bodies.push_back(block);
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

}  // namespace
}  // namespace ligature
