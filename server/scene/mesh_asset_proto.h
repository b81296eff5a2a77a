#pragma once
// Mesh assets <-> ligature.v1 messages: an uploaded mesh checked and built into a shared
// MeshAsset, its metadata and geometry for reads, and the shapes made from it
// (Shape.mesh_asset), resolved through a look-up the caller supplies (the asset store, or
// a snapshot's own assets).

#include <functional>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "ligature/v1/asset.pb.h"
#include "ligature/v1/scene.pb.h"
#include "server/geometry/mesh_asset.h"
#include "server/geometry/shape.h"

namespace ligature {

// The asset of a name, or null when there is none. An empty function knows no asset.
using MeshAssetLookup = std::function<std::shared_ptr<const MeshAsset>(const std::string& name)>;

// The asset `name` holding `mesh`, checked as a TriangleMesh shape is: INVALID_ARGUMENT
// naming `field`'s offending vertex or index.
absl::StatusOr<std::shared_ptr<const MeshAsset>> MeshAssetFromProto(const v1::TriangleMesh& mesh,
                                                                    std::string name,
                                                                    const std::string& field);

// Bytes of geometry an asset holds (its vertices and triangles).
uint64_t MeshAssetBytes(const MeshAsset& asset);

// `asset`'s name, counts, size and bounds, and with `geometry` its vertices and indices.
void MeshAssetToProto(const MeshAsset& asset, bool geometry, v1::Asset* out);

// The hull or mesh a MeshAssetShape names. INVALID_ARGUMENT under `field` for a file
// reference (clients read files), an unknown asset, a bad scale or a hull the vertices do
// not make.
absl::StatusOr<Shape> MeshAssetShapeFromProto(const v1::MeshAssetShape& s,
                                              const MeshAssetLookup& assets,
                                              const std::string& field);

// The reference a shape made from an asset gives back (`shape.asset` must be set).
void MeshAssetShapeToProto(const Shape& shape, v1::MeshAssetShape* out);

}  // namespace ligature
