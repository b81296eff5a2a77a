#pragma once
// The parameters of one haptic session: the virtual coupling between device and tool, and
// the safety limits on what reaches the device. Zero fields mean "default"; Resolve fills
// them in (some defaults depend on the tool's mass) and checks ranges.

#include "absl/status/statusor.h"

namespace ligature::haptics {

struct CouplingParams {
  double stiffness = 0.0;             // N/m
  double damping = 0.0;               // N s/m
  double rotational_stiffness = 0.0;  // N m/rad; 0: orientation not coupled
  double rotational_damping = 0.0;    // N m s/rad
};

struct SafetyLimits {
  double force_limit = 0.0;        // N
  double torque_limit = 0.0;       // N m
  double force_rate_limit = 0.0;   // N/s
  double torque_rate_limit = 0.0;  // N m/s
  double watchdog_timeout = 0.0;   // s
};

struct HapticParams {
  CouplingParams coupling;
  SafetyLimits limits;
};

// Defaults (see haptics_service.proto).
inline constexpr double kDefaultStiffness = 400.0;        // N/m
inline constexpr double kMaxStiffness = 1e5;              // N/m
inline constexpr double kMaxDefaultDamping = 50.0;        // N s/m
inline constexpr double kDefaultForceLimit = 10.0;        // N
inline constexpr double kDefaultTorqueLimit = 1.0;        // N m
inline constexpr double kDefaultForceRateLimit = 5000.0;  // N/s
inline constexpr double kDefaultWatchdogTimeout = 0.010;  // s
// Remote mode: share of the way the client's tool is drawn to each model's tool state.
inline constexpr double kRemoteResyncBlend = 0.05;

// Fills the defaults for a tool of `tool_mass` kg and smallest principal inertia
// `tool_inertia` kg m^2, and checks every field: INVALID_ARGUMENT naming the field
// (`stiffness: must be finite and >= 0`, ...).
absl::StatusOr<HapticParams> ResolveParams(const HapticParams& given, double tool_mass,
                                           double tool_inertia);

}  // namespace ligature::haptics
