// Stands in for mujoco_scene.cc when the build has no MuJoCo: the peer is reported
// unavailable.

#include "absl/status/status.h"
#include "tests/bench/peers/mujoco_scene.h"

namespace ligature::bench {

bool MujocoPeerAvailable() { return false; }

MujocoSceneOptions MujocoDefaultOptions() { return {}; }

std::string MujocoPeerName(MujocoSolver) { return "mujoco"; }

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeMujocoScene(const SceneDesc&,
                                                              const MujocoSceneOptions&) {
  return absl::UnimplementedError("mujoco peer: this build has no MuJoCo (libmujoco-dev)");
}

}  // namespace ligature::bench
