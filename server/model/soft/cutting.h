#pragma once
// Real-time cutting of tetrahedral soft tissue by separating elements (after Mendoza and
// Laugier): a cut never removes or subdivides tets; it duplicates the vertices along the
// cut so that the tets on either side stop sharing them. The tet count and the total mass
// stay the same. The steps, each a function here:
//   (1) geometric criterion: is the tool's motion over the surface a cutting attempt?
//       (DetectCuttingAttempt), and the cutting line v0 -> v1 -> v2 it implies;
//   (2) physical criterion: is the stress in the touched tets high enough to fail?
//       (EvaluateCuttingStress, TetCuttingStress, CutsThrough);
//   (3) select and separate tets: the tets the blade passes (SelectBladeTets,
//       CutPlaneFromAttempt) are split along the plane (SeparateAlongPlane); the callers'
//       per-vertex arrays are then extended (ExtendStateAfterSplit, UpdateRestAfterSplit);
//   (4) local remeshing: the cutting line's vertices are moved onto the contact points and
//       the rest data of the touched tets is recomputed (MoveCutVertex).
// Force feedback (step 5 of the method) is not part of this file.
//
// Positions: TetMesh::vertices are the rest positions; the current positions x (FemState)
// are passed separately and are what the tool touches.

#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/math/types.h"
#include "server/model/soft/fem_material.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {

// How the neighbourhood radius r = alpha d_v (eq. 11) measures d_v.
enum class NeighbourhoodScale {
  // d_v = |v_c(t) - v_c(t0)|, the distance between the previous and the current closest
  // vertices, as the method defines it.
  kClosestVertexDistance,
  // d_v = the mean length of the surface edges at v_c(t): a radius that depends only on
  // the local mesh size, not on which vertex the tool came from.
  kMeanEdgeLength,
};

// How eq. 17 combines the largest normal stress and the largest shear stress.
enum class StressCombination {
  kMin,  // sigma_c = min(sigma_max, tau_max) / (kappa zeta), as the formula is printed
  kMax,  // sigma_c = max(sigma_max, tau_max) / (kappa zeta): either failure mode suffices
};

struct CuttingParams {
  // Neighbourhood factor alpha of eq. 11, > 0. Below 1/2 it rejects a contact that has
  // only just crossed the midpoint between two vertices (a small move mid-facet).
  double alpha = 0.3;
  NeighbourhoodScale scale = NeighbourhoodScale::kClosestVertexDistance;
  // Sharpness factor kappa of eq. 13-15, > 0, dimensionless: the stress is divided by it,
  // so a smaller kappa is a sharper blade (it concentrates the load) and cuts more easily.
  double kappa = 1.0;
  // Damage zeta in [0.1, 1] of eq. 17: the stress is divided by it, so a lower zeta (a
  // more damaged area) cuts more easily.
  double zeta = 1.0;
  // Damage zeta in [0.1, 1] of the tets a cut has passed: a crack goes on more easily than
  // it starts. Used by callers that track damage per tet (a world does).
  double cut_zeta = 0.2;
  // Material toughness K_I, Pa, > 0: the cut happens when sigma_c >= K_I (eq. 18). Used
  // as a stress threshold, as the method does.
  double toughness = 1.0e4;
  StressCombination combination = StressCombination::kMin;
};

// INVALID_ARGUMENT naming the field when alpha, kappa or toughness is not finite and > 0,
// or zeta is outside [0.1, 1].
absl::Status ValidateCuttingParams(const CuttingParams& params);

// ---- (1) Geometric criterion ----------------------------------------------------------

// The outcome of the geometric criterion for one pair of contact points.
struct CuttingAttempt {
  bool attempt = false;  // both conditions hold
  int v0 = -1;           // v_c(t0): surface vertex closest to the previous contact point
  int v1 = -1;           // v_c(t): surface vertex closest to the current contact point
  int v2 = -1;           // the next vertex of the cutting line (-1 if none); set on attempts
  double radius = 0.0;   // r = alpha d_v of the neighbourhood around v1
  Vec3 normal = Vec3::Zero();  // outward surface normal at v1 (area-weighted), unit
};

// Decides whether the move of the tool's contact point from `contact_prev` (C_p(t0)) to
// `contact_now` (C_p(t)) over the surface is a cutting attempt: (a) the closest surface
// vertices differ, v_c(t) != v_c(t0), and (b) C_p(t) lies in the neighbourhood N of
// v_c(t), the ball of radius r = alpha d_v around it (eq. 11). On an attempt, v2 is the
// surface neighbour of v1 (other than v0) that continues the cut most straight (eq. 19):
// with s_1 = C_p(t) - C_p(t0) and s_i the vector from C_p(t) to the projection of v_i on
// the tangent plane at C_p(t), v2 minimises the angle between s_1 and s_i. (The text
// defines s_i from the vertex to C_p(t); that would pick the vertex behind the tool, so the
// vector is taken from C_p(t) to the vertex.)
// `x` are the current positions; `surface` the boundary (ExtractBoundary). Closest vertices
// are searched over the vertices of the surface triangles. INVALID_ARGUMENT on bad params,
// an empty surface, or a surface index out of range of x.
absl::StatusOr<CuttingAttempt> DetectCuttingAttempt(const std::vector<Vec3>& x,
                                                    const SurfaceMesh& surface,
                                                    const Vec3& contact_prev,
                                                    const Vec3& contact_now,
                                                    const CuttingParams& params);

// ---- (2) Physical criterion ------------------------------------------------------------

struct CuttingStress {
  double sigma_max = 0.0;  // largest eigenvalue of the stress tensor, Pa
  double tau_max = 0.0;    // largest shear, (s_max - s_min) / 2 (eq. 16), Pa
  double sigma_c = 0.0;    // cutting stress of eq. 17, Pa
};

// Eq. 14-17 from a stress tensor Gamma (symmetrised before use). The cutting traction is
// T_c = Gamma n / kappa, so the principal stresses of the tool's load are those of
// Gamma / kappa; the cutting stress is
//   sigma_c = combine(sigma_max, tau_max) / (kappa zeta),
// combine = min as eq. 17 is printed (or max, see StressCombination). sigma_max and
// tau_max are reported for Gamma itself (without kappa). Assumes valid params.
CuttingStress EvaluateCuttingStress(const Mat3& stress, const CuttingParams& params);

// The stress tensor the criterion uses for a tet: the St Venant-Kirchhoff second
// Piola-Kirchhoff stress S = lambda tr(E) I + 2 mu E of the Green strain E of its current
// deformation F = Ds Dm^-1, which is the stress of the method's eq. 9.
Mat3 CuttingStressTensor(const Mat3& f, const LameParameters& lame);

// EvaluateCuttingStress of tet t at current positions x. INVALID_ARGUMENT on bad params,
// t out of range of the mesh or of rest.dm_inverse, or a vertex index out of range of x.
absl::StatusOr<CuttingStress> TetCuttingStress(const TetMesh& mesh, const FemRest& rest,
                                               const LameParameters& lame,
                                               const std::vector<Vec3>& x, int t,
                                               const CuttingParams& params);

// Eq. 18: the cut happens when sigma_c >= K_I.
inline bool CutsThrough(const CuttingStress& stress, const CuttingParams& params) {
  return stress.sigma_c >= params.toughness;
}

// ---- (3) Select and separate tets -----------------------------------------------------

// A plane through `point` with unit `normal` (the positive side is where normal points).
struct CutPlane {
  Vec3 point = Vec3::Zero();
  Vec3 normal = Vec3::UnitX();
};

// The plane P of the method: through v1, spanned by s_1 = v1 - v0 and the surface normal
// n at v1, so its normal is s_1 x n (normalised). FAILED_PRECONDITION when `attempt` is
// not an attempt or s_1 is parallel to n; INVALID_ARGUMENT when v0/v1 are out of range.
absl::StatusOr<CutPlane> CutPlaneFromAttempt(const std::vector<Vec3>& x,
                                             const CuttingAttempt& attempt);

// The blade as it sweeps: the cutting segment from `a` to `b` (on the surface) swept along
// `depth` (into the body; its length is the cut depth). It is the parallelogram
// {a + u (b - a) + w depth : u, w in [0, 1]}, in the plane with normal (b - a) x depth.
struct BladeSweep {
  Vec3 a = Vec3::Zero();
  Vec3 b = Vec3::Zero();
  Vec3 depth = Vec3::Zero();
};

// The tets the swept blade passes at current positions x: those that meet the blade's
// parallelogram, touching included (a tet with a face, an edge or a vertex in it, within
// `tolerance` metres). Sorted. INVALID_ARGUMENT when (b - a) x depth is (near) zero, or a
// tet vertex is out of range of x.
absl::StatusOr<std::vector<int>> SelectBladeTets(const TetMesh& mesh,
                                                 const std::vector<Vec3>& x,
                                                 const BladeSweep& blade,
                                                 double tolerance = 1e-9);

// A vertex made by a cut: `duplicate` is a new index (appended), a copy of `original`.
struct VertexSplit {
  int original = -1;
  int duplicate = -1;
};

struct SeparationResult {
  std::vector<VertexSplit> splits;  // in increasing duplicate order
  std::vector<int> rewired_tets;    // tets that now use a duplicate (sorted)
  int cut_faces = 0;                // faces opened between the two sides
};

// Separates the mesh along `plane` within the tets `blade_tets` (the tets the blade
// passes, e.g. from SelectBladeTets), without removing or subdividing any tet:
//  - each blade tet is put on the side of the plane where its furthest vertex (largest
//    |signed distance|, at positions x) lies (the method's rule for a tet the plane divides);
//  - a face shared by two blade tets on opposite sides is a cut face;
//  - for each vertex of a cut face, the tets around it are grouped into the sets that stay
//    connected through faces at the vertex that are not cut. If there is more than one,
//    the vertex is on the cut with tets on both sides: the group with the most negative
//    tet (by centroid distance) keeps it, each other group (the positive side) is rewired
//    to a new duplicate of it. A vertex at the end of a partial cut (its tets still connect
//    around the cut's edge) is not split.
// Duplicates are appended to mesh->vertices with the rest position of their original. No
// tet changes shape, so volumes and rest shape matrices are unchanged; extend the per-vertex
// arrays with ExtendStateAfterSplit and UpdateRestAfterSplit. INVALID_ARGUMENT naming the
// field for a (near) zero or non-finite normal, x not matching the vertex count, or a blade
// tet or vertex index out of range.
absl::StatusOr<SeparationResult> SeparateAlongPlane(const CutPlane& plane,
                                                    std::span<const int> blade_tets,
                                                    const std::vector<Vec3>& x,
                                                    TetMesh* mesh);

// Appends to state->x and state->v, per split, the position and the velocity of the
// original (in order; duplicates must be the next indices). INVALID_ARGUMENT if an index
// is out of range or a duplicate is not the next index.
absl::Status ExtendStateAfterSplit(std::span<const VertexSplit> splits, FemState* state);

// Brings rest data up to date with a split mesh: `fixed` extended by copying the
// original's flag, lumped masses recomputed from the tets' rest volumes (rho V0 / 4 per
// tet vertex), so the original's mass is shared with its duplicates and the total is
// unchanged. Dm^-1 and V0 are kept (the tets did not change). INVALID_ARGUMENT on a size
// mismatch between rest and mesh, or a bad split index.
absl::Status UpdateRestAfterSplit(const TetMesh& mesh, const FemMaterial& material,
                                  std::span<const VertexSplit> splits, FemRest* rest);

// ---- (4) Local remeshing ---------------------------------------------------------------

// Moves vertex v, at current position x[v], to `target` (a contact point of the cutting
// line), so that the cut follows the tool rather than the mesh. The rest position moves by
// the displacement pulled back through the inverse deformation gradient of v's tets
// (averaged, volume-weighted), so that their strain is about unchanged; then Dm^-1 and V0
// of v's tets and the lumped masses of their vertices are recomputed. FAILED_PRECONDITION,
// with nothing changed, when the move would make one of v's tets inverted or degenerate
// (rest or current volume below `min_volume_ratio` of its current value).
// INVALID_ARGUMENT on v out of range or sizes that do not match.
absl::Status MoveCutVertex(int v, const Vec3& target, const FemMaterial& material,
                           TetMesh* mesh, FemRest* rest, FemState* state,
                           double min_volume_ratio = 0.05);

}  // namespace ligature
