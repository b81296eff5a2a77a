#include "server/scene/mesh_asset_proto.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "server/model/rigid/mass_properties.h"
#include "server/scene/scene_proto.h"

namespace ligature {
namespace {

using ::testing::HasSubstr;

// A unit cube centred on the origin, counter-clockwise seen from outside.
v1::TriangleMesh UnitCube() {
  v1::TriangleMesh mesh;
  for (int i = 0; i < 8; ++i) {
    v1::Vec3* v = mesh.add_vertices();
    v->set_x((i == 1 || i == 2 || i == 5 || i == 6) ? 0.5 : -0.5);
    v->set_y((i == 2 || i == 3 || i == 6 || i == 7) ? 0.5 : -0.5);
    v->set_z(i >= 4 ? 0.5 : -0.5);
  }
  for (const uint32_t i : {0u, 3u, 2u, 0u, 2u, 1u, 4u, 5u, 6u, 4u, 6u, 7u, 0u, 4u, 7u, 0u, 7u, 3u,
                           1u, 2u, 6u, 1u, 6u, 5u, 0u, 1u, 5u, 0u, 5u, 4u, 3u, 7u, 6u, 3u, 6u, 2u}) {
    mesh.add_indices(i);
  }
  return mesh;
}

constexpr char kCube[] = "assets/cube";

class MeshAssetProtoTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto cube = MeshAssetFromProto(UnitCube(), kCube, "mesh");
    ASSERT_TRUE(cube.ok()) << cube.status();
    cube_ = *cube;
  }

  MeshAssetLookup Lookup() const {
    return [this](const std::string& name) {
      return name == kCube ? cube_ : std::shared_ptr<const MeshAsset>();
    };
  }

  absl::StatusOr<Shape> Convert(const v1::MeshAssetShape& s) const {
    return MeshAssetShapeFromProto(s, Lookup(), "shape.mesh_asset");
  }

  static v1::MeshAssetShape Named(bool as_hull) {
    v1::MeshAssetShape s;
    s.set_asset(kCube);
    s.set_as_hull(as_hull);
    return s;
  }

  std::shared_ptr<const MeshAsset> cube_;
};

TEST_F(MeshAssetProtoTest, MetadataAndGeometry) {
  v1::Asset out;
  MeshAssetToProto(*cube_, false, &out);
  EXPECT_EQ(out.name(), kCube);
  EXPECT_EQ(out.vertex_count(), 8u);
  EXPECT_EQ(out.triangle_count(), 12u);
  EXPECT_EQ(out.size_bytes(), 8u * 24u + 12u * 12u);
  EXPECT_EQ(out.bounds_min().x(), -0.5);
  EXPECT_EQ(out.bounds_max().y(), 0.5);
  EXPECT_FALSE(out.has_mesh());
  MeshAssetToProto(*cube_, true, &out);
  EXPECT_EQ(out.mesh().SerializeAsString(), UnitCube().SerializeAsString());
}

// As a hull, the cube asset is a solid unit cube; scaled per axis, a box of those sides.
TEST_F(MeshAssetProtoTest, HullIsTheSolidOfTheScaledVertices) {
  auto hull = Convert(Named(true));
  ASSERT_TRUE(hull.ok()) << hull.status();
  EXPECT_EQ(hull->type, ShapeType::kHull);
  EXPECT_NEAR(ShapeVolume(*hull), 1.0, 1e-12);
  v1::MeshAssetShape scaled = Named(true);
  scaled.mutable_scale()->set_x(2.0);
  scaled.mutable_scale()->set_y(0.5);
  scaled.mutable_scale()->set_z(3.0);
  auto box = Convert(scaled);
  ASSERT_TRUE(box.ok()) << box.status();
  EXPECT_NEAR(ShapeVolume(*box), 3.0, 1e-12);
  EXPECT_EQ(box->asset, cube_);
  EXPECT_EQ(box->asset_scale, Vec3(2.0, 0.5, 3.0));
}

// At unit scale every mesh shape shares the asset's mesh; scaled, it has its own.
TEST_F(MeshAssetProtoTest, MeshSharesTheAssetAtUnitScale) {
  auto mesh = Convert(Named(false));
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->type, ShapeType::kMesh);
  EXPECT_EQ(mesh->mesh, cube_->mesh);
  v1::MeshAssetShape scaled = Named(false);
  scaled.mutable_scale()->set_x(2.0);
  scaled.mutable_scale()->set_y(1.0);
  scaled.mutable_scale()->set_z(1.0);
  auto wide = Convert(scaled);
  ASSERT_TRUE(wide.ok()) << wide.status();
  EXPECT_NE(wide->mesh, cube_->mesh);
  EXPECT_EQ(wide->mesh->local_max, Vec3(1.0, 0.5, 0.5));
}

TEST_F(MeshAssetProtoTest, BadReferencesNameTheField) {
  v1::MeshAssetShape file = Named(false);
  file.set_file("mug.glb");
  EXPECT_THAT(Convert(file).status().message(), HasSubstr("shape.mesh_asset.file"));
  v1::MeshAssetShape unknown = Named(false);
  unknown.set_asset("assets/other");
  EXPECT_THAT(Convert(unknown).status().message(),
              HasSubstr("shape.mesh_asset.asset: no asset \"assets/other\""));
  EXPECT_THAT(Convert(v1::MeshAssetShape()).status().message(),
              HasSubstr("shape.mesh_asset.asset"));
  v1::MeshAssetShape negative = Named(true);
  negative.mutable_scale()->set_x(1.0);
  negative.mutable_scale()->set_y(-1.0);
  negative.mutable_scale()->set_z(1.0);
  EXPECT_THAT(Convert(negative).status().message(), HasSubstr("shape.mesh_asset.scale.y"));
  v1::MeshAssetShape huge = Named(true);
  huge.mutable_scale()->set_x(2e4);
  huge.mutable_scale()->set_y(1.0);
  huge.mutable_scale()->set_z(1.0);
  EXPECT_THAT(Convert(huge).status().message(), HasSubstr("shape.mesh_asset.scale.x"));
  // No look-up (a caller with no store): every asset is unknown.
  EXPECT_THAT(MeshAssetShapeFromProto(Named(true), {}, "s").status().message(),
              HasSubstr("s.asset"));
}

// Bodies: the reference comes back on export, never the geometry; a dynamic body takes the
// asset only as a hull, and so does a compound child.
TEST_F(MeshAssetProtoTest, BodiesExportTheReference) {
  v1::Body room;
  room.set_kind(v1::BODY_KIND_STATIC);
  *room.mutable_shape()->mutable_mesh_asset() = Named(false);
  auto desc = BodyFromProto(room, "body", Lookup());
  ASSERT_TRUE(desc.ok()) << desc.status();
  const v1::Body back = BodyToProto(*desc);
  ASSERT_TRUE(back.shape().has_mesh_asset());
  EXPECT_EQ(back.shape().mesh_asset().asset(), kCube);
  EXPECT_FALSE(back.shape().mesh_asset().as_hull());
  EXPECT_EQ(back.shape().mesh_asset().scale().x(), 1.0);

  v1::Body dynamic = room;
  dynamic.set_kind(v1::BODY_KIND_DYNAMIC);
  EXPECT_THAT(BodyFromProto(dynamic, "body", Lookup()).status().message(),
              HasSubstr("body.kind"));

  v1::Body mug;
  v1::CompoundChild* child = mug.mutable_shape()->mutable_compound()->add_children();
  *child->mutable_shape()->mutable_mesh_asset() = Named(true);
  child->mutable_shape()->mutable_mesh_asset()->set_max_vertices(16);
  auto compound = BodyFromProto(mug, "body", Lookup());
  ASSERT_TRUE(compound.ok()) << compound.status();
  const v1::Body mug_back = BodyToProto(*compound);
  const v1::MeshAssetShape& ref = mug_back.shape().compound().children(0).shape().mesh_asset();
  EXPECT_EQ(ref.asset(), kCube);
  EXPECT_TRUE(ref.as_hull());
  EXPECT_EQ(ref.max_vertices(), 16u);

  child->mutable_shape()->mutable_mesh_asset()->set_as_hull(false);
  EXPECT_THAT(BodyFromProto(mug, "body", Lookup()).status().message(),
              HasSubstr("body.shape.compound.children[0].shape.mesh_asset.as_hull"));
}

}  // namespace
}  // namespace ligature
