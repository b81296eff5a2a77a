// Rolling and spinning resistance against analytic answers, in both solvers: a solid sphere
// rolling on a plane decelerates at mu_r g / (1.4 r), stops where that puts it and stays;
// without rolling resistance it keeps rolling; a sphere spinning about the vertical slows
// at mu_s m g / I and stops; bodies that do not roll (a box sliding down an incline, a box
// at rest) are not affected.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

constexpr double kG = 9.81;
constexpr double kRadius = 0.1;  // m
constexpr double kRate = 200.0;  // Hz
constexpr int kStepsPerSecond = 200;

// A solid sphere's I / (m r^2).
constexpr double kSphereInertiaRatio = 0.4;

// Rolling without slipping, a solid sphere of mass m, radius r and I = 2/5 m r^2 on a
// level plane, with rolling resistance torque tau = mu_r N = mu_r m g against its rotation:
//   m a = -F              (F: the ground's friction force on it, along the motion)
//   I alpha = F r - tau   (F turns it forward, tau turns it back)
//   a = alpha r           (no slip)
// so I a / r = -m a r - tau, a (m r + I / r) = -mu_r m g, and
//   a = -mu_r g / (r (1 + I / (m r^2))) = -mu_r g / (1.4 r).
double RollingDeceleration(double mu_r) {
  return mu_r * kG / (kRadius * (1.0 + kSphereInertiaRatio));
}

// Spinning about the contact normal with torsional resistance tau = mu_s m g (the single
// contact point gives Coulomb friction no moment about the normal):
//   I alpha = -mu_s m g, so alpha = -mu_s m g / I = -mu_s g / (0.4 r^2).
double SpinDeceleration(double mu_s) {
  return mu_s * kG / (kSphereInertiaRatio * kRadius * kRadius);
}

class RollingFrictionTest : public ::testing::TestWithParam<SolverKind> {
 protected:
  // A static ground plane (y up) and a sphere resting on it, both with the given rolling
  // and spinning lever arms (their geometric mean is then the same value), moving at
  // `velocity` and turning at `spin`.
  std::unique_ptr<World> SphereWorld(double rolling, double spinning, const Vec3& velocity,
                                     const Vec3& spin) const {
    SceneDesc scene = Scene();
    BodyDesc ground = testing::MakeBody("ground", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic);
    SetArms(rolling, spinning, &ground);
    scene.bodies.push_back(ground);
    BodyDesc ball = testing::MakeBody("ball", Shape::Sphere(kRadius), Vec3(0, kRadius, 0));
    SetArms(rolling, spinning, &ball);
    ball.rigid()->linear_velocity = velocity;
    ball.rigid()->angular_velocity = spin;
    scene.bodies.push_back(ball);
    return testing::MakeWorld(scene);
  }

  // A sphere rolling along +x at `speed` without slipping: w x (-r y) = -v.
  std::unique_ptr<World> RollingSphere(double rolling, double speed) const {
    return SphereWorld(rolling, 0.0, Vec3(speed, 0, 0), Vec3(0, 0, -speed / kRadius));
  }

  SceneDesc Scene() const {
    SceneDesc scene;
    scene.settings.rate_hz = kRate;
    scene.settings.solver.kind = GetParam();
    scene.settings.solver.max_iterations = 50;
    return scene;
  }

  static void SetArms(double rolling, double spinning, BodyDesc* body) {
    body->rigid()->material.rolling_friction = rolling;
    body->rigid()->material.spinning_friction = spinning;
  }

  static Vec3 SpinOf(const World& world, const std::string& id) {
    return world.GetBody(id)->rigid()->angular_velocity;
  }
};

// Over one second of rolling, the sphere slows at mu_r g / (1.4 r) within 3 %, and it keeps
// rolling without slipping (the contact point moves at less than 5 mm/s, 0.5 % of the
// speed).
TEST_P(RollingFrictionTest, SphereDeceleratesAtRollingRate) {
  const double mu_r = 0.005;  // m: a = 0.350 m/s^2
  auto world = RollingSphere(mu_r, 1.0);
  const double a = testing::AccelerationAlong(*world, "ball", Vec3::UnitX(), 20, kStepsPerSecond);
  EXPECT_NEAR(a, -RollingDeceleration(mu_r), 0.03 * RollingDeceleration(mu_r));
  const Vec3 v = testing::VelocityOf(*world, "ball");
  const Vec3 slip = v + SpinOf(*world, "ball").cross(Vec3(0, -kRadius, 0));
  EXPECT_LT(slip.norm(), 5e-3);
  EXPECT_GT(v.x(), 0.5);  // still rolling, at about 0.65 m/s
}

// Rolling from 1 m/s, the sphere stops after v^2 / (2 a) (within 3 %), then stays put:
// it never rolls back, and in the two seconds after it stopped it moves less than 0.1 mm.
TEST_P(RollingFrictionTest, SphereStopsAndStays) {
  const double mu_r = 0.005;
  const double v0 = 1.0;
  auto world = RollingSphere(mu_r, v0);
  const double x0 = testing::PositionOf(*world, "ball").x();
  double slowest = v0;  // the least velocity along +x seen (negative: rolling back)
  for (int i = 0; i < 4 * kStepsPerSecond; ++i) {  // it stops at about 2.9 s
    world->Step();
    slowest = std::min(slowest, testing::VelocityOf(*world, "ball").x());
  }
  const Vec3 stop = testing::PositionOf(*world, "ball");
  const double distance = v0 * v0 / (2.0 * RollingDeceleration(mu_r));  // 1.43 m
  EXPECT_NEAR(stop.x() - x0, distance, 0.03 * distance);
  EXPECT_LT(testing::VelocityOf(*world, "ball").norm(), 1e-3);
  EXPECT_LT(SpinOf(*world, "ball").norm(), 1e-2);
  for (int i = 0; i < 2 * kStepsPerSecond; ++i) {
    world->Step();
    slowest = std::min(slowest, testing::VelocityOf(*world, "ball").x());
  }
  EXPECT_LT((testing::PositionOf(*world, "ball") - stop).norm(), 1e-4);
  EXPECT_GT(slowest, -1e-3);
}

// Without rolling resistance the sphere keeps its speed (within 0.5 % over two seconds,
// where mu_r = 0.005 would have taken 0.7 m/s off it).
TEST_P(RollingFrictionTest, SphereWithoutRollingResistanceKeepsRolling) {
  auto world = RollingSphere(0.0, 1.0);
  for (int i = 0; i < 2 * kStepsPerSecond; ++i) world->Step();
  EXPECT_NEAR(testing::VelocityOf(*world, "ball").x(), 1.0, 5e-3);
  EXPECT_NEAR(SpinOf(*world, "ball").z(), -1.0 / kRadius, 5e-2);
}

// A sphere spinning about the vertical slows at mu_s m g / I within 3 % over one second,
// stops (after about 2 s) and stays stopped; without torsional resistance it keeps
// spinning.
TEST_P(RollingFrictionTest, SpinningSphereSlowsAtTorsionalRate) {
  const double mu_s = 0.002;  // m: alpha = 4.9 rad/s^2
  const double w0 = 10.0;     // rad/s
  auto world = SphereWorld(0.0, mu_s, Vec3::Zero(), Vec3(0, w0, 0));
  for (int i = 0; i < 20; ++i) world->Step();
  const double s0 = SpinOf(*world, "ball").y();
  const double t0 = world->sim_time();
  for (int i = 0; i < kStepsPerSecond; ++i) world->Step();
  const double alpha = (SpinOf(*world, "ball").y() - s0) / (world->sim_time() - t0);
  EXPECT_NEAR(alpha, -SpinDeceleration(mu_s), 0.03 * SpinDeceleration(mu_s));
  double slowest = w0;
  for (int i = 0; i < 2 * kStepsPerSecond; ++i) {
    world->Step();
    slowest = std::min(slowest, SpinOf(*world, "ball").y());
  }
  EXPECT_LT(SpinOf(*world, "ball").norm(), 1e-3);
  EXPECT_GT(slowest, -1e-3);  // it does not turn back
  EXPECT_LT(testing::VelocityOf(*world, "ball").norm(), 1e-3);

  auto free = SphereWorld(0.0, 0.0, Vec3::Zero(), Vec3(0, w0, 0));
  for (int i = 0; i < kStepsPerSecond; ++i) free->Step();
  EXPECT_NEAR(SpinOf(*free, "ball").y(), w0, 1e-2 * w0);
}

// Nothing rolls on a box sliding down an incline: with rolling and spinning resistance it
// still slides at Coulomb's g (sin - mu cos), within 2 %.
TEST_P(RollingFrictionTest, SlidingBoxKeepsCoulombAcceleration) {
  const double angle = 30.0 * std::numbers::pi / 180.0;
  const double mu = 0.3;
  SceneDesc scene = Scene();
  const Quat tilt(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
  BodyDesc slope = testing::MakeBody("slope", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic);
  BodyDesc box = testing::MakeBody("box", Shape::Box(Vec3(0.2, 0.1, 0.2)), tilt * Vec3(0, 0.1, 0));
  for (BodyDesc* b : {&slope, &box}) {
    b->rigid()->pose.orientation = tilt;
    b->rigid()->material.friction = mu;
    SetArms(0.02, 0.02, b);
    scene.bodies.push_back(*b);
  }
  auto world = testing::MakeWorld(scene);
  testing::ExpectCoulombSlide(*world, "box", angle, mu);
}

// A box at rest on a plane with rolling and spinning resistance stays at rest as it does
// without: over five seconds it moves less than 0.1 mm and turns less than 1e-4 rad more
// than the same box without them.
TEST_P(RollingFrictionTest, RestingBoxDoesNotDrift) {
  auto resting_box = [&](double arm) {
    SceneDesc scene = Scene();
    BodyDesc ground = testing::MakeBody("ground", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic);
    BodyDesc box = testing::MakeBody("box", Shape::Box(Vec3(0.3, 0.1, 0.2)), Vec3(0, 0.1, 0));
    for (BodyDesc* b : {&ground, &box}) {
      SetArms(arm, arm, b);
      scene.bodies.push_back(*b);
    }
    auto world = testing::MakeWorld(scene);
    for (int i = 0; i < 5 * kStepsPerSecond; ++i) world->Step();
    return world;
  };
  const auto with = resting_box(0.02);
  const auto without = resting_box(0.0);
  // The descriptions are kept: a reference into GetBody's temporary result would dangle.
  const BodyDesc with_box = *with->GetBody("box");
  const BodyDesc without_box = *without->GetBody("box");
  const RigidBodyDesc& a = *with_box.rigid();
  const RigidBodyDesc& b = *without_box.rigid();
  EXPECT_LT((a.pose.position - Vec3(0, 0.1, 0)).norm(), 1e-3);
  EXPECT_LT((a.pose.position - b.pose.position).norm(), 1e-4);
  EXPECT_LT(a.pose.orientation.angularDistance(b.pose.orientation), 1e-4);
  EXPECT_LT(a.linear_velocity.norm(), 1e-3);
  EXPECT_LT(a.angular_velocity.norm(), 1e-3);
}

INSTANTIATE_TEST_SUITE_P(Solvers, RollingFrictionTest,
                         ::testing::Values(SolverKind::kGaussSeidel, SolverKind::kTunableLcp),
                         [](const auto& info) { return testing::SolverName(info.param); });

}  // namespace
}  // namespace ligature
