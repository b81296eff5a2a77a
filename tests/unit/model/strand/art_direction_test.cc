// Art direction helpers: eq. 19's scaling of the base motion, pose targets, base motion
// from pose samples (exact for cubic paths and uniform spins), zero-gravity rest shape
// failures.

#include "server/model/strand/art_direction.h"

#include <gtest/gtest.h>

#include <cmath>

#include "tests/unit/model/strand/test_strands.h"

namespace ligature {
namespace {

TEST(ArtDirectionTest, ScaleBaseMotionFollowsEquation19) {
  StrandBase base;
  base.pose.position = Vec3(1, 2, 3);
  base.pose.orientation = Quat(Eigen::AngleAxisd(0.3, Vec3::UnitZ()));
  base.angular_velocity = Vec3(0.1, 0.2, 0.3);
  base.linear_velocity = Vec3(1, 0, -1);
  base.angular_acceleration = Vec3(0.5, 0, 0);
  base.linear_acceleration = Vec3(0, 3, 0);
  // Scaling by beta scales the spatial vectors.
  const StrandBase half = ScaleBaseMotion(base, nullptr, 0.5, 1.0);
  EXPECT_LT((half.SpatialVelocity() - 0.5 * base.SpatialVelocity()).norm(), 1e-12);
  EXPECT_LT((half.SpatialAcceleration() - 0.5 * base.SpatialAcceleration()).norm(), 1e-12);
  // Removing the motion of a reference frame rigidly moving with the base leaves nothing.
  StrandBase ref = base;
  ref.pose.position += Vec3(0.2, -0.4, 0.1);
  const Vec3 r = ref.pose.position - base.pose.position;
  ref.linear_velocity = base.linear_velocity + base.angular_velocity.cross(r);
  ref.linear_acceleration = base.linear_acceleration + base.angular_acceleration.cross(r) +
                            base.angular_velocity.cross(base.angular_velocity.cross(r));
  const StrandBase local = ScaleBaseMotion(base, &ref, 1.0, 1.0);
  EXPECT_LT(local.SpatialVelocity().norm(), 1e-12);
  EXPECT_LT(local.SpatialAcceleration().norm(), 1e-12);
}

TEST(ArtDirectionTest, BaseHistoryIsExactForCubicPathsAndUniformSpin) {
  const auto position = [](double t) { return Vec3(t * t * t - t, 2 * t * t, 0.5 * t); };
  const auto velocity = [](double t) { return Vec3(3 * t * t - 1, 4 * t, 0.5); };
  const auto accel = [](double t) { return Vec3(6 * t, 4, 0); };
  const Vec3 axis = Vec3(1, 2, 2).normalized();
  const double spin = 1.5;  // rad/s
  BasePoseHistory history;
  EXPECT_FALSE(history.At(0.0).ok());
  for (int k = 0; k < 6; ++k) {
    const double t = 0.02 * k;
    ASSERT_TRUE(history.Push(t, Transform{position(t), Quat(Eigen::AngleAxisd(spin * t, axis))}).ok());
  }
  EXPECT_EQ(history.Push(0.0, Transform{}).code(), absl::StatusCode::kInvalidArgument);
  const double t = 0.085;
  const absl::StatusOr<StrandBase> base = history.At(t);
  ASSERT_TRUE(base.ok());
  EXPECT_LT((base->pose.position - position(t)).norm(), 1e-12);
  EXPECT_LT((base->linear_velocity - velocity(t)).norm(), 1e-7);
  EXPECT_LT((base->linear_acceleration - accel(t)).norm(), 1e-3);
  EXPECT_LT((base->angular_velocity - spin * axis).norm(), 1e-7);
  EXPECT_LT(base->angular_acceleration.norm(), 1e-3);
}

TEST(ArtDirectionTest, ZeroGravityRestShapeNeedsStiffness) {
  StrandMaterial limp;
  StrandDesc desc = testing::StraightStrand(3, 0.3, Vec3(1, 0, 0), limp);
  absl::StatusOr<StrandModel> model = StrandModel::Make(desc);
  ASSERT_TRUE(model.ok());
  const absl::Status s = ApplyZeroGravityRestShape(&*model, Transform{}, Vec3(0, -9.81, 0));
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(s.message().find("joint 0"), std::string::npos);
  // Hanging straight down needs no torque at all: fine even without stiffness.
  StrandDesc down = testing::StraightStrand(3, 0.3, Vec3(0, -1, 0), limp);
  absl::StatusOr<StrandModel> hanging = StrandModel::Make(down);
  ASSERT_TRUE(hanging.ok());
  EXPECT_TRUE(ApplyZeroGravityRestShape(&*hanging, Transform{}, Vec3(0, -9.81, 0)).ok());
}

TEST(ArtDirectionTest, PoseTargetsAreTheTipsOfThePose) {
  StrandDesc desc = testing::StraightStrand(2, 0.2, Vec3(0, -1, 0), StrandMaterial{});
  absl::StatusOr<StrandModel> model = StrandModel::Make(desc);
  ASSERT_TRUE(model.ok());
  StrandBase base;
  base.angular_velocity = Vec3(0, 0, 2.0);
  std::vector<Quat> pose = RestState(*model).q;
  pose[0] = pose[0] * Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()));
  std::vector<Vec3> p, v;
  PoseTargets(*model, base, pose, &p, &v);
  EXPECT_LT((p[1] - Vec3(0.2, 0, 0)).norm(), 1e-12);
  EXPECT_LT((v[1] - Vec3(0, 0.4, 0)).norm(), 1e-12);
}

}  // namespace
}  // namespace ligature
