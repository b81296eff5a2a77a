#include "server/rpc/scene_service_impl.h"

#include "absl/strings/str_cat.h"
#include "server/rpc/caller.h"
#include "server/rpc/edits.h"
#include "server/rpc/names.h"
#include "server/rpc/status.h"
#include "server/scene/constraint_proto.h"
#include "server/scene/scene_proto.h"

namespace ligature {
namespace {

constexpr int kMaxBatchEdits = 10000;

// Applies `edits` on the world's thread, all or none: on the first failure the world is
// restored from a copy taken before the batch. Returns the created names.
absl::StatusOr<std::vector<std::string>> ApplyAll(WorldHost& host, std::vector<SceneEdit> edits,
                                                  bool prefix_errors) {
  return host.Call<std::vector<std::string>>(
      [edits = std::move(edits), prefix_errors](
          World& world) -> absl::StatusOr<std::vector<std::string>> {
        std::optional<World> backup;
        if (edits.size() > 1) backup.emplace(world);
        std::vector<std::string> created;
        for (size_t i = 0; i < edits.size(); ++i) {
          auto name = ApplyEdit(edits[i], world);
          if (!name.ok()) {
            if (backup) world = std::move(*backup);
            if (!prefix_errors) return name.status();
            return absl::Status(name.status().code(),
                                absl::StrCat("edits[", i, "]: ", name.status().message()));
          }
          if (!name->empty()) created.push_back(std::move(*name));
        }
        return created;
      },
      kApplyTimeout);
}

// The world part of a child's name, or why the name does not parse.
absl::StatusOr<std::string> WorldOf(const absl::StatusOr<ChildName>& name) {
  if (!name.ok()) return name.status();
  return name->world;
}

}  // namespace

grpc::Status SceneServiceImpl::CreateBody(grpc::ServerContext* ctx,
                                          const v1::CreateBodyRequest* req,
                                          v1::Body* resp) {
  auto call = OpenWorldCall(checks_, *ctx, ParseWorldName(req->parent(), "parent"),
                            Role::kEditor, 1);
  if (!call.ok()) return ToGrpcStatus(call.status());
  auto body = BodyFromProto(req->body(), "body", checks_.manager->assets().Lookup());
  if (!body.ok()) return ToGrpcStatus(body.status());
  const std::string& world_id = call->world_id;
  auto created = call->host->Call<BodyDesc>(
      [desc = std::move(*body)](World& w) -> absl::StatusOr<BodyDesc> {
        auto id = w.AddBody(desc);
        if (!id.ok()) return id.status();
        return w.GetBody(*id);
      },
      kApplyTimeout);
  if (!created.ok()) return ToGrpcStatus(created.status());
  *resp = BodyToProto(*created);
  resp->set_name(BodyName(world_id, created->id));
  return grpc::Status::OK;
}

grpc::Status SceneServiceImpl::UpdateBody(grpc::ServerContext* ctx,
                                          const v1::UpdateBodyRequest* req,
                                          v1::Body* resp) {
  auto call = OpenWorldCall(checks_, *ctx,
                            WorldOf(ParseChildName(req->body().name(), "bodies", "body.name")),
                            Role::kEditor, 1);
  if (!call.ok()) return ToGrpcStatus(call.status());
  const std::string& world_id = call->world_id;
  auto edit = UpdateBodyFromProto(*req, world_id, "");
  if (!edit.ok()) return ToGrpcStatus(edit.status());
  auto updated = call->host->Call<BodyDesc>(
      [edit = std::move(*edit)](World& w) -> absl::StatusOr<BodyDesc> {
        if (auto s = w.UpdateBody(edit.body_id, edit.update); !s.ok()) return s;
        return w.GetBody(edit.body_id);
      },
      kApplyTimeout);
  if (!updated.ok()) return ToGrpcStatus(updated.status());
  *resp = BodyToProto(*updated);
  resp->set_name(BodyName(world_id, updated->id));
  return grpc::Status::OK;
}

grpc::Status SceneServiceImpl::UpdateConstraint(grpc::ServerContext* ctx,
                                                const v1::UpdateConstraintRequest* req,
                                                v1::Constraint* resp) {
  auto call = OpenWorldCall(
      checks_, *ctx,
      WorldOf(ParseChildName(req->constraint().name(), "constraints", "constraint.name")),
      Role::kEditor, 1);
  if (!call.ok()) return ToGrpcStatus(call.status());
  const std::string& world_id = call->world_id;
  auto edit = UpdateConstraintFromProto(*req, world_id, "");
  if (!edit.ok()) return ToGrpcStatus(edit.status());
  auto updated = call->host->Call<ConstraintDesc>(
      [edit = std::move(*edit)](World& w) { return ApplyConstraintUpdate(edit, w); },
      kApplyTimeout);
  if (!updated.ok()) return ToGrpcStatus(updated.status());
  *resp = ConstraintToProto(*updated);
  resp->set_name(ConstraintName(world_id, updated->id));
  return grpc::Status::OK;
}

grpc::Status SceneServiceImpl::EditChild(grpc::ServerContext* ctx, const std::string& name,
                                         const std::string& collection,
                                         const std::string& field,
                                         const std::function<SceneEdit(std::string)>& edit) {
  absl::StatusOr<ChildName> child = ParseChildName(name, collection, field);
  auto call = OpenWorldCall(checks_, *ctx, WorldOf(child), Role::kEditor, 1);
  if (!call.ok()) return ToGrpcStatus(call.status());
  return ToGrpcStatus(ApplyAll(*call->host, {edit(std::move(child->child))}, false).status());
}

grpc::Status SceneServiceImpl::DeleteBody(grpc::ServerContext* ctx,
                                          const v1::DeleteBodyRequest* req,
                                          v1::DeleteBodyResponse*) {
  return EditChild(ctx, req->name(), "bodies", "name",
                   [](std::string id) { return SceneEdit{DeleteBodyEdit{std::move(id)}}; });
}

grpc::Status SceneServiceImpl::CreateConstraint(grpc::ServerContext* ctx,
                                                const v1::CreateConstraintRequest* req,
                                                v1::Constraint* resp) {
  auto call = OpenWorldCall(checks_, *ctx, ParseWorldName(req->parent(), "parent"),
                            Role::kEditor, 1);
  if (!call.ok()) return ToGrpcStatus(call.status());
  auto desc = ConstraintFromProto(req->constraint(), "constraint");
  if (!desc.ok()) return ToGrpcStatus(desc.status());
  auto created = ApplyAll(*call->host, {CreateConstraintEdit{*desc}}, false);
  if (!created.ok()) return ToGrpcStatus(created.status());
  *resp = req->constraint();
  resp->set_name(created->front());
  resp->set_id(created->front().substr(created->front().rfind('/') + 1));
  return grpc::Status::OK;
}

grpc::Status SceneServiceImpl::DeleteConstraint(grpc::ServerContext* ctx,
                                                const v1::DeleteConstraintRequest* req,
                                                v1::DeleteConstraintResponse*) {
  return EditChild(ctx, req->name(), "constraints", "name", [](std::string id) {
    return SceneEdit{DeleteConstraintEdit{std::move(id)}};
  });
}

grpc::Status SceneServiceImpl::SetConstraintEnabled(grpc::ServerContext* ctx,
                                                    const v1::SetConstraintEnabledRequest* req,
                                                    v1::SetConstraintEnabledResponse*) {
  return EditChild(ctx, req->name(), "constraints", "name", [&](std::string id) {
    return SceneEdit{SetConstraintEnabledEdit{std::move(id), req->enabled()}};
  });
}

grpc::Status SceneServiceImpl::BatchEdit(grpc::ServerContext* ctx, const v1::BatchEditRequest* req,
                                         v1::BatchEditResponse* resp) {
  auto call = OpenWorldCall(checks_, *ctx, ParseWorldName(req->parent(), "parent"),
                            Role::kEditor, req->edits_size());
  if (!call.ok()) return ToGrpcStatus(call.status());
  if (req->edits_size() > kMaxBatchEdits) {
    return ToGrpcStatus(absl::InvalidArgumentError(
        absl::StrCat("edits: at most ", kMaxBatchEdits, " edits per batch")));
  }
  // Every edit is validated before any is applied.
  const std::string& world_id = call->world_id;
  std::vector<SceneEdit> edits;
  edits.reserve(req->edits_size());
  for (int i = 0; i < req->edits_size(); ++i) {
    auto edit = EditFromProto(req->edits(i), world_id, absl::StrCat("edits[", i, "]"),
                              checks_.manager->assets().Lookup());
    if (!edit.ok()) return ToGrpcStatus(edit.status());
    edits.push_back(std::move(*edit));
  }
  auto created = ApplyAll(*call->host, std::move(edits), true);
  if (!created.ok()) return ToGrpcStatus(created.status());
  for (std::string& name : *created) resp->add_created(std::move(name));
  return grpc::Status::OK;
}

grpc::Status SceneServiceImpl::ExportScene(grpc::ServerContext* ctx,
                                           const v1::ExportSceneRequest* req, v1::Scene* resp) {
  auto call = OpenWorldCall(checks_, *ctx, ParseWorldName(req->parent(), "parent"),
                            Role::kViewer);
  if (!call.ok()) return ToGrpcStatus(call.status());
  auto scene = call->host->Call<SceneDesc>(
      [](World& w) -> absl::StatusOr<SceneDesc> { return w.Export(); }, kApplyTimeout);
  if (!scene.ok()) return ToGrpcStatus(scene.status());
  *resp = SceneToProto(*scene);
  return grpc::Status::OK;
}

}  // namespace ligature
