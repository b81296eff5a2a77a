#include "server/haptics/force_filter.h"

#include <algorithm>

namespace ligature::haptics {

bool ClampLength(Vec3* v, double limit) {
  if (!v->allFinite()) {
    v->setZero();
    return true;
  }
  const double len = v->norm();
  if (len <= limit) return false;
  *v *= limit / len;
  return true;
}

FilteredForce ForceFilter::Apply(const Vec3& force, const Vec3& torque, double dt) {
  FilteredForce out;
  out.force = force;
  out.torque = torque;
  // Limits first.
  out.clamped = ClampLength(&out.force, limits_.force_limit);
  out.clamped = ClampLength(&out.torque, limits_.torque_limit) || out.clamped;
  // Then the change since the last output.
  dt = std::clamp(dt, 0.0, limits_.watchdog_timeout);
  Vec3 df = out.force - last_force_;
  Vec3 dm = out.torque - last_torque_;
  out.rate_limited = ClampLength(&df, limits_.force_rate_limit * dt);
  out.rate_limited = ClampLength(&dm, limits_.torque_rate_limit * dt) || out.rate_limited;
  out.force = last_force_ + df;
  out.torque = last_torque_ + dm;
  Set(out.force, out.torque);
  return out;
}

}  // namespace ligature::haptics
