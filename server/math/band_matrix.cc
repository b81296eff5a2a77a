// Band matrix storage and its LU factorization with partial pivoting (banded Gaussian
// elimination, one column at a time).

#include "server/math/band_matrix.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

#include "absl/strings/str_cat.h"

namespace ligature {

BandMatrix::BandMatrix(int n, int kl, int ku)
    : n_(n), kl_(kl), ku_(ku), ldab_(2 * kl + ku + 1),
      data_(static_cast<size_t>(n) * static_cast<size_t>(2 * kl + ku + 1), 0.0) {
  assert(n >= 0 && kl >= 0 && ku >= 0);
}

void BandMatrix::SetZero() { std::fill(data_.begin(), data_.end(), 0.0); }

void BandMatrix::Reset(int n, int kl, int ku) {
  assert(n >= 0 && kl >= 0 && ku >= 0);
  n_ = n;
  kl_ = kl;
  ku_ = ku;
  ldab_ = 2 * kl + ku + 1;
  data_.assign(static_cast<size_t>(n) * static_cast<size_t>(ldab_), 0.0);
}

bool BandMatrix::InBand(int i, int j) const {
  return i >= 0 && j >= 0 && i < n_ && j < n_ && i >= j - ku_ && i <= j + kl_;
}

double& BandMatrix::At(int i, int j) {
  assert(InBand(i, j));
  return data_[kl_ + ku_ + i - j + static_cast<size_t>(j) * ldab_];
}

double BandMatrix::At(int i, int j) const {
  if (!InBand(i, j)) return 0.0;
  return data_[kl_ + ku_ + i - j + static_cast<size_t>(j) * ldab_];
}

Eigen::MatrixXd BandMatrix::ToDense() const {
  Eigen::MatrixXd dense = Eigen::MatrixXd::Zero(n_, n_);
  for (int j = 0; j < n_; ++j) {
    const int first = std::max(0, j - ku_);
    const int last = std::min(n_ - 1, j + kl_);
    for (int i = first; i <= last; ++i) dense(i, j) = At(i, j);
  }
  return dense;
}

namespace {

// The factorization's view of the storage: the diagonal of column j is at diag(j), and
// entry (i, j) for j - (kl + ku) <= i <= j + kl at diag(j)[i - j].
template <typename T>
struct BandViewOf {
  T* ab;
  int ld;
  int kv;  // kl + ku: the diagonal's row in the storage

  T* diag(int j) const { return ab + static_cast<size_t>(j) * ld + kv; }
};
using BandView = BandViewOf<double>;
using ConstBandView = BandViewOf<const double>;

// Zeroes the fill-in room (the top kl rows of every column), which the elimination
// assumes to start empty whatever the caller left there.
void ClearFillIn(BandMatrix* a) {
  double* ab = a->data();
  for (int j = 0; j < a->n(); ++j) {
    std::fill_n(ab + static_cast<size_t>(j) * a->ldab(), a->kl(), 0.0);
  }
}

// Offset (0..km) of the largest magnitude among col[0..km]; the first non-finite value
// wins outright so that it is reported instead of spreading through the factors.
int PivotOffset(const double* col, int km) {
  int best = 0;
  double best_abs = -1.0;
  for (int r = 0; r <= km; ++r) {
    const double v = std::abs(col[r]);
    if (!std::isfinite(v)) return r;
    if (v > best_abs) {
      best = r;
      best_abs = v;
    }
  }
  return best;
}

// Swaps rows j and j + p over columns j..last.
void SwapRows(const BandView& v, int j, int p, int last) {
  for (int c = j; c <= last; ++c) {
    double* col = v.diag(c);
    std::swap(col[j - c], col[j + p - c]);
  }
}

// Elimination under the pivot of column j: divides the km entries below it into
// multipliers (a division, not a product with the reciprocal, so that a row equal to the
// pivot row gets a multiplier of exactly 1 and cancels exactly), then subtracts multiplier
// x pivot row from rows j+1..j+km of columns j+1..last (the rank-one update of the
// trailing band).
// Systems assembled from sparse blocks leave many zeros inside the band; when most of the
// multipliers are zero, only the rows of the non-zero ones are updated (`rows` is scratch).
// This loop is nearly all of a factorization's time: on x86-64 it is also compiled for
// AVX2 with FMA, chosen at load time when the processor has them.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void EliminateBelow(const BandView& v, int j, int km, int last, std::vector<int>* rows) {
  double* col = v.diag(j);
  const double pivot = col[0];
  rows->clear();
  for (int r = 1; r <= km; ++r) {
    col[r] /= pivot;
    if (col[r] != 0.0) rows->push_back(r);
  }
  if (rows->empty()) return;
  const bool sparse = 2 * static_cast<int>(rows->size()) < km;
  for (int c = j + 1; c <= last; ++c) {
    double* target = v.diag(c) + (j - c);  // target[r] = A(j + r, c)
    const double u = target[0];
    if (u == 0.0) continue;
    if (sparse) {
      for (const int r : *rows) target[r] -= col[r] * u;
    } else {
      for (int r = 1; r <= km; ++r) target[r] -= col[r] * u;
    }
  }
}

}  // namespace

// Column by column: pick the pivot among the diagonal and the kl entries below it, swap
// it up (over the columns the swap can reach), then eliminate below it. `last` tracks the
// rightmost column any pivot row reaches so far, which bounds both swaps and updates.
absl::Status BandedLu::Factor(BandMatrix* a) {
  lu_ = nullptr;
  const int n = a->n();
  const int kl = a->kl();
  const BandView v{a->data(), a->ldab(), a->kl() + a->ku()};
  pivots_.assign(n, 0);
  ClearFillIn(a);
  std::vector<int> rows;
  rows.reserve(kl);
  int last = 0;
  for (int j = 0; j < n; ++j) {
    const int km = std::min(kl, n - 1 - j);
    const int p = PivotOffset(v.diag(j), km);
    pivots_[j] = j + p;
    const double pivot = v.diag(j)[p];
    if (pivot == 0.0 || !std::isfinite(pivot)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "banded LU: ", pivot == 0.0 ? "zero" : "non-finite", " pivot in column ", j, " of ",
          n, pivot == 0.0 ? " (the matrix is singular)" : ""));
    }
    last = std::max(last, std::min(j + a->ku() + p, n - 1));
    if (p != 0) SwapRows(v, j, p, last);
    if (km > 0) EliminateBelow(v, j, km, last, &rows);
  }
  lu_ = a;
  return absl::OkStatus();
}

// Forward pass (interchanges and L, step by step as during the factorization), then back
// substitution with U, which has kl + ku super-diagonals.
void BandedLu::Solve(std::span<double> rhs) const {
  assert(factored());
  const int n = lu_->n();
  assert(static_cast<int>(rhs.size()) == n);
  const int kl = lu_->kl();
  const int kv = lu_->kl() + lu_->ku();
  const ConstBandView v{lu_->data(), lu_->ldab(), kv};
  double* b = rhs.data();
  for (int j = 0; j + 1 < n; ++j) {
    if (pivots_[j] != j) std::swap(b[j], b[pivots_[j]]);
    const double bj = b[j];
    if (bj == 0.0) continue;
    const double* col = v.diag(j);
    const int km = std::min(kl, n - 1 - j);
    for (int r = 1; r <= km; ++r) b[j + r] -= col[r] * bj;
  }
  for (int j = n - 1; j >= 0; --j) {
    const double* col = v.diag(j);
    b[j] /= col[0];
    const double bj = b[j];
    if (bj == 0.0) continue;
    for (int i = std::max(0, j - kv); i < j; ++i) b[i] -= col[i - j] * bj;
  }
}

// The same passes as the single right-hand side, applied to whole rows of rhs.
void BandedLu::Solve(Eigen::Ref<Eigen::MatrixXd> rhs) const {
  assert(factored());
  const int n = lu_->n();
  assert(rhs.rows() == n);
  const int kl = lu_->kl();
  const int kv = lu_->kl() + lu_->ku();
  const ConstBandView v{lu_->data(), lu_->ldab(), kv};
  for (int j = 0; j + 1 < n; ++j) {
    if (pivots_[j] != j) rhs.row(j).swap(rhs.row(pivots_[j]));
    const double* col = v.diag(j);
    const int km = std::min(kl, n - 1 - j);
    for (int r = 1; r <= km; ++r) rhs.row(j + r) -= col[r] * rhs.row(j);
  }
  for (int j = n - 1; j >= 0; --j) {
    const double* col = v.diag(j);
    rhs.row(j) /= col[0];
    for (int i = std::max(0, j - kv); i < j; ++i) rhs.row(i) -= col[i - j] * rhs.row(j);
  }
}

}  // namespace ligature
