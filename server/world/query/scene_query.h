#pragma once
// Scene queries against one published frame: ray casts (the nearest hit, or every body's
// first hit), shape casts (time of impact), overlaps and the closest point, over every
// body kind. Rigid bodies answer with their shapes (and the compound child and mesh
// triangle hit), rods with the capsules between their published centreline samples (and the
// arc length u hit), soft bodies with their surface triangles' fronts (and the triangle),
// strands with the capsules of their segments (and the segment).
//
// Consistency: every answer is about the frame's tick alone, the poses and the geometry
// published together at its end. A SceneQuery is immutable; its search tree is built at
// the first query and shared by every later one, from any thread.

#include <cstdint>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "server/collision/aabb_tree.h"
#include "server/collision/shape_query.h"
#include "server/world/frame.h"
#include "server/world/query/query_shapes.h"

namespace ligature {

// Which bodies a query sees.
struct QueryFilter {
  absl::flat_hash_set<std::string> exclude;  // body ids left out
  uint32_t kinds = 0xF;                      // bit (1 << QueryBodyKind) set: that kind is seen
  // Collision layers seen: a rigid shape on none of them is passed by (other kinds are on
  // the default layer, 1).
  uint32_t layer_mask = 0xFFFFFFFFu;
};

struct QueryHit {
  int body = -1;                // index into the frame's bodies
  double distance = 0.0;        // m: along the ray or cast, or the gap (0 in overlap)
  Vec3 point = Vec3::Zero();    // m, world: on the body's surface
  Vec3 normal = Vec3::UnitY();  // world, unit, out of the body
  int child = -1;               // rigid: the compound child
  int triangle = -1;            // rigid mesh or soft body: the triangle
  int segment = -1;             // strand: the segment
  double u = std::numeric_limits<double>::quiet_NaN();  // rod: arc length at the hit (m)
};

class SceneQuery {
 public:
  SceneQuery(std::shared_ptr<const Frame> frame, std::shared_ptr<const QueryShapes> shapes);

  const Frame& frame() const { return *frame_; }

  // Builds the search tree now rather than at the first query (a publisher calls it, so
  // that a frequent asker never waits for it). Later calls do nothing.
  void Prepare() const { index(); }

  // The nearest hit of the ray from `origin` along the unit `direction` within
  // `max_distance` (m), or each body's first hit, nearest first. A ray starting inside a
  // solid hits it at 0.
  std::optional<QueryHit> RaycastClosest(const Vec3& origin, const Vec3& direction,
                                         double max_distance, const QueryFilter& filter) const;
  std::vector<QueryHit> RaycastAll(const Vec3& origin, const Vec3& direction, double max_distance,
                                   const QueryFilter& filter) const;
  // The first body `shape` touches moving along the unit `direction` within `max_distance`.
  std::optional<QueryHit> ShapeCast(const ConvexCore& shape, const Vec3& direction,
                                    double max_distance, const QueryFilter& filter) const;
  // The bodies `shape` overlaps, in frame order, at most `max_results` of them; `truncated`
  // (when given) says whether more were left out.
  std::vector<QueryHit> Overlap(const ConvexCore& shape, const QueryFilter& filter,
                                size_t max_results, bool* truncated = nullptr) const;
  // The nearest body to `shape` (a point is a core of one point) within `max_distance`:
  // the point on the body and the gap (0 when they overlap).
  std::optional<QueryHit> Closest(const ConvexCore& shape, double max_distance,
                                  const QueryFilter& filter) const;

 private:
  // One piece of a body the tree holds: a rigid body's child shape, a rod's or strand's
  // segment, a soft body's triangle.
  struct Part {
    int body = 0;  // frame body
    int item = 0;  // child, segment or triangle
  };
  struct Index {
    std::vector<Part> parts;
    std::vector<Aabb> boxes;
    std::vector<const QueryBody*> shapes;  // per frame body; null when unknown
    AabbTree tree;
  };
  const Index& index() const;
  void BuildIndex() const;
  bool Sees(const QueryFilter& filter, const Part& part) const;

  // A part placed as the collision queries take it (defined with the queries), and what a
  // hit on it names.
  struct PartGeometry;
  PartGeometry GeometryOf(const Part& part) const;
  QueryHit Label(const Part& part, double distance, const Vec3& point, const Vec3& normal,
                 int mesh_triangle) const;
  // One part's answers, or none.
  std::optional<QueryHit> RayPart(const Part& part, const Vec3& origin, const Vec3& direction,
                                  double max_distance) const;
  std::optional<QueryHit> CastPart(const Part& part, const ConvexCore& shape, const Vec3& direction,
                                   double max_distance) const;
  std::optional<QueryHit> DistancePart(const Part& part, const ConvexCore& shape,
                                       double max_distance) const;

  std::shared_ptr<const Frame> frame_;
  std::shared_ptr<const QueryShapes> shapes_;
  mutable std::once_flag built_;
  mutable Index index_;
};

}  // namespace ligature
