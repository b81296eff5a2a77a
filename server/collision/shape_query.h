#pragma once
// Distance and time of impact between a convex query shape and one placed target, for scene
// queries (overlap, closest point, shape cast). A convex shape is seen as a core (a point, a
// segment or a polytope) grown by a radius, so spheres and capsules are exact. Targets are
// convex cores too (a rod's or strand's segment, a soft body's triangle) or rigid shapes of
// any type: a plane's solid is the half-space behind it, and a mesh's triangles are taken
// one by one (a cast meets only the fronts it moves towards, as a body would; distances and
// overlaps see both sides).

#include <optional>
#include <span>
#include <vector>

#include "server/geometry/aabb.h"
#include "server/geometry/shape.h"
#include "server/math/transform.h"

namespace ligature {

// A convex set: the hull of `points` (world, at least one) grown by `radius`.
struct ConvexCore {
  std::vector<Vec3> points;
  double radius = 0.0;

  Aabb Bounds() const;
};

// The core of a sphere, box, capsule or hull placed at `pose` (not a plane or a mesh).
ConvexCore CoreOf(const Shape& shape, const Transform& pose);

struct ShapeDistanceResult {
  bool overlapping = false;       // the two touch or overlap
  double distance = 0.0;          // m, >= 0; 0 when overlapping
  Vec3 on_target = Vec3::Zero();  // nearest point of the target (when apart)
  Vec3 on_query = Vec3::Zero();   // nearest point of the query shape (when apart)
  Vec3 normal = Vec3::UnitY();    // unit, out of the target towards the query
  int triangle = -1;              // a mesh's nearest triangle
};

// Distance from `query` to a target core, or to `target` placed at `pose`, when it is at
// most `max_distance` (m); none beyond.
std::optional<ShapeDistanceResult> CoreDistance(const ConvexCore& query, const ConvexCore& target,
                                                double max_distance);
std::optional<ShapeDistanceResult> ShapeDistance(const ConvexCore& query, const Shape& target,
                                                 const Transform& pose, double max_distance);

struct ShapeCastHit {
  double distance = 0.0;        // m travelled along the unit direction before touching
  Vec3 point = Vec3::Zero();    // m, world: where they touch
  Vec3 normal = Vec3::UnitY();  // unit, out of the target; against the motion at 0
  int triangle = -1;            // a mesh's triangle hit
};

// `query` moved along the unit `direction`: the first touch within `max_distance` (m) of a
// target core, or of `target` at `pose`. Starting in overlap touches at distance 0.
std::optional<ShapeCastHit> CastCore(const ConvexCore& query, const Vec3& direction,
                                     double max_distance, const ConvexCore& target);
std::optional<ShapeCastHit> CastShape(const ConvexCore& query, const Vec3& direction,
                                      double max_distance, const Shape& target,
                                      const Transform& pose);

}  // namespace ligature
