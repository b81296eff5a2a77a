#pragma once
// A constraint on a soft body's vertices, as clients describe it.

#include <string>
#include <vector>

#include "server/constraint/soft/local_constraints.h"
#include "server/math/types.h"

namespace ligature {

// A Gissler constraint on a mass-point soft body's vertices. kNail: vertices[0] to `goal`
// (world, or in follow_body's frame when that is set); kPointsToPoint: all `vertices`
// together; kPointToLine / Triangle / Tetrahedron: vertices[0] onto the element spanned
// by the others (2, 3 or 4 of them); kPointToSurface: vertices[0] onto the body's own
// boundary surface.
struct SoftConstraintDesc {
  std::string id;
  LocalConstraintType type = LocalConstraintType::kNail;
  std::string body;
  std::vector<int> vertices;
  Vec3 goal = Vec3::Zero();
  std::string follow_body;
  int self_assembly_steps = 0;  // ramp the force over this many steps (0: at once)
};

}  // namespace ligature
