#include "clients/cpp/mesh_import.h"

#include <assimp/Importer.hpp>
#include <assimp/postprocess.h>
#include <assimp/scene.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>
#include <filesystem>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"

namespace ligature::client {
namespace {

// A triangle's area against its longest edge, below which the server calls it degenerate.
constexpr double kMinAreaRatio = 1e-9;

// Whether corners a, b, c make a triangle with area (as the server judges it, with margin).
bool HasArea(const aiVector3D& a, const aiVector3D& b, const aiVector3D& c) {
  const aiVector3D cross = (b - a) ^ (c - a);
  const double longest =
      std::max({(b - a).SquareLength(), (c - b).SquareLength(), (a - c).SquareLength()});
  return cross.Length() > kMinAreaRatio * longest;
}

// Appends the triangles of `node` and its children, each mesh placed by `to_file` (the
// node's transform in the file's frame).
void AddNode(const aiScene& scene, const aiNode& node, const aiMatrix4x4& parent,
             v1::TriangleMesh* out) {
  const aiMatrix4x4 to_file = parent * node.mTransformation;
  // A mirroring transform turns counter-clockwise corners clockwise: swap two back.
  const bool mirrored = to_file.Determinant() < 0.0f;
  for (unsigned m = 0; m < node.mNumMeshes; ++m) {
    const aiMesh& mesh = *scene.mMeshes[node.mMeshes[m]];
    if (!(mesh.mPrimitiveTypes & aiPrimitiveType_TRIANGLE)) continue;
    const uint32_t first = static_cast<uint32_t>(out->vertices_size());
    std::vector<aiVector3D> placed(mesh.mNumVertices);
    for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
      placed[v] = to_file * mesh.mVertices[v];
      v1::Vec3* vertex = out->add_vertices();
      vertex->set_x(placed[v].x);
      vertex->set_y(placed[v].y);
      vertex->set_z(placed[v].z);
    }
    for (unsigned f = 0; f < mesh.mNumFaces; ++f) {
      const aiFace& face = mesh.mFaces[f];
      if (face.mNumIndices != 3) continue;
      std::array<unsigned, 3> i = {face.mIndices[0], face.mIndices[1], face.mIndices[2]};
      if (mirrored) std::swap(i[1], i[2]);
      if (!HasArea(placed[i[0]], placed[i[1]], placed[i[2]])) continue;
      for (const unsigned k : i) out->add_indices(first + k);
    }
  }
  for (unsigned c = 0; c < node.mNumChildren; ++c) AddNode(scene, *node.mChildren[c], to_file, out);
}

// Keeps only the vertices some triangle uses, renumbering the indices.
void DropUnusedVertices(v1::TriangleMesh* mesh) {
  std::vector<int> renumbered(mesh->vertices_size(), -1);
  v1::TriangleMesh kept;
  for (const uint32_t i : mesh->indices()) {
    if (renumbered[i] < 0) {
      renumbered[i] = kept.vertices_size();
      *kept.add_vertices() = mesh->vertices(static_cast<int>(i));
    }
    kept.add_indices(static_cast<uint32_t>(renumbered[i]));
  }
  *mesh = std::move(kept);
}

}  // namespace

bool IsMeshFile(absl::string_view path) {
  const std::string lower = absl::AsciiStrToLower(path);
  for (absl::string_view ext : {".gltf", ".glb", ".obj", ".stl", ".ply"}) {
    if (absl::EndsWith(lower, ext)) return true;
  }
  return false;
}

absl::StatusOr<v1::TriangleMesh> ImportMeshFile(absl::string_view path) {
  const std::string file(path);
  if (!IsMeshFile(file)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "mesh file ", file, ": unknown extension (expected .gltf, .glb, .obj, .stl or .ply)"));
  }
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec)) {
    return absl::NotFoundError(absl::StrCat("cannot read mesh file ", file));
  }
  // Positions only (a vertex's normals, colours or texture coordinates would keep corners at
  // one place apart), triangulated, identical vertices joined, lines and points sorted out.
  Assimp::Importer importer;
  importer.SetPropertyInteger(AI_CONFIG_PP_RVC_FLAGS,
                              aiComponent_NORMALS | aiComponent_TANGENTS_AND_BITANGENTS |
                                  aiComponent_COLORS | aiComponent_TEXCOORDS |
                                  aiComponent_BONEWEIGHTS);
  importer.SetPropertyInteger(AI_CONFIG_PP_SBP_REMOVE,
                              aiPrimitiveType_POINT | aiPrimitiveType_LINE);
  const aiScene* scene =
      importer.ReadFile(file, aiProcess_RemoveComponent | aiProcess_Triangulate |
                                  aiProcess_JoinIdenticalVertices | aiProcess_SortByPType |
                                  aiProcess_ValidateDataStructure);
  if (scene == nullptr || scene->mRootNode == nullptr ||
      (scene->mFlags & AI_SCENE_FLAGS_INCOMPLETE)) {
    return absl::InvalidArgumentError(
        absl::StrCat("mesh file ", file, ": ", importer.GetErrorString()));
  }
  v1::TriangleMesh mesh;
  AddNode(*scene, *scene->mRootNode, aiMatrix4x4(), &mesh);
  DropUnusedVertices(&mesh);
  if (mesh.indices_size() == 0) {
    return absl::InvalidArgumentError(absl::StrCat("mesh file ", file, ": holds no triangles"));
  }
  return mesh;
}

}  // namespace ligature::client
