#pragma once
// Conversion of gRPC call results into absl::Status.

#include "absl/status/status.h"
#include "grpcpp/support/status.h"

namespace ligature::client {

// Returns `status` as an absl::Status with the same code and message. gRPC and absl share
// the canonical code numbering, so the code maps one to one.
absl::Status ToAbslStatus(const grpc::Status& status);

}  // namespace ligature::client
