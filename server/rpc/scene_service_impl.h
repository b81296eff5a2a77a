#pragma once
// SceneService: edits are validated and converted here, then applied by the world's own
// thread at its next tick.

#include <functional>
#include <string>

#include "ligature/v1/scene_service.grpc.pb.h"
#include "server/rpc/caller.h"
#include "server/rpc/edits.h"
#include "server/host/world_manager.h"

namespace ligature {

class SceneServiceImpl final : public v1::SceneService::Service {
 public:
  // `limiter` (may be null: no limit) meters each client's edits; `tokens` (may be null:
  // no authentication) decides who may do what.
  explicit SceneServiceImpl(WorldManager* manager, EditRateLimiter* limiter = nullptr,
                            const TokenStore* tokens = nullptr)
      : checks_{tokens, limiter, manager} {}

  grpc::Status CreateBody(grpc::ServerContext* ctx, const v1::CreateBodyRequest* req,
                          v1::Body* resp) override;
  grpc::Status UpdateBody(grpc::ServerContext* ctx, const v1::UpdateBodyRequest* req,
                          v1::Body* resp) override;
  grpc::Status UpdateConstraint(grpc::ServerContext* ctx, const v1::UpdateConstraintRequest* req,
                                v1::Constraint* resp) override;
  grpc::Status DeleteBody(grpc::ServerContext* ctx, const v1::DeleteBodyRequest* req,
                          v1::DeleteBodyResponse* resp) override;
  grpc::Status CreateConstraint(grpc::ServerContext* ctx,
                                const v1::CreateConstraintRequest* req,
                                v1::Constraint* resp) override;
  grpc::Status DeleteConstraint(grpc::ServerContext* ctx,
                                const v1::DeleteConstraintRequest* req,
                                v1::DeleteConstraintResponse* resp) override;
  grpc::Status SetConstraintEnabled(grpc::ServerContext* ctx,
                                    const v1::SetConstraintEnabledRequest* req,
                                    v1::SetConstraintEnabledResponse* resp) override;
  grpc::Status BatchEdit(grpc::ServerContext* ctx, const v1::BatchEditRequest* req,
                         v1::BatchEditResponse* resp) override;
  grpc::Status ExportScene(grpc::ServerContext* ctx, const v1::ExportSceneRequest* req,
                           v1::Scene* resp) override;

 private:
  // One edit of the body or constraint `name` names (`collection` "bodies" or
  // "constraints", `field` the request's field holding it), made by `edit` from the
  // child's id and applied at its world's next tick; the caller must edit that world.
  grpc::Status EditChild(grpc::ServerContext* ctx, const std::string& name,
                         const std::string& collection, const std::string& field,
                         const std::function<SceneEdit(std::string)>& edit);

  CallChecks checks_;
};

}  // namespace ligature
