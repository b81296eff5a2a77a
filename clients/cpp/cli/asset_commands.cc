// Commands on mesh assets: upload a mesh file, list, show and delete stored assets.

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "clients/cpp/cli/command.h"
#include "clients/cpp/client.h"
#include "google/protobuf/text_format.h"
#include "server/base/status_macros.h"

namespace ligature::client::cli {

namespace {

namespace v1 = ::ligature::v1;

// One line an asset: name, counts, size and display name.
std::string AssetLine(const v1::Asset& asset) {
  return absl::StrFormat("%s  %u vertices  %u triangles  %u bytes  %s", asset.name(),
                         asset.vertex_count(), asset.triangle_count(), asset.size_bytes(),
                         asset.display_name());
}

// assets upload: imports each file and uploads it; prints one line an asset.
absl::Status UploadAssets(const Invocation& invocation) {
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  LIGATURE_ASSIGN_OR_RETURN(const v1::Asset asset,
                            connected->UploadMeshFile(invocation.args.positional[0]));
  invocation.out << AssetLine(asset) << "\n";
  return absl::OkStatus();
}

absl::Status ListAssets(const Invocation& invocation) {
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  LIGATURE_ASSIGN_OR_RETURN(const std::vector<v1::Asset> assets, connected->ListAssets());
  for (const v1::Asset& asset : assets) invocation.out << AssetLine(asset) << "\n";
  return absl::OkStatus();
}

// assets get: the summary line, or with --geometry the whole asset in text format.
absl::Status GetAsset(const Invocation& invocation) {
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  const bool geometry = invocation.args.Has("geometry");
  LIGATURE_ASSIGN_OR_RETURN(const v1::Asset asset,
                            connected->GetAsset(invocation.args.positional[0], !geometry));
  if (!geometry) {
    invocation.out << AssetLine(asset) << "\n";
    return absl::OkStatus();
  }
  std::string text;
  google::protobuf::TextFormat::PrintToString(asset, &text);
  invocation.out << text;
  return absl::OkStatus();
}

absl::Status DeleteAsset(const Invocation& invocation) {
  LIGATURE_ASSIGN_OR_RETURN(const std::unique_ptr<Client> connected, Connect(invocation));
  return connected->DeleteAsset(invocation.args.positional[0]);
}

}  // namespace

std::vector<Command> AssetCommands() {
  return {
      {{"assets", "upload"},
       {"FILE"},
       "",
       "Upload a mesh file (.gltf, .glb, .obj, .stl, .ply) as an asset; prints its name.",
       {},
       UploadAssets},
      {{"assets", "list"}, {}, "", "List the stored mesh assets.", {}, ListAssets},
      {{"assets", "get"},
       {"NAME"},
       "[--geometry]",
       "Print an asset (assets/{sha256}); with --geometry, all of it in text format.",
       {{"geometry", false}},
       GetAsset},
      {{"assets", "delete"}, {"NAME"}, "", "Delete a stored asset.", {}, DeleteAsset},
  };
}

}  // namespace ligature::client::cli
