#pragma once
// What a soft body is made of: its tetrahedral mesh (world frame, at rest), the model that
// simulates it and its material.

#include <optional>
#include <string>
#include <vector>

#include "server/geometry/collision_filter.h"
#include "server/model/soft/cutting.h"
#include "server/model/soft/fem_material.h"
#include "server/model/soft/integrators.h"
#include "server/model/soft/mass_point_model.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {

enum class SoftModelKind {
  kMassPoint,     // Teschner-style distance and volume preservation; any integrator
  kCorotational,  // corotational linear FEM, implicit Euler
  kStVK,          // St Venant-Kirchhoff FEM, explicit, substepped below its stable step
};

struct SoftBodyDesc {
  std::string id;
  TetMesh mesh;  // world frame, at rest
  SoftModelKind model = SoftModelKind::kMassPoint;
  Integrator integrator = Integrator::kImplicitEuler;  // mass-point model
  MassPointMaterial mass_point;
  FemMaterial fem;
  std::vector<int> fixed;  // vertices held where they are
  // Coulomb friction coefficient against rigid shapes (combined with a shape's as the
  // geometric mean, as two rigid bodies' are).
  double friction = 0.5;
  // Its layers and mask, against rigid shapes, rods, other soft bodies and queries (never
  // a sensor).
  CollisionFilter collision;
  // Set when scalpels may cut the body (any model): the tissue's side of the
  // cutting criteria (toughness, damage, neighbourhood); a tool's sharpness overrides kappa.
  std::optional<CuttingParams> cutting;
};

}  // namespace ligature
