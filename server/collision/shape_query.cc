// Distances come from GJK between the two cores, less the radii. A cast advances the query
// conservatively: at each step the gap over the closing speed along the nearest points'
// normal is a distance it can travel without touching, so it never passes through the
// target, and the steps shrink to the touch (in one step when a face meets a face).

#include "server/collision/shape_query.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <queue>
#include <utility>

#include "server/collision/aabb_tree.h"
#include "server/collision/pairs/gjk.h"

namespace ligature {
namespace {

// A cast ends when the gap left is below this (m).
constexpr double kCastTolerance = 1e-9;
// Steps a cast may take; conservative advancement needs a few, more for grazing touches.
constexpr int kMaxCastSteps = 64;
// Closing speeds below this (per unit of travel) mean the query moves past the target.
constexpr double kMinClosing = 1e-12;

// A core without its storage: the hull of `points` grown by `radius`.
struct CoreView {
  std::span<const Vec3> points;
  double radius = 0.0;
};

CoreView ViewOf(const ConvexCore& core) { return {core.points, core.radius}; }

// A point set moved by an offset, seen through its support function.
class ShiftedSupport final : public ConvexSupport {
 public:
  ShiftedSupport(std::span<const Vec3> points, const Vec3& offset)
      : set_(points), offset_(offset) {}
  Vec3 Support(const Vec3& direction) const override { return set_.Support(direction) + offset_; }

 private:
  PointSetSupport set_;
  Vec3 offset_;
};

// The distance between the query moved by `offset` and the target.
ShapeDistanceResult Measure(const CoreView& query, const Vec3& offset, const CoreView& target) {
  const GjkResult g =
      GjkDistance(ShiftedSupport(query.points, offset), PointSetSupport(target.points));
  ShapeDistanceResult r;
  if (g.intersecting) {
    r.overlapping = true;
    return r;
  }
  r.normal = (g.on_a - g.on_b) / g.distance;
  const double gap = g.distance - query.radius - target.radius;
  r.overlapping = gap <= 0.0;
  r.distance = std::max(gap, 0.0);
  r.on_target = g.on_b + target.radius * r.normal;
  r.on_query = g.on_a - query.radius * r.normal;
  return r;
}

// A core's bounds, its radius included.
Aabb CoreBounds(const CoreView& core) {
  Aabb box{core.points[0], core.points[0]};
  for (const Vec3& p : core.points) {
    box.min = box.min.cwiseMin(p);
    box.max = box.max.cwiseMax(p);
  }
  box.min.array() -= core.radius;
  box.max.array() += core.radius;
  return box;
}

// The centre of a core's bounds: where a cast that starts in overlap reports its touch.
Vec3 CentreOf(const CoreView& core) {
  const Aabb box = CoreBounds(core);
  return 0.5 * (box.min + box.max);
}

// Conservative advancement of the query along `direction` towards the target.
std::optional<ShapeCastHit> Advance(const CoreView& query, const Vec3& direction,
                                    double max_distance, const CoreView& target) {
  double t = 0.0;
  ShapeCastHit hit{0.0, CentreOf(query), -direction, -1};
  for (int step = 0; step < kMaxCastSteps; ++step) {
    const ShapeDistanceResult r = Measure(query, t * direction, target);
    // Overlap at the start touches at 0; later it is rounding at the touch just reached,
    // which keeps the last step's point and normal.
    if (r.overlapping) {
      hit.distance = t;
      return hit;
    }
    hit = {t, r.on_target, r.normal, -1};
    if (r.distance <= kCastTolerance) return hit;
    const double closing = -direction.dot(r.normal);
    if (closing <= kMinClosing) return std::nullopt;
    t += r.distance / closing;
    if (t > max_distance) return std::nullopt;
  }
  hit.distance = t;
  return hit;
}

// A plane's solid, the half-space behind it: how far the query's lowest point stands above
// it, and that point.
std::pair<double, Vec3> AbovePlane(const CoreView& query, const Transform& pose) {
  const Vec3 n = pose.Rotate(Vec3::UnitY());
  const Vec3 low = PointSetSupport(query.points).Support(-n) - query.radius * n;
  return {n.dot(low - pose.position), low};
}

// The query moved into a mesh's frame.
ConvexCore ToLocal(const ConvexCore& query, const Transform& pose) {
  ConvexCore local{{}, query.radius};
  local.points.reserve(query.points.size());
  for (const Vec3& p : query.points) local.points.push_back(pose.InverseApply(p));
  return local;
}

std::array<Vec3, 3> CornersOf(const TriangleMesh& mesh, int t) {
  return {mesh.Corner(t, 0), mesh.Corner(t, 1), mesh.Corner(t, 2)};
}

// The nearest triangle of a mesh within `max_distance` of the query (both in the mesh's
// frame): nodes visited nearest first, ending at the first overlap.
std::optional<ShapeDistanceResult> MeshDistance(const CoreView& query, const TriangleMesh& mesh,
                                                double max_distance) {
  if (mesh.nodes.empty()) return std::nullopt;
  const Aabb box = CoreBounds(query);
  std::optional<ShapeDistanceResult> best;
  double best_distance = max_distance;
  using Entry = std::pair<double, int>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> queue;
  queue.emplace(AabbTree::Gap(mesh.nodes[0].bounds, box), 0);
  while (!queue.empty()) {
    const auto [gap, index] = queue.top();
    queue.pop();
    if (gap > best_distance) break;
    const TriangleMesh::Node& node = mesh.nodes[index];
    if (node.left >= 0) {
      for (int child : {node.left, node.right}) {
        queue.emplace(AabbTree::Gap(mesh.nodes[child].bounds, box), child);
      }
      continue;
    }
    for (int k = node.first; k < node.first + node.count; ++k) {
      const int t = mesh.order[k];
      const std::array<Vec3, 3> corners = CornersOf(mesh, t);
      ShapeDistanceResult r = Measure(query, Vec3::Zero(), {corners, 0.0});
      if (r.distance > best_distance) continue;
      r.triangle = t;
      best = r;
      best_distance = r.distance;
      if (r.overlapping) return best;
    }
  }
  return best;
}

// The first front of a mesh the query meets moving along `direction` (all in the mesh's
// frame): its bounds swept through the mesh's four-wide tree, nearest entry first.
std::optional<ShapeCastHit> MeshCast(const CoreView& query, const Vec3& direction,
                                     double max_distance, const TriangleMesh& mesh) {
  const Aabb box = CoreBounds(query);
  std::optional<ShapeCastHit> best;
  double best_t = max_distance;
  mesh.ray_tree.Ray(0.5 * (box.min + box.max), direction, 0.5 * (box.max - box.min), &best_t,
                    [&](int t, double* reach) {
                      if (mesh.normals[t].dot(direction) >= 0.0) return;  // leaving its front
                      auto hit = Advance(query, direction, *reach, {CornersOf(mesh, t), 0.0});
                      if (!hit || (best && hit->distance >= *reach)) return;
                      hit->triangle = t;
                      best = hit;
                      *reach = hit->distance;
                    });
  return best;
}

}  // namespace

Aabb ConvexCore::Bounds() const { return CoreBounds(ViewOf(*this)); }

ConvexCore CoreOf(const Shape& shape, const Transform& pose) {
  ConvexCore core;
  switch (shape.type) {
    case ShapeType::kSphere:
      core.points = {pose.position};
      core.radius = shape.radius;
      break;
    case ShapeType::kCapsule:
      core.points = {pose.Apply(Vec3(0.0, -shape.half_length, 0.0)),
                     pose.Apply(Vec3(0.0, shape.half_length, 0.0))};
      core.radius = shape.radius;
      break;
    case ShapeType::kBox:
      for (int corner = 0; corner < 8; ++corner) {
        const Vec3 sign((corner & 1) ? 1.0 : -1.0, (corner & 2) ? 1.0 : -1.0,
                        (corner & 4) ? 1.0 : -1.0);
        core.points.push_back(pose.Apply(sign.cwiseProduct(shape.half_extents)));
      }
      break;
    case ShapeType::kHull:
      for (const Vec3& v : shape.hull->vertices) core.points.push_back(pose.Apply(v));
      break;
    case ShapeType::kPlane:
    case ShapeType::kMesh:
      break;
  }
  return core;
}

std::optional<ShapeDistanceResult> CoreDistance(const ConvexCore& query, const ConvexCore& target,
                                                double max_distance) {
  const ShapeDistanceResult r = Measure(ViewOf(query), Vec3::Zero(), ViewOf(target));
  if (r.distance > max_distance) return std::nullopt;
  return r;
}

std::optional<ShapeDistanceResult> ShapeDistance(const ConvexCore& query, const Shape& target,
                                                 const Transform& pose, double max_distance) {
  switch (target.type) {
    case ShapeType::kPlane: {
      const auto [height, low] = AbovePlane(ViewOf(query), pose);
      if (height > max_distance) return std::nullopt;
      ShapeDistanceResult r;
      r.overlapping = height <= 0.0;
      r.distance = std::max(height, 0.0);
      r.normal = pose.Rotate(Vec3::UnitY());
      r.on_query = low;
      r.on_target = low - height * r.normal;
      return r;
    }
    case ShapeType::kMesh: {
      auto r = MeshDistance(ViewOf(ToLocal(query, pose)), *target.mesh, max_distance);
      if (!r) return std::nullopt;
      r->on_target = pose.Apply(r->on_target);
      r->on_query = pose.Apply(r->on_query);
      r->normal = pose.Rotate(r->normal);
      return r;
    }
    default:
      return CoreDistance(query, CoreOf(target, pose), max_distance);
  }
}

std::optional<ShapeCastHit> CastCore(const ConvexCore& query, const Vec3& direction,
                                     double max_distance, const ConvexCore& target) {
  return Advance(ViewOf(query), direction, max_distance, ViewOf(target));
}

std::optional<ShapeCastHit> CastShape(const ConvexCore& query, const Vec3& direction,
                                      double max_distance, const Shape& target,
                                      const Transform& pose) {
  switch (target.type) {
    // The lowest point meets the plane after its height over the closing speed.
    case ShapeType::kPlane: {
      const auto [height, low] = AbovePlane(ViewOf(query), pose);
      const Vec3 n = pose.Rotate(Vec3::UnitY());
      if (height <= 0.0) return ShapeCastHit{0.0, CentreOf(ViewOf(query)), -direction, -1};
      const double closing = -direction.dot(n);
      if (closing <= kMinClosing || height > closing * max_distance) return std::nullopt;
      const double t = height / closing;
      return ShapeCastHit{t, low + t * direction, n, -1};
    }
    case ShapeType::kMesh: {
      const ConvexCore local = ToLocal(query, pose);
      auto hit = MeshCast(ViewOf(local), pose.InverseRotate(direction), max_distance, *target.mesh);
      if (!hit) return std::nullopt;
      hit->point = pose.Apply(hit->point);
      hit->normal = pose.Rotate(hit->normal);
      return hit;
    }
    default:
      return CastCore(query, direction, max_distance, CoreOf(target, pose));
  }
}

}  // namespace ligature
