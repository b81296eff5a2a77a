#include "server/rpc/world_service_impl.h"

#include "absl/strings/str_cat.h"
#include "server/rpc/caller.h"
#include "server/rpc/frame_proto.h"
#include "server/rpc/names.h"
#include "server/rpc/status.h"
#include "server/host/divergence_check.h"
#include "server/scene/scene_library.h"
#include "server/scene/scene_proto.h"
#include "server/snapshot/world_snapshot.h"

namespace ligature {
namespace {

// Copies the masked fields of `from` onto `to`; fails on a path it does not know.
absl::Status MergeSettings(const v1::WorldSettings& from,
                           const google::protobuf::FieldMask& mask, v1::WorldSettings* to) {
  if (mask.paths_size() == 0) {
    return absl::InvalidArgumentError("update_mask: must name at least one field");
  }
  for (int i = 0; i < mask.paths_size(); ++i) {
    const std::string& p = mask.paths(i);
    if (p == "settings") {
      *to = from;
    } else if (p == "settings.rate_hz") {
      to->set_rate_hz(from.rate_hz());
    } else if (p == "settings.paused") {
      to->set_paused(from.paused());
    } else if (p == "settings.gravity") {
      *to->mutable_gravity() = from.gravity();
    } else if (p == "settings.solver") {
      *to->mutable_solver() = from.solver();
    } else if (p == "settings.solver.kind") {
      to->mutable_solver()->set_kind(from.solver().kind());
    } else if (p == "settings.solver.max_iterations") {
      // Named explicitly, zero is a request for no iterations, not for the default.
      if (from.solver().max_iterations() < 1) {
        return absl::InvalidArgumentError(
            "world.settings.solver.max_iterations: must be in [1, 10000]");
      }
      to->mutable_solver()->set_max_iterations(from.solver().max_iterations());
    } else if (p == "settings.solver.tolerance") {
      if (from.solver().has_tolerance()) {
        to->mutable_solver()->set_tolerance(from.solver().tolerance());
      } else {
        to->mutable_solver()->clear_tolerance();
      }
    } else if (p == "settings.solver.warm_start") {
      if (from.solver().has_warm_start()) {
        to->mutable_solver()->set_warm_start(from.solver().warm_start());
      } else {
        to->mutable_solver()->clear_warm_start();
      }
    } else if (p == "settings.solver.time_budget_us") {
      to->mutable_solver()->set_time_budget_us(from.solver().time_budget_us());
    } else if (p == "settings.solver.position_share") {
      if (from.solver().has_position_share()) {
        to->mutable_solver()->set_position_share(from.solver().position_share());
      } else {
        to->mutable_solver()->clear_position_share();
      }
    } else if (p == "settings.solver.substeps") {
      if (from.solver().has_substeps()) {
        to->mutable_solver()->set_substeps(from.solver().substeps());
      } else {
        to->mutable_solver()->clear_substeps();
      }
    } else if (p == "settings.sleep") {
      *to->mutable_sleep() = from.sleep();
    } else if (p == "settings.contact_margin") {
      if (from.has_contact_margin()) {
        to->set_contact_margin(from.contact_margin());
      } else {
        to->clear_contact_margin();
      }
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("update_mask.paths[", i, "]: cannot update \"", p, "\""));
    }
  }
  return absl::OkStatus();
}

}  // namespace

grpc::Status WorldServiceImpl::CreateWorld(grpc::ServerContext* ctx,
                                           const v1::CreateWorldRequest* req,
                                           v1::World* resp) {
  auto caller = CallerGrants(checks_.tokens, *ctx);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (!req->world_id().empty()) {
    if (auto s = ValidateId(req->world_id(), "world_id"); !s.ok()) return ToGrpcStatus(s);
  }
  // Creating is managing: the owner role on that id (a server-chosen id: on every world).
  if (auto s = caller->Require(req->world_id().empty() ? "*" : req->world_id(), Role::kOwner);
      !s.ok()) {
    return ToGrpcStatus(s);
  }
  v1::Scene scene_proto;
  switch (req->source_case()) {
    case v1::CreateWorldRequest::kScene:
      scene_proto = req->scene();
      break;
    case v1::CreateWorldRequest::kSceneName: {
      auto loaded = LoadBuiltinScene(req->scene_name());
      if (!loaded.ok()) {
        return ToGrpcStatus(absl::InvalidArgumentError(
            absl::StrCat("scene_name: ", loaded.status().message())));
      }
      scene_proto = std::move(*loaded);
      break;
    }
    case v1::CreateWorldRequest::SOURCE_NOT_SET:
      break;  // an empty world with default settings
  }
  auto scene = SceneFromProto(scene_proto, checks_.manager->assets().Lookup());
  if (!scene.ok()) {
    return ToGrpcStatus(absl::InvalidArgumentError(absl::StrCat(
        req->source_case() == v1::CreateWorldRequest::kScene ? "scene." : "scene_name: ",
        scene.status().message())));
  }
  auto host = checks_.manager->Create(req->world_id(), *scene);
  if (!host.ok()) return ToGrpcStatus(host.status());
  *resp = WorldInfoToProto((*host)->Info());
  return grpc::Status::OK;
}

grpc::Status WorldServiceImpl::GetWorld(grpc::ServerContext* ctx,
                                        const v1::GetWorldRequest* req, v1::World* resp) {
  auto call = OpenWorldCall(checks_, *ctx, ParseWorldName(req->name(), "name"),
                            Role::kViewer);
  if (!call.ok()) return ToGrpcStatus(call.status());
  *resp = WorldInfoToProto(call->host->Info());
  return grpc::Status::OK;
}

grpc::Status WorldServiceImpl::ListWorlds(grpc::ServerContext* ctx,
                                          const v1::ListWorldsRequest* req,
                                          v1::ListWorldsResponse* resp) {
  auto caller = CallerGrants(checks_.tokens, *ctx);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  if (req->page_size() < 0 || req->page_size() > 1000) {
    return ToGrpcStatus(absl::InvalidArgumentError("page_size: must be in [0, 1000]"));
  }
  if (!req->page_token().empty()) {
    if (auto s = ValidateId(req->page_token(), "page_token"); !s.ok()) return ToGrpcStatus(s);
  }
  const WorldPage page =
      checks_.manager->List(req->page_size() == 0 ? 100 : req->page_size(), req->page_token());
  // Only the worlds the caller may view (a page may then hold fewer than page_size).
  for (const WorldInfo& info : page.worlds) {
    if (!caller->Allows(WorldIdFromName(info.name), Role::kViewer)) continue;
    *resp->add_worlds() = WorldInfoToProto(info);
  }
  resp->set_next_page_token(page.next_page_token);
  return grpc::Status::OK;
}

grpc::Status WorldServiceImpl::UpdateWorld(grpc::ServerContext* ctx,
                                           const v1::UpdateWorldRequest* req,
                                           v1::World* resp) {
  auto call = OpenWorldCall(checks_, *ctx, ParseWorldName(req->world().name(), "world.name"),
                            Role::kOwner);
  if (!call.ok()) return ToGrpcStatus(call.status());
  // Check the mask and the values against the current settings here, for a prompt error;
  // then merge again on the world's thread, onto the settings as they are when the edit
  // applies, so concurrent updates of different fields compose.
  const v1::World request_world = req->world();
  const google::protobuf::FieldMask mask = req->update_mask();
  v1::WorldSettings merged = SettingsToProto(call->host->Info().settings);
  if (auto s = MergeSettings(request_world.settings(), mask, &merged); !s.ok()) {
    return ToGrpcStatus(s);
  }
  if (auto s = SettingsFromProto(merged, "world.settings"); !s.ok()) {
    return ToGrpcStatus(s.status());
  }
  auto applied = call->host->Call<WorldSettings>(
      [request_world, mask](World& w) -> absl::StatusOr<WorldSettings> {
        v1::WorldSettings current = SettingsToProto(w.settings());
        if (auto s = MergeSettings(request_world.settings(), mask, &current); !s.ok()) return s;
        auto settings = SettingsFromProto(current, "world.settings");
        if (!settings.ok()) return settings.status();
        w.SetSettings(*settings);
        return *settings;
      },
      kApplyTimeout);
  if (!applied.ok()) return ToGrpcStatus(applied.status());
  *resp = WorldInfoToProto(call->host->Info());
  *resp->mutable_settings() = SettingsToProto(*applied);
  return grpc::Status::OK;
}

grpc::Status WorldServiceImpl::DeleteWorld(grpc::ServerContext* ctx,
                                           const v1::DeleteWorldRequest* req,
                                           v1::DeleteWorldResponse*) {
  auto caller = CallerGrants(checks_.tokens, *ctx);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  auto id = ParseWorldName(req->name(), "name");
  if (!id.ok()) return ToGrpcStatus(id.status());
  if (auto s = caller->Require(*id, Role::kOwner); !s.ok()) return ToGrpcStatus(s);
  return ToGrpcStatus(checks_.manager->Delete(*id));
}

grpc::Status WorldServiceImpl::StepWorld(grpc::ServerContext* ctx,
                                         const v1::StepWorldRequest* req, v1::Frame* resp) {
  auto call = OpenWorldCall(checks_, *ctx, ParseWorldName(req->name(), "name"),
                            Role::kEditor);
  if (!call.ok()) return ToGrpcStatus(call.status());
  if (req->ticks() < 1 || req->ticks() > 100000) {
    return ToGrpcStatus(absl::InvalidArgumentError("ticks: must be in [1, 100000]"));
  }
  const int ticks = req->ticks();
  // Steps stop at a divergence: the frame then reports the rollback.
  WorldHost* stepped = call->host.get();
  auto frame = call->host->Call<Frame>(
      [ticks, stepped](World& w) -> absl::StatusOr<Frame> {
        if (!w.settings().paused) {
          return absl::FailedPreconditionError(
              "the world is running: pause it (settings.paused) before stepping it");
        }
        for (int i = 0; i < ticks; ++i) {
          if (stepped->GuardedStep(w)) break;
        }
        Frame f = w.MakeFrame();
        if (auto where = FindNonFinite(f)) {
          return absl::InternalError(absl::StrCat("the frame holds a non-finite ", *where));
        }
        return f;
      },
      kApplyTimeout + absl::Milliseconds(10) * ticks);
  if (!frame.ok()) return ToGrpcStatus(frame.status());
  FrameToProto(*frame, {}, resp);
  return grpc::Status::OK;
}

// The world's thread only copies the world between two ticks; the copy is serialized here.
grpc::Status WorldServiceImpl::SaveSnapshot(grpc::ServerContext* ctx,
                                            const v1::SaveSnapshotRequest* req,
                                            v1::SaveSnapshotResponse* resp) {
  auto call = OpenWorldCall(checks_, *ctx, ParseWorldName(req->name(), "name"),
                            Role::kEditor);
  if (!call.ok()) return ToGrpcStatus(call.status());
  auto copy = call->host->Call<std::shared_ptr<const World>>(
      [](World& w) -> absl::StatusOr<std::shared_ptr<const World>> {
        return std::make_shared<const World>(w);
      },
      kApplyTimeout);
  if (!copy.ok()) return ToGrpcStatus(copy.status());
  resp->set_snapshot(SerializeSnapshot(**copy));
  resp->set_tick((*copy)->tick());
  return grpc::Status::OK;
}

// The snapshot is parsed, validated and built into a new world here, off every world's
// thread; only a good one reaches the target (replaced on its thread) or the manager.
grpc::Status WorldServiceImpl::RestoreSnapshot(grpc::ServerContext* ctx,
                                               const v1::RestoreSnapshotRequest* req,
                                               v1::World* resp) {
  auto caller = CallerGrants(checks_.tokens, *ctx);
  if (!caller.ok()) return ToGrpcStatus(caller.status());
  auto id = ParseWorldName(req->name(), "name");
  if (!id.ok()) return ToGrpcStatus(id.status());
  if (auto s = caller->Require(*id, Role::kOwner); !s.ok()) return ToGrpcStatus(s);
  auto restored = WorldFromSnapshotBytes(req->snapshot(), WorldName(*id),
                                         checks_.manager->options().world_limits);
  if (!restored.ok()) return ToGrpcStatus(restored.status());
  auto host = checks_.manager->Get(*id);
  if (!host.ok()) {
    auto created = checks_.manager->Adopt(*id, std::move(*restored));
    if (!created.ok()) return ToGrpcStatus(created.status());
    *resp = WorldInfoToProto((*created)->Info());
    return grpc::Status::OK;
  }
  WorldHost* target = host->get();
  std::shared_ptr<World> world(std::move(*restored));
  auto replaced = target->Call<WorldInfo>(
      [target, world](World& w) -> absl::StatusOr<WorldInfo> {
        ReplaceWorldState(&w, std::move(*world));
        target->ResetGuard();
        WorldInfo now;
        now.settings = w.settings();
        now.tick = w.tick();
        now.sim_time = w.sim_time();
        now.body_count = w.body_count();
        now.constraint_count = w.constraint_count();
        return now;
      },
      kApplyTimeout);
  if (!replaced.ok()) return ToGrpcStatus(replaced.status());
  // The published summary catches up at the end of the tick; answer with the new state.
  WorldInfo info = target->Info();
  info.settings = replaced->settings;
  info.tick = replaced->tick;
  info.sim_time = replaced->sim_time;
  info.body_count = replaced->body_count;
  info.constraint_count = replaced->constraint_count;
  *resp = WorldInfoToProto(info);
  return grpc::Status::OK;
}

}  // namespace ligature
