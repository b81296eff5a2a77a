#pragma once
// The Bullet peer: a btDiscreteDynamicsWorld (DBVT broadphase, sequential impulse solver)
// built from the same SceneDesc our engine gets.

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "server/world/scene_desc.h"
#include "tests/bench/registry.h"

namespace ligature::bench {

struct BulletSceneOptions {
  // Bullet puts resting bodies to sleep after 2 s and then skips them; our engine does not
  // sleep, so by default every body stays awake and both sides do the whole step.
  bool allow_sleeping = false;
};

// The Bullet library version as a peer name, e.g. "bullet-3.24".
std::string BulletPeerName();

// Bullet's copy of `scene`: its gravity, dt = 1 / rate_hz and max_iterations as the
// solver's iteration count, and one Bullet body per scene body. Mapped: dynamic and static
// spheres, boxes, capsules and hulls (btConvexHullShape of our hull's vertices, 1 mm
// margin, polyhedral contact clipping), static planes, and compounds of them.
// Masses and inertias are our engine's (peer_body.h) and each body starts at its centre of
// mass, in its principal axes. Ball, hinge and fixed joints without limits, drives or
// breaking map to btPoint2PointConstraint, btHingeConstraint and btFixedConstraint (the
// world side is Bullet's fixed body). Kinematic bodies and other constraints are an
// INVALID_ARGUMENT error naming the body or constraint.
absl::StatusOr<std::unique_ptr<SteppedScene>> MakeBulletScene(
    const SceneDesc& scene, const BulletSceneOptions& options = {});

}  // namespace ligature::bench
