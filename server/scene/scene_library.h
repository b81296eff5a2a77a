#pragma once
// Built-in scenes (embedded from server/scenes/ at build time) and scene files on disk.
// Files are ligature.v1.Scene in protobuf text format (.textproto, .txtpb, .pbtxt) or JSON.

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "ligature/v1/scene.pb.h"

namespace ligature {

struct EmbeddedScene {
  const char* file;  // e.g. "default.textproto"
  const char* text;
};
const std::vector<EmbeddedScene>& EmbeddedScenes();

// Names of the built-in scenes: file names without extension, and the generated scenes,
// sorted.
std::vector<std::string> BuiltinSceneNames();
absl::StatusOr<v1::Scene> LoadBuiltinScene(const std::string& name);

// Parses scene text; `source` names it in errors, and its extension picks the format.
absl::StatusOr<v1::Scene> ParseScene(const std::string& text, const std::string& source);
absl::StatusOr<v1::Scene> LoadSceneFile(const std::string& path);

}  // namespace ligature
