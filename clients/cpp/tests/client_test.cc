#include "clients/cpp/client.h"

#include <atomic>
#include <fstream>
#include <thread>

#include "clients/cpp/tests/fake_server.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace ligature::client {
namespace {

using ::testing::ElementsAre;
using ::testing::Ge;
using ::testing::HasSubstr;

TEST(ClientTest, ListWorldsFollowsPageTokens) {
  FakeServer server;
  server.set_world_count(5);
  Client client(server.address());
  absl::StatusOr<std::vector<ligature::v1::World>> worlds = client.ListWorlds();
  ASSERT_TRUE(worlds.ok()) << worlds.status();
  std::vector<std::string> names;
  for (const auto& world : *worlds) names.push_back(world.name());
  EXPECT_THAT(names, ElementsAre("worlds/w0", "worlds/w1", "worlds/w2", "worlds/w3", "worlds/w4"));
  EXPECT_EQ(server.recorded().list_worlds.size(), 3u);
}

TEST(ClientTest, ErrorsKeepCodeAndMessage) {
  FakeServer server;
  Client client(server.address());
  absl::StatusOr<ligature::v1::World> world = client.GetWorld("missing");
  ASSERT_FALSE(world.ok());
  EXPECT_EQ(world.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(world.status().message(), "worlds/missing not found");
}

TEST(ClientTest, UnreachableServerIsUnavailable) {
  // Port 1 on loopback is not served in the test environment.
  Client client("127.0.0.1:1");
  EXPECT_EQ(client.GetWorld("demo").status().code(), absl::StatusCode::kUnavailable);
}

TEST(ClientTest, RpcTimeoutBecomesDeadlineExceeded) {
  FakeServer server;
  Client client(server.address(), {.rpc_timeout = absl::Milliseconds(100)});
  EXPECT_EQ(client.GetWorld("slow").status().code(), absl::StatusCode::kDeadlineExceeded);
}

TEST(ClientTest, WorldArgumentsAcceptIdOrName) {
  FakeServer server;
  Client client(server.address());
  ASSERT_TRUE(client.GetWorld("demo").ok());
  EXPECT_EQ(server.recorded().get_world.name(), "worlds/demo");
  ASSERT_TRUE(client.DeleteWorld("worlds/demo").ok());
  EXPECT_EQ(server.recorded().delete_world.name(), "worlds/demo");
}

TEST(ClientTest, CreateWorldFromSpecChoosesBuiltinOrFile) {
  FakeServer server;
  Client client(server.address());

  absl::StatusOr<ligature::v1::World> world = client.CreateWorldFromSpec("a", "default");
  ASSERT_TRUE(world.ok()) << world.status();
  EXPECT_EQ(world->name(), "worlds/a");
  EXPECT_EQ(server.recorded().create_world.scene_name(), "default");

  const std::string path = ::testing::TempDir() + "client_test_scene.textproto";
  std::ofstream(path) << "bodies { id: \"ball\" shape { sphere { radius: 1 } } }\n";
  world = client.CreateWorldFromSpec("", path);
  ASSERT_TRUE(world.ok()) << world.status();
  const ligature::v1::CreateWorldRequest request = server.recorded().create_world;
  EXPECT_EQ(request.world_id(), "");
  ASSERT_TRUE(request.has_scene());
  EXPECT_EQ(request.scene().bodies(0).id(), "ball");
}

TEST(ClientTest, CreateWorldFromMissingFileFailsBeforeCalling) {
  FakeServer server;
  Client client(server.address());
  absl::StatusOr<ligature::v1::World> world =
      client.CreateWorldFromSpec("a", "/nonexistent/scene.json");
  EXPECT_EQ(world.status().code(), absl::StatusCode::kNotFound);
  EXPECT_EQ(server.recorded().create_world.world_id(), "");
}

TEST(ClientTest, UpdateBodySendsNameAndMask) {
  FakeServer server;
  Client client(server.address());
  ligature::v1::Body changes;
  changes.mutable_linear_velocity()->set_x(1);
  ASSERT_TRUE(client.UpdateBody("demo", "ball", changes, {"linear_velocity"}).ok());
  const ligature::v1::UpdateBodyRequest request = server.recorded().update_body;
  EXPECT_EQ(request.body().name(), "worlds/demo/bodies/ball");
  EXPECT_THAT(request.update_mask().paths(), ElementsAre("linear_velocity"));
  EXPECT_EQ(request.body().linear_velocity().x(), 1);
}

TEST(ClientTest, WatchEndsWhenServerCloses) {
  FakeServer server;
  server.set_watch_frames(3);
  Client client(server.address());
  std::vector<uint64_t> ticks;
  WatchOptions options;
  options.world = "demo";
  options.max_rate_hz = 5;
  options.body_ids = {"box"};
  absl::StatusOr<WatchSummary> summary =
      client.Watch(options, [&](const ligature::v1::Frame& frame) {
        ticks.push_back(frame.tick());
        EXPECT_EQ(frame.bodies_size(), 1);
        return true;
      });
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->end, WatchEnd::kServerClosed);
  EXPECT_EQ(summary->frames, 3);
  EXPECT_THAT(ticks, ElementsAre(1, 2, 3));
  const ligature::v1::WatchRequest request = server.recorded().watch;
  EXPECT_EQ(request.world(), "worlds/demo");
  EXPECT_EQ(request.max_rate_hz(), 5);
  EXPECT_THAT(request.body_ids(), ElementsAre("box"));
}

TEST(ClientTest, WatchEndsOkAfterDuration) {
  FakeServer server;
  Client client(server.address());
  const absl::Time start = absl::Now();
  WatchOptions options;
  options.world = "demo";
  options.duration = absl::Milliseconds(300);
  absl::StatusOr<WatchSummary> summary =
      client.Watch(options, [](const ligature::v1::Frame&) { return true; });
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->end, WatchEnd::kDurationElapsed);
  EXPECT_THAT(summary->frames, Ge(1));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST(ClientTest, WatchEndsOkOnStopRequest) {
  FakeServer server;
  Client client(server.address());
  std::stop_source stop;
  std::atomic<int> frames{0};
  std::jthread stopper([&] {
    while (frames.load() < 2) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    stop.request_stop();
  });
  WatchOptions options;
  options.world = "demo";
  options.stop = stop.get_token();
  absl::StatusOr<WatchSummary> summary = client.Watch(options, [&](const ligature::v1::Frame&) {
    ++frames;
    return true;
  });
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->end, WatchEnd::kStopped);
  EXPECT_THAT(summary->frames, Ge(2));
}

TEST(ClientTest, WatchEndsOkWhenCallbackDeclines) {
  FakeServer server;
  Client client(server.address());
  WatchOptions options;
  options.world = "demo";
  absl::StatusOr<WatchSummary> summary =
      client.Watch(options, [](const ligature::v1::Frame& frame) { return frame.tick() < 4; });
  ASSERT_TRUE(summary.ok()) << summary.status();
  EXPECT_EQ(summary->end, WatchEnd::kStopped);
  EXPECT_EQ(summary->frames, 4);
}

TEST(ClientTest, WatchReportsStreamErrors) {
  FakeServer server;
  Client client(server.address());
  WatchOptions options;
  options.world = "missing";
  options.duration = absl::Seconds(5);
  absl::StatusOr<WatchSummary> summary =
      client.Watch(options, [](const ligature::v1::Frame&) { return true; });
  ASSERT_FALSE(summary.ok());
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(summary.status().message(), HasSubstr("worlds/missing"));
}

}  // namespace
}  // namespace ligature::client
