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
// The assembled matrix is kept in a CorotationalSystem, which solves it and answers
// compliance queries (how a vertex moves over the step when a force is added there) for
// constraint solvers. It solves in one of two ways (CorotationalSolve): a factorization of
// A each step, or conjugate gradients preconditioned by one factorization of the rest
// system, kept for as long as the model and the step length stay.
//
// The model is constant; FemState is what changes, and CorotationalSystem is per-step
// scratch that the caller owns.

#include <array>
#include <cstdint>
#include <memory>
#include <span>
#include <unordered_map>
#include <vector>

#include <Eigen/Sparse>
#include <Eigen/SparseCholesky>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/math/ldlt_paths.h"
#include "server/math/types.h"
#include "server/model/soft/fem_material.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {

using Mat12 = Eigen::Matrix<double, 12, 12>;
using Vec12 = Eigen::Matrix<double, 12, 1>;

// K0 of one tet (see above) from its Dm^-1 and rest volume, in the order (a, b, c, d) of its
// vertices, 3 rows each. The model applies it without forming it.
Mat12 RestStiffness(const Mat3& dm_inverse, double volume, const LameParameters& lame);

// The rotation of the polar decomposition of f, made proper (det = +1) for an inverted f
// by flipping the direction of the smallest singular value.
Mat3 PolarRotation(const Mat3& f);

class CorotationalModel;
class RestFactorization;  // fem_corotational_solve.cc

// How a CorotationalSystem solves A dv = rhs.
//  kDirect: factorizes A each step. dv and the compliance are exact to round-off.
//  kPreconditioned: factorizes the rest system A0 = (1 + h alpha) M + (h beta + h^2) K0
//    once per model and step length, and solves each step by conjugate gradients
//    preconditioned with W A0 W^T, W block-diagonal with each vertex's rotation (the polar
//    rotation of the volume-weighted sum of its tets' rotations, as in stiffness warping):
//    exact for a body turned rigidly, and close where a body bends, since each vertex's
//    stiffness is turned with the tets around it. dv meets the relative residual
//    kTolerance. The compliance and the response to contact forces use P^-1 in place of
//    A^-1, P = G A0 G^T with G the block-diagonal of the body's best-fit rotation from
//    rest, its quaternion rounded to multiples of 2^-20 (a body at rest then keeps G bit
//    for bit, and with it the contact blocks turned by G): an approximation of the body's
//    stiffness at its current shape, whose response to forces still carries their whole
//    impulse (P, like A, gives a uniform translation the momentum of the lumped masses
//    alone; W A0 W^T would not). A step whose iteration does not converge within
//    kMaxIterations is factorized directly.
enum class CorotationalSolve { kDirect, kPreconditioned };

// The linear system of one implicit step, solved. Not copyable (the factorizations are
// not); one per soft body, reused from tick to tick (the symbolic analysis of the sparsity
// pattern is then done once, and the rest factorization as long as the step length stays).
class CorotationalSystem {
 public:
  explicit CorotationalSystem(CorotationalSolve method = CorotationalSolve::kPreconditioned);
  ~CorotationalSystem();
  CorotationalSystem(const CorotationalSystem&) = delete;
  CorotationalSystem& operator=(const CorotationalSystem&) = delete;

  using SparseMatrix = Eigen::SparseMatrix<double>;
  using Factorization = Eigen::SimplicialLDLT<SparseMatrix>;
  static constexpr double kTolerance = 1e-8;
  static constexpr int kMaxIterations = 60;

  double time_step() const { return h_; }
  // A = M + h C + h^2 K (3 rows per vertex; fixed vertices' rows and columns identity).
  const SparseMatrix& matrix() const { return matrix_; }
  // The right-hand side and its solution dv (the velocity change without constraints).
  const Eigen::VectorXd& rhs() const { return rhs_; }
  const Eigen::VectorXd& velocity_change() const { return dv_; }
  // Per tet rotation at the assembled state.
  const std::vector<Mat3>& rotations() const { return rotations_; }
  // This step's conjugate-gradient iterations (0 when it was factorized directly), and
  // whether its response operator is A^-1 itself (kDirect, or a step that fell back).
  int iterations() const { return iterations_; }
  bool exact_response() const { return direct_; }

  // The rest factorization the system preconditions with (null until a step made one or
  // UseRest gave one), and the map of its vertices (empty: the model's own).
  const std::shared_ptr<const RestFactorization>& rest_factorization() const { return rest_; }
  const std::vector<int>& rest_vertices() const { return to_base_; }
  // Preconditions with `rest` from the next step on: a factorization of this model's rest
  // system (to_base empty), or of a mesh of the same body that cuts have split since, whose
  // vertex to_base[v] vertex v was split from (a cut duplicates vertices and leaves the
  // rest). A split vertex and its twins share their base vertex's columns of A0^-1, plus
  // J for the modes where they part (see CorotationalModel::SplitOf). The iteration
  // converges to the model's own dv whatever the factorization; the compliance and the
  // response are this P^-1, which still gives a force its whole impulse. A step
  // refactorizes when `rest` is for another step length or the map does not fit.
  void UseRest(std::shared_ptr<const RestFactorization> rest, std::vector<int> to_base);
  // Takes the cached columns and blocks of `before`, the system of the same body before a
  // cut, when both precondition with the same factorization (they are its columns), so
  // that the contacts the cut left in place cost no solve. The second form moves them.
  void CarryColumns(const CorotationalSystem& before);
  void CarryColumns(CorotationalSystem&& before);
  // The vertex sets whose blocks are cached, and the same computed ahead (on a system
  // given a rest factorization by UseRest, with the model's held vertices), for another
  // system to carry once it preconditions with that factorization.
  std::vector<std::vector<int>> CachedSets() const;
  void WarmColumns(std::span<const std::vector<int>> sets, std::vector<char> fixed);

  // The step's response operator applied to b: A^-1 b when exact_response(), else P^-1 b.
  Eigen::VectorXd Solve(const Eigen::VectorXd& b) const;
  // The 3x3 block (rows of vertex u, columns of vertex v) of that operator, zero when
  // either is held. Caches v's three columns until the operator changes (each step, when
  // exact; else until the rest factorization is redone), so that contacts that stay cost
  // no further solves.
  Mat3 InverseBlock(int u, int v);
  // The same blocks between all of `vertices` (3 rows and columns each, in their order),
  // made exactly symmetric. Kept for the next call with the same vertices while the
  // operator stays (a resting contact asks for the same ones tick after tick); the
  // reference holds until the next call or step.
  const Eigen::MatrixXd& InverseBetween(std::span<const int> vertices);

  // The 3x3 compliance block h^2 (A^-1)_vv of a vertex, m/N (symmetric positive
  // semi-definite; zero for a fixed vertex).
  Mat3 Compliance(int vertex);

 private:
  friend class CorotationalModel;

  // Per vertex, what the response operator's blocks are computed from: its unknowns'
  // columns of B's factor on their shared path (B = A when exact, else A0 in the rest
  // frame; see LdltPaths), a few hundred rows where a column of B^-1 takes a whole solve;
  // and the step they were last used in. Columns no call has used for kColumnLifetime
  // steps are dropped after a step, so that a probe wandering over a big body does not
  // keep the columns of every vertex it passed.
  struct CachedColumns {
    PathColumns unknowns;
    int64_t used = 0;
  };

  // Conjugate gradients on A dv = rhs preconditioned by W A0 W^T, from `guess` (one dv per
  // vertex; ignored when the count differs); false when it did not converge. With
  // translation_mass > 0, the (1 + h alpha) M of the whole body (no vertex held), the answer
  // is then moved uniformly so that it carries the right-hand side's whole impulse.
  bool SolveIteratively(std::span<const Vec3> guess, double translation_mass);
  // Factorizes A and solves; false when the factorization fails.
  bool SolveDirectly();
  // J, per vertex: sigma_g / m_v and sigma_g / M_g for the vertices of a split group g,
  // zero for the others (empty without a map).
  struct Split {
    std::vector<double> own;
    std::vector<double> shared;
  };
  // The vertex of the rest factorization's mesh that vertex v stands for, and the key of
  // v's cached columns (the vertex of the solver's factor they are columns of).
  int BaseOf(int v) const;
  int ColumnKey(int v) const;
  // P^-1 b through the rest factorization, each vertex turned by its frame (one for all,
  // or one per vertex), through the map to the factorized mesh when there is one.
  Eigen::VectorXd MappedSolve(std::span<const Mat3> frames, const Eigen::VectorXd& b) const;
  // The part of the (u, v) block of P^-1 that only split vertices have (zero unless u = v).
  Mat3 SplitBlock(int u, int v) const;
  // P^-1 b: b turned into the rest frame, solved with A0's factor, turned back.
  Eigen::VectorXd ApplyPreconditioner(const Eigen::VectorXd& b) const;
  // (W A0 W^T)^-1 b, the iteration's preconditioner: b turned into each vertex's rest
  // frame, solved with A0's factor, turned back.
  Eigen::VectorXd ApplyWarpedPreconditioner(const Eigen::VectorXd& b) const;
  // The cached columns of vertex v (computed on first use), in the solver's own frame.
  const CachedColumns& Columns(int v);
  // The 3x3 block of B^-1 between two vertices' columns.
  static Mat3 Between(const CachedColumns& a, const CachedColumns& b);
  // Drops the cached columns and blocks: the operator changed.
  void ForgetColumns();
  // Drops the columns no call has used for kColumnLifetime steps, and the block sets that
  // need any of them.
  void AgeColumns();

  CorotationalSolve method_;
  double h_ = 0.0;
  uint64_t pattern_id_ = 0;  // the model whose pattern matrix_ holds; 0 for none
  SparseMatrix matrix_;
  Factorization solver_;
  bool analyzed_ = false;  // solver_ has analyzed matrix_'s pattern (on the first direct solve)
  Eigen::VectorXd rhs_;
  Eigen::VectorXd dv_;
  std::vector<Mat3> rotations_;
  std::vector<char> fixed_;
  // kPreconditioned: A0's factorization (this model's, or that of a mesh this one was cut
  // from: to_base_ maps each vertex to the one it was split from there, and split_ holds
  // J, see CorotationalModel::SplitOf), the model it serves (0 until a step accepts it),
  // the body's rotation from rest this step, and each vertex's.
  std::shared_ptr<const RestFactorization> rest_;
  std::vector<int> to_base_;
  Split split_;
  uint64_t rest_for_ = 0;
  // The factor the cached columns come from, read out of the solver on first use.
  std::unique_ptr<LdltPaths> paths_;
  Mat3 frame_ = Mat3::Identity();
  std::vector<Mat3> vertex_frames_;
  bool direct_ = true;
  int iterations_ = 0;
  static constexpr int64_t kColumnLifetime = 50;
  std::unordered_map<int, CachedColumns> columns_;
  int64_t steps_ = 0;
  // The blocks of the last few InverseBetween calls' vertex sets (the world's contact solve
  // and each haptic tool's buffer ask for their own, tick after tick), in the solver's own
  // frame, the most recently used last.
  struct CachedBlocks {
    std::vector<int> vertices;
    Eigen::MatrixXd blocks;
    // The blocks turned by turned_frame and mirrored (empty until asked for).
    Eigen::MatrixXd turned;
    Mat3 turned_frame = Mat3::Identity();
  };
  // The blocks above and on the diagonal of `between` (m vertices) turned by f, F B F^T,
  // and mirrored below it.
  static Eigen::MatrixXd Turned(const Eigen::MatrixXd& between, int m, const Mat3& f);
  static constexpr size_t kBlockSets = 4;
  std::vector<CachedBlocks> between_;

  // Both CarryColumns: `before` is a const or an rvalue reference.
  template <typename System>
  void Carry(System&& before);
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

  // The rotation R of tet t at positions x.
  Mat3 Rotation(const std::vector<Vec3>& x, int t) const;

  // Adds the elastic forces -R K0 (R^T x - x0) at positions x to `forces`.
  void AddElasticForces(const std::vector<Vec3>& x, std::vector<Vec3>* forces) const;

  // The corotational strain energy at positions x, J.
  double StrainEnergy(const std::vector<Vec3>& x) const;

  // ExplicitStableTimeStep for this mesh (its shortest altitude) and material: the step an
  // explicit scheme would need, for comparison.
  double ExplicitTimeStep() const;

  // Assembles and solves the system of one step of h > 0 seconds at `state` under
  // gravity and `external` (empty, or one force per vertex, N), the system's way.
  // INVALID_ARGUMENT on a bad h or sizes, INTERNAL when a factorization fails.
  absl::Status Assemble(const FemState& state, double h, const Vec3& gravity,
                        std::span<const Vec3> external, CorotationalSystem* system) const;

  // Applies the system's solution: v += dv (fixed vertices v = 0), x += h v; keeps dv in
  // the state as the next step's first guess.
  void Advance(const CorotationalSystem& system, FemState* state) const;

  // The rest system's factorization for step h (null when it fails), for a system's
  // UseRest. Reads only the model, so it may run beside the model's other const calls.
  std::shared_ptr<const RestFactorization> FactorizeRest(double h) const;

  // Assemble then Advance.
  absl::Status Step(double h, const Vec3& gravity, std::span<const Vec3> external,
                    CorotationalSystem* system, FemState* state) const;

  double KineticEnergy(const FemState& state) const { return FemKineticEnergy(rest_, state); }

  // The rotation that best turns the rest shape into `x` (the polar rotation of the
  // mass-weighted covariance of their offsets from their centres of mass).
  Mat3 BodyRotation(const std::vector<Vec3>& x) const;

 private:
  // Each vertex's rotation from rest given its tets' rotations: the polar rotation of the
  // volume-weighted sum of the rotations of the tets around it.
  void VertexRotations(std::span<const Mat3> tet_rotations, std::vector<Mat3>* out) const;
  // Writes mass_scale M + stiffness_scale R K0 R^T into `values` (pattern order), R per tet
  // from `rotations` (the identity when it is empty); fixed vertices' blocks the identity.
  void FillMatrix(std::span<const Mat3> rotations, double mass_scale, double stiffness_scale,
                  double* values) const;
  // The rest system A0 = (1 + h alpha) M + (h beta + h^2) K0 for step h.
  Eigen::SparseMatrix<double> RestMatrix(double h) const;
  // Gives the system a rest factorization for step h, unless the one it holds serves.
  absl::Status PrepareRestSystem(double h, CorotationalSystem* system) const;
  // Per vertex, J's scalar when the map to_base splits it (see CorotationalSystem::UseRest).
  CorotationalSystem::Split SplitOf(double h, std::span<const int> to_base) const;

  TetMesh mesh_;
  FemMaterial material_;
  LameParameters lame_;
  FemRest rest_;
  // The sparsity pattern of A (values zero), compressed, and where each block's entries
  // live in its value array: for tet t, block (i, j) of its vertices and column k of the
  // block, block_offset_[t][3 (4 i + j) + k] is the index of the entry of row 3 v_i in
  // column 3 v_j + k (the three rows follow), or -1 when either vertex is fixed.
  // diagonal_offset_ is the same for each vertex's own block.
  Eigen::SparseMatrix<double> pattern_;
  std::vector<std::array<int, 48>> block_offset_;
  std::vector<std::array<int, 3>> diagonal_offset_;
  // Per vertex, the summed rest volume of its tets (m^3): the weights of VertexRotations.
  std::vector<double> vertex_volume_;
  // The body's lumped mass when no vertex is held (its momentum is then free), else 0, kg.
  double free_mass_ = 0.0;
  uint64_t pattern_id_ = 0;
};

}  // namespace ligature
