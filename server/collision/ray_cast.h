#pragma once
// Ray casts against one rigid shape placed in the world: where a ray first enters the
// shape's solid (a plane's solid is the half-space behind it) or, for a mesh, first meets a
// triangle's front (triangles collide on their front, so a ray from behind passes through,
// as a body does). A ray that starts inside a solid hits it at distance 0, with the normal
// against its direction. The answers are exact up to rounding.

#include <optional>

#include "server/geometry/shape.h"
#include "server/math/transform.h"

namespace ligature {

struct RayHit {
  double distance = 0.0;        // m along the unit direction, in [0, max_distance]
  Vec3 point = Vec3::Zero();    // m, world
  Vec3 normal = Vec3::UnitY();  // world, unit, out of the surface at the hit
  int triangle = -1;            // a mesh's triangle hit; -1 for other shapes
};

// The first hit of the ray from `origin` along the unit `direction` within `max_distance`
// on `shape` placed at `pose`, or none.
std::optional<RayHit> CastRay(const Shape& shape, const Transform& pose, const Vec3& origin,
                              const Vec3& direction, double max_distance);

// The front of triangle (a, b, c), counter-clockwise seen from its front, met by the ray
// within `max_distance`; a ray from behind or along its plane passes. Triangle is -1.
std::optional<RayHit> CastRayTriangle(const Vec3& a, const Vec3& b, const Vec3& c,
                                      const Vec3& origin, const Vec3& direction,
                                      double max_distance);

}  // namespace ligature
