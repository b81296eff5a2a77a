#include "clients/cpp/haptic_sim/scripts.h"

#include <algorithm>
#include <cmath>

#include "absl/strings/str_cat.h"

namespace ligature::client {
namespace {

constexpr double kPressSpeed = 0.05;  // m/s

double PressDown(double t, double depth) { return -std::min(depth, kPressSpeed * t); }

Vec3 Press(double t, const Vec3& o, double depth) {
  return o + Vec3(0, PressDown(t, depth), 0);
}

Vec3 Stroke(double t, const Vec3& o, double depth) {
  const double settle = depth / kPressSpeed + 0.2;
  if (t < settle) return Press(t, o, depth);
  return o + Vec3(0.05 * std::sin(M_PI * (t - settle)), -depth, 0);
}

Vec3 Tap(double t, const Vec3& o, double depth) {
  const double phase = std::fmod(t, 1.0);
  return o + Vec3(0, -depth * 0.5 * (1.0 - std::cos(2 * M_PI * phase)), 0);
}

Vec3 Hold(double, const Vec3& o, double) { return o; }

}  // namespace

absl::StatusOr<DeviceScript> FindScript(const std::string& name, double seconds) {
  if (name == "press") return DeviceScript{name, seconds, Press};
  if (name == "stroke") return DeviceScript{name, seconds, Stroke};
  if (name == "tap") return DeviceScript{name, seconds, Tap};
  if (name == "hold") return DeviceScript{name, seconds, Hold};
  return absl::InvalidArgumentError(
      absl::StrCat("--script: unknown script ", name, " (press, stroke, tap, hold)"));
}

}  // namespace ligature::client
