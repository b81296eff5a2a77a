#pragma once
// Narrowphase: a table of pair functions, one per (shape type, shape type) combination.

#include "server/collision/contact.h"
#include "server/geometry/shape.h"
#include "server/math/transform.h"

namespace ligature {

// Fills `out` with the contact points between `a` at `pa` and `b` at `pb` whose signed
// distance is below `margin` (m). Normals point from A to B whatever the argument order.
// Plane-plane yields nothing. Returns the number of points written.
int Collide(const Shape& a, const Transform& pa, const Shape& b, const Transform& pb,
            double margin, ContactManifold* out);

}  // namespace ligature
