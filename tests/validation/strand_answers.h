#pragma once
// Analytic answers and set-ups shared by the strand validation tests.

#include <cmath>
#include <vector>

#include "server/model/strand/strand_model.h"

namespace ligature::testing {

// The discrete static answer for a cantilever of torsion springs: each joint carries the
// moment of the weight outboard of it, M_j = sum m_k g (x_k - x_j), and its spring answers
// 2 K tan(theta_j / 2) = M_j. Solved by fixed-point iteration on the deflected geometry.
inline double CantileverTipDrop(int n, double length, double mass_per_length, double stiffness) {
  const double seg = length / n;
  const double m = mass_per_length * seg;
  std::vector<double> theta(n, 0.0);
  double drop = 0.0;
  for (int iter = 0; iter < 500; ++iter) {
    std::vector<double> x(n + 1, 0.0), y(n + 1, 0.0);
    double phi = 0.0;
    for (int i = 0; i < n; ++i) {
      phi += theta[i];
      x[i + 1] = x[i] + seg * std::cos(phi);
      y[i + 1] = y[i] - seg * std::sin(phi);
    }
    for (int j = 0; j < n; ++j) {
      double moment = 0.0;
      for (int k = j; k < n; ++k) moment += m * 9.81 * (0.5 * (x[k] + x[k + 1]) - x[j]);
      theta[j] = 2.0 * std::atan(moment / (2.0 * stiffness));
    }
    drop = -y[n];
  }
  return drop;
}

// A soft, lightly damped hair (5 cm of it weighs 2.5 g) with some air drag: the strand
// the draping tests drop onto a sphere.
inline StrandMaterial SoftHairMaterial() {
  StrandMaterial mat;
  mat.mass_per_length = 0.05;
  mat.radius = 0.002;
  mat.bend_rigidity_x = mat.bend_rigidity_z = 1e-4;
  mat.twist_rigidity = 1e-4;
  mat.bend_damping_x = mat.bend_damping_z = mat.twist_damping = 2e-5;
  mat.drag = 0.1;
  return mat;
}

}  // namespace ligature::testing
