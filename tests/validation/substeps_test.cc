// Gauss-Seidel in substeps (SolverSettings::substeps) at game rates: tall stacks and
// pyramids of one-metre cubes stand at 60 Hz with the default 20 sweeps a tick, the stack's
// contacts carry the weight above them, a long chain carries a heavy load without
// stretching, and a restored world steps bit for bit as the original. The incline and pendulum
// validations also run in substeps.

#include <gtest/gtest.h>

#include <algorithm>
#include <numbers>
#include <numeric>
#include <string>

#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

constexpr int kSubsteps = 4;
constexpr double kEdge = 1.0;  // m

SceneDesc Ground(int substeps) {
  SceneDesc scene;
  scene.settings.rate_hz = 60.0;
  scene.settings.solver.substeps = substeps;
  scene.bodies.push_back(
      testing::MakeBody("ground", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic));
  return scene;
}

std::string Cube(int i) { return "box" + std::to_string(i); }

// `boxes` cubes one on another, face to face, the first on the ground.
SceneDesc Stack(int boxes, int substeps) {
  SceneDesc scene = Ground(substeps);
  for (int i = 0; i < boxes; ++i) {
    scene.bodies.push_back(testing::MakeBody(Cube(i), Shape::Box(Vec3::Constant(kEdge / 2.0)),
                                             Vec3(0.0, kEdge * (i + 0.5), 0.0)));
  }
  return scene;
}

// How far the top box of a stack has moved sideways and down after `ticks`.
struct Drift {
  double sideways = 0.0;
  double down = 0.0;
};
Drift TopDrift(const SceneDesc& scene, const std::string& top, int ticks) {
  auto world = testing::MakeWorld(scene);
  const Vec3 start = testing::PositionOf(*world, top);
  for (int i = 0; i < ticks; ++i) world->Step();
  const Vec3 moved = testing::PositionOf(*world, top) - start;
  return {Vec3(moved.x(), 0.0, moved.z()).norm(), -moved.y()};
}

// Twenty cubes stand for a minute at 60 Hz: the top one stays within 5 mm sideways and
// sinks less than 2 cm (nineteen soft contacts each yielding up to a millimetre and a half
// under the weight above, each at most 0.2 mm past its slop). In one step per tick, with
// the same 20 sweeps, the stack falls.
TEST(Substeps, TwentyBoxStackStandsAt60Hz) {
  const Drift substepped = TopDrift(Stack(20, kSubsteps), Cube(19), 3600);
  EXPECT_LT(substepped.sideways, 5e-3);
  EXPECT_LT(substepped.down, 2e-2);
  EXPECT_GT(substepped.down, 0.0);
  const Drift single = TopDrift(Stack(20, 1), Cube(19), 600);
  EXPECT_GT(single.sideways + single.down, 1.0);
}

// A 10-level pyramid of 55 cubes 5 cm apart stands for a minute at 60 Hz: its top cube
// stays within 1 cm of where it started (a fallen pyramid's top lands metres away).
TEST(Substeps, PyramidOf55BoxesStandsAt60Hz) {
  constexpr int kLevels = 10;
  constexpr double kPitch = 1.05 * kEdge;
  SceneDesc scene = Ground(kSubsteps);
  std::string top;
  for (int row = 0; row < kLevels; ++row) {
    const int count = kLevels - row;
    for (int k = 0; k < count; ++k) {
      top = "box" + std::to_string(row) + "_" + std::to_string(k);
      const double x = (k - 0.5 * (count - 1)) * kPitch;
      scene.bodies.push_back(testing::MakeBody(top, Shape::Box(Vec3::Constant(kEdge / 2.0)),
                                               Vec3(x, kEdge * (row + 0.5), 0.0)));
    }
  }
  const Drift drift = TopDrift(scene, top, 3600);
  EXPECT_LT(std::hypot(drift.sideways, drift.down), 0.01);
}

// At rest, the contacts under each box of a five-box stack carry the weight of the boxes
// above them and of itself: the normal impulses of a tick sum to (5 - i) m g h within 1 %.
TEST(Substeps, StackContactsCarryTheWeightAbove) {
  constexpr int kBoxes = 5;
  auto world = testing::MakeWorld(Stack(kBoxes, kSubsteps));
  for (int i = 0; i < 300; ++i) world->Step();
  const double mass = 1000.0 * kEdge * kEdge * kEdge;  // the default density, kg/m^3
  const double h = 1.0 / 60.0;
  for (int i = 0; i < kBoxes; ++i) {
    const std::string below = i == 0 ? "ground" : Cube(i - 1);
    double impulse = 0.0;
    for (const World::ContactReport& c : world->LastContacts()) {
      if ((c.a == below && c.b == Cube(i)) || (c.a == Cube(i) && c.b == below)) {
        impulse += c.normal_impulse;
      }
    }
    const double carried = (kBoxes - i) * mass * 9.81 * h;
    EXPECT_NEAR(impulse, carried, 0.01 * carried) << "under " << Cube(i);
  }
}

// A chain of 20 links carrying a load ten times as heavy as a link swings for a minute at
// 60 Hz with the default sweeps, each joint within 0.1 mm and the chain within 1 mm of its
// length. Under the load's tension the links' sideways modes are too stiff for one 60 Hz
// step: there the same chain tears apart.
TEST(Substeps, ChainCarryingTenTimesALinkHoldsItsLengthAt60Hz) {
  testing::HangingChain chain;
  chain.load = 10.0 * testing::HangingChain::LinkMass();
  const auto widest_gaps = [&](int substeps, int ticks) {
    SceneDesc scene;
    scene.settings.rate_hz = 60.0;
    scene.settings.solver.substeps = substeps;
    chain.AddTo(&scene);
    scene.bodies.back().rigid()->linear_velocity = Vec3(0.5, 0.0, 0.3);
    auto world = testing::MakeWorld(scene);
    double widest = 0.0, longest = 0.0, swing = 0.0;
    for (int i = 0; i < ticks; ++i) {
      world->Step();
      const std::vector<double> gaps = chain.Gaps(*world);
      widest = std::max(widest, *std::max_element(gaps.begin(), gaps.end()));
      longest = std::max(longest, std::accumulate(gaps.begin(), gaps.end(), 0.0));
      swing = std::max(swing, std::abs(testing::PositionOf(*world, "load").x()));
    }
    EXPECT_GT(swing, 0.01);  // it did swing
    return std::pair(widest, longest);
  };
  const auto [widest, longest] = widest_gaps(kSubsteps, 3600);
  EXPECT_LT(widest, 1e-4);
  EXPECT_LT(longest, 1e-3);
  EXPECT_GT(widest_gaps(1, 600).first, 1e-2);
}

// The 375-sphere pile (a built-in scene, 10 sweeps a tick) comes to rest at 30 Hz in 4
// substeps: after 10 s, no sphere moves faster than 2 cm/s over the next second and no
// contact overlaps by more than 5 mm.
TEST(Substeps, PileOf375SpheresRestsAt30Hz) {
  SceneDesc scene = testing::BuiltinScene("spheres375");
  scene.settings.rate_hz = 30.0;
  scene.settings.solver.substeps = kSubsteps;
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 300; ++i) world->Step();
  double fastest = 0.0, deepest = 0.0;
  int spheres = 0;
  for (int i = 0; i < 30; ++i) {
    world->Step();
    deepest = std::max(deepest, world->last_stats().max_penetration);
    for (const BodyDesc& b : scene.bodies) {
      if (b.kind != BodyKind::kDynamic) continue;
      spheres += i == 0;
      fastest = std::max(fastest, testing::VelocityOf(*world, b.id).norm());
    }
  }
  EXPECT_EQ(spheres, 375);
  EXPECT_LT(fastest, 0.02);
  EXPECT_LT(deepest, 5e-3);
}

// The built-in wall of 75 bricks (50 Hz, 15 sweeps a tick) comes to rest in 4 substeps:
// after 10 s no brick moves faster than 1 mm/s and none has moved more than 5 mm from
// where it was built. Its top bricks rest on two bricks each, and bounced for good when the
// push out of their overlaps came back as velocity.
TEST(Substeps, WallOf75BricksComesToRest) {
  SceneDesc scene = testing::BuiltinScene("wall75");
  scene.settings.solver.substeps = kSubsteps;
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 500; ++i) world->Step();
  double fastest = 0.0, moved = 0.0;
  int bricks = 0;
  for (const BodyDesc& b : scene.bodies) {
    if (b.kind != BodyKind::kDynamic) continue;
    ++bricks;
    fastest = std::max(fastest, testing::VelocityOf(*world, b.id).norm());
    moved = std::max(moved, (testing::PositionOf(*world, b.id) - b.rigid()->pose.position).norm());
  }
  EXPECT_EQ(bricks, 75);
  EXPECT_LT(fastest, 1e-3);
  EXPECT_LT(moved, 5e-3);
}

// A kinematic platform rising at 1 m/s carries a box: each substep meets the platform where
// it now is (its motion is in the contact's rows though the solve does not move it), so the
// box never sinks into it by more than 2 mm and rises with it, resting on it.
TEST(Substeps, KinematicPlatformLiftsABox) {
  SceneDesc scene;
  scene.settings.rate_hz = 60.0;
  scene.settings.solver.substeps = kSubsteps;
  BodyDesc platform = testing::MakeBody("platform", Shape::Box(Vec3(1.0, 0.1, 1.0)),
                                        Vec3(0.0, 0.1, 0.0), BodyKind::kKinematic);
  platform.rigid()->linear_velocity = Vec3(0.0, 1.0, 0.0);
  scene.bodies.push_back(platform);
  scene.bodies.push_back(
      testing::MakeBody("box", Shape::Box(Vec3::Constant(0.2)), Vec3(0.0, 0.4, 0.0)));
  auto world = testing::MakeWorld(scene);
  double deepest = 0.0;
  for (int i = 0; i < 60; ++i) {
    world->Step();
    const double gap = (testing::PositionOf(*world, "box").y() - 0.2) -
                       (testing::PositionOf(*world, "platform").y() + 0.1);
    deepest = std::max(deepest, -gap);
  }
  EXPECT_NEAR(testing::PositionOf(*world, "platform").y(), 1.1, 1e-9);
  EXPECT_LT(deepest, 2e-3);
  EXPECT_NEAR(testing::VelocityOf(*world, "box").y(), 1.0, 0.05);
}

// A world rebuilt from another's export and saved state steps bit for bit as it does, in
// substeps: nothing a substep keeps outlives its tick.
TEST(Substeps, RestoredWorldStepsBitIdentically) {
  auto world = testing::MakeWorld(Stack(6, kSubsteps));
  BodyUpdate push;
  push.linear_velocity = Vec3(0.5, 0.0, 0.2);
  ASSERT_TRUE(world->UpdateBody(Cube(5), push).ok());
  for (int i = 0; i < 40; ++i) world->Step();
  auto copy = World::FromScene("copy", world->Export(), world->limits());
  ASSERT_TRUE(copy.ok());
  ASSERT_TRUE((*copy)->RestoreSavedState(world->SaveState()).ok());
  for (int i = 0; i < 120; ++i) {
    world->Step();
    (*copy)->Step();
  }
  for (int i = 0; i < 6; ++i) {
    EXPECT_EQ(testing::PositionOf(**copy, Cube(i)), testing::PositionOf(*world, Cube(i)));
    EXPECT_EQ(testing::VelocityOf(**copy, Cube(i)), testing::VelocityOf(*world, Cube(i)));
  }
}

}  // namespace
}  // namespace ligature
