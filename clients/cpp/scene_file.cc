#include "clients/cpp/scene_file.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"

namespace ligature::client {

namespace {

// Collects text format parse errors as "line:column: message" (1-based), so that the
// whole list can be reported in one status instead of being logged to stderr.
class TextErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    errors_.push_back(absl::StrCat(line + 1, ":", column + 1, ": ", message));
  }
  void AddWarning(int, google::protobuf::io::ColumnNumber, const std::string&) override {}

  const std::vector<std::string>& errors() const { return errors_; }

 private:
  std::vector<std::string> errors_;
};

absl::StatusOr<ligature::v1::Scene> ParseTextScene(absl::string_view content,
                                                   absl::string_view source_name) {
  ligature::v1::Scene scene;
  TextErrorCollector collector;
  google::protobuf::TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  // ParseFromString takes a ConstStringParam, which is a const std::string& here.
  if (!parser.ParseFromString(std::string(content), &scene)) {
    if (collector.errors().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(source_name, ": text format parse error"));
    }
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ":", absl::StrJoin(collector.errors(), "; ")));
  }
  return scene;
}

absl::StatusOr<ligature::v1::Scene> ParseJsonScene(absl::string_view content,
                                                   absl::string_view source_name) {
  ligature::v1::Scene scene;
  // Unknown fields are errors: a misspelt key in a scene file should not be ignored.
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  auto status = google::protobuf::util::JsonStringToMessage(
      google::protobuf::StringPiece(content.data(), content.size()), &scene, options);
  if (!status.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat(source_name, ": JSON parse error: ", status.message().ToString()));
  }
  return scene;
}

}  // namespace

std::optional<SceneFormat> SceneFormatForPath(absl::string_view path) {
  const std::string lower = absl::AsciiStrToLower(path);
  for (absl::string_view ext : {".textproto", ".txtpb", ".pbtxt"}) {
    if (absl::EndsWith(lower, ext)) return SceneFormat::kText;
  }
  if (absl::EndsWith(lower, ".json")) return SceneFormat::kJson;
  return std::nullopt;
}

bool IsSceneFileSpec(absl::string_view spec) {
  if (SceneFormatForPath(spec).has_value()) return true;
  std::error_code error;
  return std::filesystem::exists(std::filesystem::path(std::string(spec)), error);
}

absl::StatusOr<ligature::v1::Scene> ParseScene(absl::string_view content, SceneFormat format,
                                               absl::string_view source_name) {
  switch (format) {
    case SceneFormat::kText:
      return ParseTextScene(content, source_name);
    case SceneFormat::kJson:
      return ParseJsonScene(content, source_name);
  }
  return absl::InternalError("unknown scene format");
}

absl::StatusOr<ligature::v1::Scene> LoadSceneFile(absl::string_view path) {
  const std::optional<SceneFormat> format = SceneFormatForPath(path);
  if (!format.has_value()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "scene file ", path, ": unknown extension (expected .textproto, .txtpb, .pbtxt or .json)"));
  }

  // A directory opens as a stream on Linux but reads as empty; refuse it explicitly.
  std::error_code error;
  if (std::filesystem::is_directory(std::filesystem::path(std::string(path)), error)) {
    return absl::InvalidArgumentError(absl::StrCat("scene file ", path, " is a directory"));
  }

  // Read the whole file; scenes are small enough to hold in memory twice.
  std::ifstream in{std::string(path), std::ios::binary};
  if (!in) {
    return absl::NotFoundError(
        absl::StrCat("cannot read scene file ", path, ": ", std::strerror(errno)));
  }
  std::ostringstream content;
  content << in.rdbuf();
  if (in.bad()) {
    return absl::DataLossError(absl::StrCat("error reading scene file ", path));
  }
  return ParseScene(content.str(), *format, absl::StrCat("scene file ", path));
}

}  // namespace ligature::client
