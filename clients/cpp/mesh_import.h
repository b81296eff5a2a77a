#pragma once
// Mesh files (glTF 2.0 .gltf and .glb, OBJ, STL, PLY) read into a TriangleMesh through
// Debian's libassimp: every mesh of the file, placed by its node's transform, triangulated,
// identical vertices joined, and triangles without area, points and lines dropped. Axes are
// kept as the file has them (glTF is Y-up, as Ligature is).

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "ligature/v1/scene.pb.h"

namespace ligature::client {

// Whether `path`'s extension is one of the mesh formats above.
bool IsMeshFile(absl::string_view path);

// The triangles of the file at `path`. NOT_FOUND when it cannot be read; INVALID_ARGUMENT
// naming the file for an unknown extension, content that does not parse, or no triangles.
absl::StatusOr<ligature::v1::TriangleMesh> ImportMeshFile(absl::string_view path);

}  // namespace ligature::client
