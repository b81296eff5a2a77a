// The built-in organ scene: a 5184-tet corotational body dropped 1 cm onto a rigid tray
// comes to rest on it: no vertex sinks into the tray, its motion dies out, and the tray
// carries its weight through the contacts of the world's solve. The compliance those
// contacts take from the rest factorization is measured against the exact one. Its probe
// and its scalpel, driven as a viewer drives them, press and cut it at once.

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>
#include <string>
#include <vector>

#include "server/model/soft/fem_corotational.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

// Under both solvers: in a tunable-LCP world the organ's contacts are rows of its velocity
// pass.
class OrganOnTheTray : public ::testing::TestWithParam<SolverKind> {};

TEST_P(OrganOnTheTray, SettlesOnTheTray) {
  SceneDesc scene = testing::BuiltinScene("organ");
  scene.settings.solver.kind = GetParam();
  auto world = testing::MakeWorld(scene);
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
  const double h = 1.0 / scene.settings.rate_hz;
  const double gravity = -scene.settings.gravity.y();
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
  ASSERT_TRUE(organ->fem->Assemble(organ->fem_state, h, scene.settings.gravity, {}, &exact).ok());
  ASSERT_TRUE(
      organ->fem->Assemble(organ->fem_state, h, scene.settings.gravity, {}, &approximate).ok());
  ASSERT_FALSE(approximate.exact_response());
  const Eigen::MatrixXd want = exact.InverseBetween(contacted);
  const double error = (approximate.InverseBetween(contacted) - want).norm() / want.norm();
  RecordProperty("compliance_error", std::to_string(error));
  EXPECT_LT(error, 0.05);
}

INSTANTIATE_TEST_SUITE_P(Solvers, OrganOnTheTray,
                         ::testing::Values(SolverKind::kGaussSeidel, SolverKind::kTunableLcp),
                         [](const auto& info) { return testing::SolverName(info.param); });

// The scene as a viewer finds it: the probe held 1 cm deep in the organ's top while the
// scalpel is pressed 1 cm in beside it, drawn 12 cm across and lifted, at 100 Hz. The
// stroke cuts; the cut keeps the organ's mass and leaves every tetrahedron positive; the
// organ pushes the probe up on every tick it is pressed; no step is rolled back.
TEST(Organ, ProbePressesWhileTheScalpelCuts) {
  auto world = testing::MakeWorld(testing::BuiltinScene("organ"));
  for (int i = 0; i < 30; ++i) world->Step();
  const SoftWorld::Body* organ = world->soft_bodies().FindBody("organ");
  ASSERT_NE(organ, nullptr);
  double top = 0.0;
  for (const Vec3& x : organ->positions()) top = std::max(top, x.y());
  const double mass_before = std::accumulate(organ->masses().begin(), organ->masses().end(), 0.0);
  const size_t vertices_before = organ->positions().size();

  const Vec3 probe(0.0, top, -0.05);  // the 1 cm sphere's centre: its lower half is in
  int cuts = 0, pushed = 0, pressed = 0;
  auto drive = [&](const Vec3& a, const Vec3& b, int ticks) {
    for (int i = 1; i <= ticks; ++i) {
      const Vec3 tip = a + (static_cast<double>(i) / ticks) * (b - a);
      ASSERT_TRUE(world->SetDeviceTarget("probe", Transform{probe, Quat::Identity()}).ok());
      ASSERT_TRUE(
          world->SetDeviceTarget("scalpel", Transform{tip + Vec3(0, 0.02, 0), Quat::Identity()})
              .ok());
      world->Step();
      ASSERT_EQ(world->last_stats().recovered_bodies, 0);
      cuts += static_cast<int>(world->MakeFrame().cuts.size());
      double up = 0.0;
      for (const World::ContactReport& c : world->LastContacts()) {
        if (c.a == "organ" && c.b == "probe") up += c.impulse.y();
      }
      ++pressed;
      if (up > 0.0) ++pushed;
    }
  };
  const double depth = top - 0.01;
  drive(Vec3(-0.06, top + 0.01, 0.02), Vec3(-0.06, depth, 0.02), 10);
  drive(Vec3(-0.06, depth, 0.02), Vec3(0.06, depth, 0.02), 60);
  drive(Vec3(0.06, depth, 0.02), Vec3(0.06, top + 0.03, 0.02), 10);

  organ = world->soft_bodies().FindBody("organ");
  EXPECT_GE(cuts, 1);
  EXPECT_GT(organ->positions().size(), vertices_before);
  const double mass_after = std::accumulate(organ->masses().begin(), organ->masses().end(), 0.0);
  EXPECT_NEAR(mass_after, mass_before, 1e-12 * mass_before);
  const TetMesh now{organ->positions(), organ->desc.mesh.tets};
  for (int t = 0; t < static_cast<int>(now.tets.size()); ++t) {
    ASSERT_GT(TetVolume(organ->desc.mesh, t), 0.0) << t;
    ASSERT_GT(TetVolume(now, t), 0.0) << t;
  }
  EXPECT_EQ(pushed, pressed);
}

// The probe (a 1 cm sphere, smaller than the spacing of the organ's surface vertices)
// pressed 8 and 20 mm below the organ's top, in one tick and over ten, then held there for
// half a second: from 50 ms after it arrives (the surface it jumped past takes a few ticks to
// reach it), the organ pushes it up on every tick, so it never slips under the surface
// between the vertices; no step is rolled back.
TEST(Organ, ProbePressedDeepIsAlwaysPushedOut) {
  for (const int ticks : {1, 10}) {
    for (const double depth : {0.008, 0.02}) {
      auto world = testing::MakeWorld(testing::BuiltinScene("organ"));
      for (int i = 0; i < 50; ++i) world->Step();
      double top = 0.0;
      for (const Vec3& x : world->soft_bodies().FindBody("organ")->positions()) {
        top = std::max(top, x.y());
      }
      const Vec3 from(0.0, top + 0.01, 0.04), to(0.0, top - depth, 0.04);
      for (int i = 1; i <= ticks + 50; ++i) {
        const Vec3 p = from + std::min(1.0, static_cast<double>(i) / ticks) * (to - from);
        ASSERT_TRUE(world->SetDeviceTarget("probe", Transform{p, Quat::Identity()}).ok());
        world->Step();
        ASSERT_EQ(world->last_stats().recovered_bodies, 0);
        if (i <= ticks + 5) continue;
        double up = 0.0;
        for (const World::ContactReport& c : world->LastContacts()) {
          if (c.a == "organ" && c.b == "probe") up += c.impulse.y();
        }
        ASSERT_GT(up, 0.0) << depth << " m deep in " << ticks << " ticks, tick " << i;
      }
    }
  }
}

}  // namespace
}  // namespace ligature
