// Convex hull bodies against analytic answers, in both solvers: a hull cube behaves as a
// box (rests; on an incline sticks below the friction angle and slides at g (sin - mu cos)
// above it), hull-hull collisions keep momentum, a body rests on a hull, and a concave mug
// made of hulls stands upright.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <vector>

#include "server/constraint/contact_rows.h"
#include "server/model/rigid/convex_hull_builder.h"
#include "server/model/rigid/mass_properties.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

constexpr double kG = 9.81;
constexpr double kPi = std::numbers::pi;

Shape HullOf(const std::vector<Vec3>& points) {
  auto hull = BuildConvexHull(points, {});
  if (!hull.ok()) std::abort();
  return Shape::Hull(*hull);
}

// A box of half extents h as a hull, its points offset by `offset` in the body frame.
Shape HullBox(const Vec3& h, const Vec3& offset = Vec3::Zero()) {
  std::vector<Vec3> points;
  for (int k = 0; k < 8; ++k) {
    points.push_back(offset + Vec3(k & 1 ? h.x() : -h.x(), k & 2 ? h.y() : -h.y(),
                                   k & 4 ? h.z() : -h.z()));
  }
  return HullOf(points);
}

// A random hull of `count` points on an ellipsoid of semi-axes `axes`.
Shape RandomHull(std::mt19937& rng, int count, const Vec3& axes) {
  std::normal_distribution<double> normal;
  std::vector<Vec3> points;
  for (int i = 0; i < count; ++i) {
    points.push_back(
        Vec3(normal(rng), normal(rng), normal(rng)).normalized().cwiseProduct(axes));
  }
  return HullOf(points);
}

class HullTest : public ::testing::TestWithParam<SolverKind> {
 protected:
  SceneDesc Scene(double rate_hz, int iterations) const {
    SceneDesc scene;
    scene.settings.rate_hz = rate_hz;
    scene.settings.solver.kind = GetParam();
    scene.settings.solver.max_iterations = iterations;
    return scene;
  }
};

// A hull cube on the ground stays where it was put, level.
TEST_P(HullTest, HullCubeRestsOnThePlane) {
  SceneDesc scene = Scene(60.0, 20);
  scene.bodies.push_back(
      testing::MakeBody("ground", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic));
  scene.bodies.push_back(testing::MakeBody("cube", HullBox(Vec3::Constant(0.1)),
                                           Vec3(0.0, 0.1, 0.0)));
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 180; ++i) world->Step();
  EXPECT_LT((testing::PositionOf(*world, "cube") - Vec3(0.0, 0.1, 0.0)).norm(), 2e-3);
  EXPECT_LT(testing::VelocityOf(*world, "cube").norm(), 1e-3);
  EXPECT_LT(world->GetBody("cube")->rigid()->angular_velocity.norm(), 1e-3);
}

// The incline of the box test, with the box a hull whose points sit off its body origin.
std::unique_ptr<World> HullIncline(SolverKind kind, double angle, double mu) {
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  scene.settings.solver.kind = kind;
  scene.settings.solver.max_iterations = 50;
  const Quat tilt(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
  BodyDesc ground = testing::MakeBody("slope", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic);
  ground.rigid()->pose.orientation = tilt;
  ground.rigid()->material.friction = mu;
  scene.bodies.push_back(ground);
  const Vec3 half(0.2, 0.1, 0.2);
  const Vec3 offset(0.05, 0.1, -0.03);
  BodyDesc box = testing::MakeBody("box", HullBox(half, offset),
                                   tilt * (Vec3(0, half.y(), 0) - offset));
  box.rigid()->pose.orientation = tilt;
  box.rigid()->material.friction = mu;
  scene.bodies.push_back(box);
  return testing::MakeWorld(scene);
}

TEST_P(HullTest, HullBoxSticksBelowTheFrictionAngle) {
  auto world = HullIncline(GetParam(), 25.0 * kPi / 180.0, 0.6);  // tan = 0.466
  const Vec3 start = testing::PositionOf(*world, "box");
  for (int i = 0; i < 600; ++i) world->Step();
  EXPECT_LT((testing::PositionOf(*world, "box") - start).norm(), 1e-3);
}

TEST_P(HullTest, HullBoxSlidesWithCoulombAcceleration) {
  const double angle = 30.0 * kPi / 180.0, mu = 0.3;  // tan = 0.577
  auto world = HullIncline(GetParam(), angle, mu);
  testing::ExpectCoulombSlide(*world, "box", angle, mu);
}

// Off-centre hull-hull collisions with friction and without gravity: total momentum stays
// what it was, to rounding.
TEST_P(HullTest, HullHullCollisionKeepsMomentum) {
  std::mt19937 rng(11);
  SceneDesc scene = Scene(240.0, 20);
  scene.settings.gravity = Vec3::Zero();
  BodyDesc a = testing::MakeBody("a", RandomHull(rng, 24, Vec3(0.3, 0.2, 0.25)),
                                 Vec3(-1.0, 0.05, 0.0));
  a.rigid()->linear_velocity = Vec3(3.0, 0.0, 0.0);
  a.rigid()->angular_velocity = Vec3(0.0, 1.0, 2.0);
  a.rigid()->material.friction = 0.8;
  BodyDesc b = testing::MakeBody("b", RandomHull(rng, 16, Vec3(0.25, 0.3, 0.2)),
                                 Vec3(1.0, -0.1, 0.05));
  b.rigid()->linear_velocity = Vec3(-1.0, 0.0, 0.2);
  b.rigid()->material.density = 2500.0;
  b.rigid()->material.friction = 0.8;
  scene.bodies = {a, b};
  auto world = testing::MakeWorld(scene);
  const double ma = ComputeMassProperties(a.rigid()->shape, a.rigid()->material).mass;
  const double mb = ComputeMassProperties(b.rigid()->shape, b.rigid()->material).mass;
  const auto momentum = [&] {
    return (ma * testing::VelocityOf(*world, "a") + mb * testing::VelocityOf(*world, "b")).eval();
  };
  const Vec3 before = momentum();
  bool touched = false;
  for (int i = 0; i < 240; ++i) {
    world->Step();
    touched |= world->last_stats().contacts > 0;
  }
  ASSERT_TRUE(touched);
  EXPECT_LT(testing::VelocityOf(*world, "a").x(), 2.5);
  EXPECT_LT((momentum() - before).norm(), 1e-9 * before.norm());
}

// A sphere, a box and a hull come to rest on a static hull slab; each carries its weight
// through the slab, with nothing sinking.
TEST_P(HullTest, BodiesRestOnAStaticHull) {
  SceneDesc scene = Scene(60.0, 20);
  scene.bodies.push_back(testing::MakeBody("slab", HullBox(Vec3(2.0, 0.1, 2.0)),
                                           Vec3(0.0, -0.1, 0.0), BodyKind::kStatic));
  scene.bodies.push_back(testing::MakeBody("ball", Shape::Sphere(0.1), Vec3(-1.0, 0.1, 0.0)));
  scene.bodies.push_back(
      testing::MakeBody("box", Shape::Box(Vec3::Constant(0.1)), Vec3(0.0, 0.1, 0.0)));
  scene.bodies.push_back(testing::MakeBody("hull", HullBox(Vec3(0.15, 0.05, 0.1)),
                                           Vec3(1.0, 0.05, 0.0)));
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 180; ++i) world->Step();
  EXPECT_NEAR(testing::PositionOf(*world, "ball").y(), 0.1, 2e-3);
  EXPECT_NEAR(testing::PositionOf(*world, "box").y(), 0.1, 2e-3);
  EXPECT_NEAR(testing::PositionOf(*world, "hull").y(), 0.05, 2e-3);
  for (const char* id : {"ball", "box", "hull"}) {
    EXPECT_LT(testing::VelocityOf(*world, id).norm(), 1e-3) << id;
  }
}

// A mug: a base and eight wall slabs around a hollow, each a hull child of one compound,
// dropped upright from 5 cm: it lands and stays upright, and a ball dropped inside stays in.
TEST_P(HullTest, CompoundOfHullsMugStandsUpright) {
  RigidBodyDesc mug;
  const double radius = 0.05, height = 0.1, wall = 0.006;
  mug.children.push_back({HullBox(Vec3(radius, 0.004, radius)), Transform{}});
  for (int k = 0; k < 8; ++k) {
    const double angle = 2.0 * kPi * k / 8.0;
    Transform at;
    at.orientation = Quat(Eigen::AngleAxisd(angle, Vec3::UnitY()));
    at.position = at.orientation * Vec3(radius, height / 2.0, 0.0);
    mug.children.push_back({HullBox(Vec3(wall, height / 2.0, 0.022)), at});
  }
  mug.material.density = 800.0;
  mug.pose.position = Vec3(0.0, 0.06, 0.0);
  SceneDesc scene = Scene(120.0, 30);
  scene.bodies.push_back(
      testing::MakeBody("ground", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic));
  BodyDesc body;
  body.id = "mug";
  body.body = mug;
  scene.bodies.push_back(body);
  scene.bodies.push_back(testing::MakeBody("ball", Shape::Sphere(0.02), Vec3(0.0, 0.09, 0.0)));
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 240; ++i) world->Step();
  const BodyDesc mug_now = *world->GetBody("mug");
  const RigidBodyDesc& now = *mug_now.rigid();
  const Vec3 up = now.pose.orientation * Vec3::UnitY();
  EXPECT_GT(up.y(), std::cos(1.0 * kPi / 180.0));
  EXPECT_NEAR(now.pose.position.y(), 0.004, 2e-3);
  const Vec3 ball = testing::PositionOf(*world, "ball");
  EXPECT_LT(Vec3(ball.x() - now.pose.position.x(), 0.0, ball.z() - now.pose.position.z()).norm(),
            radius - wall);
  EXPECT_NEAR(ball.y(), 0.008 + 0.02, 3e-3);
}

// A soft cube on a hull box on a static hull floor (the soft contact test's stack, with
// hulls for boxes): the floor carries both weights, the box the cube's, each step, within
// 0.5 % (averaged over the last second of three, at 100 Hz); nothing sinks.
TEST(HullSoftContact, SoftCubeOnHullBoxOnHullFloorCarriesBothWeights) {
  SceneDesc scene;
  scene.settings.rate_hz = 100.0;
  scene.bodies.push_back(testing::MakeBody("floor", HullBox(Vec3(1.0, 0.05, 1.0)),
                                           Vec3(0.0, -0.05, 0.0), BodyKind::kStatic));
  BodyDesc box = testing::MakeBody("box", HullBox(Vec3(0.1, 0.05, 0.1)), Vec3(0, 0.05, 0));
  box.rigid()->material.mass = 2.0;
  scene.bodies.push_back(box);
  scene.bodies.push_back(testing::SoftFemBox("cube", Vec3::Constant(0.05), Vec3(0, 0.151, 0),
                                             {2, 2, 2}, SoftModelKind::kCorotational, 2e5, 5.0));
  auto world = testing::MakeWorld(scene);
  const double m_soft = testing::SoftMass(*world, "cube");
  const double dt = scene.settings.dt();
  double floor_sum = 0.0, box_sum = 0.0;
  constexpr int kSettle = 200, kMeasure = 100;
  for (int i = 0; i < kSettle + kMeasure; ++i) {
    world->Step();
    if (i < kSettle) continue;
    floor_sum += testing::VerticalImpulse(*world, "floor", "box");
    box_sum += testing::VerticalImpulse(*world, "cube", "box");
  }
  const double both = (m_soft + 2.0) * kG * dt;
  EXPECT_NEAR(floor_sum / kMeasure, both, 0.005 * both);
  EXPECT_NEAR(box_sum / kMeasure, m_soft * kG * dt, 0.005 * m_soft * kG * dt);
  EXPECT_NEAR(testing::PositionOf(*world, "box").y(), 0.05, kPenetrationSlop);
  double lowest = 1e9;
  for (const Vec3& p : world->soft_bodies().FindBody("cube")->positions()) {
    lowest = std::min(lowest, p.y());
  }
  EXPECT_NEAR(lowest, 0.1, kPenetrationSlop);
}

INSTANTIATE_TEST_SUITE_P(Solvers, HullTest,
                         ::testing::Values(SolverKind::kGaussSeidel, SolverKind::kTunableLcp),
                         [](const auto& info) { return testing::SolverName(info.param); });

}  // namespace
}  // namespace ligature
