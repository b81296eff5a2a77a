// RodModel and RodState: Make()'s validation and automatic control point count, the
// quadrature, section constants and mass, and InitialRodState along straight and bent
// polylines.

#include "server/model/rod/rod_model.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <utility>
#include <vector>

#include "server/math/types.h"

namespace ligature {
namespace {

RodDesc Desc(std::vector<Vec3> points, int control_points) {
  RodDesc d;
  d.id = "rod";
  d.points = std::move(points);
  d.control_points = control_points;
  return d;
}

TEST(RodModelTest, MakeRejectsBadShapesAndCounts) {
  const Vec3 a(0, 0, 0), b(1, 0, 0);
  struct Case {
    const char* name;
    RodDesc desc;
  };
  const Case cases[] = {
      {"no points", Desc({}, 10)},
      {"one point", Desc({a}, 10)},
      {"zero length", Desc({b, b}, 10)},
      {"repeated points", Desc({a, a, a}, 10)},
      {"3 control points", Desc({a, b}, 3)},
      {"negative control points", Desc({a, b}, -4)},
      {"5000 control points", Desc({a, b}, 5000)},
  };
  for (const Case& c : cases) {
    const absl::StatusOr<RodModel> model = RodModel::Make(c.desc);
    EXPECT_EQ(model.status().code(), absl::StatusCode::kInvalidArgument) << c.name;
  }
  // The bounds themselves are accepted.
  EXPECT_TRUE(RodModel::Make(Desc({a, b}, 4)).ok());
  EXPECT_TRUE(RodModel::Make(Desc({a, b}, 4000)).ok());
}

// 0 asks for one segment per 2 cm (n = segments + 3), clamped to [8, 400]. Lengths are
// chosen away from multiples of 2 cm so that the rounding up is unambiguous.
TEST(RodModelTest, AutomaticControlPointCount) {
  const struct {
    double length;
    int expected;
  } cases[] = {{0.05, 8}, {0.51, 29}, {5.01, 254}, {20.0, 400}};
  for (const auto& c : cases) {
    const absl::StatusOr<RodModel> model =
        RodModel::Make(Desc({Vec3::Zero(), Vec3(0, c.length, 0)}, 0));
    ASSERT_TRUE(model.ok()) << c.length;
    EXPECT_EQ(model->control_points(), c.expected) << c.length;
    EXPECT_EQ(model->dofs(), 4 * c.expected) << c.length;
  }
}

TEST(RodModelTest, QuadratureCoversTheLength) {
  const std::vector<Vec3> polyline = {Vec3(0, 0, 0), Vec3(0.3, 0.4, 0), Vec3(0.3, 0.4, 1.2)};
  const absl::StatusOr<RodModel> model = RodModel::Make(Desc(polyline, 11));
  ASSERT_TRUE(model.ok());
  const double length = model->length();
  ASSERT_NEAR(length, 1.7, 1e-15);
  const auto& q = model->quadrature();
  ASSERT_EQ(q.size(), 4u * (11 - 3));
  double weights = 0.0, moment7 = 0.0, mass = 0.0;
  for (size_t k = 0; k < q.size(); ++k) {
    EXPECT_GT(q[k].u, 0.0);
    EXPECT_LT(q[k].u, length);
    EXPECT_GT(q[k].weight, 0.0);
    if (k > 0) {
      EXPECT_GT(q[k].u, q[k - 1].u);
    }
    // The stored basis is the spline's at that u.
    const SplineSample s = model->spline().Sample(q[k].u);
    EXPECT_EQ(q[k].basis.first, s.first);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(q[k].basis.b[i], s.b[i]);
    weights += q[k].weight;
    moment7 += q[k].weight * std::pow(q[k].u, 7);
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 4; ++j) mass += q[k].weight * q[k].basis.b[i] * q[k].basis.b[j];
    }
  }
  EXPECT_NEAR(weights, length, 1e-14);
  // Four Gauss points per segment integrate degree 7 exactly: int u^7 = L^8 / 8.
  EXPECT_NEAR(moment7, std::pow(length, 8) / 8.0, 1e-12 * std::pow(length, 8));
  // The consistent mass matrix sums to the length (partition of unity squared).
  EXPECT_NEAR(mass, length, 1e-13);
}

TEST(RodModelTest, SectionConstantsAndMass) {
  RodDesc desc = Desc({Vec3(0, 0, 0), Vec3(0, 0, 2.5)}, 12);
  desc.material.radius = 0.004;
  desc.material.density = 7800.0;
  const absl::StatusOr<RodModel> model = RodModel::Make(desc);
  ASSERT_TRUE(model.ok());
  const double r = 0.004, pi = std::numbers::pi;
  EXPECT_NEAR(model->area(), pi * r * r, 1e-18);
  EXPECT_NEAR(model->bend_inertia(), pi * std::pow(r, 4) / 4.0, 1e-24);
  EXPECT_NEAR(model->polar_inertia(), pi * std::pow(r, 4) / 2.0, 1e-24);
  const double mass = 7800.0 * pi * r * r * 2.5;
  EXPECT_NEAR(model->mass(), mass, 1e-12 * mass);
  EXPECT_EQ(model->material().density, 7800.0);
}

// A straight polyline (given in three collinear pieces) gives a rod on the line,
// parametrized by arc length from the first point, with unit tangents and no curvature.
TEST(RodModelTest, InitialStateOfStraightPolyline) {
  const Vec3 start(0.5, -0.2, 1.0);
  const Vec3 dir = Vec3(2.0, 1.0, -2.0).normalized();
  const std::vector<Vec3> polyline = {start, start + 0.3 * dir, start + 0.31 * dir,
                                      start + 1.4 * dir};
  const absl::StatusOr<RodModel> model = RodModel::Make(Desc(polyline, 15));
  ASSERT_TRUE(model.ok());
  ASSERT_NEAR(model->length(), 1.4, 1e-14);
  const RodState state = InitialRodState(*model, polyline);
  ASSERT_EQ(state.x.size(), 15u);
  ASSERT_EQ(state.theta.size(), 15u);
  ASSERT_EQ(state.v.size(), 15u);
  ASSERT_EQ(state.omega.size(), 15u);
  for (int i = 0; i < 15; ++i) {
    EXPECT_EQ(state.theta[i], 0.0);
    EXPECT_EQ(state.v[i], Vec3::Zero());
    EXPECT_EQ(state.omega[i], 0.0);
  }
  for (int k = 0; k <= 70; ++k) {
    const double u = model->length() * k / 70.0;
    const SplineSample s = model->spline().Sample(u);
    // Round-off of a few ulps of the coordinates (about 1).
    EXPECT_LT((state.Position(s) - (start + u * dir)).norm(), 1e-13) << u;
    EXPECT_NEAR(state.Tangent(s).norm(), 1.0, 1e-12) << u;
    EXPECT_LT((state.Tangent(s) - dir).norm(), 1e-12) << u;
    EXPECT_LT(state.Curvature(s).norm(), 1e-9) << u;
    EXPECT_EQ(state.Twist(s), 0.0);
  }
}

// Along a bent polyline the control points are the polyline's points at the Greville
// abscissae (the resampling by arc length, across the corner).
TEST(RodModelTest, InitialStateResamplesBentPolyline) {
  const std::vector<Vec3> polyline = {Vec3(0, 0, 0), Vec3(1, 0, 0), Vec3(1, 2, 0)};
  const absl::StatusOr<RodModel> model = RodModel::Make(Desc(polyline, 10));
  ASSERT_TRUE(model.ok());
  const RodState state = InitialRodState(*model, polyline);
  for (int i = 0; i < 10; ++i) {
    const double g = model->spline().Greville(i);
    const Vec3 expected = g <= 1.0 ? Vec3(g, 0, 0) : Vec3(1, g - 1.0, 0);
    EXPECT_LT((state.x[i] - expected).norm(), 1e-14) << i;
  }
  // Clamped: the rod starts and ends at the polyline's ends.
  EXPECT_LT((state.Position(model->spline().Sample(0.0)) - polyline.front()).norm(), 1e-14);
  EXPECT_LT((state.Position(model->spline().Sample(3.0)) - polyline.back()).norm(), 1e-14);
}

// Twist blends like positions: a linear twist at the Greville abscissae stays linear.
TEST(RodModelTest, TwistBlendsByTheBasis) {
  const absl::StatusOr<RodModel> model =
      RodModel::Make(Desc({Vec3::Zero(), Vec3(1.2, 0, 0)}, 9));
  ASSERT_TRUE(model.ok());
  RodState state = InitialRodState(*model, {Vec3::Zero(), Vec3(1.2, 0, 0)});
  for (int i = 0; i < 9; ++i) state.theta[i] = 0.25 + 2.0 * model->spline().Greville(i);
  for (const double u : {0.0, 0.2, 0.77, 1.2}) {
    EXPECT_NEAR(state.Twist(model->spline().Sample(u)), 0.25 + 2.0 * u, 1e-14) << u;
  }
}

}  // namespace
}  // namespace ligature
