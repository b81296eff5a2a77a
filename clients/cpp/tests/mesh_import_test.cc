#include "clients/cpp/mesh_import.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace ligature::client {
namespace {

using ::testing::HasSubstr;

class MeshImportTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = ::testing::TempDir() + "/ligature_mesh_import_" + std::to_string(::getpid()) + "_" +
           ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string Write(const std::string& name, const std::string& content) {
    const std::string path = dir_ + "/" + name;
    std::ofstream(path) << content;
    return path;
  }

  std::string dir_;
};

// A unit square in the XZ plane as two triangles facing +Y, plus a triangle without area
// and a line: the square's four corners come back joined, the rest is dropped.
TEST_F(MeshImportTest, ObjTrianglesJoinedAndCleaned) {
  const std::string path = Write("square.obj",
                                 "v 0 0 0\nv 0 0 1\nv 1 0 1\nv 1 0 0\nv 2 0 0\nv 3 0 0\n"
                                 "f 1 2 3\nf 1 3 4\nf 4 5 6\nl 1 5\n");
  auto mesh = ImportMeshFile(path);
  ASSERT_TRUE(mesh.ok()) << mesh.status();
  EXPECT_EQ(mesh->indices_size(), 6);
  EXPECT_EQ(mesh->vertices_size(), 4);
  // The first triangle keeps its corners' order (counter-clockwise seen from +Y).
  const auto& v = mesh->vertices();
  const auto a = v[mesh->indices(0)], b = v[mesh->indices(1)], c = v[mesh->indices(2)];
  const double normal_y = (b.z() - a.z()) * (c.x() - a.x()) - (b.x() - a.x()) * (c.z() - a.z());
  EXPECT_GT(normal_y, 0.0);
}

TEST_F(MeshImportTest, StlAndPly) {
  const std::string stl = Write("tet.stl",
                                "solid tet\n"
                                " facet normal 0 0 -1\n  outer loop\n   vertex 0 0 0\n"
                                "   vertex 0 1 0\n   vertex 1 0 0\n  endloop\n endfacet\n"
                                " facet normal 0 -1 0\n  outer loop\n   vertex 0 0 0\n"
                                "   vertex 1 0 0\n   vertex 0 0 1\n  endloop\n endfacet\n"
                                " facet normal -1 0 0\n  outer loop\n   vertex 0 0 0\n"
                                "   vertex 0 0 1\n   vertex 0 1 0\n  endloop\n endfacet\n"
                                " facet normal 1 1 1\n  outer loop\n   vertex 1 0 0\n"
                                "   vertex 0 1 0\n   vertex 0 0 1\n  endloop\n endfacet\n"
                                "endsolid tet\n");
  auto tet = ImportMeshFile(stl);
  ASSERT_TRUE(tet.ok()) << tet.status();
  EXPECT_EQ(tet->indices_size(), 12);
  EXPECT_EQ(tet->vertices_size(), 4);  // STL repeats corners per facet; they are joined

  const std::string ply = Write("tri.ply",
                                "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n"
                                "property float y\nproperty float z\nelement face 1\n"
                                "property list uchar int vertex_indices\nend_header\n"
                                "0 0 0\n0 0 2\n2 0 0\n3 0 1 2\n");
  auto tri = ImportMeshFile(ply);
  ASSERT_TRUE(tri.ok()) << tri.status();
  EXPECT_EQ(tri->indices_size(), 3);
  EXPECT_EQ(tri->vertices(2).x() + tri->vertices(1).x() + tri->vertices(0).x(), 2.0);
}

TEST_F(MeshImportTest, ErrorsNameTheFile) {
  auto unknown = ImportMeshFile(Write("mesh.xyz", "v 0 0 0\n"));
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(), HasSubstr("mesh.xyz"));
  auto missing = ImportMeshFile(dir_ + "/missing.obj");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(missing.status().message(), HasSubstr("missing.obj"));
  auto lines = ImportMeshFile(Write("lines.obj", "v 0 0 0\nv 1 0 0\nl 1 2\n"));
  EXPECT_EQ(lines.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(lines.status().message(), HasSubstr("lines.obj"));
  auto bad_index = ImportMeshFile(Write("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 0 1\nf 1 2 9\n"));
  EXPECT_EQ(bad_index.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_index.status().message(), HasSubstr("bad.obj"));
}

}  // namespace
}  // namespace ligature::client
