#pragma once
// Collision shapes in their body's local frame. The world is Y-up: a plane is the local
// XZ plane through the body origin with outward normal local +Y; a capsule's segment runs
// along local Y from -half_length to +half_length. A hull is a convex polyhedron, and a mesh
// a surface of triangles (for static and kinematic bodies), each shared, constant, by every
// shape that uses it; either may come from a mesh asset.

#include <cstdint>
#include <memory>
#include <optional>

#include "server/geometry/collision_filter.h"
#include "server/geometry/convex_hull.h"
#include "server/geometry/mesh_asset.h"
#include "server/geometry/triangle_mesh.h"
#include "server/math/transform.h"

namespace ligature {

enum class ShapeType : uint8_t {
  kSphere = 0,
  kBox = 1,
  kCapsule = 2,
  kPlane = 3,
  kHull = 4,
  kMesh = 5,
};
inline constexpr int kShapeTypeCount = 6;

struct Shape {
  ShapeType type = ShapeType::kSphere;
  double radius = 0.0;                       // sphere, capsule (m)
  Vec3 half_extents = Vec3::Zero();          // box (m)
  double half_length = 0.0;                  // capsule: half the segment length (m)
  std::shared_ptr<const ConvexHull> hull;    // hull
  std::shared_ptr<const TriangleMesh> mesh;  // mesh
  // A hull or mesh made from a stored mesh asset, its vertices scaled per axis: exports give
  // back the reference, snapshots carry the asset.
  std::shared_ptr<const MeshAsset> asset;
  Vec3 asset_scale = Vec3::Ones();

  static Shape Sphere(double r) { Shape s; s.type = ShapeType::kSphere; s.radius = r; return s; }
  static Shape Box(const Vec3& h) { Shape s; s.type = ShapeType::kBox; s.half_extents = h; return s; }
  static Shape Capsule(double r, double half_len) {
    Shape s; s.type = ShapeType::kCapsule; s.radius = r; s.half_length = half_len; return s;
  }
  static Shape Plane() { Shape s; s.type = ShapeType::kPlane; return s; }
  static Shape Hull(std::shared_ptr<const ConvexHull> h) {
    Shape s; s.type = ShapeType::kHull; s.hull = std::move(h); return s;
  }
  static Shape Mesh(std::shared_ptr<const TriangleMesh> m) {
    Shape s; s.type = ShapeType::kMesh; s.mesh = std::move(m); return s;
  }
};

// One shape of a compound body, placed by a pose in the body's frame, with its own
// collision filter or (none) its body's.
struct ChildShape {
  Shape shape;
  Transform local;
  std::optional<CollisionFilter> filter;
};

}  // namespace ligature
