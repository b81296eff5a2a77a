#pragma once
// ligature.v1 scene queries -> the calls a SceneQuery answers, with validation, and the
// answers -> ligature.v1. Every error names the offending field ("queries[3].ray.direction").

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/statusor.h"
#include "ligature/v1/query_service.pb.h"
#include "server/world/query/scene_query.h"

namespace ligature {

inline constexpr int kMaxQueriesPerRequest = 65536;
// The reach of a ray or cast, or the search radius, when the request leaves it at 0 (m).
inline constexpr double kDefaultQueryReach = 1e4;
inline constexpr uint32_t kDefaultOverlapResults = 256;
// Hits one response carries at most; queries past it come back empty and truncated.
inline constexpr size_t kMaxHitsPerResponse = size_t{1} << 20;

// One query of a request, checked.
struct QueryCall {
  enum class Type : uint8_t { kRay, kShapeCast, kOverlap, kClosestPoint };
  Type type = Type::kRay;
  Vec3 origin = Vec3::Zero();      // ray
  Vec3 direction = Vec3::UnitX();  // ray and cast: unit
  double max_distance = kDefaultQueryReach;
  bool all_hits = false;                        // ray
  ConvexCore shape;                             // cast, overlap, closest point (a point: one point)
  size_t max_results = kDefaultOverlapResults;  // overlap
  QueryFilter filter;
};

// INVALID_ARGUMENT naming the field for a bad query; RESOURCE_EXHAUSTED naming `queries`
// for a batch larger than kMaxQueriesPerRequest.
absl::StatusOr<std::vector<QueryCall>> QueriesFromProto(const v1::QueryRequest& request);

// Every call answered against `scene`, in order, with at most `max_hits` hits in all.
v1::QueryResponse AnswerQueries(const SceneQuery& scene, const std::vector<QueryCall>& calls,
                                uint64_t request_id, size_t max_hits = kMaxHitsPerResponse);

}  // namespace ligature
