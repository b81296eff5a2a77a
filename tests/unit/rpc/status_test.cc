#include "server/rpc/status.h"

#include <gtest/gtest.h>

namespace ligature {
namespace {

// An OK status stays OK, with no message.
TEST(ToGrpcStatusTest, OkIsOk) {
  const grpc::Status s = ToGrpcStatus(absl::OkStatus());
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.error_code(), grpc::StatusCode::OK);
  EXPECT_TRUE(s.error_message().empty());
}

// Every canonical code maps to the gRPC code of the same meaning, with the message kept.
TEST(ToGrpcStatusTest, CodesMapOneToOne) {
  const struct {
    absl::Status status;
    grpc::StatusCode code;
  } cases[] = {
      {absl::CancelledError("m1"), grpc::StatusCode::CANCELLED},
      {absl::UnknownError("m2"), grpc::StatusCode::UNKNOWN},
      {absl::InvalidArgumentError("m3"), grpc::StatusCode::INVALID_ARGUMENT},
      {absl::DeadlineExceededError("m4"), grpc::StatusCode::DEADLINE_EXCEEDED},
      {absl::NotFoundError("m5"), grpc::StatusCode::NOT_FOUND},
      {absl::AlreadyExistsError("m6"), grpc::StatusCode::ALREADY_EXISTS},
      {absl::PermissionDeniedError("m7"), grpc::StatusCode::PERMISSION_DENIED},
      {absl::ResourceExhaustedError("m8"), grpc::StatusCode::RESOURCE_EXHAUSTED},
      {absl::FailedPreconditionError("m9"), grpc::StatusCode::FAILED_PRECONDITION},
      {absl::AbortedError("m10"), grpc::StatusCode::ABORTED},
      {absl::OutOfRangeError("m11"), grpc::StatusCode::OUT_OF_RANGE},
      {absl::UnimplementedError("m12"), grpc::StatusCode::UNIMPLEMENTED},
      {absl::InternalError("m13"), grpc::StatusCode::INTERNAL},
      {absl::UnavailableError("m14"), grpc::StatusCode::UNAVAILABLE},
      {absl::DataLossError("m15"), grpc::StatusCode::DATA_LOSS},
      {absl::UnauthenticatedError("m16"), grpc::StatusCode::UNAUTHENTICATED},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.status.ToString());
    const grpc::Status s = ToGrpcStatus(c.status);
    EXPECT_FALSE(s.ok());
    EXPECT_EQ(s.error_code(), c.code);
    EXPECT_EQ(s.error_message(), std::string(c.status.message()));
  }
}

// Messages reach the client unchanged, including field paths and quotes.
TEST(ToGrpcStatusTest, MessageKept) {
  const grpc::Status s =
      ToGrpcStatus(absl::InvalidArgumentError("bodies[3].shape.sphere.radius: must be > 0 \"x\""));
  EXPECT_EQ(s.error_message(), "bodies[3].shape.sphere.radius: must be > 0 \"x\"");
}

}  // namespace
}  // namespace ligature
