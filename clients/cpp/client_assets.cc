// Client: the AssetService calls, and the mesh files a scene names uploaded as assets.

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "clients/cpp/client.h"
#include "clients/cpp/mesh_import.h"

namespace ligature::client {
namespace {

// Every shape of the scene's rigid bodies (compound children too) that names a mesh file,
// with the path of its body for messages.
std::vector<std::pair<std::string, v1::MeshAssetShape*>> ShapesNamingFiles(v1::Scene* scene) {
  std::vector<std::pair<std::string, v1::MeshAssetShape*>> out;
  for (int b = 0; b < scene->bodies_size(); ++b) {
    v1::Shape* shape = scene->mutable_bodies(b)->mutable_shape();
    const std::string field = absl::StrCat("bodies[", b, "].shape");
    if (shape->has_mesh_asset() && !shape->mesh_asset().file().empty()) {
      out.emplace_back(field + ".mesh_asset", shape->mutable_mesh_asset());
    }
    if (!shape->has_compound()) continue;
    for (int c = 0; c < shape->compound().children_size(); ++c) {
      v1::Shape* child = shape->mutable_compound()->mutable_children(c)->mutable_shape();
      if (child->has_mesh_asset() && !child->mesh_asset().file().empty()) {
        out.emplace_back(absl::StrCat(field, ".compound.children[", c, "].shape.mesh_asset"),
                         child->mutable_mesh_asset());
      }
    }
  }
  return out;
}

}  // namespace

absl::StatusOr<v1::Asset> Client::UploadAsset(const v1::TriangleMesh& mesh,
                                              absl::string_view display_name) {
  v1::UploadAssetRequest request;
  request.mutable_asset()->set_display_name(std::string(display_name));
  *request.mutable_asset()->mutable_mesh() = mesh;
  return Call<v1::Asset>(*assets_, &v1::AssetService::Stub::UploadAsset, request);
}

absl::StatusOr<v1::Asset> Client::UploadMeshFile(absl::string_view path) {
  absl::StatusOr<v1::TriangleMesh> mesh = ImportMeshFile(path);
  if (!mesh.ok()) return mesh.status();
  return UploadAsset(*mesh, std::filesystem::path(std::string(path)).filename().string());
}

absl::StatusOr<v1::Asset> Client::GetAsset(absl::string_view name, bool skip_geometry) {
  v1::GetAssetRequest request;
  request.set_name(std::string(name));
  request.set_skip_geometry(skip_geometry);
  return Call<v1::Asset>(*assets_, &v1::AssetService::Stub::GetAsset, request);
}

absl::StatusOr<std::vector<v1::Asset>> Client::ListAssets() {
  absl::StatusOr<v1::ListAssetsResponse> response = Call<v1::ListAssetsResponse>(
      *assets_, &v1::AssetService::Stub::ListAssets, v1::ListAssetsRequest());
  if (!response.ok()) return response.status();
  return std::vector<v1::Asset>(response->assets().begin(), response->assets().end());
}

absl::Status Client::DeleteAsset(absl::string_view name) {
  v1::DeleteAssetRequest request;
  request.set_name(std::string(name));
  return Call<v1::DeleteAssetResponse>(*assets_, &v1::AssetService::Stub::DeleteAsset, request)
      .status();
}

absl::Status Client::UploadSceneMeshFiles(v1::Scene* scene, absl::string_view base_dir) {
  std::map<std::string, std::string> uploaded;  // path -> asset name
  for (auto& [field, shape] : ShapesNamingFiles(scene)) {
    const std::filesystem::path file(shape->file());
    const std::string path =
        (file.is_absolute() ? file : std::filesystem::path(std::string(base_dir)) / file)
            .lexically_normal()
            .string();
    auto found = uploaded.find(path);
    if (found == uploaded.end()) {
      absl::StatusOr<v1::Asset> asset = UploadMeshFile(path);
      if (!asset.ok()) {
        return absl::Status(asset.status().code(),
                            absl::StrCat(field, ".file: ", asset.status().message()));
      }
      found = uploaded.emplace(path, asset->name()).first;
    }
    shape->set_asset(found->second);
    shape->clear_file();
  }
  return absl::OkStatus();
}

}  // namespace ligature::client
