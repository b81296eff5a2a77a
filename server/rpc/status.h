#pragma once
// The one place absl::Status becomes grpc::Status.

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace ligature {

grpc::Status ToGrpcStatus(const absl::Status& status);

}  // namespace ligature
