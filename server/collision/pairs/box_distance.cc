#include "server/collision/pairs/box_distance.h"

#include <array>
#include <cmath>
#include <limits>

#include "server/collision/pairs/geometry.h"

namespace ligature {
namespace {

// A box edge as its two end points.
struct Edge {
  Vec3 from;
  Vec3 to;
};

// The twelve edges of a box: for each axis, the four edges parallel to it.
std::array<Edge, 12> BoxEdges(const Shape& box, const Transform& pose) {
  std::array<Edge, 12> edges;
  int n = 0;
  const Vec3& h = box.half_extents;
  for (int axis = 0; axis < 3; ++axis) {
    const int j = (axis + 1) % 3;
    const int k = (axis + 2) % 3;
    for (double sj : {-1.0, 1.0}) {
      for (double sk : {-1.0, 1.0}) {
        Vec3 local = Vec3::Zero();
        local[j] = sj * h[j];
        local[k] = sk * h[k];
        Vec3 from = local;
        Vec3 to = local;
        from[axis] = -h[axis];
        to[axis] = h[axis];
        edges[n++] = {pose.Apply(from), pose.Apply(to)};
      }
    }
  }
  return edges;
}

// Closest point of the solid box to a world point.
Vec3 ClosestOnBox(const Vec3& p, const Shape& box, const Transform& pose) {
  return pose.Apply(pose.InverseApply(p).cwiseMax(-box.half_extents).cwiseMin(box.half_extents));
}

}  // namespace

BoxClosestPoints ClosestPointsOfDisjointBoxes(const Shape& a, const Transform& pa, const Shape& b,
                                              const Transform& pb) {
  BoxClosestPoints best;
  double best_d2 = std::numeric_limits<double>::infinity();
  auto consider = [&](const Vec3& on_a, const Vec3& on_b) {
    const double d2 = (on_b - on_a).squaredNorm();
    if (d2 < best_d2) {
      best_d2 = d2;
      best.on_a = on_a;
      best.on_b = on_b;
    }
  };

  // Corners of each box against the other solid box.
  for (const Vec3& c : BoxCorners(a, pa)) consider(c, ClosestOnBox(c, b, pb));
  for (const Vec3& c : BoxCorners(b, pb)) consider(ClosestOnBox(c, a, pa), c);

  // Every edge of A against every edge of B.
  const std::array<Edge, 12> edges_a = BoxEdges(a, pa);
  const std::array<Edge, 12> edges_b = BoxEdges(b, pb);
  for (const Edge& ea : edges_a) {
    for (const Edge& eb : edges_b) {
      const SegmentClosestPoints c = ClosestPointsBetweenSegments(ea.from, ea.to, eb.from, eb.to);
      consider(c.on_first, c.on_second);
    }
  }
  best.distance = std::sqrt(best_d2);
  return best;
}

}  // namespace ligature
