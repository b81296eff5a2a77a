#include "server/scene/mesh_asset_proto.h"

#include <algorithm>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "server/model/rigid/convex_hull_builder.h"
#include "server/model/rigid/triangle_mesh_builder.h"
#include "server/scene/field_error.h"
#include "server/scene/scene_proto.h"

namespace ligature {
namespace {

// The largest scale factor and the farthest a scaled vertex may lie from the body origin.
constexpr double kMaxScale = 1e4;
constexpr double kMaxReach = 1e6;  // m

// The scale of a MeshAssetShape: all zero (unset) is (1, 1, 1), otherwise each factor in
// (0, kMaxScale].
absl::StatusOr<Vec3> ScaleFromProto(const v1::Vec3& given, const std::string& field) {
  auto scale = Vec3FromProto(given, field);
  if (!scale.ok()) return scale.status();
  if (scale->isZero()) return Vec3(Vec3::Ones());
  for (int i = 0; i < 3; ++i) {
    if (!((*scale)[i] > 0.0) || (*scale)[i] > kMaxScale) {
      return InvalidField(absl::StrCat(field, ".", std::string(1, "xyz"[i])),
                          absl::StrCat("must be in (0, ", kMaxScale, "]"));
    }
  }
  return scale;
}

// The asset's vertices scaled per axis.
std::vector<Vec3> ScaledVertices(const TriangleMesh& mesh, const Vec3& scale) {
  std::vector<Vec3> out;
  out.reserve(mesh.vertices.size());
  for (const Vec3& v : mesh.vertices) out.push_back(v.cwiseProduct(scale));
  return out;
}

// The triangles' corners as flat indices, three a triangle.
std::vector<uint32_t> FlatIndices(const TriangleMesh& mesh) {
  std::vector<uint32_t> out;
  out.reserve(3 * mesh.triangles.size());
  for (const auto& t : mesh.triangles) {
    for (const int i : t) out.push_back(static_cast<uint32_t>(i));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::shared_ptr<const MeshAsset>> MeshAssetFromProto(const v1::TriangleMesh& mesh,
                                                                    std::string name,
                                                                    const std::string& field) {
  auto built = TriangleMeshFromProto(mesh, field);
  if (!built.ok()) return built.status();
  return std::make_shared<const MeshAsset>(MeshAsset{std::move(name), *std::move(built)});
}

uint64_t MeshAssetBytes(const MeshAsset& asset) {
  return asset.mesh->vertices.size() * sizeof(double) * 3 +
         asset.mesh->triangles.size() * sizeof(uint32_t) * 3;
}

void MeshAssetToProto(const MeshAsset& asset, bool geometry, v1::Asset* out) {
  const TriangleMesh& mesh = *asset.mesh;
  out->set_name(asset.name);
  out->set_vertex_count(static_cast<uint32_t>(mesh.vertices.size()));
  out->set_triangle_count(static_cast<uint32_t>(mesh.triangles.size()));
  out->set_size_bytes(MeshAssetBytes(asset));
  Vec3ToProto(mesh.local_min, out->mutable_bounds_min());
  Vec3ToProto(mesh.local_max, out->mutable_bounds_max());
  if (!geometry) return;
  v1::TriangleMesh* m = out->mutable_mesh();
  m->mutable_vertices()->Reserve(static_cast<int>(mesh.vertices.size()));
  for (const Vec3& v : mesh.vertices) Vec3ToProto(v, m->add_vertices());
  const std::vector<uint32_t> indices = FlatIndices(mesh);
  m->mutable_indices()->Assign(indices.begin(), indices.end());
}

absl::StatusOr<Shape> MeshAssetShapeFromProto(const v1::MeshAssetShape& s,
                                              const MeshAssetLookup& assets,
                                              const std::string& field) {
  // Files are read and uploaded by clients; the service only knows stored assets.
  if (!s.file().empty()) {
    return InvalidField(field + ".file",
                        "mesh files are read by clients: upload the file through AssetService "
                        "and name the asset instead");
  }
  if (s.asset().empty()) return InvalidField(field + ".asset", "an asset name is required");
  std::shared_ptr<const MeshAsset> asset = assets ? assets(s.asset()) : nullptr;
  if (asset == nullptr) {
    return InvalidField(field + ".asset", absl::StrCat("no asset \"", s.asset(), "\" is stored"));
  }
  auto scale = ScaleFromProto(s.scale(), field + ".scale");
  if (!scale.ok()) return scale.status();
  const TriangleMesh& mesh = *asset->mesh;
  const Vec3 reach = mesh.local_min.cwiseAbs().cwiseMax(mesh.local_max.cwiseAbs());
  if (reach.cwiseProduct(*scale).maxCoeff() > kMaxReach) {
    return InvalidField(field + ".scale",
                        absl::StrCat("puts vertices beyond ", kMaxReach, " m of the body origin"));
  }

  // As a hull: the convex hull of the scaled vertices.
  Shape shape;
  if (s.as_hull()) {
    if (mesh.vertices.size() > static_cast<size_t>(kMaxHullPoints)) {
      return InvalidField(field + ".as_hull",
                          absl::StrCat("the asset has ", mesh.vertices.size(),
                                       " vertices; a hull is made from at most ", kMaxHullPoints));
    }
    HullOptions options;
    if (s.max_vertices() != 0) {
      options.max_vertices = static_cast<int>(std::min<uint32_t>(s.max_vertices(), 1u << 20));
    }
    auto hull = BuildConvexHull(ScaledVertices(mesh, *scale), options);
    if (!hull.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".", hull.status().message()));
    }
    shape = Shape::Hull(*std::move(hull));
  } else if (*scale == Vec3::Ones()) {
    // As its surface at unit scale: every such body shares the asset's mesh.
    shape = Shape::Mesh(asset->mesh);
  } else {
    // Scaled: a mesh of its own (a scale can squash a triangle into a line).
    const std::vector<Vec3> vertices = ScaledVertices(mesh, *scale);
    const std::vector<uint32_t> indices = FlatIndices(mesh);
    auto scaled = BuildTriangleMesh(vertices, indices);
    if (!scaled.ok()) {
      return InvalidField(field + ".scale",
                          absl::StrCat("the scaled mesh is refused: ", scaled.status().message()));
    }
    shape = Shape::Mesh(*std::move(scaled));
  }
  shape.asset = std::move(asset);
  shape.asset_scale = *scale;
  return shape;
}

void MeshAssetShapeToProto(const Shape& shape, v1::MeshAssetShape* out) {
  out->set_asset(shape.asset->name);
  out->set_as_hull(shape.type == ShapeType::kHull);
  Vec3ToProto(shape.asset_scale, out->mutable_scale());
  if (shape.type == ShapeType::kHull) out->set_max_vertices(shape.hull->max_vertices);
}

}  // namespace ligature
