#include "server/solver/tunable_lcp.h"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <vector>

#include "server/constraint/contact_rows.h"
#include "server/solver/gauss_seidel.h"
#include "tests/unit/solver/assembled_system.h"

namespace ligature {
namespace {

using testing::Assemble;
using testing::MatX;
using testing::StackedDisplacements;
using testing::StackedForces;
using testing::VecX;

constexpr double kH = 0.01;     // s
constexpr double kG = 9.81;     // m/s^2
const Vec3 kUp = Vec3::UnitY();

// Compliance h^2 M^-1 of a box of mass m and half extents e, turned by q.
BodyCompliance BoxCompliance(double m, const Vec3& e, const Quat& q = Quat::Identity()) {
  const Vec3 inertia(m / 3.0 * (e.y() * e.y() + e.z() * e.z()),
                     m / 3.0 * (e.x() * e.x() + e.z() * e.z()),
                     m / 3.0 * (e.x() * e.x() + e.y() * e.y()));
  const Mat3 r = q.toRotationMatrix();
  BodyCompliance c;
  c.linear = kH * kH / m;
  c.angular = kH * kH * r * inertia.cwiseInverse().asDiagonal() * r.transpose();
  return c;
}

// Generalized force [f, torque] the rows apply to each body: H_k^T f summed over blocks.
std::vector<Vec6> BodyWrenches(const ConstraintRows& rows, size_t num_bodies) {
  std::vector<Vec6> out(num_bodies, Vec6::Zero());
  for (const ConstraintBlock& b : rows.blocks) {
    const Vec3 f = b.force;
    if (b.body_a != kWorldBody) out[b.body_a] += b.jacobian_a.transpose() * f;
    if (b.body_b != kWorldBody) out[b.body_b] += b.jacobian_b.transpose() * f;
  }
  return out;
}

// A 1D unilateral row of a body against the world at lever arm r with normal n.
ConstraintBlock GroundRow(uint32_t body, const Vec3& r, const Vec3& n, double free) {
  ConstraintBlock b;
  b.law = ConstraintLaw::kUnilateral;
  b.dim = 1;
  b.body_b = body;
  b.jacobian_b.row(0) = PointRow(n, r);
  b.violation_free.x() = free;
  return b;
}

// A 1D unilateral row between two bodies (normal n from a to b) at world point p.
ConstraintBlock PairRow(uint32_t a, const Vec3& oa, uint32_t b, const Vec3& ob, const Vec3& p,
                        const Vec3& n, double free) {
  ConstraintBlock block;
  block.law = ConstraintLaw::kUnilateral;
  block.dim = 1;
  block.body_a = a;
  block.body_b = b;
  block.jacobian_a.row(0) = -PointRow(n, p - oa);
  block.jacobian_b.row(0) = PointRow(n, p - ob);
  block.violation_free.x() = free;
  return block;
}

// Bilateral blocks of dimension 1 to 3 with generic directions on three bodies; W is
// nonsingular (12 rows on 18 DOFs).
ConstraintRows RandomBilateralRows(std::vector<BodyCompliance>* bodies) {
  *bodies = {BoxCompliance(2.0, Vec3(0.3, 0.2, 0.4),
                           Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()))),
             BoxCompliance(5.0, Vec3(0.5, 0.3, 0.2),
                           Quat(Eigen::AngleAxisd(-1.1, Vec3(0, 1, 1).normalized()))),
             BoxCompliance(0.7, Vec3(0.1, 0.4, 0.2))};
  std::mt19937 rng(77);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const auto jacobian = [&] {
    BlockJacobian j;
    for (int r = 0; r < 3; ++r) {
      for (int c = 0; c < 6; ++c) j(r, c) = u(rng);
    }
    return j;
  };
  const struct {
    uint32_t a, b;
    int dim;
  } layout[] = {{kWorldBody, 0, 3}, {0, 1, 2}, {1, 2, 3}, {2, kWorldBody, 1}, {0, 2, 3}};
  ConstraintRows rows;
  for (const auto& l : layout) {
    ConstraintBlock b;
    b.law = ConstraintLaw::kBilateral;
    b.dim = l.dim;
    b.body_a = l.a;
    b.body_b = l.b;
    if (l.a != kWorldBody) b.jacobian_a.topRows(l.dim) = jacobian().topRows(l.dim);
    if (l.b != kWorldBody) b.jacobian_b.topRows(l.dim) = jacobian().topRows(l.dim);
    for (int d = 0; d < l.dim; ++d) b.violation_free[d] = 0.01 * u(rng);
    rows.blocks.push_back(b);
  }
  return rows;
}

// A stack of boxes (1 kg, 1 x 0.5 x 1 m) on the ground, falling freely for one step at rest:
// four corner contacts per interface, built by MakeContactBlock. `slide` is a horizontal
// velocity given to box 2 (when it exists).
struct Stack {
  std::vector<BodyCompliance> bodies;
  ConstraintRows rows;
};

Stack BoxStack(int count, double friction, const Vec3& slide = Vec3::Zero()) {
  const Vec3 half(0.5, 0.25, 0.5);
  Stack s;
  std::vector<ContactBody> cb(count);
  for (int k = 0; k < count; ++k) {
    s.bodies.push_back(BoxCompliance(1.0, half));
    cb[k].index = static_cast<uint32_t>(k);
    cb[k].origin = Vec3(0.0, half.y() * (2 * k + 1), 0.0);
    cb[k].linear_velocity = Vec3(0.0, -kG * kH, 0.0) + (k == 2 ? slide : Vec3::Zero());
  }
  for (int k = 0; k < count; ++k) {
    const ContactBody below = k == 0 ? ContactBody{} : cb[k - 1];
    for (double x : {-half.x(), half.x()}) {
      for (double z : {-half.z(), half.z()}) {
        ContactPoint p;
        p.position = Vec3(x, 2.0 * half.y() * k, z);
        p.normal = kUp;
        p.distance = 0.0;
        s.rows.blocks.push_back(MakeContactBlock(p, below, cb[k], friction, kH));
      }
    }
  }
  return s;
}

// Without unilateral rows the method is plain CG on W f = -delta_free: it reaches the
// direct solution of the assembled system, and the displacements are C H^T f.
TEST(TunableLcpTest, BilateralMatchesDirectSolve) {
  std::vector<BodyCompliance> bodies;
  ConstraintRows rows = RandomBilateralRows(&bodies);
  const testing::AssembledSystem a = Assemble(rows, bodies);
  const Eigen::FullPivLU<MatX> lu(a.w);
  ASSERT_EQ(lu.rank(), a.w.rows());
  const VecX exact = lu.solve(-a.delta);

  TunableLcpSolver solver;
  SolverOptions options;
  options.max_iterations = 500;
  options.tolerance = 1e-15;
  std::vector<Vec6> dq;
  const SolveResult result = solver.Solve(rows, bodies, options, &dq);
  EXPECT_LT(result.iterations, options.max_iterations);
  EXPECT_LT(result.residual, options.tolerance);
  EXPECT_FALSE(result.budget_exhausted);
  const VecX f = StackedForces(rows);
  EXPECT_LT((f - exact).norm(), 1e-9 * exact.norm()) << f.transpose() << "\n" << exact.transpose();
  ASSERT_EQ(dq.size(), bodies.size());
  // The displacements are those of the returned forces (accumulated step by step, so up
  // to round-off), and they satisfy the equality rows.
  const VecX q = StackedDisplacements(dq);
  EXPECT_LT((q - a.c * a.h.transpose() * f).norm(), 1e-12 * q.norm());
  EXPECT_LT((a.delta + a.h * q).cwiseAbs().maxCoeff(), 1e-12);
}

// A box on the ground at four corners, falling for one step: the contacts carry its weight
// exactly (W is singular here: four rows on three DOFs) and never pull.
TEST(TunableLcpTest, BoxOnGroundCarriesItsWeight) {
  const double m = 3.0;
  const Vec3 half(0.5, 0.25, 0.3);
  const std::vector<BodyCompliance> bodies = {BoxCompliance(m, half)};
  // Centre of mass off centre: the corners carry different loads.
  const Vec3 com(0.1, 0.0, -0.05);
  ConstraintRows rows;
  for (double x : {-half.x(), half.x()}) {
    for (double z : {-half.z(), half.z()}) {
      rows.blocks.push_back(GroundRow(0, Vec3(x, -half.y(), z) - com, kUp, -kG * kH * kH));
    }
  }
  TunableLcpSolver solver;
  SolverOptions options;
  options.max_iterations = 100;
  options.tolerance = 1e-12;
  std::vector<Vec6> dq;
  const SolveResult result = solver.Solve(rows, bodies, options, &dq);
  EXPECT_LT(result.residual, options.tolerance);
  double total = 0.0;
  for (const ConstraintBlock& b : rows.blocks) {
    EXPECT_GE(b.force.x(), 0.0);
    total += b.force.x();
  }
  EXPECT_NEAR(total, m * kG, 1e-6 * m * kG);
  // The box stops: the correction cancels the fall and turns nothing.
  EXPECT_NEAR(dq[0][1], kG * kH * kH, 1e-12);
  EXPECT_LT(dq[0].tail<3>().norm(), 1e-12);
}

// A contact that separates ends vanishing with exactly zero force, even warm started from a
// pushing force; its neighbour that penetrates keeps pushing.
TEST(TunableLcpTest, SeparatingContactVanishes) {
  const std::vector<BodyCompliance> bodies = {BoxCompliance(2.0, Vec3(0.5, 0.5, 0.5))};
  ConstraintRows rows;
  rows.blocks.push_back(GroundRow(0, Vec3(-0.5, -0.5, 0.0), kUp, 0.02));
  rows.blocks.push_back(GroundRow(0, Vec3(0.5, -0.5, 0.0), kUp, -0.001));
  rows.blocks[0].force.x() = 500.0;
  rows.blocks[1].force.x() = 10.0;
  TunableLcpSolver solver;
  SolverOptions options;
  options.max_iterations = 50;
  options.tolerance = 1e-12;
  std::vector<Vec6> dq;
  const SolveResult result = solver.Solve(rows, bodies, options, &dq);
  EXPECT_LT(result.residual, options.tolerance);
  EXPECT_EQ(rows.blocks[0].force.x(), 0.0);
  EXPECT_GT(rows.blocks[1].force.x(), 0.0);
  const testing::AssembledSystem a = Assemble(rows, bodies);
  const VecX delta = a.delta + a.h * StackedDisplacements(dq);
  EXPECT_GT(delta[0], 0.0);
  EXPECT_NEAR(delta[1], 0.0, 1e-12);
}

// Brute-force LCP: every subset S of clamped rows, W_SS f_S = -delta_free_S, kept when the
// forces push and the other rows do not penetrate. Returns all such solutions.
std::vector<VecX> EnumerateLcp(const MatX& w, const VecX& free) {
  const int n = static_cast<int>(free.size());
  std::vector<VecX> solutions;
  for (unsigned mask = 0; mask < (1u << n); ++mask) {
    std::vector<int> set;
    for (int i = 0; i < n; ++i) {
      if (mask & (1u << i)) set.push_back(i);
    }
    VecX f = VecX::Zero(n);
    if (!set.empty()) {
      const int k = static_cast<int>(set.size());
      MatX wss(k, k);
      VecX rhs(k);
      for (int i = 0; i < k; ++i) {
        rhs[i] = -free[set[i]];
        for (int j = 0; j < k; ++j) wss(i, j) = w(set[i], set[j]);
      }
      const VecX fs = wss.ldlt().solve(rhs);
      for (int i = 0; i < k; ++i) f[set[i]] = fs[i];
    }
    const VecX delta = w * f + free;
    bool ok = true;
    for (int i = 0; i < n; ++i) {
      const bool clamped = mask & (1u << i);
      if (clamped && f[i] < -1e-9 * f.cwiseAbs().maxCoeff()) ok = false;
      if (!clamped && delta[i] < -1e-12) ok = false;
    }
    if (ok) solutions.push_back(f);
  }
  return solutions;
}

// A cold solve of `rows` to convergence: its forces are `exact` (those that are zero there
// exactly zero), and the bodies' displacements are C H^T f of the assembled system `a`.
void ExpectConvergesTo(ConstraintRows rows, const std::vector<BodyCompliance>& bodies,
                       std::span<const CoupledPoints> coupled, const testing::AssembledSystem& a,
                       const VecX& exact) {
  TunableLcpSolver solver;
  SolverOptions options;
  options.max_iterations = 200;
  options.tolerance = 1e-14;
  options.warm_start = false;
  std::vector<Vec6> dq;
  const SolveResult result = solver.Solve(rows, bodies, coupled, options, &dq);
  EXPECT_LT(result.residual, options.tolerance);
  const VecX f = StackedForces(rows);
  EXPECT_LT((f - exact).norm(), 1e-9 * exact.norm()) << f.transpose() << "\n" << exact.transpose();
  for (int i = 0; i < exact.size(); ++i) {
    if (exact[i] == 0.0) {
      EXPECT_EQ(f[i], 0.0) << i;
    }
  }
  const VecX expected = a.c * a.h.transpose() * exact;
  EXPECT_LT((StackedDisplacements(dq) - expected).norm(), 1e-9 * expected.norm());
}

// Unilateral rows whose LCP has a single solution (by enumeration), in which some row that
// starts pressed (delta_free < 0) ends vanishing: the solver's forces are that solution
// (vanishing rows exactly zero), and the bodies' displacements are C H^T f.
void ExpectSolvesTheLcp(ConstraintRows rows, const std::vector<BodyCompliance>& bodies,
                        std::span<const CoupledPoints> coupled) {
  const testing::AssembledSystem a = Assemble(rows, bodies, coupled);
  ASSERT_GT(a.w.ldlt().rcond(), 1e-8);
  const std::vector<VecX> lcp = EnumerateLcp(a.w, a.delta);
  ASSERT_EQ(lcp.size(), 1u);
  const VecX& exact = lcp[0];
  bool released = false;
  for (int i = 0; i < exact.size(); ++i) released |= a.delta[i] < 0.0 && exact[i] == 0.0;
  ASSERT_TRUE(released) << exact.transpose();
  ExpectConvergesTo(rows, bodies, coupled, a, exact);
}

// Two boxes, three contacts each (box 0 on the ground, box 1 on box 0, slightly tilted
// normals): the upper box is pressed at one corner and pulled at another, so a contact that
// starts clamped (delta_free < 0) must end vanishing. W is positive definite, the LCP has a
// single solution, found here by enumeration of all 2^6 sets.
TEST(TunableLcpTest, MixedSetsMatchBruteForceLcp) {
  const std::vector<BodyCompliance> bodies = {
      BoxCompliance(4.0, Vec3(0.5, 0.2, 0.4)),
      BoxCompliance(1.5, Vec3(0.4, 0.2, 0.3), Quat(Eigen::AngleAxisd(0.3, Vec3(0, 1, 0))))};
  const Vec3 o0(0.0, 0.2, 0.0), o1(0.1, 0.6, 0.05);
  const Vec3 n0 = Vec3(0.05, 1.0, -0.02).normalized();
  const Vec3 n1 = Vec3(-0.1, 1.0, 0.05).normalized();
  ConstraintRows rows;
  rows.blocks.push_back(GroundRow(0, Vec3(-0.45, 0.0, -0.35) - o0, n0, -0.001));
  rows.blocks.push_back(GroundRow(0, Vec3(0.45, 0.0, -0.35) - o0, n0, -0.004));
  rows.blocks.push_back(GroundRow(0, Vec3(0.0, 0.0, 0.4) - o0, n0, 0.003));
  rows.blocks.push_back(PairRow(0, o0, 1, o1, Vec3(-0.3, 0.4, -0.2), n1, -0.001));
  rows.blocks.push_back(PairRow(0, o0, 1, o1, Vec3(0.45, 0.4, -0.2), n1, -0.004));
  rows.blocks.push_back(PairRow(0, o0, 1, o1, Vec3(0.1, 0.4, 0.35), n1, -0.004));
  ExpectSolvesTheLcp(rows, bodies, {});
}

// Friction forces end inside their cones: a box sliding fast (friction on the cone, against
// the slip), a box moving slowly (friction sticks, tangential motion cancelled), and a
// bilateral-friction block (bounded by mu |(f0, f1)|).
TEST(TunableLcpTest, FrictionEndsInsideCone) {
  const double mu = 0.4;
  for (const double speed : {2.0, 0.002}) {
    SCOPED_TRACE(speed);
    const Vec3 slide = speed * Vec3(1.0, 0.0, 0.5).normalized();
    Stack s = BoxStack(3, mu, slide);
    TunableLcpSolver solver;
    SolverOptions options;
    options.max_iterations = 5000;
    options.tolerance = 1e-12;
    std::vector<Vec6> dq;
    const SolveResult result = solver.Solve(s.rows, s.bodies, options, &dq);
    EXPECT_LT(result.residual, options.tolerance);
    for (const ConstraintBlock& b : s.rows.blocks) {
      EXPECT_GE(b.force.x(), 0.0);
      EXPECT_LE(b.force.tail<2>().norm(), mu * b.force.x() * (1.0 + 1e-12));
    }
    // Box 2 slides on box 1: the friction there is mu times the normal load, against the
    // slip. Slowly, it sticks: box 2 keeps no horizontal motion.
    const std::vector<Vec6> wrench = BodyWrenches(s.rows, s.bodies.size());
    if (speed > 1.0) {
      Vec3 friction = Vec3::Zero();
      double normal = 0.0;
      for (int c = 8; c < 12; ++c) {
        const ConstraintBlock& b = s.rows.blocks[c];
        friction += b.jacobian_b.block<2, 3>(1, 0).transpose() * b.force.tail<2>();
        normal += b.force.x();
      }
      EXPECT_NEAR(friction.norm(), mu * normal, 1e-9 * normal);
      EXPECT_LT(friction.dot(slide), 0.0);
    } else {
      EXPECT_NEAR(dq[2].head<3>().dot(slide.normalized()), -speed * kH, 1e-12);
    }
  }

  // A bilateral-friction block: a point held on a line (rows 0-1) with friction along it.
  const std::vector<BodyCompliance> bodies = {BoxCompliance(2.0, Vec3(0.2, 0.2, 0.2))};
  ConstraintRows rows;
  ConstraintBlock b;
  b.law = ConstraintLaw::kBilateralFriction;
  b.dim = 3;
  b.body_b = 0;
  b.jacobian_b.row(0) = PointRow(Vec3::UnitY(), Vec3(0.1, 0.0, 0.0));
  b.jacobian_b.row(1) = PointRow(Vec3::UnitZ(), Vec3(0.1, 0.0, 0.0));
  b.jacobian_b.row(2) = PointRow(Vec3::UnitX(), Vec3(0.1, 0.0, 0.0));
  b.violation_free = Vec3(-0.001, 0.0005, 0.01);
  b.friction = 0.3;
  rows.blocks.push_back(b);
  TunableLcpSolver solver;
  SolverOptions options;
  options.max_iterations = 200;
  options.tolerance = 1e-12;
  std::vector<Vec6> dq;
  const SolveResult result = solver.Solve(rows, bodies, options, &dq);
  EXPECT_LT(result.residual, options.tolerance);
  const Vec3 f = rows.blocks[0].force;
  EXPECT_NEAR(std::abs(f.z()), 0.3 * f.head<2>().norm(), 1e-9 * f.head<2>().norm());
  EXPECT_LT(f.z(), 0.0);  // against the free slip along +x
}

// A contact block's rows taken through its point (ConstraintBlock::point) give what its
// three rows give one by one, to round-off: same forces, same displacements, same steps.
// Turned boxes make the angular compliance a full matrix; turned cubes an isotropic one (to
// round-off), whose scales take a shorter way.
TEST(TunableLcpTest, PointBlocksMatchTheirRows) {
  for (const double height : {0.25, 0.5}) {
    Stack s = BoxStack(3, 0.4, 2.0 * Vec3(1.0, 0.0, 0.5).normalized());
    for (size_t k = 0; k < s.bodies.size(); ++k) {
      s.bodies[k] = BoxCompliance(1.0 + 0.5 * k, Vec3(0.5, height, 0.5),
                                  Quat(Eigen::AngleAxisd(0.3 + k, Vec3(1, 2, 3).normalized())));
    }
    ConstraintRows rows = s.rows;
    for (ConstraintBlock& b : rows.blocks) b.point = false;
    ASSERT_TRUE(s.rows.blocks.front().point);
    SolverOptions options;
    options.max_iterations = 25;
    options.tolerance = 0.0;
    TunableLcpSolver by_point, by_row;
    std::vector<Vec6> dq_point, dq_row;
    const SolveResult a = by_point.Solve(s.rows, s.bodies, options, &dq_point);
    const SolveResult b = by_row.Solve(rows, s.bodies, options, &dq_row);
    EXPECT_EQ(a.iterations, b.iterations);
    double scale = 0.0;
    for (const ConstraintBlock& block : rows.blocks) scale = std::max(scale, block.force.norm());
    ASSERT_GT(scale, 0.0);
    for (size_t k = 0; k < rows.blocks.size(); ++k) {
      EXPECT_LT((s.rows.blocks[k].force - rows.blocks[k].force).norm(), 1e-9 * scale) << k;
    }
    for (size_t k = 0; k < dq_row.size(); ++k) {
      EXPECT_LT((dq_point[k] - dq_row[k]).norm(), 1e-9 * (dq_row[k].norm() + 1e-12)) << k;
    }
  }
}

// Points of a deformable body coupled through it (CoupledPoints) and a rigid body tied to
// one of them: the solve converges to the assembled solution W f = -delta, with C's
// off-diagonal point blocks, and the points' displacements are C H^T f.
TEST(TunableLcpTest, CoupledPointsConvergeToAssembledSolution) {
  const testing::CoupledPointsProblem problem =
      testing::MakeCoupledPointsProblem(BoxCompliance(2.0, Vec3(0.3, 0.2, 0.1)));
  const testing::AssembledSystem a = Assemble(problem.rows, problem.bodies, problem.coupled);
  ExpectConvergesTo(problem.rows, problem.bodies, problem.coupled, a, a.w.ldlt().solve(-a.delta));
}

// Unilateral rows on four points coupled through their body, against the world along tilted
// normals: some pressed, some pulled. A point pressed on is pushed by its neighbours' forces
// too, so a row pressed at the start may end vanishing. The forces are the LCP's single
// solution, found by enumeration of all 2^4 sets.
TEST(TunableLcpTest, CoupledPointContactsMatchBruteForceLcp) {
  std::mt19937 rng(3);
  const std::vector<CoupledPoints> coupled = {{0, 4, testing::RandomGroupCompliance(rng, 4)}};
  const std::vector<BodyCompliance> bodies(4);
  const double free[4] = {-0.01, 0.002, -0.004, -0.0005};
  ConstraintRows rows;
  for (uint32_t p = 0; p < 4; ++p) {
    ConstraintBlock b;
    b.law = ConstraintLaw::kUnilateral;
    b.dim = 1;
    b.body_a = p;
    b.jacobian_a.row(0).head<3>() = Vec3(0.2 * p - 0.3, 1.0, 0.1 * p).normalized().transpose();
    b.violation_free = Vec3(free[p], 0.0, 0.0);
    rows.blocks.push_back(b);
  }
  ExpectSolvesTheLcp(rows, bodies, coupled);
}

// Frictional contacts between coupled points and a rigid box, taken through their points
// (ConstraintBlock::point) and row by row, give the same forces and displacements.
TEST(TunableLcpTest, PointBlocksOnCoupledPointsMatchTheirRows) {
  std::mt19937 rng(5);
  const std::vector<CoupledPoints> coupled = {{1, 3, testing::RandomGroupCompliance(rng, 3)}};
  const std::vector<BodyCompliance> bodies = {
      BoxCompliance(1.0, Vec3(0.2, 0.1, 0.3),
                    Quat(Eigen::AngleAxisd(0.5, Vec3(1, 1, 0).normalized()))),
      {},
      {},
      {}};
  const Vec3 origin(0.0, -0.1, 0.0);
  ConstraintRows rows;
  for (uint32_t p = 0; p < 3; ++p) {
    const Vec3 n = Vec3(0.1 * p, 1.0, -0.05).normalized();
    ContactPoint c;
    c.position = Vec3(0.1 * p - 0.1, 0.0, 0.05 * p);
    c.normal = n;
    const ContactBody box{0, origin, Vec3::Zero(), Vec3::Zero()};
    ConstraintBlock b =
        MakeContactBlock(c, box, PointBody(1 + p, c.position, Vec3::Zero()), 0.5, kH);
    b.violation_free = Vec3(-0.002 * (p + 1), 0.001 * p, -0.0015);
    rows.blocks.push_back(b);
  }
  ASSERT_TRUE(rows.blocks.front().point);
  ConstraintRows by_rows = rows;
  for (ConstraintBlock& b : by_rows.blocks) b.point = false;
  SolverOptions options;
  options.max_iterations = 25;
  options.tolerance = 0.0;
  TunableLcpSolver by_point, by_row;
  std::vector<Vec6> dq_point, dq_row;
  by_point.Solve(rows, bodies, coupled, options, &dq_point);
  by_row.Solve(by_rows, bodies, coupled, options, &dq_row);
  double scale = 0.0;
  for (const ConstraintBlock& b : by_rows.blocks) scale = std::max(scale, b.force.norm());
  ASSERT_GT(scale, 0.0);
  for (size_t k = 0; k < rows.blocks.size(); ++k) {
    EXPECT_LT((rows.blocks[k].force - by_rows.blocks[k].force).norm(), 1e-9 * scale) << k;
  }
  for (size_t k = 0; k < dq_row.size(); ++k) {
    EXPECT_LT((dq_point[k] - dq_row[k]).norm(), 1e-9 * (dq_row[k].norm() + 1e-12)) << k;
  }
}

// Warm started from a converged solution, the solver has nothing left to do.
TEST(TunableLcpTest, WarmStartAtSolutionConvergesImmediately) {
  Stack s = BoxStack(3, 0.5, Vec3(0.001, 0.0, 0.0));
  s.rows.blocks.push_back(GroundRow(1, Vec3(0.5, 0.0, 0.0), Vec3::UnitX(), 0.01));
  TunableLcpSolver solver;
  SolverOptions options;
  options.max_iterations = 5000;
  options.tolerance = 1e-10;
  std::vector<Vec6> dq;
  const SolveResult cold = solver.Solve(s.rows, s.bodies, options, &dq);
  ASSERT_LT(cold.residual, options.tolerance);
  EXPECT_GT(cold.iterations, 5);
  const VecX solution = StackedForces(s.rows);
  const SolveResult warm = solver.Solve(s.rows, s.bodies, options, &dq);
  EXPECT_LE(warm.iterations, 1);
  EXPECT_LT(warm.residual, options.tolerance);
  EXPECT_LT((StackedForces(s.rows) - solution).norm(), 1e-9 * solution.norm());
}

// The iteration cap is a hard stop, and it is not reported as a budget stop.
TEST(TunableLcpTest, MaxIterationsRespected) {
  std::vector<BodyCompliance> bodies;
  ConstraintRows rows = RandomBilateralRows(&bodies);
  TunableLcpSolver solver;
  SolverOptions options;
  options.max_iterations = 3;
  options.tolerance = 0.0;
  std::vector<Vec6> dq;
  const SolveResult result = solver.Solve(rows, bodies, options, &dq);
  EXPECT_EQ(result.iterations, 3);
  EXPECT_GT(result.residual, 0.0);
  EXPECT_FALSE(result.budget_exhausted);
  options.max_iterations = 0;
  EXPECT_EQ(solver.Solve(rows, bodies, options, &dq).iterations, 0);
}

// A 1 us budget on a 200-box stack (800 friction contacts): the solve stops after its first
// step, says so, and still returns finite forces with consistent displacements.
TEST(TunableLcpTest, TinyTimeBudgetStopsEarly) {
  Stack s = BoxStack(200, 0.5, Vec3(0.3, 0.0, 0.0));
  TunableLcpSolver solver;
  SolverOptions options;
  options.max_iterations = 1000000;
  options.tolerance = 0.0;
  options.time_budget_us = 1.0;
  std::vector<Vec6> dq;
  const SolveResult result = solver.Solve(s.rows, s.bodies, options, &dq);
  EXPECT_TRUE(result.budget_exhausted);
  EXPECT_GE(result.iterations, 1);
  EXPECT_LT(result.iterations, 100);
  EXPECT_TRUE(std::isfinite(result.residual));
  for (const ConstraintBlock& b : s.rows.blocks) {
    EXPECT_TRUE(b.force.allFinite());
    EXPECT_GE(b.force.x(), 0.0);
  }
  ASSERT_EQ(dq.size(), s.bodies.size());
  for (const Vec6& d : dq) EXPECT_TRUE(d.allFinite());
  // It measured what one step costs with its preparation and end; without a budget no
  // clock is read and nothing is reported.
  EXPECT_GT(result.one_step_us, 0.0);
  options.time_budget_us = 0.0;
  options.max_iterations = 2;
  EXPECT_EQ(solver.Solve(s.rows, s.bodies, options, &dq).one_step_us, 0.0);
}

// A solve allowed to end before its first step (min_iterations 0) whose budget is already
// spent returns its starting iterate: from zero forces nothing at all; warm started, the
// warm forces unchanged (they lie in their cones) with exactly their displacements, unless
// told not to keep them.
TEST(TunableLcpTest, SpentBudgetReturnsStartingIterate) {
  Stack s = BoxStack(200, 0.5, Vec3(0.3, 0.0, 0.0));
  TunableLcpSolver solver;
  SolverOptions options;
  options.max_iterations = 1000;
  options.tolerance = 0.0;
  options.min_iterations = 0;
  options.time_budget_us = 1e-3;  // spent by the first look at the clock
  options.warm_start = false;
  std::vector<Vec6> dq;
  SolveResult result = solver.Solve(s.rows, s.bodies, options, &dq);
  EXPECT_TRUE(result.budget_exhausted);
  EXPECT_EQ(result.iterations, 0);
  for (const ConstraintBlock& b : s.rows.blocks) EXPECT_TRUE(b.force.isZero());
  ASSERT_EQ(dq.size(), s.bodies.size());
  for (const Vec6& d : dq) EXPECT_TRUE(d.isZero());

  // Warm forces from a few unbudgeted steps, and their displacements.
  SolverOptions unbudgeted = options;
  unbudgeted.time_budget_us = 0.0;
  unbudgeted.max_iterations = 20;
  std::vector<Vec6> dq_warm;
  solver.Solve(s.rows, s.bodies, unbudgeted, &dq_warm);
  const VecX warm = StackedForces(s.rows);
  ASSERT_GT(warm.norm(), 0.0);
  options.warm_start = true;
  result = solver.Solve(s.rows, s.bodies, options, &dq);
  EXPECT_TRUE(result.budget_exhausted);
  EXPECT_EQ(result.iterations, 0);
  EXPECT_TRUE(std::isfinite(result.residual));
  EXPECT_LT((StackedForces(s.rows) - warm).norm(), 1e-12 * warm.norm());
  for (size_t k = 0; k < dq.size(); ++k) {
    EXPECT_LT((dq[k] - dq_warm[k]).norm(), 1e-9 * (dq_warm[k].norm() + 1e-12)) << k;
  }

  // Told not to keep its warm forces when late, the solve stops in its preparation and
  // returns nothing at all, as a cold one does.
  options.keep_warm_when_late = false;
  result = solver.Solve(s.rows, s.bodies, options, &dq);
  EXPECT_TRUE(result.budget_exhausted);
  EXPECT_EQ(result.iterations, 0);
  for (const ConstraintBlock& b : s.rows.blocks) EXPECT_TRUE(b.force.isZero());
  for (const Vec6& d : dq) EXPECT_TRUE(d.isZero());
}

// Same input, same output, bit for bit: with a fresh solver and with a reused one.
TEST(TunableLcpTest, Deterministic) {
  const Stack input = BoxStack(6, 0.5, Vec3(0.5, 0.0, 0.2));
  SolverOptions options;
  options.max_iterations = 60;
  options.tolerance = 0.0;
  std::vector<Vec6> dq1, dq2, dq3;
  Stack s1 = input, s2 = input, s3 = input;
  TunableLcpSolver first, second;
  first.Solve(s1.rows, s1.bodies, options, &dq1);
  second.Solve(s2.rows, s2.bodies, options, &dq2);
  first.Solve(s3.rows, s3.bodies, options, &dq3);
  for (size_t i = 0; i < input.rows.blocks.size(); ++i) {
    EXPECT_EQ(std::memcmp(s1.rows.blocks[i].force.data(), s2.rows.blocks[i].force.data(),
                          sizeof(Vec3)), 0);
    EXPECT_EQ(std::memcmp(s1.rows.blocks[i].force.data(), s3.rows.blocks[i].force.data(),
                          sizeof(Vec3)), 0);
  }
  for (size_t i = 0; i < dq1.size(); ++i) {
    EXPECT_EQ(std::memcmp(dq1[i].data(), dq2[i].data(), sizeof(Vec6)), 0);
    EXPECT_EQ(std::memcmp(dq1[i].data(), dq3[i].data(), sizeof(Vec6)), 0);
  }
}

// A stack of five boxes, four friction contacts per interface, the middle box slowly
// sliding: the Gauss-Seidel solver and this one reach the same wrench on every body (the
// individual corner forces are not unique: W is singular), and that wrench holds each box
// still: m g up, its slide stopped, no torque.
TEST(TunableLcpTest, AgreesWithGaussSeidelOnFiveBoxStack) {
  const Vec3 slide(0.002, 0.0, -0.001);
  const Stack input = BoxStack(5, 0.5, slide);
  SolverOptions options;
  options.max_iterations = 100000;
  options.tolerance = 1e-13;
  options.warm_start = false;

  Stack gs = input, lcp = input;
  std::vector<Vec6> dq_gs, dq_lcp;
  GaussSeidelSolver gauss_seidel;
  const SolveResult r_gs = gauss_seidel.Solve(gs.rows, gs.bodies, options, &dq_gs);
  TunableLcpSolver tunable;
  const SolveResult r_lcp = tunable.Solve(lcp.rows, lcp.bodies, options, &dq_lcp);
  RecordProperty("gauss_seidel_sweeps", r_gs.iterations);
  RecordProperty("tunable_lcp_steps", r_lcp.iterations);
  EXPECT_LT(r_gs.iterations, options.max_iterations);
  EXPECT_LT(r_lcp.residual, options.tolerance);

  const std::vector<Vec6> w_gs = BodyWrenches(gs.rows, input.bodies.size());
  const std::vector<Vec6> w_lcp = BodyWrenches(lcp.rows, input.bodies.size());
  for (size_t k = 0; k < input.bodies.size(); ++k) {
    SCOPED_TRACE(k);
    EXPECT_LT((w_gs[k] - w_lcp[k]).norm(), 1e-6 * w_gs[k].norm())
        << w_gs[k].transpose() << "\n" << w_lcp[k].transpose();
    Vec6 expected = Vec6::Zero();
    expected[1] = 1.0 * kG;
    if (k == 2) expected.head<3>() -= 1.0 * slide / kH;
    EXPECT_LT((w_lcp[k] - expected).norm(), 1e-6 * expected.norm()) << w_lcp[k].transpose();
  }
}

// A small brick wall (16 kg bricks, 0.4 x 0.2 x 0.2 m, 1 mm joints), each course shifted
// by a quarter brick against the one below, falling freely for one step at rest: four
// friction contacts per face two bricks share, built by MakeContactBlock.
Stack BrickWall(int courses, int width, double friction) {
  const Vec3 half(0.2, 0.1, 0.1);
  const double pitch = 2.0 * half.x() + 0.001;
  Stack s;
  std::vector<ContactBody> cb;
  for (int c = 0; c < courses; ++c) {
    for (int i = 0; i < width; ++i) {
      ContactBody b;
      b.index = static_cast<uint32_t>(cb.size());
      b.origin = Vec3(i * pitch + 0.5 * half.x() * (c % 2), half.y() * (2 * c + 1), 0.0);
      b.linear_velocity = Vec3(0.0, -kG * kH, 0.0);
      s.bodies.push_back(BoxCompliance(16.0, half));
      cb.push_back(b);
    }
  }
  // The contacts of brick k on `below` (the world for the first course) over the x range
  // [lo, hi] of the face they share.
  auto face = [&](const ContactBody& below, const ContactBody& brick, double lo, double hi) {
    for (double x : {lo, hi}) {
      for (double z : {-half.z(), half.z()}) {
        ContactPoint p;
        p.position = Vec3(x, brick.origin.y() - half.y(), z);
        p.normal = kUp;
        p.distance = 0.0;
        s.rows.blocks.push_back(MakeContactBlock(p, below, brick, friction, kH));
      }
    }
  };
  for (int k = 0; k < courses * width; ++k) {
    const double x = cb[k].origin.x();
    if (k < width) {
      face(ContactBody{}, cb[k], x - half.x(), x + half.x());
      continue;
    }
    for (int m = (k / width - 1) * width; m < (k / width) * width; ++m) {
      const double lo = std::max(x, cb[m].origin.x()) - half.x();
      const double hi = std::min(x, cb[m].origin.x()) + half.x();
      if (hi > lo) face(cb[m], cb[k], lo, hi);
    }
  }
  return s;
}

// Friction waits for the normal forces: from a cold start they grow from zero, and the
// friction of an early step can lie outside a cone that is still too narrow. Taken onto
// the cone then, the contact would slide and CG restart; waiting while CG still has more
// to do, a staggered five-course wall (every contact can stick: gravity alone, mu 0.6)
// is within a tenth of the tick's approach (g h^2, 1 mm) after twenty steps, in its
// residual and in the slip left at every contact.
TEST(TunableLcpTest, ColdWallSticksWhileItsNormalForcesGrow) {
  Stack wall = BrickWall(5, 4, 0.6);
  SolverOptions options;
  options.max_iterations = 20;
  options.tolerance = 0.0;
  options.warm_start = false;
  TunableLcpSolver solver;
  std::vector<Vec6> dq;
  const SolveResult result = solver.Solve(wall.rows, wall.bodies, options, &dq);
  const double tenth = 0.1 * kG * kH * kH;
  EXPECT_LT(result.residual, tenth);
  double slip = 0.0;
  for (const ConstraintBlock& b : wall.rows.blocks) {
    for (int d = 1; d < 3; ++d) {
      double v = b.violation_free[d];
      if (b.body_a != kWorldBody) v += b.jacobian_a.row(d) * dq[b.body_a];
      if (b.body_b != kWorldBody) v += b.jacobian_b.row(d) * dq[b.body_b];
      slip = std::max(slip, std::abs(v));
    }
    EXPECT_LE(b.force.tail<2>().norm(), 0.6 * b.force.x() * (1.0 + 1e-12));
  }
  EXPECT_LT(slip, tenth);
}

// No rows: nothing to do, zero displacements sized to the bodies.
TEST(TunableLcpTest, EmptyRows) {
  const std::vector<BodyCompliance> bodies(2);
  ConstraintRows rows;
  TunableLcpSolver solver;
  std::vector<Vec6> dq = {Vec6::Ones()};
  const SolveResult result = solver.Solve(rows, bodies, SolverOptions{}, &dq);
  EXPECT_EQ(result.iterations, 0);
  ASSERT_EQ(dq.size(), 2u);
  EXPECT_TRUE(dq[0].isZero() && dq[1].isZero());
}

// A ball (1 kg, radius 0.1 m, I = 0.004 kg m^2) pressed onto the ground at 1 m/s (its
// frictionless contact takes 100 N to stop it over the step) while turning at `spin`
// (rad/s), with rolling and spinning lever arms: the contact block, then its angular
// blocks. The contact's normal row has no moment about the ball's centre, so each angular
// block is alone: its stick torque is -I w / h about its axes.
struct BallOnGround {
  ConstraintRows rows;
  std::vector<BodyCompliance> compliance;
};
BallOnGround PressedBall(double down_speed, const Vec3& spin, double rolling,
                         double spinning) {
  constexpr double kRadius = 0.1;
  BallOnGround ball;
  BodyCompliance c;
  c.linear = kH * kH;
  c.angular = kH * kH / 0.004 * Mat3::Identity();
  ball.compliance.push_back(c);
  ContactBody ground;
  ContactBody body{0, Vec3(0, kRadius, 0), Vec3(0, -down_speed, 0), spin};
  ContactPoint p;
  ball.rows.blocks.push_back(MakeContactBlock(p, ground, body, 0.0, kH));
  AppendContactTorqueBlocks(p, ground, body, 0, {rolling, spinning}, kH, &ball.rows);
  return ball;
}

// Both solvers: the rolling and spinning torques stick (stopping the relative rotation)
// within their bounds, lie on them against the rotation beyond (the lever arm times the
// 100 N normal force), and vanish with the normal force of a separating contact.
TEST(TunableLcpTest, RollingBlocksFollowTheirContactsNormalForce) {
  const Vec3 spin(3.0, 4.0, -5.0);  // stick torques: rolling (-2, 1.2), spinning -1.6 N m
  SolverOptions options;
  options.max_iterations = 200;
  options.tolerance = 1e-12;
  GaussSeidelSolver gauss_seidel;
  TunableLcpSolver tunable;
  for (ConstraintSolver* solver : {static_cast<ConstraintSolver*>(&gauss_seidel),
                                   static_cast<ConstraintSolver*>(&tunable)}) {
    std::vector<Vec6> dq;
    // Sticking: bounds 5 N m each.
    BallOnGround stick = PressedBall(1.0, spin, 0.05, 0.05);
    solver->Solve(stick.rows, stick.compliance, options, &dq);
    EXPECT_NEAR(stick.rows.blocks[0].force.x(), 100.0, 1e-6);
    EXPECT_NEAR((dq[0].tail<3>() + kH * spin).norm(), 0.0, 1e-9);
    EXPECT_NEAR(stick.rows.blocks[1].force.x(), -2.0, 1e-6);
    EXPECT_NEAR(stick.rows.blocks[1].force.y(), 1.2, 1e-6);
    EXPECT_NEAR(stick.rows.blocks[2].force.x(), -1.6, 1e-6);
    // Sliding: bounds 1 N m each, the torques on them against the turning.
    BallOnGround slide = PressedBall(1.0, spin, 0.01, 0.01);
    solver->Solve(slide.rows, slide.compliance, options, &dq);
    const Eigen::Vector2d rolling = slide.rows.blocks[1].force.head<2>();
    EXPECT_NEAR(rolling.norm(), 1.0, 1e-6);
    EXPECT_NEAR(rolling.normalized().dot(Eigen::Vector2d(-2.0, 1.2).normalized()), 1.0, 1e-9);
    EXPECT_NEAR(slide.rows.blocks[2].force.x(), -1.0, 1e-6);
    // Separating: no normal force, no torque, the ball turns freely.
    BallOnGround apart = PressedBall(-1.0, spin, 0.05, 0.05);
    solver->Solve(apart.rows, apart.compliance, options, &dq);
    for (const ConstraintBlock& b : apart.rows.blocks) EXPECT_TRUE(b.force.isZero());
    EXPECT_TRUE(dq[0].isZero());
  }
}

// A body held by a ball joint to the world, turned by a drive about a skew axis: a motor
// (no compliance) or a spring (compliance), free or at its maximum force. The tunable
// solver, with the motor an equality row and the spring held, finds what a converged
// Gauss-Seidel finds.
TEST(TunableLcpTest, DrivesSolveAsGaussSeidelDoes) {
  const std::vector<BodyCompliance> bodies = {BoxCompliance(2.0, Vec3(0.3, 0.2, 0.1))};
  const double unbounded = std::numeric_limits<double>::infinity();
  struct Case {
    double compliance;
    double max_force;
  };
  for (const Case& c : {Case{0.0, unbounded}, Case{0.0, 0.5}, Case{1e-3, unbounded},
                        Case{1e-3, 0.5}}) {
    ConstraintRows rows;
    ConstraintBlock anchor;
    anchor.dim = 3;
    anchor.body_b = 0;
    for (int d = 0; d < 3; ++d) {
      anchor.jacobian_b.row(d) = PointRow(Vec3::Unit(d), Vec3(0.2, -0.3, 0.1));
    }
    anchor.violation_free = Vec3(0.001, -0.002, 0.0005);
    rows.blocks.push_back(anchor);
    ConstraintBlock drive;
    drive.law = ConstraintLaw::kDrive;
    drive.body_b = 0;
    drive.jacobian_b.row(0) << 0, 0, 0, Vec3(0.3, 0.2, 0.9).normalized().transpose();
    drive.violation_free.x() = 0.004;
    drive.compliance = c.compliance;
    drive.friction = c.max_force;
    rows.blocks.push_back(drive);
    ConstraintRows gs_rows = rows;
    SolverOptions options;
    options.max_iterations = 5000;
    options.tolerance = 1e-15;
    options.warm_start = false;
    std::vector<Vec6> dq;
    GaussSeidelSolver gauss_seidel;
    gauss_seidel.Solve(gs_rows, bodies, options, &dq);
    TunableLcpSolver tunable;
    tunable.Solve(rows, bodies, options, &dq);
    const double f = gs_rows.blocks[1].force.x();
    EXPECT_LE(std::abs(f), c.max_force * (1.0 + 1e-12));
    EXPECT_NEAR(rows.blocks[1].force.x(), f, 1e-6 * std::max(1.0, std::abs(f)))
        << "compliance " << c.compliance << ", max " << c.max_force;
    EXPECT_LT((rows.blocks[0].force - gs_rows.blocks[0].force).norm(),
              1e-6 * std::max(1.0, gs_rows.blocks[0].force.norm()));
  }
}

}  // namespace
}  // namespace ligature
