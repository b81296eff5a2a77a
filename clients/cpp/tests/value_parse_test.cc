#include "clients/cpp/cli/value_parse.h"

#include <cmath>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ligature::client::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ParseVec3Test, ParsesThreeNumbers) {
  absl::StatusOr<ligature::v1::Vec3> v = ParseVec3("1,2,3");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->x(), 1);
  EXPECT_EQ(v->y(), 2);
  EXPECT_EQ(v->z(), 3);

  v = ParseVec3("-0.5,1e-3, 9.81");
  ASSERT_TRUE(v.ok()) << v.status();
  EXPECT_EQ(v->x(), -0.5);
  EXPECT_EQ(v->y(), 1e-3);
  EXPECT_EQ(v->z(), 9.81);
}

TEST(ParseVec3Test, RejectsWrongCountAndNonNumbers) {
  for (const char* text : {"1,2", "1,2,3,4", "x,y,z", "1,,3", "", "1,2,inf", "1,nan,2"}) {
    absl::StatusOr<ligature::v1::Vec3> v = ParseVec3(text);
    EXPECT_FALSE(v.ok()) << text;
    EXPECT_EQ(v.status().code(), absl::StatusCode::kInvalidArgument) << text;
  }
  EXPECT_THAT(ParseVec3("1,2").status().message(), HasSubstr("\"1,2\""));
}

TEST(ParseQuaternionTest, NormalisesComponents) {
  absl::StatusOr<ligature::v1::Quaternion> q = ParseQuaternion("0,0.7071,0,0.7071");
  ASSERT_TRUE(q.ok()) << q.status();
  EXPECT_NEAR(q->y(), std::sqrt(0.5), 1e-12);
  EXPECT_NEAR(q->w(), std::sqrt(0.5), 1e-12);
  const double norm = q->x() * q->x() + q->y() * q->y() + q->z() * q->z() + q->w() * q->w();
  EXPECT_NEAR(norm, 1.0, 1e-12);
}

TEST(ParseQuaternionTest, RejectsZeroAndWrongCount) {
  EXPECT_FALSE(ParseQuaternion("0,0,0,0").ok());
  EXPECT_FALSE(ParseQuaternion("0,0,1").ok());
}

TEST(ParseShapeSpecTest, ParsesEveryKind) {
  absl::StatusOr<ligature::v1::Shape> shape = ParseShapeSpec("sphere:0.5");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->sphere().radius(), 0.5);

  shape = ParseShapeSpec("box:1,2,3");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->box().half_extents().x(), 1);
  EXPECT_EQ(shape->box().half_extents().y(), 2);
  EXPECT_EQ(shape->box().half_extents().z(), 3);

  shape = ParseShapeSpec("capsule:0.25,1.5");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_EQ(shape->capsule().radius(), 0.25);
  EXPECT_EQ(shape->capsule().half_length(), 1.5);

  shape = ParseShapeSpec("plane");
  ASSERT_TRUE(shape.ok()) << shape.status();
  EXPECT_TRUE(shape->has_plane());
}

TEST(ParseShapeSpecTest, RejectsMalformedSpecs) {
  for (const char* text :
       {"box:1,2", "box:x,y,z", "sphere", "sphere:", "sphere:1,2", "capsule:1", "plane:1",
        "cylinder:1,2", "", "sphere:-1", "box:1,0,1", "capsule:1,0"}) {
    absl::StatusOr<ligature::v1::Shape> shape = ParseShapeSpec(text);
    EXPECT_FALSE(shape.ok()) << text;
    EXPECT_EQ(shape.status().code(), absl::StatusCode::kInvalidArgument) << text;
  }
}

TEST(ParseScalarTest, NumbersIntegersAndBools) {
  EXPECT_EQ(*ParseNumber("2.5"), 2.5);
  EXPECT_FALSE(ParseNumber("2.5hz").ok());
  EXPECT_EQ(*ParseInt32("-7"), -7);
  EXPECT_FALSE(ParseInt32("1.5").ok());
  EXPECT_FALSE(ParseInt32("99999999999").ok());
  EXPECT_EQ(*ParseBool("true"), true);
  EXPECT_EQ(*ParseBool("false"), false);
  EXPECT_FALSE(ParseBool("yes").ok());
}

TEST(ParseBodyKindTest, ParsesNames) {
  EXPECT_EQ(*ParseBodyKind("dynamic"), ligature::v1::BODY_KIND_DYNAMIC);
  EXPECT_EQ(*ParseBodyKind("kinematic"), ligature::v1::BODY_KIND_KINEMATIC);
  EXPECT_EQ(*ParseBodyKind("static"), ligature::v1::BODY_KIND_STATIC);
  EXPECT_FALSE(ParseBodyKind("STATIC").ok());
}

TEST(ParseIdListTest, SplitsOnCommasAndRejectsEmptyIds) {
  EXPECT_THAT(*ParseIdList("ball"), ElementsAre("ball"));
  EXPECT_THAT(*ParseIdList("ball,box"), ElementsAre("ball", "box"));
  EXPECT_FALSE(ParseIdList("ball,").ok());
  EXPECT_FALSE(ParseIdList("").ok());
}

}  // namespace
}  // namespace ligature::client::cli
