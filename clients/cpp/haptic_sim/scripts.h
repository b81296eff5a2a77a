#pragma once
// Scripted device trajectories for the haptic device simulator: where the device is at
// time t (s) of the script, relative to its start point.

#include <string>

#include "absl/status/statusor.h"
#include "server/math/types.h"

namespace ligature::client {

struct DeviceScript {
  std::string name;
  double duration = 0.0;  // s
  // The device position at time t, for a start point `origin` and a press `depth` (m).
  Vec3 (*position)(double t, const Vec3& origin, double depth) = nullptr;
};

// press: down by `depth` at 5 cm/s, then hold; stroke: press, then +-5 cm along x at
// 0.5 Hz, then lift; tap: press and lift five times; hold: stay at the origin.
absl::StatusOr<DeviceScript> FindScript(const std::string& name, double seconds);

}  // namespace ligature::client
