// WatchEvents end to end: a stream's first message tells its starting tick; events follow
// tick by tick, filtered; a reader that does not keep up with a world whose event log is
// small loses events but is told how many, so that what it got and what it lost add up
// to what happened; bad filters are refused naming their field; deleting the world ends
// the stream.

#include <gtest/gtest.h>

#include <thread>

#include "tests/integration/server_fixture.h"

namespace ligature {
namespace {

class EventStreamTest : public testing::ServerTest {
 protected:
  void Customize(ServerOptions* options) override { options->worlds.events.max_events = 50; }

  // `balls` balls resting on the ground, 0.3 m apart, in a paused world.
  void CreateRestingBalls(const std::string& id, int balls) {
    v1::Scene scene = testing::BallScene();
    scene.mutable_bodies()->DeleteSubrange(1, 1);
    for (int i = 0; i < balls; ++i) {
      v1::Body* ball = scene.add_bodies();
      ball->set_id("ball" + std::to_string(i));
      ball->mutable_shape()->mutable_sphere()->set_radius(0.1);
      ball->mutable_pose()->mutable_position()->set_x(0.3 * i);
      ball->mutable_pose()->mutable_position()->set_y(0.1);
    }
    v1::World world;
    ASSERT_TRUE(CreateWorld(id, scene, &world).ok());
  }

  std::unique_ptr<grpc::ClientReader<v1::WorldEvents>> Open(grpc::ClientContext* ctx,
                                                            const v1::WatchEventsRequest& req) {
    return sessions_->WatchEvents(ctx, req);
  }
};

// What a reader got: the events and the drops it was told of, up to a tick.
struct Tally {
  uint64_t events = 0;
  uint64_t dropped = 0;
  uint64_t persists = 0;
};

Tally ReadUntil(grpc::ClientReader<v1::WorldEvents>* reader, uint64_t last_tick) {
  Tally t;
  v1::WorldEvents message;
  while (reader->Read(&message)) {
    t.events += message.contacts_size() + message.triggers_size();
    t.dropped += message.dropped();
    for (const v1::ContactEvent& c : message.contacts())
      t.persists += c.kind() == v1::CONTACT_PERSIST;
    if (message.tick() >= last_tick) break;
  }
  return t;
}

TEST_F(EventStreamTest, ASlowReaderIsToldExactlyWhatItLost) {
  constexpr int kBalls = 10, kTicks = 200;
  CreateRestingBalls("pile", kBalls);
  v1::WatchEventsRequest req;
  req.set_world("worlds/pile");
  req.add_kinds(v1::CONTACT_BEGIN);
  req.add_kinds(v1::CONTACT_PERSIST);
  grpc::ClientContext fast_ctx, slow_ctx;
  auto fast = Open(&fast_ctx, req);
  auto slow = Open(&slow_ctx, req);
  v1::WorldEvents first;
  ASSERT_TRUE(fast->Read(&first));
  EXPECT_EQ(first.tick(), 0u);
  EXPECT_EQ(first.contacts_size(), 0);
  ASSERT_TRUE(slow->Read(&first));

  // The fast reader reads as the world steps; the slow one only once it is done.
  Tally fast_tally;
  std::thread reader([&] { fast_tally = ReadUntil(fast.get(), kTicks); });
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/pile", kTicks, &frame).ok());
  ASSERT_EQ(frame.tick(), static_cast<uint64_t>(kTicks));
  reader.join();
  const Tally slow_tally = ReadUntil(slow.get(), kTicks);

  // Each ball begins at the first tick and persists at every other one.
  const uint64_t happened = kBalls * kTicks;
  EXPECT_EQ(fast_tally.events + fast_tally.dropped, happened);
  EXPECT_EQ(slow_tally.events + slow_tally.dropped, happened);
  EXPECT_GT(slow_tally.dropped, 0u);  // the log holds 50 events: it fell behind
  EXPECT_GT(slow_tally.events, 0u);   // and still got the newest ones
  fast_ctx.TryCancel();
  slow_ctx.TryCancel();
}

TEST_F(EventStreamTest, FiltersKeepOnlyWhatTheyName) {
  CreateRestingBalls("f", 3);
  v1::WatchEventsRequest req;
  req.set_world("worlds/f");
  req.add_body_ids("ball1");
  grpc::ClientContext ctx;
  auto reader = Open(&ctx, req);
  v1::WorldEvents message;
  ASSERT_TRUE(reader->Read(&message));
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/f", 3, &frame).ok());
  ASSERT_TRUE(reader->Read(&message));
  EXPECT_EQ(message.tick(), 1u);
  ASSERT_EQ(message.contacts_size(), 1);
  const v1::ContactEvent& c = message.contacts(0);
  EXPECT_EQ(c.kind(), v1::CONTACT_BEGIN);
  EXPECT_EQ(c.body_a(), "ground");
  EXPECT_EQ(c.body_b(), "ball1");
  EXPECT_GT(c.normal_impulse(), 0.0);
  EXPECT_GE(c.points_size(), 1);
  ctx.TryCancel();
}

TEST_F(EventStreamTest, BadFiltersNameTheirField) {
  CreateRestingBalls("b", 1);
  const auto status_of = [&](const v1::WatchEventsRequest& req) {
    grpc::ClientContext ctx;
    auto reader = Open(&ctx, req);
    v1::WorldEvents message;
    while (reader->Read(&message)) {
    }
    return reader->Finish();
  };
  struct Case {
    std::function<void(v1::WatchEventsRequest*)> set;
    grpc::StatusCode code;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](auto* r) { r->set_min_impulse(-1.0); }, grpc::INVALID_ARGUMENT, "min_impulse"},
      {[](auto* r) { r->set_min_impulse(std::nan("")); }, grpc::INVALID_ARGUMENT, "min_impulse"},
      {[](auto* r) { r->set_layer_mask(0); }, grpc::INVALID_ARGUMENT, "layer_mask"},
      {[](auto* r) { r->add_kinds(static_cast<v1::EventKind>(9)); }, grpc::INVALID_ARGUMENT,
       "kinds[0]"},
      {[](auto* r) { r->add_body_ids("No Such"); }, grpc::INVALID_ARGUMENT, "body_ids[0]"},
      {[](auto* r) { r->add_body_ids("nobody"); }, grpc::NOT_FOUND, "body_ids[0]"},
      {[](auto* r) { r->set_world("worlds/missing"); }, grpc::NOT_FOUND, "missing"},
  };
  for (const Case& c : cases) {
    v1::WatchEventsRequest req;
    req.set_world("worlds/b");
    c.set(&req);
    const grpc::Status s = status_of(req);
    EXPECT_EQ(s.error_code(), c.code) << c.field << ": " << s.error_message();
    EXPECT_NE(s.error_message().find(c.field), std::string::npos) << s.error_message();
  }
}

TEST_F(EventStreamTest, DeletingTheWorldEndsTheStream) {
  CreateRestingBalls("d", 1);
  v1::WatchEventsRequest req;
  req.set_world("worlds/d");
  grpc::ClientContext ctx;
  auto reader = Open(&ctx, req);
  v1::WorldEvents message;
  ASSERT_TRUE(reader->Read(&message));
  {
    grpc::ClientContext del_ctx;
    v1::DeleteWorldRequest del;
    del.set_name("worlds/d");
    v1::DeleteWorldResponse out;
    ASSERT_TRUE(worlds_->DeleteWorld(&del_ctx, del, &out).ok());
  }
  while (reader->Read(&message)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::NOT_FOUND);
}

}  // namespace
}  // namespace ligature
