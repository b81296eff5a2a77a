#include "server/model/rod/bspline.h"

#include <algorithm>
#include <cassert>
#include <cmath>

namespace ligature {

CubicBSpline::CubicBSpline(int control_points, double length)
    : n_(control_points), length_(length) {
  assert(n_ >= 4 && length_ > 0.0);
}

// Knots 0..3 are 0, n..n+3 are the length, and the inner ones are evenly spaced.
double CubicBSpline::Knot(int i) const {
  const int m = n_ - 3;
  const int k = std::clamp(i - 3, 0, m);
  return length_ * static_cast<double>(k) / m;
}

double CubicBSpline::Greville(int i) const {
  return (Knot(i + 1) + Knot(i + 2) + Knot(i + 3)) / 3.0;
}

// Cox-de Boor with derivatives: the triangular table of basis functions of rising degree
// on the knot span of u, then derivatives from differences of the degree-2 functions.
SplineSample CubicBSpline::Sample(double u) const {
  constexpr int p = 3;
  u = std::clamp(u, 0.0, length_);
  const int m = n_ - 3;
  // Span s with knot(s) <= u < knot(s + 1), s in [3, n - 1]; u = length uses the last.
  const int span = 3 + std::min(m - 1, static_cast<int>(std::floor(u / length_ * m)));

  // ndu[j][r]: basis functions of degree j (upper triangle) and knot differences (lower).
  double ndu[p + 1][p + 1];
  double left[p + 1], right[p + 1];
  ndu[0][0] = 1.0;
  for (int j = 1; j <= p; ++j) {
    left[j] = u - Knot(span + 1 - j);
    right[j] = Knot(span + j) - u;
    double saved = 0.0;
    for (int r = 0; r < j; ++r) {
      ndu[j][r] = right[r + 1] + left[j - r];
      const double temp = ndu[r][j - 1] / ndu[j][r];
      ndu[r][j] = saved + right[r + 1] * temp;
      saved = left[j - r] * temp;
    }
    ndu[j][j] = saved;
  }

  SplineSample out;
  out.first = span - p;
  double ders[3][p + 1];
  for (int j = 0; j <= p; ++j) ders[0][j] = ndu[j][p];
  // Derivatives of order 1 and 2 (The NURBS Book's recurrence on the a-coefficients).
  for (int r = 0; r <= p; ++r) {
    double a[2][p + 1];
    int s1 = 0, s2 = 1;
    a[0][0] = 1.0;
    for (int k = 1; k <= 2; ++k) {
      double d = 0.0;
      const int rk = r - k, pk = p - k;
      if (r >= k) {
        a[s2][0] = a[s1][0] / ndu[pk + 1][rk];
        d = a[s2][0] * ndu[rk][pk];
      }
      const int j1 = rk >= -1 ? 1 : -rk;
      const int j2 = (r - 1 <= pk) ? k - 1 : p - r;
      for (int j = j1; j <= j2; ++j) {
        a[s2][j] = (a[s1][j] - a[s1][j - 1]) / ndu[pk + 1][rk + j];
        d += a[s2][j] * ndu[rk + j][pk];
      }
      if (r <= pk) {
        a[s2][k] = -a[s1][k - 1] / ndu[pk + 1][r];
        d += a[s2][k] * ndu[r][pk];
      }
      ders[k][r] = d;
      std::swap(s1, s2);
    }
  }
  for (int j = 0; j <= p; ++j) {
    out.b[j] = ders[0][j];
    out.db[j] = ders[1][j] * p;
    out.ddb[j] = ders[2][j] * p * (p - 1);
  }
  return out;
}

}  // namespace ligature
