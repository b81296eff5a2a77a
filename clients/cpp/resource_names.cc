#include "clients/cpp/resource_names.h"

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace ligature::client {

namespace {
constexpr absl::string_view kWorldsPrefix = "worlds/";
}  // namespace

std::string WorldName(absl::string_view world) {
  if (absl::StartsWith(world, kWorldsPrefix)) return std::string(world);
  return absl::StrCat(kWorldsPrefix, world);
}

std::string BodyName(absl::string_view world, absl::string_view body_id) {
  return absl::StrCat(WorldName(world), "/bodies/", body_id);
}

std::string ConstraintName(absl::string_view world, absl::string_view constraint_id) {
  return absl::StrCat(WorldName(world), "/constraints/", constraint_id);
}

}  // namespace ligature::client
