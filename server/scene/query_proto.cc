#include "server/scene/query_proto.h"

#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"
#include "server/base/status_macros.h"
#include "server/scene/field_error.h"
#include "server/scene/scene_proto.h"

namespace ligature {
namespace {

// The longest reach a query may ask for (m): the extent of a world.
constexpr double kMaxQueryReach = 1e6;

// A direction: finite and non-zero, made unit.
absl::StatusOr<Vec3> DirectionFromProto(const v1::Vec3& d, const std::string& field) {
  auto v = Vec3FromProto(d, field);
  if (!v.ok()) return v.status();
  const double length = v->norm();
  if (!(length > 1e-12) || !std::isfinite(length)) return InvalidField(field, "must be non-zero");
  return *v / length;
}

// A reach (m): finite, >= 0 and at most kMaxQueryReach; 0 takes the default.
absl::StatusOr<double> ReachFromProto(double reach, const std::string& field) {
  if (!std::isfinite(reach) || reach < 0.0 || reach > kMaxQueryReach) {
    return InvalidField(field, absl::StrCat("must be in [0, ", kMaxQueryReach, "] m"));
  }
  return reach == 0.0 ? kDefaultQueryReach : reach;
}

// A query shape: a sphere, box, capsule or hull, placed.
absl::StatusOr<ConvexCore> QueryShapeFromProto(const v1::Shape& s, const v1::Pose& p,
                                               const std::string& field) {
  auto shape = ShapeFromProto(s, field + ".shape");
  if (!shape.ok()) return shape.status();
  if (shape->type == ShapeType::kPlane || shape->type == ShapeType::kMesh) {
    return InvalidField(field + ".shape", "must be a sphere, box, capsule or hull");
  }
  auto pose = PoseFromProto(p, field + ".pose");
  if (!pose.ok()) return pose.status();
  return CoreOf(*shape, *pose);
}

absl::StatusOr<QueryFilter> FilterFromProto(const v1::QueryFilter& f, const std::string& field) {
  QueryFilter out;
  for (const std::string& id : f.exclude_bodies()) out.exclude.insert(id);
  if (f.has_layer_mask()) out.layer_mask = f.layer_mask();
  if (f.kinds().empty()) return out;
  out.kinds = 0;
  for (int i = 0; i < f.kinds_size(); ++i) {
    const int kind = f.kinds(i);
    if (kind < v1::QUERY_BODY_KIND_RIGID || kind > v1::QUERY_BODY_KIND_STRAND) {
      return InvalidField(absl::StrCat(field, ".kinds[", i, "]"), "must be a body kind");
    }
    out.kinds |= 1u << (kind - v1::QUERY_BODY_KIND_RIGID);
  }
  return out;
}

absl::StatusOr<QueryCall> QueryFromProto(const v1::SceneQuery& q, const std::string& field) {
  QueryCall call;
  LIGATURE_ASSIGN_OR_RETURN(call.filter, FilterFromProto(q.filter(), field + ".filter"));
  switch (q.query_case()) {
    case v1::SceneQuery::kRay: {
      const std::string f = field + ".ray";
      call.type = QueryCall::Type::kRay;
      LIGATURE_ASSIGN_OR_RETURN(call.origin, PositionFromProto(q.ray().origin(), f + ".origin"));
      LIGATURE_ASSIGN_OR_RETURN(call.direction,
                                DirectionFromProto(q.ray().direction(), f + ".direction"));
      LIGATURE_ASSIGN_OR_RETURN(call.max_distance,
                                ReachFromProto(q.ray().max_distance(), f + ".max_distance"));
      call.all_hits = q.ray().all_hits();
      return call;
    }
    case v1::SceneQuery::kShapeCast: {
      const std::string f = field + ".shape_cast";
      const v1::ShapeCastQuery& c = q.shape_cast();
      call.type = QueryCall::Type::kShapeCast;
      LIGATURE_ASSIGN_OR_RETURN(call.shape, QueryShapeFromProto(c.shape(), c.pose(), f));
      LIGATURE_ASSIGN_OR_RETURN(call.direction,
                                DirectionFromProto(c.direction(), f + ".direction"));
      LIGATURE_ASSIGN_OR_RETURN(call.max_distance,
                                ReachFromProto(c.max_distance(), f + ".max_distance"));
      return call;
    }
    case v1::SceneQuery::kOverlap: {
      const std::string f = field + ".overlap";
      const v1::OverlapQuery& o = q.overlap();
      call.type = QueryCall::Type::kOverlap;
      LIGATURE_ASSIGN_OR_RETURN(call.shape, QueryShapeFromProto(o.shape(), o.pose(), f));
      if (o.max_results() > kMaxQueriesPerRequest) {
        return InvalidField(f + ".max_results",
                            absl::StrCat("must be at most ", kMaxQueriesPerRequest));
      }
      if (o.max_results() > 0) call.max_results = o.max_results();
      return call;
    }
    case v1::SceneQuery::kClosestPoint: {
      const std::string f = field + ".closest_point";
      const v1::ClosestPointQuery& c = q.closest_point();
      call.type = QueryCall::Type::kClosestPoint;
      if (c.has_shape()) {
        LIGATURE_ASSIGN_OR_RETURN(call.shape, QueryShapeFromProto(c.shape(), c.pose(), f));
      } else {
        LIGATURE_ASSIGN_OR_RETURN(const Vec3 point, PositionFromProto(c.point(), f + ".point"));
        call.shape = ConvexCore{{point}, 0.0};
      }
      LIGATURE_ASSIGN_OR_RETURN(call.max_distance,
                                ReachFromProto(c.max_distance(), f + ".max_distance"));
      return call;
    }
    case v1::SceneQuery::QUERY_NOT_SET:
      break;
  }
  return InvalidField(field, "a query (ray, shape_cast, overlap or closest_point) is required");
}

void HitToProto(const Frame& frame, const QueryHit& hit, v1::QueryHit* out) {
  out->set_body(frame.bodies[hit.body].id);
  out->set_distance(hit.distance);
  Vec3ToProto(hit.point, out->mutable_point());
  Vec3ToProto(hit.normal, out->mutable_normal());
  out->set_child(hit.child);
  out->set_triangle(hit.triangle);
  out->set_segment(hit.segment);
  if (!std::isnan(hit.u)) out->set_u(hit.u);
}

// One call's hits: none or one, or (every hit, overlaps) a list.
std::vector<QueryHit> Answer(const SceneQuery& scene, const QueryCall& call, bool* truncated) {
  const auto one = [](std::optional<QueryHit> hit) {
    return hit ? std::vector<QueryHit>{*hit} : std::vector<QueryHit>{};
  };
  switch (call.type) {
    case QueryCall::Type::kRay:
      if (call.all_hits) {
        return scene.RaycastAll(call.origin, call.direction, call.max_distance, call.filter);
      }
      return one(scene.RaycastClosest(call.origin, call.direction, call.max_distance, call.filter));
    case QueryCall::Type::kShapeCast:
      return one(scene.ShapeCast(call.shape, call.direction, call.max_distance, call.filter));
    case QueryCall::Type::kOverlap:
      return scene.Overlap(call.shape, call.filter, call.max_results, truncated);
    case QueryCall::Type::kClosestPoint:
      return one(scene.Closest(call.shape, call.max_distance, call.filter));
  }
  return {};
}

}  // namespace

absl::StatusOr<std::vector<QueryCall>> QueriesFromProto(const v1::QueryRequest& request) {
  if (request.queries_size() > kMaxQueriesPerRequest) {
    return absl::ResourceExhaustedError(absl::StrCat(
        "queries: ", request.queries_size(), " in one request; at most ", kMaxQueriesPerRequest));
  }
  if (request.queries().empty()) return InvalidField("queries", "at least one query is required");
  std::vector<QueryCall> calls;
  calls.reserve(request.queries_size());
  for (int i = 0; i < request.queries_size(); ++i) {
    auto call = QueryFromProto(request.queries(i), absl::StrCat("queries[", i, "]"));
    if (!call.ok()) return call.status();
    calls.push_back(*std::move(call));
  }
  return calls;
}

v1::QueryResponse AnswerQueries(const SceneQuery& scene, const std::vector<QueryCall>& calls,
                                uint64_t request_id, size_t max_hits) {
  v1::QueryResponse out;
  const Frame& frame = scene.frame();
  out.set_world(frame.world);
  out.set_tick(frame.tick);
  out.set_sim_time(frame.sim_time);
  out.set_request_id(request_id);
  size_t hits_left = max_hits;
  for (const QueryCall& call : calls) {
    v1::QueryResult* result = out.add_results();
    // Past the response's budget of hits, what is left is dropped and says so.
    bool truncated = hits_left == 0;
    std::vector<QueryHit> hits;
    if (!truncated) hits = Answer(scene, call, &truncated);
    if (hits.size() > hits_left) {
      hits.resize(hits_left);
      truncated = true;
    }
    hits_left -= hits.size();
    result->set_truncated(truncated);
    for (const QueryHit& hit : hits) HitToProto(frame, hit, result->add_hits());
  }
  return out;
}

}  // namespace ligature
