#include "server/scene/constraint_update.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <numbers>
#include <string>

namespace ligature {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A hinge with a spring drive, limits and a break force, as the world describes it.
ConstraintDesc Hinge() {
  ConstraintDesc c;
  c.id = "elbow";
  c.params.kind = JointKind::kHinge;
  c.params.axis_drive = {DriveMode::kSpring, 40.0, 2.0, 9.0};
  c.params.target_position = 0.25;
  c.params.limited = true;
  c.params.lower = -1.0;
  c.params.upper = 1.0;
  c.params.break_force = 500.0;
  c.body_a = "arm";
  c.body_b = "base";
  return c;
}

ConstraintDesc Ball() {
  ConstraintDesc c;
  c.id = "shoulder";
  c.params.kind = JointKind::kBall;
  c.params.angular_drive = {DriveMode::kSpring, 10.0, 1.0};
  c.body_a = "arm";
  return c;
}

ConstraintDesc Grab() {
  ConstraintDesc c;
  c.id = "grab";
  c.params.kind = JointKind::kDrive;
  c.params.linear_drive = {DriveMode::kSpring, 1000.0, 50.0};
  c.body_a = "cup";
  return c;
}

google::protobuf::FieldMask Mask(std::initializer_list<const char*> paths) {
  google::protobuf::FieldMask m;
  for (const char* p : paths) m.add_paths(p);
  return m;
}

absl::StatusOr<ConstraintDesc> Update(const ConstraintDesc& current, const v1::Constraint& from,
                                      std::initializer_list<const char*> paths) {
  return UpdatedConstraint(current, from, Mask(paths), "constraint", "update_mask");
}

void ExpectInvalid(const absl::Status& s, const std::string& field) {
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << s;
  EXPECT_THAT(std::string(s.message()), StartsWith(field + ":")) << s;
}

// A target path changes that target alone; the drive's gains, the limits and the break
// force stay.
TEST(ConstraintUpdateTest, TargetPathChangesOnlyTheTarget) {
  v1::Constraint from;
  from.mutable_hinge()->mutable_drive()->set_target_position(-0.5);
  from.mutable_hinge()->mutable_drive()->set_stiffness(999.0);  // not masked
  auto updated = Update(Hinge(), from, {"hinge.drive.target_position"});
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->id, "elbow");
  EXPECT_EQ(updated->params.target_position, -0.5);
  EXPECT_EQ(updated->params.axis_drive.stiffness, 40.0);
  EXPECT_EQ(updated->params.axis_drive.max_force, 9.0);
  EXPECT_TRUE(updated->params.limited);
  EXPECT_EQ(updated->params.break_force, 500.0);
  EXPECT_EQ(updated->body_a, "arm");
}

// A message path replaces the message; unset, it switches the drive off or clears the
// limits and the break force.
TEST(ConstraintUpdateTest, MessagePathsReplaceOrClear) {
  v1::Constraint from;
  v1::JointDrive* motor = from.mutable_hinge()->mutable_drive();
  motor->set_mode(v1::DRIVE_MODE_VELOCITY);
  motor->set_target_velocity(3.0);
  auto updated = Update(Hinge(), from, {"hinge.drive", "hinge.limits", "break_force"});
  ASSERT_TRUE(updated.ok()) << updated.status();
  EXPECT_EQ(updated->params.axis_drive.mode, DriveMode::kVelocity);
  EXPECT_EQ(updated->params.target_velocity, 3.0);
  EXPECT_TRUE(std::isinf(updated->params.axis_drive.max_force));
  EXPECT_FALSE(updated->params.limited);
  EXPECT_TRUE(std::isinf(updated->params.break_force));
  auto off = Update(Hinge(), v1::Constraint(), {"hinge.drive"});
  ASSERT_TRUE(off.ok()) << off.status();
  EXPECT_FALSE(off->params.axis_drive.on());
}

// The grab's target frame and a ball joint's target orientation move through their paths.
TEST(ConstraintUpdateTest, FramesAndOrientationsMove) {
  v1::Constraint from;
  v1::Pose* pose = from.mutable_drive()->mutable_frames()->mutable_frame_b();
  pose->mutable_position()->set_y(1.5);
  auto grab = Update(Grab(), from, {"drive.frames.frame_b"});
  ASSERT_TRUE(grab.ok()) << grab.status();
  EXPECT_EQ(grab->frame_b.position, Vec3(0, 1.5, 0));
  v1::Constraint turn;
  turn.mutable_point()->mutable_target_orientation()->set_z(std::sqrt(0.5));
  turn.mutable_point()->mutable_target_orientation()->set_w(std::sqrt(0.5));
  auto ball = Update(Ball(), turn, {"point.target_orientation"});
  ASSERT_TRUE(ball.ok()) << ball.status();
  EXPECT_NEAR(ball->params.target_orientation.angularDistance(
                  Quat(Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitZ()))),
              0.0, 1e-12);
}

// Unknown paths, another kind's paths and bad values are refused by name.
TEST(ConstraintUpdateTest, BadUpdatesNameTheirField) {
  ExpectInvalid(CheckConstraintMask(Mask({}), "update_mask"), "update_mask");
  ExpectInvalid(CheckConstraintMask(Mask({"hinge.drive", "hinge.frames"}), "update_mask"),
                "update_mask.paths[1]");
  auto other_kind = Update(Hinge(), v1::Constraint(), {"break_torque", "slider.drive"});
  ExpectInvalid(other_kind.status(), "update_mask.paths[1]");
  EXPECT_THAT(std::string(other_kind.status().message()), HasSubstr("is a hinge"));
  v1::Constraint bad;
  bad.mutable_hinge()->mutable_drive()->set_target_position(
      std::numeric_limits<double>::quiet_NaN());
  ExpectInvalid(Update(Hinge(), bad, {"hinge.drive.target_position"}).status(),
                "constraint.hinge.drive.target_position");
  ConstraintDesc curve;
  curve.id = "wire";
  curve.params.kind = JointKind::kCurve;
  EXPECT_EQ(Update(curve, bad, {"break_force"}).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

// A drive target sets the fields of its joint's kind and refuses another kind's.
TEST(ConstraintUpdateTest, DriveTargetsRetargetTheirKindOnly) {
  v1::DriveTarget t;
  t.set_constraint_id("elbow");
  t.set_target_position(0.75);
  t.set_target_velocity(-1.0);
  auto hinge = RetargetedConstraint(Hinge(), t, "drive_targets[0]");
  ASSERT_TRUE(hinge.ok()) << hinge.status();
  EXPECT_EQ(hinge->params.target_position, 0.75);
  EXPECT_EQ(hinge->params.target_velocity, -1.0);
  EXPECT_EQ(hinge->params.axis_drive.stiffness, 40.0);

  v1::DriveTarget move;
  move.mutable_frame_b()->mutable_position()->set_x(2.0);
  auto grab = RetargetedConstraint(Grab(), move, "drive_targets[1]");
  ASSERT_TRUE(grab.ok()) << grab.status();
  EXPECT_EQ(grab->frame_b.position, Vec3(2, 0, 0));

  ExpectInvalid(RetargetedConstraint(Ball(), t, "drive_targets[0]").status(),
                "drive_targets[0].target_position");
  ExpectInvalid(RetargetedConstraint(Hinge(), move, "drive_targets[1]").status(),
                "drive_targets[1].frame_b");
  v1::DriveTarget nan = t;
  nan.set_target_velocity(std::numeric_limits<double>::infinity());
  ExpectInvalid(RetargetedConstraint(Hinge(), nan, "drive_targets[2]").status(),
                "drive_targets[2].target_velocity");
}

}  // namespace
}  // namespace ligature
