// Rod messages with a rest shape: a curved rod converts to the engine description and
// back unchanged, and a rod re-created from the export has the same rest shape; bad rest
// values are INVALID_ARGUMENT naming their field.

#include "server/scene/rod_proto.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "absl/strings/match.h"
#include "server/scene/scene_proto.h"

namespace ligature {
namespace {

v1::Rod Hook() {
  v1::Rod rod;
  for (const Vec3& p : {Vec3(0, 0, 0), Vec3(0, -0.3, 0), Vec3(0.05, -0.35, 0),
                        Vec3(0.1, -0.3, 0)}) {
    Vec3ToProto(p, rod.add_points());
    Vec3ToProto(p + Vec3(0, 0, 0.01), rod.add_rest_points());
  }
  rod.set_rest_twist(1.5);
  rod.set_control_points(20);
  return rod;
}

TEST(RodProtoTest, RestShapeRoundTrips) {
  absl::StatusOr<RodDesc> desc = RodFromProto(Hook(), "body.rod");
  ASSERT_TRUE(desc.ok()) << desc.status();
  ASSERT_EQ(desc->rest_points.size(), 4u);
  EXPECT_EQ(desc->rest_twist, 1.5);
  v1::Rod exported;
  RodToProto(*desc, &exported);
  EXPECT_EQ(exported.rest_points_size(), 4);
  EXPECT_EQ(exported.rest_twist(), 1.5);
  absl::StatusOr<RodDesc> again = RodFromProto(exported, "body.rod");
  ASSERT_TRUE(again.ok()) << again.status();
  EXPECT_EQ(again->rest_points, desc->rest_points);
  EXPECT_EQ(again->points, desc->points);
  // The same rest control points and rest curvature force.
  absl::StatusOr<RodModel> a = RodModel::Make(*desc);
  absl::StatusOr<RodModel> b = RodModel::Make(*again);
  ASSERT_TRUE(a.ok() && b.ok());
  ASSERT_TRUE(a->curved());
  EXPECT_EQ(a->rest_points(), b->rest_points());
  EXPECT_EQ(a->length(), b->length());
  EXPECT_EQ(a->rest_twist(), b->rest_twist());
}

TEST(RodProtoTest, StraightRodExportsNoRestShape) {
  v1::Rod rod = Hook();
  rod.clear_rest_points();
  rod.set_rest_twist(0.0);
  absl::StatusOr<RodDesc> desc = RodFromProto(rod, "body.rod");
  ASSERT_TRUE(desc.ok());
  v1::Rod exported;
  RodToProto(*desc, &exported);
  EXPECT_EQ(exported.rest_points_size(), 0);
  EXPECT_FALSE(RodModel::Make(*desc)->curved());
}

TEST(RodProtoTest, BadRestValuesNameTheirField) {
  v1::Rod one = Hook();
  one.clear_rest_points();
  Vec3ToProto(Vec3::Zero(), one.add_rest_points());
  absl::Status s = RodFromProto(one, "body.rod").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "body.rod.rest_points")) << s;

  v1::Rod nan = Hook();
  nan.mutable_rest_points(2)->set_y(std::numeric_limits<double>::quiet_NaN());
  s = RodFromProto(nan, "body.rod").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "body.rod.rest_points[2]")) << s;

  v1::Rod point = Hook();
  point.clear_rest_points();
  Vec3ToProto(Vec3::Zero(), point.add_rest_points());
  Vec3ToProto(Vec3::Zero(), point.add_rest_points());
  s = RodFromProto(point, "body.rod").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "body.rod.rest_points")) << s;

  v1::Rod twist = Hook();
  twist.set_rest_twist(std::numeric_limits<double>::infinity());
  s = RodFromProto(twist, "body.rod").status();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(absl::StrContains(s.message(), "body.rod.rest_twist")) << s;
}

}  // namespace
}  // namespace ligature
