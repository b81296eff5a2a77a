#include "server/collision/aabb.h"

#include <limits>

namespace ligature {
namespace {

// The world box of a local box [lo, hi] at `pose`, grown by `margin`.
Aabb RotatedLocalBox(const Vec3& lo, const Vec3& hi, const Transform& pose, double margin) {
  const Vec3 centre = pose.Apply(0.5 * (lo + hi));
  Vec3 extent = pose.orientation.toRotationMatrix().cwiseAbs() * (0.5 * (hi - lo));
  extent.array() += margin;
  return {centre - extent, centre + extent};
}

}  // namespace

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
    // A hull or a mesh: its local box, rotated, about the local box's centre placed in the
    // world.
    case ShapeType::kHull:
      return RotatedLocalBox(shape.hull->local_min, shape.hull->local_max, pose, margin);
    case ShapeType::kMesh:
      return RotatedLocalBox(shape.mesh->local_min, shape.mesh->local_max, pose, margin);
  }
  extent.array() += margin;
  return {pose.position - extent, pose.position + extent};
}

}  // namespace ligature
