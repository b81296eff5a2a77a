#pragma once
// The mesh assets of the server: geometry uploaded once, named by the SHA-256 of its
// contents (so an asset never changes and the same geometry is one asset), shared by every
// shape made from it, within a size limit, and with a directory kept on disk when one is
// given (one file an asset, written atomically, read back at start).
//
// Threading: every method may be called from any thread; `mu_` guards the map, whose
// assets are constant once stored.

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "ligature/v1/asset.pb.h"
#include "server/scene/mesh_asset_proto.h"

namespace ligature {

struct AssetStoreOptions {
  uint64_t max_bytes = uint64_t{1} << 30;  // geometry held in all (MeshAssetBytes)
  std::string dir;                         // empty: kept in memory only
};

struct StoredAsset {
  std::shared_ptr<const MeshAsset> mesh;
  std::string display_name;
};

// The name of geometry: assets/ and the SHA-256 of its vertices (IEEE doubles) and
// triangles (32-bit indices), little-endian, after their counts.
std::string AssetNameOf(const TriangleMesh& mesh);

class AssetStore {
 public:
  explicit AssetStore(AssetStoreOptions options) : options_(std::move(options)) {}

  // Reads every asset file of the directory; a file that does not load, or whose name
  // is not its contents' hash, adds a line to `problems` and is left out.
  void Load(std::vector<std::string>* problems) ABSL_LOCKS_EXCLUDED(mu_);

  // Stores an upload (display name and mesh) and returns it; geometry already stored
  // returns the stored asset. INVALID_ARGUMENT naming `asset.mesh`'s bad vertex or index or
  // a display name over 256 bytes; RESOURCE_EXHAUSTED beyond max_bytes; an error writing
  // the file stores nothing.
  absl::StatusOr<StoredAsset> Upload(const v1::Asset& asset) ABSL_LOCKS_EXCLUDED(mu_);

  // The stored asset `name`, or NOT_FOUND.
  absl::StatusOr<StoredAsset> Get(const std::string& name) const ABSL_LOCKS_EXCLUDED(mu_);
  // Every stored asset, by name.
  std::vector<StoredAsset> List() const ABSL_LOCKS_EXCLUDED(mu_);
  // NOT_FOUND when there is none; shapes made from it keep their geometry.
  absl::Status Delete(const std::string& name) ABSL_LOCKS_EXCLUDED(mu_);

  // A look-up for scene conversions; it uses the store, which must outlive it.
  MeshAssetLookup Lookup() const;

  uint64_t bytes() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  std::string PathOf(const std::string& name) const;

  const AssetStoreOptions options_;
  mutable absl::Mutex mu_;
  std::map<std::string, StoredAsset> assets_ ABSL_GUARDED_BY(mu_);
  uint64_t bytes_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace ligature
