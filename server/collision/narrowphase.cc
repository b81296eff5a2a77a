#include "server/collision/narrowphase.h"

#include "server/collision/pairs/pair_functions.h"

namespace ligature {
namespace {

// A table entry: the pair function and whether it takes the shapes in swapped order.
struct PairEntry {
  PairFunction fn;
  bool swapped;
};

// Indexed [type of a][type of b]. Each pair has one function written for one order: the
// lower type first, except hull-plane and mesh-plane, written with the plane second (the
// plane is always `b`). The mirrored cell calls it with the arguments swapped. Meshes meet
// planes and meshes never (both are fixed).
constexpr PairEntry kPairTable[kShapeTypeCount][kShapeTypeCount] = {
    // a = sphere
    {{CollideSphereSphere, false},
     {CollideSphereBox, false},
     {CollideSphereCapsule, false},
     {CollideSpherePlane, false},
     {CollideSphereHull, false},
     {CollideSphereMesh, false}},
    // a = box
    {{CollideSphereBox, true},
     {CollideBoxBox, false},
     {CollideBoxCapsule, false},
     {CollideBoxPlane, false},
     {CollideBoxHull, false},
     {CollideBoxMesh, false}},
    // a = capsule
    {{CollideSphereCapsule, true},
     {CollideBoxCapsule, true},
     {CollideCapsuleCapsule, false},
     {CollideCapsulePlane, false},
     {CollideCapsuleHull, false},
     {CollideCapsuleMesh, false}},
    // a = plane
    {{CollideSpherePlane, true},
     {CollideBoxPlane, true},
     {CollideCapsulePlane, true},
     {CollideFixedShapes, false},
     {CollideHullPlane, true},
     {CollideFixedShapes, false}},
    // a = hull
    {{CollideSphereHull, true},
     {CollideBoxHull, true},
     {CollideCapsuleHull, true},
     {CollideHullPlane, false},
     {CollideHullHull, false},
     {CollideHullMesh, false}},
    // a = mesh
    {{CollideSphereMesh, true},
     {CollideBoxMesh, true},
     {CollideCapsuleMesh, true},
     {CollideFixedShapes, false},
     {CollideHullMesh, true},
     {CollideFixedShapes, false}},
};

}  // namespace

int Collide(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb, double margin,
            ContactManifold* out) {
  out->count = 0;
  const int ia = static_cast<int>(a.type);
  const int ib = static_cast<int>(b.type);
  if (ia < 0 || ia >= kShapeTypeCount || ib < 0 || ib >= kShapeTypeCount) return 0;
  const PairEntry& entry = kPairTable[ia][ib];
  if (!entry.swapped) return entry.fn(a, pa, b, pb, margin, out);

  // Swapped call: normals come back from B to A, so flip them to point from A to B.
  const int count = entry.fn(b, pb, a, pa, margin, out);
  for (int i = 0; i < count; ++i) out->points[i].normal = -out->points[i].normal;
  return count;
}

}  // namespace ligature
