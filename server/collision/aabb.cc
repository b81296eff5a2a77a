#include "server/collision/aabb.h"

#include <limits>

namespace ligature {

Aabb ComputeAabb(const Shape& shape, const Transform& pose, double margin) {
  Vec3 extent = Vec3::Zero();
  switch (shape.type) {
    // A sphere is the same size along every axis.
    case ShapeType::kSphere:
      extent.setConstant(shape.radius);
      break;
    // A rotated box reaches |R| * half_extents along each world axis.
    case ShapeType::kBox:
      extent = pose.orientation.toRotationMatrix().cwiseAbs() * shape.half_extents;
      break;
    // A capsule is its segment's bounds grown by the radius.
    case ShapeType::kCapsule:
      extent =
          pose.Rotate(Vec3(0.0, shape.half_length, 0.0)).cwiseAbs() + Vec3::Constant(shape.radius);
      break;
    // A plane is infinite: its box is unbounded in every direction.
    case ShapeType::kPlane: {
      const double inf = std::numeric_limits<double>::infinity();
      return {Vec3::Constant(-inf), Vec3::Constant(inf)};
    }
    // A hull: its local box, rotated, about the local box's centre placed in the world.
    case ShapeType::kHull: {
      const ConvexHull& hull = *shape.hull;
      const Vec3 centre = pose.Apply(0.5 * (hull.local_min + hull.local_max));
      const Vec3 half = 0.5 * (hull.local_max - hull.local_min);
      extent = pose.orientation.toRotationMatrix().cwiseAbs() * half;
      extent.array() += margin;
      return {centre - extent, centre + extent};
    }
  }
  extent.array() += margin;
  return {pose.position - extent, pose.position + extent};
}

}  // namespace ligature
