// RodKkt: the reordered banded solve against a dense LU of the same KKT system assembled
// here from the rod blocks and the rows (absolute, relative, sliding and inactive rows),
// the bandwidth reduction on a ladder of two rods, and when the ordering is recomputed.

#include "server/solver/rod_kkt.h"

#include <gtest/gtest.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <random>
#include <vector>

#include "server/math/types.h"
#include "server/model/rod/rod_dynamics.h"

namespace ligature {
namespace {

constexpr int kDofs = RodModel::kDofsPerPoint;

// One rod's model, a bent moving state, and its assembled system.
struct TestRod {
  RodModel model;
  RodState state;
  RodSystem system;
};

std::unique_ptr<TestRod> MakeRod(int n, double length, const Vec3& offset, int seed) {
  RodDesc d;
  d.id = "rod";
  d.points = {offset, offset + Vec3(length, 0, 0)};
  d.control_points = n;
  d.material.radius = 0.01;
  d.material.young = 1.0e7;
  d.material.shear = 4.0e6;
  d.material.damping = 0.5;
  absl::StatusOr<RodModel> model = RodModel::Make(d);
  EXPECT_TRUE(model.ok());
  auto rod = std::make_unique<TestRod>(TestRod{*std::move(model), {}, {}});
  rod->state = InitialRodState(rod->model, d.points);
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> r(-1.0, 1.0);
  for (int i = 0; i < n; ++i) {
    rod->state.x[i] += 0.02 * Vec3(r(rng), r(rng), r(rng));
    rod->state.theta[i] = 0.1 * r(rng);
    rod->state.v[i] = Vec3(r(rng), r(rng), r(rng));
    rod->state.omega[i] = r(rng);
  }
  AssembleRodSystem(rod->model, rod->state, 0.01, Vec3(0, -9.81, 0), {}, &rod->system);
  return rod;
}

// Terms scale * b_i(u) dir on the position DOFs of rod `rod` (first point `first`) at u.
void AddPointTerms(const TestRod& rod, int first, double u, const Vec3& dir, double scale,
                   KktRow* row) {
  const SplineSample s = rod.model.spline().Sample(u);
  for (int k = 0; k < 4; ++k) {
    for (int d = 0; d < 3; ++d) {
      if (dir[d] != 0.0) {
        row->terms.emplace_back(kDofs * (first + s.first + k) + d, scale * s.b[k] * dir[d]);
      }
    }
  }
}

int AnchorAt(const TestRod& rod, int first, double u) {
  const SplineSample s = rod.model.spline().Sample(u);
  return first + s.first +
         static_cast<int>(std::max_element(s.b.begin(), s.b.end()) - s.b.begin());
}

// The dense KKT matrix and right-hand side in the natural order (rod DOFs, then per group
// its slide and its rows), solved by full-pivoting LU.
struct DenseSolution {
  Eigen::VectorXd dx;
  std::vector<double> slide;
  std::vector<std::vector<double>> force;
};

DenseSolution DenseSolve(const KktProblem& p) {
  int total = kDofs * p.control_points;
  for (const KktGroup& g : p.groups) total += (g.has_slide ? 1 : 0) + g.rows.size();
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(total, total);
  Eigen::VectorXd b = Eigen::VectorXd::Zero(total);
  for (size_t r = 0; r < p.rods.size(); ++r) {
    const RodSystem& sys = *p.rods[r];
    const int base = kDofs * p.first_point[r];
    for (int i = 0; i < sys.control_points(); ++i) {
      b.segment<4>(base + kDofs * i) = sys.rhs[i];
      for (int k = 0; k < 4 && i + k < sys.control_points(); ++k) {
        a.block<4, 4>(base + kDofs * i, base + kDofs * (i + k)) += sys.upper[i][k];
        if (k > 0) {
          a.block<4, 4>(base + kDofs * (i + k), base + kDofs * i) +=
              sys.upper[i][k].transpose();
        }
      }
    }
  }
  int next = kDofs * p.control_points;
  std::vector<int> slide_index, row_index;
  for (const KktGroup& g : p.groups) {
    const int slide = g.has_slide ? next++ : -1;
    slide_index.push_back(slide);
    if (g.has_slide) a(slide, slide) = g.slide_diagonal;
    row_index.push_back(next);
    for (const KktRow& row : g.rows) {
      const int q = next++;
      if (!row.active) {
        a(q, q) = 1.0;  // its multiplier is zero; the row imposes nothing
        continue;
      }
      for (const auto& [dof, coeff] : row.terms) {
        a(q, dof) += coeff;
        a(dof, q) += coeff;
      }
      if (g.has_slide) {
        a(q, slide) = row.slide_coeff;
        a(slide, q) = row.slide_coeff;
      }
      b[q] = row.rhs;
    }
  }
  const Eigen::VectorXd x = a.fullPivLu().solve(b);
  DenseSolution out;
  out.dx = x.head(kDofs * p.control_points);
  for (size_t g = 0; g < p.groups.size(); ++g) {
    out.slide.push_back(slide_index[g] >= 0 ? x[slide_index[g]] : 0.0);
    std::vector<double> f;
    for (size_t k = 0; k < p.groups[g].rows.size(); ++k) f.push_back(-x[row_index[g] + k]);
    out.force.push_back(f);
  }
  return out;
}

// Compares a banded solution with the dense one, relative to the largest magnitudes.
void ExpectMatchesDense(const KktProblem& p, const KktSolution& sol) {
  const DenseSolution ref = DenseSolve(p);
  ASSERT_EQ(sol.dx.size(), static_cast<size_t>(ref.dx.size()));
  const double dx_scale = ref.dx.cwiseAbs().maxCoeff();
  double force_scale = 0.0, slide_scale = 0.0;
  for (size_t g = 0; g < p.groups.size(); ++g) {
    slide_scale = std::max(slide_scale, std::abs(ref.slide[g]));
    for (const double f : ref.force[g]) force_scale = std::max(force_scale, std::abs(f));
  }
  // Both are backward-stable LUs of a system with condition number ~1e6, and the banded
  // one adds a 1e-14 m/N compliance: agreement to 1e-8 of the largest values.
  for (size_t i = 0; i < sol.dx.size(); ++i) {
    EXPECT_NEAR(sol.dx[i], ref.dx[i], 1e-8 * dx_scale) << "dx " << i;
  }
  ASSERT_EQ(sol.slide.size(), p.groups.size());
  ASSERT_EQ(sol.force.size(), p.groups.size());
  for (size_t g = 0; g < p.groups.size(); ++g) {
    EXPECT_NEAR(sol.slide[g], ref.slide[g], 1e-8 * slide_scale + 1e-15) << "slide " << g;
    ASSERT_EQ(sol.force[g].size(), p.groups[g].rows.size());
    for (size_t k = 0; k < sol.force[g].size(); ++k) {
      EXPECT_NEAR(sol.force[g][k], ref.force[g][k], 1e-8 * force_scale)
          << "group " << g << " row " << k;
    }
  }
}

// The residual of the active rows: J dx + slide_coeff ds - E.
double RowResidual(const KktProblem& p, const KktSolution& sol) {
  double worst = 0.0;
  for (size_t g = 0; g < p.groups.size(); ++g) {
    for (const KktRow& row : p.groups[g].rows) {
      if (!row.active) continue;
      double r = row.slide_coeff * sol.slide[g] - row.rhs;
      for (const auto& [dof, coeff] : row.terms) r += coeff * sol.dx[dof];
      worst = std::max(worst, std::abs(r));
    }
  }
  return worst;
}

// Two rods (A: 8 points from system point 0, B: 6 points from 8) with every kind of group.
class RodKktTest : public ::testing::Test {
 protected:
  RodKktTest()
      : a_(MakeRod(8, 0.6, Vec3::Zero(), 1)), b_(MakeRod(6, 0.4, Vec3(0, 0.1, 0), 2)) {}

  KktProblem TwoRods() const {
    KktProblem p;
    p.rods = {&a_->system, &b_->system};
    p.first_point = {0, 8};
    p.control_points = 14;
    return p;
  }

  // Absolute: three position rows on A at u.
  KktGroup Hold(double u, const Vec3& e) const {
    KktGroup g;
    for (int k = 0; k < 3; ++k) {
      KktRow row;
      AddPointTerms(*a_, 0, u, Vec3::Unit(k), 1.0, &row);
      row.rhs = e[k];
      g.rows.push_back(row);
    }
    g.anchor_a = AnchorAt(*a_, 0, u);
    return g;
  }
  // Relative: rows x_A(ua) - x_B(ub) along `dirs`.
  KktGroup Link(double ua, double ub, const std::vector<Vec3>& dirs, double e) const {
    KktGroup g;
    for (const Vec3& d : dirs) {
      KktRow row;
      AddPointTerms(*a_, 0, ua, d, 1.0, &row);
      AddPointTerms(*b_, 8, ub, d, -1.0, &row);
      row.rhs = e;
      g.rows.push_back(row);
    }
    g.anchor_a = AnchorAt(*a_, 0, ua);
    g.anchor_b = AnchorAt(*b_, 8, ub);
    return g;
  }
  // Sliding: A passes through a point with slope `slope`, and friction `c` on the slide.
  KktGroup Keyhole(double u, const Vec3& slope, double c, const Vec3& e) const {
    KktGroup g = Hold(u, e);
    g.has_slide = true;
    g.slide_diagonal = c;
    for (int k = 0; k < 3; ++k) g.rows[k].slide_coeff = slope[k];
    return g;
  }
  // A twist row on B at u.
  KktGroup Twist(double u, double e) const {
    KktGroup g;
    KktRow row;
    const SplineSample s = b_->model.spline().Sample(u);
    for (int k = 0; k < 4; ++k) row.terms.emplace_back(kDofs * (8 + s.first + k) + 3, s.b[k]);
    row.rhs = e;
    g.rows.push_back(row);
    g.anchor_a = AnchorAt(*b_, 8, u);
    return g;
  }

  std::unique_ptr<TestRod> a_, b_;
};

TEST_F(RodKktTest, MatchesDenseSolve) {
  KktProblem p = TwoRods();
  p.groups.push_back(Hold(0.0, Vec3(0.001, -0.002, 0.0005)));
  p.groups.push_back(Link(0.45, 0.1, {Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()}, 0.003));
  p.groups.push_back(Keyhole(0.3, Vec3(1.0, 0.1, -0.05), 0.7, Vec3(0.002, 0.0, -0.001)));
  p.groups.push_back(Twist(0.25, 0.01));
  p.groups.push_back(Link(0.1, 0.35, {Vec3(0, 0.6, 0.8)}, -0.002));
  // A relative group between two points of rod A (overlapping supports).
  KktGroup same;
  KktRow row;
  AddPointTerms(*a_, 0, 0.52, Vec3::UnitY(), 1.0, &row);
  AddPointTerms(*a_, 0, 0.58, Vec3::UnitY(), -1.0, &row);
  row.rhs = 0.001;
  same.rows.push_back(row);
  same.anchor_a = AnchorAt(*a_, 0, 0.52);
  same.anchor_b = AnchorAt(*a_, 0, 0.58);
  p.groups.push_back(same);
  // A frictionless sliding group.
  p.groups.push_back(Keyhole(0.2, Vec3(0.9, -0.2, 0.1), 0.0, Vec3(0.0, 0.001, 0.0)));

  RodKkt kkt;
  const absl::StatusOr<KktSolution> sol = kkt.Solve(p);
  ASSERT_TRUE(sol.ok()) << sol.status();
  EXPECT_EQ(sol->unknowns, kDofs * 14 + 3 + 3 + 4 + 1 + 1 + 1 + 4);
  ExpectMatchesDense(p, *sol);
  // The rows are met (they are consistent and independent) up to the 1e-14 m/N compliance
  // times forces of at most ~1e3 N; the slides move.
  EXPECT_LT(RowResidual(p, *sol), 1e-10);
  EXPECT_NE(sol->slide[2], 0.0);
  EXPECT_EQ(sol->slide[0], 0.0);
  // The bandwidth the solution reports is the reordered one.
  EXPECT_LE(sol->bandwidth, kkt.NaturalBandwidth(p));
}

// An inactive row carries no force and changes nothing else.
TEST_F(RodKktTest, InactiveRowHasNoForce) {
  KktProblem p = TwoRods();
  p.groups.push_back(Hold(0.0, Vec3(0.001, 0.0, 0.0)));
  p.groups.push_back(Link(0.3, 0.2, {Vec3::UnitY()}, 0.004));
  KktProblem without = p;
  without.groups.pop_back();
  p.groups.back().rows[0].active = false;

  RodKkt kkt;
  const absl::StatusOr<KktSolution> sol = kkt.Solve(p);
  ASSERT_TRUE(sol.ok());
  EXPECT_EQ(sol->force[1][0], 0.0);
  ExpectMatchesDense(p, *sol);
  RodKkt other;
  const absl::StatusOr<KktSolution> ref = other.Solve(without);
  ASSERT_TRUE(ref.ok());
  // Different orderings (the link is not in the graph without it): round-off only.
  double scale = 0.0;
  for (const double d : ref->dx) scale = std::max(scale, std::abs(d));
  for (size_t i = 0; i < ref->dx.size(); ++i) {
    EXPECT_NEAR(sol->dx[i], ref->dx[i], 1e-9 * scale) << i;
  }
  // Active, the same row does push.
  p.groups.back().rows[0].active = true;
  const absl::StatusOr<KktSolution> active = kkt.Solve(p);
  ASSERT_TRUE(active.ok());
  EXPECT_GT(std::abs(active->force[1][0]), 1e-3);
}

// Two identical holds on one point (redundant but consistent) are solvable and together
// carry the force one of them alone would.
TEST_F(RodKktTest, RedundantHoldsShareTheForce) {
  KktProblem one = TwoRods();
  one.groups.push_back(Hold(0.3, Vec3(0.001, -0.002, 0.0)));
  KktProblem two = one;
  two.groups.push_back(Hold(0.3, Vec3(0.001, -0.002, 0.0)));
  RodKkt kkt;
  const absl::StatusOr<KktSolution> s1 = kkt.Solve(one);
  const absl::StatusOr<KktSolution> s2 = kkt.Solve(two);
  ASSERT_TRUE(s1.ok());
  ASSERT_TRUE(s2.ok()) << s2.status();
  for (int k = 0; k < 3; ++k) {
    const double f = s1->force[0][k];
    // Only the total is determined (the split is set by the 1e-14 m/N compliance against
    // round-off); it matches to the round-off of the near-singular pivot.
    EXPECT_NEAR(s2->force[0][k] + s2->force[1][k], f, 1e-6 * std::abs(f)) << k;
  }
  double scale = 0.0;
  for (const double d : s1->dx) scale = std::max(scale, std::abs(d));
  for (size_t i = 0; i < s1->dx.size(); ++i) {
    EXPECT_NEAR(s2->dx[i], s1->dx[i], 1e-6 * scale) << i;
  }
}

// Two parallel rods joined by many one-row links: in the natural order the links sit after
// all the rods' DOFs; reordered they sit next to the points they join.
TEST(RodKktLadderTest, ReorderingShrinksTheBand) {
  const auto a = MakeRod(40, 1.0, Vec3::Zero(), 3);
  const auto b = MakeRod(40, 1.0, Vec3(0, 0, 0.05), 4);
  KktProblem p;
  p.rods = {&a->system, &b->system};
  p.first_point = {0, 40};
  p.control_points = 80;
  for (int i = 0; i < 40; i += 3) {
    KktGroup g;
    KktRow row;
    row.terms = {{kDofs * i + 2, 1.0}, {kDofs * (40 + i) + 2, -1.0}};
    row.rhs = 0.001 * (i % 7 - 3);
    g.rows.push_back(row);
    g.anchor_a = i;
    g.anchor_b = 40 + i;
    p.groups.push_back(g);
  }
  // And a hold at one end of each rod.
  for (const int point : {0, 79}) {
    KktGroup g;
    for (int k = 0; k < 3; ++k) {
      KktRow row;
      row.terms = {{kDofs * point + k, 1.0}};
      g.rows.push_back(row);
    }
    g.anchor_a = point;
    p.groups.push_back(g);
  }
  RodKkt kkt;
  const int natural = kkt.NaturalBandwidth(p);
  const absl::StatusOr<KktSolution> sol = kkt.Solve(p);
  ASSERT_TRUE(sol.ok());
  std::cout << "ladder half-bandwidth: natural " << natural << ", reordered "
            << sol->bandwidth << " (" << sol->unknowns << " unknowns)\n";
  // Naturally the first link row couples with point 0: about 4 * 80 apart. Reordered, a
  // band holds a few control points of each rod and the links between them.
  EXPECT_GE(natural, kDofs * 80);
  EXPECT_LT(sol->bandwidth, natural / 4);
  ExpectMatchesDense(p, *sol);
  EXPECT_EQ(kkt.reorders(), 1);
}

// The ordering depends only on the points and the relative groups' anchors: absolute
// groups that move along a rod are re-attached without reordering.
TEST_F(RodKktTest, OrderingReusedUntilTheGraphChanges) {
  KktProblem p = TwoRods();
  p.groups.push_back(Hold(0.05, Vec3(0.001, 0.0, 0.0)));
  p.groups.push_back(Link(0.3, 0.2, {Vec3::UnitX(), Vec3::UnitZ()}, 0.002));
  p.groups.push_back(Keyhole(0.5, Vec3(1.0, 0.0, 0.0), 0.2, Vec3(0.0, 0.001, 0.0)));
  RodKkt kkt;
  EXPECT_EQ(kkt.reorders(), 0);
  ASSERT_TRUE(kkt.Solve(p).ok());
  EXPECT_EQ(kkt.reorders(), 1);
  ASSERT_TRUE(kkt.Solve(p).ok());
  EXPECT_EQ(kkt.reorders(), 1);

  // The hold and the keyhole move to other control points: same graph.
  p.groups[0] = Hold(0.55, Vec3(0.001, 0.0, 0.0));
  p.groups[2] = Keyhole(0.12, Vec3(1.0, 0.0, 0.0), 0.2, Vec3(0.0, 0.001, 0.0));
  ASSERT_NE(p.groups[0].anchor_a, Hold(0.05, Vec3::Zero()).anchor_a);
  absl::StatusOr<KktSolution> sol = kkt.Solve(p);
  ASSERT_TRUE(sol.ok());
  EXPECT_EQ(kkt.reorders(), 1);
  ExpectMatchesDense(p, *sol);

  // The link's anchors change: reordered, and still right.
  p.groups[1] = Link(0.5, 0.35, {Vec3::UnitX(), Vec3::UnitZ()}, 0.002);
  ASSERT_NE(p.groups[1].anchor_a, Link(0.3, 0.2, {}, 0.0).anchor_a);
  sol = kkt.Solve(p);
  ASSERT_TRUE(sol.ok());
  EXPECT_EQ(kkt.reorders(), 2);
  ExpectMatchesDense(p, *sol);
  ASSERT_TRUE(kkt.Solve(p).ok());
  EXPECT_EQ(kkt.reorders(), 2);

  // A new relative group changes the graph too.
  p.groups.push_back(Link(0.1, 0.05, {Vec3::UnitY()}, 0.0));
  sol = kkt.Solve(p);
  ASSERT_TRUE(sol.ok());
  EXPECT_EQ(kkt.reorders(), 3);
  ExpectMatchesDense(p, *sol);
}

// Forces on rod unknowns alone, solved with the last factorization, move the rods as the
// dense system with those forces as its only right-hand side does (no force of the rods'
// own, no violation), so every row still holds; the compliance columns are the same
// solves, symmetric.
TEST_F(RodKktTest, ResolveForcesKeepsTheRowsAndMatchesDense) {
  KktProblem p = TwoRods();
  p.groups.push_back(Hold(0.0, Vec3(0.001, -0.002, 0.0005)));
  p.groups.push_back(Link(0.45, 0.1, {Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ()}, 0.003));
  p.groups.push_back(Keyhole(0.3, Vec3(1.0, 0.1, -0.05), 0.7, Vec3(0.002, 0.0, -0.001)));
  RodKkt kkt;
  ASSERT_TRUE(kkt.Solve(p).ok());
  const std::vector<std::pair<int, double>> forces = {
      {kDofs * 3 + 1, 2.0}, {kDofs * 4 + 0, -1.5}, {kDofs * 10 + 2, 0.7}, {kDofs * 3 + 1, 0.5}};
  const absl::StatusOr<KktSolution> sol = kkt.ResolveForces(p, forces);
  ASSERT_TRUE(sol.ok()) << sol.status();

  // The same problem with the forces as the rods' right-hand side and no violations.
  RodSystem sa = a_->system, sb = b_->system;
  for (Vec4& f : sa.rhs) f.setZero();
  for (Vec4& f : sb.rhs) f.setZero();
  for (const auto& [dof, force] : forces) {
    const int point = dof / kDofs;
    (point < 8 ? sa.rhs[point] : sb.rhs[point - 8])[dof % kDofs] += force;
  }
  KktProblem loaded = p;
  loaded.rods = {&sa, &sb};
  for (KktGroup& g : loaded.groups) {
    for (KktRow& row : g.rows) row.rhs = 0.0;
  }
  ExpectMatchesDense(loaded, *sol);
  EXPECT_LT(RowResidual(loaded, *sol), 1e-12);
  EXPECT_NE(sol->slide[2], 0.0);

  // Columns: unit forces on a few unknowns.
  const std::vector<int> unknowns = {kDofs * 3 + 1, kDofs * 4 + 0, kDofs * 10 + 2, kDofs * 12 + 1};
  const absl::StatusOr<Eigen::MatrixXd> c = kkt.ComplianceColumns(p, unknowns);
  ASSERT_TRUE(c.ok()) << c.status();
  const double scale = c->cwiseAbs().maxCoeff();
  EXPECT_GT(scale, 0.0);
  for (size_t k = 0; k < unknowns.size(); ++k) {
    const std::vector<std::pair<int, double>> unit = {{unknowns[k], 1.0}};
    const absl::StatusOr<KktSolution> column = kkt.ResolveForces(p, unit);
    ASSERT_TRUE(column.ok());
    for (size_t i = 0; i < unknowns.size(); ++i) {
      EXPECT_EQ((*c)(i, k), column->dx[unknowns[i]]);
      EXPECT_NEAR((*c)(i, k), (*c)(k, i), 1e-9 * scale);
    }
    EXPECT_GT((*c)(k, k), 0.0);
  }

  // Refused: a problem of another size, an unknown that is not a rod's.
  KktProblem smaller = p;
  smaller.groups.pop_back();
  EXPECT_EQ(kkt.ResolveForces(smaller, forces).status().code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(kkt.ComplianceColumns(smaller, unknowns).status().code(),
            absl::StatusCode::kFailedPrecondition);
  const std::vector<std::pair<int, double>> bad = {{kDofs * 14, 1.0}};
  EXPECT_EQ(kkt.ResolveForces(p, bad).status().code(), absl::StatusCode::kInvalidArgument);
  const std::vector<int> bad_unknowns = {-1};
  EXPECT_EQ(kkt.ComplianceColumns(p, bad_unknowns).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace ligature
