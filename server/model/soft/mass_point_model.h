#pragma once
// A mass-point deformable model on a tetrahedral mesh (the kind of model of Teschner et
// al. 2004 that local constraints are coupled with): point masses, distance preservation
// along every tet edge, volume preservation per tet, and damping along the edges.
//
//   edge (i, j), rest length l0:   E = 1/2 k_d (l - l0)^2 / l0,
//                                  F_i = -k_d (l - l0) / l0 * u,  u = (x_i - x_j) / l
//   tet, rest volume V0:           E = 1/2 k_v ((V - V0) / V0)^2,
//                                  F_a = -k_v (V - V0) / V0^2 * dV/dx_a
//   edge damping:                  F_i = -c ((v_i - v_j) . u) u,  F_j = -F_i
//
// Masses come from the rest volumes: each tet's volume times the density is split equally
// over its four vertices. Held points are pinned where they are: every integrator leaves
// them in place, at rest, and the implicit one solves their neighbours against them as
// fixed supports. The model (rest lengths, rest volumes, masses, stiffness, held points) is
// constant; MassPointState is what changes.

#include <array>
#include <span>
#include <vector>

#include <Eigen/SparseCore>

#include "absl/status/statusor.h"
#include "server/math/types.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {

struct MassPointMaterial {
  double density = 1000.0;            // kg/m^3, > 0 (used when masses come from tets)
  double distance_stiffness = 1.0e3;  // k_d, N, >= 0
  double volume_stiffness = 1.0e3;    // k_v, J, >= 0
  double damping = 0.0;               // c, N s/m, >= 0
};

class MassPointModel {
 public:
  // From a tet mesh at rest: every distinct tet edge is a distance spring, every tet a
  // volume element, masses from the tet volumes. Fails on an empty mesh, bad indices,
  // non-positive tet volumes, a point that no tet uses (it would have no mass), bad
  // material values or a held index out of range.
  static absl::StatusOr<MassPointModel> FromTetMesh(const TetMesh& mesh,
                                                    const MassPointMaterial& material,
                                                    std::span<const int> held = {});

  // From explicit parts (small systems such as a single spring): rest positions, masses
  // (all > 0), edges and tets over those points. Rest lengths and volumes are taken from
  // the rest positions; edges must have positive length, tets positive volume.
  static absl::StatusOr<MassPointModel> FromParts(std::vector<Vec3> rest_positions,
                                                  std::vector<double> masses,
                                                  std::vector<std::array<int, 2>> edges,
                                                  std::vector<std::array<int, 4>> tets,
                                                  const MassPointMaterial& material,
                                                  std::span<const int> held = {});

  int points() const { return static_cast<int>(masses_.size()); }
  const std::vector<Vec3>& rest_positions() const { return rest_positions_; }
  const std::vector<double>& masses() const { return masses_; }
  double total_mass() const;
  const std::vector<std::array<int, 2>>& edges() const { return edges_; }
  const std::vector<double>& rest_lengths() const { return rest_lengths_; }
  const std::vector<std::array<int, 4>>& tets() const { return tets_; }
  const std::vector<double>& rest_volumes() const { return rest_volumes_; }
  const MassPointMaterial& material() const { return material_; }
  // Whether point i is pinned in place.
  bool held(int i) const { return held_[i] != 0; }

 private:
  std::vector<Vec3> rest_positions_;
  std::vector<double> masses_;
  std::vector<std::array<int, 2>> edges_;
  std::vector<double> rest_lengths_;
  std::vector<std::array<int, 4>> tets_;
  std::vector<double> rest_volumes_;
  MassPointMaterial material_;
  std::vector<char> held_;  // one per point
};

// The changing part: positions and velocities. x_prev (the positions one step earlier) is
// used by the Verlet integrator only; it is empty until Verlet's first step fills it.
struct MassPointState {
  std::vector<Vec3> x;       // m
  std::vector<Vec3> v;       // m/s
  std::vector<Vec3> x_prev;  // m, Verlet only
};

// The model at rest, not moving.
MassPointState RestState(const MassPointModel& model);

// All point forces: elastic (distance and volume), edge damping, and gravity m_i g.
// `forces` is resized to the number of points and overwritten.
void ComputeForces(const MassPointModel& model, std::span<const Vec3> x,
                   std::span<const Vec3> v, const Vec3& gravity, std::vector<Vec3>* forces);

// Elastic energy of the distance and volume terms at positions x (J); the elastic part of
// ComputeForces is minus its gradient.
double ElasticEnergy(const MassPointModel& model, std::span<const Vec3> x);

// 1/2 sum m_i |v_i|^2 (J).
double KineticEnergy(const MassPointModel& model, std::span<const Vec3> v);

// Jacobian of the elastic forces with respect to the positions (3n x 3n, symmetric), for
// implicit integration. Two terms that can make it indefinite are left out so that
// M - h^2 K stays positive definite: the transverse stiffness of a compressed edge
// (l < l0) and the volume term's (V - V0) d2V/dx2 part (Gauss-Newton). Both vanish at
// rest, where the matrix is the exact Jacobian.
Eigen::SparseMatrix<double> ElasticStiffness(const MassPointModel& model,
                                             std::span<const Vec3> x);

// Jacobian of the damping forces with respect to the velocities (3n x 3n, symmetric,
// negative semi-definite): -c u u^T blocks per edge.
Eigen::SparseMatrix<double> DampingJacobian(const MassPointModel& model,
                                            std::span<const Vec3> x);

}  // namespace ligature
