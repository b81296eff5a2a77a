// Rods against soft bodies in one constraint-space solve: a rod point touching an FEM
// body's surface is a solver point of the rods' coupled compliance, the surface point one
// of the soft body's, so a cable lying on a soft slab rests on it with its weight carried
// through the slab to the floor, and a free rod and a free soft cube pushed into each other
// exchange momentum exactly.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "server/constraint/contact_rows.h"
#include "tests/validation/rod_scenes.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

using testing::SoftMomentum;
using testing::SoftMass;
using testing::VerticalImpulse;

constexpr double kG = 9.81;

BodyDesc SoftSlab(const std::string& id, const Vec3& half, const Vec3& centre,
                  std::array<int, 3> cells, double young, double damping,
                  SoftModelKind model = SoftModelKind::kCorotational) {
  return testing::SoftFemBox(id, half, centre, cells, model, young, damping);
}

BodyDesc Cable(const std::string& id, const Vec3& a, const Vec3& b, double damping) {
  RodMaterial material;
  material.radius = 0.005;
  material.density = 2000.0;
  material.young = 1e8;
  material.damping = damping;
  BodyDesc d;
  d.id = id;
  d.body = testing::StraightRod(id, a, b, 16, material);
  return d;
}

// A 30 cm cable dropped 1 cm onto a free soft slab lying on a static floor, at 100 Hz.
// Over the last second of three the slab carries the cable's weight (its impulses balance
// the weight's plus the cable's change of momentum) and the floor carries both; the cable
// lies on the slab's top, into it by no more than the contacts' slop (with 100 sweeps: at
// the default 20 the coupled points are not settled and it sinks 4 mm in).
TEST(RodSoftContact, CableRestsOnSoftSlab) {
  SceneDesc scene;
  scene.settings.rate_hz = 100.0;
  // The cable's 61 contact points are coupled through the stiff rod and the slab: the
  // point-by-point sweeps need about as many as a long chain does to settle them.
  scene.settings.solver.max_iterations = 100;
  scene.bodies.push_back(testing::MakeBody("floor", Shape::Box(Vec3(1.0, 0.05, 1.0)),
                                           Vec3(0.0, -0.05, 0.0), BodyKind::kStatic));
  scene.bodies.push_back(
      SoftSlab("slab", Vec3(0.2, 0.04, 0.1), Vec3(0.0, 0.04, 0.0), {4, 2, 2}, 1e6, 10.0));
  scene.bodies.push_back(Cable("cable", Vec3(-0.15, 0.095, 0.01), Vec3(0.15, 0.095, 0.01), 2.0));
  auto world = testing::MakeWorld(scene);
  const double m_cable = world->rods().FindRod("cable")->model.mass();
  const double m_slab = SoftMass(*world, "slab");
  const double dt = scene.settings.dt();
  constexpr int kSettle = 200, kMeasure = 100;
  for (int i = 0; i < kSettle; ++i) world->Step();
  const double cable_before = testing::RodMomentum(world->rods(), "cable").y();
  const double slab_before = SoftMomentum(*world, "slab").y();
  double slab_sum = 0.0, floor_sum = 0.0;
  for (int i = 0; i < kMeasure; ++i) {
    world->Step();
    ASSERT_EQ(world->last_stats().recovered_bodies, 0) << "step " << i;
    slab_sum += VerticalImpulse(*world, "cable", "slab");
    floor_sum += VerticalImpulse(*world, "slab", "floor");
  }
  const double cable_change = testing::RodMomentum(world->rods(), "cable").y() - cable_before;
  const double slab_change = SoftMomentum(*world, "slab").y() - slab_before;
  const double cable_weight = m_cable * kG * dt * kMeasure;
  const double both = (m_cable + m_slab) * kG * dt * kMeasure;
  EXPECT_NEAR(slab_sum, cable_weight + cable_change, 1e-3 * cable_weight);
  EXPECT_NEAR(floor_sum, both + cable_change + slab_change, 1e-3 * both);
  // The cable lies on the slab's top: its centreline one radius above it.
  double top = -1e9;
  for (const Vec3& p : world->soft_bodies().FindBody("slab")->positions()) {
    top = std::max(top, p.y());
  }
  const Vec3 middle = testing::RodPoint(world->rods(), "cable", 0.15);
  // Within 1 mm (measured: 0.51 mm below, the slab's top being its highest vertex).
  EXPECT_NEAR(middle.y(), top + 0.005, 1e-3);
  EXPECT_LT(world->last_stats().max_penetration, 2.0 * kPenetrationSlop);
}

// Zero gravity: a free undamped cable laid 2 mm into a free undamped soft cube
// (corotational, or mass-point under implicit Euler) pushes out of it; the total momentum
// stays zero every step and the cable ends out of the cube.
class RodSoftMomentum : public ::testing::TestWithParam<SoftModelKind> {};

TEST_P(RodSoftMomentum, OverlappingRodAndSoftCubeKeepMomentum) {
  SceneDesc scene;
  scene.settings.rate_hz = 100.0;
  scene.settings.gravity = Vec3::Zero();
  scene.bodies.push_back(
      SoftSlab("cube", Vec3(0.05, 0.05, 0.05), Vec3::Zero(), {2, 2, 2}, 1e5, 0.0, GetParam()));
  scene.bodies.push_back(Cable("cable", Vec3(-0.1, 0.053, 0.01), Vec3(0.1, 0.053, 0.01), 0.0));
  auto world = testing::MakeWorld(scene);
  const double m = SoftMass(*world, "cube");
  bool touched = false;
  double pushed = 0.0;  // the cube's most downward momentum
  for (int i = 0; i < 40; ++i) {
    world->Step();
    touched |= !world->LastContacts().empty();
    const Vec3 total = SoftMomentum(*world, "cube") + testing::RodMomentum(world->rods(), "cable");
    EXPECT_LT(total.norm(), 1e-9 * m) << "step " << i;
    pushed = std::min(pushed, SoftMomentum(*world, "cube").y());
  }
  EXPECT_TRUE(touched);
  // The cube was pushed down (it then rings, undamped) and the cable is out of it: laid
  // 2 mm in, its centreline ends a radius above the cube's top within the contacts' slop.
  EXPECT_LT(pushed, -1e-4 * m);
  EXPECT_GT(testing::RodPoint(world->rods(), "cable", 0.1).y(), 0.05 + 0.005 - kPenetrationSlop);
}

INSTANTIATE_TEST_SUITE_P(Models, RodSoftMomentum,
                         ::testing::Values(SoftModelKind::kCorotational, SoftModelKind::kMassPoint),
                         [](const auto& info) { return testing::SoftModelName(info.param); });

// The same overlap with the cube on layer 1 and the cable's mask leaving it out: neither
// is pushed, and the cable stays in the cube.
TEST(RodSoftContact, LayersThatDoNotMeetLeaveTheOverlapAlone) {
  SceneDesc scene;
  scene.settings.rate_hz = 100.0;
  scene.settings.gravity = Vec3::Zero();
  BodyDesc cube = SoftSlab("cube", Vec3(0.05, 0.05, 0.05), Vec3::Zero(), {2, 2, 2}, 1e5, 0.0);
  cube.soft()->collision = {2, ~0u};
  scene.bodies.push_back(cube);
  BodyDesc cable = Cable("cable", Vec3(-0.1, 0.053, 0.01), Vec3(0.1, 0.053, 0.01), 0.0);
  cable.rod()->collision = {1, ~2u};
  scene.bodies.push_back(cable);
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 40; ++i) {
    world->Step();
    EXPECT_TRUE(world->LastContacts().empty()) << "step " << i;
  }
  EXPECT_LT(SoftMomentum(*world, "cube").norm(), 1e-12);  // kg m/s
  EXPECT_LT(testing::RodPoint(world->rods(), "cable", 0.1).y(), 0.05 + 0.005);
}

}  // namespace
}  // namespace ligature
