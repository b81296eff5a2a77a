// Mass-point deformable model: construction, forces, energy and Jacobians.

#include "server/model/soft/mass_point_model.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <utility>

#include <Eigen/SparseCore>

#include "absl/container/flat_hash_set.h"
#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace ligature {
namespace {

// Gradient of the signed volume with respect to each of the four vertices.
std::array<Vec3, 4> VolumeGradient(const Vec3& a, const Vec3& b, const Vec3& c,
                                   const Vec3& d) {
  const Vec3 e1 = b - a, e2 = c - a, e3 = d - a;
  std::array<Vec3, 4> g;
  g[1] = e2.cross(e3) / 6.0;
  g[2] = e3.cross(e1) / 6.0;
  g[3] = e1.cross(e2) / 6.0;
  g[0] = -(g[1] + g[2] + g[3]);
  return g;
}

absl::Status CheckMaterial(const MassPointMaterial& m) {
  if (!(m.distance_stiffness >= 0.0) || !std::isfinite(m.distance_stiffness)) {
    return absl::InvalidArgumentError("distance_stiffness: must be finite and >= 0");
  }
  if (!(m.volume_stiffness >= 0.0) || !std::isfinite(m.volume_stiffness)) {
    return absl::InvalidArgumentError("volume_stiffness: must be finite and >= 0");
  }
  if (!(m.damping >= 0.0) || !std::isfinite(m.damping)) {
    return absl::InvalidArgumentError("damping: must be finite and >= 0");
  }
  return absl::OkStatus();
}

// Adds a 3x3 block at block position (bi, bj) to a triplet list.
void AddBlock(std::vector<Eigen::Triplet<double>>& out, int bi, int bj, const Mat3& block) {
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      if (block(r, c) != 0.0) out.emplace_back(3 * bi + r, 3 * bj + c, block(r, c));
    }
  }
}

}  // namespace

// Collects the distinct tet edges and the lumped masses, then defers to FromParts.
absl::StatusOr<MassPointModel> MassPointModel::FromTetMesh(const TetMesh& mesh,
                                                           const MassPointMaterial& material,
                                                           std::span<const int> held) {
  if (mesh.tets.empty()) return absl::InvalidArgumentError("mesh: has no tets");
  if (!(material.density > 0.0) || !std::isfinite(material.density)) {
    return absl::InvalidArgumentError("density: must be finite and > 0");
  }
  const int n = static_cast<int>(mesh.vertices.size());
  std::vector<double> masses(n, 0.0);
  std::vector<std::array<int, 2>> edges;
  absl::flat_hash_set<std::pair<int, int>> seen;
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    const std::array<int, 4>& tet = mesh.tets[t];
    for (int v : tet) {
      if (v < 0 || v >= n) {
        return absl::InvalidArgumentError(absl::StrCat("tet ", t, ": vertex index ", v,
                                                       " out of range [0, ", n, ")"));
      }
    }
    const double volume = TetVolume(mesh, t);
    if (!(volume > 0.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("tet ", t, ": volume ", volume, " is not positive"));
    }
    for (int v : tet) masses[v] += 0.25 * material.density * volume;
    for (int a = 0; a < 4; ++a) {
      for (int b = a + 1; b < 4; ++b) {
        const std::pair<int, int> key = std::minmax(tet[a], tet[b]);
        if (seen.insert(key).second) edges.push_back({key.first, key.second});
      }
    }
  }
  return FromParts(mesh.vertices, std::move(masses), std::move(edges), mesh.tets, material, held);
}

// Validates the parts and records rest lengths and volumes.
absl::StatusOr<MassPointModel> MassPointModel::FromParts(std::vector<Vec3> rest_positions,
                                                         std::vector<double> masses,
                                                         std::vector<std::array<int, 2>> edges,
                                                         std::vector<std::array<int, 4>> tets,
                                                         const MassPointMaterial& material,
                                                         std::span<const int> held) {
  if (absl::Status s = CheckMaterial(material); !s.ok()) return s;
  const int n = static_cast<int>(rest_positions.size());
  if (n == 0) return absl::InvalidArgumentError("rest_positions: empty");
  if (static_cast<int>(masses.size()) != n) {
    return absl::InvalidArgumentError(absl::StrCat("masses: ", masses.size(),
                                                   " values for ", n, " points"));
  }
  for (int i = 0; i < n; ++i) {
    if (!(masses[i] > 0.0) || !std::isfinite(masses[i])) {
      return absl::InvalidArgumentError(
          absl::StrCat("masses: point ", i, " has mass ", masses[i], "; must be > 0"));
    }
  }
  MassPointModel model;
  for (int e = 0; e < static_cast<int>(edges.size()); ++e) {
    const auto [i, j] = edges[e];
    if (i < 0 || i >= n || j < 0 || j >= n || i == j) {
      return absl::InvalidArgumentError(
          absl::StrCat("edge ", e, ": bad point indices (", i, ", ", j, ")"));
    }
    const double length = (rest_positions[i] - rest_positions[j]).norm();
    if (!(length > 0.0)) {
      return absl::InvalidArgumentError(absl::StrCat("edge ", e, ": zero rest length"));
    }
    model.rest_lengths_.push_back(length);
  }
  for (int t = 0; t < static_cast<int>(tets.size()); ++t) {
    for (int v : tets[t]) {
      if (v < 0 || v >= n) {
        return absl::InvalidArgumentError(
            absl::StrCat("tet ", t, ": vertex index ", v, " out of range"));
      }
    }
    const auto& q = tets[t];
    const double volume = SignedVolume(rest_positions[q[0]], rest_positions[q[1]],
                                       rest_positions[q[2]], rest_positions[q[3]]);
    if (!(volume > 0.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("tet ", t, ": rest volume ", volume, " is not positive"));
    }
    model.rest_volumes_.push_back(volume);
  }
  model.held_.assign(n, 0);
  for (size_t k = 0; k < held.size(); ++k) {
    if (held[k] < 0 || held[k] >= n) {
      return absl::InvalidArgumentError(
          absl::StrCat("held ", k, ": point index ", held[k], " out of range [0, ", n, ")"));
    }
    model.held_[held[k]] = 1;
  }
  model.rest_positions_ = std::move(rest_positions);
  model.masses_ = std::move(masses);
  model.edges_ = std::move(edges);
  model.tets_ = std::move(tets);
  model.material_ = material;
  return model;
}

double MassPointModel::total_mass() const {
  double sum = 0.0;
  for (double m : masses_) sum += m;
  return sum;
}

MassPointState RestState(const MassPointModel& model) {
  MassPointState state;
  state.x = model.rest_positions();
  state.v.assign(model.points(), Vec3::Zero());
  return state;
}

// Edge springs, edge damping and volume terms, accumulated per element, then gravity.
void ComputeForces(const MassPointModel& model, std::span<const Vec3> x,
                   std::span<const Vec3> v, const Vec3& gravity, std::vector<Vec3>* forces) {
  const int n = model.points();
  assert(static_cast<int>(x.size()) == n && static_cast<int>(v.size()) == n);
  std::vector<Vec3>& f = *forces;
  f.resize(n);
  const std::vector<double>& m = model.masses();
  for (int i = 0; i < n; ++i) f[i] = m[i] * gravity;

  const MassPointMaterial& mat = model.material();
  const auto& edges = model.edges();
  const auto& l0 = model.rest_lengths();
  for (size_t e = 0; e < edges.size(); ++e) {
    const auto [i, j] = edges[e];
    const Vec3 d = x[i] - x[j];
    const double l = d.norm();
    // An edge collapsed to a point has no direction to push along: no spring or damping
    // force. (So does an edge of a state gone non-finite, a predictor's overshoot that the
    // step then rejects as a whole.)
    if (!(l > 0.0)) continue;
    const Vec3 u = d / l;
    const double magnitude =
        -mat.distance_stiffness * (l - l0[e]) / l0[e] - mat.damping * (v[i] - v[j]).dot(u);
    f[i] += magnitude * u;
    f[j] -= magnitude * u;
  }

  const auto& tets = model.tets();
  const auto& v0 = model.rest_volumes();
  for (size_t t = 0; t < tets.size(); ++t) {
    const auto& q = tets[t];
    const double volume = SignedVolume(x[q[0]], x[q[1]], x[q[2]], x[q[3]]);
    const double scale = -mat.volume_stiffness * (volume - v0[t]) / (v0[t] * v0[t]);
    const std::array<Vec3, 4> g = VolumeGradient(x[q[0]], x[q[1]], x[q[2]], x[q[3]]);
    for (int k = 0; k < 4; ++k) f[q[k]] += scale * g[k];
  }
}

double ElasticEnergy(const MassPointModel& model, std::span<const Vec3> x) {
  assert(static_cast<int>(x.size()) == model.points());
  const MassPointMaterial& mat = model.material();
  double energy = 0.0;
  const auto& edges = model.edges();
  for (size_t e = 0; e < edges.size(); ++e) {
    const double l0 = model.rest_lengths()[e];
    const double dl = (x[edges[e][0]] - x[edges[e][1]]).norm() - l0;
    energy += 0.5 * mat.distance_stiffness * dl * dl / l0;
  }
  const auto& tets = model.tets();
  for (size_t t = 0; t < tets.size(); ++t) {
    const auto& q = tets[t];
    const double v0 = model.rest_volumes()[t];
    const double strain = (SignedVolume(x[q[0]], x[q[1]], x[q[2]], x[q[3]]) - v0) / v0;
    energy += 0.5 * mat.volume_stiffness * strain * strain;
  }
  return energy;
}

double KineticEnergy(const MassPointModel& model, std::span<const Vec3> v) {
  assert(static_cast<int>(v.size()) == model.points());
  double energy = 0.0;
  for (int i = 0; i < model.points(); ++i) energy += 0.5 * model.masses()[i] * v[i].squaredNorm();
  return energy;
}

// Per edge: -(k_d / l0) [u u^T + max(0, 1 - l0 / l) (I - u u^T)] on the diagonal blocks
// and its negative off the diagonal; per tet: -k_v / V0^2 g_a g_b^T.
Eigen::SparseMatrix<double> ElasticStiffness(const MassPointModel& model,
                                             std::span<const Vec3> x) {
  const int n = model.points();
  assert(static_cast<int>(x.size()) == n);
  const MassPointMaterial& mat = model.material();
  std::vector<Eigen::Triplet<double>> triplets;
  const auto& edges = model.edges();
  triplets.reserve(36 * edges.size() + 144 * model.tets().size());
  for (size_t e = 0; e < edges.size(); ++e) {
    const auto [i, j] = edges[e];
    const double l0 = model.rest_lengths()[e];
    const Vec3 d = x[i] - x[j];
    const double l = d.norm();
    // A collapsed edge has no direction and no stiffness (as in ComputeForces).
    if (!(l > 0.0)) continue;
    const Vec3 u = d / l;
    const Mat3 uu = u * u.transpose();
    const double transverse = std::max(0.0, 1.0 - l0 / l);
    const Mat3 block =
        -(mat.distance_stiffness / l0) * (uu + transverse * (Mat3::Identity() - uu));
    AddBlock(triplets, i, i, block);
    AddBlock(triplets, j, j, block);
    AddBlock(triplets, i, j, -block);
    AddBlock(triplets, j, i, -block);
  }
  const auto& tets = model.tets();
  for (size_t t = 0; t < tets.size(); ++t) {
    const auto& q = tets[t];
    const double v0 = model.rest_volumes()[t];
    const std::array<Vec3, 4> g = VolumeGradient(x[q[0]], x[q[1]], x[q[2]], x[q[3]]);
    const double scale = -mat.volume_stiffness / (v0 * v0);
    for (int a = 0; a < 4; ++a) {
      for (int b = 0; b < 4; ++b) {
        AddBlock(triplets, q[a], q[b], scale * g[a] * g[b].transpose());
      }
    }
  }
  Eigen::SparseMatrix<double> k(3 * n, 3 * n);
  k.setFromTriplets(triplets.begin(), triplets.end());
  return k;
}

// Per edge: -c u u^T on the diagonal blocks, +c u u^T off the diagonal.
Eigen::SparseMatrix<double> DampingJacobian(const MassPointModel& model,
                                            std::span<const Vec3> x) {
  const int n = model.points();
  assert(static_cast<int>(x.size()) == n);
  std::vector<Eigen::Triplet<double>> triplets;
  const double c = model.material().damping;
  if (c > 0.0) {
    for (const auto& [i, j] : model.edges()) {
      const Vec3 u = (x[i] - x[j]).normalized();
      const Mat3 block = -c * u * u.transpose();
      AddBlock(triplets, i, i, block);
      AddBlock(triplets, j, j, block);
      AddBlock(triplets, i, j, -block);
      AddBlock(triplets, j, i, -block);
    }
  }
  Eigen::SparseMatrix<double> d(3 * n, 3 * n);
  d.setFromTriplets(triplets.begin(), triplets.end());
  return d;
}

}  // namespace ligature
