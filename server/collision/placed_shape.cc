#include "server/collision/placed_shape.h"

#include "server/collision/aabb.h"

namespace ligature {
namespace {

// Relative and absolute size of the culling slack: a hundred-thousandth of the shape's
// bounding radius plus 10 um, ten times the largest narrowphase tolerance and far above
// rounding, yet small against any margin, so that it almost never keeps a pair.
constexpr double kSlackPerSize = 1e-5;

// Radius of a sphere about the shape's origin holding the shape.
double BoundingRadius(const Shape& shape) {
  switch (shape.type) {
    case ShapeType::kSphere:
      return shape.radius;
    case ShapeType::kBox:
      return shape.half_extents.norm();
    case ShapeType::kCapsule:
      return shape.half_length + shape.radius;
    case ShapeType::kPlane:
      return 0.0;
    case ShapeType::kHull:
      return shape.hull->bounding_radius;
    case ShapeType::kMesh:
      return shape.mesh->local_min.cwiseAbs().cwiseMax(shape.mesh->local_max.cwiseAbs()).norm();
  }
  return 0.0;
}

}  // namespace

PlacedShape PlaceShape(const ChildShape& child, const Transform& body_pose, double grow) {
  PlacedShape placed;
  placed.pose = body_pose * child.local;
  placed.bounds = ComputeAabb(child.shape, placed.pose, grow);
  placed.slack = kSlackPerSize * (1.0 + BoundingRadius(child.shape));
  return placed;
}

}  // namespace ligature
