#include "server/rpc/names.h"

#include <regex>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "server/scene/scene_proto.h"

namespace ligature {

absl::StatusOr<std::string> ParseWorldName(const std::string& name, const std::string& field) {
  const std::vector<std::string> parts = absl::StrSplit(name, '/');
  if (parts.size() != 2 || parts[0] != "worlds") {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": expected worlds/{world}, got \"", name, "\""));
  }
  if (auto s = ValidateId(parts[1], field); !s.ok()) return s;
  return parts[1];
}

absl::StatusOr<std::string> ParseAssetName(const std::string& name, const std::string& field) {
  static const std::regex kName("assets/[0-9a-f]{64}");
  if (!std::regex_match(name, kName)) {
    return absl::InvalidArgumentError(absl::StrCat(
        field, ": expected assets/{sha256, 64 lower-case hex digits}, got \"",
        name.substr(0, 100), "\""));
  }
  return name;
}

absl::StatusOr<ChildName> ParseChildName(const std::string& name, const std::string& collection,
                                         const std::string& field) {
  const std::vector<std::string> parts = absl::StrSplit(name, '/');
  if (parts.size() != 4 || parts[0] != "worlds" || parts[2] != collection) {
    return absl::InvalidArgumentError(absl::StrCat(field, ": expected worlds/{world}/",
                                                   collection, "/{id}, got \"", name, "\""));
  }
  if (auto s = ValidateId(parts[1], field); !s.ok()) return s;
  if (auto s = ValidateId(parts[3], field); !s.ok()) return s;
  return ChildName{parts[1], parts[3]};
}

std::string BodyName(const std::string& world_id, const std::string& body_id) {
  return absl::StrCat("worlds/", world_id, "/bodies/", body_id);
}

std::string ConstraintName(const std::string& world_id, const std::string& constraint_id) {
  return absl::StrCat("worlds/", world_id, "/constraints/", constraint_id);
}

}  // namespace ligature
