#include "server/world/soft/soft_surface_query.h"

#include <algorithm>
#include <limits>

#include "server/geometry/triangle_point.h"

namespace ligature {

SweptBoundary Sweep(const SoftWorld::Body& body, double grow) {
  constexpr double kInf = std::numeric_limits<double>::infinity();
  SweptBoundary s{{Vec3::Constant(kInf), Vec3::Constant(-kInf)}, 0.0};
  const std::vector<Vec3>& x = body.positions();
  for (const int v : body.surface_vertices) {
    s.bounds.min = s.bounds.min.cwiseMin(body.start[v]).cwiseMin(x[v]);
    s.bounds.max = s.bounds.max.cwiseMax(body.start[v]).cwiseMax(x[v]);
    s.reach = std::max(s.reach, (x[v] - body.start[v]).norm());
  }
  s.bounds.min.array() -= grow;
  s.bounds.max.array() += grow;
  return s;
}

bool Contains(const Aabb& box, const Vec3& p) {
  return (box.min.array() <= p.array()).all() && (p.array() <= box.max.array()).all();
}

std::optional<SurfaceHit> NearestSurfacePoint(const SoftWorld::Body& body, const TriangleGrid& grid,
                                              const Vec3& p, double reach) {
  const std::vector<Vec3>& x = body.start;
  std::optional<SurfaceHit> best;
  double best_d2 = reach * reach;
  for (const int t : grid.Near(p)) {
    const std::array<int, 3>& tri = body.surface.triangles[t];
    const Vec3 w = ClosestPointBarycentric(p, x[tri[0]], x[tri[1]], x[tri[2]]);
    const Vec3 q = w.x() * x[tri[0]] + w.y() * x[tri[1]] + w.z() * x[tri[2]];
    const double d2 = (p - q).squaredNorm();
    if (d2 > best_d2) continue;
    const Vec3 n = (x[tri[1]] - x[tri[0]]).cross(x[tri[2]] - x[tri[0]]);
    if (!(n.squaredNorm() > 0.0)) continue;
    best_d2 = d2;
    best = SurfaceHit{t, w, q, n.normalized()};
  }
  return best;
}

SoftWorld::WeightedPoint HitPoint(const SoftWorld::Body& body, const SurfaceHit& hit) {
  SoftWorld::WeightedPoint at{body.surface.triangles[hit.triangle], hit.barycentric};
  for (int i = 0; i < 3; ++i) {
    if (body.held(at.vertex[i])) at.weight[i] = 0.0;
  }
  return at;
}

}  // namespace ligature
