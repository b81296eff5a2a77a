#include "server/math/banded_ldlt.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

// The trailing update of one column's elimination: for every later column c in reach,
// A(c.., c) -= L(c.., j) d_j L(c, j). Nearly all of a factorization's time is here; on
// x86-64 it is also compiled for AVX2 with FMA, chosen at load time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void UpdateTrailing(double* l, int stride, int j, int reach, double dj) {
  const double* col = l + static_cast<size_t>(j) * stride;  // col[r] = L(j + r, j)
  for (int c = 1; c <= reach; ++c) {
    const double f = col[c] * dj;
    if (f == 0.0) continue;
    double* target = l + static_cast<size_t>(j + c) * stride;  // target[r] = A(j+c+r, j+c)
    for (int r = 0; r + c <= reach; ++r) target[r] -= col[c + r] * f;
  }
}

// x = L^-T D^-1 L^-1 x with L's columns stored `stride` apart (column j: d_j, then
// L(j + 1.., j)); vectorized like the trailing update.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void SubstituteInPlace(const double* l, const double* d, const int* last, int n, int band,
                       double* x) {
  const int stride = band + 1;
  for (int j = 0; j < n; ++j) {
    const double* col = l + static_cast<size_t>(j) * stride;
    const int reach = last[j] - j;
    const double xj = x[j];
    if (xj != 0.0) {
      for (int r = 1; r <= reach; ++r) x[j + r] -= col[r] * xj;
    }
  }
  for (int j = 0; j < n; ++j) x[j] /= d[j];
  for (int j = n - 1; j >= 0; --j) {
    const double* col = l + static_cast<size_t>(j) * stride;
    const int reach = last[j] - j;
    double sum = 0.0;
    for (int r = 1; r <= reach; ++r) sum += col[r] * x[j + r];
    x[j] -= sum;
  }
}

}  // namespace

absl::Status BandedLdlt::Factor(const BandMatrix& a) {
  Reset(a.n(), a.kl());
  const int stride = band_ + 1;
  // The lower band, column by column: in the band layout a column's diagonal and the
  // entries below it are contiguous.
  for (int j = 0; j < n_; ++j) {
    const int reach = std::min(band_, n_ - 1 - j);
    const double* from = a.data() + a.kl() + a.ku() + static_cast<size_t>(j) * a.ldab();
    std::copy(from, from + reach + 1, l_.data() + static_cast<size_t>(j) * stride);
  }
  return Factor();
}

void BandedLdlt::Reset(int n, int band) {
  factored_ = false;
  n_ = n;
  band_ = band;
  l_.assign(static_cast<size_t>(n_) * (band_ + 1), 0.0);
  d_.assign(n_, 0.0);
}

absl::Status BandedLdlt::Factor() {
  factored_ = false;
  const int stride = band_ + 1;
  // The envelope: each column's last non-zero, at least the previous column's reach.
  reach_.assign(n_, 0);
  int carried = 0;
  for (int j = 0; j < n_; ++j) {
    const double* col = l_.data() + static_cast<size_t>(j) * stride;
    int last = std::min(band_, n_ - 1 - j);
    while (last > 0 && col[last] == 0.0) --last;
    carried = std::max(carried, j + last);
    reach_[j] = carried;
  }
  for (int j = 0; j < n_; ++j) {
    double* col = l_.data() + static_cast<size_t>(j) * stride;
    const int reach = reach_[j] - j;
    double scale = 0.0;
    for (int r = 0; r <= reach; ++r) scale = std::max(scale, std::abs(col[r]));
    const double pivot = col[0];
    if (!std::isfinite(pivot) || !(std::abs(pivot) > 1e-13 * scale)) {
      return absl::FailedPreconditionError(
          absl::StrCat("banded LDL^T: pivot ", pivot, " in column ", j, " of ", n_));
    }
    d_[j] = pivot;
    for (int r = 1; r <= reach; ++r) col[r] /= pivot;
    UpdateTrailing(l_.data(), stride, j, reach, pivot);
  }
  factored_ = true;
  return absl::OkStatus();
}

// L y = b (forward), y / d, then L^T x = y (backward).
void BandedLdlt::Solve(std::span<double> x) const {
  assert(factored_ && static_cast<int>(x.size()) == n_);
  SubstituteInPlace(l_.data(), d_.data(), reach_.data(), n_, band_, x.data());
}

}  // namespace ligature
