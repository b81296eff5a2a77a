#pragma once
// Explicit St Venant-Kirchhoff finite elements on linear tets: large displacements with
// the non-linear Green strain and a linear stress-strain law, integrated per vertex
// without a global system. Per tet, with Dm the rest shape matrix and V0 the rest volume:
//   F = Ds Dm^-1                        deformation gradient
//   E = 1/2 (F^T F - I)                 Green strain
//   S = lambda tr(E) I + 2 mu E         second Piola-Kirchhoff stress
//   P = F S                             first Piola-Kirchhoff stress
//   [f_a f_b f_c] = -V0 P Dm^-T,  f_d = -(f_a + f_b + f_c)
//   W = V0 (mu E:E + lambda/2 tr(E)^2)  strain energy, whose negative gradient is f
// Masses are lumped; damping is Rayleigh-like, -alpha M v - beta K(x) v with K(x) v the
// exact directional derivative of the elastic forces along v. The step is semi-implicit
// (symplectic) Euler, stable below about ExplicitStableTimeStep.
//
// The model is constant; FemState is what changes.

#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "server/math/types.h"
#include "server/model/soft/fem_material.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {

// Green strain and stresses of the St Venant-Kirchhoff material, per deformation gradient.
Mat3 GreenStrain(const Mat3& f);
Mat3 StVKSecondPiola(const Mat3& green, const LameParameters& lame);
Mat3 StVKFirstPiola(const Mat3& f, const LameParameters& lame);
// Strain energy per unit rest volume, J/m^3.
double StVKEnergyDensity(const Mat3& f, const LameParameters& lame);

class StVKModel {
 public:
  // Fails (INVALID_ARGUMENT) as MakeFemRest does. `fixed` vertices are held where they
  // are (their velocity is kept zero).
  static absl::StatusOr<StVKModel> Make(const TetMesh& mesh, const FemMaterial& material,
                                        std::span<const int> fixed = {});

  const TetMesh& mesh() const { return mesh_; }
  const FemMaterial& material() const { return material_; }
  const LameParameters& lame() const { return lame_; }
  const FemRest& rest() const { return rest_; }
  int vertex_count() const { return static_cast<int>(mesh_.vertices.size()); }
  int tet_count() const { return static_cast<int>(mesh_.tets.size()); }

  // F = Ds Dm^-1 of tet t at positions x.
  Mat3 DeformationGradient(const std::vector<Vec3>& x, int t) const;

  // Total strain energy at positions x, J.
  double StrainEnergy(const std::vector<Vec3>& x) const;

  // Adds the elastic nodal forces at positions x to `forces` (one per vertex).
  void AddElasticForces(const std::vector<Vec3>& x, std::vector<Vec3>* forces) const;

  // Adds the damping forces -alpha M v - beta K(x) v to `forces`.
  void AddDampingForces(const FemState& state, std::vector<Vec3>* forces) const;

  // ExplicitStableTimeStep for this mesh (its shortest altitude) and material, s.
  double StableTimeStep() const;

  // One semi-implicit Euler step of h seconds: v += h M^-1 (f_elastic + f_damping + M g +
  // f_external), then x += h v; fixed vertices keep v = 0. `external` is empty or holds
  // one force (N) per vertex.
  void Step(double h, const Vec3& gravity, std::span<const Vec3> external,
            FemState* state) const;

  double KineticEnergy(const FemState& state) const { return FemKineticEnergy(rest_, state); }

 private:
  TetMesh mesh_;
  FemMaterial material_;
  LameParameters lame_;
  FemRest rest_;
};

}  // namespace ligature
