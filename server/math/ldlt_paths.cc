#include "server/math/ldlt_paths.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

namespace ligature {

LdltPaths::LdltPaths(std::vector<int> start, std::vector<int> count, const int* rows,
                     const double* values, std::span<const double> d, std::vector<int> pivot)
    : start_(std::move(start)),
      count_(std::move(count)),
      rows_(rows),
      values_(values),
      pivot_(std::move(pivot)) {
  const int n = size();
  assert(static_cast<int>(start_.size()) == n && static_cast<int>(count_.size()) == n);
  assert(static_cast<int>(d.size()) == n);
  scale_.resize(n);
  parent_.assign(n, -1);
  place_.assign(n, -1);
  for (int j = 0; j < n; ++j) {
    assert(d[j] > 0.0);
    scale_[j] = 1.0 / std::sqrt(d[j]);
    // The parent is the first row below the diagonal.
    for (int k = 0; k < count_[j]; ++k) {
      const int row = rows_[start_[j] + k];
      assert(row > j);
      if (parent_[j] < 0 || row < parent_[j]) parent_[j] = row;
    }
  }
}

namespace {

// The walk's inner loops, for W unknowns (0: w of them, known at run time); three, a
// vertex's, get their own compiled loops.
template <int W>
void Walk(int w, const std::vector<int>& path, const std::vector<int>& place,
          const std::vector<int>& start, const std::vector<int>& count, const int* rows,
          const double* values, double* y) {
  if constexpr (W > 0) w = W;
  for (size_t i = 0; i < path.size(); ++i) {
    const int j = path[i];
    const double* yi = &y[i * w];
    for (int k = start[j]; k < start[j] + count[j]; ++k) {
      assert(place[rows[k]] > static_cast<int>(i));
      double* target = &y[place[rows[k]] * w];
      for (int c = 0; c < w; ++c) target[c] -= values[k] * yi[c];
    }
  }
}

template <int WA, int WB>
void SharedSum(const PathColumns& a, const PathColumns& b, double* out) {
  const int wa = WA > 0 ? WA : a.width, wb = WB > 0 ? WB : b.width;
  std::fill(out, out + wa * wb, 0.0);
  for (auto i = a.pivots.size(), j = b.pivots.size();
       i > 0 && j > 0 && a.pivots[i - 1] == b.pivots[j - 1]; --i, --j) {
    const double* za = &a.values[(i - 1) * wa];
    const double* zb = &b.values[(j - 1) * wb];
    for (int r = 0; r < wa; ++r) {
      for (int c = 0; c < wb; ++c) out[r * wb + c] += za[r] * zb[c];
    }
  }
}

}  // namespace

// Forward substitution L y = e_k for each unknown's pivot k, along the path of the lowest:
// each pivot's column adds into rows further up the same path, so y lives on the path.
void LdltPaths::Columns(std::span<const int> unknowns, PathColumns* out) {
  const int w = static_cast<int>(unknowns.size());
  int lowest = pivot_[unknowns[0]];
  for (const int a : unknowns) lowest = std::min(lowest, pivot_[a]);
  std::vector<int>& path = out->pivots;
  std::vector<double>& y = out->values;
  out->width = w;
  path.clear();
  for (int j = lowest; j >= 0; j = parent_[j]) {
    place_[j] = static_cast<int>(path.size());
    path.push_back(j);
  }
  y.assign(path.size() * w, 0.0);
  for (int c = 0; c < w; ++c) {
    assert(place_[pivot_[unknowns[c]]] >= 0);  // coupled unknowns share the path
    y[place_[pivot_[unknowns[c]]] * w + c] = 1.0;
  }
  if (w == 3) {
    Walk<3>(w, path, place_, start_, count_, rows_, values_, y.data());
  } else {
    Walk<0>(w, path, place_, start_, count_, rows_, values_, y.data());
  }
  for (size_t i = 0; i < path.size(); ++i) {
    for (int c = 0; c < w; ++c) y[i * w + c] *= scale_[path[i]];
    place_[path[i]] = -1;
  }
}

void LdltPaths::Dot(const PathColumns& a, const PathColumns& b, double* out) {
  if (a.width == 3 && b.width == 3) {
    SharedSum<3, 3>(a, b, out);
  } else {
    SharedSum<0, 0>(a, b, out);
  }
}

}  // namespace ligature
