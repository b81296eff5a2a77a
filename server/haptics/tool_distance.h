#pragma once
// Signed distance from a point to a tool's surface (spheres, boxes and capsules; planes are
// not tools), with the closest surface point and the outward normal there: what the haptic
// solve needs to meet soft-body vertices.

#include <span>

#include "server/geometry/shape.h"
#include "server/math/transform.h"

namespace ligature::haptics {

struct SurfaceQuery {
  double distance = 0.0;         // m, > 0 outside, < 0 inside
  Vec3 surface = Vec3::Zero();   // m, world: closest point on the surface
  Vec3 normal = Vec3::UnitY();   // unit, world: outward at `surface`
};

// The closest of the tool's shapes (placed in the tool's centre-of-mass frame, which is at
// `pose`) to `point`. An empty shape list gives +infinity.
SurfaceQuery ToolDistance(std::span<const ChildShape> shapes, const Transform& pose,
                          const Vec3& point);

}  // namespace ligature::haptics
