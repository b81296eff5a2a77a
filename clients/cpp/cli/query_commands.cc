// Commands that ask a world: a ray, a shape cast, an overlap, the closest point. Each prints
// the tick it was answered at, then one line a hit.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "clients/cpp/cli/command.h"
#include "clients/cpp/cli/value_parse.h"
#include "clients/cpp/client.h"
#include "server/base/status_macros.h"

namespace ligature::client::cli {

namespace {

namespace v1 = ::ligature::v1;

std::string Vec3Text(const v1::Vec3& v) { return absl::StrFormat("%g,%g,%g", v.x(), v.y(), v.z()); }

// "body  distance D  point x,y,z  normal x,y,z" and what part was hit, where it applies.
std::string HitLine(const v1::QueryHit& hit) {
  std::string line = absl::StrFormat("%s  distance %.6g  point %s  normal %s", hit.body(),
                                     hit.distance(), Vec3Text(hit.point()), Vec3Text(hit.normal()));
  if (hit.child() >= 0) absl::StrAppend(&line, "  child ", hit.child());
  if (hit.triangle() >= 0) absl::StrAppend(&line, "  triangle ", hit.triangle());
  if (hit.segment() >= 0) absl::StrAppend(&line, "  segment ", hit.segment());
  if (hit.has_u()) absl::StrAppend(&line, absl::StrFormat("  u %.6g", hit.u()));
  return line;
}

// The filter every query command takes: --exclude a,b.
absl::StatusOr<v1::QueryFilter> Filter(const Invocation& invocation) {
  v1::QueryFilter filter;
  LIGATURE_ASSIGN_OR_RETURN(const auto exclude, OptionalFlag(invocation, "exclude", ParseIdList));
  if (exclude) {
    for (const std::string& id : *exclude) filter.add_exclude_bodies(id);
  }
  return filter;
}

// Sends one query and prints the answer.
absl::Status Ask(const Invocation& invocation, v1::SceneQuery query) {
  LIGATURE_ASSIGN_OR_RETURN(*query.mutable_filter(), Filter(invocation));
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  LIGATURE_ASSIGN_OR_RETURN(const v1::QueryResponse resp,
                            connected->Query(invocation.args.positional[0], {query}));
  invocation.out << "tick " << resp.tick() << "\n";
  for (const v1::QueryHit& hit : resp.results(0).hits()) invocation.out << HitLine(hit) << "\n";
  if (resp.results(0).truncated()) invocation.out << "(more left out)\n";
  return absl::OkStatus();
}

absl::StatusOr<double> Reach(const Invocation& invocation) {
  LIGATURE_ASSIGN_OR_RETURN(const auto max, OptionalFlag(invocation, "max", ParseNumber));
  return max.value_or(0.0);
}

absl::Status Ray(const Invocation& invocation) {
  v1::SceneQuery query;
  v1::RayQuery* ray = query.mutable_ray();
  LIGATURE_ASSIGN_OR_RETURN(*ray->mutable_origin(), RequiredFlag(invocation, "from", ParseVec3));
  LIGATURE_ASSIGN_OR_RETURN(*ray->mutable_direction(), RequiredFlag(invocation, "dir", ParseVec3));
  LIGATURE_ASSIGN_OR_RETURN(const double reach, Reach(invocation));
  ray->set_max_distance(reach);
  ray->set_all_hits(invocation.args.Has("all"));
  return Ask(invocation, query);
}

absl::Status Cast(const Invocation& invocation) {
  v1::SceneQuery query;
  v1::ShapeCastQuery* cast = query.mutable_shape_cast();
  LIGATURE_ASSIGN_OR_RETURN(*cast->mutable_shape(),
                            RequiredFlag(invocation, "shape", ParseShapeSpec));
  LIGATURE_ASSIGN_OR_RETURN(*cast->mutable_pose()->mutable_position(),
                            RequiredFlag(invocation, "from", ParseVec3));
  LIGATURE_ASSIGN_OR_RETURN(*cast->mutable_direction(), RequiredFlag(invocation, "dir", ParseVec3));
  LIGATURE_ASSIGN_OR_RETURN(const double reach, Reach(invocation));
  cast->set_max_distance(reach);
  return Ask(invocation, query);
}

absl::Status Overlap(const Invocation& invocation) {
  v1::SceneQuery query;
  v1::OverlapQuery* overlap = query.mutable_overlap();
  LIGATURE_ASSIGN_OR_RETURN(*overlap->mutable_shape(),
                            RequiredFlag(invocation, "shape", ParseShapeSpec));
  LIGATURE_ASSIGN_OR_RETURN(*overlap->mutable_pose()->mutable_position(),
                            RequiredFlag(invocation, "at", ParseVec3));
  return Ask(invocation, query);
}

absl::Status Closest(const Invocation& invocation) {
  v1::SceneQuery query;
  v1::ClosestPointQuery* closest = query.mutable_closest_point();
  LIGATURE_ASSIGN_OR_RETURN(const v1::Vec3 at, RequiredFlag(invocation, "at", ParseVec3));
  LIGATURE_ASSIGN_OR_RETURN(const auto shape, OptionalFlag(invocation, "shape", ParseShapeSpec));
  if (shape) {
    *closest->mutable_shape() = *shape;
    *closest->mutable_pose()->mutable_position() = at;
  } else {
    *closest->mutable_point() = at;
  }
  LIGATURE_ASSIGN_OR_RETURN(const double reach, Reach(invocation));
  closest->set_max_distance(reach);
  return Ask(invocation, query);
}

}  // namespace

std::vector<Command> QueryCommands() {
  return {
      {{"query", "ray"},
       {"W"},
       "--from x,y,z --dir x,y,z [--max M] [--all] [--exclude a,b]",
       "Cast a ray: the nearest hit, or with --all every body's first hit.",
       {{"from"}, {"dir"}, {"max"}, {"all", false}, {"exclude"}},
       Ray},
      {{"query", "cast"},
       {"W"},
       "--shape SHAPE --from x,y,z --dir x,y,z [--max M] [--exclude a,b]",
       "Sweep a shape: the first body it touches and how far it got.",
       {{"shape"}, {"from"}, {"dir"}, {"max"}, {"exclude"}},
       Cast},
      {{"query", "overlap"},
       {"W"},
       "--shape SHAPE --at x,y,z [--exclude a,b]",
       "List the bodies a shape placed at a point overlaps.",
       {{"shape"}, {"at"}, {"exclude"}},
       Overlap},
      {{"query", "closest"},
       {"W"},
       "--at x,y,z [--shape SHAPE] [--max M] [--exclude a,b]",
       "The body nearest a point (or a shape there): the point on it and the gap.",
       {{"at"}, {"shape"}, {"max"}, {"exclude"}},
       Closest},
  };
}

}  // namespace ligature::client::cli
