#pragma once
// Shared helpers of the FEM model tests: a tissue material, seeded noise, perturbed rest
// positions, the largest vector norm and the elastic forces of a model.

#include <algorithm>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "server/math/types.h"
#include "server/model/soft/fem_material.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature::testing {

inline FemMaterial Tissue(double young = 1.0e5, double poisson = 0.3) {
  FemMaterial m;
  m.young = young;
  m.poisson = poisson;
  m.density = 1000.0;
  return m;
}

// n vectors of uniform noise in [-amplitude, amplitude]^3, seeded.
inline std::vector<Vec3> Noise(size_t n, double amplitude, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-amplitude, amplitude);
  std::vector<Vec3> out(n);
  for (Vec3& p : out) p = Vec3(u(rng), u(rng), u(rng));
  return out;
}

// Positions of the rest mesh displaced by noise of `amplitude` (m).
inline std::vector<Vec3> Perturbed(const TetMesh& mesh, double amplitude, unsigned seed) {
  std::vector<Vec3> x = Noise(mesh.vertices.size(), amplitude, seed);
  for (size_t i = 0; i < x.size(); ++i) x[i] += mesh.vertices[i];
  return x;
}

inline double MaxNorm(const std::vector<Vec3>& f) {
  double m = 0.0;
  for (const Vec3& v : f) m = std::max(m, v.norm());
  return m;
}

// The elastic forces of `model` (StVKModel or CorotationalModel) at positions x.
template <typename Model>
std::vector<Vec3> Forces(const Model& model, const std::vector<Vec3>& x) {
  std::vector<Vec3> f(x.size(), Vec3::Zero());
  model.AddElasticForces(x, &f);
  return f;
}

// Internal forces f at positions x have no net force or torque (to round-off of the
// largest force), and are not all zero.
inline void ExpectNoNetForceOrTorque(const std::vector<Vec3>& x, const std::vector<Vec3>& f) {
  Vec3 sum = Vec3::Zero(), torque = Vec3::Zero();
  for (size_t i = 0; i < x.size(); ++i) {
    sum += f[i];
    torque += x[i].cross(f[i]);
  }
  const double largest = MaxNorm(f);
  ASSERT_GT(largest, 0.0);
  EXPECT_LT(sum.norm(), 1e-12 * largest * x.size());
  EXPECT_LT(torque.norm(), 1e-12 * largest * x.size());
}

}  // namespace ligature::testing
