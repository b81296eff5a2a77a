#include "server/scene/constraint_proto.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "google/protobuf/util/message_differencer.h"

namespace ligature {
namespace {

using ::testing::StartsWith;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void SetVec3(v1::Vec3* v, double x, double y, double z) {
  v->set_x(x);
  v->set_y(y);
  v->set_z(z);
}

// A pose in the canonical form PoseToProto writes (every component set).
void SetPose(v1::Pose* p, const Vec3& position, const Quat& q) {
  SetVec3(p->mutable_position(), position.x(), position.y(), position.z());
  p->mutable_orientation()->set_x(q.x());
  p->mutable_orientation()->set_y(q.y());
  p->mutable_orientation()->set_z(q.z());
  p->mutable_orientation()->set_w(q.w());
}

// Orientations of the frames below: a quarter turn about z and a turn about x.
const Quat kQuarterZ(std::sqrt(0.5), 0.0, 0.0, std::sqrt(0.5));
const Quat kTurnX(0.8, 0.6, 0.0, 0.0);

void SetFrames(v1::JointFrames* f, const std::string& body_b) {
  f->set_body_a("arm");
  SetPose(f->mutable_frame_a(), Vec3(0.5, -0.25, 0.125), kQuarterZ);
  f->set_body_b(body_b);
  SetPose(f->mutable_frame_b(), Vec3(-1.0, 2.0, 0.75), kTurnX);
}

// One constraint of each kind, in canonical form.
v1::Constraint Point() {
  v1::Constraint c;
  c.set_id("ball");
  c.mutable_point()->set_body_a("arm");
  SetVec3(c.mutable_point()->mutable_anchor_a(), 0.0, 0.5, 0.0);
  c.mutable_point()->set_body_b("base");
  SetVec3(c.mutable_point()->mutable_anchor_b(), 0.25, -0.5, 1.0);
  return c;
}

v1::Constraint Hinge() {
  v1::Constraint c;
  c.set_id("elbow");
  SetFrames(c.mutable_hinge()->mutable_frames(), "base");
  c.mutable_hinge()->mutable_limits()->set_lower(-1.25);
  c.mutable_hinge()->mutable_limits()->set_upper(0.5);
  return c;
}

v1::Constraint Slider() {
  v1::Constraint c;
  c.set_id("rail");
  SetFrames(c.mutable_slider()->mutable_frames(), "");  // to the world
  c.mutable_slider()->mutable_limits()->set_lower(0.0);
  c.mutable_slider()->mutable_limits()->set_upper(2.5);
  return c;
}

v1::Constraint Fixed() {
  v1::Constraint c;
  c.set_id("weld");
  SetFrames(c.mutable_fixed()->mutable_frames(), "base");
  return c;
}

v1::Constraint Curve() {
  v1::Constraint c;
  c.set_id("wire");
  v1::CurveConstraint* curve = c.mutable_curve();
  curve->set_body("bead");
  SetVec3(curve->mutable_anchor(), 0.0, 0.1, 0.0);
  SetVec3(curve->add_points(), 0.0, 1.0, 0.0);
  SetVec3(curve->add_points(), 1.0, 1.0, 0.0);
  SetVec3(curve->add_points(), 1.0, 2.0, 0.5);
  curve->set_smooth(true);
  curve->set_friction(0.25);
  curve->set_end(v1::CURVE_END_RELEASE);
  return c;
}

// Joints with drives and break thresholds: a hinge motor, a slider spring, a ball joint
// with an orientation drive, and a 6-DOF drive.
v1::Constraint DrivenHinge() {
  v1::Constraint c = Hinge();
  v1::JointDrive* d = c.mutable_hinge()->mutable_drive();
  d->set_mode(v1::DRIVE_MODE_VELOCITY);
  d->set_target_velocity(1.5);
  d->set_max_force(20.0);
  c.set_break_torque(300.0);
  return c;
}

v1::Constraint SprungSlider() {
  v1::Constraint c = Slider();
  v1::JointDrive* d = c.mutable_slider()->mutable_drive();
  d->set_mode(v1::DRIVE_MODE_SPRING);
  d->set_target_position(0.75);
  d->set_stiffness(400.0);
  d->set_damping(12.0);
  c.set_break_force(1000.0);
  return c;
}

v1::Constraint DrivenBall() {
  v1::Constraint c = Point();
  v1::PointConstraint* p = c.mutable_point();
  p->mutable_orientation_drive()->set_mode(v1::DRIVE_MODE_SPRING);
  p->mutable_orientation_drive()->set_stiffness(50.0);
  p->mutable_orientation_drive()->set_damping(2.0);
  p->mutable_orientation_drive()->set_max_force(8.0);
  p->mutable_target_orientation()->set_x(kTurnX.x());
  p->mutable_target_orientation()->set_w(kTurnX.w());
  SetVec3(p->mutable_target_angular_velocity(), 0.0, 0.5, 0.0);
  return c;
}

v1::Constraint Grab() {
  v1::Constraint c;
  c.set_id("grab");
  SetFrames(c.mutable_drive()->mutable_frames(), "");
  c.mutable_drive()->mutable_linear()->set_mode(v1::DRIVE_MODE_SPRING);
  c.mutable_drive()->mutable_linear()->set_stiffness(2000.0);
  c.mutable_drive()->mutable_linear()->set_damping(60.0);
  c.mutable_drive()->mutable_linear()->set_max_force(400.0);
  c.mutable_drive()->mutable_angular()->set_mode(v1::DRIVE_MODE_VELOCITY);
  return c;
}

::testing::AssertionResult SameMessage(const v1::Constraint& a, const v1::Constraint& b) {
  google::protobuf::util::MessageDifferencer diff;
  diff.set_float_comparison(google::protobuf::util::MessageDifferencer::APPROXIMATE);
  std::string report;
  diff.ReportDifferencesToString(&report);
  if (diff.Compare(a, b)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << report;
}

void ExpectTransformNear(const Transform& actual, const Vec3& position, const Quat& orientation) {
  EXPECT_LT((actual.position - position).norm(), 1e-15) << actual.position.transpose();
  EXPECT_LT(actual.orientation.angularDistance(orientation), 1e-12);
}

// ---------------------------------------------------------------------------------------
// Each kind converts to the engine description and back unchanged.

// ConstraintToProto(ConstraintFromProto(x)) == x for every kind.
TEST(ConstraintProtoTest, EveryKindRoundTrips) {
  for (const v1::Constraint& x : {Point(), Hinge(), Slider(), Fixed(), Curve(), DrivenHinge(),
                                  SprungSlider(), DrivenBall(), Grab()}) {
    SCOPED_TRACE(x.id());
    auto desc = ConstraintFromProto(x, "c");
    ASSERT_TRUE(desc.ok()) << desc.status();
    EXPECT_EQ(desc->id, x.id());
    EXPECT_TRUE(SameMessage(ConstraintToProto(*desc), x));
  }
}

// A point constraint is a ball joint with the anchors as frame positions.
TEST(ConstraintProtoTest, PointIsBallJoint) {
  auto d = ConstraintFromProto(Point(), "c");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->params.kind, JointKind::kBall);
  EXPECT_FALSE(d->params.limited);
  EXPECT_EQ(d->body_a, "arm");
  EXPECT_EQ(d->body_b, "base");
  ExpectTransformNear(d->frame_a, Vec3(0.0, 0.5, 0.0), Quat::Identity());
  ExpectTransformNear(d->frame_b, Vec3(0.25, -0.5, 1.0), Quat::Identity());
  // Anchored to the world: body_b empty, anchor_b a world point.
  v1::Constraint world = Point();
  world.mutable_point()->clear_body_b();
  d = ConstraintFromProto(world, "c");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->body_b.empty());
  EXPECT_TRUE(SameMessage(ConstraintToProto(*d), world));
}

// Hinge, slider and fixed joints keep both frames and their limits.
TEST(ConstraintProtoTest, FramedJointsKeepFramesAndLimits) {
  auto hinge = ConstraintFromProto(Hinge(), "c");
  ASSERT_TRUE(hinge.ok()) << hinge.status();
  EXPECT_EQ(hinge->params.kind, JointKind::kHinge);
  EXPECT_TRUE(hinge->params.limited);
  EXPECT_EQ(hinge->params.lower, -1.25);
  EXPECT_EQ(hinge->params.upper, 0.5);
  EXPECT_EQ(hinge->body_a, "arm");
  EXPECT_EQ(hinge->body_b, "base");
  ExpectTransformNear(hinge->frame_a, Vec3(0.5, -0.25, 0.125), kQuarterZ);
  ExpectTransformNear(hinge->frame_b, Vec3(-1.0, 2.0, 0.75), kTurnX);

  auto slider = ConstraintFromProto(Slider(), "c");
  ASSERT_TRUE(slider.ok()) << slider.status();
  EXPECT_EQ(slider->params.kind, JointKind::kSlider);
  EXPECT_TRUE(slider->params.limited);
  EXPECT_EQ(slider->params.lower, 0.0);
  EXPECT_EQ(slider->params.upper, 2.5);
  EXPECT_TRUE(slider->body_b.empty());

  auto fixed = ConstraintFromProto(Fixed(), "c");
  ASSERT_TRUE(fixed.ok()) << fixed.status();
  EXPECT_EQ(fixed->params.kind, JointKind::kFixed);
  EXPECT_FALSE(fixed->params.limited);
  ExpectTransformNear(fixed->frame_b, Vec3(-1.0, 2.0, 0.75), kTurnX);
}

// Without limits a hinge or slider is unlimited, and writes no limits back; equal limits
// (a locked joint) are allowed.
TEST(ConstraintProtoTest, LimitsAreOptional) {
  for (v1::Constraint x : {Hinge(), Slider()}) {
    SCOPED_TRACE(x.id());
    if (x.has_hinge()) x.mutable_hinge()->clear_limits();
    if (x.has_slider()) x.mutable_slider()->clear_limits();
    auto d = ConstraintFromProto(x, "c");
    ASSERT_TRUE(d.ok()) << d.status();
    EXPECT_FALSE(d->params.limited);
    const v1::Constraint back = ConstraintToProto(*d);
    EXPECT_FALSE(back.hinge().has_limits());
    EXPECT_FALSE(back.slider().has_limits());
    EXPECT_TRUE(SameMessage(back, x));
  }
  v1::Constraint locked = Hinge();
  locked.mutable_hinge()->mutable_limits()->set_lower(0.5);
  auto d = ConstraintFromProto(locked, "c");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->params.lower, d->params.upper);
}

// A curve constraint names its body as B with the anchor as frame_b's position; the
// points, smoothing, friction and end behaviour are kept; an unspecified end is a stop.
TEST(ConstraintProtoTest, CurveFields) {
  auto d = ConstraintFromProto(Curve(), "c");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->params.kind, JointKind::kCurve);
  EXPECT_TRUE(d->body_a.empty());
  EXPECT_EQ(d->body_b, "bead");
  ExpectTransformNear(d->frame_b, Vec3(0.0, 0.1, 0.0), Quat::Identity());
  ASSERT_EQ(d->params.curve.size(), 3u);
  EXPECT_EQ(d->params.curve[0], Vec3(0.0, 1.0, 0.0));
  EXPECT_EQ(d->params.curve[2], Vec3(1.0, 2.0, 0.5));
  EXPECT_TRUE(d->params.smooth);
  EXPECT_EQ(d->params.friction, 0.25);
  EXPECT_EQ(d->params.curve_end, CurveEnd::kRelease);

  v1::Constraint unspecified = Curve();
  unspecified.mutable_curve()->set_end(v1::CURVE_END_UNSPECIFIED);
  d = ConstraintFromProto(unspecified, "c");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->params.curve_end, CurveEnd::kStop);
  EXPECT_EQ(ConstraintToProto(*d).curve().end(), v1::CURVE_END_STOP);
  // Two points are enough.
  v1::Constraint two = Curve();
  two.mutable_curve()->mutable_points()->RemoveLast();
  EXPECT_TRUE(ConstraintFromProto(two, "c").ok());
}

// An empty id is left for the world to choose.
TEST(ConstraintProtoTest, EmptyIdIsKept) {
  v1::Constraint x = Hinge();
  x.clear_id();
  auto d = ConstraintFromProto(x, "c");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_TRUE(d->id.empty());
}

// ---------------------------------------------------------------------------------------
// Errors are INVALID_ARGUMENT and name the offending field under the given prefix.

void ExpectInvalid(v1::Constraint x, const std::function<void(v1::Constraint&)>& mutate,
                   const std::string& field) {
  ASSERT_TRUE(ConstraintFromProto(x, "constraints[2]").ok());
  mutate(x);
  auto out = ConstraintFromProto(x, "constraints[2]");
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << field;
  EXPECT_THAT(std::string(out.status().message()), StartsWith(field + ":")) << out.status();
}

// Limits must be finite with lower <= upper.
TEST(ConstraintProtoErrorsTest, BadLimits) {
  ExpectInvalid(
      Hinge(),
      [](v1::Constraint& c) {
        c.mutable_hinge()->mutable_limits()->set_lower(1.0);
        c.mutable_hinge()->mutable_limits()->set_upper(-1.0);
      },
      "constraints[2].hinge.limits");
  ExpectInvalid(
      Slider(), [](v1::Constraint& c) { c.mutable_slider()->mutable_limits()->set_lower(3.0); },
      "constraints[2].slider.limits");
  ExpectInvalid(
      Hinge(), [](v1::Constraint& c) { c.mutable_hinge()->mutable_limits()->set_upper(kNaN); },
      "constraints[2].hinge.limits");
}

// Drives need a known mode, finite gains >= 0 (a spring not without both), a maximum > 0 and
// finite targets; break thresholds are > 0 and only for joints between rigid bodies.
TEST(ConstraintProtoErrorsTest, BadDrives) {
  ExpectInvalid(
      DrivenHinge(),
      [](v1::Constraint& c) {
        c.mutable_hinge()->mutable_drive()->set_mode(v1::DRIVE_MODE_UNSPECIFIED);
      },
      "constraints[2].hinge.drive.mode");
  ExpectInvalid(
      SprungSlider(),
      [](v1::Constraint& c) { c.mutable_slider()->mutable_drive()->set_stiffness(-1.0); },
      "constraints[2].slider.drive.stiffness");
  ExpectInvalid(
      SprungSlider(),
      [](v1::Constraint& c) {
        c.mutable_slider()->mutable_drive()->set_stiffness(0.0);
        c.mutable_slider()->mutable_drive()->set_damping(0.0);
      },
      "constraints[2].slider.drive.stiffness");
  ExpectInvalid(
      DrivenHinge(),
      [](v1::Constraint& c) { c.mutable_hinge()->mutable_drive()->set_max_force(0.0); },
      "constraints[2].hinge.drive.max_force");
  ExpectInvalid(
      DrivenHinge(),
      [](v1::Constraint& c) { c.mutable_hinge()->mutable_drive()->set_target_velocity(kNaN); },
      "constraints[2].hinge.drive.target_velocity");
  ExpectInvalid(
      DrivenBall(),
      [](v1::Constraint& c) { c.mutable_point()->mutable_target_orientation()->set_w(2.0); },
      "constraints[2].point.target_orientation");
  ExpectInvalid(
      DrivenBall(),
      [](v1::Constraint& c) {
        c.mutable_point()->mutable_orientation_drive()->set_damping(kNaN);
      },
      "constraints[2].point.orientation_drive.damping");
  ExpectInvalid(
      Grab(),
      [](v1::Constraint& c) {
        c.mutable_drive()->clear_linear();
        c.mutable_drive()->clear_angular();
      },
      "constraints[2].drive");
  ExpectInvalid(
      Grab(), [](v1::Constraint& c) { c.set_break_force(-5.0); }, "constraints[2].break_force");
  ExpectInvalid(
      Curve(), [](v1::Constraint& c) { c.set_break_torque(5.0); },
      "constraints[2].break_torque");
}

// A curve needs 2 or more points, none repeating its predecessor, a known end and a
// friction >= 0.
TEST(ConstraintProtoErrorsTest, BadCurve) {
  ExpectInvalid(
      Curve(),
      [](v1::Constraint& c) {
        c.mutable_curve()->mutable_points()->DeleteSubrange(1, 2);  // one point left
      },
      "constraints[2].curve.points");
  ExpectInvalid(
      Curve(), [](v1::Constraint& c) { c.mutable_curve()->clear_points(); },
      "constraints[2].curve.points");
  ExpectInvalid(
      Curve(),
      [](v1::Constraint& c) { *c.mutable_curve()->mutable_points(2) = c.curve().points(1); },
      "constraints[2].curve.points[2]");
  ExpectInvalid(
      Curve(),
      [](v1::Constraint& c) { *c.mutable_curve()->mutable_points(1) = c.curve().points(0); },
      "constraints[2].curve.points[1]");
  ExpectInvalid(
      Curve(),
      [](v1::Constraint& c) { c.mutable_curve()->set_end(static_cast<v1::CurveEnd>(7)); },
      "constraints[2].curve.end");
  ExpectInvalid(
      Curve(), [](v1::Constraint& c) { c.mutable_curve()->set_friction(-0.5); },
      "constraints[2].curve.friction");
  ExpectInvalid(
      Curve(), [](v1::Constraint& c) { c.mutable_curve()->mutable_points(1)->set_y(kNaN); },
      "constraints[2].curve.points[1].y");
  ExpectInvalid(
      Curve(), [](v1::Constraint& c) { c.mutable_curve()->mutable_anchor()->set_x(2e6); },
      "constraints[2].curve.anchor");
}

// Body ids are required where a body is (A of a joint, the body of a curve) and must be
// well formed; B may be empty (the world) but not malformed.
TEST(ConstraintProtoErrorsTest, MissingOrBadBody) {
  ExpectInvalid(
      Hinge(), [](v1::Constraint& c) { c.mutable_hinge()->mutable_frames()->clear_body_a(); },
      "constraints[2].hinge.frames.body_a");
  ExpectInvalid(
      Slider(), [](v1::Constraint& c) { c.mutable_slider()->mutable_frames()->clear_body_a(); },
      "constraints[2].slider.frames.body_a");
  ExpectInvalid(
      Fixed(),
      [](v1::Constraint& c) { c.mutable_fixed()->mutable_frames()->set_body_b("Base!"); },
      "constraints[2].fixed.frames.body_b");
  ExpectInvalid(
      Curve(), [](v1::Constraint& c) { c.mutable_curve()->clear_body(); },
      "constraints[2].curve.body");
  ExpectInvalid(
      Point(), [](v1::Constraint& c) { c.mutable_point()->clear_body_a(); },
      "constraints[2].point.body_a");
  ExpectInvalid(
      Point(), [](v1::Constraint& c) { c.set_id("Elbow"); }, "constraints[2].id");
  ExpectInvalid(
      Point(), [](v1::Constraint& c) { c.clear_point(); }, "constraints[2]");
}

// Frames must be valid poses; the path names the frame.
TEST(ConstraintProtoErrorsTest, BadFrames) {
  ExpectInvalid(
      Hinge(),
      [](v1::Constraint& c) {
        c.mutable_hinge()->mutable_frames()->mutable_frame_a()->mutable_orientation()->set_w(2.0);
      },
      "constraints[2].hinge.frames.frame_a.orientation");
  ExpectInvalid(
      Fixed(),
      [](v1::Constraint& c) {
        c.mutable_fixed()->mutable_frames()->mutable_frame_b()->mutable_position()->set_z(kNaN);
      },
      "constraints[2].fixed.frames.frame_b.position.z");
}

// A point constraint's anchors are named by the point constraint's own fields.
TEST(ConstraintProtoErrorsTest, BadPointAnchorNamesAnchorField) {
  ExpectInvalid(
      Point(), [](v1::Constraint& c) { c.mutable_point()->mutable_anchor_a()->set_y(kNaN); },
      "constraints[2].point.anchor_a.y");
  ExpectInvalid(
      Point(), [](v1::Constraint& c) { c.mutable_point()->mutable_anchor_b()->set_x(-3e6); },
      "constraints[2].point.anchor_b");
}

}  // namespace
}  // namespace ligature
