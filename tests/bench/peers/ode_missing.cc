// Stands in for ode_scene.cc when the build has no ODE: the peer is reported unavailable.

#include "absl/status/status.h"
#include "tests/bench/peers/ode_scene.h"

namespace ligature::bench {

bool OdePeerAvailable() { return false; }

std::string OdePeerName() { return "ode"; }

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeOdeScene(const SceneDesc&) {
  return absl::UnimplementedError("ode peer: this build has no ODE (libode-dev)");
}

}  // namespace ligature::bench
