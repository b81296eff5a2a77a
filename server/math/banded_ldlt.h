#pragma once
// LDL^T factorization of a symmetric band matrix without pivoting, for the quasi-definite
// systems of constrained dynamics ([S J^T; J -C] with S positive definite, C >= 0): with
// every constraint row ordered after the unknowns it acts on, their pivots come out
// negative and the factorization needs no row interchanges, so the factors keep the
// matrix's band (partial pivoting doubles it). It reports failure instead of dividing by
// a pivot that is too small for its column, so that a caller can fall back to pivoting LU.

#include <cassert>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "server/math/band_matrix.h"

namespace ligature {

class BandedLdlt {
 public:
  // Factorizes the lower band of `a` (a symmetric matrix with kl sub-diagonals), leaving
  // `a` untouched. Fails with FAILED_PRECONDITION when a pivot is not finite or is below
  // 1e-13 of the largest entry of its column.
  absl::Status Factor(const BandMatrix& a);
  // The same for a matrix assembled here: Reset to an n x n zero matrix with `band`
  // sub-diagonals (storage reused), Add entries of its lower triangle, then Factor().
  void Reset(int n, int band);
  void Add(int i, int j, double v) {
    assert(i >= j && i - j <= band_ && i < n_);
    l_[static_cast<size_t>(j) * (band_ + 1) + (i - j)] += v;
  }
  absl::Status Factor();
  // Factor(), solving A x = rhs (x in place) on the way: the forward substitution runs
  // alongside the elimination. On failure x is left partly substituted.
  absl::Status FactorAndSolve(std::span<double> x);
  bool factored() const { return factored_; }
  // Solves A x = rhs in place.
  void Solve(std::span<double> rhs) const;

 private:
  absl::Status Eliminate(double* x);  // Factor(), and with x FactorAndSolve

  int n_ = 0;
  int band_ = 0;
  // Column j: its diagonal, then L(j + 1, j) .. L(j + band, j) (unit lower factor).
  std::vector<double> l_;
  std::vector<double> d_;
  // Last row the factor can reach in each column: the matrix's envelope (its last
  // non-zero, carried over from earlier columns), which elimination does not leave. Work
  // outside it is skipped, so rows that widen the band locally cost only where they are.
  std::vector<int> reach_;
  bool factored_ = false;
};

}  // namespace ligature
