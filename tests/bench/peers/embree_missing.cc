// Stands in for embree_rays.cc when the build has no Embree: the peer is reported
// unavailable.

#include "absl/status/status.h"
#include "tests/bench/peers/embree_rays.h"

namespace ligature::bench {

bool EmbreePeerAvailable() { return false; }

std::string EmbreePeerName() { return "embree"; }

absl::StatusOr<std::unique_ptr<RayCaster>> MakeEmbreeRays(const RayScene&) {
  return absl::UnimplementedError("embree peer: this build has no Embree (libembree-dev)");
}

}  // namespace ligature::bench
