#include "clients/cpp/status_util.h"

#include "gtest/gtest.h"

namespace ligature::client {
namespace {

TEST(ToAbslStatusTest, KeepsCodeAndMessage) {
  EXPECT_TRUE(ToAbslStatus(grpc::Status::OK).ok());
  const absl::Status status =
      ToAbslStatus(grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "world is running"));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(status.message(), "world is running");
  EXPECT_EQ(ToAbslStatus(grpc::Status(grpc::StatusCode::UNAVAILABLE, "down")).code(),
            absl::StatusCode::kUnavailable);
}

}  // namespace
}  // namespace ligature::client
