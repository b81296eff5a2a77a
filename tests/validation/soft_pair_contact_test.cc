// Soft bodies against each other through the constraint solve: a soft cube dropped on a
// soft slab comes to rest on it (the slab and the floor under it carry the weights), for
// either FEM model of the cube, and two overlapping soft cubes in zero gravity push apart
// with equal and opposite momentum.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "server/constraint/contact_rows.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

using testing::SoftFemBox;
using testing::SoftMass;
using testing::SoftMomentum;
using testing::VerticalImpulse;

constexpr double kG = 9.81;

const SoftWorld::Body& Soft(const World& world, const std::string& id) {
  return *world.soft_bodies().FindBody(id);
}

double Lowest(const World& world, const std::string& id, int axis) {
  double lowest = 1e9;
  for (const Vec3& p : Soft(world, id).positions()) lowest = std::min(lowest, p[axis]);
  return lowest;
}

double Highest(const World& world, const std::string& id, int axis) {
  double highest = -1e9;
  for (const Vec3& p : Soft(world, id).positions()) highest = std::max(highest, p[axis]);
  return highest;
}

class SoftOnSoft : public ::testing::TestWithParam<std::tuple<SoftModelKind, SolverKind>> {};

// A soft cube (of any model) dropped 2 cm onto a free corotational slab lying on a static
// floor, at 100 Hz. Over the last second of three, the contact impulses balance the weights: what
// the slab gives the cube is its weight's impulse plus the cube's change of momentum, and
// what the floor gives the slab is both weights' plus both changes (an explicit StVK cube
// still rings, so its momentum is not zero at the end of a tick; its damping is the
// stiffness one, which keeps momentum, as mass damping, acting like air, would not). The
// cube rests on the slab's top, into it by no more than the contacts' slop. Under both
// solvers.
TEST_P(SoftOnSoft, CubeRestsOnSlabAndTheFloorCarriesBoth) {
  SceneDesc scene;
  scene.settings.rate_hz = 100.0;
  scene.settings.solver.kind = std::get<1>(GetParam());
  scene.bodies.push_back(testing::MakeBody("floor", Shape::Box(Vec3(1.0, 0.05, 1.0)),
                                           Vec3(0.0, -0.05, 0.0), BodyKind::kStatic));
  scene.bodies.push_back(SoftFemBox("slab", Vec3(0.2, 0.04, 0.2), Vec3(0.0, 0.04, 0.0),
                                    {4, 2, 4}, SoftModelKind::kCorotational, 1e6, 10.0));
  scene.bodies.push_back(SoftFemBox("cube", Vec3(0.05, 0.05, 0.05), Vec3(0.01, 0.15, -0.02),
                                    {2, 2, 2}, std::get<0>(GetParam()), 2e5, 0.0, 1e-3));
  auto world = testing::MakeWorld(scene);
  const double m_cube = SoftMass(*world, "cube");
  const double m_slab = SoftMass(*world, "slab");
  const double dt = scene.settings.dt();
  constexpr int kSettle = 200, kMeasure = 100;
  for (int i = 0; i < kSettle; ++i) world->Step();
  const double cube_before = SoftMomentum(*world, "cube").y();
  const double slab_before = SoftMomentum(*world, "slab").y();
  double slab_sum = 0.0, floor_sum = 0.0;
  for (int i = 0; i < kMeasure; ++i) {
    world->Step();
    ASSERT_EQ(world->last_stats().recovered_bodies, 0) << "step " << i;
    slab_sum += VerticalImpulse(*world, "cube", "slab");
    floor_sum += VerticalImpulse(*world, "slab", "floor");
  }
  const double cube_change = SoftMomentum(*world, "cube").y() - cube_before;
  const double slab_change = SoftMomentum(*world, "slab").y() - slab_before;
  const double cube_weight = m_cube * kG * dt * kMeasure;
  const double both = (m_cube + m_slab) * kG * dt * kMeasure;
  EXPECT_NEAR(slab_sum, cube_weight + cube_change, 1e-3 * cube_weight);
  EXPECT_NEAR(floor_sum, both + cube_change + slab_change, 1e-3 * both);
  // The cube lies on the slab's top (which sags a little under it).
  const double top = Highest(*world, "slab", 1);
  EXPECT_GT(Lowest(*world, "cube", 1), top - 0.005);
  EXPECT_LT(Lowest(*world, "cube", 1), top + 0.005);
  EXPECT_LT(world->last_stats().max_penetration, 2.0 * kPenetrationSlop);
}

INSTANTIATE_TEST_SUITE_P(
    Models, SoftOnSoft,
    ::testing::Combine(::testing::Values(SoftModelKind::kCorotational, SoftModelKind::kStVK,
                                         SoftModelKind::kMassPoint),
                       ::testing::Values(SolverKind::kGaussSeidel, SolverKind::kTunableLcp)),
    [](const auto& info) {
      return testing::SoftModelName(std::get<0>(info.param)) +
             testing::SolverName(std::get<1>(info.param));
    });

// Zero gravity, two undamped corotational cubes overlapping by 4 mm along x: they push
// apart, the total momentum stays zero every step, and the overlap is gone.
TEST(SoftContact, OverlappingSoftCubesPushApartKeepingMomentum) {
  SceneDesc scene;
  scene.settings.rate_hz = 100.0;
  scene.settings.gravity = Vec3::Zero();
  scene.bodies.push_back(SoftFemBox("left", Vec3(0.05, 0.05, 0.05), Vec3::Zero(), {2, 2, 2},
                                    SoftModelKind::kCorotational, 1e5, 0.0));
  scene.bodies.push_back(SoftFemBox("right", Vec3(0.05, 0.05, 0.05), Vec3(0.096, 0.01, 0.02),
                                    {2, 2, 2}, SoftModelKind::kCorotational, 1e5, 0.0));
  auto world = testing::MakeWorld(scene);
  const double m = SoftMass(*world, "left");
  bool touched = false;
  for (int i = 0; i < 50; ++i) {
    world->Step();
    touched |= !world->LastContacts().empty();
    const Vec3 total = SoftMomentum(*world, "left") + SoftMomentum(*world, "right");
    EXPECT_LT(total.norm(), 1e-12) << "step " << i;  // kg m/s (measured: 5e-17)
  }
  EXPECT_TRUE(touched);
  EXPECT_LT(SoftMomentum(*world, "left").x(), -1e-4 * m);
  EXPECT_GT(Lowest(*world, "right", 0), Highest(*world, "left", 0) - kPenetrationSlop);
}

// The same overlap with the right cube on layer 1 and the left one's mask leaving it out:
// no contact, and neither moves.
TEST(SoftContact, LayersThatDoNotMeetLeaveTheOverlapAlone) {
  SceneDesc scene;
  scene.settings.rate_hz = 100.0;
  scene.settings.gravity = Vec3::Zero();
  BodyDesc left = SoftFemBox("left", Vec3(0.05, 0.05, 0.05), Vec3::Zero(), {2, 2, 2},
                             SoftModelKind::kCorotational, 1e5, 0.0);
  left.soft()->collision = {1, ~2u};
  BodyDesc right = SoftFemBox("right", Vec3(0.05, 0.05, 0.05), Vec3(0.096, 0.01, 0.02),
                              {2, 2, 2}, SoftModelKind::kCorotational, 1e5, 0.0);
  right.soft()->collision = {2, ~0u};
  scene.bodies.push_back(left);
  scene.bodies.push_back(right);
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 20; ++i) {
    world->Step();
    EXPECT_TRUE(world->LastContacts().empty()) << "step " << i;
  }
  EXPECT_LT(SoftMomentum(*world, "left").norm(), 1e-12);  // kg m/s
  EXPECT_LT(SoftMomentum(*world, "right").norm(), 1e-12);
}

}  // namespace
}  // namespace ligature
