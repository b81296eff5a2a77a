#pragma once
// One function per pair of shape types, in canonical order (lower ShapeType first, except
// that the plane is always `b`, so hull-plane takes the hull first and mesh-plane the mesh). Each clears `out`,
// writes the points whose signed distance is below `margin`, with normals pointing from `a`
// to `b`, and returns how many it wrote.

#include "server/collision/contact.h"
#include "server/geometry/shape.h"
#include "server/math/transform.h"

namespace ligature {

using PairFunction = int (*)(const Shape& a, const Transform& pa, const Shape& b,
                             const Transform& pb, double margin, ContactManifold* out);

// sphere_pairs.cc
int CollideSphereSphere(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                        double margin, ContactManifold* out);
int CollideSphereBox(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                     double margin, ContactManifold* out);
int CollideSphereCapsule(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                         double margin, ContactManifold* out);

// box_box.cc
int CollideBoxBox(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                  double margin, ContactManifold* out);

// box_capsule.cc
int CollideBoxCapsule(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                      double margin, ContactManifold* out);

// capsule_pairs.cc
int CollideCapsuleCapsule(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                          double margin, ContactManifold* out);

// plane_pairs.cc (the plane is always `b`)
int CollideSpherePlane(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                       double margin, ContactManifold* out);
int CollideBoxPlane(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                    double margin, ContactManifold* out);
int CollideCapsulePlane(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                        double margin, ContactManifold* out);
// Two fixed shapes: plane against plane, and a mesh against a plane or a mesh.
int CollideFixedShapes(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                       double margin, ContactManifold* out);

// hull_pairs.cc (the hull is `b`, except against the plane, which is always `b`)
int CollideSphereHull(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                      double margin, ContactManifold* out);
int CollideBoxHull(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                   double margin, ContactManifold* out);
int CollideCapsuleHull(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                       double margin, ContactManifold* out);
int CollideHullHull(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                    double margin, ContactManifold* out);
int CollideHullPlane(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                     double margin, ContactManifold* out);

// mesh_pairs.cc (the mesh is `b`)
int CollideSphereMesh(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                      double margin, ContactManifold* out);
int CollideBoxMesh(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                   double margin, ContactManifold* out);
int CollideCapsuleMesh(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                       double margin, ContactManifold* out);
int CollideHullMesh(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
                    double margin, ContactManifold* out);

}  // namespace ligature
