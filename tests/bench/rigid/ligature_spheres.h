#pragma once
// Our engine's side of the sphere-pile benchmarks: a World built from a SceneDesc.

#include <memory>

#include "absl/status/statusor.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/sphere_pile.h"

namespace ligature::bench {

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeLigatureSpheres(const SpherePile& pile);

}  // namespace ligature::bench
