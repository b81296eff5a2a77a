#pragma once
// Corotational linear finite elements on linear tets, integrated with linearized backward
// Euler: stable at steps far above the explicit limit, the choice when a soft body must be
// stiff or a tick long.
//
// Per tet, K0 (12x12) is the stiffness of small-strain linear elasticity at rest,
//   K0_ij = V0 (lambda g_i g_j^T + mu g_j g_i^T + mu (g_i . g_j) I)
// with g_i the gradient of vertex i's shape function. Each tick, R is the rotation of the
// polar decomposition of F = Ds Dm^-1 (from the SVD F = U S V^T, R = U V^T; when that is a
// reflection, an inverted tet, the column of U of the smallest singular value is negated so
// that R is a rotation). The elastic force and stiffness are those of linear elasticity in
// the tet's rotated frame:
//   f = -R K0 (R^T x - x0),   K = R K0 R^T   (R block-diagonal, its derivative dropped)
// and the strain energy 1/2 (R^T x - x0)^T K0 (R^T x - x0).
//
// One step of h seconds solves
//   (M + h C + h^2 K) dv = h (f + M g + f_ext - h K v - C v),  C = alpha M + beta K
// (Rayleigh damping with the material's mass_damping alpha and stiffness_damping beta),
// then v += dv, x += h v. M is the lumped mass. Fixed vertices (Dirichlet) have their
// rows and columns replaced by the identity with a zero right-hand side, so they keep
// v = 0 and stay where they are.
//
// The assembled matrix and its LDLT factorization are kept in a CorotationalSystem, which
// answers compliance queries (how a vertex moves over the step when a force is added
// there) for constraint solvers.
//
// The model is constant; FemState is what changes, and CorotationalSystem is per-step
// scratch that the caller owns.

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/math/types.h"
#include "server/model/soft/fem_material.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {

using Mat12 = Eigen::Matrix<double, 12, 12>;
using Vec12 = Eigen::Matrix<double, 12, 1>;

// The rotation of the polar decomposition of f, made proper (det = +1) for an inverted f
// by flipping the direction of the smallest singular value.
Mat3 PolarRotation(const Mat3& f);

class CorotationalModel;

// The linear system of one implicit step, factorized. Not copyable (the factorization is
// not); one per soft body, reused from tick to tick (the symbolic analysis of the sparsity
// pattern is then done once).
class CorotationalSystem {
 public:
  CorotationalSystem() = default;
  CorotationalSystem(const CorotationalSystem&) = delete;
  CorotationalSystem& operator=(const CorotationalSystem&) = delete;

  using SparseMatrix = Eigen::SparseMatrix<double>;
  using Factorization = Eigen::SimplicialLDLT<SparseMatrix>;

  double time_step() const { return h_; }
  // A = M + h C + h^2 K (3 rows per vertex; fixed vertices' rows and columns identity).
  const SparseMatrix& matrix() const { return matrix_; }
  const Factorization& factorization() const { return solver_; }
  // The right-hand side and its solution dv (the velocity change without constraints).
  const Eigen::VectorXd& rhs() const { return rhs_; }
  const Eigen::VectorXd& velocity_change() const { return dv_; }
  // Per tet rotation at the assembled state.
  const std::vector<Mat3>& rotations() const { return rotations_; }

  // The displacement of `vertex` at the end of the step caused by adding a constant
  // `force` (N) on it during the step: h^2 (A^-1)_vv force. Zero for a fixed vertex.
  Vec3 Response(int vertex, const Vec3& force) const;
  // The same for every vertex (the displacement field caused by that force).
  void ResponseField(int vertex, const Vec3& force, std::vector<Vec3>* displacement) const;
  // The 3x3 compliance block h^2 (A^-1)_vv of a vertex, m/N (symmetric positive
  // semi-definite; zero for a fixed vertex).
  Mat3 Compliance(int vertex) const;

 private:
  friend class CorotationalModel;

  double h_ = 0.0;
  uint64_t pattern_id_ = 0;  // the model whose pattern was analyzed; 0 for none
  SparseMatrix matrix_;
  Factorization solver_;
  Eigen::VectorXd rhs_;
  Eigen::VectorXd dv_;
  std::vector<Mat3> rotations_;
  std::vector<char> fixed_;
};

class CorotationalModel {
 public:
  // Fails (INVALID_ARGUMENT) as MakeFemRest does.
  static absl::StatusOr<CorotationalModel> Make(const TetMesh& mesh,
                                                const FemMaterial& material,
                                                std::span<const int> fixed = {});

  const TetMesh& mesh() const { return mesh_; }
  const FemMaterial& material() const { return material_; }
  const LameParameters& lame() const { return lame_; }
  const FemRest& rest() const { return rest_; }
  int vertex_count() const { return static_cast<int>(mesh_.vertices.size()); }
  int tet_count() const { return static_cast<int>(mesh_.tets.size()); }
  // K0 of tet t, in the order (a, b, c, d) of its vertices, 3 rows each.
  const Mat12& rest_stiffness(int t) const { return k0_[t]; }

  // The rotation R of tet t at positions x.
  Mat3 Rotation(const std::vector<Vec3>& x, int t) const;

  // Adds the elastic forces -R K0 (R^T x - x0) at positions x to `forces`.
  void AddElasticForces(const std::vector<Vec3>& x, std::vector<Vec3>* forces) const;

  // The corotational strain energy at positions x, J.
  double StrainEnergy(const std::vector<Vec3>& x) const;

  // ExplicitStableTimeStep for this mesh (its shortest altitude) and material: the step an
  // explicit scheme would need, for comparison.
  double ExplicitTimeStep() const;

  // Assembles and factorizes the system of one step of h > 0 seconds at `state` under
  // gravity and `external` (empty, or one force per vertex, N). INVALID_ARGUMENT on a bad
  // h or sizes, INTERNAL when the factorization fails.
  absl::Status Assemble(const FemState& state, double h, const Vec3& gravity,
                        std::span<const Vec3> external, CorotationalSystem* system) const;

  // Applies the system's solution: v += dv (fixed vertices v = 0), x += h v.
  void Advance(const CorotationalSystem& system, FemState* state) const;

  // Assemble then Advance.
  absl::Status Step(double h, const Vec3& gravity, std::span<const Vec3> external,
                    CorotationalSystem* system, FemState* state) const;

  double KineticEnergy(const FemState& state) const { return FemKineticEnergy(rest_, state); }

 private:
  TetMesh mesh_;
  FemMaterial material_;
  LameParameters lame_;
  FemRest rest_;
  std::vector<Mat12> k0_;
  // The sparsity pattern of A (values zero), compressed, and where each block's entries
  // live in its value array: for tet t, block (i, j) of its vertices and column k of the
  // block, block_offset_[t][3 (4 i + j) + k] is the index of the entry of row 3 v_i in
  // column 3 v_j + k (the three rows follow), or -1 when either vertex is fixed.
  // diagonal_offset_ is the same for each vertex's own block.
  Eigen::SparseMatrix<double> pattern_;
  std::vector<std::array<int, 48>> block_offset_;
  std::vector<std::array<int, 3>> diagonal_offset_;
  uint64_t pattern_id_ = 0;
};

}  // namespace ligature
