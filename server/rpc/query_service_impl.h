#pragma once
// QueryService: scene queries answered from a world's newest published frame, one batch at a
// time or as a stream, on the calling thread, never waiting for the world's.

#include "ligature/v1/query_service.grpc.pb.h"
#include "server/host/world_manager.h"
#include "server/rpc/caller.h"

namespace ligature {

class QueryServiceImpl final : public v1::QueryService::Service {
 public:
  // `tokens` (may be null: no authentication) decides who may ask.
  explicit QueryServiceImpl(WorldManager* manager, const TokenStore* tokens = nullptr)
      : checks_{tokens, nullptr, manager} {}

  grpc::Status Query(grpc::ServerContext* ctx, const v1::QueryRequest* req,
                     v1::QueryResponse* resp) override;
  grpc::Status StreamQueries(
      grpc::ServerContext* ctx,
      grpc::ServerReaderWriter<v1::QueryResponse, v1::QueryRequest>* stream) override;

 private:
  // One request: the caller's viewer role on the world, the queries checked, then answered.
  absl::StatusOr<v1::QueryResponse> Answer(const grpc::ServerContext& ctx,
                                           const v1::QueryRequest& req) const;

  CallChecks checks_;
};

}  // namespace ligature
