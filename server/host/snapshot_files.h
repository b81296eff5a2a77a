#pragma once
// World snapshots on disk: one file per snapshot, <dir>/<world id>.<tick, 20 digits>.snap,
// holding a serialized ligature.v1.WorldSnapshot.
//
// A file is written atomically: the bytes go to a temporary file in the same directory,
// which is fsynced and renamed over the final name, and the directory is fsynced, so a
// crash leaves either the old set of files or the new one, never a torn snapshot under a
// final name. Each world keeps its newest `keep` files. Loading takes each world's newest
// file that parses and validates; a corrupt or truncated one is reported and skipped.

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "server/world/world.h"

namespace ligature {

struct SnapshotFile {
  std::string world_id;
  uint64_t tick = 0;
  std::string path;
};

// The snapshot files in `dir`, by world id, newest first within a world. Other files are
// ignored.
absl::StatusOr<std::vector<SnapshotFile>> ListSnapshotFiles(const std::string& dir);

// Writes `bytes` to `dir`/`name` atomically (as a snapshot, see above); returns the path.
absl::StatusOr<std::string> WriteFileAtomically(const std::string& dir,
                                                const std::string& name,
                                                std::string_view bytes);

// Writes `bytes` as world `world_id`'s snapshot at `tick` (atomically, see above), then
// removes that world's files beyond the newest `keep`. Returns the path written.
absl::StatusOr<std::string> WriteSnapshotFile(const std::string& dir,
                                              const std::string& world_id, uint64_t tick,
                                              std::string_view bytes, int keep = 2);

// Removes every snapshot file of `world_id` (the world was deleted).
absl::Status RemoveSnapshotFiles(const std::string& dir, const std::string& world_id);

absl::StatusOr<std::string> ReadWholeFile(const std::string& path);

// Removes the temporary files a crash in the middle of a write left in `dir`; returns how
// many.
int RemoveTemporaryFiles(const std::string& dir);

// A world rebuilt from its newest valid snapshot file.
struct LoadedWorld {
  std::string world_id;
  std::unique_ptr<World> world;  // named WorldName(world_id)
  std::string path;              // the file it came from
};

// Every world in `dir` from its newest valid file. Each file that does not load (or the
// directory itself) adds a line to `problems`; a world none of whose files load is left out.
std::vector<LoadedWorld> LoadNewestSnapshots(const std::string& dir, const WorldLimits& limits,
                                             std::vector<std::string>* problems);

}  // namespace ligature
