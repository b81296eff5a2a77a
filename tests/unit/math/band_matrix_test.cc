// Band matrix storage and the banded LU, checked against Eigen's dense LU with partial
// pivoting on random, positive definite, indefinite (KKT) and singular matrices.

#include "server/math/band_matrix.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <span>
#include <vector>

namespace ligature {
namespace {

using ::testing::HasSubstr;

// A band matrix with entries uniform in [-1, 1] inside the band, the diagonal scaled by
// `diagonal_scale` (small values make row interchanges necessary).
BandMatrix RandomBand(int n, int kl, int ku, double diagonal_scale, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  BandMatrix a(n, kl, ku);
  for (int j = 0; j < n; ++j) {
    for (int i = std::max(0, j - ku); i <= std::min(n - 1, j + kl); ++i) {
      a.At(i, j) = u(rng) * (i == j ? diagonal_scale : 1.0);
    }
  }
  return a;
}

// The band matrix holding `dense`, whose entries outside the band must be zero.
BandMatrix FromDense(const Eigen::MatrixXd& dense, int kl, int ku) {
  const int n = static_cast<int>(dense.rows());
  BandMatrix a(n, kl, ku);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) {
      if (a.InBand(i, j)) {
        a.At(i, j) = dense(i, j);
      } else {
        EXPECT_EQ(dense(i, j), 0.0) << "entry (" << i << ", " << j << ") outside the band";
      }
    }
  }
  return a;
}

// Lower and upper bandwidths of a dense matrix (the farthest non-zero from the diagonal).
std::pair<int, int> Bandwidths(const Eigen::MatrixXd& dense) {
  int kl = 0;
  int ku = 0;
  for (int j = 0; j < dense.cols(); ++j) {
    for (int i = 0; i < dense.rows(); ++i) {
      if (dense(i, j) == 0.0) continue;
      kl = std::max(kl, i - j);
      ku = std::max(ku, j - i);
    }
  }
  return {kl, ku};
}

Eigen::VectorXd RandomVector(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v[i] = u(rng);
  return v;
}

// Factors a copy of `a`, solves A x = b and checks x against the dense LU's answer and
// the residual. Returns the number of row interchanges the factorization made.
int ExpectSolvesLikeDense(const BandMatrix& a, std::mt19937& rng) {
  const Eigen::MatrixXd dense = a.ToDense();
  const Eigen::VectorXd b = RandomVector(a.n(), rng);
  BandMatrix lu_storage = a;
  BandedLu lu;
  const absl::Status status = lu.Factor(&lu_storage);
  EXPECT_TRUE(status.ok()) << status;
  if (!status.ok()) return 0;
  Eigen::VectorXd x = b;
  lu.Solve(std::span<double>(x.data(), x.size()));

  const Eigen::VectorXd reference = dense.partialPivLu().solve(b);
  EXPECT_LT((dense * x - b).norm() / b.norm(), 1e-10);
  EXPECT_LT((x - reference).norm() / reference.norm(), 1e-8);
  int swaps = 0;
  for (int j = 0; j < a.n(); ++j) swaps += lu.pivots()[j] != j ? 1 : 0;
  return swaps;
}

TEST(BandMatrixTest, StorageFollowsLapackBandLayout) {
  BandMatrix a(6, 2, 1);
  EXPECT_EQ(a.n(), 6);
  EXPECT_EQ(a.kl(), 2);
  EXPECT_EQ(a.ku(), 1);
  EXPECT_EQ(a.ldab(), 2 * 2 + 1 + 1);
  a.At(3, 2) = 7.0;  // sub-diagonal
  a.At(1, 2) = -4.0;  // super-diagonal
  a.At(4, 4) = 2.5;
  // Entry (i, j) is at kl + ku + i - j + j * ldab.
  EXPECT_EQ(a.data()[2 + 1 + 3 - 2 + 2 * a.ldab()], 7.0);
  EXPECT_EQ(a.data()[2 + 1 + 1 - 2 + 2 * a.ldab()], -4.0);
  EXPECT_EQ(a.data()[2 + 1 + 4 * a.ldab()], 2.5);
}

TEST(BandMatrixTest, ConstAccessIsZeroOutsideTheBand) {
  BandMatrix a(5, 1, 2);
  a.At(0, 2) = 3.0;
  a.Add(0, 2, 1.5);
  a.Add(4, 3, -2.0);
  const BandMatrix& c = a;
  EXPECT_EQ(c.At(0, 2), 4.5);
  EXPECT_EQ(c.At(4, 3), -2.0);
  EXPECT_EQ(c.At(0, 3), 0.0);   // above the band
  EXPECT_EQ(c.At(3, 1), 0.0);   // below the band
  EXPECT_EQ(c.At(-1, 0), 0.0);  // outside the matrix
  EXPECT_EQ(c.At(0, 5), 0.0);

  Eigen::MatrixXd expected = Eigen::MatrixXd::Zero(5, 5);
  expected(0, 2) = 4.5;
  expected(4, 3) = -2.0;
  EXPECT_EQ(a.ToDense(), expected);
  a.SetZero();
  EXPECT_EQ(a.ToDense(), Eigen::MatrixXd::Zero(5, 5));
}

// A well-conditioned band matrix that still needs row interchanges: a diagonally
// dominant band one narrower on each side (random signs), whose rows are then swapped in
// random adjacent pairs. A swap moves a small off-diagonal entry onto the diagonal and
// widens the band by one on each side, so the result fits (kl, ku). Without room on both
// sides (kl = 0 or ku = 0) the dominant band is returned unswapped.
Eigen::MatrixXd SwappedDominantBand(int n, int kl, int ku, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const bool swaps = kl >= 1 && ku >= 1;
  const int inner_kl = swaps ? kl - 1 : kl;
  const int inner_ku = swaps ? ku - 1 : ku;
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = std::max(0, i - inner_kl); j <= std::min(n - 1, i + inner_ku); ++j) {
      if (j != i) a(i, j) = u(rng);
    }
    a(i, i) = (u(rng) < 0.0 ? -1.0 : 1.0) * (1.0 + a.row(i).cwiseAbs().sum());
  }
  for (int i = 0; swaps && i + 1 < n; ++i) {
    if (u(rng) < 0.0) continue;
    a.row(i).swap(a.row(i + 1));
    ++i;  // pairs do not overlap, so each row moves by one at most
  }
  return a;
}

// Bands of many shapes: kl != ku, one-sided (kl = 0 or ku = 0), a band wider than the
// matrix, and the 1 x 1 case.
TEST(BandedLuTest, MatchesDenseLuOnRandomBands) {
  struct Shape {
    int n, kl, ku;
  };
  const std::vector<Shape> shapes = {{1, 0, 0},  {1, 2, 3},   {2, 1, 1},     {5, 0, 2},
                                     {20, 0, 3}, {20, 3, 0},  {50, 2, 5},    {50, 5, 2},
                                     {64, 1, 1}, {100, 7, 7}, {120, 14, 14}, {10, 12, 3},
                                     {200, 1, 6}};
  std::mt19937 rng(12345);
  int swaps = 0;
  for (const Shape& s : shapes) {
    SCOPED_TRACE(testing::Message() << "n=" << s.n << " kl=" << s.kl << " ku=" << s.ku);
    const BandMatrix a = FromDense(SwappedDominantBand(s.n, s.kl, s.ku, rng), s.kl, s.ku);
    swaps += ExpectSolvesLikeDense(a, rng);
  }
  EXPECT_GT(swaps, 0) << "the matrices never needed a row interchange";
}

// Fully random bands with a small diagonal (interchanges at almost every step); square
// bands of moderate size stay well enough conditioned for the residual bound.
TEST(BandedLuTest, MatchesDenseLuOnRandomSmallDiagonalBands) {
  std::mt19937 rng(2024);
  int swaps = 0;
  for (int k = 1; k <= 4; ++k) {
    SCOPED_TRACE(testing::Message() << "kl=ku=" << k);
    swaps += ExpectSolvesLikeDense(RandomBand(40, k, k, 0.1, rng), rng);
  }
  EXPECT_GT(swaps, 0);
}

// A symmetric positive definite band (diagonally dominant): no interchange is needed.
TEST(BandedLuTest, SolvesSymmetricPositiveDefiniteBand) {
  std::mt19937 rng(7);
  const int n = 80;
  const int k = 3;
  BandMatrix a = RandomBand(n, k, k, 0.0, rng);
  Eigen::MatrixXd dense = a.ToDense();
  dense = (0.5 * (dense + dense.transpose())).eval();
  for (int i = 0; i < n; ++i) dense(i, i) = dense.row(i).cwiseAbs().sum() + 1.0;
  ASSERT_GT(dense.selfadjointView<Eigen::Lower>().eigenvalues().minCoeff(), 0.0);
  EXPECT_EQ(ExpectSolvesLikeDense(FromDense(dense, k, k), rng), 0);
}

// A KKT system of a chain of nodes: [K J^T; J 0] with K a stiffness block (3 dofs per
// node, springs between neighbours plus mass) and J the distance constraints between
// consecutive nodes plus a pin of node 0. Each multiplier sits next to the dofs it
// constrains, so the matrix is banded (6 + 6), symmetric, indefinite, with zeros on the
// diagonal.
TEST(BandedLuTest, SolvesIndefiniteKktBandWithZeroDiagonal) {
  std::mt19937 rng(99);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  const int nodes = 40;
  // Unknown indices: the pin's 3 multipliers, then for each node its 3 dofs and the
  // multiplier of its distance to node i + 1.
  std::vector<int> dof(nodes);
  std::vector<int> lambda(nodes, -1);
  int n = 0;
  int pin = -1;
  for (int i = 0; i < nodes; ++i) {
    if (i == 0) {
      pin = n;
      n += 3;
    }
    dof[i] = n;
    n += 3;
    if (i + 1 < nodes) lambda[i] = n++;
  }

  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
  const double mass_term = 1e2;   // m / h^2
  const double stiffness = 1e3;   // spring constant
  for (int i = 0; i < nodes; ++i) a.block<3, 3>(dof[i], dof[i]) += mass_term * Mat3::Identity();
  for (int i = 0; i + 1 < nodes; ++i) {
    const Vec3 d = Vec3(1.0 + 0.2 * u(rng), 0.3 * u(rng), 0.3 * u(rng)).normalized();
    const Mat3 kblock = stiffness * d * d.transpose();
    a.block<3, 3>(dof[i], dof[i]) += kblock;
    a.block<3, 3>(dof[i + 1], dof[i + 1]) += kblock;
    a.block<3, 3>(dof[i], dof[i + 1]) -= kblock;
    a.block<3, 3>(dof[i + 1], dof[i]) -= kblock;
    // Gradient of the distance constraint: -d for node i, +d for node i + 1.
    a.block<1, 3>(lambda[i], dof[i]) = -d.transpose();
    a.block<1, 3>(lambda[i], dof[i + 1]) = d.transpose();
    a.block<3, 1>(dof[i], lambda[i]) = -d;
    a.block<3, 1>(dof[i + 1], lambda[i]) = d;
  }
  a.block<3, 3>(pin, dof[0]) = Mat3::Identity();
  a.block<3, 3>(dof[0], pin) = Mat3::Identity();

  // The test is only meaningful on a truly indefinite matrix with zero diagonal entries.
  const Eigen::VectorXd eigenvalues = a.selfadjointView<Eigen::Lower>().eigenvalues();
  ASSERT_LT(eigenvalues.minCoeff(), 0.0);
  ASSERT_GT(eigenvalues.maxCoeff(), 0.0);
  ASSERT_EQ(a(lambda[5], lambda[5]), 0.0);
  const auto [kl, ku] = Bandwidths(a);
  EXPECT_EQ(kl, 6);
  EXPECT_EQ(kl, ku);
  EXPECT_GT(ExpectSolvesLikeDense(FromDense(a, kl, ku), rng), 0);
}

// The smallest indefinite case: a zero diagonal that only a row interchange gets past.
TEST(BandedLuTest, SolvesZeroDiagonalTwoByTwo) {
  BandMatrix a(2, 1, 1);
  a.At(0, 1) = 2.0;
  a.At(1, 0) = 3.0;
  BandedLu lu;
  ASSERT_TRUE(lu.Factor(&a).ok());
  std::vector<double> b = {4.0, 9.0};
  lu.Solve(std::span<double>(b));
  EXPECT_DOUBLE_EQ(b[0], 3.0);
  EXPECT_DOUBLE_EQ(b[1], 2.0);
}

TEST(BandedLuTest, EmptyMatrixFactorsAndSolves) {
  BandMatrix a(0, 2, 2);
  BandedLu lu;
  ASSERT_TRUE(lu.Factor(&a).ok());
  std::vector<double> b;
  lu.Solve(std::span<double>(b));
  EXPECT_TRUE(lu.factored());
}

// A zero column leaves an exactly zero pivot in that column, whatever the interchanges.
TEST(BandedLuTest, ZeroColumnIsReportedAsSingular) {
  std::mt19937 rng(3);
  BandMatrix a = RandomBand(10, 2, 2, 1.0, rng);
  for (int i = 2; i <= 6; ++i) a.At(i, 4) = 0.0;
  BandedLu lu;
  const absl::Status status = lu.Factor(&a);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("column 4"));
  EXPECT_FALSE(lu.factored());
}

// Two equal rows: elimination turns one into exact zeros.
TEST(BandedLuTest, RepeatedRowIsReportedAsSingular) {
  std::mt19937 rng(4);
  BandMatrix a = RandomBand(12, 2, 2, 1.0, rng);
  // Rows 5 and 6 share columns 4..7 of the band; make them equal there and zero elsewhere.
  a.At(5, 3) = 0.0;
  a.At(6, 8) = 0.0;
  for (int j = 4; j <= 7; ++j) a.At(6, j) = a.At(5, j);
  BandedLu lu;
  const absl::Status status = lu.Factor(&a);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("singular"));
}

TEST(BandedLuTest, NonFiniteEntryIsReported) {
  std::mt19937 rng(5);
  BandMatrix a = RandomBand(8, 1, 1, 1.0, rng);
  a.At(3, 3) = std::numeric_limits<double>::quiet_NaN();
  BandedLu lu;
  const absl::Status status = lu.Factor(&a);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()), HasSubstr("non-finite"));
}

// Several right-hand sides at once give what one-at-a-time solves give.
TEST(BandedLuTest, MultiColumnSolveMatchesSingleColumnSolves) {
  std::mt19937 rng(21);
  const int n = 60;
  BandMatrix a = RandomBand(n, 4, 2, 0.1, rng);
  const Eigen::MatrixXd dense = a.ToDense();
  BandedLu lu;
  ASSERT_TRUE(lu.Factor(&a).ok());

  Eigen::MatrixXd b(n, 5);
  for (int c = 0; c < b.cols(); ++c) b.col(c) = RandomVector(n, rng);
  Eigen::MatrixXd x = b;
  lu.Solve(Eigen::Ref<Eigen::MatrixXd>(x));
  for (int c = 0; c < b.cols(); ++c) {
    Eigen::VectorXd single = b.col(c);
    lu.Solve(std::span<double>(single.data(), single.size()));
    EXPECT_LT((x.col(c) - single).norm(), 1e-12 * single.norm()) << "column " << c;
    EXPECT_LT((dense * x.col(c) - b.col(c)).norm() / b.col(c).norm(), 1e-10);
  }
}

}  // namespace
}  // namespace ligature
