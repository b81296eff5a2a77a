#pragma once
// Finds a diverged state: a non-finite number, or a position or speed beyond sane bounds
// (as MuJoCo's checks on qpos/qvel/qacc do), in every body kind of a world, and a
// non-finite number in a frame before it is published. Read-only; the guard that rolls a
// world back is in divergence_guard.h.

#include <optional>
#include <string>

#include "server/world/frame.h"
#include "server/world/world.h"

namespace ligature {

// What counts as absurd. Positions are checked per component (|x| in m from the origin),
// speeds as norms.
struct DivergenceBounds {
  // Above what the API accepts (1e6 m, 1e5 m/s): only motion can get there.
  double max_position = 1e7;       // m
  double max_speed = 1e6;          // m/s
  double max_angular_speed = 1e6;  // rad/s
};

// The first diverged quantity of `world` (rigid bodies, rods and their pearls, soft bodies,
// strands, in that order), or nullopt when every state is finite and within the bounds.
// The event's ticks are left for the caller to fill.
std::optional<DivergenceEvent> FindDivergence(const World& world,
                                              const DivergenceBounds& bounds);

// The first non-finite number of a frame, as a field path ("bodies[3].pose.position"), or
// nullopt when every number is finite.
std::optional<std::string> FindNonFinite(const Frame& frame);

}  // namespace ligature
