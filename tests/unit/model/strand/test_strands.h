#pragma once
// Strands shared by the strand unit tests.

#include <random>
#include <vector>

#include "server/model/strand/strand_model.h"

namespace ligature::testing {

// A random branched strand of n segments (each segment's parent picked at random among the
// earlier ones or the base), random directions and lengths, random anisotropic material.
inline StrandDesc RandomBranchedStrand(int n, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_real_distribution<double> pos(0.5, 1.5);
  StrandDesc desc;
  desc.points.push_back(Vec3(0.1, -0.2, 0.05));
  desc.parents.resize(n);
  desc.materials.resize(n);
  for (int i = 0; i < n; ++i) {
    desc.parents[i] = std::uniform_int_distribution<int>(-1, i - 1)(rng);
    const Vec3 start = desc.parents[i] < 0 ? desc.points[0] : desc.points[desc.parents[i] + 1];
    Vec3 d(u(rng), u(rng) - 1.5, u(rng));
    desc.points.push_back(start + 0.1 * pos(rng) * d.normalized());
    StrandMaterial& m = desc.materials[i];
    m.mass_per_length = 0.01 * pos(rng);
    m.radius = 0.002 * pos(rng);
    m.bend_rigidity_x = 1e-3 * pos(rng);
    m.bend_rigidity_z = 2e-3 * pos(rng);
    m.twist_rigidity = 5e-4 * pos(rng);
    m.bend_damping_x = 1e-5 * pos(rng);
    m.bend_damping_z = 1e-5 * pos(rng);
    m.twist_damping = 1e-5 * pos(rng);
    m.drag = 0.01 * pos(rng);
  }
  return desc;
}

// A straight serial strand of n equal segments along `direction` from the origin.
inline StrandDesc StraightStrand(int n, double length, const Vec3& direction,
                                 const StrandMaterial& material) {
  StrandDesc desc;
  for (int i = 0; i <= n; ++i) desc.points.push_back(direction.normalized() * (length * i / n));
  desc.materials = {material};
  return desc;
}

}  // namespace ligature::testing
