#pragma once
// What must hold of a world after every operation a fuzzer applies: each number of its
// frame is finite, and its frame, summary and exported scene agree on its content. A
// broken invariant aborts, so that the fuzzer records the input.

#include <functional>
#include <string>

#include "server/scene/mesh_asset_proto.h"
#include "server/world/world.h"

namespace ligature::fuzz {

// The mesh assets fuzz inputs may name: "assets/tet" (a unit right tetrahedron) and
// "assets/floor" (a 4 m square of 32 triangles facing +Y).
const MeshAssetLookup& FuzzAssets();

// Aborts with `what` when `ok` is false.
void Require(bool ok, const char* what, const std::string& detail = "");

// The frame is finite and lists each body once, as many as the world holds, and the
// exported scene holds the same bodies and constraints.
void CheckWorld(const World& world);

// The exported scene is accepted again as a scene (what ExportScene promises), its mesh
// assets found in FuzzAssets().
void CheckExportRoundTrip(const World& world);

// Snapshots restore bit-identically: `world`'s snapshot rebuilds a world (with `limits`)
// whose own snapshot is the same bytes, and the two, stepped `ticks` times side by side,
// still give the same bytes (checked only when no time budget makes the solve depend on
// the clock). `before_step` runs before each of the original's steps (to drain haptic
// couplings the copy does not get). Returns the snapshot's bytes.
std::string CheckSnapshotRoundTrip(World* world, const WorldLimits& limits, int ticks,
                                   const std::function<void()>& before_step);

}  // namespace ligature::fuzz
