#pragma once
// Contact between two convex polytopes placed in world space (boxes and hulls alike).

#include "server/collision/contact.h"
#include "server/collision/pairs/polytope.h"

namespace ligature {

// Clears `out` and writes the contact points of `a` and `b` whose signed distance is below
// `margin` (m), normals from A to B; returns how many. Separating axes over the face
// normals of both and the edge pairs that form faces of their Minkowski difference pick
// the least-penetration (or largest-separation) axis, preferring faces over edges and A's
// faces over B's unless clearly worse. A face axis gives the incident face clipped to the
// reference face's side planes (at most four points, reduced); an edge axis one point
// between the two edges. Apart but within the margin, the gap is the exact distance (GJK
// when the chosen features do not realize the axis' separation).
int CollidePolytopes(const Polytope& a, const Polytope& b, double margin, ContactManifold* out);

}  // namespace ligature
