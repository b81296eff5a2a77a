// The standard health and reflection services, and a clean shutdown.

#include <thread>

#include "grpc/health/v1/health.grpc.pb.h"
#include "src/proto/grpc/reflection/v1alpha/reflection.grpc.pb.h"
#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

TEST_F(ServerTest, HealthIsServing) {
  auto health = grpc::health::v1::Health::NewStub(channel_);
  grpc::ClientContext ctx;
  grpc::health::v1::HealthCheckRequest req;
  grpc::health::v1::HealthCheckResponse resp;
  ASSERT_TRUE(health->Check(&ctx, req, &resp).ok());
  EXPECT_EQ(resp.status(), grpc::health::v1::HealthCheckResponse::SERVING);
}

TEST_F(ServerTest, ReflectionListsTheLigatureServices) {
  auto reflection = grpc::reflection::v1alpha::ServerReflection::NewStub(channel_);
  grpc::ClientContext ctx;
  auto stream = reflection->ServerReflectionInfo(&ctx);
  grpc::reflection::v1alpha::ServerReflectionRequest req;
  req.set_list_services("");
  ASSERT_TRUE(stream->Write(req));
  grpc::reflection::v1alpha::ServerReflectionResponse resp;
  ASSERT_TRUE(stream->Read(&resp));
  std::set<std::string> names;
  for (const auto& s : resp.list_services_response().service()) names.insert(s.name());
  stream->WritesDone();
  stream->Finish();
  EXPECT_TRUE(names.contains("ligature.v1.WorldService"));
  EXPECT_TRUE(names.contains("ligature.v1.SceneService"));
  EXPECT_TRUE(names.contains("ligature.v1.SessionService"));
  EXPECT_TRUE(names.contains("grpc.health.v1.Health"));
}

TEST_F(ServerTest, ShutdownTurnsHealthNotServingAndEndsStreams) {
  CreateWorld("w", "default");
  auto health = grpc::health::v1::Health::NewStub(channel_);
  grpc::ClientContext health_ctx;
  grpc::health::v1::HealthCheckRequest hreq;
  auto health_stream = health->Watch(&health_ctx, hreq);
  grpc::health::v1::HealthCheckResponse hresp;
  ASSERT_TRUE(health_stream->Read(&hresp));
  EXPECT_EQ(hresp.status(), grpc::health::v1::HealthCheckResponse::SERVING);

  grpc::ClientContext ctx;
  v1::WatchRequest req;
  req.set_world("worlds/w");
  auto reader = sessions_->Watch(&ctx, req);
  v1::Frame f;
  ASSERT_TRUE(reader->Read(&f));

  std::thread stopper([this] { server_->Shutdown(absl::Seconds(2)); });
  bool saw_not_serving = false;
  while (health_stream->Read(&hresp)) {
    if (hresp.status() == grpc::health::v1::HealthCheckResponse::NOT_SERVING) {
      saw_not_serving = true;
    }
  }
  while (reader->Read(&f)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::UNAVAILABLE);
  stopper.join();
  EXPECT_TRUE(saw_not_serving);
}

}  // namespace
}  // namespace ligature::testing
