// The banded LDL^T, checked against Eigen's dense LU on positive definite band matrices
// (narrow ones, which take the kernels compiled per reach, and wide ones, which take the
// general loops), on quasi-definite KKT matrices whose constraint rows widen the envelope
// locally, and on singular matrices; Factor then Solve, FactorAndSolve and
// Factor(BandMatrix) must agree.

#include "server/math/banded_ldlt.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <random>
#include <span>
#include <vector>

#include "server/math/band_matrix.h"

namespace ligature {
namespace {

using ::testing::HasSubstr;

// A symmetric positive definite matrix with half-bandwidth `band`: entries uniform in
// [-1, 1] inside the band, each diagonal entry above the sum of its row's magnitudes.
Eigen::MatrixXd RandomDefinite(int n, int band, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
  for (int j = 0; j < n; ++j) {
    for (int i = j + 1; i <= std::min(n - 1, j + band); ++i) {
      a(i, j) = u(rng);
      a(j, i) = a(i, j);
    }
  }
  for (int i = 0; i < n; ++i) a(i, i) = a.row(i).cwiseAbs().sum() + 1.0 + u(rng) * 0.5;
  return a;
}

// A quasi-definite KKT matrix like a rod's: `points` blocks of three unknowns coupled to
// the three next blocks (a definite part), and after every `every`-th block one constraint
// row of three entries on the unknowns of that block and of the one three back (which
// widens the envelope there), with a tiny negative diagonal. Returns the half-bandwidth.
Eigen::MatrixXd RandomKkt(int points, int every, std::mt19937& rng, int* band) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  // Band index of each block's first unknown and of each row.
  std::vector<int> first(points);
  std::vector<std::pair<int, int>> rows;  // (band index, block it follows)
  int next = 0;
  for (int p = 0; p < points; ++p) {
    first[p] = next;
    next += 3;
    if (p >= 3 && p % every == 0) rows.push_back({next++, p});
  }
  const int n = next;
  Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
  for (int p = 0; p < points; ++p) {
    for (int q = p; q < std::min(points, p + 4); ++q) {
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 3; ++j) {
          if (p == q && j < i) continue;
          const double v = u(rng);
          a(first[p] + i, first[q] + j) = v;
          a(first[q] + j, first[p] + i) = v;
        }
      }
    }
  }
  for (int p = 0; p < points; ++p) {
    for (int i = 0; i < 3; ++i) {
      const int k = first[p] + i;
      a(k, k) = a.row(k).cwiseAbs().sum() + 1.0;
    }
  }
  for (const auto& [row, p] : rows) {
    for (const int k : {first[p - 3], first[p] + 1, first[p] + 2}) {
      const double v = u(rng);
      a(row, k) = v;
      a(k, row) = v;
    }
    a(row, row) = -1e-8;
  }
  *band = 0;
  for (int j = 0; j < n; ++j) {
    for (int i = j; i < n; ++i) {
      if (a(i, j) != 0.0) *band = std::max(*band, i - j);
    }
  }
  return a;
}

// Loads the lower band of `dense` into `ldlt` (Reset then Add).
void Load(const Eigen::MatrixXd& dense, int band, BandedLdlt* ldlt) {
  const int n = static_cast<int>(dense.rows());
  ldlt->Reset(n, band);
  for (int j = 0; j < n; ++j) {
    for (int i = j; i <= std::min(n - 1, j + band); ++i) {
      if (dense(i, j) != 0.0) ldlt->Add(i, j, dense(i, j));
    }
  }
}

Eigen::VectorXd RandomVector(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Eigen::VectorXd v(n);
  for (int i = 0; i < n; ++i) v(i) = u(rng);
  return v;
}

// Largest difference between x and the dense solution, relative to the latter.
double RelativeError(const std::vector<double>& x, const Eigen::VectorXd& expected) {
  double err = 0.0;
  for (int i = 0; i < expected.size(); ++i) err = std::max(err, std::abs(x[i] - expected(i)));
  return err / expected.cwiseAbs().maxCoeff();
}

// Factor + Solve, FactorAndSolve (then a second Solve with the kept factorization) and
// Factor(BandMatrix) + Solve against the dense solution.
void ExpectSolves(const Eigen::MatrixXd& a, int band, std::mt19937& rng) {
  const int n = static_cast<int>(a.rows());
  const Eigen::VectorXd b = RandomVector(n, rng);
  const Eigen::VectorXd expected = a.partialPivLu().solve(b);

  BandedLdlt ldlt;
  Load(a, band, &ldlt);
  ASSERT_TRUE(ldlt.Factor().ok());
  std::vector<double> x(b.data(), b.data() + n);
  ldlt.Solve(std::span<double>(x));
  EXPECT_LT(RelativeError(x, expected), 1e-10);

  BandedLdlt fused;
  Load(a, band, &fused);
  std::vector<double> y(b.data(), b.data() + n);
  ASSERT_TRUE(fused.FactorAndSolve(std::span<double>(y)).ok());
  EXPECT_TRUE(fused.factored());
  EXPECT_LT(RelativeError(y, expected), 1e-10);
  const Eigen::VectorXd b2 = RandomVector(n, rng);
  std::vector<double> z(b2.data(), b2.data() + n);
  fused.Solve(std::span<double>(z));
  EXPECT_LT(RelativeError(z, a.partialPivLu().solve(b2)), 1e-10);

  BandMatrix banded(n, band, band);
  for (int j = 0; j < n; ++j) {
    for (int i = std::max(0, j - band); i <= std::min(n - 1, j + band); ++i) {
      banded.At(i, j) = a(i, j);
    }
  }
  BandedLdlt from_band;
  ASSERT_TRUE(from_band.Factor(banded).ok());
  std::vector<double> w(b.data(), b.data() + n);
  from_band.Solve(std::span<double>(w));
  EXPECT_LT(RelativeError(w, expected), 1e-10);
}

TEST(BandedLdltTest, NarrowDefiniteBandsMatchDenseSolve) {
  std::mt19937 rng(7);
  for (const int band : {1, 2, 5, 11, 16}) {
    SCOPED_TRACE(band);
    ExpectSolves(RandomDefinite(40, band, rng), band, rng);
  }
}

TEST(BandedLdltTest, WideDefiniteBandsMatchDenseSolve) {
  std::mt19937 rng(11);
  for (const int band : {17, 24}) {
    SCOPED_TRACE(band);
    ExpectSolves(RandomDefinite(60, band, rng), band, rng);
  }
}

TEST(BandedLdltTest, QuasiDefiniteKktMatchesDenseSolve) {
  std::mt19937 rng(3);
  for (const int every : {4, 9}) {
    SCOPED_TRACE(every);
    int band = 0;
    const Eigen::MatrixXd a = RandomKkt(30, every, rng, &band);
    ASSERT_GT(band, 11);  // the rows widen the band beyond the blocks' 11
    ExpectSolves(a, band, rng);
  }
}

TEST(BandedLdltTest, ZeroPivotFails) {
  std::mt19937 rng(5);
  Eigen::MatrixXd a = RandomDefinite(20, 3, rng);
  a.row(8).setZero();
  a.col(8).setZero();
  BandedLdlt ldlt;
  Load(a, 3, &ldlt);
  const absl::Status factored = ldlt.Factor();
  EXPECT_EQ(factored.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(factored.message(), HasSubstr("column 8"));
  EXPECT_FALSE(ldlt.factored());

  Load(a, 3, &ldlt);
  std::vector<double> x(20, 1.0);
  EXPECT_EQ(ldlt.FactorAndSolve(std::span<double>(x)).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_FALSE(ldlt.factored());
}

TEST(BandedLdltTest, EmptyMatrix) {
  BandedLdlt ldlt;
  ldlt.Reset(0, 1);
  std::vector<double> x;
  EXPECT_TRUE(ldlt.FactorAndSolve(std::span<double>(x)).ok());
}

}  // namespace
}  // namespace ligature
