#include "server/host/asset_store.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace ligature {
namespace {

using ::testing::HasSubstr;

// A triangle in the XZ plane, as an upload.
v1::Asset TriangleUpload(double x = 1.0) {
  v1::Asset asset;
  asset.set_display_name("triangle.obj");
  for (const auto& [px, pz] : {std::pair(0.0, 0.0), std::pair(x, 0.0), std::pair(0.0, 1.0)}) {
    v1::Vec3* v = asset.mutable_mesh()->add_vertices();
    v->set_x(px);
    v->set_z(pz);
  }
  for (const uint32_t i : {0u, 1u, 2u}) asset.mutable_mesh()->add_indices(i);
  return asset;
}

class AssetStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/ligature_assets_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string dir_;
};

// The name is the SHA-256 of the counts, the vertices as little-endian doubles and the
// indices as little-endian 32-bit integers, computed independently (Python's hashlib over
// struct.pack('<Q', 3), three '<3d', '<Q', 1 and '<3I').
TEST_F(AssetStoreTest, NameIsTheHashOfTheGeometry) {
  AssetStore store(AssetStoreOptions{});
  auto stored = store.Upload(TriangleUpload());
  ASSERT_TRUE(stored.ok()) << stored.status();
  EXPECT_EQ(stored->mesh->name,
            "assets/b5174fbe4fa62b4bfd9d8f36914348a9454932d7b2dd5341708df09012285ef4");
  EXPECT_EQ(stored->display_name, "triangle.obj");
}

TEST_F(AssetStoreTest, SameGeometryIsOneAsset) {
  AssetStore store(AssetStoreOptions{});
  auto first = store.Upload(TriangleUpload());
  v1::Asset again = TriangleUpload();
  again.set_display_name("other name");
  auto second = store.Upload(again);
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_EQ(first->mesh, second->mesh);
  EXPECT_EQ(second->display_name, "triangle.obj");
  EXPECT_EQ(store.List().size(), 1u);
  EXPECT_EQ(store.bytes(), 3u * 24u + 12u);

  auto other = store.Upload(TriangleUpload(2.0));
  ASSERT_TRUE(other.ok());
  EXPECT_NE(other->mesh->name, first->mesh->name);
  EXPECT_EQ(store.List().size(), 2u);
}

TEST_F(AssetStoreTest, BadMeshNamesTheIndex) {
  AssetStore store(AssetStoreOptions{});
  v1::Asset bad = TriangleUpload();
  bad.mutable_mesh()->set_indices(2, 7);
  auto stored = store.Upload(bad);
  EXPECT_EQ(stored.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(stored.status().message(), HasSubstr("asset.mesh.indices[2]"));
  v1::Asset nan = TriangleUpload();
  nan.mutable_mesh()->mutable_vertices(1)->set_y(std::nan(""));
  EXPECT_THAT(store.Upload(nan).status().message(), HasSubstr("asset.mesh.vertices[1]"));
  v1::Asset long_name = TriangleUpload();
  long_name.set_display_name(std::string(300, 'a'));
  EXPECT_THAT(store.Upload(long_name).status().message(), HasSubstr("asset.display_name"));
  EXPECT_TRUE(store.List().empty());
}

TEST_F(AssetStoreTest, SizeLimitRefusesWhatDoesNotFit) {
  AssetStore store(AssetStoreOptions{.max_bytes = 100});
  ASSERT_TRUE(store.Upload(TriangleUpload()).ok());  // 84 bytes
  auto second = store.Upload(TriangleUpload(2.0));
  EXPECT_EQ(second.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(store.List().size(), 1u);
}

TEST_F(AssetStoreTest, DeleteLeavesShapesTheirGeometry) {
  AssetStore store(AssetStoreOptions{});
  auto stored = store.Upload(TriangleUpload());
  ASSERT_TRUE(stored.ok());
  const MeshAssetLookup lookup = store.Lookup();
  std::shared_ptr<const MeshAsset> held = lookup(stored->mesh->name);
  ASSERT_NE(held, nullptr);
  EXPECT_TRUE(store.Delete(stored->mesh->name).ok());
  EXPECT_EQ(lookup(stored->mesh->name), nullptr);
  EXPECT_EQ(store.Get(stored->mesh->name).status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(store.Delete(stored->mesh->name).code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(held->mesh->triangles.size(), 1u);
  EXPECT_EQ(store.bytes(), 0u);
}

// With a directory, what was stored comes back in a new store; a file that was tampered
// with is reported and left out; a deleted asset's file goes.
TEST_F(AssetStoreTest, DirectoryKeepsAssetsAcrossRestarts) {
  std::string kept, tampered;
  {
    AssetStore store(AssetStoreOptions{.dir = dir_});
    kept = store.Upload(TriangleUpload())->mesh->name;
    tampered = store.Upload(TriangleUpload(3.0))->mesh->name;
    const std::string gone = store.Upload(TriangleUpload(4.0))->mesh->name;
    ASSERT_TRUE(store.Delete(gone).ok());
  }
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_),
                          std::filesystem::directory_iterator()),
            2);
  // Another asset's bytes under the tampered one's file name.
  const std::string hex = tampered.substr(7);
  std::filesystem::copy_file(dir_ + "/" + kept.substr(7) + ".asset", dir_ + "/" + hex + ".asset",
                             std::filesystem::copy_options::overwrite_existing);

  AssetStore restarted(AssetStoreOptions{.dir = dir_});
  std::vector<std::string> problems;
  restarted.Load(&problems);
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_THAT(problems[0], HasSubstr(hex));
  auto back = restarted.Get(kept);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(back->display_name, "triangle.obj");
  EXPECT_EQ(back->mesh->mesh->vertices[1], Vec3(1.0, 0.0, 0.0));
  EXPECT_FALSE(restarted.Get(tampered).ok());
}

}  // namespace
}  // namespace ligature
