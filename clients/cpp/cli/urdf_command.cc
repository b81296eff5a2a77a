// urdf import: a robot from a URDF file added to a world, its mesh files uploaded as assets.

#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "clients/cpp/cli/command.h"
#include "clients/cpp/cli/value_parse.h"
#include "clients/cpp/client.h"
#include "clients/cpp/urdf_import.h"
#include "server/base/status_macros.h"

namespace ligature::client::cli {

namespace {

namespace v1 = ::ligature::v1;

// --package NAME=DIR,NAME=DIR: where package:// URIs point.
absl::StatusOr<std::map<std::string, std::string>> ParsePackages(absl::string_view text) {
  std::map<std::string, std::string> out;
  for (absl::string_view item : absl::StrSplit(text, ',', absl::SkipEmpty())) {
    const std::vector<std::string> parts = absl::StrSplit(item, absl::MaxSplits('=', 1));
    if (parts.size() != 2 || parts[0].empty() || parts[1].empty()) {
      return absl::InvalidArgumentError(absl::StrCat("expected NAME=DIR, got \"", item, "\""));
    }
    out[parts[0]] = parts[1];
  }
  return out;
}

// Imports, uploads the meshes, adds everything in one batch; prints what was created, and
// on the error stream what the import left out.
absl::Status ImportUrdfCommand(const Invocation& invocation) {
  UrdfOptions options;
  if (const std::string* prefix = invocation.args.Find("prefix")) options.id_prefix = *prefix;
  LIGATURE_ASSIGN_OR_RETURN(const std::optional<v1::Vec3> position,
                            OptionalFlag(invocation, "pos", ParseVec3));
  if (position) *options.base_pose.mutable_position() = *position;
  options.fixed_base = !invocation.args.Has("floating-base");
  if (const std::string* packages = invocation.args.Find("package")) {
    auto parsed = ParsePackages(*packages);
    if (!parsed.ok()) return UsageError(absl::StrCat("--package: ", parsed.status().message()));
    options.package_dirs = *parsed;
  }
  if (const std::string* drives = invocation.args.Find("drives")) {
    const std::vector<std::string> gains = absl::StrSplit(*drives, ',');
    if (gains.size() != 2) return UsageError("--drives: expected STIFFNESS,DAMPING");
    const absl::StatusOr<double> stiffness = ParseNumber(gains[0]);
    const absl::StatusOr<double> damping = ParseNumber(gains[1]);
    if (!stiffness.ok() || !damping.ok()) {
      return UsageError("--drives: expected STIFFNESS,DAMPING");
    }
    options.drives = UrdfOptions::Drives{*stiffness, *damping};
  }
  LIGATURE_ASSIGN_OR_RETURN(UrdfImport robot,
                            ImportUrdf(invocation.args.positional[1], options));
  for (const std::string& line : robot.unsupported) invocation.err << "note: " << line << "\n";

  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  Client& client = *connected;
  LIGATURE_RETURN_IF_ERROR(client.UploadSceneMeshFiles(&robot.scene, ""));
  LIGATURE_ASSIGN_OR_RETURN(const std::vector<std::string> created,
                            client.AddToWorld(invocation.args.positional[0], robot.scene));
  for (const std::string& name : created) invocation.out << name << "\n";
  return absl::OkStatus();
}

}  // namespace

std::vector<Command> UrdfCommands() {
  return {
      {{"urdf", "import"},
       {"W", "FILE"},
       "[--prefix P] [--pos x,y,z] [--floating-base] [--package NAME=DIR,...] "
       "[--drives STIFFNESS,DAMPING]",
       "Add the robot of a URDF file to world W (links as bodies, joints as constraints; mesh "
       "files uploaded as assets); prints what it created and notes what it left out. "
       "--drives gives every moving joint a spring drive holding its start, at most its URDF "
       "effort, for teleoperation through drive targets.",
       {{"prefix"}, {"pos"}, {"floating-base", false}, {"package"}, {"drives"}},
       ImportUrdfCommand},
  };
}

}  // namespace ligature::client::cli
