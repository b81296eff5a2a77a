#include "server/haptics/haptic_params.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "absl/strings/str_cat.h"

namespace ligature::haptics {
namespace {

absl::Status CheckRange(const char* field, double value, double lo, double hi) {
  if (!std::isfinite(value) || value < lo || value > hi) {
    return absl::InvalidArgumentError(
        absl::StrCat(field, ": must be finite and in [", lo, ", ", hi, "], got ", value));
  }
  return absl::OkStatus();
}

// A given value, or the default when the field was left at zero.
double Or(double given, double fallback) { return given == 0.0 ? fallback : given; }

}  // namespace

absl::StatusOr<HapticParams> ResolveParams(const HapticParams& given, double tool_mass,
                                           double tool_inertia) {
  // Ranges of what the client gave (zero stands for the default).
  const CouplingParams& c = given.coupling;
  const SafetyLimits& l = given.limits;
  for (absl::Status s : {CheckRange("stiffness", c.stiffness, 0.0, kMaxStiffness),
                         CheckRange("damping", c.damping, 0.0, 1e4),
                         CheckRange("rotational_stiffness", c.rotational_stiffness, 0.0, 1e4),
                         CheckRange("rotational_damping", c.rotational_damping, 0.0, 1e3),
                         CheckRange("force_limit", l.force_limit, 0.0, 1e4),
                         CheckRange("torque_limit", l.torque_limit, 0.0, 1e3),
                         CheckRange("force_rate_limit", l.force_rate_limit, 0.0, 1e8),
                         CheckRange("torque_rate_limit", l.torque_rate_limit, 0.0, 1e7),
                         CheckRange("watchdog_timeout_ms", l.watchdog_timeout * 1e3, 0.0,
                                    1000.0)}) {
    if (!s.ok()) return s;
  }
  if (l.watchdog_timeout != 0.0 && l.watchdog_timeout < 1e-3) {
    return absl::InvalidArgumentError("watchdog_timeout_ms: must be in [1, 1000]");
  }
  if (!(tool_mass > 0.0) || !std::isfinite(tool_mass)) {
    return absl::FailedPreconditionError("tool_body_id: the tool must have a finite mass");
  }
  // Defaults: a critically damped coupling for the tool's mass, capped.
  HapticParams p;
  p.coupling.stiffness = Or(c.stiffness, kDefaultStiffness);
  p.coupling.damping =
      Or(c.damping, std::min(kMaxDefaultDamping, 2.0 * std::sqrt(p.coupling.stiffness * tool_mass)));
  p.coupling.rotational_stiffness = c.rotational_stiffness;
  p.coupling.rotational_damping =
      c.rotational_damping != 0.0 || c.rotational_stiffness == 0.0
          ? c.rotational_damping
          : 2.0 * std::sqrt(c.rotational_stiffness * std::max(tool_inertia, 1e-9));
  p.limits.force_limit = Or(l.force_limit, kDefaultForceLimit);
  p.limits.torque_limit = Or(l.torque_limit, kDefaultTorqueLimit);
  p.limits.force_rate_limit = Or(l.force_rate_limit, kDefaultForceRateLimit);
  p.limits.torque_rate_limit = Or(
      l.torque_rate_limit, p.limits.force_rate_limit * p.limits.torque_limit / p.limits.force_limit);
  p.limits.watchdog_timeout = Or(l.watchdog_timeout, kDefaultWatchdogTimeout);
  return p;
}

}  // namespace ligature::haptics
