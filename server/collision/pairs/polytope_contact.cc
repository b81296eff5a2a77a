// Polytope against polytope. GJK first measures the gap: apart within the margin, the best
// face axis' clipped manifold or the closest pair. Overlapping, a separating-axis test over
// face normals and the Minkowski-face edge pairs (Gauss-map arcs that cross), then a clipped
// face manifold or one edge-edge point.

#include "server/collision/pairs/polytope_contact.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <span>
#include <vector>

#include "server/collision/pairs/contact_reduction.h"
#include "server/collision/pairs/geometry.h"
#include "server/collision/pairs/gjk.h"

namespace ligature {
namespace {

// Bias towards A's faces over B's, as box-box uses (relative part; the absolute part and
// the bias towards faces over edges are in geometry.h), so that the manifold does not flip
// between candidates that are equally good.
constexpr double kFaceRelativeTolerance = 0.02;

// One candidate axis: the feature it comes from (a face of A or B, or an edge of each),
// its unit normal oriented from A to B, and the separation along it (negative = overlap).
enum class AxisKind { kFaceA, kFaceB, kEdge };
struct SatAxis {
  AxisKind kind = AxisKind::kFaceA;
  int index_a = 0;  // face of A, or edge of A
  int index_b = 0;  // face of B, or edge of B
  Vec3 normal = Vec3::UnitY();
  double separation = -std::numeric_limits<double>::infinity();
};

// True when `candidate` beats `current` by more than the bias.
bool ClearlyBetter(const SatAxis& candidate, const SatAxis& current, double relative) {
  return candidate.separation >
         current.separation + relative * std::abs(current.separation) + kAbsoluteTolerance;
}

// Per-thread scratch for the clipped polygon and the candidate points: reused, so a call
// allocates only while the buffers first grow.
struct Scratch {
  std::vector<Vec3> polygon;
  std::vector<Vec3> clipped;
  std::vector<ContactPoint> candidates;
  std::vector<int> edges_a;  // the edges BestEdgeAxis pairs
  std::vector<int> edges_b;
};
Scratch& ThreadScratch() {
  thread_local Scratch scratch;
  return scratch;
}

// The Gauss-map arcs of two edges cross: arc a-b (normals of an edge of A) against arc c-d
// (negated normals of an edge of B); b_x_a = b x a, d_x_c = d x c. Then the edges' cross
// product is a face normal of the Minkowski difference. The arcs cross when each arc's end
// points lie on either side of the other's great circle, and on the same hemisphere.
bool ArcsCross(const Vec3& a, const Vec3& b, const Vec3& b_x_a, const Vec3& c, const Vec3& d,
               const Vec3& d_x_c) {
  const double cba = c.dot(b_x_a);
  const double dba = d.dot(b_x_a);
  const double adc = a.dot(d_x_c);
  const double bdc = b.dot(d_x_c);
  return cba * dba < 0.0 && adc * bdc < 0.0 && cba * bdc > 0.0;
}

// The face of `ref` (A's when `ref_is_a`, else B's) whose plane `other` lies farthest
// beyond. Returns false as soon as one separates by the margin or more.
bool BestFaceAxis(const Polytope& ref, const Polytope& other, bool ref_is_a, double margin,
                  SatAxis* best) {
  for (int f = 0; f < ref.face_count(); ++f) {
    const double separation = other.MinProjection(ref.normals[f]) - ref.offsets[f];
    if (!(separation < margin)) return false;
    if (separation > best->separation) {
      best->kind = ref_is_a ? AxisKind::kFaceA : AxisKind::kFaceB;
      best->index_a = ref_is_a ? f : 0;
      best->index_b = ref_is_a ? 0 : f;
      best->normal = ref_is_a ? ref.normals[f] : Vec3(-ref.normals[f]);
      best->separation = separation;
    }
  }
  return true;
}

// The world bounds of a polytope's vertices.
struct Bounds {
  Vec3 min;
  Vec3 max;
};
Bounds BoundsOf(const Polytope& p) {
  Bounds out{p.vertices[0], p.vertices[0]};
  for (const Vec3& v : p.vertices) {
    out.min = out.min.cwiseMin(v);
    out.max = out.max.cwiseMax(v);
  }
  return out;
}

// Whether segment [p, q] meets the box grown by `reach` on every side (slab test).
bool SegmentMeetsBox(const Vec3& p, const Vec3& q, const Bounds& box, double reach) {
  double t0 = 0.0, t1 = 1.0;
  for (int k = 0; k < 3; ++k) {
    const double lo = box.min[k] - reach, hi = box.max[k] + reach;
    const double d = q[k] - p[k];
    if (std::abs(d) < 1e-300) {
      if (p[k] < lo || p[k] > hi) return false;
      continue;
    }
    double enter = (lo - p[k]) / d, leave = (hi - p[k]) / d;
    if (enter > leave) std::swap(enter, leave);
    t0 = std::max(t0, enter);
    t1 = std::min(t1, leave);
    if (t0 > t1) return false;
  }
  return true;
}

// The edges of `p` that come within `reach` of the box `other`, into `out`.
void EdgesNear(const Polytope& p, const Bounds& other, double reach, std::vector<int>* out) {
  out->clear();
  for (int i = 0; i < p.edge_count(); ++i) {
    const ConvexHull::Edge& e = p.topology->edges[i];
    if (SegmentMeetsBox(p.vertices[e.a], p.vertices[e.b], other, reach)) out->push_back(i);
  }
}

// The edge pair (forming a Minkowski face) of largest separation. Along such an axis both
// edges support their polytope, so the separation is exact from one point of each edge.
// Returns false as soon as one separates by the margin or more.
//
// Only edges within `reach` of the other polytope's bounds are paired. Where the polytopes
// overlap, the axis of least penetration is a Minkowski face that the origin projects into,
// so its two edges hold points |separation| apart, and |separation| is at most the best
// face axis' penetration: a reach of that (or the margin, if larger) keeps it. Apart, GJK
// gives the gap, and edges are not paired.
bool BestEdgeAxis(const Polytope& a, const Polytope& b, double margin, double reach,
                  SatAxis* best) {
  Scratch& scratch = ThreadScratch();
  EdgesNear(a, BoundsOf(b), reach, &scratch.edges_a);
  EdgesNear(b, BoundsOf(a), reach, &scratch.edges_b);
  for (const int i : scratch.edges_a) {
    const ConvexHull::Edge& ea = a.topology->edges[i];
    assert(ea.face_left < a.face_count() && ea.face_right < a.face_count());
    const Vec3& ua = a.normals[ea.face_left];
    const Vec3& va = a.normals[ea.face_right];
    const Vec3 da = a.vertices[ea.b] - a.vertices[ea.a];
    const double da2 = da.squaredNorm();
    for (const int j : scratch.edges_b) {
      const ConvexHull::Edge& eb = b.topology->edges[j];
      assert(eb.face_left < b.face_count() && eb.face_right < b.face_count());
      if (!ArcsCross(ua, va, a.edge_gauss[i], -b.normals[eb.face_left], -b.normals[eb.face_right],
                     b.edge_gauss[j])) {
        continue;
      }
      const Vec3 db = b.vertices[eb.b] - b.vertices[eb.a];
      Vec3 axis = da.cross(db);
      const double len2 = axis.squaredNorm();
      if (len2 <= kMinEdgeAxisSine * kMinEdgeAxisSine * da2 * db.squaredNorm()) continue;
      axis /= std::sqrt(len2);
      // Orient into A's edge normal cone (between its two face normals): from A to B.
      if (axis.dot(ua + va) < 0.0) axis = -axis;
      const double separation = axis.dot(b.vertices[eb.a] - a.vertices[ea.a]);
      if (!(separation < margin)) return false;
      if (separation > best->separation) {
        best->kind = AxisKind::kEdge;
        best->index_a = i;
        best->index_b = j;
        best->normal = axis;
        best->separation = separation;
      }
    }
  }
  return true;
}

// Keeps the part of the convex polygon `in` where dot(plane_normal, v) <= offset.
void ClipPolygon(const std::vector<Vec3>& in, const Vec3& plane_normal, double offset,
                 std::vector<Vec3>* out) {
  out->clear();
  const std::size_t n = in.size();
  for (std::size_t i = 0; i < n; ++i) {
    const Vec3& cur = in[i];
    const Vec3& next = in[(i + 1) % n];
    const double dc = plane_normal.dot(cur) - offset;
    const double dn = plane_normal.dot(next) - offset;
    if (dc <= 0.0) out->push_back(cur);
    if ((dc < 0.0 && dn > 0.0) || (dc > 0.0 && dn < 0.0)) {
      out->push_back(cur + (next - cur) * (dc / (dc - dn)));
    }
  }
}

// Face contact on face `ref_face` of `ref` (A when `ref_is_a`): the face of `inc` most
// opposed to it is clipped to the reference face's side planes, and every clipped vertex
// closer than `margin` to the reference plane becomes a candidate, reduced to four.
void FaceContact(const Polytope& ref, int ref_face, const Polytope& inc, bool ref_is_a,
                 double margin, ContactManifold* out) {
  const Vec3& n = ref.normals[ref_face];
  const double offset = ref.offsets[ref_face];
  const Vec3 normal_ab = ref_is_a ? n : Vec3(-n);

  // Incident face: most anti-parallel to the reference normal (lowest index among ties).
  int inc_face = 0;
  double lowest = inc.normals[0].dot(n);
  for (int f = 1; f < inc.face_count(); ++f) {
    const double d = inc.normals[f].dot(n);
    if (d < lowest) {
      lowest = d;
      inc_face = f;
    }
  }
  Scratch& scratch = ThreadScratch();
  std::vector<Vec3>& polygon = scratch.polygon;
  polygon.clear();
  for (int i = 0; i < inc.FaceSize(inc_face); ++i) polygon.push_back(inc.FaceVertex(inc_face, i));

  // Side planes: the reference loop runs counter-clockwise about n, so (q - p) x n points
  // out of the face across the edge p -> q.
  const int ref_size = ref.FaceSize(ref_face);
  assert(ref_size >= 3);
  for (int k = 0; k < ref_size && !polygon.empty(); ++k) {
    const Vec3& p = ref.FaceVertex(ref_face, k);
    const Vec3& q = ref.FaceVertex(ref_face, (k + 1) % ref_size);
    const Vec3 side = (q - p).cross(n);
    ClipPolygon(polygon, side, side.dot(p), &scratch.clipped);
    polygon.swap(scratch.clipped);
  }

  // Keep the vertices below the reference plane plus the margin, then reduce to four.
  std::vector<ContactPoint>& candidates = scratch.candidates;
  candidates.clear();
  for (const Vec3& v : polygon) {
    const double distance = n.dot(v) - offset;
    if (!(distance < margin)) continue;
    const Vec3 on_ref = v - distance * n;
    candidates.push_back(ref_is_a ? MakeContact(on_ref, v, normal_ab, distance)
                                  : MakeContact(v, on_ref, normal_ab, distance));
  }
  ReduceContacts(std::span<const ContactPoint>(candidates.data(), candidates.size()), normal_ab,
                 out);
}

void AddFaceContact(const Polytope& a, const Polytope& b, const SatAxis& axis, double margin,
                    ContactManifold* out) {
  if (axis.kind == AxisKind::kFaceA) {
    FaceContact(a, axis.index_a, b, true, margin, out);
  } else {
    FaceContact(b, axis.index_b, a, false, margin, out);
  }
}

// Closest points of the two edges of an edge axis.
SegmentClosestPoints EdgeClosestPoints(const Polytope& a, const Polytope& b, const SatAxis& axis) {
  const ConvexHull::Edge& ea = a.topology->edges[axis.index_a];
  const ConvexHull::Edge& eb = b.topology->edges[axis.index_b];
  return ClosestPointsBetweenSegments(a.vertices[ea.a], a.vertices[ea.b], b.vertices[eb.a],
                                      b.vertices[eb.b]);
}

// Fallback when clipping leaves nothing although the polytopes overlap (rounding only):
// one point at the incident polytope's deepest vertex, at the axis' separation.
void AddSupportContact(const Polytope& a, const Polytope& b, const SatAxis& axis,
                       ContactManifold* out) {
  const Vec3& n = axis.normal;
  if (axis.kind == AxisKind::kFaceA) {
    const Vec3& tip = b.vertices[b.SupportIndex(-n)];
    out->Add(MakeContact(tip - axis.separation * n, tip, n, axis.separation));
  } else {
    const Vec3& tip = a.vertices[a.SupportIndex(n)];
    out->Add(MakeContact(tip, tip + axis.separation * n, n, axis.separation));
  }
}

}  // namespace

int CollidePolytopes(const Polytope& a, const Polytope& b, double margin, ContactManifold* out) {
  out->count = 0;
  assert(a.face_count() > 0 && b.face_count() > 0);
  // The exact gap first: apart by the margin or more ends it.
  const GjkResult exact = GjkDistance(PointSetSupport(a.vertices), PointSetSupport(b.vertices));
  if (!exact.intersecting && !(exact.distance < margin)) return 0;

  // Face axes of A and B, the best preferring A's.
  SatAxis face_a;
  SatAxis face_b;
  if (!BestFaceAxis(a, b, true, margin, &face_a)) return 0;
  if (!BestFaceAxis(b, a, false, margin, &face_b)) return 0;
  SatAxis best = ClearlyBetter(face_b, face_a, kFaceRelativeTolerance) ? face_b : face_a;
  const double scale = 1.0 + std::max(a.radius, b.radius);

  // Apart within the margin: the best face's clipped manifold when a face separates (each
  // of its points is a pair of surface points, so none is nearer than the gap), kept if its
  // nearest point is the gap; else the closest pair (vertex against edge, edge against
  // edge, ...).
  if (!exact.intersecting) {
    if (best.separation > 0.0) AddFaceContact(a, b, best, margin, out);
    return KeepManifoldOrExact(exact.on_a, exact.on_b, exact.distance, best.normal, margin, scale,
                               out);
  }

  // Overlapping (or touching closer than GJK resolves): the edge pairs too, then the axis
  // of least penetration, preferring faces to edges.
  SatAxis edge;
  const double reach = std::max(margin, -best.separation) + kAbsoluteTolerance * scale;
  if (!BestEdgeAxis(a, b, margin, reach, &edge)) return 0;
  if (ClearlyBetter(edge, best, kEdgeRelativeTolerance)) best = edge;
  if (best.kind == AxisKind::kEdge) {
    const SegmentClosestPoints c = EdgeClosestPoints(a, b, best);
    out->Add(MakeContact(c.on_first, c.on_second, best.normal, best.separation));
  } else {
    AddFaceContact(a, b, best, margin, out);
    if (out->count == 0) AddSupportContact(a, b, best, out);
  }
  return out->count;
}

}  // namespace ligature
