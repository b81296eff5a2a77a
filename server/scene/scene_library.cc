#include "server/scene/scene_library.h"

#include <algorithm>
#include <fstream>
#include <sstream>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"
#include "server/scene/generated_scenes.h"

namespace ligature {
namespace {

// Collects the text-format parser's errors so they reach the caller instead of stderr.
class ErrorCollector : public google::protobuf::io::ErrorCollector {
 public:
  void AddError(int line, google::protobuf::io::ColumnNumber column,
                const std::string& message) override {
    if (first_.empty()) first_ = absl::StrCat("line ", line + 1, ":", column + 1, ": ", message);
  }
  const std::string& first() const { return first_; }

 private:
  std::string first_;
};

std::string StemOf(const std::string& file) {
  const size_t dot = file.find('.');
  return dot == std::string::npos ? file : file.substr(0, dot);
}

}  // namespace

std::vector<std::string> BuiltinSceneNames() {
  std::vector<std::string> names;
  for (const EmbeddedScene& s : EmbeddedScenes()) names.push_back(StemOf(s.file));
  for (std::string& name : GeneratedSceneNames()) names.push_back(std::move(name));
  std::sort(names.begin(), names.end());
  return names;
}

absl::StatusOr<v1::Scene> LoadBuiltinScene(const std::string& name) {
  for (const EmbeddedScene& s : EmbeddedScenes()) {
    if (StemOf(s.file) == name) return ParseScene(s.text, s.file);
  }
  if (std::optional<v1::Scene> scene = GenerateScene(name)) return *std::move(scene);
  return absl::NotFoundError(absl::StrCat("no built-in scene named \"", name, "\"; built-in: ",
                                          absl::StrJoin(BuiltinSceneNames(), ", ")));
}

absl::StatusOr<v1::Scene> ParseScene(const std::string& text, const std::string& source) {
  v1::Scene scene;
  if (absl::EndsWith(source, ".json")) {
    const auto status = google::protobuf::util::JsonStringToMessage(text, &scene);
    if (!status.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(source, ": not a valid ligature.v1.Scene in JSON: ", status.message().as_string()));
    }
    return scene;
  }
  google::protobuf::TextFormat::Parser parser;
  ErrorCollector errors;
  parser.RecordErrorsTo(&errors);
  if (!parser.ParseFromString(text, &scene)) {
    return absl::InvalidArgumentError(
        absl::StrCat(source, ": not a valid ligature.v1.Scene in text format: ", errors.first()));
  }
  return scene;
}

absl::StatusOr<v1::Scene> LoadSceneFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(absl::StrCat("cannot open scene file ", path));
  std::ostringstream text;
  text << in.rdbuf();
  return ParseScene(text.str(), path);
}

}  // namespace ligature
