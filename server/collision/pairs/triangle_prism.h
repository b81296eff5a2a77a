#pragma once
// One triangle of a mesh as a convex hull, so that every shape meets a mesh's triangles
// through the hull pair functions: a prism whose front face is the triangle itself and
// whose body extends behind it (so a shape sunk into the front is pushed back out). The
// prism's frame is the mesh's, moved to the triangle's centroid, so its bounding radius is
// the triangle's own.

#include "server/geometry/convex_hull.h"
#include "server/geometry/triangle_mesh.h"

namespace ligature {

// Writes triangle `t` of `mesh` as a prism into `out` (its vectors are reused, so a warm
// `out` does not allocate): the front face (face 0) is the triangle, facing along its
// normal; the back face (face 1) lies as far behind it as the triangle's longest edge; faces
// 2 + k are the sides along edge k. Its vertices are relative to the triangle's centroid,
// which is returned (mesh frame).
Vec3 PlaceTrianglePrism(const TriangleMesh& mesh, int t, ConvexHull* out);

}  // namespace ligature
