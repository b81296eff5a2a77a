// Frames of chosen worlds published to a real NATS server (nats-server, a child process):
// subscribers get each world's frames on its subject, other worlds stay unpublished, and the
// world and its viewers go on while the broker is away; publishing resumes when it is back.

#include <gtest/gtest.h>
#include <nats/nats.h>

#include <chrono>
#include <optional>
#include <thread>

#include "tests/integration/publishing_server_fixture.h"

namespace ligature::testing {
namespace {

using Clock = std::chrono::steady_clock;

// A subscriber of one subject on its own connection.
class Subscriber {
 public:
  Subscriber(const std::string& url, const std::string& subject) {
    ok_ = natsConnection_ConnectTo(&connection_, url.c_str()) == NATS_OK &&
          natsConnection_SubscribeSync(&subscription_, connection_, subject.c_str()) == NATS_OK &&
          natsConnection_Flush(connection_) == NATS_OK;
  }
  ~Subscriber() {
    natsSubscription_Destroy(subscription_);
    natsConnection_Destroy(connection_);
  }
  bool ok() const { return ok_; }
  // The next frame within `timeout_ms`, or nullopt.
  std::optional<v1::Frame> Next(int64_t timeout_ms) {
    natsMsg* msg = nullptr;
    if (natsSubscription_NextMsg(&msg, subscription_, timeout_ms) != NATS_OK) return std::nullopt;
    v1::Frame frame;
    const bool parsed = frame.ParseFromArray(natsMsg_GetData(msg), natsMsg_GetDataLength(msg));
    natsMsg_Destroy(msg);
    if (!parsed) return std::nullopt;
    return frame;
  }

 private:
  natsConnection* connection_ = nullptr;
  natsSubscription* subscription_ = nullptr;
  bool ok_ = false;
};

class FramePublisherTest : public PublishingServerTest {
 protected:
  FramePublisherTest() : PublishingServerTest({"pub"}) {}
  static v1::Scene Running() {
    v1::Scene scene = BallScene();  // 100 Hz
    scene.mutable_settings()->set_paused(false);
    return scene;
  }
  uint64_t Tick(const std::string& world) {
    return server_->worlds().Get(world).value()->Info().tick;
  }
};

TEST_F(FramePublisherTest, ChosenWorldsReachSubscribersAndNeverWaitForTheBroker) {
  Subscriber pub(url_, "ligature.frames.pub");
  Subscriber other(url_, "ligature.frames.other");
  ASSERT_TRUE(pub.ok() && other.ok());
  // Both worlds come after the server started; only the chosen one is published.
  v1::World w;
  ASSERT_TRUE(CreateWorld("pub", Running(), &w).ok());
  ASSERT_TRUE(CreateWorld("other", Running(), &w).ok());
  uint64_t last = 0;
  for (int i = 0; i < 20; ++i) {
    std::optional<v1::Frame> f = pub.Next(5000);
    ASSERT_TRUE(f.has_value()) << "frame " << i;
    EXPECT_EQ(f->world(), "worlds/pub");
    EXPECT_EQ(f->bodies_size(), 2);  // ground and ball: the whole frame
    if (i > 0) {
      EXPECT_GT(f->tick(), last);
    }
    last = f->tick();
  }
  EXPECT_FALSE(other.Next(300).has_value());

  // The broker goes away: the world ticks on at its rate and its viewers get frames.
  broker_.Kill();
  const uint64_t before = Tick("pub");
  std::this_thread::sleep_for(std::chrono::seconds(1));
  EXPECT_GT(Tick("pub"), before + 50);  // 100 Hz, allowing for a loaded machine
  {
    grpc::ClientContext ctx;
    v1::WatchRequest req;
    req.set_world("worlds/pub");
    auto reader = sessions_->Watch(&ctx, req);
    v1::Frame f;
    ASSERT_TRUE(reader->Read(&f));
    EXPECT_GT(f.tick(), before);
    ctx.TryCancel();
    while (reader->Read(&f)) {
    }
    reader->Finish();
  }

  // Frames of the broker's absence were dropped and counted.
  const PublishCounters& counts = server_->sessions().publish;
  EXPECT_GT(counts.publish_failures.load(), 50u);
  EXPECT_EQ(counts.connected.load(), 0);

  // The broker comes back on the same port: the publisher reconnects by itself and frames
  // of the world as it is now reach a new subscriber. Only the few frames published before
  // the client noticed the broker had gone come first; none from the second of absence.
  ASSERT_TRUE(broker_.Start(port_));
  const uint64_t back = Tick("pub");
  Subscriber again(url_, "ligature.frames.pub");
  ASSERT_TRUE(again.ok());
  int stale = 0;
  std::optional<v1::Frame> f;
  for (f = again.Next(10000); f.has_value() && f->tick() < back; f = again.Next(10000)) {
    EXPECT_LT(f->tick(), before + 10);
    ++stale;
  }
  ASSERT_TRUE(f.has_value());
  EXPECT_LT(stale, 10);
  for (int i = 0; i < 200 && counts.connected.load() != 1; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(counts.connected.load(), 1);
  EXPECT_GT(counts.frames_published.load(), 20u);
}

TEST_F(FramePublisherTest, BadOptionsAreRefusedNamingTheField) {
  std::atomic<bool> stopping{false};
  WatchHubs hubs(&stopping);
  PublishCounters counts;
  auto start = [&](FramePublisherOptions o) {
    return FramePublisher::Start(o, &server_->worlds(), &hubs, &counts).status();
  };
  FramePublisherOptions good{url_, {"pub"}};
  EXPECT_TRUE(start(good).ok());
  FramePublisherOptions o = good;
  o.url = "http://127.0.0.1:4222";
  EXPECT_EQ(start(o).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(start(o).message().find("nats_url"), std::string::npos);
  o = good;
  o.worlds.clear();
  EXPECT_NE(start(o).message().find("nats_worlds"), std::string::npos);
  o = good;
  o.worlds = {"pub", "a.b"};
  EXPECT_NE(start(o).message().find("nats_worlds[1]"), std::string::npos);
  o = good;
  o.subject_prefix = "frames.*";
  EXPECT_NE(start(o).message().find("nats_subject_prefix"), std::string::npos);
}

TEST_F(FramePublisherTest, EveryWorldWithAStarAndDeletionsAreTold) {
  std::atomic<bool> stopping{false};
  WatchHubs hubs(&stopping);
  PublishCounters counts;
  FramePublisherOptions every{url_, {"*"}, "every"};
  auto publisher = FramePublisher::Start(every, &server_->worlds(), &hubs, &counts);
  ASSERT_TRUE(publisher.ok()) << publisher.status();
  Subscriber early(url_, "every.early");
  Subscriber late(url_, "every.late");
  ASSERT_TRUE(early.ok() && late.ok());
  // A world there before and one created after: both are published.
  v1::World w;
  ASSERT_TRUE(CreateWorld("early", Running(), &w).ok());
  std::optional<v1::Frame> f = early.Next(5000);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->world(), "worlds/early");
  ASSERT_TRUE(CreateWorld("late", Running(), &w).ok());
  f = late.Next(5000);
  ASSERT_TRUE(f.has_value());
  EXPECT_EQ(f->world(), "worlds/late");

  // A deleted world's subject gets an empty message with the end header.
  natsConnection* connection = nullptr;
  natsSubscription* subscription = nullptr;
  ASSERT_EQ(natsConnection_ConnectTo(&connection, url_.c_str()), NATS_OK);
  ASSERT_EQ(natsConnection_SubscribeSync(&subscription, connection, "every.late"), NATS_OK);
  ASSERT_EQ(natsConnection_Flush(connection), NATS_OK);
  {
    grpc::ClientContext ctx;
    v1::DeleteWorldRequest req;
    req.set_name("worlds/late");
    v1::DeleteWorldResponse out;
    ASSERT_TRUE(worlds_->DeleteWorld(&ctx, req, &out).ok());
  }
  bool told = false;
  natsMsg* msg = nullptr;
  while (!told && natsSubscription_NextMsg(&msg, subscription, 5000) == NATS_OK) {
    const char* end = nullptr;
    told = natsMsgHeader_Get(msg, kFrameEndHeader, &end) == NATS_OK &&
           std::string(end) == kFrameEndDeleted && natsMsg_GetDataLength(msg) == 0;
    natsMsg_Destroy(msg);
  }
  EXPECT_TRUE(told);
  natsSubscription_Destroy(subscription);
  natsConnection_Destroy(connection);
}

}  // namespace
}  // namespace ligature::testing
