#pragma once
// Embree's side of query/raycast_mesh, the floor a ray query can reach on one thread:
// Intel Embree 3's single-ray API (rtcIntersect1) over the same terrain and solids.
// Optional at build time: without Embree, EmbreePeerAvailable() is false and
// MakeEmbreeRays fails.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tests/bench/query/ray_scene.h"

namespace ligature::bench {

bool EmbreePeerAvailable();

// The library version as a peer name, e.g. "embree-3.13.5".
std::string EmbreePeerName();

absl::StatusOr<std::unique_ptr<RayCaster>> MakeEmbreeRays(const RayScene& scene);

}  // namespace ligature::bench
