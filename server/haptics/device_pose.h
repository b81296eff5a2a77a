#pragma once
// One sample of a haptic device, and the checks a pose must pass before it may drive a
// tool: finite, within the workspace, a unit quaternion.

#include <cstdint>

#include "absl/status/status.h"
#include "server/math/types.h"

namespace ligature::haptics {

inline constexpr double kWorkspaceLimit = 1000.0;   // m from the world origin
inline constexpr double kQuaternionTolerance = 1e-3;

struct DevicePose {
  uint64_t sequence = 0;
  double client_time = 0.0;       // s, the device's clock
  Vec3 position = Vec3::Zero();   // m, world: target of the tool body's frame
  Quat orientation = Quat::Identity();
  uint32_t buttons = 0;
};

// INVALID_ARGUMENT naming the field ("position: not finite", ...). A quaternion within
// the tolerance of unit length is renormalized in place.
absl::Status CheckDevicePose(DevicePose* pose);

}  // namespace ligature::haptics
