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

// The patch test under uniaxial stress: stretch eps along x and contraction -nu eps across
// a 4 x 2 x 3 box (`mesh`, half extents `half`). The internal forces on the +x face's 12
// nodes sum to -E eps A along x and nothing across, to 1 % (first order in eps). Returns the
// forces for model-specific checks.
template <typename Model>
std::vector<Vec3> ExpectUniaxialPatch(const Model& model, const TetMesh& mesh, const Vec3& half,
                                      double young, double nu, double eps) {
  std::vector<Vec3> x = mesh.vertices;
  for (Vec3& p : x) {
    p = Vec3((1.0 + eps) * p.x(), (1.0 - nu * eps) * p.y(), (1.0 - nu * eps) * p.z());
  }
  const std::vector<Vec3> f = Forces(model, x);
  Vec3 face = Vec3::Zero();
  int on_face = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    if (mesh.vertices[i].x() > half.x() - 1e-9) {
      face += f[i];
      ++on_face;
    }
  }
  EXPECT_EQ(on_face, 3 * 4);
  const double area = 4.0 * half.y() * half.z();
  EXPECT_NEAR(-face.x(), young * eps * area, 0.01 * young * eps * area);
  EXPECT_LT(std::abs(face.y()) + std::abs(face.z()), 1e-6 * young * eps * area);
  return f;
}

}  // namespace ligature::testing
