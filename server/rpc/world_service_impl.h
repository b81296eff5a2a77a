#pragma once
// WorldService: thin handlers that validate, convert and forward to the WorldManager.

#include "ligature/v1/world_service.grpc.pb.h"
#include "server/rpc/caller.h"
#include "server/host/world_manager.h"

namespace ligature {

class WorldServiceImpl final : public v1::WorldService::Service {
 public:
  // `tokens` (may be null: no authentication) decides who may do what.
  explicit WorldServiceImpl(WorldManager* manager, const TokenStore* tokens = nullptr)
      : checks_{tokens, nullptr, manager} {}

  grpc::Status CreateWorld(grpc::ServerContext* ctx, const v1::CreateWorldRequest* req,
                           v1::World* resp) override;
  grpc::Status GetWorld(grpc::ServerContext* ctx, const v1::GetWorldRequest* req,
                        v1::World* resp) override;
  grpc::Status ListWorlds(grpc::ServerContext* ctx, const v1::ListWorldsRequest* req,
                          v1::ListWorldsResponse* resp) override;
  grpc::Status UpdateWorld(grpc::ServerContext* ctx, const v1::UpdateWorldRequest* req,
                           v1::World* resp) override;
  grpc::Status DeleteWorld(grpc::ServerContext* ctx, const v1::DeleteWorldRequest* req,
                           v1::DeleteWorldResponse* resp) override;
  grpc::Status StepWorld(grpc::ServerContext* ctx, const v1::StepWorldRequest* req,
                         v1::Frame* resp) override;
  grpc::Status SaveSnapshot(grpc::ServerContext* ctx, const v1::SaveSnapshotRequest* req,
                            v1::SaveSnapshotResponse* resp) override;
  grpc::Status RestoreSnapshot(grpc::ServerContext* ctx, const v1::RestoreSnapshotRequest* req,
                               v1::World* resp) override;

 private:
  CallChecks checks_;
};

}  // namespace ligature
