// Material validation and the rest data shared by the finite-element soft-tissue models.

#include "server/model/soft/fem_material.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "absl/strings/str_cat.h"

namespace ligature {

double PWaveSpeed(const FemMaterial& m) {
  const LameParameters lame = Lame(m);
  return std::sqrt((lame.lambda + 2.0 * lame.mu) / m.density);
}

// Each check is written so that NaN fails it.
absl::Status ValidateFemMaterial(const FemMaterial& m) {
  if (!(m.young > 0.0) || !std::isfinite(m.young)) {
    return absl::InvalidArgumentError(
        absl::StrCat("young: Young's modulus must be finite and > 0 Pa, got ", m.young));
  }
  if (!(m.poisson >= 0.0 && m.poisson < 0.5)) {
    return absl::InvalidArgumentError(
        absl::StrCat("poisson: Poisson's ratio must be in [0, 0.5), got ", m.poisson));
  }
  if (!(m.density > 0.0) || !std::isfinite(m.density)) {
    return absl::InvalidArgumentError(
        absl::StrCat("density: must be finite and > 0 kg/m^3, got ", m.density));
  }
  if (!(m.mass_damping >= 0.0) || !std::isfinite(m.mass_damping)) {
    return absl::InvalidArgumentError(
        absl::StrCat("mass_damping: must be finite and >= 0 1/s, got ", m.mass_damping));
  }
  if (!(m.stiffness_damping >= 0.0) || !std::isfinite(m.stiffness_damping)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stiffness_damping: must be finite and >= 0 s, got ", m.stiffness_damping));
  }
  return absl::OkStatus();
}

FemState RestFemState(const TetMesh& mesh) {
  FemState state;
  state.x = mesh.vertices;
  state.v.assign(mesh.vertices.size(), Vec3::Zero());
  return state;
}

// Checks the mesh tet by tet while computing Dm^-1, V0 and the lumped masses. A tet is
// degenerate when its volume is below 1e-9 of the cube of its longest edge (the inverse
// shape matrix would be meaningless).
absl::StatusOr<FemRest> MakeFemRest(const TetMesh& mesh, const FemMaterial& material,
                                    std::span<const int> fixed) {
  if (absl::Status s = ValidateFemMaterial(material); !s.ok()) return s;
  const int n = static_cast<int>(mesh.vertices.size());
  if (mesh.tets.empty() || n == 0) {
    return absl::InvalidArgumentError("mesh: no tets");
  }
  FemRest rest;
  rest.dm_inverse.resize(mesh.tets.size());
  rest.volume.resize(mesh.tets.size());
  rest.mass.assign(n, 0.0);
  rest.fixed.assign(n, 0);
  rest.min_edge = std::numeric_limits<double>::infinity();
  rest.min_altitude = std::numeric_limits<double>::infinity();
  for (int t = 0; t < static_cast<int>(mesh.tets.size()); ++t) {
    const std::array<int, 4>& tet = mesh.tets[t];
    for (int v : tet) {
      if (v < 0 || v >= n) {
        return absl::InvalidArgumentError(
            absl::StrCat("mesh.tets[", t, "]: vertex index ", v, " out of range [0, ", n, ")"));
      }
    }
    double longest = 0.0;
    for (int i = 0; i < 4; ++i) {
      for (int j = i + 1; j < 4; ++j) {
        const double len = (mesh.vertices[tet[i]] - mesh.vertices[tet[j]]).norm();
        longest = std::max(longest, len);
        rest.min_edge = std::min(rest.min_edge, len);
      }
    }
    const double volume = TetVolume(mesh, t);
    if (!(volume > 1e-9 * longest * longest * longest)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "mesh.tets[", t, "]: not positively oriented or degenerate (volume ", volume, ")"));
    }
    rest.volume[t] = volume;
    // Altitude from each vertex: 3 V / (area of the opposite face).
    for (int skip = 0; skip < 4; ++skip) {
      const Vec3& a = mesh.vertices[tet[(skip + 1) % 4]];
      const Vec3& b = mesh.vertices[tet[(skip + 2) % 4]];
      const Vec3& c = mesh.vertices[tet[(skip + 3) % 4]];
      const double area = 0.5 * (b - a).cross(c - a).norm();
      rest.min_altitude = std::min(rest.min_altitude, 3.0 * volume / area);
    }
    rest.dm_inverse[t] = ShapeMatrix(mesh.vertices, tet).inverse();
    for (int v : tet) rest.mass[v] += 0.25 * material.density * volume;
  }
  for (int v = 0; v < n; ++v) {
    if (!(rest.mass[v] > 0.0)) {
      return absl::InvalidArgumentError(
          absl::StrCat("mesh.vertices[", v, "]: not used by any tet"));
    }
  }
  for (int i = 0; i < static_cast<int>(fixed.size()); ++i) {
    if (fixed[i] < 0 || fixed[i] >= n) {
      return absl::InvalidArgumentError(absl::StrCat("fixed[", i, "]: vertex ", fixed[i],
                                                     " out of range [0, ", n, ")"));
    }
    rest.fixed[fixed[i]] = 1;
  }
  return rest;
}

double ExplicitStableTimeStep(const FemMaterial& material, double length) {
  const double omega = 2.0 * PWaveSpeed(material) / length;
  const double zeta =
      material.mass_damping / (2.0 * omega) + 0.5 * material.stiffness_damping * omega;
  return 2.0 / omega * (std::sqrt(1.0 + zeta * zeta) - zeta);
}

double FemKineticEnergy(const FemRest& rest, const FemState& state) {
  double e = 0.0;
  for (size_t i = 0; i < state.v.size(); ++i) e += 0.5 * rest.mass[i] * state.v[i].squaredNorm();
  return e;
}

}  // namespace ligature
