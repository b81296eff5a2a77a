#pragma once
// Safety on the way to the device: the force and torque are cut to their limits, then
// their change since the last output is cut to the rate limits. Clamping first keeps both
// invariants: the output moves from a value within the limit towards one within the
// limit, so it never exceeds the limit, and it never changes faster than the rate limit.

#include "server/haptics/haptic_params.h"
#include "server/math/types.h"

namespace ligature::haptics {

struct FilteredForce {
  Vec3 force = Vec3::Zero();   // N
  Vec3 torque = Vec3::Zero();  // N m
  bool clamped = false;
  bool rate_limited = false;
};

class ForceFilter {
 public:
  explicit ForceFilter(const SafetyLimits& limits) : limits_(limits) {}

  // The output for a wanted `force` and `torque`, `dt` seconds after the last output
  // (clamped to [0, watchdog timeout]: after a longer silence the watchdog has ramped the
  // output to zero already).
  FilteredForce Apply(const Vec3& force, const Vec3& torque, double dt);
  // Records an output made outside Apply (zero for a rejected pose, a watchdog ramp), so
  // that the next change is measured from it.
  void Set(const Vec3& force, const Vec3& torque) {
    last_force_ = force;
    last_torque_ = torque;
  }
  const Vec3& last_force() const { return last_force_; }
  const Vec3& last_torque() const { return last_torque_; }

 private:
  SafetyLimits limits_;
  Vec3 last_force_ = Vec3::Zero();
  Vec3 last_torque_ = Vec3::Zero();
};

// Cuts `v` to length `limit`; returns whether it was cut. A non-finite `v` becomes zero
// (and counts as cut).
bool ClampLength(Vec3* v, double limit);

}  // namespace ligature::haptics
