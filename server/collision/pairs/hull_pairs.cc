// Convex hulls against every shape type. Sphere and capsule are worked out in the hull's
// frame (the exact nearest surface point; GJK for the capsule's segment); box and hull go
// through the polytope contact code; the plane takes the supporting face's vertices.

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "server/collision/pairs/contact_reduction.h"
#include "server/collision/pairs/geometry.h"
#include "server/collision/pairs/gjk.h"
#include "server/collision/pairs/pair_functions.h"
#include "server/collision/pairs/polytope.h"
#include "server/collision/pairs/polytope_contact.h"
#include "server/geometry/convex_hull.h"

namespace ligature {
namespace {

// A closest direction counts as a face normal when its cosine with it is above this.
constexpr double kFaceAlignment = 1.0 - 1e-9;
// Clipped segments shorter than this (m) give a single point.
constexpr double kMinClipLength = 1e-9;

// Bounding spheres (centres, radii) apart by the margin or more: nothing to find, and no
// need to place the polytopes.
bool SpheresApart(const Vec3& ca, double ra, const Vec3& cb, double rb, double margin) {
  return !((cb - ca).norm() - ra - rb < margin);
}

bool Usable(const Shape& hull_shape) {
  return hull_shape.hull != nullptr && !hull_shape.hull->vertices.empty() &&
         !hull_shape.hull->faces.empty();
}

// The capsule's segment in the hull frame, and its radius.
struct LocalCapsule {
  Vec3 s0;
  Vec3 s1;
  double radius;
};

// Adds a point given in the hull frame: capsule surface point, hull surface point, normal
// from the capsule to the hull.
void AddLocal(const Transform& hull_pose, const Vec3& on_capsule, const Vec3& on_hull,
              const Vec3& n_local, double distance, ContactManifold* out) {
  out->Add(MakeContact(hull_pose.Apply(on_capsule), hull_pose.Apply(on_hull),
                       hull_pose.Rotate(n_local), distance));
}

// Face contact of the capsule on face `face`: the segment clipped to the face's side
// planes, one point at each end of what is left, each measured straight out of the face.
// Returns false if nothing is left after clipping.
bool CapsuleFaceContact(const LocalCapsule& cap, const ConvexHull& hull, int face,
                        const Transform& hull_pose, double margin, ContactManifold* out) {
  const ConvexHull::Face& f = hull.faces[face];
  const Vec3 d = cap.s1 - cap.s0;
  double t0 = 0.0;
  double t1 = 1.0;
  for (int i = 0; i < f.count; ++i) {
    const Vec3& u = hull.FaceVertex(f, i);
    const Vec3& v = hull.FaceVertex(f, (i + 1) % f.count);
    const Vec3 side = (v - u).cross(f.normal);
    const double f0 = side.dot(cap.s0 - u);
    const double f1 = side.dot(cap.s1 - u);
    if (f0 > 0.0 && f1 > 0.0) return false;
    if (f0 > 0.0) {
      t0 = std::max(t0, f0 / (f0 - f1));
    } else if (f1 > 0.0) {
      t1 = std::min(t1, f0 / (f0 - f1));
    }
    if (t0 > t1) return false;
  }
  const Vec3 n_local = -f.normal;
  const bool single = (t1 - t0) * d.norm() < kMinClipLength;
  for (double t : {t0, t1}) {
    const Vec3 e = cap.s0 + t * d;
    const double height = f.normal.dot(e) - f.offset;
    const double distance = height - cap.radius;
    if (distance < margin) {
      AddLocal(hull_pose, e + cap.radius * n_local, e - height * f.normal, n_local, distance, out);
    }
    if (single) break;
  }
  return true;
}

// The segment touches or pierces the hull: separating axes over the hull's faces and the
// crosses of the segment with the hull's edges (the face normals of their Minkowski
// difference), then a face contact or one point between the segment and the chosen edge.
// `face`, `face_separation`: the hull face the segment lies farthest beyond.
void DeepCapsuleContact(const LocalCapsule& cap, const ConvexHull& hull, int face,
                        double face_separation, const Transform& hull_pose, double margin,
                        ContactManifold* out) {
  // Edge axes: m = +-(d x edge) counts when it lies between the edge's two face normals (on
  // its Gauss-map arc), where the edge supports the hull; the segment, whose Gauss map is the
  // whole circle normal to d, supports any such m. The separation along m is then exact:
  // the segment's lowest projection minus the edge's. The normal from capsule to hull is -m.
  const Vec3 d = cap.s1 - cap.s0;
  const double d2 = d.squaredNorm();
  double edge_separation = -std::numeric_limits<double>::infinity();
  int edge = -1;
  Vec3 edge_normal = Vec3::UnitY();
  for (int i = 0;
       d2 > kGeometryEpsilon * kGeometryEpsilon && i < static_cast<int>(hull.edges.size()); ++i) {
    const ConvexHull::Edge& e = hull.edges[i];
    assert(e.face_left >= 0 && e.face_right >= 0);
    const Vec3& base = hull.vertices[e.a];
    const Vec3 de = hull.vertices[e.b] - base;
    Vec3 u = d.cross(de);
    const double len2 = u.squaredNorm();
    if (len2 <= kMinEdgeAxisSine * kMinEdgeAxisSine * d2 * de.squaredNorm()) continue;
    u /= std::sqrt(len2);
    const Vec3& nl = hull.faces[e.face_left].normal;
    const Vec3& nr = hull.faces[e.face_right].normal;
    const Vec3 arc = nl.cross(nr);
    for (const Vec3& m : {u, Vec3(-u)}) {
      if (nl.cross(m).dot(arc) < 0.0 || m.cross(nr).dot(arc) < 0.0) continue;
      const double separation = std::min(m.dot(cap.s0), m.dot(cap.s1)) - m.dot(base);
      if (separation > edge_separation) {
        edge_separation = separation;
        edge = i;
        edge_normal = -m;
      }
    }
  }

  const bool use_edge =
      edge >= 0 && edge_separation > face_separation +
                                         kEdgeRelativeTolerance * std::abs(face_separation) +
                                         kAbsoluteTolerance;
  if (!use_edge) {
    // Face axis: clip against the face; should clipping leave nothing (rounding only), use
    // the end of the segment deepest below the face.
    if (CapsuleFaceContact(cap, hull, face, hull_pose, margin, out)) return;
    const double distance = face_separation - cap.radius;
    if (!(distance < margin)) return;
    const ConvexHull::Face& f = hull.faces[face];
    const Vec3 deep = f.normal.dot(cap.s0) <= f.normal.dot(cap.s1) ? cap.s0 : cap.s1;
    const double height = f.normal.dot(deep) - f.offset;
    AddLocal(hull_pose, deep - cap.radius * f.normal, deep - height * f.normal, -f.normal, distance,
             out);
    return;
  }

  // Edge axis: one point between the segment and the hull edge.
  const double distance = edge_separation - cap.radius;
  if (!(distance < margin)) return;
  const ConvexHull::Edge& e = hull.edges[edge];
  const SegmentClosestPoints c =
      ClosestPointsBetweenSegments(cap.s0, cap.s1, hull.vertices[e.a], hull.vertices[e.b]);
  AddLocal(hull_pose, c.on_first + cap.radius * edge_normal, c.on_second, edge_normal, distance,
           out);
}

// Per-thread buffers for the placed polytopes and the plane candidates.
struct Buffers {
  PolytopeBuffer a;
  PolytopeBuffer b;
  std::vector<ContactPoint> candidates;
};
Buffers& ThreadBuffers() {
  thread_local Buffers buffers;
  return buffers;
}

}  // namespace

// Sphere (A) against hull (B) in the hull frame, from the exact nearest surface point of
// the centre: outside, the normal runs from the centre to that point; inside (or on the
// surface), the sphere leaves through the face of least penetration.
int CollideSphereHull(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                      double margin, ContactManifold* out) {
  out->count = 0;
  if (!Usable(b)) return 0;
  const HullSurfacePoint s = NearestSurfacePoint(*b.hull, pb.InverseApply(pa.position));
  const double distance = s.distance - a.radius;
  if (!(distance < margin)) return 0;
  // s.normal points out of the hull towards the centre (the face normal when inside).
  const Vec3 n = -pb.Rotate(s.normal);
  out->Add(MakeContact(pa.position + a.radius * n, pb.Apply(s.point), n, distance));
  return out->count;
}

// Box (A) against hull (B): both as placed polytopes.
int CollideBoxHull(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                   double margin, ContactManifold* out) {
  out->count = 0;
  if (!Usable(b)) return 0;
  if (SpheresApart(pa.position, a.half_extents.norm(), pb.position, b.hull->bounding_radius,
                   margin)) {
    return 0;
  }
  Buffers& buffers = ThreadBuffers();
  const Polytope box = PlaceBox(a.half_extents, pa, &buffers.a);
  const Polytope hull = PlaceHull(*b.hull, pb, &buffers.b);
  return CollidePolytopes(box, hull, margin, out);
}

// Capsule (A) against hull (B) in the hull frame. Segment apart from the hull: GJK gives the
// closest points; when the closest hull feature is a face the capsule gets a point at each
// end of its segment above that face (so it lies stably), else one point. Segment touching
// or inside: separating axes.
int CollideCapsuleHull(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                       double margin, ContactManifold* out) {
  out->count = 0;
  if (!Usable(b)) return 0;
  const ConvexHull& hull = *b.hull;
  Vec3 w0;
  Vec3 w1;
  CapsuleSegment(a, pa, &w0, &w1);
  const LocalCapsule cap{pb.InverseApply(w0), pb.InverseApply(w1), a.radius};

  // The face plane the segment lies farthest beyond bounds the gap from below.
  int face = 0;
  double face_separation = -std::numeric_limits<double>::infinity();
  for (int f = 0; f < static_cast<int>(hull.faces.size()); ++f) {
    const Vec3& n = hull.faces[f].normal;
    const double s = std::min(n.dot(cap.s0), n.dot(cap.s1)) - hull.faces[f].offset;
    if (s > face_separation) {
      face_separation = s;
      face = f;
    }
  }
  if (!(face_separation - cap.radius < margin)) return 0;

  const std::array<Vec3, 2> segment = {cap.s0, cap.s1};
  const GjkResult g = GjkDistance(PointSetSupport(segment), PointSetSupport(hull.vertices));
  if (g.intersecting || !(g.distance > kGeometryEpsilon)) {
    DeepCapsuleContact(cap, hull, face, face_separation, pb, margin, out);
    return out->count;
  }
  const double distance = g.distance - cap.radius;
  if (!(distance < margin)) return 0;
  const Vec3 n_local = (g.on_b - g.on_a) / g.distance;

  // Closest hull feature on a face (its normal opposes the direction): clip to that face.
  int aligned = -1;
  double best_alignment = kFaceAlignment;
  for (int f = 0; f < static_cast<int>(hull.faces.size()); ++f) {
    const double alignment = -hull.faces[f].normal.dot(n_local);
    if (alignment > best_alignment) {
      best_alignment = alignment;
      aligned = f;
    }
  }
  if (aligned >= 0 && CapsuleFaceContact(cap, hull, aligned, pb, margin, out) && out->count > 0) {
    return out->count;
  }
  out->count = 0;
  AddLocal(pb, g.on_a + cap.radius * n_local, g.on_b, n_local, distance, out);
  return out->count;
}

// Hull (A) against hull (B): both as placed polytopes.
int CollideHullHull(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                    double margin, ContactManifold* out) {
  out->count = 0;
  if (!Usable(a) || !Usable(b)) return 0;
  if (SpheresApart(pa.position, a.hull->bounding_radius, pb.position, b.hull->bounding_radius,
                   margin)) {
    return 0;
  }
  Buffers& buffers = ThreadBuffers();
  const Polytope hull_a = PlaceHull(*a.hull, pa, &buffers.a);
  const Polytope hull_b = PlaceHull(*b.hull, pb, &buffers.b);
  return CollidePolytopes(hull_a, hull_b, margin, out);
}

// Hull (A) against a static plane (B): the hull's face turned most towards the plane among
// those at its deepest vertex supports it, as a box's bottom face does; that face's
// vertices below the margin, reduced to four spread-out points. Vertices of other faces
// are left out, so that a thin hull resting on a face does not take its top face's
// vertices, within the margin too, into the manifold in place of bottom ones.
int CollideHullPlane(const Shape& a, const Transform& pa, const Shape& /*b*/, const Transform& pb,
                     double margin, ContactManifold* out) {
  out->count = 0;
  if (!Usable(a)) return 0;
  const ConvexHull& hull = *a.hull;
  const Vec3 up = pb.Rotate(Vec3::UnitY());
  if (!(up.dot(pa.position - pb.position) - hull.bounding_radius < margin)) return 0;
  const Vec3 down_local = pa.InverseRotate(-up);
  const int deepest = SupportIndexOf(hull.vertices, down_local);
  const ConvexHull::Face* support = nullptr;
  double best = -std::numeric_limits<double>::infinity();
  for (const ConvexHull::Face& face : hull.faces) {
    const double facing = face.normal.dot(down_local);
    if (facing <= best) continue;
    for (int i = 0; i < face.count; ++i) {
      if (hull.face_vertices[face.first + i] == deepest) {
        best = facing;
        support = &face;
        break;
      }
    }
  }
  assert(support != nullptr);
  const Mat3 r = pa.orientation.toRotationMatrix();
  std::vector<ContactPoint>& candidates = ThreadBuffers().candidates;
  candidates.clear();
  for (int i = 0; i < support->count; ++i) {
    const Vec3 v = pa.position + r * hull.FaceVertex(*support, i);
    const double h = up.dot(v - pb.position);
    if (h < margin) candidates.push_back(MakeContact(v, v - h * up, -up, h));
  }
  ReduceContacts(std::span<const ContactPoint>(candidates.data(), candidates.size()), -up, out);
  return out->count;
}

}  // namespace ligature
