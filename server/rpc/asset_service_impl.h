#pragma once
// AssetService: mesh assets uploaded, read, listed and deleted in the WorldManager's store.

#include "ligature/v1/asset_service.grpc.pb.h"
#include "server/host/world_manager.h"
#include "server/rpc/caller.h"

namespace ligature {

class AssetServiceImpl final : public v1::AssetService::Service {
 public:
  // `tokens` (may be null: no authentication) decides who may do what.
  explicit AssetServiceImpl(WorldManager* manager, const TokenStore* tokens = nullptr)
      : checks_{tokens, nullptr, manager} {}

  grpc::Status UploadAsset(grpc::ServerContext* ctx, const v1::UploadAssetRequest* req,
                           v1::Asset* resp) override;
  grpc::Status GetAsset(grpc::ServerContext* ctx, const v1::GetAssetRequest* req,
                        v1::Asset* resp) override;
  grpc::Status ListAssets(grpc::ServerContext* ctx, const v1::ListAssetsRequest* req,
                          v1::ListAssetsResponse* resp) override;
  grpc::Status DeleteAsset(grpc::ServerContext* ctx, const v1::DeleteAssetRequest* req,
                           v1::DeleteAssetResponse* resp) override;

 private:
  CallChecks checks_;
};

}  // namespace ligature
