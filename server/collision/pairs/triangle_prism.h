#pragma once
// One triangle of a mesh as a convex hull, so that every shape meets a mesh's triangles
// through the hull pair functions: a prism whose front face is the triangle itself and
// whose body extends `depth` behind it. The prism's frame is the mesh's, moved to the triangle's centroid, so its
// bounding radius is the triangle's own.

#include "server/geometry/convex_hull.h"
#include "server/geometry/triangle_mesh.h"

namespace ligature {

// Writes triangle `t` of `mesh` as a prism into `out` (its vectors are reused, so a warm
// `out` does not allocate): the front face (face 0) faces along `front` (the triangle's
// normal or its opposite), the back face (face 1) lies `depth` (> 0) behind it, and faces
// 2 + k are the sides along edge k. Its vertices are relative to the triangle's centroid,
// which is returned (mesh frame).
Vec3 PlaceTrianglePrism(const TriangleMesh& mesh, int t, const Vec3& front, double depth,
                        ConvexHull* out);

}  // namespace ligature
