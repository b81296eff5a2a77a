#pragma once
// What the finite-element soft-tissue models share: the isotropic elastic material (Young's
// modulus, Poisson ratio, density, Rayleigh damping) with its Lame parameters, the state
// that changes per tick (vertex positions and velocities), and the rest data computed
// once per mesh (per tet: the inverse rest shape matrix and rest volume; per vertex: the
// lumped mass and whether it is held fixed).
//
// Shape matrices use the tet's 4th vertex as the reference: for a tet (a, b, c, d),
// D = [a - d, b - d, c - d], so the deformation gradient is F = Ds Dm^-1, and the gradients
// of the linear shape functions of a, b, c are the rows of Dm^-1 (d's is minus their sum).

#include <array>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/math/types.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {

struct FemMaterial {
  double young = 1.0e5;            // E, Pa, > 0
  double poisson = 0.3;            // nu, in [0, 0.5)
  double density = 1000.0;         // rho, kg/m^3, > 0
  double mass_damping = 0.0;       // alpha, 1/s, >= 0: damping force -alpha M v
  double stiffness_damping = 0.0;  // beta, s, >= 0: damping force -beta K v
};

struct LameParameters {
  double lambda = 0.0;  // Pa: resistance to changes of volume
  double mu = 0.0;      // Pa: shear modulus
};

// lambda = E nu / ((1 + nu)(1 - 2 nu)), mu = E / (2 (1 + nu)). Valid for a validated
// material (nu < 0.5).
inline LameParameters Lame(const FemMaterial& m) {
  return {m.young * m.poisson / ((1.0 + m.poisson) * (1.0 - 2.0 * m.poisson)),
          m.young / (2.0 * (1.0 + m.poisson))};
}

// Speed of compression waves, sqrt((lambda + 2 mu) / rho), m/s: the fastest signal in the
// material, which bounds explicit time steps.
double PWaveSpeed(const FemMaterial& m);

// INVALID_ARGUMENT naming the field when E <= 0, nu outside [0, 0.5), density <= 0 or a
// damping coefficient < 0 (NaN fails every check).
absl::Status ValidateFemMaterial(const FemMaterial& m);

// The changing part of a soft body: per vertex position (m) and velocity (m/s), and for a
// corotational body the last step's velocity change before constraints (m/s; empty before
// its first step), which the next step's iteration starts from.
struct FemState {
  std::vector<Vec3> x;
  std::vector<Vec3> v;
  std::vector<Vec3> dv;
};

// The mesh at rest: positions from the mesh, velocities zero.
FemState RestFemState(const TetMesh& mesh);

// Rest data of a mesh for a material; constant once made.
struct FemRest {
  std::vector<Mat3> dm_inverse;  // per tet: Dm^-1
  std::vector<double> volume;    // per tet: rest volume V0, m^3
  std::vector<double> mass;      // per vertex: lumped mass (rho V0 / 4 from each tet), kg
  std::vector<char> fixed;       // per vertex: 1 when held at its position
  double min_edge = 0.0;         // shortest tet edge at rest, m
  double min_altitude = 0.0;     // shortest tet altitude (vertex to opposite face) at rest, m
};

// Fails (INVALID_ARGUMENT naming the field) on a bad material, an empty mesh, vertex
// indices out of range, a tet that is not positively oriented or is degenerate, a vertex
// no tet uses (it would have no mass), or a fixed index out of range.
absl::StatusOr<FemRest> MakeFemRest(const TetMesh& mesh, const FemMaterial& material,
                                    std::span<const int> fixed);

// The shape matrix [x_a - x_d, x_b - x_d, x_c - x_d] of `tet` at positions x.
inline Mat3 ShapeMatrix(const std::vector<Vec3>& x, const std::array<int, 4>& tet) {
  Mat3 d;
  d.col(0) = x[tet[0]] - x[tet[3]];
  d.col(1) = x[tet[1]] - x[tet[3]];
  d.col(2) = x[tet[2]] - x[tet[3]];
  return d;
}

// An estimate of the largest stable step of an explicit (semi-implicit Euler) scheme, s,
// CFL-like: the highest mode's angular frequency is taken as omega = 2 c_p / l, a wave
// resolved by the length l, and the step as the damped oscillator's limit
// (2 / omega) (sqrt(1 + zeta^2) - zeta), zeta = alpha / (2 omega) + beta omega / 2. Pass the
// shortest tet altitude as l (FemRest::min_altitude): a tet is as stiff as it is thin, and
// its shortest edge overstates that (the Kuhn tets of a cube of side a have edges >= a but
// altitudes down to a / sqrt(2), and steps of l_edge / c_p are unstable on them). It is an
// estimate, not a bound; use a fraction of it (about a half).
double ExplicitStableTimeStep(const FemMaterial& material, double length);

// Kinetic energy 1/2 sum m v^2 under the lumped masses, J.
double FemKineticEnergy(const FemRest& rest, const FemState& state);

}  // namespace ligature
