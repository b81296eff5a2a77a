#include "server/rpc/edits.h"

#include "absl/strings/str_cat.h"
#include "server/rpc/names.h"
#include "server/scene/constraint_update.h"
#include "server/scene/scene_proto.h"
#include "server/host/world_manager.h"

namespace ligature {
namespace {

absl::StatusOr<std::string> ChildIn(const std::string& name, const std::string& collection,
                                    const std::string& world_id, const std::string& field) {
  auto parsed = ParseChildName(name, collection, field);
  if (!parsed.ok()) return parsed.status();
  if (parsed->world != world_id) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": names world ", parsed->world, ", not ", world_id));
  }
  return parsed->child;
}

}  // namespace

absl::StatusOr<UpdateBodyEdit> UpdateBodyFromProto(const v1::UpdateBodyRequest& req,
                                                   const std::string& world_id,
                                                   const std::string& field) {
  UpdateBodyEdit edit;
  auto id = ChildIn(req.body().name(), "bodies", world_id, field + "body.name");
  if (!id.ok()) return id.status();
  edit.body_id = *id;
  const v1::Body& b = req.body();
  if (req.update_mask().paths_size() == 0) {
    return absl::InvalidArgumentError(field + "update_mask: must name at least one field");
  }
  // Each masked field is validated as it would be on create.
  for (int i = 0; i < req.update_mask().paths_size(); ++i) {
    const std::string& p = req.update_mask().paths(i);
    if (p == "pose") {
      auto pose = PoseFromProto(b.pose(), field + "body.pose");
      if (!pose.ok()) return pose.status();
      edit.update.position = pose->position;
      edit.update.orientation = pose->orientation;
    } else if (p == "pose.position") {
      auto position = PositionFromProto(b.pose().position(), field + "body.pose.position");
      if (!position.ok()) return position.status();
      edit.update.position = *position;
    } else if (p == "pose.orientation") {
      auto q = QuatFromProto(b.pose().orientation(), field + "body.pose.orientation");
      if (!q.ok()) return q.status();
      edit.update.orientation = *q;
    } else if (p == "linear_velocity") {
      auto v = VelocityFromProto(b.linear_velocity(), field + "body.linear_velocity");
      if (!v.ok()) return v.status();
      edit.update.linear_velocity = *v;
    } else if (p == "angular_velocity") {
      auto v = VelocityFromProto(b.angular_velocity(), field + "body.angular_velocity");
      if (!v.ok()) return v.status();
      edit.update.angular_velocity = *v;
    } else if (p == "material") {
      if (b.material().has_inertia()) {
        return absl::InvalidArgumentError(
            field + "body.material.inertia: is fixed when the body is created");
      }
      auto m = MaterialFromProto(b.material(), field + "body.material");
      if (!m.ok()) return m.status();
      edit.update.material = *m;
    } else if (p == "collision") {
      edit.update.collision = CollisionFilterFromProto(b.collision());
    } else if (p == "kind") {
      switch (b.kind()) {
        case v1::BODY_KIND_UNSPECIFIED:
        case v1::BODY_KIND_DYNAMIC:
          edit.update.kind = BodyKind::kDynamic;
          break;
        case v1::BODY_KIND_KINEMATIC:
          edit.update.kind = BodyKind::kKinematic;
          break;
        case v1::BODY_KIND_STATIC:
          edit.update.kind = BodyKind::kStatic;
          break;
        default:
          return absl::InvalidArgumentError(field + "body.kind: unknown body kind");
      }
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat(field, "update_mask.paths[", i, "]: cannot update \"", p, "\""));
    }
  }
  return edit;
}

absl::StatusOr<UpdateConstraintEdit> UpdateConstraintFromProto(
    const v1::UpdateConstraintRequest& req, const std::string& world_id,
    const std::string& field) {
  UpdateConstraintEdit edit;
  auto id = ChildIn(req.constraint().name(), "constraints", world_id,
                    field + "constraint.name");
  if (!id.ok()) return id.status();
  if (auto s = CheckConstraintMask(req.update_mask(), field + "update_mask"); !s.ok()) return s;
  edit.constraint_id = *id;
  edit.from = req.constraint();
  edit.mask = req.update_mask();
  edit.field = field;
  return edit;
}

absl::StatusOr<ConstraintDesc> ApplyConstraintUpdate(const UpdateConstraintEdit& edit,
                                                     World& world) {
  auto current = world.JointDesc(edit.constraint_id);
  if (!current.ok()) return current.status();
  auto updated = UpdatedConstraint(*current, edit.from, edit.mask, edit.field + "constraint",
                                   edit.field + "update_mask");
  if (!updated.ok()) return updated.status();
  if (auto s = world.UpdateJoint(edit.constraint_id, *updated); !s.ok()) return s;
  return world.JointDesc(edit.constraint_id);
}

absl::StatusOr<SceneEdit> EditFromProto(const v1::Edit& e, const std::string& world_id,
                                        const std::string& field,
                                        const MeshAssetLookup& assets) {
  switch (e.kind_case()) {
    case v1::Edit::kCreateBody: {
      auto body = BodyFromProto(e.create_body(), field + ".create_body", assets);
      if (!body.ok()) return body.status();
      return CreateBodyEdit{std::move(*body)};
    }
    case v1::Edit::kUpdateBody: {
      auto u = UpdateBodyFromProto(e.update_body(), world_id, field + ".update_body.");
      if (!u.ok()) return u.status();
      return *u;
    }
    case v1::Edit::kDeleteBody: {
      auto id = ChildIn(e.delete_body(), "bodies", world_id, field + ".delete_body");
      if (!id.ok()) return id.status();
      return DeleteBodyEdit{*id};
    }
    case v1::Edit::kCreateConstraint: {
      auto c = ConstraintFromProto(e.create_constraint(), field + ".create_constraint");
      if (!c.ok()) return c.status();
      return CreateConstraintEdit{std::move(*c)};
    }
    case v1::Edit::kDeleteConstraint: {
      auto id =
          ChildIn(e.delete_constraint(), "constraints", world_id, field + ".delete_constraint");
      if (!id.ok()) return id.status();
      return DeleteConstraintEdit{*id};
    }
    case v1::Edit::kSetConstraintEnabled: {
      const v1::SetConstraintEnabledRequest& r = e.set_constraint_enabled();
      auto id = ChildIn(r.name(), "constraints", world_id, field + ".set_constraint_enabled.name");
      if (!id.ok()) return id.status();
      return SetConstraintEnabledEdit{*id, r.enabled()};
    }
    case v1::Edit::kUpdateConstraint: {
      auto u = UpdateConstraintFromProto(e.update_constraint(), world_id,
                                         field + ".update_constraint.");
      if (!u.ok()) return u.status();
      return *u;
    }
    case v1::Edit::KIND_NOT_SET:
      break;
  }
  return absl::InvalidArgumentError(field + ": an edit kind is required");
}

absl::StatusOr<std::string> ApplyEdit(const SceneEdit& edit, World& world) {
  const std::string world_id = WorldIdFromName(world.name());
  if (auto* e = std::get_if<CreateBodyEdit>(&edit)) {
    auto id = world.AddBody(e->body);
    if (!id.ok()) return id.status();
    return BodyName(world_id, *id);
  }
  if (auto* e = std::get_if<UpdateBodyEdit>(&edit)) {
    if (auto s = world.UpdateBody(e->body_id, e->update); !s.ok()) return s;
    return std::string();
  }
  if (auto* e = std::get_if<DeleteBodyEdit>(&edit)) {
    if (auto s = world.RemoveBody(e->body_id); !s.ok()) return s;
    return std::string();
  }
  if (auto* e = std::get_if<CreateConstraintEdit>(&edit)) {
    auto id = world.AddConstraint(e->constraint);
    if (!id.ok()) return id.status();
    return ConstraintName(world_id, *id);
  }
  if (auto* e = std::get_if<UpdateConstraintEdit>(&edit)) {
    if (auto updated = ApplyConstraintUpdate(*e, world); !updated.ok()) return updated.status();
    return std::string();
  }
  if (auto* e = std::get_if<SetConstraintEnabledEdit>(&edit)) {
    if (auto s = world.SetConstraintEnabled(e->constraint_id, e->enabled); !s.ok()) return s;
    return std::string();
  }
  const auto& e = std::get<DeleteConstraintEdit>(edit);
  if (auto s = world.RemoveConstraint(e.constraint_id); !s.ok()) return s;
  return std::string();
}

}  // namespace ligature
