#include "server/haptics/device_pose.h"

#include <cmath>

#include "absl/strings/str_cat.h"

namespace ligature::haptics {

absl::Status CheckDevicePose(DevicePose* pose) {
  if (!pose->position.allFinite()) return absl::InvalidArgumentError("position: not finite");
  if (pose->position.cwiseAbs().maxCoeff() > kWorkspaceLimit) {
    return absl::InvalidArgumentError(
        absl::StrCat("position: beyond ", kWorkspaceLimit, " m from the origin"));
  }
  if (!pose->orientation.coeffs().allFinite()) {
    return absl::InvalidArgumentError("orientation: not finite");
  }
  const double norm = pose->orientation.norm();
  if (std::abs(norm - 1.0) > kQuaternionTolerance) {
    return absl::InvalidArgumentError(
        absl::StrCat("orientation: must be a unit quaternion, norm ", norm));
  }
  pose->orientation.normalize();
  if (!std::isfinite(pose->client_time)) {
    return absl::InvalidArgumentError("client_time: not finite");
  }
  return absl::OkStatus();
}

}  // namespace ligature::haptics
