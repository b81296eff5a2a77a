// A viewer gateway in front of a real ligatured, with a real nats-server between them: its
// Watch streams carry the server's frames view for view, delta streams rebuild the world,
// rate limits and request checks hold, a deleted world's streams end, and a broker restart
// is a gap in the frames, not the end of the stream.

#include "server/gateway/gateway.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <map>
#include <thread>

#include "server/gateway/gateway_metrics.h"
#include "tests/integration/publishing_server_fixture.h"

namespace ligature::testing {
namespace {

class GatewayTest : public PublishingServerTest {
 protected:
  GatewayTest() : PublishingServerTest({"crowd"}) {}
  void SetUp() override {
    PublishingServerTest::SetUp();
    GatewayOptions options;
    options.frames.url = url_;
    options.serve.listen_address = "127.0.0.1:0";
    CustomizeGateway(&options);
    gateway_ = std::make_unique<Gateway>(options);
    ASSERT_TRUE(gateway_->Start().ok());
    gateway_sessions_ = v1::SessionService::NewStub(grpc::CreateChannel(
        "127.0.0.1:" + std::to_string(gateway_->port()), grpc::InsecureChannelCredentials()));
    ASSERT_NO_FATAL_FAILURE(CreateCrowd());
  }
  // The gateway, then the server, go before the broker.
  void TearDown() override {
    gateway_.reset();
    PublishingServerTest::TearDown();
  }
  virtual void CustomizeGateway(GatewayOptions*) {}
  // The metadata of a bearer token.
  static void Bearer(grpc::ClientContext* ctx, const std::string& token) {
    ctx->AddMetadata("authorization", "Bearer " + token);
  }

  // The crowd's world at 100 Hz: two falling balls and a post standing still at x = 5.
  void CreateCrowd() {
    v1::Scene scene = BallAndPostScene();
    scene.mutable_settings()->set_paused(false);
    v1::Body* other = scene.add_bodies();
    other->set_id("other");
    other->mutable_shape()->mutable_sphere()->set_radius(0.1);
    other->mutable_pose()->mutable_position()->set_x(-3.0);
    other->mutable_pose()->mutable_position()->set_y(20.0);
    v1::World w;
    ASSERT_TRUE(CreateWorld("crowd", scene, &w).ok());
    // The gateway serves the world once its first frame came through the broker.
    v1::Frame f;
    ASSERT_TRUE(WaitUntilServed(gateway_sessions_.get(), probe_token_, &f))
        << "the gateway never served the world";
  }

  static v1::WatchRequest Whole() {
    v1::WatchRequest req;
    req.set_world("worlds/crowd");
    return req;
  }

  static std::unique_ptr<WatchStream> Open(v1::SessionService::Stub* stub,
                                           const v1::WatchRequest& req) {
    return OpenWatch(stub, req);
  }
  // The first frame of a whole-frame Watch on `stub` (with a bearer `token` unless empty),
  // within 2 s; the stream ends there. Its status when it failed.
  static grpc::Status FirstFrame(v1::SessionService::Stub* stub, const std::string& token,
                                 v1::Frame* f) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(2));
    if (!token.empty()) Bearer(&ctx, token);
    auto reader = stub->Watch(&ctx, Whole());
    if (reader->Read(f)) {
      ctx.TryCancel();
      while (reader->Read(f)) {
      }
      reader->Finish();
      return grpc::Status::OK;
    }
    return reader->Finish();
  }
  // Waits up to 10 s for `stub`'s gateway to serve the world; its first frame then.
  static bool WaitUntilServed(v1::SessionService::Stub* stub, const std::string& token,
                              v1::Frame* f) {
    for (int i = 0; i < 200; ++i) {
      if (FirstFrame(stub, token, f).ok()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return false;
  }
  // The bytes of `n` frames of a stream, by tick.
  static std::map<uint64_t, std::string> Read(WatchStream* s, int n) {
    std::map<uint64_t, std::string> out;
    v1::Frame f;
    for (int i = 0; i < n && s->reader->Read(&f); ++i) out[f.tick()] = f.SerializeAsString();
    return out;
  }
  // The status a stream that should fail at once ends with.
  grpc::Status Refused(v1::SessionService::Stub* stub, const v1::WatchRequest& req) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
    auto reader = stub->Watch(&ctx, req);
    v1::Frame f;
    while (reader->Read(&f)) {
    }
    return reader->Finish();
  }
  uint64_t Tick() { return server_->worlds().Get("crowd").value()->Info().tick; }

  std::unique_ptr<Gateway> gateway_;
  std::unique_ptr<v1::SessionService::Stub> gateway_sessions_;
  std::string probe_token_;  // what CreateCrowd watches with, when the gateway wants tokens
};

TEST_F(GatewayTest, EveryViewCarriesTheServersFramesByteForByte) {
  v1::WatchRequest subset = Whole();
  subset.add_body_ids("post");
  subset.add_body_ids("ball");
  v1::WatchRequest region = Whole();
  region.mutable_region()->mutable_min()->set_x(4);
  region.mutable_region()->mutable_max()->set_x(6);
  region.mutable_region()->mutable_max()->set_y(2);
  for (const v1::WatchRequest& req : {Whole(), subset, region}) {
    auto direct = Open(sessions_.get(), req);
    auto gateway = Open(gateway_sessions_.get(), req);
    const std::map<uint64_t, std::string> theirs = Read(direct.get(), 60);
    const std::map<uint64_t, std::string> ours = Read(gateway.get(), 60);
    int common = 0;
    for (const auto& [tick, bytes] : ours) {
      auto it = theirs.find(tick);
      if (it == theirs.end()) continue;
      EXPECT_EQ(bytes, it->second) << "tick " << tick << " of " << req.ShortDebugString();
      ++common;
    }
    EXPECT_GE(common, 20) << req.ShortDebugString();
  }
  // The gateway encoded only the views it had to; the whole frame went as it came.
  EXPECT_GT(gateway_->subscriber().frames_received.load(), 60u);
}

TEST_F(GatewayTest, DeltaFramesRebuildTheWorldTickByTick) {
  v1::WatchRequest deltas = Whole();
  deltas.set_delta_threshold(1e-9);
  deltas.set_key_frame_interval(5);
  auto direct = Open(sessions_.get(), Whole());
  auto gateway = Open(gateway_sessions_.get(), deltas);
  std::map<uint64_t, v1::Frame> truth;
  std::map<std::string, v1::BodyState> rebuilt;  // body id -> its newest state sent
  int compared = 0;
  int key_frames = 0;
  v1::Frame f;
  for (int i = 0; i < 60 && gateway->reader->Read(&f); ++i) {
    if (f.key_frame()) {
      ++key_frames;
      rebuilt.clear();
    }
    for (const v1::BodyState& b : f.bodies()) rebuilt[b.id()] = b;
    // The server's whole frame of the same tick (the direct stream runs alongside).
    v1::Frame whole;
    while ((truth.empty() || truth.rbegin()->first < f.tick()) && direct->reader->Read(&whole)) {
      truth[whole.tick()] = whole;
    }
    auto it = truth.find(f.tick());
    if (it == truth.end() || rebuilt.size() != 4u) continue;
    // Every body is where the server has it, within the delta threshold; bodies in a key
    // frame exactly.
    for (const v1::BodyState& b : it->second.bodies()) {
      const v1::Vec3& ours = rebuilt[b.id()].pose().position();
      const v1::Vec3& theirs = b.pose().position();
      const double off =
          std::hypot(ours.x() - theirs.x(), ours.y() - theirs.y(), ours.z() - theirs.z());
      EXPECT_LE(off, f.key_frame() ? 0.0 : 1e-9) << b.id() << " at tick " << f.tick();
    }
    ++compared;
  }
  EXPECT_GE(compared, 20);
  EXPECT_GE(key_frames, 2);
}

TEST_F(GatewayTest, RateLimitsHoldAndBadRequestsAreNamed) {
  // 10 Hz of a 100 Hz world: about ten ticks between frames.
  v1::WatchRequest slow = Whole();
  slow.set_max_rate_hz(10);
  auto stream = Open(gateway_sessions_.get(), slow);
  v1::Frame first;
  v1::Frame f;
  ASSERT_TRUE(stream->reader->Read(&first));
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(stream->reader->Read(&f));
  EXPECT_GE(static_cast<double>(f.tick() - first.tick()) / 8.0, 8.0);

  v1::WatchRequest unknown = Whole();
  unknown.set_world("worlds/elsewhere");
  grpc::Status s = Refused(gateway_sessions_.get(), unknown);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(s.error_message().find("world:"), std::string::npos) << s.error_message();
  v1::WatchRequest malformed = Whole();
  malformed.set_world("crowd");
  s = Refused(gateway_sessions_.get(), malformed);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("world"), std::string::npos) << s.error_message();
  v1::WatchRequest absent = Whole();
  absent.add_body_ids("nobody");
  s = Refused(gateway_sessions_.get(), absent);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(s.error_message().find("body_ids[0]"), std::string::npos) << s.error_message();
  v1::WatchRequest inverted = Whole();
  inverted.mutable_region()->mutable_min()->set_x(1);
  s = Refused(gateway_sessions_.get(), inverted);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("region.max"), std::string::npos) << s.error_message();
  v1::WatchRequest fast = Whole();
  fast.set_max_rate_hz(-1);
  s = Refused(gateway_sessions_.get(), fast);
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("max_rate_hz"), std::string::npos) << s.error_message();

  // The world's own server drives it; the gateway only watches.
  grpc::ClientContext ctx;
  auto interact = gateway_sessions_->Interact(&ctx);
  interact->WritesDone();
  EXPECT_EQ(interact->Finish().error_code(), grpc::StatusCode::UNIMPLEMENTED);
}

TEST_F(GatewayTest, ADeletedWorldsStreamsEndAndItsSuccessorIsServed) {
  grpc::ClientContext ctx;
  auto reader = gateway_sessions_->Watch(&ctx, Whole());
  v1::Frame f;
  ASSERT_TRUE(reader->Read(&f));
  {
    grpc::ClientContext delete_ctx;
    v1::DeleteWorldRequest req;
    req.set_name("worlds/crowd");
    v1::DeleteWorldResponse out;
    ASSERT_TRUE(worlds_->DeleteWorld(&delete_ctx, req, &out).ok());
  }
  while (reader->Read(&f)) {
  }
  const grpc::Status ended = reader->Finish();
  EXPECT_EQ(ended.error_code(), grpc::StatusCode::NOT_FOUND);
  EXPECT_NE(ended.error_message().find("worlds/crowd was deleted"), std::string::npos)
      << ended.error_message();
  // A world created again under the id is served as the new world it is.
  ASSERT_NO_FATAL_FAILURE(CreateCrowd());
  auto again = Open(gateway_sessions_.get(), Whole());
  ASSERT_TRUE(again->reader->Read(&f));
  EXPECT_LE(f.tick(), Tick());
}

TEST_F(GatewayTest, AGatewayStartedWhileTheWorldIsPausedServesIt) {
  ASSERT_TRUE(SetPaused("worlds/crowd", true).ok());
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const uint64_t paused_at = Tick();
  GatewayOptions options;
  options.frames.url = url_;
  options.serve.listen_address = "127.0.0.1:0";
  Gateway late(options);
  ASSERT_TRUE(late.Start().ok());
  auto sessions = v1::SessionService::NewStub(grpc::CreateChannel(
      "127.0.0.1:" + std::to_string(late.port()), grpc::InsecureChannelCredentials()));
  // The server publishes a quiet world's newest frame again every second.
  v1::Frame f;
  ASSERT_TRUE(WaitUntilServed(sessions.get(), "", &f));
  EXPECT_EQ(f.tick(), paused_at);
  // The repeats are no new frames: a viewer of the paused world gets its frame once, not
  // again with each repeat (two come in 2.5 s).
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(2500));
  auto reader = sessions->Watch(&ctx, Whole());
  ASSERT_TRUE(reader->Read(&f));
  EXPECT_EQ(f.tick(), paused_at);
  EXPECT_FALSE(reader->Read(&f)) << "tick " << f.tick() << " again";
  EXPECT_EQ(reader->Finish().error_code(), grpc::StatusCode::DEADLINE_EXCEEDED);
  EXPECT_GE(late.subscriber().frames_received.load(), 1u);
}

// A gateway with a token file: viewers need the viewer role on the world, as on the server.
class SecureGatewayTest : public GatewayTest {
 protected:
  void CustomizeGateway(GatewayOptions* options) override {
    token_file_ = ::testing::TempDir() + "gateway_tokens";
    std::ofstream(token_file_) << "crowd-viewer viewer crowd\nother-viewer viewer other\n";
    options->token_file = token_file_;
    probe_token_ = "crowd-viewer";
  }
  void TearDown() override {
    GatewayTest::TearDown();
    std::remove(token_file_.c_str());
  }
  grpc::Status WatchWith(const std::string& token) {
    v1::Frame f;
    return FirstFrame(gateway_sessions_.get(), token, &f);
  }
  std::string token_file_;
};

TEST_F(SecureGatewayTest, ViewersNeedTheViewerRoleOnTheWorld) {
  EXPECT_TRUE(WatchWith("crowd-viewer").ok());
  EXPECT_EQ(WatchWith("").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(WatchWith("forged").error_code(), grpc::StatusCode::UNAUTHENTICATED);
  EXPECT_EQ(WatchWith("other-viewer").error_code(), grpc::StatusCode::PERMISSION_DENIED);
}

// The value of the family `name` (its first sample) at a scrape.
double Sample(const std::vector<prometheus::MetricFamily>& families, const std::string& name) {
  for (const prometheus::MetricFamily& f : families) {
    if (f.name != name || f.metric.empty()) continue;
    const prometheus::ClientMetric& m = f.metric.front();
    return f.type == prometheus::MetricType::Counter ? m.counter.value : m.gauge.value;
  }
  ADD_FAILURE() << "no family " << name;
  return -1.0;
}

TEST_F(GatewayTest, MetricsCountStreamsFramesAndWorlds) {
  GatewayMetrics metrics(gateway_.get());
  {
    auto stream = Open(gateway_sessions_.get(), Whole());
    Read(stream.get(), 10);
    // (Streams opened before, and ended, leave the count as gRPC finishes them.)
    std::vector<prometheus::MetricFamily> open = metrics.Collect();
    for (int i = 0; i < 200 && Sample(open, "ligature_sessions") != 1.0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      open = metrics.Collect();
    }
    EXPECT_EQ(Sample(open, "ligature_sessions"), 1.0);
    EXPECT_GE(Sample(open, "ligature_frames_sent_total"), 10.0);
  }
  const std::vector<prometheus::MetricFamily> after = metrics.Collect();
  EXPECT_EQ(Sample(after, "ligature_nats_connected"), 1.0);
  EXPECT_EQ(Sample(after, "ligature_gateway_worlds"), 1.0);
  EXPECT_GE(Sample(after, "ligature_gateway_frames_received_total"), 10.0);
  EXPECT_EQ(Sample(after, "ligature_gateway_frames_malformed_total"), 0.0);
  EXPECT_EQ(Sample(after, "ligature_gateway_messages_dropped_total"), 0.0);
  // Whole frames go as they came: nothing encoded for the stream.
  EXPECT_EQ(Sample(after, "ligature_frames_encoded_total"), 0.0);
}

TEST_F(GatewayTest, ABrokerRestartIsAGapNotAnEnd) {
  auto stream = Open(gateway_sessions_.get(), Whole());
  v1::Frame f;
  ASSERT_TRUE(stream->reader->Read(&f));
  broker_.Kill();
  const uint64_t gone = Tick();
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_GT(Tick(), gone + 50);  // 100 Hz: the world never waits for the broker
  ASSERT_TRUE(broker_.Start(port_));
  const uint64_t back = Tick();
  // The stream is still open: after the few frames in flight when the broker went, frames
  // of the world as it is now.
  bool caught_up = false;
  for (int i = 0; i < 2000 && stream->reader->Read(&f); ++i) {
    if (f.tick() >= back) {
      caught_up = true;
      break;
    }
    EXPECT_LT(f.tick(), gone + 20) << "a frame from the broker's absence";
  }
  EXPECT_TRUE(caught_up);
}

}  // namespace
}  // namespace ligature::testing
