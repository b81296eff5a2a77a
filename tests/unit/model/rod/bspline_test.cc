// CubicBSpline: partition of unity, derivatives against finite differences, the single
// segment case against the Bernstein polynomials, clamped ends, linear precision at the
// Greville abscissae, and the index of the first non-zero basis function.

#include "server/model/rod/bspline.h"

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <random>
#include <vector>

#include "server/math/types.h"

namespace ligature {
namespace {

// The curve point blended from control points by a sample's basis values.
Vec3 Blend(const std::vector<Vec3>& p, const SplineSample& s,
           const std::array<double, 4>& weights) {
  Vec3 x = Vec3::Zero();
  for (int k = 0; k < 4; ++k) x += weights[k] * p[s.first + k];
  return x;
}

// Parameter values to sample: both ends, every knot, and many points in between.
std::vector<double> SampleParameters(const CubicBSpline& spline) {
  std::vector<double> u = {0.0, spline.length()};
  for (int k = 0; k <= spline.segments(); ++k) u.push_back(k * spline.segment_length());
  for (int k = 0; k <= 157; ++k) u.push_back(spline.length() * k / 157.0);
  return u;
}

TEST(CubicBSplineTest, PartitionOfUnity) {
  for (const int n : {4, 5, 7, 12, 40}) {
    const CubicBSpline spline(n, 1.7);
    const double h = spline.segment_length();
    for (const double u : SampleParameters(spline)) {
      const SplineSample s = spline.Sample(u);
      double sum = 0.0, dsum = 0.0, ddsum = 0.0;
      for (int k = 0; k < 4; ++k) {
        sum += s.b[k];
        dsum += s.db[k];
        ddsum += s.ddb[k];
        EXPECT_GE(s.b[k], -1e-15) << "n " << n << " u " << u;
      }
      // Round-off relative to each quantity's scale: 1, 1/h and 1/h^2.
      EXPECT_NEAR(sum, 1.0, 1e-13) << "n " << n << " u " << u;
      EXPECT_NEAR(dsum, 0.0, 1e-12 / h) << "n " << n << " u " << u;
      EXPECT_NEAR(ddsum, 0.0, 1e-11 / (h * h)) << "n " << n << " u " << u;
    }
  }
}

// With a single segment the clamped basis is the cubic Bernstein basis in t = u / L.
TEST(CubicBSplineTest, SingleSegmentIsBernstein) {
  const double length = 0.8;
  const CubicBSpline spline(4, length);
  for (const double t : {0.0, 0.1, 0.37, 0.5, 0.81, 1.0}) {
    const SplineSample s = spline.Sample(t * length);
    const double r = 1.0 - t;
    const double b[4] = {r * r * r, 3 * t * r * r, 3 * t * t * r, t * t * t};
    const double db[4] = {-3 * r * r, 3 * r * r - 6 * t * r, 6 * t * r - 3 * t * t, 3 * t * t};
    const double ddb[4] = {6 * r, -12 * r + 6 * t, 6 * r - 12 * t, 6 * t};
    EXPECT_EQ(s.first, 0);
    for (int k = 0; k < 4; ++k) {
      EXPECT_NEAR(s.b[k], b[k], 1e-14) << t << " " << k;
      EXPECT_NEAR(s.db[k], db[k] / length, 1e-13) << t << " " << k;
      EXPECT_NEAR(s.ddb[k], ddb[k] / (length * length), 1e-12) << t << " " << k;
    }
  }
}

// Central differences strictly inside each span, where the basis is one cubic.
TEST(CubicBSplineTest, DerivativesMatchFiniteDifferences) {
  for (const int n : {4, 6, 11}) {
    const CubicBSpline spline(n, 2.3);
    const double h = spline.segment_length();
    const double eps = 1e-6 * h;
    for (int span = 0; span < spline.segments(); ++span) {
      for (const double f : {0.13, 0.5, 0.88}) {
        const double u = (span + f) * h;
        const SplineSample s = spline.Sample(u);
        const SplineSample lo = spline.Sample(u - eps);
        const SplineSample hi = spline.Sample(u + eps);
        ASSERT_EQ(lo.first, s.first);
        ASSERT_EQ(hi.first, s.first);
        for (int k = 0; k < 4; ++k) {
          const double fd = (hi.b[k] - lo.b[k]) / (2 * eps);
          const double fdd = (hi.db[k] - lo.db[k]) / (2 * eps);
          // Truncation ~ eps^2 b''' is negligible; round-off ~ 1e-16 / eps = 1e-10 / h.
          EXPECT_NEAR(s.db[k], fd, 1e-7 / h) << "n " << n << " u " << u << " k " << k;
          EXPECT_NEAR(s.ddb[k], fdd, 1e-7 / (h * h)) << "n " << n << " u " << u << " k " << k;
        }
      }
    }
  }
}

TEST(CubicBSplineTest, ClampedEnds) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> r(-1.0, 1.0);
  const int n = 9;
  const CubicBSpline spline(n, 1.3);
  std::vector<Vec3> p(n);
  for (Vec3& q : p) q = Vec3(r(rng), r(rng), r(rng));

  const SplineSample s0 = spline.Sample(0.0);
  const SplineSample s1 = spline.Sample(spline.length());
  EXPECT_EQ(s0.first, 0);
  EXPECT_EQ(s1.first, n - 4);
  EXPECT_LT((Blend(p, s0, s0.b) - p.front()).norm(), 1e-14);
  EXPECT_LT((Blend(p, s1, s1.b) - p.back()).norm(), 1e-14);
  // The end tangents follow the end legs of the control polygon: x'(0) = 3 (p1 - p0) / h.
  const double h = spline.segment_length();
  EXPECT_LT((Blend(p, s0, s0.db) - 3.0 / h * (p[1] - p[0])).norm(), 1e-12);
  EXPECT_LT((Blend(p, s1, s1.db) - 3.0 / h * (p[n - 1] - p[n - 2])).norm(), 1e-12);
  // Outside [0, length] the parameter is clamped.
  const SplineSample below = spline.Sample(-0.5);
  const SplineSample above = spline.Sample(spline.length() + 0.5);
  EXPECT_EQ(below.first, 0);
  EXPECT_EQ(above.first, n - 4);
  EXPECT_LT((Blend(p, below, below.b) - p.front()).norm(), 1e-14);
  EXPECT_LT((Blend(p, above, above.b) - p.back()).norm(), 1e-14);
}

TEST(CubicBSplineTest, GrevilleAbscissae) {
  const int n = 8;
  const CubicBSpline spline(n, 2.5);
  const double h = spline.segment_length();
  EXPECT_DOUBLE_EQ(spline.Greville(0), 0.0);
  EXPECT_NEAR(spline.Greville(1), h / 3.0, 1e-15);
  EXPECT_NEAR(spline.Greville(2), h, 1e-15);
  EXPECT_NEAR(spline.Greville(3), 2.0 * h, 1e-15);
  EXPECT_NEAR(spline.Greville(n - 2), spline.length() - h / 3.0, 1e-15);
  EXPECT_DOUBLE_EQ(spline.Greville(n - 1), spline.length());
  for (int i = 1; i < n; ++i) EXPECT_GT(spline.Greville(i), spline.Greville(i - 1)) << i;
}

// Control points at a + b G_i reproduce the straight line a + b u, with x' = b, x'' = 0.
TEST(CubicBSplineTest, LinearPrecisionAtGrevilleAbscissae) {
  for (const int n : {4, 5, 10, 33}) {
    const CubicBSpline spline(n, 1.9);
    const Vec3 a(0.3, -1.2, 2.0);
    const Vec3 b(0.6, 0.8, -0.4);
    std::vector<Vec3> p(n);
    for (int i = 0; i < n; ++i) p[i] = a + b * spline.Greville(i);
    for (const double u : SampleParameters(spline)) {
      const SplineSample s = spline.Sample(u);
      EXPECT_LT((Blend(p, s, s.b) - (a + b * u)).norm(), 1e-13) << "n " << n << " u " << u;
      EXPECT_LT((Blend(p, s, s.db) - b).norm(), 1e-12) << "n " << n << " u " << u;
      const double h = spline.segment_length();
      EXPECT_LT(Blend(p, s, s.ddb).norm(), 1e-11 / (h * h)) << "n " << n << " u " << u;
    }
  }
}

// Inside span k (between knots k h and (k + 1) h) the non-zero functions are k .. k + 3.
TEST(CubicBSplineTest, FirstIndexRange) {
  const int n = 13;
  const CubicBSpline spline(n, 3.0);
  const double h = spline.segment_length();
  int previous = 0;
  for (int k = 0; k <= 400; ++k) {
    const double u = spline.length() * k / 400.0;
    const SplineSample s = spline.Sample(u);
    EXPECT_GE(s.first, 0);
    EXPECT_LE(s.first, n - 4);
    EXPECT_GE(s.first, previous) << u;
    previous = s.first;
  }
  for (int span = 0; span < spline.segments(); ++span) {
    for (const double f : {0.01, 0.5, 0.99}) {
      EXPECT_EQ(spline.Sample((span + f) * h).first, span) << span << " " << f;
    }
  }
}

}  // namespace
}  // namespace ligature
