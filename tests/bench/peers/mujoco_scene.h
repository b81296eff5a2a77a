#pragma once
// The MuJoCo peer: an mjModel compiled from an MJCF document written from the same SceneDesc
// our engine gets, stepped by mj_step. Compiled only when CMake finds MuJoCo; otherwise
// mujoco_missing.cc stands in and MujocoPeerAvailable() is false.

#include <memory>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "server/world/scene_desc.h"
#include "tests/bench/registry.h"

namespace ligature::bench {

// Whether this build has the MuJoCo peer.
bool MujocoPeerAvailable();

// Which of MuJoCo's constraint solvers steps the scene.
enum class MujocoSolver {
  kPgs,     // projected Gauss-Seidel on the dual, as ours and Bullet's sequential impulse
  kCg,      // conjugate gradient on the primal
  kNewton,  // MuJoCo's default: Newton on the primal
};

struct MujocoSceneOptions {
  MujocoSolver solver = MujocoSolver::kPgs;
  // The solver's iteration count and tolerance; unset takes the scene's max_iterations
  // with tolerance 0 (every iteration runs, as our equal-work lines run them).
  std::optional<int> iterations;
  double tolerance = 0.0;
};

// MuJoCo's own defaults for a model that sets none: its solver, iterations and tolerance,
// read from the library.
MujocoSceneOptions MujocoDefaultOptions();

// The peer's name with MuJoCo's version and solver, e.g. "mujoco-2.2.2-pgs".
std::string MujocoPeerName(MujocoSolver solver);

// MuJoCo's copy of `scene`: its gravity and dt = 1 / rate_hz, the options' solver and
// iterations, a pyramidal friction cone and default contact softness (solref, solimp). One
// free body per dynamic scene body at its centre of mass with our engine's mass and full
// inertia (peer_body.h), one geom per shape at its offset; static bodies are geoms of the
// world body and planes are MuJoCo planes; hulls are mesh geoms of their vertices, with
// MuJoCo's multi-point convex collision on. Each geom carries its body's friction: MuJoCo
// takes the larger of two, which equals our geometric mean when both are equal (every
// built-in scene). Contact buffers are sized from the scene so that no contact is dropped;
// the notes count any that were. Kinematic bodies, triangle meshes, restitution and
// constraints are an INVALID_ARGUMENT error.
absl::StatusOr<std::unique_ptr<SteppedScene>> MakeMujocoScene(
    const SceneDesc& scene, const MujocoSceneOptions& options = {});

}  // namespace ligature::bench
