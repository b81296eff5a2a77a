// Coulomb friction in the haptic local model against its law: a probe pressed onto a
// floor with friction coefficient mu and pushed sideways by the device sticks (its contact
// point does not slide, and the device feels the whole sideways pull) while the pull is
// below mu N, and slides once it is above, the device then feeling mu N and no more.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "server/haptics/tool_simulator.h"

namespace ligature::haptics {
namespace {

constexpr double kRadius = 0.02;  // m
constexpr double kMass = 0.1;     // kg
constexpr double kH = 1e-3;       // s, device period
constexpr double kStiffness = 400.0;  // N/m
constexpr double kPress = 0.005;  // m, the device target below the resting centre
constexpr double kMu = 0.5;
constexpr double kRotStiffness = 5.0;  // N m/rad, the device holding the probe's orientation
// While the contact point sticks, the friction's torque tilts the probe on its orientation
// spring, so its centre gives way by r^2 F / k_r: the device feels k x / kTilt for an
// offset x.
constexpr double kTilt = 1.0 + kStiffness * kRadius * kRadius / kRotStiffness;

CouplingParams Coupling() {
  CouplingParams c;
  c.stiffness = kStiffness;
  c.damping = 2 * std::sqrt(kStiffness * kMass);
  // The probe's orientation is held by the device (else the sphere would roll).
  const double inertia = 0.4 * kMass * kRadius * kRadius;
  c.rotational_stiffness = kRotStiffness;
  c.rotational_damping = 2 * std::sqrt(c.rotational_stiffness * inertia);
  return c;
}

// A sphere resting on a fixed floor (y = 0) with friction `mu`, no gravity: the normal
// force is the coupling's press alone, k * kPress.
std::shared_ptr<ToolLocalModel> OnFloor(double mu) {
  auto m = std::make_shared<ToolLocalModel>();
  m->dt = 0.01;
  m->mass = kMass;
  m->inertia_local = 0.4 * kMass * kRadius * kRadius * Mat3::Identity();
  m->shapes = {{Shape::Sphere(kRadius), {}}};
  m->tool.position = Vec3(0, kRadius, 0);
  ContactPlane p;
  p.point = Vec3::Zero();
  p.normal = Vec3::UnitY();
  p.gap = 0.0;
  p.friction = mu;
  m->planes.push_back(p);
  return m;
}

// Where the tool's initial contact point (its lowest point) is now.
Vec3 ContactPoint(const ToolSimulator& sim) {
  return sim.state().position + sim.state().orientation * Vec3(0, -kRadius, 0);
}

// How far that point has moved along the floor: its slip. (Rolling on its orientation
// spring, the probe lifts the point by r (1 - cos theta), which is not slip.)
double Slip(const ToolSimulator& sim, const Vec3& start) {
  const Vec3 d = ContactPoint(sim) - start;
  return Vec3(d.x(), 0.0, d.z()).norm();
}

DeviceTarget PressedAt(double x, double speed) {
  DeviceTarget t;
  t.position = Vec3(x, kRadius - kPress, 0);
  t.linear_velocity = Vec3(speed, 0, 0);
  return t;
}

TEST(HapticsFrictionTest, SticksBelowMuNAndSlidesAtMuNAbove) {
  ToolSimulator sim(Coupling());
  sim.Reset(OnFloor(kMu));
  for (int i = 0; i < 2000; ++i) sim.Step(PressedAt(0, 0), kH);
  const double normal = kStiffness * kPress;  // N
  const double limit = kMu * normal;           // N, the sliding threshold
  const double threshold_x = kTilt * limit / kStiffness;  // m, device offset there

  // The device moves sideways slowly (quasi-static: its damping share stays < 0.3 %) to
  // twice the threshold offset.
  const double speed = 2e-4;  // m/s
  const int steps = static_cast<int>(2.0 * threshold_x / (speed * kH));
  const Vec3 start = ContactPoint(sim);
  double max_felt = 0.0;
  double felt_at_end = 0.0;
  for (int i = 1; i <= steps; ++i) {
    const double x = i * speed * kH;
    const ToolStepResult r = sim.Step(PressedAt(x, speed), kH);
    const double felt = std::abs(r.force.x());  // the device gets the opposite
    const double n = r.contact_normal_force.y();
    const double friction = r.contact_friction_force.norm();
    // The friction force never leaves the cone.
    ASSERT_LE(friction, kMu * n * (1 + 1e-9) + 1e-12) << "step " << i;
    ASSERT_NEAR(n, normal, 1e-3 * normal) << "step " << i;
    max_felt = std::max(max_felt, felt);
    felt_at_end = felt;
    if (x < 0.9 * threshold_x) {
      // Sticking: the contact point stays, the friction balances the pull, and the device
      // feels the spring's whole stretch.
      ASSERT_LT(Slip(sim, start), 1e-7) << "step " << i;
      ASSERT_NEAR(friction, felt, 2e-3 * limit) << "step " << i;
      ASSERT_NEAR(felt, kStiffness * x / kTilt, 5e-3 * limit) << "step " << i;
    }
    if (x > 1.1 * threshold_x) {
      // Sliding: friction on the cone's border, mu N (within the slow pull's stick-slip).
      ASSERT_NEAR(friction, limit, 1e-3 * limit) << "step " << i;
    }
  }
  // The sideways force reached mu N and no more; the probe slid the rest of the way.
  EXPECT_LE(max_felt, 1.005 * limit);
  EXPECT_NEAR(felt_at_end, limit, 5e-3 * limit);
  // Sliding, the spring holds mu N: the contact point slid what the device moved past that.
  const double slid = ContactPoint(sim).x() - start.x();
  EXPECT_NEAR(slid, 2.0 * threshold_x - kTilt * limit / kStiffness, 0.05 * threshold_x);
}

TEST(HapticsFrictionTest, AFrictionlessFloorGivesNoSidewaysForce) {
  ToolSimulator sim(Coupling());
  sim.Reset(OnFloor(0.0));
  ToolStepResult r;
  for (int i = 0; i < 3000; ++i) r = sim.Step(PressedAt(0.004, 0), kH);
  EXPECT_NEAR(r.force.x(), 0.0, 1e-6);
  EXPECT_EQ(r.contact_friction_force.norm(), 0.0);
  EXPECT_NEAR(sim.state().position.x(), 0.004, 1e-8);
  EXPECT_NEAR(r.contact_normal_force.y(), kStiffness * kPress, 1e-6);
}

TEST(HapticsFrictionTest, FrictionHoldsAgainstAPullAtAnAngleInThePlane) {
  // The cone is round: a pull along (1, 0, 1) below mu N sticks, above it slides along
  // the pull at mu N.
  ToolSimulator sim(Coupling());
  sim.Reset(OnFloor(kMu));
  const double limit = kMu * kStiffness * kPress;
  const Vec3 dir = Vec3(1, 0, 1).normalized();
  auto target = [&](double offset) {
    DeviceTarget t;
    t.position = Vec3(0, kRadius - kPress, 0) + offset * dir;
    return t;
  };
  ToolStepResult r;
  for (int i = 0; i < 3000; ++i) r = sim.Step(target(0.5 * limit / kStiffness), kH);
  EXPECT_LT(Slip(sim, Vec3::Zero()), 1e-7);
  EXPECT_NEAR(Vec3(r.force.x(), 0, r.force.z()).norm(), 0.5 * limit / kTilt, 1e-3 * limit);
  for (int i = 0; i < 3000; ++i) r = sim.Step(target(3.0 * limit / kStiffness), kH);
  const Vec3 felt(r.force.x(), 0, r.force.z());
  EXPECT_NEAR(felt.norm(), limit, 5e-3 * limit);
  EXPECT_NEAR(felt.normalized().dot(dir), 1.0, 1e-6);
  EXPECT_LE(r.contact_friction_force.norm(), limit * (1 + 1e-9));
}

}  // namespace
}  // namespace ligature::haptics
