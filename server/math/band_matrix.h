#pragma once
// Banded linear systems: a general (non-symmetric) band matrix and its LU factorization
// with partial pivoting. Used for systems whose unknowns can be ordered so that every
// coupling stays near the diagonal (rods and chains, after a bandwidth-reducing ordering),
// including indefinite ones such as KKT systems with zero blocks for the multipliers.

#include <span>
#include <cassert>
#include <vector>

#include "absl/status/status.h"
#include "server/math/types.h"

namespace ligature {

// An n x n matrix with kl sub-diagonals and ku super-diagonals, stored column by column in
// LAPACK's band layout for LU (dgbtrf): entry (i, j) lives at data()[kl + ku + i - j +
// j * ldab()] with ldab() = 2 kl + ku + 1. The first kl rows of each column are room for
// the fill-in that row interchanges create during the factorization.
class BandMatrix {
 public:
  // A zero matrix.
  BandMatrix(int n, int kl, int ku);

  int n() const { return n_; }
  int kl() const { return kl_; }
  int ku() const { return ku_; }
  int ldab() const { return ldab_; }
  double* data() { return data_.data(); }
  const double* data() const { return data_.data(); }

  // Every stored value, fill-in room included, back to zero.
  void SetZero();

  // Entry (i, j), which must lie in the band: j - ku <= i <= j + kl.
  double& At(int i, int j);
  // Entry (i, j); zero outside the band.
  double At(int i, int j) const;
  // At(i, j) += v, for assembly (inline: assembly calls it for every entry).
  void Add(int i, int j, double v) {
    assert(InBand(i, j));
    data_[kl_ + ku_ + i - j + static_cast<size_t>(j) * ldab_] += v;
  }
  // Makes this an n x n zero matrix of the given bands, reusing the storage.
  void Reset(int n, int kl, int ku);

  // True when (i, j) is inside the matrix and inside the band.
  bool InBand(int i, int j) const;

  // The matrix as a dense one (for tests and debugging).
  Eigen::MatrixXd ToDense() const;

 private:
  int n_;
  int kl_;
  int ku_;
  int ldab_;
  std::vector<double> data_;
};

// LU factorization with partial (row) pivoting of a BandMatrix, P A = L U, done in place:
// L's multipliers go below the diagonal, U (with kl + ku super-diagonals, fill-in
// included) on and above it. The pivot search only looks at the kl rows under the diagonal,
// which is all a band matrix has, so the cost is O(n kl (kl + ku)) and a solve is
// O(n (2 kl + ku)). The factored matrix must stay alive and unchanged while Solve is used.
class BandedLu {
 public:
  // Factors `a` in place. Fails (FAILED_PRECONDITION, naming the column) when a pivot is
  // zero or not finite, that is when the matrix is singular or holds NaN/Inf.
  absl::Status Factor(BandMatrix* a);

  // True after a successful Factor.
  bool factored() const { return lu_ != nullptr; }
  // Row interchanges: at step j, row j was swapped with row pivots()[j] (>= j).
  const std::vector<int>& pivots() const { return pivots_; }

  // Overwrites rhs (length n) with the solution x of A x = rhs.
  void Solve(std::span<double> rhs) const;
  // The same for every column of rhs (n rows).
  void Solve(Eigen::Ref<Eigen::MatrixXd> rhs) const;

 private:
  const BandMatrix* lu_ = nullptr;
  std::vector<int> pivots_;
};

}  // namespace ligature
