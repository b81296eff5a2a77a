#include "server/world/query/scene_query.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string_view>
#include <utility>

#include "absl/container/flat_hash_map.h"
#include "server/collision/aabb.h"
#include "server/collision/ray_cast.h"

namespace ligature {
namespace {

// A capsule between two points: a rod's or a strand's segment.
struct Segment {
  Vec3 a = Vec3::Zero();
  Vec3 b = Vec3::Zero();
  double radius = 0.0;

  Aabb Bounds() const { return {a.cwiseMin(b).array() - radius, a.cwiseMax(b).array() + radius}; }
  // Where along the segment (0 at a, 1 at b) a point lies nearest.
  double ParamOf(const Vec3& p) const {
    const Vec3 e = b - a;
    const double ee = e.squaredNorm();
    return ee > 0.0 ? std::clamp((p - a).dot(e) / ee, 0.0, 1.0) : 0.0;
  }
  // As a capsule shape (along its local Y) and where it is placed.
  Shape Capsule() const { return Shape::Capsule(radius, 0.5 * (b - a).norm()); }
  Transform Pose() const {
    const Vec3 e = b - a;
    const double length = e.norm();
    Transform pose;
    pose.position = 0.5 * (a + b);
    if (length > 0.0) pose.orientation = Quat::FromTwoVectors(Vec3::UnitY(), e / length);
    return pose;
  }
};

// Keeps `hit` when it is the nearest so far, and shrinks the reach of the search to it.
void KeepNearest(std::optional<QueryHit> hit, std::optional<QueryHit>* best, double* reach) {
  if (!hit || (*best && hit->distance >= (*best)->distance)) return;
  *best = hit;
  *reach = hit->distance;
}

// A soft body's surface triangle, corners counter-clockwise seen from outside.
std::array<Vec3, 3> SoftTriangle(const BodyState& s, int t) {
  return {s.soft_vertices[s.soft_triangles[3 * t]], s.soft_vertices[s.soft_triangles[3 * t + 1]],
          s.soft_vertices[s.soft_triangles[3 * t + 2]]};
}

// Segment k of a rod: between its k-th and (k+1)-th published samples.
Segment RodSegmentAt(const BodyState& s, const QueryBody& q, int k) {
  return {s.rod_points[k], s.rod_points[k + 1], q.radius};
}

// Segment i of a strand: from its start point (the parent of its tip) to its tip, point i+1.
Segment StrandSegmentAt(const BodyState& s, const QueryBody& q, int i) {
  const int parent = s.strand_parents.empty() ? i : s.strand_parents[i + 1];
  return {s.strand_points[parent], s.strand_points[i + 1], q.segment_radius[i]};
}

// A rod's arc length at parameter `t` of its segment k of `segments` (samples are even in u).
double RodU(const QueryBody& q, int k, int segments, double t) {
  return q.length * (k + t) / segments;
}

}  // namespace

// A part as the collision queries take it: a shape placed in the world (a rigid child, or a
// rod's or strand's segment as a capsule), or a soft body's surface triangle, whose front
// alone is met by rays and casts.
struct SceneQuery::PartGeometry {
  const Shape* child = nullptr;  // a rigid child's shape; else the capsule below
  Shape capsule;
  Transform pose;
  bool is_triangle = false;
  std::array<Vec3, 3> corners;  // the triangle, counter-clockwise seen from its front

  const Shape& shape() const { return child != nullptr ? *child : capsule; }
  ConvexCore TriangleCore() const { return {{corners[0], corners[1], corners[2]}, 0.0}; }
  bool FacesAway(const Vec3& direction) const {
    return (corners[1] - corners[0]).cross(corners[2] - corners[0]).dot(direction) >= 0.0;
  }
};

SceneQuery::SceneQuery(std::shared_ptr<const Frame> frame,
                       std::shared_ptr<const QueryShapes> shapes)
    : frame_(std::move(frame)), shapes_(std::move(shapes)) {}

const SceneQuery::Index& SceneQuery::index() const {
  std::call_once(built_, [this] { BuildIndex(); });
  return index_;
}

// Every part of every body the geometry knows, with its world bounds, and the tree over
// them. Bodies are matched to their geometry by position in the frame (by id if the two
// lists differ); a body without geometry is left out.
void SceneQuery::BuildIndex() const {
  Index& ix = index_;
  const std::vector<BodyState>& bodies = frame_->bodies;
  const std::vector<QueryBody>& known = shapes_->bodies;
  absl::flat_hash_map<std::string_view, const QueryBody*> by_id;
  ix.shapes.assign(bodies.size(), nullptr);
  for (int b = 0; b < static_cast<int>(bodies.size()); ++b) {
    if (b < static_cast<int>(known.size()) && known[b].id == bodies[b].id) {
      ix.shapes[b] = &known[b];
      continue;
    }
    if (by_id.empty()) {
      for (const QueryBody& q : known) by_id.emplace(q.id, &q);
    }
    const auto it = by_id.find(bodies[b].id);
    if (it != by_id.end()) ix.shapes[b] = it->second;
  }
  const auto add = [&](int body, int item, const Aabb& box) {
    ix.parts.push_back({body, item});
    ix.boxes.push_back(box);
  };
  for (int b = 0; b < static_cast<int>(bodies.size()); ++b) {
    const QueryBody* q = ix.shapes[b];
    if (q == nullptr) continue;
    const BodyState& s = bodies[b];
    switch (q->kind) {
      case QueryBodyKind::kRigid:
        for (int k = 0; k < static_cast<int>(q->shapes.size()); ++k) {
          add(b, k, ComputeAabb(q->shapes[k].shape, s.pose * q->shapes[k].local, 0.0));
        }
        break;
      case QueryBodyKind::kRod:
        for (int k = 0; k + 1 < static_cast<int>(s.rod_points.size()); ++k) {
          add(b, k, RodSegmentAt(s, *q, k).Bounds());
        }
        break;
      case QueryBodyKind::kSoft:
        for (int t = 0; t < static_cast<int>(s.soft_triangles.size()) / 3; ++t) {
          const auto c = SoftTriangle(s, t);
          add(b, t, {c[0].cwiseMin(c[1]).cwiseMin(c[2]), c[0].cwiseMax(c[1]).cwiseMax(c[2])});
        }
        break;
      case QueryBodyKind::kStrand:
        if (q->segment_radius.size() + 1 != s.strand_points.size()) break;
        for (int i = 0; i < static_cast<int>(q->segment_radius.size()); ++i) {
          add(b, i, StrandSegmentAt(s, *q, i).Bounds());
        }
        break;
    }
  }
  ix.tree.Build(ix.boxes);
}

// A part is seen when its body's kind is, its body is not left out, and its layers (a
// rigid child's own, or its body's) meet the query's mask.
bool SceneQuery::Sees(const QueryFilter& filter, const Part& part) const {
  const QueryBody* q = index_.shapes[part.body];
  if ((filter.kinds & (1u << static_cast<int>(q->kind))) == 0) return false;
  const std::optional<CollisionFilter>& own =
      q->kind == QueryBodyKind::kRigid ? q->shapes[part.item].filter : std::nullopt;
  if (((own ? *own : q->collision).layers & filter.layer_mask) == 0) return false;
  return filter.exclude.empty() || !filter.exclude.contains(frame_->bodies[part.body].id);
}

SceneQuery::PartGeometry SceneQuery::GeometryOf(const Part& part) const {
  const BodyState& s = frame_->bodies[part.body];
  const QueryBody& q = *index_.shapes[part.body];
  PartGeometry g;
  switch (q.kind) {
    case QueryBodyKind::kRigid:
      g.child = &q.shapes[part.item].shape;
      g.pose = s.pose * q.shapes[part.item].local;
      break;
    case QueryBodyKind::kRod:
    case QueryBodyKind::kStrand: {
      const Segment seg = q.kind == QueryBodyKind::kRod ? RodSegmentAt(s, q, part.item)
                                                        : StrandSegmentAt(s, q, part.item);
      g.capsule = seg.Capsule();
      g.pose = seg.Pose();
      break;
    }
    case QueryBodyKind::kSoft:
      g.is_triangle = true;
      g.corners = SoftTriangle(s, part.item);
      break;
  }
  return g;
}

// What was hit on the part: its compound child and mesh triangle, the soft body's
// triangle, the strand's segment, or the rod's arc length at the point.
QueryHit SceneQuery::Label(const Part& part, double distance, const Vec3& point,
                           const Vec3& normal, int mesh_triangle) const {
  const BodyState& s = frame_->bodies[part.body];
  const QueryBody& q = *index_.shapes[part.body];
  QueryHit out;
  out.body = part.body;
  out.distance = distance;
  out.point = point;
  out.normal = normal;
  switch (q.kind) {
    case QueryBodyKind::kRigid:
      out.child = part.item;
      out.triangle = mesh_triangle;
      break;
    case QueryBodyKind::kRod: {
      const int segments = static_cast<int>(s.rod_points.size()) - 1;
      out.u = RodU(q, part.item, segments, RodSegmentAt(s, q, part.item).ParamOf(point));
      break;
    }
    case QueryBodyKind::kSoft:
      out.triangle = part.item;
      break;
    case QueryBodyKind::kStrand:
      out.segment = part.item;
      break;
  }
  return out;
}

std::optional<QueryHit> SceneQuery::RayPart(const Part& part, const Vec3& origin,
                                            const Vec3& direction, double max_distance) const {
  const PartGeometry g = GeometryOf(part);
  const std::optional<RayHit> hit =
      g.is_triangle ? CastRayTriangle(g.corners[0], g.corners[1], g.corners[2], origin,
                                      direction, max_distance)
                    : CastRay(g.shape(), g.pose, origin, direction, max_distance);
  if (!hit) return std::nullopt;
  return Label(part, hit->distance, hit->point, hit->normal, hit->triangle);
}

std::optional<QueryHit> SceneQuery::CastPart(const Part& part, const ConvexCore& shape,
                                             const Vec3& direction, double max_distance) const {
  const PartGeometry g = GeometryOf(part);
  if (g.is_triangle && g.FacesAway(direction)) return std::nullopt;
  const std::optional<ShapeCastHit> hit =
      g.is_triangle ? CastCore(shape, direction, max_distance, g.TriangleCore())
                    : CastShape(shape, direction, max_distance, g.shape(), g.pose);
  if (!hit) return std::nullopt;
  return Label(part, hit->distance, hit->point, hit->normal, hit->triangle);
}

std::optional<QueryHit> SceneQuery::DistancePart(const Part& part, const ConvexCore& shape,
                                                 double max_distance) const {
  const PartGeometry g = GeometryOf(part);
  const std::optional<ShapeDistanceResult> r =
      g.is_triangle ? CoreDistance(shape, g.TriangleCore(), max_distance)
                    : ShapeDistance(shape, g.shape(), g.pose, max_distance);
  if (!r) return std::nullopt;
  return Label(part, r->distance, r->on_target, r->normal, r->triangle);
}

std::optional<QueryHit> SceneQuery::RaycastClosest(const Vec3& origin, const Vec3& direction,
                                                   double max_distance,
                                                   const QueryFilter& filter) const {
  const Index& ix = index();
  std::optional<QueryHit> best;
  double reach = max_distance;
  ix.tree.Ray(origin, direction, Vec3::Zero(), &reach, [&](int i, double* max_t) {
    if (Sees(filter, ix.parts[i])) {
      KeepNearest(RayPart(ix.parts[i], origin, direction, *max_t), &best, max_t);
    }
  });
  return best;
}

std::vector<QueryHit> SceneQuery::RaycastAll(const Vec3& origin, const Vec3& direction,
                                             double max_distance, const QueryFilter& filter) const {
  const Index& ix = index();
  absl::flat_hash_map<int, QueryHit> first;  // per body, its nearest hit
  double reach = max_distance;
  ix.tree.Ray(origin, direction, Vec3::Zero(), &reach, [&](int i, double* max_t) {
    const Part& part = ix.parts[i];
    if (!Sees(filter, part)) return;
    auto hit = RayPart(part, origin, direction, *max_t);
    if (!hit) return;
    auto [it, added] = first.try_emplace(part.body, *hit);
    if (!added && hit->distance < it->second.distance) it->second = *hit;
  });
  std::vector<QueryHit> hits;
  hits.reserve(first.size());
  for (auto& [body, hit] : first) hits.push_back(hit);
  std::sort(hits.begin(), hits.end(), [](const QueryHit& a, const QueryHit& b) {
    return std::pair(a.distance, a.body) < std::pair(b.distance, b.body);
  });
  return hits;
}

std::optional<QueryHit> SceneQuery::ShapeCast(const ConvexCore& shape, const Vec3& direction,
                                              double max_distance,
                                              const QueryFilter& filter) const {
  const Index& ix = index();
  const Aabb box = shape.Bounds();
  std::optional<QueryHit> best;
  double reach = max_distance;
  ix.tree.Ray(0.5 * (box.min + box.max), direction, 0.5 * (box.max - box.min), &reach,
              [&](int i, double* max_t) {
                if (Sees(filter, ix.parts[i])) {
                  KeepNearest(CastPart(ix.parts[i], shape, direction, *max_t), &best, max_t);
                }
              });
  return best;
}

std::vector<QueryHit> SceneQuery::Overlap(const ConvexCore& shape, const QueryFilter& filter,
                                          size_t max_results, bool* truncated) const {
  const Index& ix = index();
  absl::flat_hash_map<int, QueryHit> found;  // per body, the first part found overlapping
  ix.tree.Overlapping(shape.Bounds(), [&](int i) {
    const Part& part = ix.parts[i];
    if (found.contains(part.body) || !Sees(filter, part)) return;
    auto hit = DistancePart(part, shape, 0.0);
    if (hit) found.emplace(part.body, *hit);
  });
  std::vector<QueryHit> hits;
  hits.reserve(found.size());
  for (auto& [body, hit] : found) hits.push_back(hit);
  std::sort(hits.begin(), hits.end(),
            [](const QueryHit& a, const QueryHit& b) { return a.body < b.body; });
  if (truncated != nullptr) *truncated = hits.size() > max_results;
  if (hits.size() > max_results) hits.resize(max_results);
  return hits;
}

std::optional<QueryHit> SceneQuery::Closest(const ConvexCore& shape, double max_distance,
                                            const QueryFilter& filter) const {
  const Index& ix = index();
  std::optional<QueryHit> best;
  double reach = max_distance;
  ix.tree.Nearest(shape.Bounds(), &reach, [&](int i, double* max_d) {
    if (Sees(filter, ix.parts[i])) {
      KeepNearest(DistancePart(ix.parts[i], shape, *max_d), &best, max_d);
    }
  });
  return best;
}

}  // namespace ligature
