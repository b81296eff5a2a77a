#pragma once
// Scene files: a ligature.v1.Scene in protobuf text format or JSON.

#include <optional>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ligature/v1/scene.pb.h"

namespace ligature::client {

enum class SceneFormat { kText, kJson };

// The format implied by the extension of `path`: .textproto, .txtpb and .pbtxt are text
// format, .json is JSON; anything else has no format.
std::optional<SceneFormat> SceneFormatForPath(absl::string_view path);

// Whether a --scene style argument names a scene file rather than a built-in scene: true
// when a file exists at `spec` or its extension is a scene file extension.
bool IsSceneFileSpec(absl::string_view spec);

// Parses `content` as a Scene in `format`. `source_name` (usually the file path) prefixes
// every error message. Parse errors are INVALID_ARGUMENT.
absl::StatusOr<ligature::v1::Scene> ParseScene(absl::string_view content, SceneFormat format,
                                               absl::string_view source_name);

// Reads and parses the scene file at `path`, choosing the format from its extension.
// Errors name the file: NOT_FOUND when it cannot be read, INVALID_ARGUMENT for an unknown
// extension or content that does not parse.
absl::StatusOr<ligature::v1::Scene> LoadSceneFile(absl::string_view path);

}  // namespace ligature::client
