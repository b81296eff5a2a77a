#include "server/solver/direct_blocks.h"

#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <random>
#include <vector>

#include "server/solver/gauss_seidel.h"
#include "tests/unit/solver/assembled_system.h"

namespace ligature {
namespace {

using testing::Assemble;
using testing::RandomJacobian;
using testing::StackedForces;
using testing::VecX;

using Response63 = Eigen::Matrix<double, 6, 3>;

// Bodies of random mass and inertia, turned at random, stepped at 100 Hz.
std::vector<BodyCompliance> RandomBodies(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(0.5, 5.0);
  constexpr double kH2 = 1e-4;
  std::vector<BodyCompliance> bodies(n);
  for (BodyCompliance& c : bodies) {
    c.linear = kH2 / u(rng);
    const Vec3 axis = Vec3(u(rng) - 2.75, u(rng) - 2.75, u(rng) - 2.75).normalized();
    const Mat3 r = Eigen::AngleAxisd(u(rng), axis).toRotationMatrix();
    c.angular = kH2 * r * Vec3(u(rng), u(rng), u(rng)).cwiseInverse().asDiagonal() * r.transpose();
  }
  return bodies;
}

// A chain: body 0 held to the world, then each body to the one before, with blocks of
// dimension 3 and 2 in turn and random directions and violations.
ConstraintRows RandomChain(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-0.01, 0.01);
  ConstraintRows rows;
  for (int i = 0; i < n; ++i) {
    ConstraintBlock b;
    b.law = ConstraintLaw::kBilateral;
    b.dim = i % 2 == 0 ? 3 : 2;
    b.body_b = i;
    b.jacobian_b = RandomJacobian(rng);
    if (i > 0) {
      b.body_a = i - 1;
      b.jacobian_a = RandomJacobian(rng);
    }
    b.violation_free = Vec3(u(rng), u(rng), u(rng));
    rows.blocks.push_back(b);
  }
  return rows;
}

// C H^T of every block side, as the Gauss-Seidel solver keeps them.
struct Responses {
  std::vector<Response63> a, b;
  Responses(const ConstraintRows& rows, const std::vector<BodyCompliance>& bodies) {
    for (const ConstraintBlock& k : rows.blocks) {
      a.push_back(Side(k.body_a, k.jacobian_a, bodies));
      b.push_back(Side(k.body_b, k.jacobian_b, bodies));
    }
  }
  static Response63 Side(uint32_t body, const BlockJacobian& j,
                         const std::vector<BodyCompliance>& bodies) {
    if (body == kWorldBody) return Response63::Zero();
    return testing::DenseCompliance(bodies[body]) * j.transpose();
  }
};

// Prepares `direct` on every bilateral block and takes one step from dq = 0; dq is what
// the force changes moved the bodies by.
double PrepareAndStep(DirectBlocks& direct, ConstraintRows& rows,
                      const std::vector<BodyCompliance>& bodies, std::vector<Vec6>* dq) {
  const Responses r(rows, bodies);
  direct.Prepare(
      rows, [&](uint32_t i) { return rows.blocks[i].law == ConstraintLaw::kBilateral; },
      [&](uint32_t i, int side) -> const Response63& { return side == 0 ? r.a[i] : r.b[i]; });
  dq->assign(bodies.size(), Vec6::Zero());
  return direct.Step(rows, *dq, [&](uint32_t i, const Vec3& df) {
    const ConstraintBlock& b = rows.blocks[i];
    if (b.body_a != kWorldBody) (*dq)[b.body_a] += r.a[i] * df;
    if (b.body_b != kWorldBody) (*dq)[b.body_b] += r.b[i] * df;
  });
}

// Each block's violation after the step, violation_free + J dq: the largest.
double LargestViolation(const ConstraintRows& rows, const std::vector<Vec6>& dq) {
  double largest = 0.0;
  for (const ConstraintBlock& b : rows.blocks) {
    Vec3 delta = b.violation_free;
    if (b.body_a != kWorldBody) delta += b.jacobian_a * dq[b.body_a];
    if (b.body_b != kWorldBody) delta += b.jacobian_b * dq[b.body_b];
    largest = std::max(largest, delta.head(b.dim).cwiseAbs().maxCoeff());
  }
  return largest;
}

// One step solves a chain of 40 blocks exactly: the forces are those of the assembled
// system W f = -delta (W = H C H^T, solved densely here), and every violation is gone.
TEST(DirectBlocksTest, OneStepSolvesAChainExactly) {
  std::mt19937 rng(7);
  const std::vector<BodyCompliance> bodies = RandomBodies(40, rng);
  ConstraintRows rows = RandomChain(40, rng);
  const testing::AssembledSystem a = Assemble(rows, bodies);
  const VecX exact = a.w.ldlt().solve(-a.delta);

  DirectBlocks direct;
  std::vector<Vec6> dq;
  const double cancelled = PrepareAndStep(direct, rows, bodies, &dq);
  EXPECT_EQ(direct.members().size(), rows.blocks.size());
  EXPECT_DOUBLE_EQ(cancelled, a.delta.cwiseAbs().maxCoeff());
  EXPECT_LT((StackedForces(rows) - exact).norm(), 1e-9 * exact.norm());
  EXPECT_LT(LargestViolation(rows, dq), 1e-12);
}

// The pattern of W kept from one solve to the next: new directions, compliances and
// violations on the same bodies are solved exactly, to the same bits as by a DirectBlocks
// that never solved before; a chain one block shorter (a new pattern) is solved exactly too.
TEST(DirectBlocksTest, AKeptPatternSolvesNewValuesAsAFreshOneDoes) {
  std::mt19937 rng(23);
  std::vector<BodyCompliance> bodies = RandomBodies(30, rng);
  ConstraintRows first = RandomChain(30, rng);
  DirectBlocks kept;
  std::vector<Vec6> dq;
  PrepareAndStep(kept, first, bodies, &dq);

  bodies = RandomBodies(30, rng);
  ConstraintRows second = RandomChain(30, rng);
  ConstraintRows again = second;
  const testing::AssembledSystem a = Assemble(second, bodies);
  const VecX exact = a.w.ldlt().solve(-a.delta);
  PrepareAndStep(kept, second, bodies, &dq);
  EXPECT_LT((StackedForces(second) - exact).norm(), 1e-9 * exact.norm());
  EXPECT_LT(LargestViolation(second, dq), 1e-12);
  DirectBlocks fresh;
  std::vector<Vec6> dq_fresh;
  PrepareAndStep(fresh, again, bodies, &dq_fresh);
  for (size_t i = 0; i < second.blocks.size(); ++i) {
    EXPECT_EQ(second.blocks[i].force, again.blocks[i].force) << "block " << i;
  }

  ConstraintRows shorter = RandomChain(29, rng);
  PrepareAndStep(kept, shorter, bodies, &dq);
  EXPECT_EQ(kept.members().size(), shorter.blocks.size());
  EXPECT_LT(LargestViolation(shorter, dq), 1e-12);
}

// A block that repeats another (the same rows between the same bodies, as a closed loop of
// hinges repeats directions) makes W singular: one of the two is left out of the direct
// solve, and since the two agree the step still cancels both.
TEST(DirectBlocksTest, RedundantBlockIsLeftToTheSweeps) {
  std::mt19937 rng(11);
  const std::vector<BodyCompliance> bodies = RandomBodies(10, rng);
  ConstraintRows rows = RandomChain(10, rng);
  rows.blocks.push_back(rows.blocks[4]);

  DirectBlocks direct;
  std::vector<Vec6> dq;
  PrepareAndStep(direct, rows, bodies, &dq);
  EXPECT_EQ(direct.members().size(), rows.blocks.size() - 1);
  EXPECT_NE(direct.IsMember(4), direct.IsMember(10));
  EXPECT_LT(LargestViolation(rows, dq), 1e-12);
}

// Two blocks that disagree (the same rows, other violations) cannot both hold: the step
// keeps its forces finite and holds the one it took exactly.
TEST(DirectBlocksTest, ConflictingBlockKeepsForcesFinite) {
  std::mt19937 rng(13);
  const std::vector<BodyCompliance> bodies = RandomBodies(10, rng);
  ConstraintRows rows = RandomChain(10, rng);
  rows.blocks.push_back(rows.blocks[4]);
  rows.blocks.back().violation_free += Vec3(0.02, 0.0, 0.0);

  DirectBlocks direct;
  std::vector<Vec6> dq;
  PrepareAndStep(direct, rows, bodies, &dq);
  ASSERT_EQ(direct.members().size(), rows.blocks.size() - 1);
  for (const ConstraintBlock& b : rows.blocks) EXPECT_TRUE(b.force.allFinite());
  ConstraintRows members;
  for (uint32_t m : direct.members()) members.blocks.push_back(rows.blocks[m]);
  EXPECT_LT(LargestViolation(members, dq), 1e-10);
}

// Only eligible blocks join: a unilateral block stays out.
TEST(DirectBlocksTest, OnlyEligibleBlocksJoin) {
  std::mt19937 rng(17);
  const std::vector<BodyCompliance> bodies = RandomBodies(6, rng);
  ConstraintRows rows = RandomChain(6, rng);
  rows.blocks[2].law = ConstraintLaw::kUnilateral;
  rows.blocks[2].dim = 1;
  DirectBlocks direct;
  std::vector<Vec6> dq;
  PrepareAndStep(direct, rows, bodies, &dq);
  EXPECT_EQ(direct.members().size(), 5u);
  EXPECT_FALSE(direct.IsMember(2));
  EXPECT_TRUE(direct.IsMember(3));
}

// In the Gauss-Seidel solver: a chain of 60 bilateral blocks with a unilateral contact
// pressing on its last body. With the direct solve, 100 sweeps reach the assembled
// solution (the contact is active, so it holds as an equality); block by block, the same
// sweeps leave the forces more than 0.1 % off.
TEST(DirectBlocksTest, GaussSeidelWithDirectBlocksConvergesOnALongChain) {
  std::mt19937 rng(19);
  const int n = 60;
  const std::vector<BodyCompliance> bodies = RandomBodies(n, rng);
  ConstraintRows rows = RandomChain(n, rng);
  ConstraintBlock contact;
  contact.law = ConstraintLaw::kUnilateral;
  contact.dim = 1;
  contact.body_b = n - 1;
  contact.jacobian_b.row(0) << 0, 1, 0, 0, 0, 0;
  contact.violation_free = Vec3(-0.05, 0, 0);  // an overlap to push out of
  rows.blocks.push_back(contact);

  const testing::AssembledSystem a = Assemble(rows, bodies);
  const VecX exact = a.w.ldlt().solve(-a.delta);
  ASSERT_GT(exact(exact.size() - 1), 0.0);  // the contact pushes: it is active

  SolverOptions options;
  options.max_iterations = 100;
  options.tolerance = 1e-14;
  for (bool direct : {true, false}) {
    ConstraintRows solved = rows;
    options.direct_bilateral = direct;
    GaussSeidelSolver solver;
    std::vector<Vec6> dq;
    solver.Solve(solved, bodies, options, &dq);
    const double error = (StackedForces(solved) - exact).norm() / exact.norm();
    if (direct) {
      EXPECT_LT(error, 1e-8);
      EXPECT_LT(LargestViolation(solved, dq), 1e-10);
    } else {
      EXPECT_GT(error, 1e-3);
    }
  }
}

}  // namespace
}  // namespace ligature
