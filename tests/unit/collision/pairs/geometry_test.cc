#include "server/collision/pairs/geometry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "tests/unit/collision/collision_test_util.h"

namespace ligature {
namespace {

using collision_testing::AxisAngleDeg;
using collision_testing::Pose;

TEST(PairGeometryTest, NormalizedOrUsesFallbackForZero) {
  EXPECT_LT((NormalizedOr(Vec3(0, 3, 4), Vec3::UnitX()) - Vec3(0, 0.6, 0.8)).norm(), 1e-15);
  EXPECT_EQ(NormalizedOr(Vec3::Zero(), Vec3::UnitZ()), Vec3::UnitZ());
  EXPECT_EQ(NormalizedOr(Vec3(1e-300, 0, 0), Vec3::UnitZ()), Vec3::UnitZ());
}

TEST(PairGeometryTest, AnyPerpendicularIsUnitAndPerpendicular) {
  for (const Vec3& v : {Vec3(1, 0, 0), Vec3(0, 1, 0), Vec3(0, 0, -2), Vec3(1, 1, 1),
                        Vec3(1e-9, 3, 1e-9), Vec3(-2, 5, 0.3)}) {
    const Vec3 p = AnyPerpendicular(v);
    EXPECT_NEAR(p.norm(), 1.0, 1e-12) << v.transpose();
    EXPECT_NEAR(p.dot(v.normalized()), 0.0, 1e-12) << v.transpose();
  }
  EXPECT_NEAR(AnyPerpendicular(Vec3::Zero()).norm(), 1.0, 1e-12);
}

TEST(PairGeometryTest, ClosestParamOnSegment) {
  const Vec3 a(0, 0, 0);
  const Vec3 b(2, 0, 0);
  EXPECT_DOUBLE_EQ(ClosestParamOnSegment(Vec3(0.5, 3, 0), a, b), 0.25);
  EXPECT_DOUBLE_EQ(ClosestParamOnSegment(Vec3(-4, 1, 0), a, b), 0.0);
  EXPECT_DOUBLE_EQ(ClosestParamOnSegment(Vec3(9, 1, 0), a, b), 1.0);
  EXPECT_DOUBLE_EQ(ClosestParamOnSegment(Vec3(9, 1, 0), a, a), 0.0);
}

TEST(PairGeometryTest, CrossingSegments) {
  const SegmentClosestPoints c = ClosestPointsBetweenSegments(Vec3(-1, 0, 0), Vec3(1, 0, 0),
                                                              Vec3(0.5, 2, -1), Vec3(0.5, 2, 1));
  EXPECT_NEAR(c.s, 0.75, 1e-12);
  EXPECT_NEAR(c.t, 0.5, 1e-12);
  EXPECT_LT((c.on_first - Vec3(0.5, 0, 0)).norm(), 1e-12);
  EXPECT_LT((c.on_second - Vec3(0.5, 2, 0)).norm(), 1e-12);
}

TEST(PairGeometryTest, SegmentsClampedAtEnds) {
  const SegmentClosestPoints c =
      ClosestPointsBetweenSegments(Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(3, 1, 0), Vec3(3, 4, 0));
  EXPECT_LT((c.on_first - Vec3(1, 0, 0)).norm(), 1e-12);
  EXPECT_LT((c.on_second - Vec3(3, 1, 0)).norm(), 1e-12);
}

TEST(PairGeometryTest, ParallelSegmentsGiveAValidClosestPair) {
  const SegmentClosestPoints c =
      ClosestPointsBetweenSegments(Vec3(0, 0, 0), Vec3(2, 0, 0), Vec3(1, 1, 0), Vec3(5, 1, 0));
  EXPECT_NEAR((c.on_second - c.on_first).norm(), 1.0, 1e-12);
  EXPECT_TRUE(c.on_first.allFinite() && c.on_second.allFinite());
}

TEST(PairGeometryTest, DegenerateSegmentsActAsPoints) {
  const Vec3 p(1, 1, 1);
  SegmentClosestPoints c = ClosestPointsBetweenSegments(p, p, Vec3(0, 0, 0), Vec3(0, 4, 0));
  EXPECT_LT((c.on_second - Vec3(0, 1, 0)).norm(), 1e-12);
  c = ClosestPointsBetweenSegments(Vec3(0, 0, 0), Vec3(0, 4, 0), p, p);
  EXPECT_LT((c.on_first - Vec3(0, 1, 0)).norm(), 1e-12);
  c = ClosestPointsBetweenSegments(p, p, Vec3(3, 3, 3), Vec3(3, 3, 3));
  EXPECT_EQ(c.on_first, p);
  EXPECT_EQ(c.on_second, Vec3(3, 3, 3));
}

// Dense sampling cannot beat the exact closest points of random segment pairs.
TEST(PairGeometryTest, RandomSegmentsAgreeWithSampling) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-2.0, 2.0);
  for (int trial = 0; trial < 200; ++trial) {
    const Vec3 p0(u(rng), u(rng), u(rng)), p1(u(rng), u(rng), u(rng));
    const Vec3 q0(u(rng), u(rng), u(rng)), q1(u(rng), u(rng), u(rng));
    const SegmentClosestPoints c = ClosestPointsBetweenSegments(p0, p1, q0, q1);
    const double exact = (c.on_second - c.on_first).norm();
    EXPECT_LT((c.on_first - (p0 + c.s * (p1 - p0))).norm(), 1e-12);
    double sampled = std::numeric_limits<double>::infinity();
    for (int i = 0; i <= 200; ++i) {
      const Vec3 a = p0 + (i / 200.0) * (p1 - p0);
      const Vec3 b = q0 + ClosestParamOnSegment(a, q0, q1) * (q1 - q0);
      sampled = std::min(sampled, (b - a).norm());
    }
    EXPECT_LE(exact, sampled + 1e-12);
    EXPECT_GT(exact, sampled - 0.05);
  }
}

TEST(PairGeometryTest, SegmentToBoxFlatAboveFace) {
  const Vec3 half(1, 1, 1);
  // Crosses above the top face diagonally downwards: closest at its low end.
  EXPECT_NEAR(ClosestParamSegmentToBox(Vec3(-3, 3, 0), Vec3(0, 1.5, 0), half), 1.0, 1e-12);
  // Passes the box edge (x = 1, y = 1): closest where it is nearest the edge.
  const double t = ClosestParamSegmentToBox(Vec3(3, 1, 0), Vec3(1, 3, 0), half);
  EXPECT_NEAR(t, 0.5, 1e-12);
  // Pierces the box: any point inside has distance zero.
  const Vec3 s0(-3, 0, 0), s1(3, 0.2, 0);
  const Vec3 p = s0 + ClosestParamSegmentToBox(s0, s1, half) * (s1 - s0);
  EXPECT_LE(p.cwiseAbs().maxCoeff(), 1.0 + 1e-12);
}

// The piecewise minimizer agrees with dense sampling on random segments.
TEST(PairGeometryTest, RandomSegmentsToBoxAgreeWithSampling) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-3.0, 3.0);
  const Vec3 half(0.5, 1.0, 1.5);
  auto dist = [&](const Vec3& p) { return (p - p.cwiseMax(-half).cwiseMin(half)).norm(); };
  for (int trial = 0; trial < 300; ++trial) {
    const Vec3 s0(u(rng), u(rng), u(rng)), s1(u(rng), u(rng), u(rng));
    const double t = ClosestParamSegmentToBox(s0, s1, half);
    ASSERT_GE(t, 0.0);
    ASSERT_LE(t, 1.0);
    const double exact = dist(s0 + t * (s1 - s0));
    double sampled = std::numeric_limits<double>::infinity();
    for (int i = 0; i <= 1000; ++i)
      sampled = std::min(sampled, dist(s0 + (i / 1000.0) * (s1 - s0)));
    EXPECT_LE(exact, sampled + 1e-12);
    EXPECT_GT(exact, sampled - 0.02);
  }
}

TEST(PairGeometryTest, ClipSegmentToSlab) {
  double t0 = 0.0, t1 = 1.0;
  EXPECT_TRUE(ClipSegmentToSlab(Vec3(-2, 0, 0), Vec3(2, 0, 0), 0, 1.0, &t0, &t1));
  EXPECT_DOUBLE_EQ(t0, 0.25);
  EXPECT_DOUBLE_EQ(t1, 0.75);
  t0 = 0.0;
  t1 = 1.0;
  EXPECT_TRUE(ClipSegmentToSlab(Vec3(2, 0, 0), Vec3(-2, 0, 0), 0, 1.0, &t0, &t1));
  EXPECT_DOUBLE_EQ(t0, 0.25);
  EXPECT_DOUBLE_EQ(t1, 0.75);
  t0 = 0.0;
  t1 = 1.0;
  EXPECT_FALSE(ClipSegmentToSlab(Vec3(2, 0, 0), Vec3(3, 0, 0), 0, 1.0, &t0, &t1));
  t0 = 0.0;
  t1 = 1.0;
  EXPECT_TRUE(ClipSegmentToSlab(Vec3(0.5, -3, 0), Vec3(0.5, 3, 0), 0, 1.0, &t0, &t1));
  EXPECT_DOUBLE_EQ(t0, 0.0);
  EXPECT_DOUBLE_EQ(t1, 1.0);
  EXPECT_FALSE(ClipSegmentToSlab(Vec3(1.5, -3, 0), Vec3(1.5, 3, 0), 0, 1.0, &t0, &t1));
}

TEST(PairGeometryTest, CapsuleSegmentFollowsPose) {
  Vec3 p0, p1;
  CapsuleSegment(Shape::Capsule(0.3, 2.0), Pose(Vec3(1, 1, 1), AxisAngleDeg(Vec3::UnitZ(), -90)),
                 &p0, &p1);
  EXPECT_LT((p0 - Vec3(-1, 1, 1)).norm(), 1e-12);
  EXPECT_LT((p1 - Vec3(3, 1, 1)).norm(), 1e-12);
}

TEST(PairGeometryTest, BoxCornersFollowBitLayout) {
  const auto corners = BoxCorners(Shape::Box(Vec3(1, 2, 3)), Pose(Vec3(10, 0, 0)));
  EXPECT_EQ(corners[0], Vec3(9, -2, -3));
  EXPECT_EQ(corners[1], Vec3(11, -2, -3));
  EXPECT_EQ(corners[2], Vec3(9, 2, -3));
  EXPECT_EQ(corners[7], Vec3(11, 2, 3));
}

TEST(PairGeometryTest, MakeContactIsMidway) {
  const ContactPoint p = MakeContact(Vec3(0, 1, 0), Vec3(0, 0.8, 0), Vec3::UnitY(), -0.2);
  EXPECT_LT((p.position - Vec3(0, 0.9, 0)).norm(), 1e-15);
  EXPECT_EQ(p.normal, Vec3::UnitY());
  EXPECT_EQ(p.distance, -0.2);
}

// RotateVector gives Eigen's q * v bit for bit, on random rotations and vectors with zero
// components (a capsule's axis), and rotates lengths unchanged.
TEST(PairGeometryTest, RotateVectorIsEigensRotationBitForBit) {
  std::mt19937 rng(5);
  std::normal_distribution<double> g(0.0, 1.0);
  for (int trial = 0; trial < 2000; ++trial) {
    Quat q(g(rng), g(rng), g(rng), g(rng));
    q.normalize();
    Vec3 v(g(rng), g(rng), g(rng));
    if (trial % 2 == 0) v = Vec3(0.0, v.y(), 0.0);
    const Vec3 expected = q * v;
    const Vec3 got = RotateVector(q, v);
    EXPECT_EQ(got.x(), expected.x()) << trial;
    EXPECT_EQ(got.y(), expected.y()) << trial;
    EXPECT_EQ(got.z(), expected.z()) << trial;
    EXPECT_NEAR(got.norm(), v.norm(), 1e-12 * (1.0 + v.norm()));
  }
  EXPECT_EQ(RotateVector(AxisAngleDeg(Vec3::UnitZ(), 90), Vec3(0.0, 2.0, 0.0)).x(),
            (AxisAngleDeg(Vec3::UnitZ(), 90) * Vec3(0.0, 2.0, 0.0)).x());
}

// SegmentsSurelyApart never claims a gap the segments do not have: at their closest
// distance (less a hair) it is false, on random, crossing and nearly parallel segments; well
// below it, it is mostly true.
TEST(PairGeometryTest, SegmentsSurelyApartNeverOverstatesTheGap) {
  std::mt19937 rng(12);
  std::uniform_real_distribution<double> coord(-1.0, 1.0);
  std::uniform_real_distribution<double> tilt(-1e-4, 1e-4);
  int sure_when_far = 0;
  int far_cases = 0;
  for (int trial = 0; trial < 20000; ++trial) {
    const Vec3 ca(coord(rng), coord(rng), coord(rng));
    const Vec3 cb(coord(rng), coord(rng), coord(rng));
    const Vec3 da(coord(rng), coord(rng), coord(rng));
    Vec3 db(coord(rng), coord(rng), coord(rng));
    if (trial % 4 == 1) db = -0.7 * da + Vec3(tilt(rng), tilt(rng), tilt(rng));  // near parallel
    if (trial % 4 == 2) db = 1.3 * da;                                         // parallel
    const SegmentClosestPoints c =
        ClosestPointsBetweenSegments(ca - 0.5 * da, ca + 0.5 * da, cb - 0.5 * db, cb + 0.5 * db);
    const double gap = (c.on_second - c.on_first).norm();
    const double scale = 1.0 + (cb - ca).cwiseAbs().sum() + da.cwiseAbs().sum() + db.cwiseAbs().sum();
    EXPECT_FALSE(SegmentsSurelyApart(ca, da, cb, db, gap)) << trial;
    EXPECT_FALSE(SegmentsSurelyApart(ca, da, cb, db, gap - 1e-11 * scale)) << trial;
    EXPECT_FALSE(SegmentsSurelyApart(cb, db, ca, da, gap - 1e-11 * scale)) << trial;
    if (gap > 0.1) {
      ++far_cases;
      if (SegmentsSurelyApart(ca, da, cb, db, 0.5 * gap)) ++sure_when_far;
    }
  }
  EXPECT_GT(far_cases, 2000);
  EXPECT_GT(sure_when_far, far_cases / 2);
  // Non-finite input is never apart; a negative distance neither.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE(SegmentsSurelyApart(Vec3(nan, 0, 0), Vec3::UnitX(), Vec3(5, 0, 0), Vec3::UnitY(), 0.1));
  EXPECT_FALSE(SegmentsSurelyApart(Vec3::Zero(), Vec3::UnitX(), Vec3(5, 0, 0), Vec3::UnitY(), -1.0));
  EXPECT_TRUE(SegmentsSurelyApart(Vec3::Zero(), Vec3::UnitX(), Vec3(5, 0, 0), Vec3::UnitY(), 1.0));
}

}  // namespace
}  // namespace ligature
