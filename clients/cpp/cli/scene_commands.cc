// Commands on a world's content as a whole: scene export.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/cpp/cli/command.h"
#include "server/base/status_macros.h"
#include "clients/cpp/client.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/util/json_util.h"

namespace ligature::client::cli {

namespace {

namespace v1 = ::ligature::v1;

// scene export: the output is a valid scene file in either format, so it can be saved and
// given back to `worlds create --scene`.
absl::Status ExportScene(const Invocation& invocation) {
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;
  LIGATURE_ASSIGN_OR_RETURN(const v1::Scene scene,
                            client.ExportScene(invocation.args.positional[0]));

  if (invocation.args.Has("json")) {
    google::protobuf::util::JsonPrintOptions options;
    options.add_whitespace = true;
    std::string json;
    auto status = google::protobuf::util::MessageToJsonString(scene, &json, options);
    if (!status.ok()) {
      return absl::InternalError(
          absl::StrCat("cannot render scene as JSON: ", status.message().ToString()));
    }
    invocation.out << json;
    if (json.empty() || json.back() != '\n') invocation.out << "\n";
    return absl::OkStatus();
  }

  // The header comments name the message type, as text format files conventionally do.
  std::string text;
  google::protobuf::TextFormat::PrintToString(scene, &text);
  invocation.out << "# proto-file: ligature/v1/scene.proto\n"
                 << "# proto-message: ligature.v1.Scene\n"
                 << text;
  return absl::OkStatus();
}

}  // namespace

std::vector<Command> SceneCommands() {
  return {
      {{"scene", "export"},
       {"W"},
       "[--json]",
       "Print a world's content as a scene file (text format, or JSON).",
       {{"json", false}},
       ExportScene},
  };
}

}  // namespace ligature::client::cli
