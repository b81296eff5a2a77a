// Rods meet rigid bodies: a cable dropped across a fixed box drapes over it without passing
// through, a box laid on two ropes slung between pins is carried by them (the ropes' push
// reaches the box, whose weight the ropes then hold up), and a rigid bead threaded on a
// taut inclined wire slides down it at g sin(angle).

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <iostream>

#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

BodyDesc Rope(const std::string& id, const Vec3& a, const Vec3& b) {
  BodyDesc d;
  d.id = id;
  RodDesc rod;
  rod.points = {a, b};
  rod.control_points = 30;
  rod.material.radius = 0.005;
  rod.material.density = 1000.0;
  rod.material.young = 1.0e6;  // EI = 5e-4 N m^2: bends over about 8 cm under its weight
  rod.material.damping = 2.0;
  d.body = rod;
  return d;
}

// The lowest gap between the rod's surface and the box (negative: overlap), from the
// rod's sampled centreline: box half extents `half` at `center`, axis-aligned.
double LowestGap(const World& world, const std::string& rod, const Vec3& center,
                 const Vec3& half) {
  const RodWorld::Rod* r = world.rods().FindRod(rod);
  double lowest = 1e9;
  for (int k = 0; k <= 200; ++k) {
    const Vec3 x = r->state.Position(r->model.spline().Sample(r->model.length() * k / 200));
    const Vec3 d = (x - center).cwiseAbs() - half;
    const double outside = d.cwiseMax(0.0).norm();
    const double inside = std::min(d.maxCoeff(), 0.0);
    lowest = std::min(lowest, outside + inside - r->model.material().radius);
  }
  return lowest;
}

TEST(RodContact, CableDrapesOverAFixedBox) {
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  BodyDesc box = testing::MakeBody("box", Shape::Box(Vec3(0.2, 0.2, 0.2)), Vec3(0, 0.2, 0));
  box.kind = BodyKind::kStatic;
  scene.bodies.push_back(box);
  scene.bodies.push_back(Rope("cable", Vec3(-0.8, 0.5, 0), Vec3(0.8, 0.5, 0)));
  auto world = testing::MakeWorld(scene);
  double worst = 0.0, worst_early = 0.0;
  for (int i = 0; i < 600; ++i) {
    world->Step();
    const double gap = LowestGap(*world, "cable", Vec3(0, 0.2, 0), Vec3(0.2, 0.2, 0.2));
    (i < 100 ? worst_early : worst) = std::min(i < 100 ? worst_early : worst, gap);
  }
  std::cout << "deepest overlap while falling " << -worst_early << " m, resting " << -worst
            << " m\n";
  // It rests on the box's top (y = 0.4) and its ends hang down beside it.
  const RodWorld::Rod* cable = world->rods().FindRod("cable");
  const Vec3 middle = cable->state.Position(cable->model.spline().Sample(0.8));
  const Vec3 end = cable->state.Position(cable->model.spline().Sample(0.0));
  EXPECT_NEAR(middle.y(), 0.4 + 0.005, 2e-3);
  EXPECT_LT(end.y(), 0.1);
  // Never into the box by more than a millimetre (the centreline is sampled about a radius
  // apart and dips between samples where it wraps an edge), even as it lands.
  EXPECT_GT(worst, -1e-3);
  EXPECT_GT(worst_early, -1e-3);
  EXPECT_GT(world->rods().last_stats().contacts, 0);
}

// A flat box across two parallel ropes 14 cm apart. (A box on a single rope is balanced on
// a line, and on two soft ropes close together it tips over as soon as the ropes' vertical
// stiffness times the square of their spacing is below its weight times the height of its
// centre above them: it tips off at the slightest asymmetry, as a real one would.)
TEST(RodContact, RopesCarryABoxLaidOnThem) {
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  for (const double z : {-0.07, 0.07}) {
    scene.bodies.push_back(Rope(z < 0 ? "near" : "far", Vec3(-0.5, 1.0, z), Vec3(0.5, 1.0, z)));
  }
  BodyDesc box = testing::MakeBody("box", Shape::Box(Vec3(0.05, 0.02, 0.1)), Vec3(0, 1.03, 0));
  box.rigid()->material.density = 250.0;  // 0.2 kg
  scene.bodies.push_back(box);
  auto world = testing::MakeWorld(scene);
  for (const std::string rope : {"near", "far"}) {
    const double z = rope == "near" ? -0.07 : 0.07;
    ConstraintDesc left, right;
    left.id = rope + "-left";
    left.rod = RodConstraintDesc{};
    left.rod->kind = RodConstraintKind::kPosition;
    left.rod->a = {rope, 0.0};
    left.rod->target = Vec3(-0.5, 1.0, z);
    right = left;
    right.id = rope + "-right";
    right.rod->a = {rope, 1.0};
    right.rod->target = Vec3(0.5, 1.0, z);
    ASSERT_TRUE(world->AddConstraint(left).ok());
    ASSERT_TRUE(world->AddConstraint(right).ok());
  }
  for (int i = 0; i < 2000; ++i) world->Step();
  // The box hangs in the rope, at rest, well above where a free fall would have taken it.
  const Vec3 p = testing::PositionOf(*world, "box");
  const Vec3 v = testing::VelocityOf(*world, "box");
  EXPECT_GT(p.y(), 0.7);
  EXPECT_LT(p.y(), 1.06);
  EXPECT_LT(v.norm(), 0.05);
  EXPECT_NEAR(p.x(), 0.0, 0.05);
}

TEST(RodContact, RigidBeadRidesATautWire) {
  const double angle = 30.0 * std::numbers::pi / 180.0;
  const Vec3 dir(std::cos(angle), std::sin(angle), 0.0);
  SceneDesc scene;
  scene.settings.rate_hz = 1000.0;
  BodyDesc wire;
  wire.id = "wire";
  RodDesc rod;
  rod.points = {Vec3::Zero(), 2.0 * dir};
  rod.control_points = 40;
  rod.material.radius = 0.001;
  rod.material.young = 2.0e11;
  rod.material.damping = 1.0;
  wire.body = rod;
  scene.bodies.push_back(wire);
  BodyDesc bead = testing::MakeBody("bead", Shape::Sphere(0.01), 1.5 * dir);
  scene.bodies.push_back(bead);
  auto world = testing::MakeWorld(scene);
  // Pinned 0.5% beyond its length (taut), the bead threaded on it at its centre.
  auto add = [&](const std::string& id, RodConstraintKind kind, double u, const Vec3& target,
                 const std::string& follow) {
    ConstraintDesc c;
    c.id = id;
    c.rod = RodConstraintDesc{};
    c.rod->kind = kind;
    c.rod->a = {"wire", u};
    c.rod->target = target;
    c.rod->follow_body = follow;
    return world->AddConstraint(c);
  };
  ASSERT_TRUE(add("low", RodConstraintKind::kPosition, 0.0, Vec3::Zero(), "").ok());
  ASSERT_TRUE(add("high", RodConstraintKind::kPosition, 2.0, 2.01 * dir, "").ok());
  ASSERT_TRUE(add("thread", RodConstraintKind::kKeyhole, 1.5, Vec3::Zero(), "bead").ok());
  const Vec3 start = testing::PositionOf(*world, "bead");
  for (int i = 0; i < 300; ++i) world->Step();
  const double t = 0.3;
  const Vec3 p = testing::PositionOf(*world, "bead");
  // Down the wire by g sin(angle) t^2 / 2, within 2% (semi-implicit steps, a sagging wire).
  const double expected = 0.5 * 9.81 * std::sin(angle) * t * t;
  EXPECT_NEAR((start - p).norm(), expected, 0.02 * expected);
  EXPECT_NEAR((start - p).normalized().dot(dir), 1.0, 1e-3);
  // On the wire: the keyhole holds it there exactly.
  EXPECT_LT(world->rods().last_stats().max_violation, 1e-9);
}

}  // namespace
}  // namespace ligature
