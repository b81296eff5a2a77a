#pragma once
// Clamped uniform cubic B-spline basis over arc length u in [0, length]: n >= 4 control
// points, n - 3 equal segments, end knots repeated four times so that the curve starts at
// the first control point and ends at the last. Four basis functions are non-zero at any u;
// their values and first two derivatives (with respect to u) give x(u), x'(u), x''(u) as
// blends of the control points.

#include <array>

namespace ligature {

// The four non-zero basis functions at one parameter value.
struct SplineSample {
  int first = 0;                 // index of the control point weighted by b[0]
  std::array<double, 4> b{};     // b_i(u)
  std::array<double, 4> db{};    // b_i'(u), 1/m
  std::array<double, 4> ddb{};   // b_i''(u), 1/m^2
};

class CubicBSpline {
 public:
  CubicBSpline() = default;
  // n >= 4 control points over [0, length], length > 0.
  CubicBSpline(int control_points, double length);

  int control_points() const { return n_; }
  int segments() const { return n_ - 3; }
  double length() const { return length_; }
  double segment_length() const { return length_ / (n_ - 3); }
  // The basis at u (clamped into [0, length]).
  SplineSample Sample(double u) const;
  // Greville abscissa of control point i: where a straight curve parametrized by arc
  // length puts it (the basis reproduces x(u) = a + b u with these points).
  double Greville(int i) const;

 private:
  double Knot(int i) const;  // knot i of n + 4, in m

  int n_ = 0;
  double length_ = 0.0;
};

}  // namespace ligature
