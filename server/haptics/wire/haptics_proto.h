#pragma once
// ligature.v1 haptics messages <-> the haptic core's types. Shared by the server and the
// C++ client library (remote mode runs the same solve on the client).

#include <memory>

#include "absl/status/statusor.h"
#include "ligature/v1/haptics_service.pb.h"
#include "server/haptics/device_pose.h"
#include "server/haptics/haptic_core.h"
#include "server/haptics/haptic_params.h"
#include "server/haptics/local_model.h"

namespace ligature {

// The session parameters given in `open` (zero fields stay zero: ResolveParams fills them).
haptics::HapticParams HapticParamsFromProto(const v1::HapticOpen& open);
// Writes resolved parameters into `out` (units as in the proto: ms for the watchdog).
void HapticParamsToProto(const haptics::HapticParams& params, v1::HapticOpen* out);

// A pose as sent; an all-zero quaternion is the identity. Values are checked by the core.
haptics::DevicePose DevicePoseFromProto(const v1::HapticPose& pose);
void DevicePoseToProto(const haptics::DevicePose& pose, v1::HapticPose* out);

void HapticReplyToProto(const haptics::HapticReply& reply, v1::HapticForce* out);
haptics::HapticReply HapticReplyFromProto(const v1::HapticForce& force);

void LocalModelToProto(const haptics::ToolLocalModel& model, v1::HapticModel* out);
// INVALID_ARGUMENT naming the field for inconsistent sizes or non-finite values.
absl::StatusOr<std::shared_ptr<haptics::ToolLocalModel>> LocalModelFromProto(
    const v1::HapticModel& model);

}  // namespace ligature
