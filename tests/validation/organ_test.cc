// The built-in organ scene: a 5184-tet corotational body dropped 1 cm onto a rigid tray
// comes to rest on it: no vertex sinks into the tray, its motion dies out, and the tray
// carries its weight through the contacts of the world's solve. The compliance those
// contacts take from the rest factorization is measured against the exact one.

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "server/model/soft/fem_corotational.h"
#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

TEST(Organ, SettlesOnTheTray) {
  absl::StatusOr<v1::Scene> proto = LoadBuiltinScene("organ");
  ASSERT_TRUE(proto.ok()) << proto.status();
  absl::StatusOr<SceneDesc> scene = SceneFromProto(*proto);
  ASSERT_TRUE(scene.ok()) << scene.status();
  auto world = testing::MakeWorld(*scene);
  const SoftWorld::Body* organ = world->soft_bodies().FindBody("organ");
  ASSERT_NE(organ, nullptr);
  EXPECT_EQ(organ->desc.mesh.tets.size(), 5184u);
  const double tray_top = 0.81;  // m
  double lowest = 1.0;
  for (int i = 0; i < 150; ++i) {
    world->Step();
    ASSERT_EQ(world->last_stats().recovered_bodies, 0) << "step " << i;
    for (const Vec3& x : organ->positions()) lowest = std::min(lowest, x.y());
  }
  EXPECT_GT(lowest, tray_top - 1e-3);
  EXPECT_LT(lowest, tray_top + 1e-3);  // it reached the tray
  double speed = 0.0;
  for (const Vec3& v : organ->fem_state.v) speed = std::max(speed, v.norm());
  EXPECT_LT(speed, 0.02);  // m/s

  // At rest, each tick's contact impulses on the tray add up to the organ's weight times
  // the step (averaged over 20 ticks).
  double mass = 0.0;
  for (double m : organ->masses()) mass += m;
  const double h = 1.0 / scene->settings.rate_hz;
  const double gravity = -scene->settings.gravity.y();
  double carried = 0.0;
  std::set<int> coupled;
  constexpr int kTicks = 20;
  for (int i = 0; i < kTicks; ++i) {
    world->Step();
    coupled.clear();
    for (const World::ContactReport& c : world->LastContacts()) {
      if (c.a != "organ") continue;
      carried -= c.impulse.y();  // the tray is pushed down
      coupled.insert(c.vertex);
    }
  }
  // Every vertex resting on the tray is in the solve.
  int resting = 0;
  for (int v = 0; v < static_cast<int>(organ->positions().size()); ++v) {
    if (organ->positions()[v].y() > tray_top + 1e-4) continue;
    ++resting;
    EXPECT_TRUE(coupled.contains(v)) << v;
  }
  EXPECT_GT(resting, 64);
  EXPECT_NEAR(carried / kTicks, mass * gravity * h, 0.005 * mass * gravity * h);

  // The compliance the solve takes between the vertices in contact (the rest
  // factorization's, turned into the organ's frame) against the exact one of the step's own
  // system, both assembled at the organ's state now.
  const std::vector<int> contacted(coupled.begin(), coupled.end());
  CorotationalSystem exact(CorotationalSolve::kDirect), approximate;
  ASSERT_TRUE(organ->fem->Assemble(organ->fem_state, h, scene->settings.gravity, {}, &exact).ok());
  ASSERT_TRUE(
      organ->fem->Assemble(organ->fem_state, h, scene->settings.gravity, {}, &approximate).ok());
  ASSERT_FALSE(approximate.exact_response());
  const Eigen::MatrixXd want = exact.InverseBetween(contacted);
  const double error = (approximate.InverseBetween(contacted) - want).norm() / want.norm();
  RecordProperty("compliance_error", std::to_string(error));
  EXPECT_LT(error, 0.05);
}

}  // namespace
}  // namespace ligature
