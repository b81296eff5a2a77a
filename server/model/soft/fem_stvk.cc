// Explicit St Venant-Kirchhoff finite elements: stresses, nodal forces, damping and the
// semi-implicit Euler step.

#include "server/model/soft/fem_stvk.h"

#include <cassert>
#include <utility>

namespace ligature {
namespace {

// Distributes -V0 P Dm^-T over the tet's vertices: columns to a, b, c and minus their sum
// to d.
void ScatterTetForces(const std::array<int, 4>& tet, const Mat3& h, std::vector<Vec3>* f) {
  (*f)[tet[0]] += h.col(0);
  (*f)[tet[1]] += h.col(1);
  (*f)[tet[2]] += h.col(2);
  (*f)[tet[3]] -= h.col(0) + h.col(1) + h.col(2);
}

}  // namespace

Mat3 GreenStrain(const Mat3& f) {
  return 0.5 * (f.transpose() * f - Mat3::Identity());
}

Mat3 StVKSecondPiola(const Mat3& green, const LameParameters& lame) {
  return lame.lambda * green.trace() * Mat3::Identity() + 2.0 * lame.mu * green;
}

Mat3 StVKFirstPiola(const Mat3& f, const LameParameters& lame) {
  return f * StVKSecondPiola(GreenStrain(f), lame);
}

double StVKEnergyDensity(const Mat3& f, const LameParameters& lame) {
  const Mat3 e = GreenStrain(f);
  const double tr = e.trace();
  return lame.mu * e.squaredNorm() + 0.5 * lame.lambda * tr * tr;
}

absl::StatusOr<StVKModel> StVKModel::Make(const TetMesh& mesh, const FemMaterial& material,
                                          std::span<const int> fixed) {
  absl::StatusOr<FemRest> rest = MakeFemRest(mesh, material, fixed);
  if (!rest.ok()) return rest.status();
  StVKModel model;
  model.mesh_ = mesh;
  model.material_ = material;
  model.lame_ = Lame(material);
  model.rest_ = *std::move(rest);
  return model;
}

Mat3 StVKModel::DeformationGradient(const std::vector<Vec3>& x, int t) const {
  return ShapeMatrix(x, mesh_.tets[t]) * rest_.dm_inverse[t];
}

double StVKModel::StrainEnergy(const std::vector<Vec3>& x) const {
  assert(x.size() == mesh_.vertices.size());
  double e = 0.0;
  for (int t = 0; t < tet_count(); ++t) {
    e += rest_.volume[t] * StVKEnergyDensity(DeformationGradient(x, t), lame_);
  }
  return e;
}

// Per tet: P = F S, then -V0 P Dm^-T to the vertices.
void StVKModel::AddElasticForces(const std::vector<Vec3>& x, std::vector<Vec3>* forces) const {
  assert(x.size() == mesh_.vertices.size() && forces->size() == x.size());
  for (int t = 0; t < tet_count(); ++t) {
    const Mat3 p = StVKFirstPiola(DeformationGradient(x, t), lame_);
    const Mat3 h = -rest_.volume[t] * p * rest_.dm_inverse[t].transpose();
    ScatterTetForces(mesh_.tets[t], h, forces);
  }
}

// The stiffness term differentiates P along the velocity: dF = dDs Dm^-1,
// dE = 1/2 (dF^T F + F^T dF), dS = lambda tr(dE) I + 2 mu dE, dP = dF S + F dS; then
// -beta (-V0 dP Dm^-T) is minus beta times K v (K = -df/dx).
void StVKModel::AddDampingForces(const FemState& state, std::vector<Vec3>* forces) const {
  assert(state.x.size() == mesh_.vertices.size() && state.v.size() == state.x.size());
  assert(forces->size() == state.x.size());
  const double alpha = material_.mass_damping;
  const double beta = material_.stiffness_damping;
  if (alpha > 0.0) {
    for (int i = 0; i < vertex_count(); ++i) (*forces)[i] -= alpha * rest_.mass[i] * state.v[i];
  }
  if (beta > 0.0) {
    for (int t = 0; t < tet_count(); ++t) {
      const Mat3& dm_inv = rest_.dm_inverse[t];
      const Mat3 f = ShapeMatrix(state.x, mesh_.tets[t]) * dm_inv;
      const Mat3 df = ShapeMatrix(state.v, mesh_.tets[t]) * dm_inv;
      const Mat3 s = StVKSecondPiola(GreenStrain(f), lame_);
      const Mat3 de = 0.5 * (df.transpose() * f + f.transpose() * df);
      const Mat3 ds = StVKSecondPiola(de, lame_);
      const Mat3 dp = df * s + f * ds;
      // df_nodes = -V0 dP Dm^-T is the change of force; the damping force is beta times it.
      const Mat3 h = -beta * rest_.volume[t] * dp * dm_inv.transpose();
      ScatterTetForces(mesh_.tets[t], h, forces);
    }
  }
}

double StVKModel::StableTimeStep() const {
  return ExplicitStableTimeStep(material_, rest_.min_altitude);
}

void StVKModel::Step(double h, const Vec3& gravity, std::span<const Vec3> external,
                     FemState* state) const {
  const int n = vertex_count();
  assert(static_cast<int>(state->x.size()) == n && static_cast<int>(state->v.size()) == n);
  assert(external.empty() || static_cast<int>(external.size()) == n);
  std::vector<Vec3> forces(n, Vec3::Zero());
  AddElasticForces(state->x, &forces);
  AddDampingForces(*state, &forces);
  for (int i = 0; i < n; ++i) {
    if (rest_.fixed[i]) {
      state->v[i].setZero();
      continue;
    }
    Vec3 f = forces[i] + rest_.mass[i] * gravity;
    if (!external.empty()) f += external[i];
    state->v[i] += (h / rest_.mass[i]) * f;
    state->x[i] += h * state->v[i];
  }
}

}  // namespace ligature
