// SessionService over real gRPC: watching frames and driving kinematic bodies.

#include <thread>

#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

// A running 100 Hz world with a ground, a ball and a kinematic paddle.
v1::Scene RunningScene() {
  v1::Scene scene = BallScene();
  scene.mutable_settings()->set_paused(false);
  v1::Body* paddle = scene.add_bodies();
  paddle->set_id("paddle");
  paddle->set_kind(v1::BODY_KIND_KINEMATIC);
  paddle->mutable_shape()->mutable_box()->mutable_half_extents()->set_x(0.2);
  paddle->mutable_shape()->mutable_box()->mutable_half_extents()->set_y(0.05);
  paddle->mutable_shape()->mutable_box()->mutable_half_extents()->set_z(0.2);
  paddle->mutable_pose()->mutable_position()->set_x(2.0);
  paddle->mutable_pose()->mutable_position()->set_y(1.0);
  return scene;
}

class SessionTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    v1::World w;
    ASSERT_TRUE(CreateWorld("live", RunningScene(), &w).ok());
  }
};

TEST_F(SessionTest, WatchStreamsFramesOfTheChosenBodiesAtTheAskedRate) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  v1::WatchRequest req;
  req.set_world("worlds/live");
  req.set_max_rate_hz(10);
  req.add_body_ids("ball");
  auto reader = sessions_->Watch(&ctx, req);
  v1::Frame frame;
  constexpr int kFrames = 6;
  int frames = 0;
  uint64_t last_tick = 0;
  std::chrono::steady_clock::time_point first;
  while (frames < kFrames && reader->Read(&frame)) {
    if (frames == 0) first = std::chrono::steady_clock::now();
    ASSERT_EQ(frame.bodies_size(), 1);
    EXPECT_EQ(frame.bodies(0).id(), "ball");
    EXPECT_EQ(frame.world(), "worlds/live");
    // The first frame may be the world before its first step (tick 0); each later one is
    // a newer tick.
    if (frames > 0) EXPECT_GT(frame.tick(), last_tick);
    last_tick = frame.tick();
    ++frames;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - first).count();
  ctx.TryCancel();
  reader->Finish();
  ASSERT_EQ(frames, kFrames);
  // At 10 Hz the five intervals after the first frame take at least half a second,
  // however fast the world ticks (100 Hz) and however loaded the machine is (a frame the
  // transport held back can arrive right after the one before it, hence the slack).
  EXPECT_GE(seconds, 0.4);
}

// The server sends a watcher the newest frame each time the transport takes one, so a
// watcher that stops reading holds at most a flow-control window of frames, however long it
// sleeps; a per-watcher queue would hand it every tick it missed.
TEST_F(SessionTest, SlowWatcherGetsTheNewestFrameNotABacklog) {
  CreateWorld("demo", "default");  // 60 Hz, 73 bodies: frames of several KiB
  // A viewer's channel keeps HTTP/2's receive window at its 64 KiB floor (no
  // bandwidth-delay probing), as the client library does.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  auto channel = grpc::CreateCustomChannel("127.0.0.1:" + std::to_string(server_->port()),
                                           grpc::InsecureChannelCredentials(), args);
  auto sessions = v1::SessionService::NewStub(channel);
  grpc::ClientContext ctx;
  v1::WatchRequest req;
  req.set_world("worlds/demo");
  auto reader = sessions->Watch(&ctx, req);
  v1::Frame first, next;
  ASSERT_TRUE(reader->Read(&first));
  std::this_thread::sleep_for(std::chrono::seconds(3));
  // Three seconds is about 180 ticks. Drain what the transport buffered: the stream must
  // reach a frame from after the sleep in far fewer reads than the 150 a queue would need.
  int reads = 0;
  do {
    ASSERT_TRUE(reader->Read(&next));
    ++reads;
  } while (next.tick() < first.tick() + 150 && reads < 1000);
  EXPECT_LT(reads, 90);
  ctx.TryCancel();
  reader->Finish();
}

TEST_F(SessionTest, WatchUnknownBodyOrWorld) {
  {
    grpc::ClientContext ctx;
    v1::WatchRequest req;
    req.set_world("worlds/live");
    req.add_body_ids("nobody");
    auto reader = sessions_->Watch(&ctx, req);
    v1::Frame f;
    EXPECT_FALSE(reader->Read(&f));
    EXPECT_EQ(reader->Finish().error_code(), grpc::NOT_FOUND);
  }
  grpc::ClientContext ctx;
  v1::WatchRequest req;
  req.set_world("worlds/nowhere");
  auto reader = sessions_->Watch(&ctx, req);
  v1::Frame f;
  EXPECT_FALSE(reader->Read(&f));
  EXPECT_EQ(reader->Finish().error_code(), grpc::NOT_FOUND);
}

TEST_F(SessionTest, DeletingTheWorldEndsItsStreams) {
  grpc::ClientContext ctx;
  v1::WatchRequest req;
  req.set_world("worlds/live");
  auto reader = sessions_->Watch(&ctx, req);
  v1::Frame f;
  ASSERT_TRUE(reader->Read(&f));
  {
    grpc::ClientContext del_ctx;
    v1::DeleteWorldRequest del;
    del.set_name("worlds/live");
    v1::DeleteWorldResponse resp;
    ASSERT_TRUE(worlds_->DeleteWorld(&del_ctx, del, &resp).ok());
  }
  while (reader->Read(&f)) {
  }
  EXPECT_EQ(reader->Finish().error_code(), grpc::NOT_FOUND);
}

TEST_F(SessionTest, InteractDrivesAKinematicBody) {
  grpc::ClientContext ctx;
  auto stream = sessions_->Interact(&ctx);
  v1::InteractRequest first;
  first.set_world("worlds/live");
  first.add_body_ids("paddle");
  ASSERT_TRUE(stream->Write(first));
  v1::Frame frame;
  ASSERT_TRUE(stream->Read(&frame));
  EXPECT_NEAR(frame.bodies(0).pose().position().x(), 2.0, 1e-12);

  v1::InteractRequest move;
  v1::DevicePose* pose = move.add_poses();
  pose->set_body_id("paddle");
  pose->mutable_pose()->mutable_position()->set_x(1.5);
  pose->mutable_pose()->mutable_position()->set_y(1.2);
  pose->mutable_pose()->mutable_orientation()->set_y(std::sin(0.25));
  pose->mutable_pose()->mutable_orientation()->set_w(std::cos(0.25));
  ASSERT_TRUE(stream->Write(move));
  bool arrived = false;
  for (int i = 0; i < 200 && !arrived; ++i) {
    ASSERT_TRUE(stream->Read(&frame));
    const auto& p = frame.bodies(0).pose();
    arrived = std::abs(p.position().x() - 1.5) < 1e-9 && std::abs(p.position().y() - 1.2) < 1e-9 &&
              std::abs(p.orientation().y() - std::sin(0.25)) < 1e-9;
  }
  EXPECT_TRUE(arrived);
  stream->WritesDone();
  while (stream->Read(&frame)) {
  }
  EXPECT_TRUE(stream->Finish().ok());
}

TEST_F(SessionTest, InteractRejectsBadPosesAndNonKinematicBodies) {
  {
    grpc::ClientContext ctx;
    auto stream = sessions_->Interact(&ctx);
    v1::InteractRequest msg;
    msg.set_world("worlds/live");
    v1::DevicePose* pose = msg.add_poses();
    pose->set_body_id("paddle");
    pose->mutable_pose()->mutable_orientation()->set_w(2.0);  // not unit
    stream->Write(msg);
    v1::Frame f;
    while (stream->Read(&f)) {
    }
    const grpc::Status s = stream->Finish();
    EXPECT_EQ(s.error_code(), grpc::INVALID_ARGUMENT);
    EXPECT_NE(s.error_message().find("poses[0].pose.orientation"), std::string::npos);
  }
  grpc::ClientContext ctx;
  auto stream = sessions_->Interact(&ctx);
  v1::InteractRequest msg;
  msg.set_world("worlds/live");
  msg.add_poses()->set_body_id("ball");  // dynamic: devices drive kinematic bodies only
  stream->Write(msg);
  v1::Frame f;
  while (stream->Read(&f)) {
  }
  EXPECT_EQ(stream->Finish().error_code(), grpc::FAILED_PRECONDITION);
}

}  // namespace
}  // namespace ligature::testing
