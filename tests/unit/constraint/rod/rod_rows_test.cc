// Rod constraint rows: for every kind the Jacobian terms (and the slide coefficients of
// keyholes) match finite differences of the violation g = -E on two bent rods placed at
// different offsets in the system; E after PrepareRodConstraintStep for the linear kinds;
// held rods; anchors; GroupViolation with unilateral rows.

#include "server/constraint/rod/rod_rows.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/math/transform.h"
#include "server/math/types.h"

namespace ligature {
namespace {

constexpr int kDofs = RodModel::kDofsPerPoint;
constexpr double kH = 0.01;
const std::string kRodIds[2] = {"A", "B"};

struct TestRod {
  RodModel model;
  RodState state;
};

TestRod MakeRod(int n, double length) {
  RodDesc d;
  d.id = "rod";
  d.points = {Vec3::Zero(), Vec3(length, 0, 0)};
  d.control_points = n;
  absl::StatusOr<RodModel> model = RodModel::Make(d);
  EXPECT_TRUE(model.ok());
  TestRod rod{*std::move(model), {}};
  rod.state = InitialRodState(rod.model, d.points);
  return rod;
}

// Two bent, slightly stretched, twisted rods: A (10 points, first point 0 in the system)
// and B (8 points, first point 20), with unused system points in between.
class RodRowsTest : public ::testing::Test {
 protected:
  RodRowsTest() : a_(MakeRod(10, 1.0)), b_(MakeRod(8, 0.7)) {
    for (int i = 0; i < 10; ++i) {
      const double g = a_.model.spline().Greville(i);
      a_.state.x[i] = Vec3(1.05 * g, 0.15 * std::sin(2.5 * g), 0.08 * std::cos(3.0 * g));
      a_.state.theta[i] = 0.2 * g + 0.1 * std::sin(4.0 * g);
    }
    for (int i = 0; i < 8; ++i) {
      const double g = b_.model.spline().Greville(i);
      b_.state.x[i] = Vec3(0.2 + 0.1 * g, 0.5 + 0.9 * g, -0.1 + 0.05 * std::sin(5.0 * g));
      b_.state.theta[i] = -0.3 * g;
    }
  }

  std::vector<RodView> Views(const RodState& sa, const RodState& sb) const {
    return {{&a_.model, &sa, first_[0]}, {&b_.model, &sb, first_[1]}};
  }
  std::vector<RodView> Views() const { return Views(a_.state, b_.state); }
  int Columns() const { return kDofs * 28; }

  // A constraint on rod a_rod at ua (and rod b_rod at ub for relative kinds).
  RodConstraint Make(RodConstraintKind kind, int a_rod, double ua, int b_rod = -1,
                     double ub = 0.0) const {
    RodConstraint c;
    c.desc.kind = kind;  // the rows do not use the id
    c.desc.a.rod = kRodIds[a_rod];
    c.desc.a.u = ua;
    c.rod_a = a_rod;
    c.u_a = ua;
    if (b_rod >= 0) {
      c.desc.b.rod = kRodIds[b_rod];
      c.desc.b.u = ub;
      c.rod_b = b_rod;
      c.u_b = ub;
    }
    return c;
  }

  // A fusion set up as when it is added: the relative rotation takes a's unit tangent to b's.
  RodConstraint Fusion(int a_rod, double ua, int b_rod, double ub) const {
    RodConstraint c = Make(RodConstraintKind::kFusion, a_rod, ua, b_rod, ub);
    const Vec3 ta = UnitTangent(a_rod, ua), tb = UnitTangent(b_rod, ub);
    c.reference_tangent = ta;
    c.relative = Quat::FromTwoVectors(ta, tb).toRotationMatrix();
    return c;
  }

  const TestRod& rod(int r) const { return r == 0 ? a_ : b_; }
  Vec3 Point(int r, double u) const {
    return rod(r).state.Position(rod(r).model.spline().Sample(u));
  }
  Vec3 Slope(int r, double u) const {
    return rod(r).state.Tangent(rod(r).model.spline().Sample(u));
  }
  Vec3 UnitTangent(int r, double u) const { return Slope(r, u).normalized(); }

  // Compares the group's terms and slide coefficients with central differences of g over
  // every DOF of both rods (and the slide).
  void CheckJacobian(const RodConstraint& c, const std::string& label) const {
    const KktGroup group = BuildRodRows(c, Views(), kH);
    const int rows = static_cast<int>(group.rows.size());
    ASSERT_GT(rows, 0) << label;
    Eigen::MatrixXd j = Eigen::MatrixXd::Zero(rows, Columns());
    for (int k = 0; k < rows; ++k) {
      for (const auto& [dof, coeff] : group.rows[k].terms) {
        ASSERT_GE(dof, 0) << label;
        ASSERT_LT(dof, Columns()) << label;
        j(k, dof) += coeff;  // a point of both a and b on one rod appears twice
      }
    }
    // Nothing on the system points between the two rods.
    EXPECT_TRUE(j.middleCols(kDofs * 10, kDofs * 10).isZero(0.0)) << label;

    const double eps = 1e-6;
    auto violation = [&](const RodState& sa, const RodState& sb, const RodConstraint& cc) {
      const KktGroup g = BuildRodRows(cc, Views(sa, sb), kH);
      Eigen::VectorXd v(g.rows.size());
      for (size_t k = 0; k < g.rows.size(); ++k) v[k] = -g.rows[k].rhs;
      return v;
    };
    for (int r = 0; r < 2; ++r) {
      for (int i = 0; i < rod(r).model.control_points(); ++i) {
        for (int a = 0; a < kDofs; ++a) {
          RodState plus = rod(r).state, minus = rod(r).state;
          (a < 3 ? plus.x[i][a] : plus.theta[i]) += eps;
          (a < 3 ? minus.x[i][a] : minus.theta[i]) -= eps;
          const Eigen::VectorXd gp = r == 0 ? violation(plus, b_.state, c)
                                            : violation(a_.state, plus, c);
          const Eigen::VectorXd gm = r == 0 ? violation(minus, b_.state, c)
                                            : violation(a_.state, minus, c);
          const Eigen::VectorXd fd = (gp - gm) / (2.0 * eps);
          const int col = kDofs * (first_[r] + i) + a;
          // g is linear or smooth in the DOFs: round-off ~ 1e-16 / eps, truncation ~ eps^2.
          for (int k = 0; k < rows; ++k) {
            EXPECT_NEAR(j(k, col), fd[k], 1e-7)
                << label << ": row " << k << " rod " << r << " point " << i << " dof " << a;
          }
        }
      }
    }
    // The slide: dg/ds, that is x'(s) (and x''(s) for the orientation rows).
    if (group.has_slide) {
      RodConstraint plus = c, minus = c;
      plus.u_a += eps;
      minus.u_a -= eps;
      const Eigen::VectorXd fd =
          (violation(a_.state, b_.state, plus) - violation(a_.state, b_.state, minus)) /
          (2.0 * eps);
      for (int k = 0; k < rows; ++k) {
        EXPECT_NEAR(group.rows[k].slide_coeff, fd[k], 1e-6 * (1.0 + std::abs(fd[k])))
            << label << ": slide, row " << k;
      }
    } else {
      for (const KktRow& row : group.rows) EXPECT_EQ(row.slide_coeff, 0.0) << label;
    }
  }

  TestRod a_, b_;
  int first_[2] = {0, 20};
};

TEST_F(RodRowsTest, JacobianMatchesFiniteDifferencesForEveryKind) {
  using K = RodConstraintKind;
  // Each case: a constraint and the edits of its description.
  using Edit = std::function<void(RodConstraintDesc&)>;
  auto with = [](RodConstraint c, const Edit& edit) {
    edit(c.desc);
    return c;
  };
  std::vector<RodConstraint> cases = {
      with(Make(K::kPosition, 0, 0.37),
           [](RodConstraintDesc& d) { d.target = Vec3(0.3, 0.1, 0.0); }),
      Make(K::kPosition, 1, 0.2),
      with(Make(K::kOrientation, 0, 0.55),
           [](RodConstraintDesc& d) {
             d.direction = Vec3(0, 1, 1).normalized();
             d.twist = 0.4;
           }),
      with(Make(K::kPlane, 1, 0.5),
           [](RodConstraintDesc& d) { d.direction = Vec3(1, 2, -1).normalized(); }),
      with(Make(K::kAxis, 0, 0.81),
           [](RodConstraintDesc& d) {
             d.direction = Vec3(0.2, 0.3, 1.0).normalized();
             d.target = Vec3(0.5, 0.0, 0.0);
           }),
      with(Make(K::kSphere, 1, 0.6),
           [](RodConstraintDesc& d) {
             d.target = Vec3(0.0, 0.0, 0.3);
             d.distance = 0.5;
           }),
      with(Make(K::kKeyhole, 0, 0.44),
           [](RodConstraintDesc& d) {
             d.target = Vec3(0.5, 0.2, 0.0);
             d.friction = 0.3;
           }),
      with(Make(K::kKeyhole, 0, 0.44),
           [](RodConstraintDesc& d) {
             d.oriented = true;
             d.direction = Vec3(1.0, 0.2, 0.0).normalized();
           }),
      Fusion(0, 0.63, 1, 0.12),
      with(Make(K::kDistance, 0, 0.2, 1, 0.45), [](RodConstraintDesc& d) { d.distance = 0.3; }),
      // Two points of one rod whose supports overlap: their terms add up.
      with(Make(K::kDistance, 0, 0.3, 0, 0.36), [](RodConstraintDesc& d) { d.distance = 0.1; }),
      with(Make(K::kRelativePlane, 0, 0.7, 1, 0.3),
           [](RodConstraintDesc& d) {
             d.direction = Vec3::UnitZ();
             d.distance = 0.05;
           }),
      with(Make(K::kRelativePlane, 0, 0.7, 1, 0.3),
           [](RodConstraintDesc& d) { d.normal_from_tangent = true; }),
      with(Make(K::kRelativeKeyhole, 0, 0.5, 1, 0.25),
           [](RodConstraintDesc& d) { d.friction = 2.0; }),
      Fusion(1, 0.4, 0, 0.9),
  };

  for (size_t k = 0; k < cases.size(); ++k) {
    RodConstraint& c = cases[k];
    PrepareRodConstraintStep(c, Views(), nullptr);
    CheckJacobian(c, absl::StrCat("case ", k, " (kind ", static_cast<int>(c.desc.kind), ")"));
  }
}

TEST_F(RodRowsTest, RowCountsAndSlides) {
  using K = RodConstraintKind;
  const std::vector<RodView> views = Views();
  auto rows = [&](RodConstraint c) {
    PrepareRodConstraintStep(c, views, nullptr);
    return BuildRodRows(c, views, kH);
  };
  EXPECT_EQ(rows(Make(K::kPosition, 0, 0.5)).rows.size(), 3u);
  EXPECT_EQ(rows(Make(K::kOrientation, 0, 0.5)).rows.size(), 3u);
  RodConstraint twisted = Make(K::kOrientation, 0, 0.5);
  twisted.desc.twist = 0.0;
  EXPECT_EQ(rows(twisted).rows.size(), 4u);
  EXPECT_EQ(rows(Make(K::kPlane, 0, 0.5)).rows.size(), 1u);
  EXPECT_EQ(rows(Make(K::kAxis, 0, 0.5)).rows.size(), 2u);
  EXPECT_EQ(rows(Make(K::kSphere, 0, 0.5)).rows.size(), 1u);
  EXPECT_EQ(rows(Fusion(0, 0.5, 1, 0.5)).rows.size(), 6u);
  EXPECT_EQ(rows(Make(K::kDistance, 0, 0.5, 1, 0.5)).rows.size(), 1u);
  EXPECT_EQ(rows(Make(K::kRelativePlane, 0, 0.5, 1, 0.5)).rows.size(), 1u);
  EXPECT_FALSE(rows(Make(K::kPosition, 0, 0.5)).has_slide);

  // Keyholes: a slide with the viscous friction c |x'|^2 / h on its diagonal.
  RodConstraint keyhole = Make(K::kKeyhole, 0, 0.44);
  keyhole.desc.friction = 0.3;
  const KktGroup k = rows(keyhole);
  EXPECT_EQ(k.rows.size(), 3u);
  EXPECT_TRUE(k.has_slide);
  EXPECT_NEAR(k.slide_diagonal, 0.3 * Slope(0, 0.44).squaredNorm() / kH, 1e-12);
  keyhole.desc.oriented = true;
  EXPECT_EQ(rows(keyhole).rows.size(), 6u);
  const KktGroup rk = rows(Make(K::kRelativeKeyhole, 0, 0.5, 1, 0.25));
  EXPECT_EQ(rk.rows.size(), 3u);
  EXPECT_TRUE(rk.has_slide);
  EXPECT_EQ(rk.slide_diagonal, 0.0);
}

// E = -g at the state the step was prepared with, for the constraints linear in the DOFs.
TEST_F(RodRowsTest, LinearRowsViolationAfterPrepare) {
  using K = RodConstraintKind;
  const std::vector<RodView> views = Views();
  auto rhs = [](const KktGroup& g) {
    Eigen::VectorXd e(g.rows.size());
    for (size_t k = 0; k < g.rows.size(); ++k) e[k] = g.rows[k].rhs;
    return e;
  };

  RodConstraint position = Make(K::kPosition, 1, 0.33);
  position.desc.target = Vec3(0.1, 0.2, 0.3);
  PrepareRodConstraintStep(position, views, nullptr);
  EXPECT_LT((rhs(BuildRodRows(position, views, kH)) - (Vec3(0.1, 0.2, 0.3) - Point(1, 0.33)))
                .norm(), 1e-15);

  // Orientation: g = x'(u) - |x'(u)| d, so only the direction of the tangent is imposed;
  // the twist row's g is theta(u) - twist.
  RodConstraint orientation = Make(K::kOrientation, 0, 0.55);
  const Vec3 d = Vec3(0.0, 3.0, 4.0);
  orientation.desc.direction = d;  // normalized when the step is prepared
  orientation.desc.twist = 0.4;
  PrepareRodConstraintStep(orientation, views, nullptr);
  EXPECT_LT((orientation.direction - d / 5.0).norm(), 1e-15);
  const Vec3 xp = Slope(0, 0.55);
  const Eigen::VectorXd e = rhs(BuildRodRows(orientation, views, kH));
  ASSERT_EQ(e.size(), 4);
  EXPECT_LT((e.head<3>() + (xp - xp.norm() * d / 5.0)).norm(), 1e-14);
  const double theta = a_.state.Twist(a_.model.spline().Sample(0.55));
  EXPECT_NEAR(e[3], 0.4 - theta, 1e-15);
  // Along the current tangent there is nothing to do (but the twist).
  orientation.desc.direction = xp;
  PrepareRodConstraintStep(orientation, views, nullptr);
  EXPECT_LT(rhs(BuildRodRows(orientation, views, kH)).head<3>().norm(), 1e-14);

  RodConstraint plane = Make(K::kPlane, 0, 0.2);
  plane.desc.direction = Vec3(1, 1, 0).normalized();
  plane.desc.target = Vec3(0.5, 0.0, 0.0);
  PrepareRodConstraintStep(plane, views, nullptr);
  EXPECT_NEAR(rhs(BuildRodRows(plane, views, kH))[0],
              -Vec3(1, 1, 0).normalized().dot(Point(0, 0.2) - Vec3(0.5, 0, 0)), 1e-15);

  // Axis: both rows vanish for a point on the line, and the normals are orthonormal and
  // perpendicular to the direction (the terms sum, over the four points, to the normal).
  RodConstraint axis = Make(K::kAxis, 0, 0.81);
  const Vec3 dir = Vec3(0.2, 0.3, 1.0).normalized();
  axis.desc.direction = dir;
  axis.desc.target = Point(0, 0.81) + 0.7 * dir;
  PrepareRodConstraintStep(axis, views, nullptr);
  const KktGroup ag = BuildRodRows(axis, views, kH);
  EXPECT_LT(rhs(ag).norm(), 1e-15);
  Vec3 normals[2] = {Vec3::Zero(), Vec3::Zero()};
  for (int k = 0; k < 2; ++k) {
    for (const auto& [dof, coeff] : ag.rows[k].terms) normals[k][dof % kDofs] += coeff;
    EXPECT_NEAR(normals[k].norm(), 1.0, 1e-14);
    EXPECT_NEAR(normals[k].dot(dir), 0.0, 1e-14);
  }
  EXPECT_NEAR(normals[0].dot(normals[1]), 0.0, 1e-14);

  // Fusion, set up at this state: the points' offset; the tangent rows are already met.
  RodConstraint fusion = Fusion(0, 0.63, 1, 0.12);
  PrepareRodConstraintStep(fusion, views, nullptr);
  EXPECT_NEAR(fusion.tangent_scale, Slope(1, 0.12).norm() / Slope(0, 0.63).norm(), 1e-15);
  const Eigen::VectorXd fe = rhs(BuildRodRows(fusion, views, kH));
  ASSERT_EQ(fe.size(), 6);
  EXPECT_LT((fe.head<3>() + (Point(0, 0.63) - Point(1, 0.12))).norm(), 1e-15);
  EXPECT_LT(fe.tail<3>().norm(), 1e-14);

  RodConstraint rel = Make(K::kRelativePlane, 0, 0.7, 1, 0.3);
  rel.desc.normal_from_tangent = true;
  rel.desc.distance = 0.02;
  PrepareRodConstraintStep(rel, views, nullptr);
  EXPECT_LT((rel.direction - UnitTangent(0, 0.7)).norm(), 1e-15);
  EXPECT_NEAR(rhs(BuildRodRows(rel, views, kH))[0],
              -(UnitTangent(0, 0.7).dot(Point(0, 0.7) - Point(1, 0.3)) - 0.02), 1e-15);
}

// Nonlinear kinds: g at the current state.
TEST_F(RodRowsTest, NonlinearRowsViolation) {
  using K = RodConstraintKind;
  const std::vector<RodView> views = Views();
  RodConstraint sphere = Make(K::kSphere, 1, 0.6);
  sphere.desc.target = Vec3(0.0, 0.0, 0.3);
  sphere.desc.distance = 0.5;
  PrepareRodConstraintStep(sphere, views, nullptr);
  EXPECT_NEAR(BuildRodRows(sphere, views, kH).rows[0].rhs,
              -((Point(1, 0.6) - Vec3(0, 0, 0.3)).norm() - 0.5), 1e-15);

  RodConstraint distance = Make(K::kDistance, 0, 0.2, 1, 0.45);
  distance.desc.distance = 0.3;
  PrepareRodConstraintStep(distance, views, nullptr);
  EXPECT_NEAR(BuildRodRows(distance, views, kH).rows[0].rhs,
              -((Point(0, 0.2) - Point(1, 0.45)).norm() - 0.3), 1e-15);

  RodConstraint keyhole = Make(K::kRelativeKeyhole, 0, 0.5, 1, 0.25);
  PrepareRodConstraintStep(keyhole, views, nullptr);
  const KktGroup kg = BuildRodRows(keyhole, views, kH);
  const Vec3 g = Point(0, 0.5) - Point(1, 0.25);
  for (int k = 0; k < 3; ++k) EXPECT_NEAR(kg.rows[k].rhs, -g[k], 1e-15);
}

// A followed body's pose moves the target and turns the direction.
TEST_F(RodRowsTest, PrepareAppliesFollowedPose) {
  RodConstraint c = Make(RodConstraintKind::kPlane, 0, 0.5);
  c.desc.target = Vec3(0.1, 0.0, 0.0);
  c.desc.direction = Vec3::UnitX();
  Transform pose;
  pose.position = Vec3(1.0, 2.0, 3.0);
  pose.orientation = Quat(Eigen::AngleAxisd(0.5 * std::numbers::pi, Vec3::UnitZ()));
  PrepareRodConstraintStep(c, Views(), &pose);
  EXPECT_LT((c.target - Vec3(1.0, 2.1, 3.0)).norm(), 1e-15);
  EXPECT_LT((c.direction - Vec3::UnitY()).norm(), 1e-15);
  PrepareRodConstraintStep(c, Views(), nullptr);
  EXPECT_EQ(c.target, Vec3(0.1, 0.0, 0.0));
  EXPECT_EQ(c.direction, Vec3::UnitX());
}

// The fusion's relative rotation is carried along when both rods turn together (about an
// axis normal to a's tangent, where the shortest arc is that rotation): still met.
TEST_F(RodRowsTest, FusionRotationFollowsRodA) {
  RodConstraint fusion = Fusion(0, 0.63, 1, 0.12);
  PrepareRodConstraintStep(fusion, Views(), nullptr);
  const Vec3 ta = UnitTangent(0, 0.63);
  const Mat3 q = Eigen::AngleAxisd(0.6, ta.cross(Vec3(0.3, -1.0, 0.5)).normalized())
                     .toRotationMatrix();
  for (Vec3& x : a_.state.x) x = q * x;
  for (Vec3& x : b_.state.x) x = q * x;
  PrepareRodConstraintStep(fusion, Views(), nullptr);
  const KktGroup g = BuildRodRows(fusion, Views(), kH);
  for (int k = 3; k < 6; ++k) EXPECT_NEAR(g.rows[k].rhs, 0.0, 1e-13) << k;
  EXPECT_LT((fusion.relative * UnitTangent(0, 0.63) - UnitTangent(1, 0.12)).norm(), 1e-13);
}

// A held rod (first point -1) contributes no terms; a relative constraint whose rod a is
// held is anchored on b alone.
TEST_F(RodRowsTest, HeldRodContributesNoTerms) {
  using K = RodConstraintKind;
  first_[0] = -1;
  const std::vector<RodView> views = Views();
  RodConstraint position = Make(K::kPosition, 0, 0.4);
  PrepareRodConstraintStep(position, views, nullptr);
  const KktGroup held = BuildRodRows(position, views, kH);
  EXPECT_EQ(held.anchor_a, -1);
  for (const KktRow& row : held.rows) EXPECT_TRUE(row.terms.empty());
  // The violation is still reported.
  EXPECT_NEAR(held.rows[0].rhs, -Point(0, 0.4).x(), 1e-15);

  for (RodConstraint c : {Make(K::kDistance, 0, 0.3, 1, 0.5), Fusion(0, 0.3, 1, 0.5),
                          Make(K::kRelativeKeyhole, 0, 0.3, 1, 0.5)}) {
    PrepareRodConstraintStep(c, views, nullptr);
    const KktGroup g = BuildRodRows(c, views, kH);
    const SplineSample s = b_.model.spline().Sample(0.5);
    const int largest = static_cast<int>(std::max_element(s.b.begin(), s.b.end()) -
                                         s.b.begin());
    EXPECT_EQ(g.anchor_a, 20 + s.first + largest);
    EXPECT_EQ(g.anchor_b, -1);
    for (const KktRow& row : g.rows) {
      for (const auto& [dof, coeff] : row.terms) {
        EXPECT_GE(dof, kDofs * (20 + s.first));
        EXPECT_LT(dof, kDofs * (20 + s.first + 4));
      }
    }
  }
  // Held b: the group is absolute on a.
  first_[0] = 0;
  first_[1] = -1;
  RodConstraint d = Make(K::kDistance, 0, 0.3, 1, 0.5);
  PrepareRodConstraintStep(d, Views(), nullptr);
  const KktGroup g = BuildRodRows(d, Views(), kH);
  EXPECT_GE(g.anchor_a, 0);
  EXPECT_EQ(g.anchor_b, -1);
  for (const auto& [dof, coeff] : g.rows[0].terms) EXPECT_LT(dof, kDofs * 10);
}

// The anchor is the control point with the largest basis weight, offset by first_point.
TEST_F(RodRowsTest, AnchorIsLargestWeight) {
  using K = RodConstraintKind;
  const std::vector<RodView> views = Views();
  auto anchor = [&](int r, double u) {
    RodConstraint c = Make(K::kPosition, r, u);
    PrepareRodConstraintStep(c, views, nullptr);
    return BuildRodRows(c, views, kH).anchor_a;
  };
  EXPECT_EQ(anchor(0, 0.0), 0);
  EXPECT_EQ(anchor(0, 1.0), 9);
  EXPECT_EQ(anchor(1, 0.0), 20);
  EXPECT_EQ(anchor(1, 0.7), 27);
  // At the inner knot 2 h of B the weights are 1/6, 2/3, 1/6 on points 2, 3, 4.
  EXPECT_EQ(anchor(1, 2.0 * b_.model.spline().segment_length()), 23);
  for (int k = 1; k < 200; ++k) {
    const double u = 0.7 * k / 200.0;
    const SplineSample sk = b_.model.spline().Sample(u);
    const int got = anchor(1, u) - 20;
    ASSERT_GE(got, sk.first);
    ASSERT_LT(got, sk.first + 4);
    for (int i = 0; i < 4; ++i) EXPECT_LE(sk.b[i], sk.b[got - sk.first]) << u;
  }
  // Relative: both anchors, each on its own rod.
  RodConstraint d = Make(K::kDistance, 0, 0.0, 1, 0.7);
  PrepareRodConstraintStep(d, views, nullptr);
  const KktGroup g = BuildRodRows(d, views, kH);
  EXPECT_EQ(g.anchor_a, 0);
  EXPECT_EQ(g.anchor_b, 27);
}

// Active rows report |g|; an inactive unilateral row only its penetration max(0, -g).
TEST_F(RodRowsTest, GroupViolationWithUnilateralRows) {
  using K = RodConstraintKind;
  const std::vector<RodView> views = Views();
  const double gap = (Point(0, 0.2) - Point(1, 0.45)).norm();
  RodConstraint d = Make(K::kDistance, 0, 0.2, 1, 0.45);
  d.desc.unilateral = true;
  d.desc.distance = gap + 0.03;  // penetrating by 3 cm
  PrepareRodConstraintStep(d, views, nullptr);
  d.active = false;
  KktGroup g = BuildRodRows(d, views, kH);
  EXPECT_FALSE(g.rows[0].active);
  EXPECT_NEAR(GroupViolation(d, g), 0.03, 1e-14);
  d.active = true;
  g = BuildRodRows(d, views, kH);
  EXPECT_TRUE(g.rows[0].active);
  EXPECT_NEAR(GroupViolation(d, g), 0.03, 1e-14);
  // Separated by 2 cm: an inactive row is satisfied, an active one is 2 cm off.
  d.desc.distance = gap - 0.02;
  EXPECT_NEAR(GroupViolation(d, BuildRodRows(d, views, kH)), 0.02, 1e-14);
  d.active = false;
  EXPECT_EQ(GroupViolation(d, BuildRodRows(d, views, kH)), 0.0);
  // A bilateral row ignores `active`.
  d.desc.unilateral = false;
  g = BuildRodRows(d, views, kH);
  EXPECT_TRUE(g.rows[0].active);
  EXPECT_NEAR(GroupViolation(d, g), 0.02, 1e-14);

  // Several rows: the largest |g|.
  RodConstraint p = Make(K::kPosition, 0, 0.5);
  p.desc.target = Point(0, 0.5) + Vec3(0.01, -0.04, 0.02);
  PrepareRodConstraintStep(p, views, nullptr);
  EXPECT_NEAR(GroupViolation(p, BuildRodRows(p, views, kH)), 0.04, 1e-14);
}

}  // namespace
}  // namespace ligature
