// Oriented strands against physics: the compound pendulum's period, energy conservation
// and decay, the stiff cantilever's discrete static deflection, stability of a very stiff
// strand at a world rate, the zero-gravity rest shape, constraints and collisions.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <vector>

#include "server/world/strand/strand_simulation.h"
#include "server/model/strand/art_direction.h"
#include "server/model/strand/energy.h"
#include "server/model/strand/stiffness.h"
#include "server/model/strand/implicit_step.h"
#include "server/model/strand/kinematics.h"
#include "server/model/strand/strand_model.h"
#include "server/model/strand/strand_state.h"
#include "tests/validation/strand_answers.h"

namespace ligature {
namespace {

const Vec3 kGravity(0.0, -9.81, 0.0);

// A straight serial strand of n equal segments from the origin along `dir`.
StrandModel Straight(int n, double length, const Vec3& dir, const StrandMaterial& material) {
  StrandDesc desc;
  for (int i = 0; i <= n; ++i) desc.points.push_back(dir.normalized() * (length * i / n));
  desc.materials = {material};
  absl::StatusOr<StrandModel> model = StrandModel::Make(desc);
  EXPECT_TRUE(model.ok()) << model.status();
  return *model;
}

// Free motion (no constraints) with a static base at the world origin.
class FreeStrand {
 public:
  FreeStrand(StrandModel model, double dt) : model_(std::move(model)), dt_(dt) {
    state_ = RestState(model_);
  }
  void Step() {
    stepper_.Solve(model_, base_, state_, forces_, dt_, options_);
    state_.w = stepper_.w_next();
    AdvancePositions(state_.w, dt_, &state_.q);
  }
  StrandKinematics Kinematics() const {
    StrandKinematics kin;
    ComputeKinematics(model_, base_.pose, base_.SpatialVelocity(), state_.q, state_.w, &kin);
    return kin;
  }
  Vec3 Tip() const {
    const StrandKinematics kin = Kinematics();
    return TipPositions(model_, kin).back();
  }
  double Energy() const { return ComputeEnergy(model_, Kinematics(), state_, kGravity).total(); }

  StrandModel model_;
  double dt_;
  StrandState state_;
  StrandBase base_;
  StrandStepForces forces_;
  ImplicitStepOptions options_;
  ImplicitStepper stepper_;
};

// A single segment without stiffness is a compound pendulum about its joint: small
// amplitude period 2 pi sqrt(I / (m g d)), I about the pivot, d the pivot-to-centre
// distance. Backward Euler at dt = 1e-4 s (h w ~ 6e-4): period error O((h w)^2).
TEST(StrandValidationTest, SingleSegmentIsACompoundPendulum) {
  StrandMaterial mat;
  mat.mass_per_length = 0.2;
  mat.radius = 0.01;
  const double length = 0.3;
  FreeStrand s(Straight(1, length, Vec3(0, -1, 0), mat), 1e-4);
  const double m = mat.mass_per_length * length;
  const double inertia = m * (length * length / 12.0 + mat.radius * mat.radius / 4.0) +
                         m * length * length / 4.0;
  const double expected = 2.0 * std::numbers::pi * std::sqrt(inertia / (m * 9.81 * length / 2.0));
  s.state_.q[0] = ComposeLocal(s.state_.q[0], Vec3(0, 0, 0.05));
  // Upward zero crossings of the tip's x over a few periods.
  std::vector<double> crossings;
  double previous = s.Tip().x();
  for (int k = 1; k <= static_cast<int>(4.5 * expected / s.dt_); ++k) {
    s.Step();
    const double x = s.Tip().x();
    if (previous < 0.0 && x >= 0.0) crossings.push_back((k - x / (x - previous)) * s.dt_);
    previous = x;
  }
  ASSERT_GE(crossings.size(), 3u);
  const double period = (crossings.back() - crossings.front()) / (crossings.size() - 1);
  EXPECT_NEAR(period, expected, 0.01 * expected);
  EXPECT_NEAR(period, expected, 0.001 * expected) << "tighter than asked, still";
}

// Without damping, a planar swinging chain with bend springs (whose energy is exact for
// bending about a fixed axis) keeps its energy: backward Euler only loses a little, and
// the loss halves with the step (first order). With damping, energy never increases.
TEST(StrandValidationTest, EnergyIsNearlyConservedWithoutDampingAndDecaysWithIt) {
  StrandMaterial mat;
  mat.mass_per_length = 0.1;
  mat.radius = 0.005;
  mat.bend_rigidity_z = 2e-3;
  auto run = [&](double dt, double damping, bool* monotone) {
    StrandMaterial m = mat;
    m.bend_damping_z = damping;
    FreeStrand s(Straight(3, 0.6, Vec3(1, 0, 0), m), dt);
    const double e0 = s.Energy();
    double previous = e0;
    *monotone = true;
    for (int k = 0; k < static_cast<int>(1.0 / dt); ++k) {
      s.Step();
      const double e = s.Energy();
      if (e > previous + 1e-12 * std::abs(e0)) *monotone = false;
      previous = e;
    }
    // Relative to the energy that moves: the initial drop from horizontal.
    return (previous - e0) / (mat.mass_per_length * 0.6 * 9.81 * 0.3);
  };
  bool monotone = false;
  const double loss_1 = run(1e-4, 0.0, &monotone);
  const double loss_2 = run(5e-5, 0.0, &monotone);
  EXPECT_LT(std::abs(loss_1), 0.01);
  EXPECT_LE(loss_1, 0.0);
  EXPECT_NEAR(loss_2 / loss_1, 0.5, 0.1);
  const double damped = run(1e-3, 1e-3, &monotone);
  EXPECT_TRUE(monotone);
  EXPECT_LT(damped, -0.05);
}

TEST(StrandValidationTest, StiffCantileverMatchesDiscreteStaticDeflection) {
  const int n = 10;
  const double length = 0.5;
  StrandMaterial mat;
  mat.mass_per_length = 0.05;
  mat.radius = 0.003;
  mat.bend_rigidity_x = mat.bend_rigidity_z = 0.15;
  mat.twist_rigidity = 0.1;
  mat.bend_damping_x = mat.bend_damping_z = 4e-3;
  mat.twist_damping = 1e-3;
  FreeStrand s(Straight(n, length, Vec3(1, 0, 0), mat), 1e-3);
  for (int k = 0; k < 3000; ++k) s.Step();
  const double expected = testing::CantileverTipDrop(n, length, mat.mass_per_length, 0.15 / (length / n));
  const Vec3 tip = s.Tip();
  EXPECT_GT(expected, 0.01);
  EXPECT_NEAR(-tip.y(), expected, 0.01 * expected);
  EXPECT_NEAR(tip.z(), 0.0, 1e-9);
}

// A very stiff bun (joint stiffness 2500 N m/rad on 1 g segments) followed by a softer
// braid, its base shaken hard and spun, at dt = 1/60 s: finite and bounded throughout.
// Then the base stops: the strand, damped, never gains energy and comes to rest.
TEST(StrandValidationTest, VeryStiffStrandStaysBoundedAtSixtyHertz) {
  StrandDesc desc;
  for (int i = 0; i <= 30; ++i) {
    const double s = 0.02 * i;
    desc.points.push_back(Vec3(0.02 * std::sin(8.0 * s), -s, 0.02 * std::cos(8.0 * s)));
  }
  absl::StatusOr<std::vector<StrandMaterial>> mats =
      MaterialsAlongLength(desc, [](double s) {
        StrandMaterial m;
        m.mass_per_length = 0.05;
        m.radius = 0.01;
        const double r = s < 0.1 ? 50.0 : 0.02;  // bun: very stiff; braid: softer
        m.bend_rigidity_x = m.bend_rigidity_z = r;
        m.twist_rigidity = r;
        m.bend_damping_x = m.bend_damping_z = m.twist_damping = 1e-5;
        return m;
      });
  ASSERT_TRUE(mats.ok());
  desc.materials = *mats;
  absl::StatusOr<StrandModel> model = StrandModel::Make(desc);
  ASSERT_TRUE(model.ok());
  FreeStrand s(*model, 1.0 / 60.0);
  for (int k = 0; k < 600; ++k) {
    const double t = k / 60.0;
    // Shaken: 10 cm at 3 Hz, and spun about the vertical.
    const double w = 2.0 * std::numbers::pi * 3.0;
    s.base_.pose.position = Vec3(0.1 * std::sin(w * t), 0, 0);
    s.base_.linear_velocity = Vec3(0.1 * w * std::cos(w * t), 0, 0);
    s.base_.linear_acceleration = Vec3(-0.1 * w * w * std::sin(w * t), 0, 0);
    s.base_.angular_velocity = Vec3(0, 4.0 * std::cos(w * t), 0);
    s.base_.angular_acceleration = Vec3(0, -4.0 * w * std::sin(w * t), 0);
    s.base_.pose.orientation = Quat(Eigen::AngleAxisd(4.0 / w * std::sin(w * t), Vec3::UnitY()));
    s.Step();
    for (const Vec3& w : s.state_.w) ASSERT_TRUE(w.allFinite()) << k;
    ASSERT_LT(s.state_.w[0].norm(), 1e3) << k;
  }
  // The base stops where it is.
  s.base_.linear_velocity = s.base_.linear_acceleration = Vec3::Zero();
  s.base_.angular_velocity = s.base_.angular_acceleration = Vec3::Zero();
  const double stopped = s.Energy();
  double highest = stopped;
  Vec3 tip = s.Tip();
  double tip_speed = 0.0, first_speed = -1.0;
  for (int k = 0; k < 600; ++k) {
    s.Step();
    highest = std::max(highest, s.Energy());
    const Vec3 now = s.Tip();
    tip_speed = (now - tip).norm() / s.dt_;
    if (first_speed < 0.0) first_speed = tip_speed;
    tip = now;
  }
  std::printf("base stopped: energy %.6g J, highest after %.6g J, end %.6g J; "
              "tip speed %.4g -> %.4g m/s\n",
              stopped, highest, s.Energy(), first_speed, tip_speed);
  EXPECT_LE(highest, stopped + 1e-9);  // J
  EXPECT_GT(first_speed, 0.1);         // m/s: it was moving when the base stopped
  EXPECT_LT(tip_speed, 0.01);          // m/s, after 10 s (measured: 2e-4)
}

// Distance of a chain of points from another, the largest.
double MaxDistance(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  double d = 0.0;
  for (size_t i = 0; i < a.size(); ++i) d = std::max(d, (a[i] - b[i]).norm());
  return d;
}

// A point-on-fixed-point constraint: a limp chain hung between its base and a pinned tip
// stays pinned; the drift is bounded by the eq. 15 correction.
TEST(StrandValidationTest, PointConstraintHoldsTheTip) {
  StrandDesc desc;
  // A V whose tip is 0.4 m from the base.
  for (int i = 0; i <= 10; ++i) {
    const double x = 0.04 * i;
    desc.points.push_back(Vec3(x, -0.15 * (1.0 - std::abs(x - 0.2) / 0.2), 0.0));
  }
  StrandMaterial mat;
  mat.mass_per_length = 0.05;
  mat.bend_damping_x = mat.bend_damping_z = mat.twist_damping = 1e-5;
  desc.materials = {mat};
  absl::StatusOr<StrandModel> model = StrandModel::Make(desc);
  ASSERT_TRUE(model.ok());
  StrandSimulation sim(*model);
  StrandStepInput input;
  PointConstraint pin;
  pin.segment = 9;
  pin.point = Vec3(0, model->segment(9).length, 0);
  pin.position = desc.points.back();
  input.constraints.points.push_back(pin);
  double worst = 0.0;
  for (int k = 0; k < 480; ++k) {
    ASSERT_TRUE(sim.Step(1.0 / 240.0, input).ok());
    worst = std::max(worst, (sim.Points().back() - pin.position).norm());
  }
  EXPECT_LT(worst, 1e-3);
  // It hangs like the chain it is: the middle near the catenary's sag for a 0.5 m chain
  // over a 0.4 m span (a = 0.1705 m: 2 a sinh(0.2 / a) = 0.5, sag a (cosh(0.2 / a) - 1)).
  EXPECT_NEAR(sim.Points()[5].y(), -0.131, 0.007);
}

// A unilateral joint limit: the joint's bend stays at the limit (within the correction's
// tolerance) and the limit's force is never negative.
TEST(StrandValidationTest, JointLimitPushesButNeverPulls) {
  StrandMaterial mat;
  mat.mass_per_length = 0.05;
  mat.bend_damping_x = mat.bend_damping_z = 1e-4;
  StrandSimulation sim(Straight(3, 0.3, Vec3(1, 0, 0), mat));
  StrandStepInput input;
  input.constraints.joint_limits.push_back({0, 0.3, 0.05});
  input.constraints.joint_limits.push_back({1, 0.2, 0.05});
  int active = 0;
  for (int k = 0; k < 600; ++k) {
    ASSERT_TRUE(sim.Step(1.0 / 300.0, input).ok());
    for (int r = 0; r < sim.stats().rows; ++r) {
      EXPECT_GE(sim.stats().forces[r], 0.0);
      if (sim.stats().forces[r] > 0.0) ++active;
    }
  }
  EXPECT_GT(active, 100);
  for (int j = 0; j < 2; ++j) {
    const double bend = Deflection(sim.model().segment(j).rest, sim.state().q[j]).bend_angle;
    EXPECT_LT(bend, input.constraints.joint_limits[j].max_bend + 0.01) << j;
    EXPECT_GT(bend, input.constraints.joint_limits[j].max_bend - 0.06) << j;
  }
}

// A limp strand lying across an incline (its base on the plane, itself along the
// horizontal of the slope) with Coulomb friction mu: it stays put when tan(slope) < mu
// and slides (swings down around its base) when tan(slope) > mu.
double SlideOnIncline(double slope, double mu) {
  StrandMaterial mat;
  mat.mass_per_length = 0.05;
  mat.radius = 0.002;
  mat.bend_damping_x = mat.bend_damping_z = mat.twist_damping = 1e-6;
  StrandDesc desc;
  for (int i = 0; i <= 8; ++i) desc.points.push_back(Vec3(0.05 * i, 0.0, 0.0));
  desc.materials = {mat};
  absl::StatusOr<StrandModel> model = StrandModel::Make(desc);
  EXPECT_TRUE(model.ok());
  StrandSimulation sim(*model);
  StrandStepInput input;
  const Quat tilt(Eigen::AngleAxisd(slope, Vec3::UnitX()));
  Obstacle plane;
  plane.shape = Shape::Plane();
  plane.pose.orientation = tilt;
  plane.friction = mu;
  input.obstacles.push_back(plane);
  input.base.pose.orientation = tilt;
  input.base.pose.position = tilt * Vec3(0, mat.radius, 0);
  sim.mutable_state() = RestState(sim.model());
  const std::vector<Vec3> start = [&] {
    StrandSimulation probe = sim;
    EXPECT_TRUE(probe.Step(1e-9, input).ok());
    return probe.Points();
  }();
  for (int k = 0; k < 240; ++k) EXPECT_TRUE(sim.Step(1.0 / 240.0, input).ok());
  return MaxDistance(sim.Points(), start);
}

TEST(StrandValidationTest, FrictionHoldsBelowTheThresholdSlopeAndSlidesAbove) {
  const double mu = 0.5;
  EXPECT_LT(SlideOnIncline(std::atan(0.5 * mu), mu), 2e-3);
  EXPECT_GT(SlideOnIncline(std::atan(2.0 * mu), mu), 0.05);
  // Frictionless, even a gentle slope slides.
  EXPECT_GT(SlideOnIncline(std::atan(0.25), 0.0), 0.05);
}

// A soft strand rooted on top of a sphere (a hair on a head) and sticking out sideways
// falls onto the sphere and drapes over it: its collision points never sink more than a
// millimetre into the sphere, it keeps touching it, and it comes to rest.
TEST(StrandValidationTest, StrandFallingOntoASphereDoesNotPenetrateAndComesToRest) {
  const StrandMaterial mat = testing::SoftHairMaterial();
  StrandDesc desc;
  for (int i = 0; i <= 12; ++i) desc.points.push_back(Vec3(0.025 * i, 0.0, 0.0));
  desc.materials = {mat};
  absl::StatusOr<StrandModel> model = StrandModel::Make(desc);
  ASSERT_TRUE(model.ok());
  StrandSimulation sim(*model);
  StrandStepInput input;
  Obstacle sphere;
  sphere.shape = Shape::Sphere(0.1);
  sphere.friction = 0.3;
  input.obstacles.push_back(sphere);
  input.base.pose.position = Vec3(0.0, sphere.shape.radius + mat.radius + 1e-4, 0.0);
  double worst = 0.0;
  for (int k = 0; k < 1200; ++k) {
    ASSERT_TRUE(sim.Step(1.0 / 240.0, input).ok());
    const StrandKinematics kin = sim.Kinematics();
    for (int i = 0; i < sim.model().segments(); ++i) {
      for (double f : {0.5, 1.0}) {
        const Vec3 p = kin.Position(i, Vec3(0, f * sim.model().segment(i).length, 0));
        worst = std::max(worst,
                         sphere.shape.radius + mat.radius - (p - sphere.pose.position).norm());
      }
    }
  }
  EXPECT_GT(sim.stats().contacts, 3);
  EXPECT_LT(worst, 1e-3);
  // Draped: the tip went below the sphere's top.
  EXPECT_LT(sim.Points().back().y(), 0.0);
  double fastest = 0.0;
  const StrandKinematics kin = sim.Kinematics();
  for (int i = 0; i < sim.model().segments(); ++i) {
    fastest = std::max(fastest, kin.Velocity(i, Vec3(0, sim.model().segment(i).length, 0)).norm());
  }
  EXPECT_LT(fastest, 0.01);
}

// The zero-gravity rest shape: a curly, moderately stiff strand sags under gravity from its
// modelled shape; after the inverse-dynamics correction it settles to that shape.
TEST(StrandValidationTest, ZeroGravityRestShapeHangsInItsModelledShape) {
  StrandDesc desc;
  for (int i = 0; i <= 20; ++i) {
    const double t = 0.5 * i;
    desc.points.push_back(Vec3(0.03 * std::sin(t) + 0.01 * i, -0.012 * i, 0.03 * (std::cos(t) - 1)));
  }
  StrandMaterial mat;
  mat.mass_per_length = 0.02;
  mat.radius = 0.002;
  mat.bend_rigidity_x = mat.bend_rigidity_z = 2e-3;
  mat.twist_rigidity = 2e-3;
  mat.bend_damping_x = mat.bend_damping_z = mat.twist_damping = 5e-5;
  desc.materials = {mat};
  absl::StatusOr<StrandModel> model = StrandModel::Make(desc);
  ASSERT_TRUE(model.ok());
  const double length = model->total_length();
  auto settle = [&](const StrandModel& m) {
    StrandSimulation sim(m);
    StrandStepInput input;
    // Start in the modelled shape (the corrected model's own rest is the zero-gravity one).
    sim.mutable_state().q = RestState(*model).q;
    for (int k = 0; k < 1500; ++k) EXPECT_TRUE(sim.Step(1.0 / 500.0, input).ok());
    return MaxDistance(sim.Points(), desc.points);
  };
  const double sagged = settle(*model);
  StrandModel corrected = *model;
  ASSERT_TRUE(ApplyZeroGravityRestShape(&corrected, Transform{}, kGravity).ok());
  const double kept = settle(corrected);
  EXPECT_GT(sagged, 0.01 * length);
  EXPECT_LT(kept, 1e-4 * length);
}

// Local dynamics and time scale (eq. 19): a damped hanging strand on a base accelerating
// sideways leans back by atan(a / g); with local dynamics 1 against a reference frame that
// moves with the base it stays vertical, with 0.5 it leans by atan(a / 2g), and with time
// scale 0 it ignores the base's motion.
double LeanAngle(double time_scale, double local_dynamics) {
  StrandMaterial mat;
  mat.mass_per_length = 0.05;
  mat.bend_damping_x = mat.bend_damping_z = mat.twist_damping = 2e-4;
  StrandSimulation sim(Straight(4, 0.2, Vec3(0, -1, 0), mat));
  const double accel = 3.0;
  for (int k = 0; k < 1500; ++k) {
    const double t = (k + 1) / 500.0;
    StrandStepInput input;
    input.base.pose.position = Vec3(0.5 * accel * t * t, 0, 0);
    input.base.linear_velocity = Vec3(accel * t, 0, 0);
    input.base.linear_acceleration = Vec3(accel, 0, 0);
    StrandBase hip = input.base;
    hip.pose.position.y() += 0.3;
    input.reference = &hip;
    input.art.time_scale = time_scale;
    input.art.local_dynamics = local_dynamics;
    EXPECT_TRUE(sim.Step(1.0 / 500.0, input).ok());
  }
  const std::vector<Vec3> p = sim.Points();
  const Vec3 d = p.back() - p.front();
  return std::atan2(-d.x(), -d.y());
}

TEST(StrandValidationTest, TimeScaleAndLocalDynamicsScaleTheBaseMotion) {
  EXPECT_NEAR(LeanAngle(1.0, 0.0), std::atan(3.0 / 9.81), 2e-3);
  EXPECT_NEAR(LeanAngle(1.0, 0.5), std::atan(1.5 / 9.81), 2e-3);
  EXPECT_NEAR(LeanAngle(1.0, 1.0), 0.0, 1e-6);
  EXPECT_NEAR(LeanAngle(0.0, 0.0), 0.0, 1e-6);
}

// Posable dynamics: pose springs at the tips hold a limp strand near an animated pose; the
// static sag is about the weight over the pose strength.
TEST(StrandValidationTest, PoseSpringsHoldTheAnimatedPose) {
  StrandMaterial mat;
  mat.mass_per_length = 0.05;
  mat.bend_damping_x = mat.bend_damping_z = mat.twist_damping = 1e-4;
  StrandSimulation sim(Straight(5, 0.25, Vec3(1, 0, 0), mat));
  StrandStepInput input;
  input.art.pose = RestState(sim.model()).q;
  input.art.pose_strength = 200.0;
  input.art.pose_damping = 0.5;
  for (int k = 0; k < 600; ++k) ASSERT_TRUE(sim.Step(1.0 / 120.0, input).ok());
  const double drop = -sim.Points().back().y();
  // Each tip carries about one segment's weight: 0.0025 kg * 9.81 / 200 N/m ~ 0.12 mm.
  EXPECT_GT(drop, 0.0);
  EXPECT_LT(drop, 1e-3);
  input.art.pose_strength = 0.0;
  input.art.pose_damping = 0.0;
  for (int k = 0; k < 120; ++k) ASSERT_TRUE(sim.Step(1.0 / 120.0, input).ok());
  EXPECT_GT(-sim.Points().back().y(), 0.1);
}


// A soft strand (no bend or twist stiffness, a little damping and drag) of 100 segments of
// 1 cm, released 0.5 rad from the vertical, at dt = 1/60 s. Its zig-zag modes under tension
// are far faster than the step (about 2 sqrt(g L) / 1 cm ~ 600 rad/s at the root, h w ~ 10),
// so the Newton iterations converge only if the iteration matrix couples neighbouring joints
// through the tension (with each joint's own gravity load alone they never converged here:
// every step ran to the cap of 8). It stays finite, converges in a few iterations on
// average, and settles hanging straight down.
TEST(StrandValidationTest, SoftShortSegmentsHangingAtSixtyHertzSettle) {
  StrandMaterial mat;
  mat.mass_per_length = 0.01;
  mat.radius = 0.001;
  mat.bend_damping_x = mat.bend_damping_z = mat.twist_damping = 1e-6;
  mat.drag = 0.01;
  FreeStrand s(Straight(100, 1.0, Vec3(std::sin(0.5), -std::cos(0.5), 0), mat), 1.0 / 60.0);
  const int steps = 600;
  double newton = 0.0;
  for (int k = 0; k < steps; ++k) {
    s.Step();
    for (const Vec3& w : s.state_.w) ASSERT_TRUE(w.allFinite()) << k;
    newton += s.stepper_.iterations();
  }
  EXPECT_LT(newton / steps, 5.0);
  // Hanging straight down, within a centimetre, and still.
  const Vec3 tip = s.Tip();
  EXPECT_NEAR(tip.y(), -1.0, 0.01);
  EXPECT_NEAR(tip.x(), 0.0, 0.01);
  double fastest = 0.0;
  for (const Vec3& w : s.state_.w) fastest = std::max(fastest, w.norm());
  EXPECT_LT(fastest, 0.1);
}

}  // namespace
}  // namespace ligature
