#include "server/math/banded_ldlt.h"

#include <algorithm>
#include <cassert>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

// Columns whose reach (rows below the diagonal within the envelope) is at most this are
// eliminated and substituted by code compiled for that exact reach: fully unrolled, with no
// loop tails, which is what the rods' narrow bands need (11 for three unknowns per control
// point, a few more next to a constraint's rows). Wider columns take the general loops.
constexpr int kMaxFixedReach = 16;

// Four doubles (AVX2 in the x86-64-v3 clones, two SSE2 halves otherwise).
using V4 = double __attribute__((vector_size(32)));

// Column j's elimination: checks its pivot (carried in from the previous column's
// update, so that the chain of pivots, the one serial path of the factorization, does not
// go through memory), scales the column by it and applies the trailing update A(c.., c) -=
// L(c.., j) d_j L(c, j) for every later column c in reach. kReach >= 0 fixes the reach at
// compile time (and then every column is updated, zero or not); -1 takes `reach` and skips
// zero entries. Returns false, leaving the column as it was, when the pivot is not finite
// or below 1e-13 of the largest entry of its column; else the next column's pivot (when
// reach >= 1) in *next.
template <int kReach>
[[gnu::always_inline]] inline bool EliminateColumn(double* col, int stride, int reach,
                                                   double pivot, double* next) {
  const int last = kReach >= 0 ? kReach : reach;
  // col[r] = A(j + r, j), to become L(j + r, j).
  double scale = std::abs(pivot);
  for (int r = 1; r <= last; ++r) scale = std::max(scale, std::abs(col[r]));
  if (!std::isfinite(pivot) || !(std::abs(pivot) > 1e-13 * scale)) return false;
  col[0] = pivot;
  const double inv = 1.0 / pivot;
  if constexpr (kReach >= 0) {
    // The next pivot first, as A(j+1, j+1) - A(j+1, j)^2 / d_j with the square taken
    // before the division is done: the chain of pivots is one division and one FMA per
    // column. (Its stored copy, updated below, is replaced by this value.)
    if constexpr (kReach >= 1) *next = col[stride] - (col[1] * col[1]) * inv;
    // A(j+c+r, j+c) -= A(j+c+r, j) L(j+c, j), from the column as it was (written by the
    // previous columns' updates well before), four rows at a time; then L = A / d_j.
#pragma GCC unroll 16
    for (int c = 1; c <= kReach; ++c) {
      const double lc = col[c] * inv;
      double* target = col + static_cast<size_t>(c) * stride;
      const int len = kReach - c + 1;
      int r = 0;
#pragma GCC unroll 4
      for (; r + 4 <= len; r += 4) {
        V4 t, a;
        __builtin_memcpy(&t, target + r, sizeof(t));
        __builtin_memcpy(&a, col + c + r, sizeof(a));
        t -= a * lc;
        __builtin_memcpy(target + r, &t, sizeof(t));
      }
#pragma GCC unroll 4
      for (; r < len; ++r) target[r] -= col[c + r] * lc;
    }
#pragma GCC unroll 16
    for (int r = 1; r <= kReach; ++r) col[r] *= inv;
  } else {
    for (int r = 1; r <= last; ++r) col[r] *= inv;
    for (int c = 1; c <= last; ++c) {
      const double f = col[c] * pivot;
      if (f == 0.0) continue;
      double* target = col + static_cast<size_t>(c) * stride;
      for (int r = 0; r + c <= last; ++r) target[r] -= col[c + r] * f;
    }
    if (last >= 1) *next = col[stride];
  }
  return true;
}

// x(j + 1 .. j + reach) -= L(j + 1.., j) x_j, with x_j final (in xj); returns x_(j+1)
// final (when reach >= 1), kept in a register for the next column.
template <int kReach>
[[gnu::always_inline]] inline double ForwardColumn(const double* col, int reach, double xj,
                                                   double* x) {
  const int last = kReach >= 0 ? kReach : reach;
  if (last == 0) return 0.0;
  if (kReach < 0 && xj == 0.0) return x[1];
#pragma GCC unroll 16
  for (int r = 2; r <= last; ++r) x[r] -= col[r] * xj;
  return x[1] - col[1] * xj;
}

// x_j -= L(j + 1.., j) . x(j + 1 .. j + reach) with x_(j+1) in x1 (a register): the
// terms from j + 2 on, which wait on nothing recent, are summed in four interleaved parts,
// and x_(j+1)'s term comes last.
template <int kReach>
[[gnu::always_inline]] inline double BackwardColumn(const double* col, int reach, double x1,
                                                    const double* x) {
  const int last = kReach >= 0 ? kReach : reach;
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int r = 2;
#pragma GCC unroll 4
  for (; r + 3 <= last; r += 4) {
    s0 += col[r] * x[r];
    s1 += col[r + 1] * x[r + 1];
    s2 += col[r + 2] * x[r + 2];
    s3 += col[r + 3] * x[r + 3];
  }
#pragma GCC unroll 4
  for (; r <= last; ++r) s0 += col[r] * x[r];
  const double rest = x[0] - ((s0 + s1) + (s2 + s3));
  return last >= 1 ? rest - col[1] * x1 : rest;
}

// Calls body.template operator()<R>() with R = reach when reach <= kMaxFixedReach, else
// with R = -1.
template <typename Body>
[[gnu::always_inline]] inline void ByReach(int reach, Body&& body) {
  switch (reach) {
#define LIGATURE_REACH_CASE(R) \
  case R:                      \
    body.template operator()<R>(); \
    return;
    LIGATURE_REACH_CASE(0)
    LIGATURE_REACH_CASE(1)
    LIGATURE_REACH_CASE(2)
    LIGATURE_REACH_CASE(3)
    LIGATURE_REACH_CASE(4)
    LIGATURE_REACH_CASE(5)
    LIGATURE_REACH_CASE(6)
    LIGATURE_REACH_CASE(7)
    LIGATURE_REACH_CASE(8)
    LIGATURE_REACH_CASE(9)
    LIGATURE_REACH_CASE(10)
    LIGATURE_REACH_CASE(11)
    LIGATURE_REACH_CASE(12)
    LIGATURE_REACH_CASE(13)
    LIGATURE_REACH_CASE(14)
    LIGATURE_REACH_CASE(15)
    LIGATURE_REACH_CASE(16)
#undef LIGATURE_REACH_CASE
    default:
      body.template operator()<-1>();
  }
}
static_assert(kMaxFixedReach == 16, "ByReach lists the fixed reaches 0..16");

// x = L^-T D^-1 x (the substitution's second half) with L's columns stored `stride`
// apart (column j: d_j, then L(j + 1.., j)).
[[gnu::always_inline]] inline void SubstituteBackward(const double* l, const double* d,
                                                      const int* last, int n, int stride,
                                                      double* x) {
  for (int j = 0; j < n; ++j) x[j] /= d[j];
  double x1 = 0.0;
  for (int j = n - 1; j >= 0; --j) {
    const double* col = l + static_cast<size_t>(j) * stride;
    const int reach = last[j] - j;
    double xnew = 0.0;
    ByReach(reach, [&]<int R>() { xnew = BackwardColumn<R>(col, reach, x1, x + j); });
    x[j] = xnew;
    x1 = xnew;
  }
}

// The factorization's column loop: d_j and L's columns in place, with each column's last
// reachable row in last[j]; with x, also x = L^-1 x on the way (column j's substitution
// runs alongside the next columns' elimination, since the two wait on different things)
// and, once all pivots are found, x = L^-T D^-1 x: A x = rhs solved. Returns the column
// whose pivot failed (x then partly substituted), or -1. Nearly all of a factorization's
// time is here; on x86-64 it is also compiled for AVX2 with FMA, chosen at load time.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
int FactorColumns(double* l, double* d, const int* last, int n, int stride, double* x) {
  if (n == 0) return -1;
  double pivot = l[0];
  double xj = x != nullptr ? x[0] : 0.0;
  for (int j = 0; j < n; ++j) {
    double* col = l + static_cast<size_t>(j) * stride;
    const int reach = last[j] - j;
    bool ok = false;
    double next = j + 1 < n ? col[stride] : 0.0;
    double x_next = 0.0;
    ByReach(reach, [&]<int R>() {
      ok = EliminateColumn<R>(col, stride, reach, pivot, &next);
      if (ok && x != nullptr) {
        x[j] = xj;
        x_next = ForwardColumn<R>(col, reach, xj, x + j);
      }
    });
    d[j] = pivot;
    if (!ok) return j;
    pivot = next;
    if (x != nullptr && j + 1 < n) xj = reach >= 1 ? x_next : x[j + 1];
  }
  if (x != nullptr) SubstituteBackward(l, d, last, n, stride, x);
  return -1;
}

// x = L^-T D^-1 L^-1 x; vectorized like the factorization.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
__attribute__((target_clones("arch=x86-64-v3", "default")))
#endif
void SubstituteInPlace(const double* l, const double* d, const int* last, int n, int band,
                       double* x) {
  if (n == 0) return;
  const int stride = band + 1;
  double xj = x[0];
  for (int j = 0; j < n; ++j) {
    const double* col = l + static_cast<size_t>(j) * stride;
    const int reach = last[j] - j;
    x[j] = xj;
    double next = 0.0;
    ByReach(reach, [&]<int R>() { next = ForwardColumn<R>(col, reach, xj, x + j); });
    if (j + 1 < n) xj = reach >= 1 ? next : x[j + 1];
  }
  SubstituteBackward(l, d, last, n, stride, x);
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

absl::Status BandedLdlt::Factor() { return Eliminate(nullptr); }

absl::Status BandedLdlt::FactorAndSolve(std::span<double> x) {
  assert(x.empty() || static_cast<int>(x.size()) == n_);
  return Eliminate(x.empty() ? nullptr : x.data());
}

absl::Status BandedLdlt::Eliminate(double* x) {
  factored_ = false;
  const int stride = band_ + 1;
  // The envelope: each column's last non-zero, at least the previous column's reach (so
  // only the entries beyond that reach are looked at, which also keeps the number of
  // looks regular from column to column).
  reach_.assign(n_, 0);
  int carried = 0;
  for (int j = 0; j < n_; ++j) {
    const double* col = l_.data() + static_cast<size_t>(j) * stride;
    const int floor = std::max(0, carried - j);
    int last = std::min(band_, n_ - 1 - j);
    while (last > floor && col[last] == 0.0) --last;
    carried = std::max(carried, j + last);
    reach_[j] = carried;
  }
  const int failed = FactorColumns(l_.data(), d_.data(), reach_.data(), n_, stride, x);
  if (failed >= 0) {
    return absl::FailedPreconditionError(absl::StrCat(
        "banded LDL^T: pivot ", d_[failed], " in column ", failed, " of ", n_));
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
