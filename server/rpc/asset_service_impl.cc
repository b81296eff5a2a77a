#include "server/rpc/asset_service_impl.h"

#include <algorithm>

#include "server/rpc/names.h"
#include "server/rpc/status.h"

namespace ligature {
namespace {

// Assets belong to no world: reading needs some role somewhere, uploading the editor role on
// some world, deleting the owner role on every world. PERMISSION_DENIED says which.
absl::Status RequireAnywhere(const Grants& caller, Role role, const char* action) {
  bool allowed = caller.any_world.has_value() && *caller.any_world >= role;
  for (const auto& [world, granted] : caller.worlds) allowed = allowed || granted >= role;
  if (allowed) return absl::OkStatus();
  return absl::PermissionDeniedError(absl::StrCat(
      action, " an asset needs the ", role == Role::kViewer ? "viewer" : "editor",
      " role on some world"));
}

absl::Status RequireEverywhere(const Grants& caller, Role role, const char* action) {
  if (caller.any_world.has_value() && *caller.any_world >= role) return absl::OkStatus();
  return absl::PermissionDeniedError(
      absl::StrCat(action, " an asset needs the owner role on every world (*)"));
}

// The stored asset as a reply: metadata, and the geometry when asked for.
void StoredToProto(const StoredAsset& stored, bool geometry, v1::Asset* out) {
  MeshAssetToProto(*stored.mesh, geometry, out);
  out->set_display_name(stored.display_name);
}

}  // namespace

grpc::Status AssetServiceImpl::UploadAsset(grpc::ServerContext* ctx,
                                           const v1::UploadAssetRequest* req, v1::Asset* resp) {
  auto caller = CallerGrants(checks_.tokens, *ctx);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (auto s = RequireAnywhere(*caller, Role::kEditor, "uploading"); !s.ok()) {
    return ToGrpcStatus(s);
  }
  auto stored = checks_.manager->assets().Upload(req->asset());
  if (!stored.ok()) return ToGrpcStatus(stored.status());
  StoredToProto(*stored, false, resp);
  return grpc::Status::OK;
}

grpc::Status AssetServiceImpl::GetAsset(grpc::ServerContext* ctx, const v1::GetAssetRequest* req,
                                        v1::Asset* resp) {
  auto caller = CallerGrants(checks_.tokens, *ctx);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (auto s = RequireAnywhere(*caller, Role::kViewer, "reading"); !s.ok()) {
    return ToGrpcStatus(s);
  }
  auto name = ParseAssetName(req->name(), "name");
  if (!name.ok()) return ToGrpcStatus(name.status());
  auto stored = checks_.manager->assets().Get(*name);
  if (!stored.ok()) return ToGrpcStatus(stored.status());
  StoredToProto(*stored, !req->skip_geometry(), resp);
  return grpc::Status::OK;
}

grpc::Status AssetServiceImpl::ListAssets(grpc::ServerContext* ctx, const v1::ListAssetsRequest*,
                                          v1::ListAssetsResponse* resp) {
  auto caller = CallerGrants(checks_.tokens, *ctx);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (auto s = RequireAnywhere(*caller, Role::kViewer, "listing"); !s.ok()) {
    return ToGrpcStatus(s);
  }
  for (const StoredAsset& stored : checks_.manager->assets().List()) {
    StoredToProto(stored, false, resp->add_assets());
  }
  return grpc::Status::OK;
}

grpc::Status AssetServiceImpl::DeleteAsset(grpc::ServerContext* ctx,
                                           const v1::DeleteAssetRequest* req,
                                           v1::DeleteAssetResponse*) {
  auto caller = CallerGrants(checks_.tokens, *ctx);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (auto s = RequireEverywhere(*caller, Role::kOwner, "deleting"); !s.ok()) {
    return ToGrpcStatus(s);
  }
  auto name = ParseAssetName(req->name(), "name");
  if (!name.ok()) return ToGrpcStatus(name.status());
  return ToGrpcStatus(checks_.manager->assets().Delete(*name));
}

}  // namespace ligature
