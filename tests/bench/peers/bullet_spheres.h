#pragma once
// The Bullet peer for sphere piles: a btDiscreteDynamicsWorld (DBVT broadphase, sequential
// impulse solver) built from the same SpherePile our engine gets.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "tests/bench/registry.h"
#include "tests/bench/rigid/sphere_pile.h"

namespace ligature::bench {

struct BulletSpheresOptions {
  // Bullet puts resting bodies to sleep after 2 s and then skips them; our engine does not
  // sleep, so by default every body stays awake and both sides do the whole step.
  bool allow_sleeping = false;
};

// The Bullet library version as a peer name, e.g. "bullet-3.24".
std::string BulletPeerName();

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeBulletSpheres(
    const SpherePile& pile, const BulletSpheresOptions& options = {});

}  // namespace ligature::bench
