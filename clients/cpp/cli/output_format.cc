#include "clients/cpp/cli/output_format.h"

#include "absl/strings/str_format.h"

namespace ligature::client::cli {

namespace {

std::string KindName(ligature::v1::BodyKind kind) {
  switch (kind) {
    case ligature::v1::BODY_KIND_UNSPECIFIED:
    case ligature::v1::BODY_KIND_DYNAMIC:
      return "dynamic";
    case ligature::v1::BODY_KIND_KINEMATIC:
      return "kinematic";
    case ligature::v1::BODY_KIND_STATIC:
      return "static";
    default:
      return absl::StrFormat("kind(%d)", static_cast<int>(kind));
  }
}

std::string FormatVec3(const ligature::v1::Vec3& v) {
  return absl::StrFormat("(%.3f,%.3f,%.3f)", v.x(), v.y(), v.z());
}

}  // namespace

std::string FormatWorldLine(const ligature::v1::World& world) {
  return absl::StrFormat(
      "%s %s tick=%d t=%.3fs rate=%gHz bodies=%d constraints=%d missed=%d overruns=%d "
      "last_step=%.3fms",
      world.name(), world.settings().paused() ? "paused" : "running", world.tick(),
      world.sim_time(), world.settings().rate_hz(), world.body_count(), world.constraint_count(),
      world.missed_ticks(), world.overruns(), world.last_step_ms());
}

std::string FormatBodyLine(const ligature::v1::Body& body) {
  const ligature::v1::Quaternion& q = body.pose().orientation();
  return absl::StrFormat("%s %s p=%s q=(%.3f,%.3f,%.3f,%.3f) v=%s w=%s", body.name(),
                         KindName(body.kind()), FormatVec3(body.pose().position()), q.x(), q.y(),
                         q.z(), q.w(), FormatVec3(body.linear_velocity()),
                         FormatVec3(body.angular_velocity()));
}

}  // namespace ligature::client::cli
