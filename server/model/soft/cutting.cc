// Cutting of tet meshes by separating elements: the geometric and physical criteria, the
// selection of the tets a blade passes, their separation by duplicating vertices, and the
// local move of the cutting line's vertices. See cutting.h for the method.

#include "server/model/soft/cutting.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include <Eigen/Eigenvalues>
#include <Eigen/LU>
#include "server/math/union_find.h"

namespace ligature {
namespace {

using Face = std::array<int, 3>;

// The face of three vertex indices, sorted, as a key that ignores orientation.
Face SortedFace(int a, int b, int c) {
  Face f{a, b, c};
  std::sort(f.begin(), f.end());
  return f;
}

// Signed volume of `tet` with its corners taken from `pos`.
double VolumeOf(const std::vector<Vec3>& pos, const std::array<int, 4>& tet) {
  return SignedVolume(pos[tet[0]], pos[tet[1]], pos[tet[2]], pos[tet[3]]);
}

// A finite vector of length above `min_norm`.
bool UsableDirection(const Vec3& d, double min_norm) {
  return d.allFinite() && d.norm() > min_norm;
}

// Checks that every index of every tet is in [0, n); names the first bad one.
absl::Status CheckTetIndices(const TetMesh& mesh, size_t n, const char* what) {
  for (size_t t = 0; t < mesh.tets.size(); ++t) {
    for (int v : mesh.tets[t]) {
      if (v < 0 || static_cast<size_t>(v) >= n) {
        return absl::InvalidArgumentError(absl::StrCat("mesh.tets[", t, "]: vertex ", v,
                                                       " out of range of ", what, " (size ",
                                                       n, ")"));
      }
    }
  }
  return absl::OkStatus();
}

// Index of the surface vertex in `candidates` closest to p (candidates is non-empty).
int ClosestVertex(const std::vector<Vec3>& x, const std::vector<int>& candidates,
                  const Vec3& p) {
  int best = candidates.front();
  double best_d2 = std::numeric_limits<double>::infinity();
  for (int v : candidates) {
    const double d2 = (x[v] - p).squaredNorm();
    if (d2 < best_d2) {
      best_d2 = d2;
      best = v;
    }
  }
  return best;
}

}  // namespace

// Each parameter in its documented range; NaN fails every check.
absl::Status ValidateCuttingParams(const CuttingParams& params) {
  if (!(params.alpha > 0.0) || !std::isfinite(params.alpha)) {
    return absl::InvalidArgumentError(
        absl::StrCat("alpha: must be finite and > 0, got ", params.alpha));
  }
  if (!(params.kappa > 0.0) || !std::isfinite(params.kappa)) {
    return absl::InvalidArgumentError(
        absl::StrCat("kappa: must be finite and > 0, got ", params.kappa));
  }
  if (!(params.zeta >= 0.1 && params.zeta <= 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("zeta: must be in [0.1, 1], got ", params.zeta));
  }
  if (!(params.cut_zeta >= 0.1 && params.cut_zeta <= 1.0)) {
    return absl::InvalidArgumentError(
        absl::StrCat("cut_zeta: must be in [0.1, 1], got ", params.cut_zeta));
  }
  if (!(params.toughness > 0.0) || !std::isfinite(params.toughness)) {
    return absl::InvalidArgumentError(
        absl::StrCat("toughness: must be finite and > 0 Pa, got ", params.toughness));
  }
  return absl::OkStatus();
}

// ---- (1) Geometric criterion ----------------------------------------------------------

// Closest surface vertices of both contact points, the neighbourhood test, then v2 among
// v1's surface neighbours by the smallest angle to the direction of motion.
absl::StatusOr<CuttingAttempt> DetectCuttingAttempt(const std::vector<Vec3>& x,
                                                    const SurfaceMesh& surface,
                                                    const Vec3& contact_prev,
                                                    const Vec3& contact_now,
                                                    const CuttingParams& params) {
  if (absl::Status s = ValidateCuttingParams(params); !s.ok()) return s;
  if (surface.triangles.empty()) {
    return absl::InvalidArgumentError("surface.triangles: empty");
  }
  if (!contact_prev.allFinite() || !contact_now.allFinite()) {
    return absl::InvalidArgumentError("contact points: must be finite");
  }
  for (size_t i = 0; i < surface.triangles.size(); ++i) {
    for (int v : surface.triangles[i]) {
      if (v < 0 || static_cast<size_t>(v) >= x.size()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "surface.triangles[", i, "]: vertex ", v, " out of range of x (size ", x.size(),
            ")"));
      }
    }
  }
  const std::vector<int> surface_vertices = SurfaceVertices(surface);

  CuttingAttempt out;
  out.v0 = ClosestVertex(x, surface_vertices, contact_prev);
  out.v1 = ClosestVertex(x, surface_vertices, contact_now);

  // Surface normal (area-weighted) and surface neighbours of v1, with their edge lengths.
  Vec3 normal = Vec3::Zero();
  std::vector<int> neighbours;
  for (const auto& tri : surface.triangles) {
    const auto at = std::find(tri.begin(), tri.end(), out.v1);
    if (at == tri.end()) continue;
    normal += (x[tri[1]] - x[tri[0]]).cross(x[tri[2]] - x[tri[0]]);
    for (int v : tri) {
      if (v != out.v1) neighbours.push_back(v);
    }
  }
  std::sort(neighbours.begin(), neighbours.end());
  neighbours.erase(std::unique(neighbours.begin(), neighbours.end()), neighbours.end());
  if (normal.norm() > 0.0) out.normal = normal.normalized();

  // r = alpha d_v (eq. 11).
  double d_v = 0.0;
  if (params.scale == NeighbourhoodScale::kClosestVertexDistance) {
    d_v = (x[out.v1] - x[out.v0]).norm();
  } else {
    for (int v : neighbours) d_v += (x[v] - x[out.v1]).norm();
    if (!neighbours.empty()) d_v /= static_cast<double>(neighbours.size());
  }
  out.radius = params.alpha * d_v;

  // Condition 1: the closest vertex changed; condition 2: C_p(t) within N around v_c(t).
  out.attempt = out.v0 != out.v1 && (contact_now - x[out.v1]).norm() <= out.radius;
  if (!out.attempt) return out;

  // v2 (eq. 19): the direction of motion and the candidates, both in the tangent plane
  // at C_p(t); the candidate whose direction from C_p(t) turns least from s_1.
  const Vec3& n = out.normal;
  auto tangent = [&n](const Vec3& d) { return Vec3(d - n * n.dot(d)); };
  Vec3 s1 = tangent(contact_now - contact_prev);
  if (!(s1.norm() > 0.0)) s1 = tangent(x[out.v1] - x[out.v0]);
  double best_angle = std::numeric_limits<double>::infinity();
  for (int v : neighbours) {
    if (v == out.v0) continue;
    const Vec3 si = tangent(x[v] - contact_now);
    if (!(si.norm() > 0.0)) continue;
    const double angle = std::atan2(s1.cross(si).norm(), s1.dot(si));
    if (angle < best_angle) {
      best_angle = angle;
      out.v2 = v;
    }
  }
  return out;
}

// ---- (2) Physical criterion ------------------------------------------------------------

// Principal stresses of the symmetrised tensor (ascending), then eq. 16 and eq. 17.
CuttingStress EvaluateCuttingStress(const Mat3& stress, const CuttingParams& params) {
  const Mat3 sym = 0.5 * (stress + stress.transpose());
  Eigen::SelfAdjointEigenSolver<Mat3> solver(sym, Eigen::EigenvaluesOnly);
  const Vec3 ev = solver.eigenvalues();  // ascending
  CuttingStress out;
  out.sigma_max = ev(2);
  out.tau_max = 0.5 * (ev(2) - ev(0));
  const double combined = params.combination == StressCombination::kMin
                              ? std::min(out.sigma_max, out.tau_max)
                              : std::max(out.sigma_max, out.tau_max);
  out.sigma_c = combined / (params.kappa * params.zeta);
  return out;
}

// S = lambda tr(E) I + 2 mu E with E = (F^T F - I) / 2.
Mat3 CuttingStressTensor(const Mat3& f, const LameParameters& lame) {
  const Mat3 e = 0.5 * (f.transpose() * f - Mat3::Identity());
  return lame.lambda * e.trace() * Mat3::Identity() + 2.0 * lame.mu * e;
}

// F = Ds Dm^-1 of tet t, its second Piola stress, and the criterion's numbers.
absl::StatusOr<CuttingStress> TetCuttingStress(const TetMesh& mesh, const FemRest& rest,
                                               const LameParameters& lame,
                                               const std::vector<Vec3>& x, int t,
                                               const CuttingParams& params) {
  if (absl::Status s = ValidateCuttingParams(params); !s.ok()) return s;
  if (t < 0 || static_cast<size_t>(t) >= mesh.tets.size() ||
      static_cast<size_t>(t) >= rest.dm_inverse.size()) {
    return absl::InvalidArgumentError(absl::StrCat("t: tet ", t, " out of range (",
                                                   mesh.tets.size(), " tets, ",
                                                   rest.dm_inverse.size(), " in rest)"));
  }
  for (int v : mesh.tets[t]) {
    if (v < 0 || static_cast<size_t>(v) >= x.size()) {
      return absl::InvalidArgumentError(absl::StrCat("mesh.tets[", t, "]: vertex ", v,
                                                     " out of range of x (size ", x.size(),
                                                     ")"));
    }
  }
  const Mat3 f = ShapeMatrix(x, mesh.tets[t]) * rest.dm_inverse[t];
  return EvaluateCuttingStress(CuttingStressTensor(f, lame), params);
}

// ---- (3) Select and separate tets -----------------------------------------------------

// Through v1, normal s_1 x n.
absl::StatusOr<CutPlane> CutPlaneFromAttempt(const std::vector<Vec3>& x,
                                             const CuttingAttempt& attempt) {
  if (!attempt.attempt) {
    return absl::FailedPreconditionError("attempt: not a cutting attempt");
  }
  for (int v : {attempt.v0, attempt.v1}) {
    if (v < 0 || static_cast<size_t>(v) >= x.size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("attempt: vertex ", v, " out of range of x (size ", x.size(), ")"));
    }
  }
  const Vec3 s1 = x[attempt.v1] - x[attempt.v0];
  const Vec3 normal = s1.cross(attempt.normal);
  if (!UsableDirection(normal, 1e-12 * std::max(s1.norm(), 1e-300))) {
    return absl::FailedPreconditionError(
        "attempt: cutting line parallel to the surface normal, no plane");
  }
  return CutPlane{x[attempt.v1], normal.normalized()};
}

// Per tet: the plane section (vertices on the plane and edge crossings) in the blade's
// affine coordinates (u along b - a, w along depth), then a separating-line test against
// the unit square, which is the blade.
absl::StatusOr<std::vector<int>> SelectBladeTets(const TetMesh& mesh,
                                                 const std::vector<Vec3>& x,
                                                 const BladeSweep& blade,
                                                 double tolerance) {
  const Vec3 e1 = blade.b - blade.a;
  const Vec3 e2 = blade.depth;
  const Vec3 normal = e1.cross(e2);
  const double scale = std::max(e1.norm() * e2.norm(), 1e-300);
  if (!blade.a.allFinite() || !UsableDirection(normal, 1e-12 * scale)) {
    return absl::InvalidArgumentError(
        "blade: b - a and depth must be finite and not parallel or zero");
  }
  if (absl::Status s = CheckTetIndices(mesh, x.size(), "x"); !s.ok()) return s;
  const Vec3 n = normal.normalized();
  const double tol = std::max(tolerance, 0.0);
  // In-plane coordinates from the Gram system of e1, e2.
  const double g11 = e1.dot(e1), g12 = e1.dot(e2), g22 = e2.dot(e2);
  const double det = g11 * g22 - g12 * g12;
  auto coords = [&](const Vec3& p) {
    const Vec3 r = p - blade.a;
    const double r1 = r.dot(e1), r2 = r.dot(e2);
    return Eigen::Vector2d((g22 * r1 - g12 * r2) / det, (g11 * r2 - g12 * r1) / det);
  };
  const double tu = tol / e1.norm(), tw = tol / e2.norm();
  const std::array<Eigen::Vector2d, 4> square = {
      Eigen::Vector2d(-tu, -tw), Eigen::Vector2d(1 + tu, -tw), Eigen::Vector2d(1 + tu, 1 + tw),
      Eigen::Vector2d(-tu, 1 + tw)};
  constexpr double kEps = 1e-12;

  std::vector<int> out;
  for (size_t t = 0; t < mesh.tets.size(); ++t) {
    const auto& tet = mesh.tets[t];
    std::array<double, 4> d;
    for (int i = 0; i < 4; ++i) d[i] = n.dot(x[tet[i]] - blade.a);
    const auto [lo, hi] = std::minmax_element(d.begin(), d.end());
    if (*lo > tol || *hi < -tol) continue;  // the plane misses the tet
    std::vector<Eigen::Vector2d> section;
    for (int i = 0; i < 4; ++i) {
      if (std::abs(d[i]) <= tol) section.push_back(coords(x[tet[i]]));
      for (int j = i + 1; j < 4; ++j) {
        if ((d[i] < -tol && d[j] > tol) || (d[i] > tol && d[j] < -tol)) {
          const double s = d[i] / (d[i] - d[j]);
          section.push_back(coords(x[tet[i]] + s * (x[tet[j]] - x[tet[i]])));
        }
      }
    }
    // The square's own axes: bounding boxes.
    double umin = std::numeric_limits<double>::infinity(), umax = -umin;
    double wmin = umin, wmax = -umin;
    for (const auto& p : section) {
      umin = std::min(umin, p.x());
      umax = std::max(umax, p.x());
      wmin = std::min(wmin, p.y());
      wmax = std::max(wmax, p.y());
    }
    if (umax < -tu || umin > 1 + tu || wmax < -tw || wmin > 1 + tw) continue;
    // The section's own edges (each pair of points whose line leaves all points on one
    // side) as separating lines.
    bool separated = false;
    for (size_t i = 0; i < section.size() && !separated; ++i) {
      for (size_t j = i + 1; j < section.size() && !separated; ++j) {
        const Eigen::Vector2d edge = section[j] - section[i];
        if (!(edge.norm() > kEps)) continue;
        const Eigen::Vector2d m(-edge.y(), edge.x());
        bool all_pos = true, all_neg = true;
        for (const auto& p : section) {
          const double s = m.dot(p - section[i]);
          all_pos = all_pos && s >= -kEps;
          all_neg = all_neg && s <= kEps;
        }
        bool square_pos = true, square_neg = true;
        for (const auto& c : square) {
          const double s = m.dot(c - section[i]);
          square_pos = square_pos && s > kEps;
          square_neg = square_neg && s < -kEps;
        }
        separated = (all_neg && square_pos) || (all_pos && square_neg);
      }
    }
    if (!separated) out.push_back(static_cast<int>(t));
  }
  return out;
}

// Sides of the blade tets, the cut faces between them, then per vertex of a cut face the
// groups of its tets that stay connected through uncut faces; every group but the most
// negative one is moved to a new duplicate.
absl::StatusOr<SeparationResult> SeparateAlongPlane(const CutPlane& plane,
                                                    std::span<const int> blade_tets,
                                                    const std::vector<Vec3>& x,
                                                    TetMesh* mesh) {
  if (!plane.point.allFinite()) {
    return absl::InvalidArgumentError("plane.point: must be finite");
  }
  if (!UsableDirection(plane.normal, 1e-12)) {
    return absl::InvalidArgumentError("plane.normal: must be finite and non-zero");
  }
  if (x.size() != mesh->vertices.size()) {
    return absl::InvalidArgumentError(absl::StrCat("x: size ", x.size(), " but the mesh has ",
                                                   mesh->vertices.size(), " vertices"));
  }
  if (absl::Status s = CheckTetIndices(*mesh, x.size(), "x"); !s.ok()) return s;
  const int tet_count = static_cast<int>(mesh->tets.size());
  for (size_t i = 0; i < blade_tets.size(); ++i) {
    if (blade_tets[i] < 0 || blade_tets[i] >= tet_count) {
      return absl::InvalidArgumentError(absl::StrCat("blade_tets[", i, "]: tet ",
                                                     blade_tets[i], " out of range (",
                                                     tet_count, " tets)"));
    }
  }
  const Vec3 n = plane.normal.normalized();
  auto distance = [&](int v) { return n.dot(x[v] - plane.point); };

  // Side of each blade tet: the sign at its furthest vertex (centroid on a tie at zero).
  absl::flat_hash_map<int, int> side;  // blade tet -> +1 / -1
  for (int t : blade_tets) {
    double furthest = 0.0, centroid = 0.0;
    for (int v : mesh->tets[t]) {
      const double d = distance(v);
      if (std::abs(d) > std::abs(furthest)) furthest = d;
      centroid += 0.25 * d;
    }
    const double key = furthest != 0.0 ? furthest : centroid;
    side[t] = key >= 0.0 ? 1 : -1;
  }

  // Cut faces: shared by two blade tets on opposite sides.
  absl::flat_hash_map<Face, std::vector<int>> blade_faces;
  for (const auto& [t, s] : side) {
    const auto& tet = mesh->tets[t];
    for (int skip = 0; skip < 4; ++skip) {
      std::array<int, 3> f;
      for (int i = 0, k = 0; i < 4; ++i) {
        if (i != skip) f[k++] = tet[i];
      }
      blade_faces[SortedFace(f[0], f[1], f[2])].push_back(t);
    }
  }
  absl::flat_hash_map<Face, bool> cut_faces;
  std::vector<int> cut_vertices;
  for (const auto& [face, tets] : blade_faces) {
    if (tets.size() == 2 && side[tets[0]] != side[tets[1]]) {
      cut_faces[face] = true;
      cut_vertices.insert(cut_vertices.end(), face.begin(), face.end());
    }
  }
  std::sort(cut_vertices.begin(), cut_vertices.end());
  cut_vertices.erase(std::unique(cut_vertices.begin(), cut_vertices.end()),
                     cut_vertices.end());

  SeparationResult result;
  result.cut_faces = static_cast<int>(cut_faces.size());
  if (cut_vertices.empty()) return result;

  // Tets around each cut vertex.
  absl::flat_hash_map<int, std::vector<int>> star;
  for (int v : cut_vertices) star[v];
  for (int t = 0; t < tet_count; ++t) {
    for (int v : mesh->tets[t]) {
      if (auto it = star.find(v); it != star.end()) it->second.push_back(t);
    }
  }

  // Groups per vertex, all decided on the unmodified mesh, applied afterwards.
  struct Rewire {
    int vertex;
    std::vector<int> tets;
  };
  std::vector<Rewire> rewires;
  for (int v : cut_vertices) {
    const std::vector<int>& tets = star[v];
    const int m = static_cast<int>(tets.size());
    UnionFind groups(m);
    absl::flat_hash_map<Face, int> first_with_face;  // face at v -> first local tet
    for (int i = 0; i < m; ++i) {
      const auto& tet = mesh->tets[tets[i]];
      std::array<int, 3> others;
      for (int j = 0, k = 0; j < 4; ++j) {
        if (tet[j] != v) others[k++] = tet[j];
      }
      for (int a = 0; a < 3; ++a) {
        const Face f = SortedFace(v, others[a], others[(a + 1) % 3]);
        if (cut_faces.contains(f)) continue;
        auto [it, inserted] = first_with_face.try_emplace(f, i);
        if (!inserted) groups.Unite(i, it->second);
      }
    }
    // Group roots, and the group holding the most negative tet (by centroid).
    absl::flat_hash_map<int, std::vector<int>> members;
    int keep_root = -1;
    double most_negative = std::numeric_limits<double>::infinity();
    for (int i = 0; i < m; ++i) {
      const int root = groups.Find(i);
      members[root].push_back(tets[i]);
      double centroid = 0.0;
      for (int u : mesh->tets[tets[i]]) centroid += 0.25 * distance(u);
      if (centroid < most_negative) {
        most_negative = centroid;
        keep_root = root;
      }
    }
    if (members.size() < 2) continue;
    // Deterministic order of the moved groups: by their smallest tet index.
    std::vector<std::vector<int>> moved;
    for (auto& [root, list] : members) {
      if (root == keep_root) continue;
      std::sort(list.begin(), list.end());
      moved.push_back(std::move(list));
    }
    std::sort(moved.begin(), moved.end());
    for (auto& list : moved) rewires.push_back({v, std::move(list)});
  }

  // Apply: one duplicate per moved group, at the rest position of the original.
  std::vector<int> rewired;
  for (const Rewire& r : rewires) {
    const int dup = static_cast<int>(mesh->vertices.size());
    const Vec3 rest_position = mesh->vertices[r.vertex];
    mesh->vertices.push_back(rest_position);
    result.splits.push_back({r.vertex, dup});
    for (int t : r.tets) {
      for (int& u : mesh->tets[t]) {
        if (u == r.vertex) u = dup;
      }
      rewired.push_back(t);
    }
  }
  std::sort(rewired.begin(), rewired.end());
  rewired.erase(std::unique(rewired.begin(), rewired.end()), rewired.end());
  result.rewired_tets = std::move(rewired);
  return result;
}

// Copies of the originals' position and velocity, appended in order.
absl::Status ExtendStateAfterSplit(std::span<const VertexSplit> splits, FemState* state) {
  if (state->x.size() != state->v.size()) {
    return absl::InvalidArgumentError(absl::StrCat("state: ", state->x.size(),
                                                   " positions but ", state->v.size(),
                                                   " velocities"));
  }
  for (size_t i = 0; i < splits.size(); ++i) {
    const size_t n = state->x.size();
    const VertexSplit& s = splits[i];
    if (s.original < 0 || static_cast<size_t>(s.original) >= n ||
        static_cast<size_t>(s.duplicate) != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "splits[", i, "]: original ", s.original, " must be below ", n,
          " and duplicate ", s.duplicate, " must be ", n));
    }
    const Vec3 x = state->x[s.original];
    const Vec3 v = state->v[s.original];
    state->x.push_back(x);
    state->v.push_back(v);
  }
  return absl::OkStatus();
}

// Fixed flags copied, masses summed afresh from the rest volumes.
absl::Status UpdateRestAfterSplit(const TetMesh& mesh, const FemMaterial& material,
                                  std::span<const VertexSplit> splits, FemRest* rest) {
  if (rest->volume.size() != mesh.tets.size() || rest->dm_inverse.size() != mesh.tets.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rest: ", rest->volume.size(), " volumes and ", rest->dm_inverse.size(),
        " shape matrices for ", mesh.tets.size(), " tets"));
  }
  if (rest->fixed.size() + splits.size() != mesh.vertices.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "rest.fixed: ", rest->fixed.size(), " flags plus ", splits.size(),
        " splits does not match ", mesh.vertices.size(), " vertices"));
  }
  if (absl::Status s = CheckTetIndices(mesh, mesh.vertices.size(), "mesh.vertices"); !s.ok()) {
    return s;
  }
  std::vector<char> fixed = rest->fixed;
  for (size_t i = 0; i < splits.size(); ++i) {
    const VertexSplit& s = splits[i];
    if (s.original < 0 || static_cast<size_t>(s.original) >= fixed.size() ||
        static_cast<size_t>(s.duplicate) != fixed.size()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "splits[", i, "]: original ", s.original, " must be below ", fixed.size(),
          " and duplicate ", s.duplicate, " must be ", fixed.size()));
    }
    fixed.push_back(fixed[s.original]);
  }
  rest->fixed = std::move(fixed);
  rest->mass.assign(mesh.vertices.size(), 0.0);
  for (size_t t = 0; t < mesh.tets.size(); ++t) {
    for (int v : mesh.tets[t]) rest->mass[v] += 0.25 * material.density * rest->volume[t];
  }
  return absl::OkStatus();
}

// ---- (4) Local remeshing ---------------------------------------------------------------

// Pull the move back to rest space, check every tet at v stays positive in both spaces,
// then rebuild their rest data and the masses they contribute.
absl::Status MoveCutVertex(int v, const Vec3& target, const FemMaterial& material,
                           TetMesh* mesh, FemRest* rest, FemState* state,
                           double min_volume_ratio) {
  const size_t n = mesh->vertices.size();
  if (v < 0 || static_cast<size_t>(v) >= n) {
    return absl::InvalidArgumentError(
        absl::StrCat("v: vertex ", v, " out of range (", n, " vertices)"));
  }
  if (!target.allFinite()) return absl::InvalidArgumentError("target: must be finite");
  if (state->x.size() != n || state->v.size() != n || rest->mass.size() != n) {
    return absl::InvalidArgumentError(absl::StrCat(
        "state/rest: ", state->x.size(), " positions, ", state->v.size(), " velocities, ",
        rest->mass.size(), " masses for ", n, " vertices"));
  }
  if (rest->volume.size() != mesh->tets.size() ||
      rest->dm_inverse.size() != mesh->tets.size()) {
    return absl::InvalidArgumentError("rest: per-tet data does not match the tets");
  }
  if (absl::Status s = CheckTetIndices(*mesh, n, "mesh.vertices"); !s.ok()) return s;

  std::vector<int> tets;
  for (size_t t = 0; t < mesh->tets.size(); ++t) {
    const auto& tet = mesh->tets[t];
    if (std::find(tet.begin(), tet.end(), v) != tet.end()) tets.push_back(static_cast<int>(t));
  }
  if (tets.empty()) return absl::FailedPreconditionError("v: no tet uses this vertex");

  // Volume-weighted mean of F^-1 = Dm Ds^-1 over v's tets.
  Mat3 f_inverse = Mat3::Zero();
  double weight = 0.0;
  for (int t : tets) {
    const Mat3 ds = ShapeMatrix(state->x, mesh->tets[t]);
    Eigen::FullPivLU<Mat3> lu(ds);
    if (!lu.isInvertible()) {
      return absl::FailedPreconditionError(
          absl::StrCat("mesh.tets[", t, "]: degenerate at the current positions"));
    }
    f_inverse += rest->volume[t] * (rest->dm_inverse[t].inverse() * lu.inverse());
    weight += rest->volume[t];
  }
  f_inverse /= weight;
  const Vec3 rest_target = mesh->vertices[v] + f_inverse * (target - state->x[v]);

  // Trial positions; every tet at v must keep a fair share of its volume in both spaces.
  std::vector<Vec3> rest_trial = mesh->vertices;
  std::vector<Vec3> x_trial = state->x;
  rest_trial[v] = rest_target;
  x_trial[v] = target;
  for (int t : tets) {
    const auto& tet = mesh->tets[t];
    const double rest_before = VolumeOf(mesh->vertices, tet);
    const double rest_after = VolumeOf(rest_trial, tet);
    const double now_before = VolumeOf(state->x, tet);
    const double now_after = VolumeOf(x_trial, tet);
    if (!(rest_after > 0.0 && rest_after >= min_volume_ratio * rest_before &&
          now_after > 0.0 && now_after >= min_volume_ratio * now_before)) {
      return absl::FailedPreconditionError(absl::StrCat(
          "target: moving vertex ", v, " would invert or flatten mesh.tets[", t, "]"));
    }
  }

  // Commit: positions, then per tet Dm^-1 and V0 and the change in lumped mass.
  mesh->vertices[v] = rest_target;
  state->x[v] = target;
  for (int t : tets) {
    const auto& tet = mesh->tets[t];
    const double volume = VolumeOf(mesh->vertices, tet);
    const double delta_mass = 0.25 * material.density * (volume - rest->volume[t]);
    for (int u : tet) rest->mass[u] += delta_mass;
    rest->volume[t] = volume;
    rest->dm_inverse[t] = ShapeMatrix(mesh->vertices, tet).inverse();
  }
  return absl::OkStatus();
}

}  // namespace ligature
