// StrandSimulation: bad step input is rejected naming the field and leaves the state
// untouched; a step without anything to constrain equals the free implicit step.

#include "server/constraint/strand/strand_simulation.h"

#include <gtest/gtest.h>

#include <limits>
#include <string>

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

}  // namespace
}  // namespace ligature
