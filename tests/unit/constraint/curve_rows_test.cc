#include "server/constraint/curve_rows.h"

#include <gtest/gtest.h>

#include <vector>

namespace ligature {
namespace {

TEST(CurvePolylineTest, DropsRepeatedPoints) {
  const std::vector<Vec3> p = CurvePolyline(
      {Vec3(0, 0, 0), Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 0, 0), Vec3(1, 1, 0)}, false);
  ASSERT_EQ(p.size(), 3u);
  EXPECT_EQ(p[1], Vec3(1, 0, 0));
}

// The spline passes through every control point, sampled kCurveSamplesPerSpan times per
// span, and stays on the line when the points are collinear.
TEST(CurvePolylineTest, SplineThroughPoints) {
  const std::vector<Vec3> pts = {Vec3(0, 0, 0), Vec3(1, 2, 0), Vec3(3, 2, 1), Vec3(4, 0, 1)};
  const std::vector<Vec3> s = CurvePolyline(pts, true);
  ASSERT_EQ(s.size(), 3u * kCurveSamplesPerSpan + 1);
  for (size_t k = 0; k < pts.size(); ++k) {
    EXPECT_LT((s[k * kCurveSamplesPerSpan] - pts[k]).norm(), 1e-12) << k;
  }
  // Between the points it bends smoothly: consecutive samples turn by small angles.
  for (size_t k = 1; k + 1 < s.size(); ++k) {
    const Vec3 d0 = (s[k] - s[k - 1]).normalized();
    const Vec3 d1 = (s[k + 1] - s[k]).normalized();
    EXPECT_GT(d0.dot(d1), 0.9) << k;
  }
  const std::vector<Vec3> line = CurvePolyline({Vec3(0, 0, 0), Vec3(1, 1, 1), Vec3(3, 3, 3)}, true);
  for (const Vec3& q : line) EXPECT_LT((q - q.x() * Vec3(1, 1, 1)).norm(), 1e-12);
}

TEST(ProjectOnPolylineTest, InsideAndBeyondTheEnds) {
  const std::vector<Vec3> s = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 1, 0)};
  CurveProjection p = ProjectOnPolyline(s, 0, Vec3(0.5, 0.1, 0.2));
  EXPECT_EQ(p.segment, 0u);
  EXPECT_EQ(p.region, CurveRegion::kInside);
  EXPECT_LT((p.closest - Vec3(0.5, 0, 0)).norm(), 1e-15);
  // Walks to the next segment from a stale start.
  p = ProjectOnPolyline(s, 0, Vec3(1.1, 0.6, 0.0));
  EXPECT_EQ(p.segment, 1u);
  EXPECT_LT((p.closest - Vec3(1.0, 0.6, 0)).norm(), 1e-15);
  EXPECT_LT((p.tangent - Vec3::UnitY()).norm(), 1e-15);
  // Beyond the ends: on the end segments' lines.
  p = ProjectOnPolyline(s, 1, Vec3(-0.3, -0.1, 0.0));
  EXPECT_EQ(p.segment, 0u);
  EXPECT_EQ(p.region, CurveRegion::kBeforeStart);
  EXPECT_LT((p.closest - Vec3(-0.3, 0, 0)).norm(), 1e-15);
  p = ProjectOnPolyline(s, 0, Vec3(1.1, 1.4, 0.0));
  EXPECT_EQ(p.segment, 1u);
  EXPECT_EQ(p.region, CurveRegion::kPastEnd);
  // A start index out of range is clamped to the last segment, then walks.
  EXPECT_EQ(ProjectOnPolyline(s, 99, Vec3(0.5, -0.1, 0.0)).segment, 0u);
}

// Outside a convex corner the corner is the closest point, and the tangent there is
// perpendicular to the offset, turning from one segment's direction to the other's.
TEST(ProjectOnPolylineTest, ConvexCorner) {
  const std::vector<Vec3> s = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 1, 0)};
  for (uint32_t start : {0u, 1u}) {
    const Vec3 q(1.2, -0.1, 0.05);
    const CurveProjection p = ProjectOnPolyline(s, start, q);
    EXPECT_EQ(p.segment, start);  // stays where it came from
    EXPECT_EQ(p.region, CurveRegion::kInside);
    EXPECT_LT((p.closest - Vec3(1, 0, 0)).norm(), 1e-15);
    EXPECT_NEAR(p.tangent.dot(q - p.closest), 0.0, 1e-15);
    EXPECT_NEAR(p.tangent.norm(), 1.0, 1e-15);
    EXPECT_GT(p.tangent.x(), 0.0);
    EXPECT_GT(p.tangent.y(), 0.0);
  }
  // Near the wedge's borders the tangent is close to the segments' own.
  EXPECT_LT((ProjectOnPolyline(s, 1, Vec3(1.0001, -0.2, 0.0)).tangent - Vec3::UnitX()).norm(),
            1e-3);
  EXPECT_LT((ProjectOnPolyline(s, 0, Vec3(1.2, -0.0001, 0.0)).tangent - Vec3::UnitY()).norm(),
            1e-3);
}

// A hairpin whose legs are 0.2 apart: a point moving along the first leg stays on it even
// where the other leg is nearer, as the walk starts from the segment it was on.
TEST(ProjectOnPolylineTest, FollowsThePathNotTheNearestLeg) {
  const std::vector<Vec3> s = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 0.2, 0), Vec3(0, 0.2, 0)};
  const CurveProjection p = ProjectOnPolyline(s, 0, Vec3(0.5, 0.15, 0.0));
  EXPECT_EQ(p.segment, 0u);
  EXPECT_LT((p.closest - Vec3(0.5, 0, 0)).norm(), 1e-15);
  EXPECT_EQ(ProjectOnPolyline(s, 2, Vec3(0.5, 0.15, 0.0)).segment, 2u);
}

}  // namespace
}  // namespace ligature
