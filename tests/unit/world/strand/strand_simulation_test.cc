// StrandSimulation: bad step input is rejected naming the field and leaves the state
// untouched; a step without anything to constrain equals the free implicit step; a step
// whose implicit solve does not converge is taken as two halves on the base as it was at
// the half step, and that keeps a soft chain released far from rest bounded.

#include "server/world/strand/strand_simulation.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

#include "server/model/strand/energy.h"
#include "tests/unit/model/strand/test_strands.h"

namespace ligature {
namespace {

StrandSimulation MakeSim() {
  absl::StatusOr<StrandModel> model =
      StrandModel::Make(testing::StraightStrand(4, 0.2, Vec3(1, 0, 0), StrandMaterial{}));
  EXPECT_TRUE(model.ok());
  return StrandSimulation(*model);
}

TEST(StrandSimulationTest, RejectsBadInputNamingTheField) {
  StrandSimulation sim = MakeSim();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const auto expect = [&](double dt, const StrandStepInput& in, const std::string& field) {
    const absl::Status s = sim.Step(dt, in);
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << field;
    EXPECT_NE(s.message().find(field), std::string::npos) << s.message();
  };
  StrandStepInput in;
  expect(0.0, in, "dt");
  expect(nan, in, "dt");
  StrandStepInput base = in;
  base.base.linear_velocity.x() = nan;
  expect(0.01, base, "base");
  StrandStepInput point = in;
  point.constraints.points.push_back({7, Vec3::Zero(), Vec3::Zero(), Vec3::Zero(), Vec3::Zero()});
  expect(0.01, point, "points[0].segment");
  StrandStepInput curve = in;
  curve.constraints.curves.push_back({0, Vec3::Zero(), {Vec3::Zero()}});
  expect(0.01, curve, "curves[0].curve");
  StrandStepInput limit = in;
  limit.constraints.joint_limits.push_back({0, -0.1, 0.0});
  expect(0.01, limit, "joint_limits[0]");
  StrandStepInput obstacle = in;
  obstacle.obstacles.emplace_back();
  obstacle.obstacles[0].restitution = 2.0;
  expect(0.01, obstacle, "obstacles[0]");
  StrandStepInput pose = in;
  pose.art.pose.resize(2);
  expect(0.01, pose, "art.pose");
  for (const Quat& q : sim.state().q) EXPECT_TRUE(q.coeffs().allFinite());
  EXPECT_EQ(sim.state().q[0].coeffs(), RestState(sim.model()).q[0].coeffs());
}

TEST(StrandSimulationTest, UnconstrainedStepIsTheFreeImplicitStep) {
  StrandSimulation sim = MakeSim();
  const StrandState start = sim.state();
  StrandStepInput in;
  ASSERT_TRUE(sim.Step(0.01, in).ok());
  ImplicitStepper stepper;
  stepper.Solve(sim.model(), in.base, start, StrandStepForces{}, 0.01, ImplicitStepOptions{});
  for (int i = 0; i < sim.model().segments(); ++i) {
    EXPECT_LT((sim.state().w[i] - stepper.w_next()[i]).norm(), 1e-12);
  }
}

// A base moving with constant linear acceleration and constant angular velocity: its
// motion back in time is exactly what the split step assumes.
StrandBase MovingBase(double t) {
  StrandBase b;
  const Vec3 v0(0.3, 0.1, 0.0), a(-2.0, 1.0, 0.5), w(0.0, 0.0, 1.2);
  b.pose.position = v0 * t + 0.5 * a * t * t;
  b.pose.orientation = Quat(Eigen::AngleAxisd(w.norm() * t, w.normalized()));
  b.linear_velocity = v0 + a * t;
  b.linear_acceleration = a;
  b.angular_velocity = w;
  return b;
}

TEST(StrandSimulationTest, UnconvergedStepIsTakenAsTwoHalves) {
  // Nothing ever counts as converged: one step splits once (max_halvings 1), the other
  // simulation never splits and is stepped by hand over the two halves.
  StrandSimulationOptions split;
  split.newton.acceptable = 0.0;
  split.max_halvings = 1;
  StrandSimulationOptions whole = split;
  whole.max_halvings = 0;
  StrandSimulation a = MakeSim(), b = MakeSim();
  a.mutable_options() = split;
  b.mutable_options() = whole;
  const double dt = 0.01;
  for (int k = 1; k <= 5; ++k) {
    StrandStepInput end, half;
    end.base = MovingBase(k * dt);
    half.base = MovingBase((k - 0.5) * dt);
    ASSERT_TRUE(a.Step(dt, end).ok());
    EXPECT_EQ(a.stats().parts, 2);
    ASSERT_TRUE(b.Step(0.5 * dt, half).ok());
    ASSERT_TRUE(b.Step(0.5 * dt, end).ok());
  }
  for (int i = 0; i < a.model().segments(); ++i) {
    EXPECT_LT((a.state().w[i] - b.state().w[i]).norm(), 1e-9);
    EXPECT_LT((a.state().q[i].coeffs() - b.state().q[i].coeffs()).norm(), 1e-12);
  }
}

// An undamped soft chain of 20 light segments released horizontally, stepped at 60 Hz:
// the joints swing through large angles within a step. Its energy may only fall (backward
// Euler damps), and every joint speed stays that of a fall from its height.
TEST(StrandSimulationTest, SoftChainReleasedFarFromRestStaysBounded) {
  StrandMaterial m;
  m.mass_per_length = 0.002;
  m.radius = 0.0008;
  m.bend_rigidity_x = m.bend_rigidity_z = m.twist_rigidity = 2e-5;
  m.bend_damping_x = m.bend_damping_z = m.twist_damping = 0.0;
  m.drag = 0.0;
  absl::StatusOr<StrandModel> model =
      StrandModel::Make(testing::StraightStrand(20, 0.4, Vec3(1, 0, 0), m));
  ASSERT_TRUE(model.ok());
  StrandSimulation sim(*model);
  const Vec3 g = sim.options().gravity;
  const auto energy = [&] {
    return ComputeEnergy(sim.model(), sim.Kinematics(), sim.state(), g).total();
  };
  const double start = energy();
  int split_steps = 0;
  for (int k = 0; k < 120; ++k) {
    ASSERT_TRUE(sim.Step(1.0 / 60.0, StrandStepInput{}).ok());
    split_steps += sim.stats().parts > 1;
    EXPECT_LE(energy(), start + 1e-9) << "step " << k;
    for (const Vec3& w : sim.state().w) ASSERT_TRUE(w.allFinite());
  }
  // The fall releases at most m g L / 2 of potential energy: no joint can be faster than
  // a free fall from the chain's length would make it, over one segment's length.
  const double v_max = std::sqrt(2.0 * 9.81 * 0.4);
  for (const Vec3& w : sim.state().w) EXPECT_LT(w.norm(), 2.0 * v_max / 0.02);
  EXPECT_GT(split_steps, 0);
}

}  // namespace
}  // namespace ligature
