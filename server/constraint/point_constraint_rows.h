#pragma once
// Rows of a point (ball-joint) constraint: dimension 3, bilateral, one 3x3 block.

#include "server/constraint/constraint_rows.h"
#include "server/math/transform.h"

namespace ligature {

// One body side of a point constraint evaluated at the free-motion pose: world anchor and
// lever arm. `index` is the dense body index or kWorldBody.
struct PointSide {
  uint32_t index = kWorldBody;
  Vec3 point = Vec3::Zero();  // world anchor after free motion
  Vec3 arm = Vec3::Zero();    // anchor - body origin
};

// delta = p_b - p_a; its rows move with +dq of B and -dq of A along the world axes.
ConstraintBlock MakePointBlock(const PointSide& a, const PointSide& b, const Vec3& warm_force);

}  // namespace ligature
