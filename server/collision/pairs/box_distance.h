#pragma once
// Exact closest points of two boxes that do not overlap.

#include "server/geometry/shape.h"
#include "server/math/transform.h"

namespace ligature {

struct BoxClosestPoints {
  double distance = 0.0;
  Vec3 on_a = Vec3::Zero();
  Vec3 on_b = Vec3::Zero();
};

// Closest points of boxes `a` at `pa` and `b` at `pb`, valid when the boxes are disjoint
// (for overlapping boxes the result is meaningless). The closest pair of two disjoint boxes
// always involves a corner of one against the other solid box, or an edge of each, so those
// are all tried.
BoxClosestPoints ClosestPointsOfDisjointBoxes(const Shape& a, const Transform& pa, const Shape& b,
                                              const Transform& pb);

}  // namespace ligature
