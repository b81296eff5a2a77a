#include "server/rpc/asset_service_impl.h"

#include <algorithm>

#include "server/rpc/names.h"
#include "server/rpc/status.h"

namespace ligature {
namespace {

// Assets belong to no world: the caller's token, then its role, `role` on some world (or
// with `everywhere` on every world). UNAUTHENTICATED or PERMISSION_DENIED saying which.
absl::Status Admit(const TokenStore* tokens, const grpc::ServerContext& ctx, Role role,
                   bool everywhere, const char* action) {
  auto caller = CallerGrants(tokens, ctx);
  if (!caller.ok()) return caller.status();
  bool allowed = caller->any_world.has_value() && *caller->any_world >= role;
  if (!everywhere) {
    for (const auto& [world, granted] : caller->worlds) allowed = allowed || granted >= role;
  }
  if (allowed) return absl::OkStatus();
  const char* role_name = role == Role::kViewer   ? "viewer"
                          : role == Role::kEditor ? "editor"
                                                  : "owner";
  return absl::PermissionDeniedError(absl::StrCat(action, " an asset needs the ", role_name,
                                                  " role on ",
                                                  everywhere ? "every world (*)" : "some world"));
}

// The stored asset as a reply: metadata, and the geometry when asked for.
void StoredToProto(const StoredAsset& stored, bool geometry, v1::Asset* out) {
  MeshAssetToProto(*stored.mesh, geometry, out);
  out->set_display_name(stored.display_name);
}

}  // namespace

grpc::Status AssetServiceImpl::UploadAsset(grpc::ServerContext* ctx,
                                           const v1::UploadAssetRequest* req, v1::Asset* resp) {
  if (auto s = Admit(checks_.tokens, *ctx, Role::kEditor, false, "uploading"); !s.ok()) {
    return ToGrpcStatus(s);
  }
  auto stored = checks_.manager->assets().Upload(req->asset());
  if (!stored.ok()) return ToGrpcStatus(stored.status());
  StoredToProto(*stored, false, resp);
  return grpc::Status::OK;
}

grpc::Status AssetServiceImpl::GetAsset(grpc::ServerContext* ctx, const v1::GetAssetRequest* req,
                                        v1::Asset* resp) {
  if (auto s = Admit(checks_.tokens, *ctx, Role::kViewer, false, "reading"); !s.ok()) {
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
  if (auto s = Admit(checks_.tokens, *ctx, Role::kViewer, false, "listing"); !s.ok()) {
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
  if (auto s = Admit(checks_.tokens, *ctx, Role::kOwner, true, "deleting"); !s.ok()) {
    return ToGrpcStatus(s);
  }
  auto name = ParseAssetName(req->name(), "name");
  if (!name.ok()) return ToGrpcStatus(name.status());
  return ToGrpcStatus(checks_.manager->assets().Delete(*name));
}

}  // namespace ligature
