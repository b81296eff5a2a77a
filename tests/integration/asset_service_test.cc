// AssetService against a real server: uploads named by their content, reads with and
// without geometry, bad meshes named by index, and worlds whose bodies are made from assets
// (a floor mesh, a dropped hull), which keep their shapes when the asset is deleted.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ligature/v1/asset_service.grpc.pb.h"
#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A flat floor of n x n cells of 1 m, two triangles a cell facing +Y, centred on the origin.
v1::TriangleMesh Floor(int n) {
  v1::TriangleMesh mesh;
  for (int r = 0; r <= n; ++r) {
    for (int c = 0; c <= n; ++c) {
      v1::Vec3* v = mesh.add_vertices();
      v->set_x(c - 0.5 * n);
      v->set_z(r - 0.5 * n);
    }
  }
  for (int r = 0; r < n; ++r) {
    for (int c = 0; c < n; ++c) {
      const uint32_t p = r * (n + 1) + c, q = p + n + 1;
      for (const uint32_t i : {p, q, p + 1, p + 1, q, q + 1}) mesh.add_indices(i);
    }
  }
  return mesh;
}

// The eight corners of a cube of side `side` centred on the origin, as a point cloud with
// one triangle so that it is a mesh (a hull takes only the vertices).
v1::TriangleMesh CubeCorners(double side) {
  v1::TriangleMesh mesh;
  for (int i = 0; i < 8; ++i) {
    v1::Vec3* v = mesh.add_vertices();
    v->set_x((i & 1 ? 0.5 : -0.5) * side);
    v->set_y((i & 2 ? 0.5 : -0.5) * side);
    v->set_z((i & 4 ? 0.5 : -0.5) * side);
  }
  for (const uint32_t i : {0u, 2u, 1u}) mesh.add_indices(i);
  return mesh;
}

class AssetServiceTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    assets_ = v1::AssetService::NewStub(channel_);
  }

  grpc::Status Upload(const v1::TriangleMesh& mesh, const std::string& display, v1::Asset* out) {
    grpc::ClientContext ctx;
    v1::UploadAssetRequest req;
    req.mutable_asset()->set_display_name(display);
    *req.mutable_asset()->mutable_mesh() = mesh;
    return assets_->UploadAsset(&ctx, req, out);
  }

  grpc::Status Get(const std::string& name, bool skip_geometry, v1::Asset* out) {
    grpc::ClientContext ctx;
    v1::GetAssetRequest req;
    req.set_name(name);
    req.set_skip_geometry(skip_geometry);
    return assets_->GetAsset(&ctx, req, out);
  }

  std::unique_ptr<v1::AssetService::Stub> assets_;
};

TEST_F(AssetServiceTest, UploadGetListDelete) {
  v1::Asset floor, again, cube;
  ASSERT_TRUE(Upload(Floor(4), "floor.glb", &floor).ok());
  EXPECT_THAT(floor.name(), StartsWith("assets/"));
  EXPECT_EQ(floor.name().size(), 7u + 64u);
  EXPECT_EQ(floor.vertex_count(), 25u);
  EXPECT_EQ(floor.triangle_count(), 32u);
  EXPECT_EQ(floor.bounds_max().x(), 2.0);
  EXPECT_FALSE(floor.has_mesh());
  ASSERT_TRUE(Upload(Floor(4), "another name", &again).ok());
  EXPECT_EQ(again.name(), floor.name());
  EXPECT_EQ(again.display_name(), "floor.glb");
  ASSERT_TRUE(Upload(CubeCorners(1.0), "cube", &cube).ok());

  v1::Asset full, meta;
  ASSERT_TRUE(Get(floor.name(), false, &full).ok());
  EXPECT_EQ(full.mesh().SerializeAsString(), Floor(4).SerializeAsString());
  ASSERT_TRUE(Get(floor.name(), true, &meta).ok());
  EXPECT_FALSE(meta.has_mesh());
  EXPECT_EQ(meta.triangle_count(), 32u);

  grpc::ClientContext list_ctx;
  v1::ListAssetsResponse list;
  ASSERT_TRUE(assets_->ListAssets(&list_ctx, v1::ListAssetsRequest(), &list).ok());
  ASSERT_EQ(list.assets_size(), 2);
  EXPECT_LT(list.assets(0).name(), list.assets(1).name());
  EXPECT_FALSE(list.assets(0).has_mesh());

  grpc::ClientContext delete_ctx;
  v1::DeleteAssetRequest del;
  del.set_name(cube.name());
  v1::DeleteAssetResponse deleted;
  ASSERT_TRUE(assets_->DeleteAsset(&delete_ctx, del, &deleted).ok());
  v1::Asset gone;
  EXPECT_EQ(Get(cube.name(), false, &gone).error_code(), grpc::StatusCode::NOT_FOUND);
}

TEST_F(AssetServiceTest, BadUploadsAndNamesAreNamed) {
  v1::TriangleMesh bad = Floor(2);
  bad.set_indices(7, 1000);
  v1::Asset out;
  grpc::Status s = Upload(bad, "bad", &out);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("asset.mesh.indices[7]"));
  v1::TriangleMesh degenerate = Floor(1);
  degenerate.set_indices(1, degenerate.indices(0));
  EXPECT_THAT(Upload(degenerate, "bad", &out).error_message(), HasSubstr("asset.mesh.indices"));
  s = Get("assets/not-a-hash", false, &out);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), StartsWith("name:"));
}

// A hull cube of 0.4 m dropped on a floor mesh asset comes to rest with its centre 0.2 m up;
// the export gives back the references; once the asset is deleted the world keeps its
// shapes but no new body can name it.
TEST_F(AssetServiceTest, WorldsMadeFromAssets) {
  v1::Asset floor, cube;
  ASSERT_TRUE(Upload(Floor(8), "floor", &floor).ok());
  ASSERT_TRUE(Upload(CubeCorners(1.0), "cube", &cube).ok());
  v1::Scene scene;
  scene.mutable_settings()->set_rate_hz(100);
  scene.mutable_settings()->set_paused(true);
  v1::Body* ground = scene.add_bodies();
  ground->set_id("floor");
  ground->set_kind(v1::BODY_KIND_STATIC);
  ground->mutable_shape()->mutable_mesh_asset()->set_asset(floor.name());
  v1::Body* box = scene.add_bodies();
  box->set_id("box");
  v1::MeshAssetShape* hull = box->mutable_shape()->mutable_mesh_asset();
  hull->set_asset(cube.name());
  hull->set_as_hull(true);
  for (const auto set : {&v1::Vec3::set_x, &v1::Vec3::set_y, &v1::Vec3::set_z}) {
    (hull->mutable_scale()->*set)(0.4);
  }
  box->mutable_pose()->mutable_position()->set_y(0.5);
  v1::World world;
  grpc::Status s = CreateWorld("assets", scene, &world);
  ASSERT_TRUE(s.ok()) << s.error_message();

  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/assets", 200, &frame).ok());
  ASSERT_EQ(frame.bodies_size(), 2);
  EXPECT_NEAR(frame.bodies(1).pose().position().y(), 0.2, 2e-3);

  grpc::ClientContext export_ctx;
  v1::ExportSceneRequest req;
  req.set_parent("worlds/assets");
  v1::Scene exported;
  ASSERT_TRUE(scenes_->ExportScene(&export_ctx, req, &exported).ok());
  EXPECT_EQ(exported.bodies(0).shape().mesh_asset().asset(), floor.name());
  EXPECT_EQ(exported.bodies(1).shape().mesh_asset().asset(), cube.name());
  EXPECT_TRUE(exported.bodies(1).shape().mesh_asset().as_hull());

  grpc::ClientContext delete_ctx;
  v1::DeleteAssetRequest del;
  del.set_name(cube.name());
  v1::DeleteAssetResponse deleted;
  ASSERT_TRUE(assets_->DeleteAsset(&delete_ctx, del, &deleted).ok());
  ASSERT_TRUE(Step("worlds/assets", 10, &frame).ok());
  EXPECT_NEAR(frame.bodies(1).pose().position().y(), 0.2, 2e-3);
  v1::Body another = *box;
  another.set_id("another");
  s = CreateBodyIn("worlds/assets", another);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(s.error_message(), HasSubstr("body.shape.mesh_asset.asset"));
}

}  // namespace
}  // namespace ligature::testing
