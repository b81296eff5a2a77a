// Strand messages: a full strand converts to the engine description and back unchanged;
// every bad value is INVALID_ARGUMENT naming its field path. Strand constraints likewise.

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "server/scene/scene_proto.h"
#include "server/scene/strand_proto.h"

namespace ligature {
namespace {

v1::Strand Fork() {
  v1::Strand s;
  for (const Vec3& p : {Vec3(0, 0, 0), Vec3(0, -0.1, 0), Vec3(0.05, -0.2, 0),
                        Vec3(-0.05, -0.2, 0)}) {
    Vec3ToProto(p, s.add_points());
  }
  for (int p : {-1, 0, 0}) s.add_parents(p);
  for (int i = 0; i < 3; ++i) {
    v1::StrandMaterial* m = s.add_segment_materials();
    m->set_mass_per_length(0.01 * (i + 1));
    m->set_radius(0.001);
    m->set_bend_stiffness_x(1e-3);
    m->set_bend_stiffness_y(2e-3);
    m->set_bend_damping(1e-5);
    m->set_twist_stiffness(5e-4);
    m->set_twist_damping(2e-5);
    m->set_air_drag(0.01);
  }
  s.set_time_scale(0.5);
  s.set_local_dynamics(0.25);
  s.set_local_dynamics_body("hips");
  s.set_pose_strength(2.0);
  s.set_pose_damping(0.1);
  s.set_zero_gravity_rest_shape(true);
  s.set_follow_body("head");
  s.set_friction(0.4);
  s.set_restitution(0.1);
  return s;
}

TEST(StrandProtoTest, RoundTripsEveryField) {
  const Transform pose{Vec3(0, 0.1, 0), Quat::Identity()};
  absl::StatusOr<StrandBodyDesc> d = StrandFromProto(Fork(), pose, "strand");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->strand.points.size(), 4u);
  EXPECT_EQ(d->strand.parents, (std::vector<int>{-1, 0, 0}));
  ASSERT_EQ(d->strand.materials.size(), 3u);
  EXPECT_EQ(d->strand.materials[2].mass_per_length, 0.03);
  EXPECT_EQ(d->strand.materials[0].bend_rigidity_z, 2e-3);
  EXPECT_EQ(d->strand.materials[0].bend_damping_z, 1e-5);
  EXPECT_EQ(d->time_scale, 0.5);
  EXPECT_EQ(d->follow_body, "head");
  EXPECT_EQ(d->pose.position, pose.position);
  v1::Strand back;
  StrandToProto(*d, &back);
  EXPECT_EQ(back.SerializeAsString(), Fork().SerializeAsString());

  // Defaults: one material, time scale 1, friction 0.3.
  v1::Strand plain;
  Vec3ToProto(Vec3::Zero(), plain.add_points());
  Vec3ToProto(Vec3(0, -0.1, 0), plain.add_points());
  d = StrandFromProto(plain, Transform{}, "strand");
  ASSERT_TRUE(d.ok()) << d.status();
  EXPECT_EQ(d->strand.materials.size(), 1u);
  EXPECT_EQ(d->strand.materials[0].mass_per_length, 0.01);
  EXPECT_EQ(d->time_scale, 1.0);
  EXPECT_EQ(d->friction, 0.3);
}

TEST(StrandProtoTest, BadValuesNameTheirField) {
  auto expect = [](const v1::Strand& s, const std::string& field) {
    absl::StatusOr<StrandBodyDesc> d = StrandFromProto(s, Transform{}, "bodies[0].strand");
    ASSERT_FALSE(d.ok()) << field;
    EXPECT_EQ(d.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_NE(d.status().message().find(field), std::string::npos) << d.status();
  };
  v1::Strand s = Fork();
  s.mutable_points(3)->set_x(std::nan(""));
  expect(s, "bodies[0].strand.points[3].x");
  s = Fork();
  *s.mutable_points(3) = s.points(1);  // segment 2 has no length
  expect(s, "bodies[0].strand.points[3]");
  s = Fork();
  s.clear_points();
  Vec3ToProto(Vec3::Zero(), s.add_points());
  expect(s, "bodies[0].strand.points");
  s = Fork();
  s.set_parents(2, 2);
  expect(s, "bodies[0].strand.parents[2]");
  s = Fork();
  s.add_parents(0);
  expect(s, "bodies[0].strand.parents");
  s = Fork();
  s.mutable_segment_materials(1)->set_radius(0.0);
  expect(s, "bodies[0].strand.segment_materials[1].radius");
  s = Fork();
  s.mutable_segment_materials(2)->set_twist_damping(-1.0);
  expect(s, "bodies[0].strand.segment_materials[2].twist_damping");
  s = Fork();
  s.mutable_segment_materials()->RemoveLast();
  expect(s, "bodies[0].strand.segment_materials");
  s = Fork();
  s.clear_segment_materials();
  s.mutable_material()->set_air_drag(std::nan(""));
  expect(s, "bodies[0].strand.material.air_drag");
  s = Fork();
  s.set_time_scale(-1.0);
  expect(s, "bodies[0].strand.time_scale");
  s = Fork();
  s.set_local_dynamics(2.0);
  expect(s, "bodies[0].strand.local_dynamics");
  s = Fork();
  s.set_local_dynamics_body("Hips!");
  expect(s, "bodies[0].strand.local_dynamics_body");
  s = Fork();
  s.set_pose_strength(-2.0);
  expect(s, "bodies[0].strand.pose_strength");
  s = Fork();
  s.set_follow_body("Head");
  expect(s, "bodies[0].strand.follow_body");
  s = Fork();
  s.set_friction(-0.1);
  expect(s, "bodies[0].strand.friction");
  s = Fork();
  s.set_restitution(1.5);
  expect(s, "bodies[0].strand.restitution");
}

// Through a Body: the body's pose is the base frame, and it comes back on export.
TEST(StrandProtoTest, BodyCarriesTheBasePose) {
  v1::Body b;
  b.set_id("hair");
  *b.mutable_strand() = Fork();
  b.mutable_pose()->mutable_position()->set_y(0.1);
  absl::StatusOr<BodyDesc> d = BodyFromProto(b, "body");
  ASSERT_TRUE(d.ok()) << d.status();
  ASSERT_TRUE(d->strand() != nullptr);
  EXPECT_EQ(d->strand()->pose.position.y(), 0.1);
  const v1::Body back = BodyToProto(*d);
  EXPECT_TRUE(back.has_strand());
  EXPECT_EQ(back.pose().position().y(), 0.1);
  b.mutable_pose()->mutable_orientation()->set_w(2.0);
  EXPECT_NE(BodyFromProto(b, "body").status().message().find("body.pose.orientation"),
            std::string::npos);
}

// Each kind of strand constraint converts to the engine description and back unchanged.
TEST(StrandProtoTest, ConstraintsRoundTrip) {
  std::vector<v1::StrandConstraint> all(4);
  for (v1::StrandConstraint& c : all) {
    c.set_body("hair");
    c.set_segment(3);
    Vec3ToProto(Vec3(0, 0.01, 0), c.mutable_point());
  }
  all[0].set_kind(v1::STRAND_CONSTRAINT_KIND_POINT);
  Vec3ToProto(Vec3(0.1, 0.2, 0.3), all[0].mutable_target());
  all[0].set_follow_body("hand");
  all[1].set_kind(v1::STRAND_CONSTRAINT_KIND_CURVE);
  Vec3ToProto(Vec3(0, 0, 0), all[1].add_curve());
  Vec3ToProto(Vec3(1, 0, 0), all[1].add_curve());
  all[2].set_kind(v1::STRAND_CONSTRAINT_KIND_JOINT_VALUE);
  all[2].mutable_joint()->set_z(1.0);  // a half turn about z, exact in binary
  all[3].set_kind(v1::STRAND_CONSTRAINT_KIND_JOINT_LIMIT);
  all[3].set_max_bend(0.4);
  all[3].set_margin(0.02);
  for (const v1::StrandConstraint& c : all) {
    absl::StatusOr<StrandConstraintDesc> desc = StrandConstraintFromProto(c, "c");
    ASSERT_TRUE(desc.ok()) << desc.status();
    v1::StrandConstraint back;
    StrandConstraintToProto(*desc, &back);
    EXPECT_EQ(back.SerializeAsString(), c.SerializeAsString()) << c.DebugString();
  }
}

TEST(StrandProtoTest, BadConstraintValuesNameTheirField) {
  const auto expect = [](const v1::StrandConstraint& c, const std::string& field) {
    const absl::Status s = StrandConstraintFromProto(c, "constraints[2].strand").status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument) << field;
    EXPECT_NE(s.message().find("constraints[2].strand." + field), std::string::npos) << s;
  };
  v1::StrandConstraint good;
  good.set_body("hair");
  good.set_kind(v1::STRAND_CONSTRAINT_KIND_JOINT_LIMIT);
  good.set_max_bend(0.5);
  ASSERT_TRUE(StrandConstraintFromProto(good, "c").ok());
  v1::StrandConstraint c = good;
  c.set_body("");
  expect(c, "body");
  c = good;
  c.set_segment(-1);
  expect(c, "segment");
  c = good;
  c.set_kind(v1::STRAND_CONSTRAINT_KIND_UNSPECIFIED);
  expect(c, "kind");
  c = good;
  c.set_max_bend(4.0);
  expect(c, "max_bend");
  c = good;
  c.set_margin(-0.1);
  expect(c, "margin");
  c = good;
  c.set_kind(v1::STRAND_CONSTRAINT_KIND_CURVE);
  Vec3ToProto(Vec3(0, 0, 0), c.add_curve());
  expect(c, "curve");
  Vec3ToProto(Vec3(0, 0, 0), c.add_curve());
  expect(c, "curve[1]");
  c = good;
  c.set_kind(v1::STRAND_CONSTRAINT_KIND_POINT);
  c.mutable_target()->set_x(std::nan(""));
  expect(c, "target");
  c = good;
  c.set_kind(v1::STRAND_CONSTRAINT_KIND_JOINT_VALUE);
  c.mutable_joint()->set_x(0.5);
  expect(c, "joint");
}

}  // namespace
}  // namespace ligature
