#include "server/solver/gauss_seidel.h"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <algorithm>
#include <random>
#include <vector>

#include "tests/unit/solver/assembled_system.h"

namespace ligature {
namespace {

using testing::Assemble;
using testing::MatX;
using testing::RandomJacobian;
using testing::StackedDisplacements;
using testing::StackedForces;
using testing::VecX;

constexpr double kH = 0.01;  // s

// Compliance h^2 M^-1 of a body of mass m and principal inertia I, turned by q.
BodyCompliance Compliance(double m, const Vec3& inertia, const Quat& q) {
  BodyCompliance c;
  c.linear = kH * kH / m;
  const Mat3 r = q.toRotationMatrix();
  c.angular = kH * kH * r * inertia.cwiseInverse().asDiagonal() * r.transpose();
  return c;
}

std::vector<BodyCompliance> TwoBodies() {
  return {Compliance(2.0, Vec3(0.1, 0.2, 0.3),
                     Quat(Eigen::AngleAxisd(0.4, Vec3(1, 2, 3).normalized()))),
          Compliance(5.0, Vec3(0.5, 0.3, 0.8),
                     Quat(Eigen::AngleAxisd(-1.1, Vec3(0, 1, 1).normalized())))};
}

// Two bilateral 3D blocks sharing body 0: world-0 and 0-1, with generic directions.
ConstraintRows CoupledRows() {
  std::mt19937 rng(2024);
  ConstraintRows rows;
  ConstraintBlock first;
  first.law = ConstraintLaw::kBilateral;
  first.dim = 3;
  first.body_b = 0;
  first.jacobian_b = RandomJacobian(rng);
  first.violation_free = Vec3(0.01, -0.02, 0.005);
  rows.blocks.push_back(first);
  ConstraintBlock second;
  second.law = ConstraintLaw::kBilateral;
  second.dim = 3;
  second.body_a = 0;
  second.body_b = 1;
  second.jacobian_a = RandomJacobian(rng);
  second.jacobian_b = RandomJacobian(rng);
  second.violation_free = Vec3(-0.004, 0.012, 0.02);
  rows.blocks.push_back(second);
  return rows;
}

// A single ball joint on one body (anchored to the world at lever arm r) is solved exactly
// in one sweep: f = -W^-1 delta with W = J C J^T, and the body's correction closes the gap.
TEST(GaussSeidelTest, SingleBilateralBlockExactInOneSweep) {
  const std::vector<BodyCompliance> bodies = {TwoBodies()[0]};
  const Vec3 arm(0.3, -0.2, 0.1);
  ConstraintRows rows;
  ConstraintBlock block;
  block.law = ConstraintLaw::kBilateral;
  block.dim = 3;
  block.body_b = 0;
  block.jacobian_b << Mat3::Identity(), -Skew(arm);  // dx + dtheta x arm
  block.violation_free = Vec3(0.02, -0.01, 0.03);
  rows.blocks.push_back(block);

  const Mat6 c = testing::DenseCompliance(bodies[0]);
  const Mat3 w = block.jacobian_b * c * block.jacobian_b.transpose();
  const Vec3 exact = w.ldlt().solve(-block.violation_free);

  GaussSeidelSolver solver;
  SolverOptions options;
  options.max_iterations = 1;
  std::vector<Vec6> dq;
  const SolveResult result = solver.Solve(rows, bodies, options, &dq);
  EXPECT_EQ(result.iterations, 1);
  EXPECT_LT((rows.blocks[0].force - exact).norm(), 1e-9 * exact.norm());
  ASSERT_EQ(dq.size(), 1u);
  EXPECT_LT((dq[0] - c * block.jacobian_b.transpose() * rows.blocks[0].force).norm(), 1e-15);
  EXPECT_LT((block.violation_free + block.jacobian_b * dq[0]).norm(), 1e-14);

  // With room for more sweeps, the second one changes nothing and the solve stops there.
  rows.blocks[0].force.setZero();
  const SolveResult again = solver.Solve(rows, bodies, SolverOptions{}, &dq);
  EXPECT_EQ(again.iterations, 2);
  EXPECT_LT(again.residual, 1e-12);
}

// Two coupled blocks converge to the exact solution of W f = -delta, assembled here from
// H C H^T and solved directly; the displacements are C H^T f.
TEST(GaussSeidelTest, CoupledBlocksConvergeToAssembledSolution) {
  const std::vector<BodyCompliance> bodies = TwoBodies();
  ConstraintRows rows = CoupledRows();
  const testing::AssembledSystem a = Assemble(rows, bodies);
  const VecX exact = a.w.ldlt().solve(-a.delta);

  GaussSeidelSolver solver;
  SolverOptions options;
  options.max_iterations = 5000;
  options.tolerance = 1e-15;
  std::vector<Vec6> dq;
  const SolveResult result = solver.Solve(rows, bodies, options, &dq);
  EXPECT_LT(result.iterations, options.max_iterations);
  EXPECT_LT(result.residual, options.tolerance);
  const VecX f = StackedForces(rows);
  EXPECT_LT((f - exact).norm(), 1e-8 * exact.norm()) << f.transpose() << "\n" << exact.transpose();
  const VecX q = StackedDisplacements(dq);
  EXPECT_LT((q - a.c * a.h.transpose() * f).norm(), 1e-12 * q.norm());
  EXPECT_LT((a.delta + a.h * q).norm(), 1e-12);
}

// Warm start at the solution: the first sweep changes nothing, so one sweep is enough.
// Without warm start the same rows need many sweeps.
TEST(GaussSeidelTest, WarmStartAtSolutionTakesOneSweep) {
  const std::vector<BodyCompliance> bodies = TwoBodies();
  ConstraintRows rows = CoupledRows();
  const testing::AssembledSystem a = Assemble(rows, bodies);
  const VecX exact = a.w.ldlt().solve(-a.delta);
  rows.blocks[0].force = exact.segment<3>(0);
  rows.blocks[1].force = exact.segment<3>(3);

  GaussSeidelSolver solver;
  SolverOptions options;
  options.max_iterations = 100;
  options.tolerance = 1e-10;
  std::vector<Vec6> dq;
  ConstraintRows warm = rows;
  const SolveResult result = solver.Solve(warm, bodies, options, &dq);
  EXPECT_EQ(result.iterations, 1);
  EXPECT_LT(result.residual, options.tolerance);
  EXPECT_LT((StackedForces(warm) - exact).norm(), 1e-9 * exact.norm());
  // The warm-start forces' displacements are applied.
  EXPECT_LT((a.delta + a.h * StackedDisplacements(dq)).norm(), 1e-12);

  options.warm_start = false;
  ConstraintRows cold = rows;
  const SolveResult cold_result = solver.Solve(cold, bodies, options, &dq);
  EXPECT_GT(cold_result.iterations, 2);
}

// The residual is the largest violation change W_bb df of any block in the last sweep:
// recomputed here from the forces after k-1 and k sweeps.
TEST(GaussSeidelTest, ResidualIsLastSweepViolationChange) {
  const std::vector<BodyCompliance> bodies = TwoBodies();
  const testing::AssembledSystem a = Assemble(CoupledRows(), bodies);
  GaussSeidelSolver solver;
  SolverOptions options;
  options.tolerance = 0.0;
  std::vector<Vec6> dq;
  for (int k = 2; k <= 4; ++k) {
    SCOPED_TRACE(k);
    ConstraintRows before = CoupledRows(), after = CoupledRows();
    options.max_iterations = k - 1;
    solver.Solve(before, bodies, options, &dq);
    options.max_iterations = k;
    const SolveResult result = solver.Solve(after, bodies, options, &dq);
    double expected = 0.0;
    for (int b = 0; b < 2; ++b) {
      const Mat3 w_bb = a.w.block<3, 3>(3 * b, 3 * b);
      const Vec3 df = after.blocks[b].force - before.blocks[b].force;
      expected = std::max(expected, (w_bb * df).cwiseAbs().maxCoeff());
    }
    ASSERT_GT(expected, 0.0);
    EXPECT_NEAR(result.residual, expected, 1e-9 * expected);
  }
}

// The solver stops at max_iterations even when not converged.
TEST(GaussSeidelTest, MaxIterationsRespected) {
  const std::vector<BodyCompliance> bodies = TwoBodies();
  ConstraintRows rows = CoupledRows();
  const testing::AssembledSystem a = Assemble(rows, bodies);
  const VecX exact = a.w.ldlt().solve(-a.delta);
  GaussSeidelSolver solver;
  SolverOptions options;
  options.max_iterations = 3;
  options.tolerance = 0.0;
  std::vector<Vec6> dq;
  const SolveResult result = solver.Solve(rows, bodies, options, &dq);
  EXPECT_EQ(result.iterations, 3);
  EXPECT_GT(result.residual, 0.0);
  EXPECT_GT((StackedForces(rows) - exact).norm(), 1e-6 * exact.norm());
}

// A unilateral row pushes a penetrating body out exactly and leaves a separated one alone.
TEST(GaussSeidelTest, UnilateralRows) {
  const std::vector<BodyCompliance> bodies = TwoBodies();
  ConstraintRows rows;
  ConstraintBlock block;
  block.law = ConstraintLaw::kUnilateral;
  block.dim = 1;
  block.body_b = 1;
  block.jacobian_b.row(0) << 0.0, 1.0, 0.0, 0.0, 0.0, 0.0;  // B along +Y
  block.violation_free.x() = -0.003;
  rows.blocks.push_back(block);
  block.body_b = 0;
  block.violation_free.x() = 0.002;
  rows.blocks.push_back(block);

  GaussSeidelSolver solver;
  std::vector<Vec6> dq;
  solver.Solve(rows, bodies, SolverOptions{}, &dq);
  // f = 0.003 / (h^2 / m) for the 5 kg body.
  EXPECT_NEAR(rows.blocks[0].force.x(), 0.003 * 5.0 / (kH * kH), 1e-9);
  EXPECT_NEAR(dq[1][1], 0.003, 1e-15);
  EXPECT_EQ(rows.blocks[1].force.x(), 0.0);
  EXPECT_TRUE(dq[0].isZero());
}

// No rows: no iterations, and zero displacements sized to the bodies.
TEST(GaussSeidelTest, EmptyRows) {
  const std::vector<BodyCompliance> bodies = TwoBodies();
  ConstraintRows rows;
  GaussSeidelSolver solver;
  std::vector<Vec6> dq = {Vec6::Ones()};
  const SolveResult result = solver.Solve(rows, bodies, SolverOptions{}, &dq);
  EXPECT_EQ(result.iterations, 0);
  ASSERT_EQ(dq.size(), 2u);
  EXPECT_TRUE(dq[0].isZero());
  EXPECT_TRUE(dq[1].isZero());
}

// Three points of one deformable body, coupled through it (a random symmetric positive
// definite compliance), each held by a bilateral 3D block against the world, and a fourth
// block tying point 0 to rigid body 0: Gauss-Seidel converges to the assembled solution
// W f = -delta, W = H C H^T with C's off-diagonal point blocks, and the points'
// displacements are C H^T f.
TEST(GaussSeidelTest, CoupledPointsConvergeToAssembledSolution) {
  testing::CoupledPointsProblem problem = testing::MakeCoupledPointsProblem(TwoBodies()[0]);
  ConstraintRows& rows = problem.rows;
  const std::vector<BodyCompliance>& compliance = problem.bodies;
  const std::vector<CoupledPoints>& coupled = problem.coupled;
  const testing::AssembledSystem a = Assemble(rows, compliance, coupled);
  const MatX& c = a.c;
  const MatX& h = a.h;
  const VecX f = a.w.ldlt().solve(-a.delta);

  GaussSeidelSolver solver;
  SolverOptions options;
  options.max_iterations = 500;
  options.tolerance = 1e-14;
  options.warm_start = false;
  std::vector<Vec6> dq;
  solver.Solve(rows, compliance, coupled, options, &dq);
  for (size_t k = 0; k < rows.blocks.size(); ++k) {
    EXPECT_LT((rows.blocks[k].force - f.segment<3>(3 * k)).norm(), 1e-6 * f.norm()) << k;
  }
  const VecX expected = c * h.transpose() * f;
  for (int body = 0; body < 4; ++body) {
    EXPECT_LT((dq[body] - expected.segment<6>(6 * body)).norm(), 1e-6 * expected.norm()) << body;
  }
  // Every block's constraint holds: delta + H dq = 0.
  for (size_t k = 0; k < rows.blocks.size(); ++k) {
    const ConstraintBlock& b = rows.blocks[k];
    Vec3 after = b.violation_free;
    if (b.body_a != kWorldBody) after += b.jacobian_a * dq[b.body_a];
    after += b.jacobian_b * dq[b.body_b];
    EXPECT_LT(after.norm(), 1e-8) << k;
  }
}

}  // namespace
}  // namespace ligature
