#pragma once
// The ODE peer: a dWorld stepped by dWorldQuickStep (projected Gauss-Seidel) with a hash
// space for collision, built from the same SceneDesc our engine gets. Compiled only when
// CMake finds ODE; otherwise ode_missing.cc stands in and OdePeerAvailable() is false.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/world/scene_desc.h"
#include "tests/bench/registry.h"

namespace ligature::bench {

// Whether this build has the ODE peer.
bool OdePeerAvailable();

// The peer's name with ODE's major.minor version and its stepper, e.g. "ode-0.16-quickstep".
std::string OdePeerName();

// ODE's copy of `scene`: its gravity, dt = 1 / rate_hz and max_iterations as quickstep's
// iteration count, and one ODE body per dynamic scene body at its centre of mass with our
// engine's mass and inertia (peer_body.h), carrying one geom per shape at its offset.
// Static bodies are body-less geoms; planes are ODE planes. Contacts use dContactApprox1
// with mu = sqrt(mu_a mu_b). Kinematic bodies and constraints are an INVALID_ARGUMENT error.
absl::StatusOr<std::unique_ptr<SteppedScene>> MakeOdeScene(const SceneDesc& scene);

}  // namespace ligature::bench
