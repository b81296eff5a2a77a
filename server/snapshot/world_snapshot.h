#pragma once
// World snapshots: a world's complete state as a ligature.v1.WorldSnapshot (its scene
// export plus the changing state the export leaves out), and a world rebuilt from one that
// steps bit-identically to the world it was taken from.
//
// Restoring reads untrusted bytes: the scene goes through the scene validation and builds a
// fresh world, then every size, index and number of the state is checked against that
// world before any of it is used. A bad snapshot gets INVALID_ARGUMENT naming the field
// (e.g. "state.rods[1].x: ...") and builds nothing.

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "ligature/v1/snapshot.pb.h"
#include "server/world/world.h"

namespace ligature {

// 2 added the soft constraints' state and the rods' solver orderings; a format-1 snapshot
// still restores (without them).
inline constexpr uint32_t kSnapshotFormatVersion = 2;

// The snapshot of `world` between two ticks.
v1::WorldSnapshot CaptureSnapshot(const World& world);

// A new world named `name` holding the snapshot's state.
absl::StatusOr<std::unique_ptr<World>> WorldFromSnapshot(const v1::WorldSnapshot& snapshot,
                                                         const std::string& name,
                                                         const WorldLimits& limits);
// The same from serialized bytes (INVALID_ARGUMENT "snapshot: ..." when they do not parse).
absl::StatusOr<std::unique_ptr<World>> WorldFromSnapshotBytes(std::string_view bytes,
                                                              const std::string& name,
                                                              const WorldLimits& limits);

// `target` takes the whole state and settings of `restored` (built by WorldFromSnapshot)
// but keeps its name, monitoring totals and attached haptic sessions.
void ReplaceWorldState(World* target, World restored);

// Rebuilds a world from `bytes` and puts it into `target` (ReplaceWorldState); on any error
// `target` is left as it was.
absl::Status RestoreSnapshotInto(World* target, std::string_view bytes,
                                 const WorldLimits& limits);

// CaptureSnapshot, serialized (equal worlds give equal bytes).
std::string SerializeSnapshot(const World& world);

}  // namespace ligature
