// Rods and rigid bodies in one constraint-space solve (Gauss-Seidel): a rod point touching
// a rigid body is a solver point whose compliance is the rod's constrained compliance, so
// the rod's weight reaches a box's other contacts in the same solve, friction acts between
// rods and rigid bodies (Coulomb's hold on a table, the capstan ratio over a bar, a rope
// dragged by a pushed box), momentum passes between them exactly, and the rod's own
// constraints still hold to the rods' tolerance after each step.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <numbers>

#include "server/constraint/contact_rows.h"
#include "tests/validation/rod_scenes.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

using testing::VerticalImpulse;

using testing::RodMomentum;

constexpr double kG = 9.81;  // m/s^2, the scenes' gravity

BodyDesc Cable(const std::string& id, std::vector<Vec3> points, double radius, double density,
               double young, int control_points, double friction = 0.5, double damping = 0.0) {
  BodyDesc d;
  d.id = id;
  RodDesc rod;
  rod.points = std::move(points);
  rod.control_points = control_points;
  rod.material.radius = radius;
  rod.material.density = density;
  rod.material.young = young;
  rod.friction = friction;
  rod.material.damping = damping;
  d.body = rod;
  return d;
}

BodyDesc Floor(double friction = 0.5) {
  BodyDesc floor = testing::MakeBody("floor", Shape::Box(Vec3(3.0, 0.05, 3.0)),
                                     Vec3(0.0, -0.05, 0.0), BodyKind::kStatic);
  floor.rigid()->material.friction = friction;
  return floor;
}

double RodMass(const World& world, const std::string& id) {
  return world.rods().FindRod(id)->model.mass();
}

double LowestRodPoint(const World& world, const std::string& id) {
  const RodWorld::Rod* r = world.rods().FindRod(id);
  double lowest = 1e9;
  for (int k = 0; k <= 200; ++k) {
    const Vec3 x = r->state.Position(r->model.spline().Sample(r->model.length() * k / 200));
    lowest = std::min(lowest, x.y());
  }
  return lowest;
}

bool RodTouchedThroughTheSolve(const World& world, const std::string& rod,
                               const std::string& body) {
  for (const World::ContactReport& c : world.LastContacts()) {
    if (c.a == rod && c.b == body) return true;
  }
  return false;
}

// A heavy cable (2.5 kg) dropped across a 2 kg box resting on the floor, its ends hanging
// clear of the floor: the box stays on the floor without sinking, and the floor's contacts
// carry both weights, (m_box + m_cable) g, the box's contacts with the cable the cable's.
TEST(RodRigidCoupling, CableOverABoxOnTheFloorLoadsTheFloor) {
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  scene.bodies.push_back(Floor());
  BodyDesc box = testing::MakeBody("box", Shape::Box(Vec3(0.2, 0.2, 0.2)), Vec3(0, 0.2, 0));
  box.rigid()->material.mass = 2.0;
  scene.bodies.push_back(box);
  // 1 m of 2 cm steel-like cable, 1 cm above the box.
  scene.bodies.push_back(
      Cable("cable", {Vec3(-0.5, 0.42, 0), Vec3(0.5, 0.42, 0)}, 0.01, 8000.0, 1e6, 30, 0.5, 2.0));
  auto world = testing::MakeWorld(scene);
  const double m_cable = RodMass(*world, "cable");
  const double h = scene.settings.dt();
  double floor_sum = 0.0, cable_sum = 0.0, deepest = 0.0;
  bool coupled = true;
  constexpr int kSettle = 400, kMeasure = 200;
  for (int i = 0; i < kSettle + kMeasure; ++i) {
    world->Step();
    if (i < kSettle) continue;
    coupled &= RodTouchedThroughTheSolve(*world, "cable", "box");
    floor_sum += VerticalImpulse(*world, "floor", "box");
    cable_sum += VerticalImpulse(*world, "cable", "box");
    deepest = std::max(deepest, world->last_stats().max_penetration);
  }
  const double both = (2.0 + m_cable) * kG * h;
  std::cout << "cable " << m_cable << " kg; floor carries " << floor_sum / kMeasure / h
            << " N of " << both / h << " N; cable on box " << cable_sum / kMeasure / h
            << " N; deepest " << deepest << " m\n";
  EXPECT_TRUE(coupled);
  EXPECT_NEAR(floor_sum / kMeasure, both, 0.005 * both);
  EXPECT_NEAR(cable_sum / kMeasure, m_cable * kG * h, 0.005 * m_cable * kG * h);
  // The box stays on the floor: no sinking beyond the contact slop, none growing.
  EXPECT_NEAR(testing::PositionOf(*world, "box").y(), 0.2, kPenetrationSlop);
  EXPECT_LT(deepest, kPenetrationSlop);
  // The cable rests on the box's top with its ends hanging clear of the floor.
  EXPECT_GT(LowestRodPoint(*world, "cable"), 0.02);
  const RodWorld::Rod* cable = world->rods().FindRod("cable");
  EXPECT_NEAR(cable->state.Position(cable->model.spline().Sample(0.5)).y(), 0.41,
              kPenetrationSlop);
}

// A rope lying on a static table with one part hanging over its edge: friction on the
// lying part holds the hanging part's weight when mu m_lying >= m_hanging (Coulomb; the
// edge's capstan effect only adds to the hold, by up to e^(mu pi / 2)), and the rope slides
// off when m_hanging > e^(mu pi / 2) mu m_lying (not even the capstan effect holds it).
// How far the rope's end on the table moves over the first and the second half second.
std::pair<double, double> TableRopeSlip(double lying, double hanging, double friction) {
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  scene.settings.solver.max_iterations = 50;
  BodyDesc table = testing::MakeBody("table", Shape::Box(Vec3(1.0, 0.5, 0.5)),
                                     Vec3(-1.0, -0.5, 0.0), BodyKind::kStatic);
  table.rigid()->material.friction = friction;
  scene.bodies.push_back(table);
  const double r = 0.006;
  scene.bodies.push_back(Cable("rope",
                               {Vec3(-lying, r, 0), Vec3(0.0, r, 0), Vec3(r, 0.0, 0),
                                Vec3(r, -hanging, 0)},
                               r, 1000.0, 2e5, 40, friction));
  auto world = testing::MakeWorld(scene);
  const Vec3 start = testing::RodPoint(world->rods(), "rope", 0.0);
  for (int i = 0; i < 100; ++i) world->Step();
  const Vec3 middle = testing::RodPoint(world->rods(), "rope", 0.0);
  for (int i = 0; i < 100; ++i) world->Step();
  const Vec3 end = testing::RodPoint(world->rods(), "rope", 0.0);
  return {(middle - start).norm(), (end - middle).norm()};
}

TEST(RodRigidCoupling, FrictionOnATableHoldsAHangingRope) {
  // mu = 0.6 (rope and table alike): held with m_hanging = 0.4 m_lying (< mu); slides
  // with 4 m_lying (> e^(0.3 pi) 0.6 = 1.54); without friction even the short end slides.
  const auto [held_early, held] = TableRopeSlip(0.5, 0.2, 0.6);
  const auto [slid_early, slid] = TableRopeSlip(0.25, 1.0, 0.6);
  const auto [frictionless_early, frictionless] = TableRopeSlip(0.5, 0.2, 0.0);
  std::cout << "end moved over the first and second half second: held " << held_early << ", "
            << held << " m; slid " << slid_early << ", " << slid << " m; frictionless "
            << frictionless_early << ", " << frictionless << " m\n";
  // Held: it settles within the first half second (the hanging part's weight stretches
  // the rope near the edge), then stays.
  EXPECT_LT(held_early, 5e-3);
  EXPECT_LT(held, 1e-4);
  EXPECT_GT(slid_early + slid, 0.3);
  EXPECT_GT(slid, slid_early);
  EXPECT_GT(frictionless_early + frictionless, 0.3);
}

// The capstan equation: a soft rope hanging over a fixed round bar (half a turn of
// contact), its two sides L and k L long, stays put while k <= e^(mu pi) (2.57 for mu 0.3)
// and slides off beyond. Returns how far (along the rope) its point at the top of the bar
// moves over the second half second of the hang (0 while it holds; found among 2001
// points along the rope).
double CapstanSlip(double ratio) {
  constexpr double kMu = 0.3;
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  scene.settings.solver.max_iterations = 50;
  const double bar_radius = 0.05, r = 0.004;
  BodyDesc bar = testing::MakeBody("bar", Shape::Capsule(bar_radius, 0.3), Vec3::Zero(),
                                   BodyKind::kStatic);
  bar.rigid()->pose.orientation = Quat(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitX()));
  bar.rigid()->material.friction = kMu;
  scene.bodies.push_back(bar);
  // Down the left side, half a turn over the bar, down the right side.
  const double a = bar_radius + r, left = 0.4, right = ratio * left;
  std::vector<Vec3> points = {Vec3(-a, -left, 0)};
  for (int k = 0; k <= 24; ++k) {
    const double t = std::numbers::pi * (1.0 - k / 24.0);
    points.push_back(Vec3(a * std::cos(t), a * std::sin(t), 0));
  }
  points.push_back(Vec3(a, -right, 0));
  BodyDesc rope = Cable("rope", points, r, 1000.0, 2e5, 100, kMu, 1.0);
  scene.bodies.push_back(rope);
  auto world = testing::MakeWorld(scene);
  // The rope's parameter at the top of the bar (its highest point).
  const auto top = [&] {
    const RodWorld::Rod* rod = world->rods().FindRod("rope");
    double highest = -1e9, at = 0.0;
    for (int k = 0; k <= 2000; ++k) {
      const double u = rod->model.length() * k / 2000;
      const double y = rod->state.Position(rod->model.spline().Sample(u)).y();
      if (y > highest) {
        highest = y;
        at = u;
      }
    }
    return at;
  };
  for (int i = 0; i < 100; ++i) world->Step();
  const double before = top();
  for (int i = 0; i < 100; ++i) world->Step();
  return std::abs(top() - before);
}

TEST(RodRigidCoupling, RopeOverABarHoldsUpToTheCapstanRatio) {
  const double threshold = std::exp(0.3 * std::numbers::pi);
  double slip[4];
  const double ratios[4] = {2.0, 2.3, 2.7, 3.2};
  for (int k = 0; k < 4; ++k) slip[k] = CapstanSlip(ratios[k]);
  std::cout << "capstan ratio " << threshold << "; slip over 0.5 s at 2.0, 2.3, 2.7, 3.2: "
            << slip[0] << ", " << slip[1] << ", " << slip[2] << ", " << slip[3] << " m\n";
  // Held at 0.78 and 0.9 of the capstan ratio (the top found on a 1.3 mm grid along the
  // rope stays within two steps of it), sliding at 1.05 and 1.25 of it.
  EXPECT_LT(slip[0], 3e-3);
  EXPECT_LT(slip[1], 3e-3);
  EXPECT_GT(slip[2], 0.05);
  EXPECT_GT(slip[3], 0.05);
}

// A rope draped across a box on a frictionless floor, the box pushed sideways (along z,
// across the rope): friction between the box's top and the rope drags the rope along, and
// as nothing horizontal acts from outside (the floor is frictionless), the box's and the
// rope's horizontal momentum sum stays what the push gave the box.
TEST(RodRigidCoupling, PushedBoxDragsTheRopeLyingAcrossIt) {
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  scene.settings.solver.max_iterations = 40;
  scene.bodies.push_back(Floor(0.0));
  BodyDesc box = testing::MakeBody("box", Shape::Box(Vec3(0.2, 0.2, 0.2)), Vec3(0, 0.2, 0));
  box.rigid()->material.mass = 2.0;
  box.rigid()->material.friction = 1.0;
  scene.bodies.push_back(box);
  scene.bodies.push_back(Cable("rope", {Vec3(-0.4, 0.41, 0), Vec3(0.4, 0.41, 0)}, 0.005,
                               1000.0, 1e6, 30, 1.0));
  auto world = testing::MakeWorld(scene);
  // Let the rope settle on the box, then push the box along z.
  for (int i = 0; i < 200; ++i) world->Step();
  ASSERT_TRUE(RodTouchedThroughTheSolve(*world, "rope", "box"));
  BodyUpdate push;
  push.linear_velocity = Vec3(0.0, 0.0, 0.5);
  ASSERT_TRUE(world->UpdateBody("box", push).ok());
  const double m_box = 2.0;
  const Vec3 p0 = m_box * testing::VelocityOf(*world, "box") + RodMomentum(world->rods(), "rope");
  double worst = 0.0, offset = 0.0;
  for (int i = 0; i < 100; ++i) {
    world->Step();
    const Vec3 p = m_box * testing::VelocityOf(*world, "box") + RodMomentum(world->rods(), "rope");
    worst = std::max({worst, std::abs(p.x() - p0.x()), std::abs(p.z() - p0.z())});
    if (i == 49) {
      offset = testing::PositionOf(*world, "box").z() -
               testing::RodPoint(world->rods(), "rope", 0.4).z();
    }
  }
  const Vec3 rope_v = RodMomentum(world->rods(), "rope") / RodMass(*world, "rope");
  const Vec3 box_v = testing::VelocityOf(*world, "box");
  std::cout << "box " << box_v.z() << " m/s, rope " << rope_v.z()
            << " m/s; horizontal momentum drift " << worst << " N s of " << p0.z() << "\n";
  // Dragged along: after slipping while the push's jerk sets it moving, the rope rides
  // with the box (it sticks on the box's top: their offset along z stays), and the box
  // slowed down by what the rope took.
  const double late_offset = testing::PositionOf(*world, "box").z() -
                             testing::RodPoint(world->rods(), "rope", 0.4).z();
  std::cout << "offset rope-box " << offset << " m at 0.25 s, " << late_offset
            << " m at 0.5 s\n";
  EXPECT_NEAR(rope_v.z(), box_v.z(), 0.05 * box_v.z());
  EXPECT_LT(box_v.z(), 0.5);
  EXPECT_LT(std::abs(late_offset - offset), 2e-3);
  EXPECT_LT(std::abs(late_offset), 0.05);
  EXPECT_LT(worst, 1e-9);
}

// A free rod falling onto a free box thrown up at it (gravity along -y only): the contact
// passes momentum between them, the horizontal sum stays exactly, and the vertical sum
// changes by the weight alone.
TEST(RodRigidCoupling, RodFallingOnAFreeBoxKeepsMomentum) {
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  BodyDesc box = testing::MakeBody("box", Shape::Box(Vec3(0.1, 0.05, 0.1)), Vec3(0, 0, 0));
  box.rigid()->material.mass = 0.5;
  box.rigid()->material.friction = 0.8;
  box.rigid()->linear_velocity = Vec3(0.6, 1.5, -0.3);
  scene.bodies.push_back(box);
  scene.bodies.push_back(Cable("rod", {Vec3(-0.3, 0.2, 0.05), Vec3(0.3, 0.25, -0.05)}, 0.005,
                               2000.0, 1e7, 20, 0.8));
  auto world = testing::MakeWorld(scene);
  const double m_box = 0.5;
  const double m_rod = RodMass(*world, "rod");
  const double h = scene.settings.dt();
  const Vec3 p0 = m_box * testing::VelocityOf(*world, "box") + RodMomentum(world->rods(), "rod");
  double worst_horizontal = 0.0, worst_vertical = 0.0;
  bool touched = false;
  for (int i = 1; i <= 60; ++i) {
    world->Step();
    touched |= RodTouchedThroughTheSolve(*world, "rod", "box");
    const Vec3 p = m_box * testing::VelocityOf(*world, "box") + RodMomentum(world->rods(), "rod");
    worst_horizontal =
        std::max({worst_horizontal, std::abs(p.x() - p0.x()), std::abs(p.z() - p0.z())});
    worst_vertical =
        std::max(worst_vertical, std::abs(p.y() - (p0.y() - (m_box + m_rod) * kG * h * i)));
  }
  const Vec3 rod_p = RodMomentum(world->rods(), "rod");
  std::cout << "rod momentum after " << rod_p.transpose() << " N s; drift horizontal "
            << worst_horizontal << ", vertical " << worst_vertical << "\n";
  EXPECT_TRUE(touched);
  // The rod took some of the box's horizontal momentum (friction) and was thrown up.
  EXPECT_GT(std::hypot(rod_p.x(), rod_p.z()), 1e-3);
  EXPECT_LT(worst_horizontal, 1e-9);
  EXPECT_LT(worst_vertical, 1e-9);
}

// A rope held at one end and threaded through a fixed keyhole near the other lies across
// a free box on the floor: after every step in contact its constraints (the hold and the
// keyhole, which is not linear) hold to 5e-10 m, measured from the rope's geometry and as
// the rod solver reports it.
TEST(RodRigidCoupling, RodConstraintsStayExactInContact) {
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  scene.bodies.push_back(Floor());
  BodyDesc box = testing::MakeBody("box", Shape::Box(Vec3(0.1, 0.1, 0.1)), Vec3(0, 0.1, 0));
  box.rigid()->material.mass = 0.5;
  scene.bodies.push_back(box);
  scene.bodies.push_back(Cable("rope", {Vec3(-0.5, 0.3, 0), Vec3(0.5, 0.3, 0)}, 0.005,
                               1000.0, 1e6, 30));
  auto world = testing::MakeWorld(scene);
  ConstraintDesc hold;
  hold.id = "hold";
  hold.rod = testing::Hold("hold", "rope", 0.0, Vec3(-0.5, 0.3, 0));
  ASSERT_TRUE(world->AddConstraint(hold).ok());
  ConstraintDesc keyhole;
  keyhole.id = "keyhole";
  keyhole.rod = RodConstraintDesc{};
  keyhole.rod->kind = RodConstraintKind::kKeyhole;
  keyhole.rod->a = {"rope", 0.9};
  keyhole.rod->target = Vec3(0.4, 0.3, 0);
  ASSERT_TRUE(world->AddConstraint(keyhole).ok());
  int in_contact = 0;
  double worst = 0.0;
  for (int i = 0; i < 400; ++i) {
    world->Step();
    if (!RodTouchedThroughTheSolve(*world, "rope", "box")) continue;
    ++in_contact;
    worst = std::max(worst, world->rods().last_stats().max_violation);
    for (const RodConstraint& c : world->rods().constraints()) {
      worst = std::max(worst, testing::RodConstraintViolation(world->rods(), c));
    }
  }
  std::cout << in_contact << " steps in contact, largest violation " << worst << " m\n";
  EXPECT_GT(in_contact, 200);
  EXPECT_LE(worst, 5e-10);
  // The box carries part of the rope: it is pressed on the floor beyond its own weight.
  EXPECT_GT(VerticalImpulse(*world, "floor", "box"), 0.5 * kG * scene.settings.dt() * 1.01);
  EXPECT_FALSE(world->rods().last_stats().solve_failed);
}

// A rope held at one end by a box resting on the floor (the hold follows the box), draped
// over a fixed block: in ticks whose contacts go through the solve the hold meets the box
// where the solve left it, not where its free motion took it (h^2 g lower).
TEST(RodRigidCoupling, HoldOnADynamicBodyFollowsItThroughTheSolve) {
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  scene.bodies.push_back(Floor());
  BodyDesc anchor = testing::MakeBody("anchor", Shape::Box(Vec3(0.05, 0.05, 0.05)),
                                      Vec3(-0.3, 0.05, 0));
  anchor.rigid()->material.mass = 1.0;
  scene.bodies.push_back(anchor);
  scene.bodies.push_back(testing::MakeBody("block", Shape::Box(Vec3(0.1, 0.1, 0.1)),
                                           Vec3(0.1, 0.1, 0), BodyKind::kStatic));
  scene.bodies.push_back(Cable("rope", {Vec3(-0.3, 0.1, 0), Vec3(0.0, 0.21, 0),
                                        Vec3(0.5, 0.21, 0)},
                               0.005, 1000.0, 1e6, 30, 0.5, 1.0));
  auto world = testing::MakeWorld(scene);
  ConstraintDesc hold;
  hold.id = "hold";
  hold.rod = testing::Hold("hold", "rope", 0.0, Vec3(0.0, 0.05, 0.0));  // the box's top
  hold.rod->follow_body = "anchor";
  ASSERT_TRUE(world->AddConstraint(hold).ok());
  double worst = 0.0;
  int coupled = 0;
  for (int i = 0; i < 200; ++i) {
    world->Step();
    if (!RodTouchedThroughTheSolve(*world, "rope", "block")) continue;
    ++coupled;
    const Vec3 top = world->GetBody("anchor")->rigid()->pose.Apply(Vec3(0.0, 0.05, 0.0));
    worst = std::max(worst, (testing::RodPoint(world->rods(), "rope", 0.0) - top).norm());
  }
  std::cout << coupled << " steps through the solve; rope end off the box's top by at most "
            << worst << " m\n";
  EXPECT_GT(coupled, 150);
  EXPECT_LT(worst, 1e-9);
  // The box rests on the floor.
  EXPECT_NEAR(testing::PositionOf(*world, "anchor").y(), 0.05, kPenetrationSlop);
}

}  // namespace
}  // namespace ligature
