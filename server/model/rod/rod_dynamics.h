#pragma once
// The free motion of one rod as the linearized backward-Euler system S dX = F over its
// degrees of freedom (dX = X(n+1) - X(n)):
//   S = (1/h^2 + alpha/h) M + (1 + beta/h) K(X)
//   F = M V / h - grad E(X) + f_gravity + f_external
// with M the consistent mass, K the elastic stiffness (stretching linearized at X, its
// compressive part dropped so that S stays positive definite), alpha and beta the mass-
// and stiffness-proportional damping. S couples control points at most three apart, so it
// is stored as 4x4 blocks per control point and offset.

#include <array>
#include <vector>

#include "server/model/rod/rod_model.h"

namespace ligature {

using Mat4 = Eigen::Matrix4d;
using Vec4 = Eigen::Vector4d;

struct RodSystem {
  // upper[i][k]: the block coupling control point i (rows) with i + k (columns), k = 0..3;
  // S is symmetric, so the lower blocks are their transposes.
  std::vector<std::array<Mat4, 4>> upper;
  std::vector<Vec4> rhs;  // F per control point: (force, twisting moment)
  // Assembly's working space, kept for its capacity.
  std::vector<Vec3> scratch_force;
  std::vector<double> scratch_moment;
  std::vector<double> scratch_stretch;  // per stretching point: its Hessian and force

  int control_points() const { return static_cast<int>(rhs.size()); }
};

// A symmetric scalar band over control points: row i, offsets k = 0..3 (entry (i, i + k)).
using ScalarBand = std::vector<std::array<double, 4>>;

// What does not depend on the state, for steps of h seconds: S's constant part (mass,
// bending, twisting; F left zero) and the scalar operators that F's linear terms apply to
// the state (so that those terms cost a band product per step, not a quadrature). A world
// keeps it per rod and rebuilds it only when h changes.
struct RodConstantPart {
  RodSystem system;
  ScalarBand mass;     // int b_i b_j du (m)
  ScalarBand bending;  // int b_i'' b_j'' du (1/m^3)
  ScalarBand twist;    // int b_i' b_j' du (1/m)
  std::vector<double> basis_integral;  // int b_i du (m)
};
void AssembleConstantPart(const RodModel& model, double h, RodConstantPart* out);

// Assembles S and F for one step of h seconds under gravity, from `constant` (the
// AssembleConstantPart of the same model and h) plus the stretching stiffness at the
// state. `external` holds extra forces (N) at rod points, as (u, force) pairs.
void AssembleRodSystem(const RodModel& model, const RodState& state, double h,
                       const Vec3& gravity,
                       const std::vector<std::pair<double, Vec3>>& external,
                       const RodConstantPart& constant, RodSystem* out);
// The same, building the constant part on the way.
void AssembleRodSystem(const RodModel& model, const RodState& state, double h,
                       const Vec3& gravity,
                       const std::vector<std::pair<double, Vec3>>& external, RodSystem* out);

// Elastic plus gravitational potential energy (J), for tests and diagnostics.
double RodPotentialEnergy(const RodModel& model, const RodState& state, const Vec3& gravity);
// Kinetic energy (J) under the consistent mass.
double RodKineticEnergy(const RodModel& model, const RodState& state);

}  // namespace ligature
