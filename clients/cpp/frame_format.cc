#include "clients/cpp/frame_format.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/util/json_util.h"

namespace ligature::client {

namespace {

std::string FormatVec3(const ligature::v1::Vec3& v) {
  return absl::StrFormat("(%.3f,%.3f,%.3f)", v.x(), v.y(), v.z());
}

}  // namespace

std::string FormatFrameText(const ligature::v1::Frame& frame, const FrameTextOptions& options) {
  // Header: which world, when, and how expensive the tick was.
  std::string line = absl::StrFormat("%s tick=%d t=%.3fs step=%.3fms", frame.world(), frame.tick(),
                                     frame.sim_time(), frame.step_ms());
  const ligature::v1::SolverStats& solver = frame.solver();
  absl::StrAppendFormat(&line, " solver[iters=%d residual=%.3g rows=%d contacts=%d]",
                        solver.iterations(), solver.residual(), solver.constraint_rows(),
                        solver.contacts());
  if (solver.sleeping_bodies() > 0) {
    absl::StrAppend(&line, " asleep=", solver.sleeping_bodies());
  }

  // Bodies, capped so that a large world still fits on one line.
  const int count = frame.bodies_size();
  const int shown = options.max_bodies < 0 ? count : std::min(count, options.max_bodies);
  for (int i = 0; i < shown; ++i) {
    const ligature::v1::BodyState& body = frame.bodies(i);
    absl::StrAppend(&line, " ", body.id(), " p=", FormatVec3(body.pose().position()),
                    " v=", FormatVec3(body.linear_velocity()));
    if (body.sleeping()) absl::StrAppend(&line, " asleep");
  }
  if (shown < count) absl::StrAppend(&line, " (+", count - shown, " more)");

  if (frame.removed_constraints_size() > 0) {
    absl::StrAppend(&line, " removed=[", absl::StrJoin(frame.removed_constraints(), ","), "]");
  }
  return line;
}

absl::StatusOr<std::string> FormatFrameJson(const ligature::v1::Frame& frame) {
  google::protobuf::util::JsonPrintOptions options;
  options.add_whitespace = false;
  options.always_print_primitive_fields = false;
  std::string json;
  auto status = google::protobuf::util::MessageToJsonString(frame, &json, options);
  if (!status.ok()) {
    return absl::InternalError(
        absl::StrCat("cannot render frame as JSON: ", status.message().ToString()));
  }
  return json;
}

}  // namespace ligature::client
