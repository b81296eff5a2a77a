#include "server/rpc/status.h"

#include <string>

namespace ligature {

// absl and gRPC share the canonical code numbering, so the code maps one to one.
grpc::Status ToGrpcStatus(const absl::Status& status) {
  if (status.ok()) return grpc::Status::OK;
  return grpc::Status(static_cast<grpc::StatusCode>(status.code()),
                      std::string(status.message()));
}

}  // namespace ligature
