#pragma once
// Scene edits converted from their proto form and validated, ready to apply to a World.

#include <string>
#include <variant>
#include <vector>

#include "absl/status/statusor.h"
#include "ligature/v1/scene_service.pb.h"
#include "server/scene/mesh_asset_proto.h"
#include "server/world/world.h"

namespace ligature {

struct CreateBodyEdit {
  BodyDesc body;
};
struct UpdateBodyEdit {
  std::string body_id;
  BodyUpdate update;
};
struct DeleteBodyEdit {
  std::string body_id;
};
struct CreateConstraintEdit {
  ConstraintDesc constraint;
};
struct DeleteConstraintEdit {
  std::string constraint_id;
};
struct SetConstraintEnabledEdit {
  std::string constraint_id;
  bool enabled = true;
};
// The masked paths of `from` over the joint as it is when the edit applies (its values are
// validated then, with field names under `field`).
struct UpdateConstraintEdit {
  std::string constraint_id;
  v1::Constraint from;
  google::protobuf::FieldMask mask;
  std::string field;
};
using SceneEdit = std::variant<CreateBodyEdit, UpdateBodyEdit, DeleteBodyEdit,
                               CreateConstraintEdit, DeleteConstraintEdit,
                               SetConstraintEnabledEdit, UpdateConstraintEdit>;

// Validates an UpdateBodyRequest of world `world_id` (field names relative to `field`).
absl::StatusOr<UpdateBodyEdit> UpdateBodyFromProto(const v1::UpdateBodyRequest& req,
                                                   const std::string& world_id,
                                                   const std::string& field);
// Validates an UpdateConstraintRequest of world `world_id` as far as it can be without the
// joint (its name and mask).
absl::StatusOr<UpdateConstraintEdit> UpdateConstraintFromProto(
    const v1::UpdateConstraintRequest& req, const std::string& world_id,
    const std::string& field);
// Applies an UpdateConstraintEdit; returns the joint as it now is.
absl::StatusOr<ConstraintDesc> ApplyConstraintUpdate(const UpdateConstraintEdit& edit,
                                                     World& world);

// Validates one edit of a batch on world `world_id`; new shapes find mesh assets in `assets`.
absl::StatusOr<SceneEdit> EditFromProto(const v1::Edit& edit, const std::string& world_id,
                                        const std::string& field,
                                        const MeshAssetLookup& assets = {});

// Applies one edit; returns the resource name it created, or "" when it created nothing.
absl::StatusOr<std::string> ApplyEdit(const SceneEdit& edit, World& world);

}  // namespace ligature
