// Shapes against a triangle mesh (the mesh is `b`). The mesh's tree gives the triangles
// near the shape; each meets it as a prism hull (server/collision/pairs/triangle_prism)
// through the hull pair function for the shape's type; triangles collide on their front
// (counter-clockwise seen from it), and a shape sunk in is pushed back out. A contact on an
// inactive seam or corner is dropped when the shape has other points, else measured along
// its own face normal, so a body crossing a flat seam feels no bump; near-duplicate points
// merge, and the rest reduce to four.

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <vector>

#include "server/collision/aabb.h"
#include "server/collision/pairs/contact_reduction.h"
#include "server/collision/pairs/geometry.h"
#include "server/collision/pairs/pair_functions.h"
#include "server/collision/pairs/triangle_prism.h"

namespace ligature {
namespace {

// A contact normal within this cosine of the face normal is a face contact; one whose
// cosine with the front is above kBackwards would push the shape behind the triangle.
constexpr double kFaceCosine = 1.0 - 1e-9;
constexpr double kBackwards = 1e-9;
// Barycentric coordinates below this count as zero: the point lies on an edge or corner.
constexpr double kOnFeature = 1e-6;
// Two points this close (share of the shape's size) with normals this aligned are one.
constexpr double kMergeDistance = 1e-6;
constexpr double kMergeCosine = 1.0 - 1e-9;

// Whether the feature of triangle `t` nearest to `p` (mesh frame, near the triangle) is an
// inactive edge or corner, by the barycentric coordinates of p's projection on the
// triangle's plane: an edge when one is zero, a corner (inactive when both its edges are)
// when two are. A point over the face's inside is on no edge.
bool OnInactiveFeature(const TriangleMesh& mesh, int t, const Vec3& p) {
  const Vec3& a = mesh.Corner(t, 0);
  const Vec3 e1 = mesh.Corner(t, 1) - a, e2 = mesh.Corner(t, 2) - a, d = p - a;
  const double d11 = e1.dot(e1), d12 = e1.dot(e2), d22 = e2.dot(e2);
  const double d1 = d.dot(e1), d2 = d.dot(e2);
  const double det = d11 * d22 - d12 * d12;
  const double w1 = (d22 * d1 - d12 * d2) / det;
  const double w2 = (d11 * d2 - d12 * d1) / det;
  const double w[3] = {1.0 - w1 - w2, w1, w2};
  const uint8_t active = mesh.active_edges[t];
  int small = -1;
  int count = 0;
  for (int k = 0; k < 3; ++k) {
    if (w[k] < kOnFeature) {
      ++count;
      small = k;
    }
  }
  if (count == 0) return false;
  // Edge k runs from corner k to corner k + 1, opposite corner k + 2.
  if (count == 1) return ((active >> ((small + 1) % 3)) & 1u) == 0;
  // A corner (the largest coordinate), with edges corner and corner + 2.
  int corner = 0;
  for (int k = 1; k < 3; ++k) {
    if (w[k] > w[corner]) corner = k;
  }
  return ((active >> corner) & 1u) == 0 && ((active >> ((corner + 2) % 3)) & 1u) == 0;
}

// A contact point of one triangle, with the triangle and whether it lies on an inactive
// edge or corner of it with a normal that is not the face's.
struct RawContact {
  ContactPoint point;
  int triangle = 0;
  bool on_seam = false;
};

// Per-thread scratch: the prism (seen as a hull shape that does not own it), the triangles
// found and the points. Reused, so a warm call does not allocate.
struct MeshScratch {
  ConvexHull prism;
  Shape prism_shape =
      Shape::Hull(std::shared_ptr<const ConvexHull>(std::shared_ptr<const ConvexHull>(), &prism));
  std::vector<int> triangles;
  std::vector<RawContact> raw;
  std::vector<ContactPoint> candidates;
};
MeshScratch& ThreadMeshScratch() {
  thread_local MeshScratch scratch;
  return scratch;
}

// The point of shape `s` at `pose` farthest along the unit direction `d` (world).
Vec3 SupportPoint(const Shape& s, const Transform& pose, const Vec3& d) {
  const Vec3 local = pose.InverseRotate(d);
  switch (s.type) {
    case ShapeType::kSphere:
      return pose.position + s.radius * d;
    case ShapeType::kCapsule:
      return pose.Apply(Vec3(0.0, local.y() >= 0.0 ? s.half_length : -s.half_length, 0.0)) +
             s.radius * d;
    case ShapeType::kBox:
      return pose.Apply(Vec3(local.x() >= 0.0 ? s.half_extents.x() : -s.half_extents.x(),
                             local.y() >= 0.0 ? s.half_extents.y() : -s.half_extents.y(),
                             local.z() >= 0.0 ? s.half_extents.z() : -s.half_extents.z()));
    case ShapeType::kHull:
      return pose.Apply(s.hull->vertices[SupportIndexOf(s.hull->vertices, local)]);
    case ShapeType::kPlane:
    case ShapeType::kMesh:
      break;  // never meet a mesh here
  }
  return pose.position;
}

// A point of shape `a` on an inactive seam of triangle `t`, with nothing else to hold the
// shape: one point at the shape's deepest towards the triangle's front, measured straight
// out of it. Returns false when that is beyond the margin.
bool MeasureFromFace(const Shape& a, const Transform& pa, const TriangleMesh& mesh, int t,
                     const Transform& mesh_pose, double margin, ContactPoint* p) {
  const Vec3 front_world = mesh_pose.Rotate(mesh.normals[t]);
  const Vec3 on_shape = SupportPoint(a, pa, -front_world);
  const double distance = (on_shape - mesh_pose.Apply(mesh.Corner(t, 0))).dot(front_world);
  if (!(distance < margin)) return false;
  *p = MakeContact(on_shape, on_shape - distance * front_world, -front_world, distance);
  return true;
}

// Adds `p` to `points` unless a point there is the same (close, same normal); of two the
// same, the deeper stays.
void AddMerged(const ContactPoint& p, double merge_distance, std::vector<ContactPoint>* points) {
  for (ContactPoint& q : *points) {
    if ((q.position - p.position).norm() <= merge_distance &&
        q.normal.dot(p.normal) >= kMergeCosine) {
      if (p.distance < q.distance) q = p;
      return;
    }
  }
  points->push_back(p);
}

// The shape `a` against the mesh `b`, each nearby triangle through `with_hull`.
int CollideShapeMesh(PairFunction with_hull, const Shape& a, const Transform& pa, const Shape& b,
                     const Transform& pb, double margin, ContactManifold* out) {
  out->count = 0;
  if (b.mesh == nullptr || b.mesh->nodes.empty()) return 0;
  const TriangleMesh& mesh = *b.mesh;
  MeshScratch& scratch = ThreadMeshScratch();

  // The triangles whose bounds meet the shape's, grown by the margin, in the mesh frame.
  const Transform local{pb.InverseApply(pa.position), pb.orientation.conjugate() * pa.orientation};
  const Aabb bounds = ComputeAabb(a, local, std::max(margin, 0.0));
  scratch.triangles.clear();
  mesh.Overlapping(bounds, &scratch.triangles);
  if (scratch.triangles.empty()) return 0;

  // Each triangle as a prism extending behind its front, as deep as the triangle is long: a
  // shape sunk into the front is pushed back out of it, and points that would push a shape
  // backwards (it is behind the triangle) are dropped.
  scratch.raw.clear();
  bool any_face = false;
  ContactManifold m;
  for (const int t : scratch.triangles) {
    const Vec3 at = PlaceTrianglePrism(mesh, t, &scratch.prism);
    with_hull(a, pa, scratch.prism_shape, Transform{pb.Apply(at), pb.orientation}, margin, &m);
    const Vec3 front_world = pb.Rotate(mesh.normals[t]);
    for (int i = 0; i < m.count; ++i) {
      const ContactPoint& p = m.points[i];
      if (p.normal.dot(front_world) > kBackwards) continue;
      const Vec3 on_mesh = p.position + 0.5 * p.distance * p.normal;
      const bool on_seam = -p.normal.dot(front_world) < kFaceCosine &&
                           OnInactiveFeature(mesh, t, pb.InverseApply(on_mesh));
      any_face = any_face || !on_seam;
      scratch.raw.push_back({p, t, on_seam});
    }
  }

  // Points on inactive seams and corners are left out when the shape has other points:
  // those faces and active features hold it, and a seam's normal would only bump it. Alone
  // (a shape sunk past a seam), each becomes its face's point at the shape's deepest.
  const double merge_distance = kMergeDistance * (1.0 + (bounds.max - bounds.min).norm());
  scratch.candidates.clear();
  for (RawContact& raw : scratch.raw) {
    if (raw.on_seam) {
      if (any_face) continue;
      if (!MeasureFromFace(a, pa, mesh, raw.triangle, pb, margin, &raw.point)) continue;
    }
    AddMerged(raw.point, merge_distance, &scratch.candidates);
  }
  if (scratch.candidates.empty()) return 0;

  // At most four: the deepest and those spread out around it.
  ReduceContacts(
      std::span<const ContactPoint>(scratch.candidates.data(), scratch.candidates.size()),
      scratch.candidates.front().normal, out);
  return out->count;
}

}  // namespace

int CollideSphereMesh(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                      double margin, ContactManifold* out) {
  return CollideShapeMesh(CollideSphereHull, a, pa, b, pb, margin, out);
}

int CollideBoxMesh(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                   double margin, ContactManifold* out) {
  return CollideShapeMesh(CollideBoxHull, a, pa, b, pb, margin, out);
}

int CollideCapsuleMesh(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                       double margin, ContactManifold* out) {
  return CollideShapeMesh(CollideCapsuleHull, a, pa, b, pb, margin, out);
}

int CollideHullMesh(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                    double margin, ContactManifold* out) {
  return CollideShapeMesh(CollideHullHull, a, pa, b, pb, margin, out);
}

}  // namespace ligature
