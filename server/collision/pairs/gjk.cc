// GJK distance: grows a simplex of points of the Minkowski difference A - B towards the
// origin, each step replacing it by the smallest sub-simplex that holds its point closest
// to the origin (by Voronoi-region tests, no linear solve), until no support point comes
// closer. The closest points of A and B are the same barycentric mix of the simplex's
// source points.

#include "server/collision/pairs/gjk.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <cmath>
#include <cstddef>

#include "server/collision/pairs/geometry.h"

namespace ligature {
namespace {

// Enough for any polytope met in practice; GJK on polytopes ends in a few steps.
constexpr int kMaxIterations = 64;
// Progress below this share of |v|^2 ends the search: v is the closest point up to rounding.
constexpr double kRelativeProgress = 1e-12;
// |v| below this share of the largest support point seen counts as touching.
constexpr double kTouchRatio = 1e-10;
// Simplices flatter than this (volume against the product of edge lengths) are treated as
// degenerate: every face is searched instead of trusting the side tests.
constexpr double kFlatRatio = 1e-12;

// A point of A - B with the points of A and B it came from.
struct SimplexVertex {
  Vec3 w = Vec3::Zero();
  Vec3 pa = Vec3::Zero();
  Vec3 pb = Vec3::Zero();
};

// Up to four vertices with the barycentric weights of the simplex's point closest to the
// origin.
struct Simplex {
  std::array<SimplexVertex, 4> v;
  std::array<double, 4> lambda = {1.0, 0.0, 0.0, 0.0};
  int count = 0;

  Vec3 Point() const {
    Vec3 p = Vec3::Zero();
    for (int i = 0; i < count; ++i) p += lambda[i] * v[i].w;
    return p;
  }
};

SimplexVertex SupportVertex(const ConvexSupport& a, const ConvexSupport& b, const Vec3& d) {
  SimplexVertex s;
  s.pa = a.Support(d);
  s.pb = b.Support(-d);
  s.w = s.pa - s.pb;
  return s;
}

Simplex OneVertex(const SimplexVertex& a) {
  Simplex s;
  s.v[0] = a;
  s.lambda = {1.0, 0.0, 0.0, 0.0};
  s.count = 1;
  return s;
}

Simplex TwoVertices(const SimplexVertex& a, const SimplexVertex& b, double t) {
  Simplex s;
  s.v[0] = a;
  s.v[1] = b;
  s.lambda = {1.0 - t, t, 0.0, 0.0};
  s.count = 2;
  return s;
}

// Closest point of segment [a, b] to the origin, as the sub-simplex holding it.
Simplex ClosestOnSegment(const SimplexVertex& a, const SimplexVertex& b) {
  const Vec3 ab = b.w - a.w;
  const double denom = ab.squaredNorm();
  const double t = -a.w.dot(ab);
  if (!(t > 0.0) || !(denom > 0.0)) return OneVertex(a);
  if (t >= denom) return OneVertex(b);
  return TwoVertices(a, b, t / denom);
}

// Closest point of triangle abc to the origin: vertex regions, then edge regions, then the
// inside. A degenerate (collinear) triangle falls back to its closest edge.
Simplex ClosestOnTriangle(const SimplexVertex& a, const SimplexVertex& b, const SimplexVertex& c) {
  const Vec3 ab = b.w - a.w;
  const Vec3 ac = c.w - a.w;
  const double d1 = -ab.dot(a.w);
  const double d2 = -ac.dot(a.w);
  if (d1 <= 0.0 && d2 <= 0.0) return OneVertex(a);
  const double d3 = -ab.dot(b.w);
  const double d4 = -ac.dot(b.w);
  if (d3 >= 0.0 && d4 <= d3) return OneVertex(b);
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0) return TwoVertices(a, b, d1 / (d1 - d3));
  const double d5 = -ab.dot(c.w);
  const double d6 = -ac.dot(c.w);
  if (d6 >= 0.0 && d5 <= d6) return OneVertex(c);
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0) return TwoVertices(a, c, d2 / (d2 - d6));
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0.0 && d4 - d3 >= 0.0 && d5 - d6 >= 0.0) {
    return TwoVertices(b, c, (d4 - d3) / ((d4 - d3) + (d5 - d6)));
  }
  const double sum = va + vb + vc;
  if (!(sum > 0.0) || !std::isfinite(sum)) {
    // Collinear: the best of the three edges.
    Simplex best = ClosestOnSegment(a, b);
    for (const Simplex& s : {ClosestOnSegment(a, c), ClosestOnSegment(b, c)}) {
      if (s.Point().squaredNorm() < best.Point().squaredNorm()) best = s;
    }
    return best;
  }
  Simplex s;
  s.v[0] = a;
  s.v[1] = b;
  s.v[2] = c;
  s.lambda = {va / sum, vb / sum, vc / sum, 0.0};
  s.count = 3;
  return s;
}

// Closest point of tetrahedron abcd to the origin: the best of the faces the origin lies
// outside of. Returns false when the origin is inside (or on) a non-degenerate tetrahedron.
bool ClosestOnTetrahedron(const SimplexVertex& a, const SimplexVertex& b, const SimplexVertex& c,
                          const SimplexVertex& d, Simplex* out) {
  const Vec3 ab = b.w - a.w;
  const Vec3 ac = c.w - a.w;
  const Vec3 ad = d.w - a.w;
  const double volume = ab.cross(ac).dot(ad);
  const bool flat = std::abs(volume) <= kFlatRatio * ab.norm() * ac.norm() * ad.norm();
  // Faces as (three vertices, the opposite one).
  const std::array<std::array<const SimplexVertex*, 4>, 4> faces = {{
      {&a, &b, &c, &d},
      {&a, &c, &d, &b},
      {&a, &d, &b, &c},
      {&b, &d, &c, &a},
  }};
  bool found = false;
  double best_d2 = 0.0;
  for (const auto& f : faces) {
    const Vec3 n = (f[1]->w - f[0]->w).cross(f[2]->w - f[0]->w);
    const double side_origin = -f[0]->w.dot(n);
    const double side_opposite = (f[3]->w - f[0]->w).dot(n);
    if (!flat && !(side_origin * side_opposite < 0.0)) continue;
    const Simplex s = ClosestOnTriangle(*f[0], *f[1], *f[2]);
    const double d2 = s.Point().squaredNorm();
    if (!found || d2 < best_d2) {
      found = true;
      best_d2 = d2;
      *out = s;
    }
  }
  return found;
}

// Replaces `s` by the sub-simplex holding its point closest to the origin. Returns false
// when the origin is enclosed.
bool ReduceToClosest(Simplex* s) {
  switch (s->count) {
    case 1:
      s->lambda = {1.0, 0.0, 0.0, 0.0};
      return true;
    case 2:
      *s = ClosestOnSegment(s->v[0], s->v[1]);
      return true;
    case 3:
      *s = ClosestOnTriangle(s->v[0], s->v[1], s->v[2]);
      return true;
    default: {
      assert(s->count == 4);
      const Simplex whole = *s;  // `s` is overwritten while the faces are searched
      return ClosestOnTetrahedron(whole.v[0], whole.v[1], whole.v[2], whole.v[3], s);
    }
  }
}

}  // namespace

Vec3 PointSetSupport::Support(const Vec3& direction) const {
  assert(!points_.empty());
  return points_[SupportIndexOf(points_, direction)];
}

GjkResult GjkDistance(const ConvexSupport& a, const ConvexSupport& b) {
  GjkResult result;
  Simplex simplex = OneVertex(SupportVertex(a, b, Vec3::UnitX()));
  Vec3 v = simplex.v[0].w;
  double max_w2 = v.squaredNorm();

  for (int iteration = 0; iteration < kMaxIterations; ++iteration) {
    result.iterations = iteration + 1;
    const double vv = v.squaredNorm();
    if (vv <= kTouchRatio * kTouchRatio * max_w2) {
      result.intersecting = true;
      return result;
    }

    // The support point of A - B towards the origin; stop when it is no closer than v
    // (within rounding) or already in the simplex.
    const SimplexVertex w = SupportVertex(a, b, -v);
    max_w2 = std::max(max_w2, w.w.squaredNorm());
    if (vv - v.dot(w.w) <= kRelativeProgress * vv) break;
    bool repeated = false;
    for (int i = 0; i < simplex.count; ++i) repeated = repeated || simplex.v[i].w == w.w;
    if (repeated) break;

    // Add it and keep the sub-simplex nearest the origin; a step that does not bring v closer
    // (rounding) ends the search with the previous simplex.
    Simplex next = simplex;
    next.v[next.count++] = w;
    if (!ReduceToClosest(&next)) {
      result.intersecting = true;
      return result;
    }
    const Vec3 next_v = next.Point();
    if (!(next_v.squaredNorm() < vv)) break;
    simplex = next;
    v = next_v;
  }

  for (int i = 0; i < simplex.count; ++i) {
    result.on_a += simplex.lambda[i] * simplex.v[i].pa;
    result.on_b += simplex.lambda[i] * simplex.v[i].pb;
  }
  result.distance = v.norm();
  return result;
}

}  // namespace ligature
