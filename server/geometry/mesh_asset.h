#pragma once
// A mesh stored once and used by many shapes: its name (from the SHA-256 of its geometry)
// and its triangle mesh as uploaded, shared and constant.

#include <memory>
#include <string>

#include "server/geometry/triangle_mesh.h"

namespace ligature {

struct MeshAsset {
  std::string name;                          // assets/{sha256}
  std::shared_ptr<const TriangleMesh> mesh;  // unit scale, never null
};

}  // namespace ligature
