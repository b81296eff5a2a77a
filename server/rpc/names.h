#pragma once
// Resource names: worlds/{world}, worlds/{world}/bodies/{body},
// worlds/{world}/constraints/{constraint}, assets/{sha256}.

#include <string>

#include "absl/status/statusor.h"

namespace ligature {

struct ChildName {
  std::string world;  // world id
  std::string child;  // body or constraint id
};

// Parses worlds/{world}; `field` names the request field in errors.
absl::StatusOr<std::string> ParseWorldName(const std::string& name, const std::string& field);
// Checks assets/{sha256} and returns it whole.
absl::StatusOr<std::string> ParseAssetName(const std::string& name, const std::string& field);
// Parses worlds/{world}/{collection}/{id}, collection being "bodies" or "constraints".
absl::StatusOr<ChildName> ParseChildName(const std::string& name, const std::string& collection,
                                         const std::string& field);
std::string BodyName(const std::string& world_id, const std::string& body_id);
std::string ConstraintName(const std::string& world_id, const std::string& constraint_id);

}  // namespace ligature
