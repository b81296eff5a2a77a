#pragma once
// ligature.v1 scene messages <-> engine descriptions, with validation. Every error is
// INVALID_ARGUMENT and names the offending field by its path (e.g. "bodies[3].shape.sphere.radius").

#include <string>

#include "absl/status/statusor.h"
#include "ligature/v1/scene.pb.h"
#include "server/scene/constraint_proto.h"
#include "server/scene/mesh_asset_proto.h"
#include "server/world/scene_desc.h"

namespace ligature {

// Shapes that name mesh assets find them through `assets` (none: every such shape is refused).
absl::StatusOr<SceneDesc> SceneFromProto(const v1::Scene& scene,
                                         const MeshAssetLookup& assets = {});
absl::StatusOr<WorldSettings> SettingsFromProto(const v1::WorldSettings& s,
                                                const std::string& field);
absl::StatusOr<BodyDesc> BodyFromProto(const v1::Body& body, const std::string& field,
                                       const MeshAssetLookup& assets = {});

// Field-level pieces, shared with partial updates and queries.
absl::StatusOr<Shape> ShapeFromProto(const v1::Shape& s, const std::string& field,
                                     const MeshAssetLookup& assets = {});
absl::StatusOr<Vec3> Vec3FromProto(const v1::Vec3& v, const std::string& field);
// A velocity (m/s or rad/s): finite, magnitude at most 1e5.
absl::StatusOr<Vec3> VelocityFromProto(const v1::Vec3& v, const std::string& field);
absl::StatusOr<Quat> QuatFromProto(const v1::Quaternion& q, const std::string& field);
// A world position (m): finite, each coordinate within 1e6.
absl::StatusOr<Vec3> PositionFromProto(const v1::Vec3& p, const std::string& field);
absl::StatusOr<Transform> PoseFromProto(const v1::Pose& p, const std::string& field);
absl::StatusOr<Material> MaterialFromProto(const v1::Material& m, const std::string& field);
absl::StatusOr<GivenInertia> InertiaFromProto(const v1::Inertia& in, const std::string& field);
// The checks of a TriangleMesh shape, naming `field`'s offending vertex or index.
absl::StatusOr<std::shared_ptr<const TriangleMesh>> TriangleMeshFromProto(
    const v1::TriangleMesh& m, const std::string& field);
absl::StatusOr<SolverSettings> SolverFromProto(const v1::SolverSettings& s,
                                               const std::string& field);
absl::Status ValidateId(const std::string& id, const std::string& field);
// Any layers and mask are valid; unset fields take the defaults (layer 1, every layer).
CollisionFilter CollisionFilterFromProto(const v1::CollisionFilter& f);
void CollisionFilterToProto(const CollisionFilter& f, v1::CollisionFilter* out);

v1::Scene SceneToProto(const SceneDesc& scene);
v1::WorldSettings SettingsToProto(const WorldSettings& s);
v1::Body BodyToProto(const BodyDesc& body);
void ShapeToProto(const Shape& s, v1::Shape* out);
void Vec3ToProto(const Vec3& v, v1::Vec3* out);
void QuatToProto(const Quat& q, v1::Quaternion* out);
void PoseToProto(const Transform& t, v1::Pose* out);
void InertiaToProto(const GivenInertia& in, v1::Inertia* out);

}  // namespace ligature
