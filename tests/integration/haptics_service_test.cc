// HapticsService over real gRPC on loopback: forces for every pose, tools in frames, tool
// ownership, bad input, the watchdog, and remote mode through the client library.

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

#include "clients/cpp/haptic_session.h"
#include "ligature/v1/haptics_service.grpc.pb.h"
#include "tests/integration/haptic_scene.h"

namespace ligature::testing {
namespace {

using client::HapticSession;

class HapticsServiceTest : public ProbeWorldTest {};

TEST_F(HapticsServiceTest, EveryPoseGetsOneForceAndPressingTheFloorPushesBack) {
  auto session = HapticSession::Open(channel_, OpenFor("probe"));
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_EQ((*session)->params().stiffness(), 400.0);  // defaults filled in
  EXPECT_EQ((*session)->params().watchdog_timeout_ms(), 10.0);
  const double limit = (*session)->params().force_limit();
  haptics::HapticReply last;
  // From 3 cm down to 1 cm into the floor over 0.4 s, then hold 0.3 s, at about 1 kHz.
  for (uint64_t i = 1; i <= 700; ++i) {
    const double y = 0.03 - std::min(1.0, i / 400.0) * 0.04;
    auto r = (*session)->Force(PoseAt(i, y));
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_EQ(r->sequence, i);
    ASSERT_TRUE(r->force.allFinite());
    ASSERT_LE(r->force.norm(), limit + 1e-9);
    ASSERT_FALSE(r->rejected_pose);
    last = *r;
    std::this_thread::sleep_for(std::chrono::microseconds(900));
  }
  // Every pose's round trip was timed as a server-mode session, and every pose after the
  // second gave a jitter sample; nothing was counted as remote.
  EXPECT_EQ(server_->haptics().server_mode.round_trip.count(), 700u);
  EXPECT_EQ(server_->haptics().server_mode.jitter.count(), 698u);
  EXPECT_EQ(server_->haptics().remote_mode.round_trip.count(), 0u);
  EXPECT_EQ(server_->haptics().remote_mode.jitter.count(), 0u);
  // Resting on the floor (centre at 1 cm), the device 2 cm lower: about 8 N up.
  EXPECT_GT(last.contacts, 0);
  EXPECT_NEAR(last.force.y(), 8.0, 1.0);
  EXPECT_GT(last.model_tick, 0u);
  // Viewers see the tool and its coupling force (downwards on the tool).
  grpc::ClientContext ctx;
  v1::WatchRequest req;
  req.set_world("worlds/hw");
  auto reader = sessions_->Watch(&ctx, req);
  v1::Frame frame;
  ASSERT_TRUE(reader->Read(&frame));
  ASSERT_EQ(frame.tools_size(), 1);
  EXPECT_EQ(frame.tools(0).body_id(), "probe");
  EXPECT_EQ(frame.tools(0).device_id(), "dev-1");
  EXPECT_LT(frame.tools(0).coupling_force().y(), -4.0);
  ctx.TryCancel();
  EXPECT_TRUE((*session)->Close().ok());
}

TEST_F(HapticsServiceTest, ASecondSessionOnTheSameToolIsRefusedUntilTheFirstCloses) {
  auto first = HapticSession::Open(channel_, OpenFor("probe"));
  ASSERT_TRUE(first.ok());
  auto second = HapticSession::Open(channel_, OpenFor("probe"));
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_NE(second.status().message().find("held by haptic session"), std::string::npos);
  ASSERT_TRUE((*first)->Close().ok());
  // The release reaches the world at its next tick.
  absl::StatusOr<std::unique_ptr<HapticSession>> third = absl::UnknownError("");
  for (int i = 0; i < 50 && !third.ok(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    third = HapticSession::Open(channel_, OpenFor("probe"));
  }
  EXPECT_TRUE(third.ok()) << third.status();
}

TEST_F(HapticsServiceTest, BadSessionsAreRefusedNamingTheField) {
  auto unknown = HapticSession::Open(channel_, OpenFor("ghost"));
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(unknown.status().message().find("tool_body_id"), std::string::npos);
  auto fixed = HapticSession::Open(channel_, OpenFor("post"));
  EXPECT_EQ(fixed.status().code(), absl::StatusCode::kFailedPrecondition);
  v1::HapticOpen bad = OpenFor("probe");
  bad.set_stiffness(-5);
  auto neg = HapticSession::Open(channel_, bad);
  EXPECT_EQ(neg.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_NE(neg.status().message().find("open.stiffness"), std::string::npos);
  v1::HapticOpen nowhere = OpenFor("probe");
  nowhere.set_world("worlds/nowhere");
  EXPECT_EQ(HapticSession::Open(channel_, nowhere).status().code(),
            absl::StatusCode::kNotFound);
  // A stream that starts with a pose.
  auto stub = v1::HapticsService::NewStub(channel_);
  grpc::ClientContext ctx;
  auto stream = stub->Haptics(&ctx);
  v1::HapticsRequest req;
  req.mutable_pose()->set_sequence(1);
  ASSERT_TRUE(stream->Write(req));
  stream->WritesDone();
  v1::HapticsResponse resp;
  EXPECT_FALSE(stream->Read(&resp));
  const grpc::Status s = stream->Finish();
  EXPECT_EQ(s.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_NE(s.error_message().find("open"), std::string::npos);
}

TEST_F(HapticsServiceTest, BadPosesAreRejectedWithZeroForce) {
  auto session = HapticSession::Open(channel_, OpenFor("probe"));
  ASSERT_TRUE(session.ok());
  for (uint64_t i = 1; i <= 20; ++i) ASSERT_TRUE((*session)->Force(PoseAt(i, 0.0)).ok());
  haptics::DevicePose nan = PoseAt(21, 0.0);
  nan.position.x() = std::nan("");
  auto r = (*session)->Force(nan);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->rejected_pose);
  EXPECT_EQ(r->force.norm(), 0.0);
  haptics::DevicePose inf = PoseAt(22, 0.0);
  inf.orientation = Quat(INFINITY, 0, 0, 0);
  EXPECT_TRUE((*session)->Force(inf)->rejected_pose);
  // Out of order: 20 after 20 were taken.
  r = (*session)->Force(PoseAt(20, 0.0));
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->rejected_pose);
  EXPECT_TRUE(r->out_of_order);
  EXPECT_FALSE((*session)->Force(PoseAt(23, 0.0))->rejected_pose);
}

TEST_F(HapticsServiceTest, WatchdogReleasesTheForceWhenPosesStop) {
  auto stub = v1::HapticsService::NewStub(channel_);
  grpc::ClientContext ctx;
  auto stream = stub->Haptics(&ctx);
  v1::HapticsRequest req;
  *req.mutable_open() = OpenFor("probe");
  ASSERT_TRUE(stream->Write(req));
  v1::HapticsResponse resp;
  ASSERT_TRUE(stream->Read(&resp));
  ASSERT_TRUE(resp.has_opened());
  // Pull the probe up 2 cm for a while (a steady force, once the world attached the tool),
  // then go silent.
  double force = 0.0;
  uint64_t last = 0;
  for (uint64_t i = 1; i <= 2000 && !(force > 0.1 && i > 50); ++i) {
    last = i;
    req.Clear();
    req.mutable_pose()->set_sequence(i);
    req.mutable_pose()->mutable_position()->set_y(0.05);
    ASSERT_TRUE(stream->Write(req));
    // This pose's reply. A loaded machine can hold this thread past the watchdog's timeout
    // between two poses: the watchdog's messages then come first.
    do {
      ASSERT_TRUE(stream->Read(&resp));
    } while (resp.force().watchdog());
    EXPECT_EQ(resp.force().sequence(), i);
    force = std::abs(resp.force().force().y());
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_GT(force, 0.1);
  // Unprompted watchdog messages follow, the last with zero force.
  const auto start = std::chrono::steady_clock::now();
  bool zero = false;
  while (!zero && stream->Read(&resp)) {
    ASSERT_TRUE(resp.has_force());
    EXPECT_TRUE(resp.force().watchdog());
    EXPECT_EQ(resp.force().sequence(), last);
    const v1::Vec3& f = resp.force().force();
    zero = f.x() == 0 && f.y() == 0 && f.z() == 0;
  }
  EXPECT_TRUE(zero);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  ctx.TryCancel();
}

TEST_F(HapticsServiceTest, RemoteModeSolvesOnTheClientFromStreamedModels) {
  auto session = HapticSession::Open(channel_, OpenFor("probe", /*remote=*/true));
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_TRUE((*session)->remote());
  haptics::HapticReply last;
  // Down 4 cm over 0.3 s and hold for at least 0.2 s, until the tool has rested in contact
  // for the last 100 poses (a loaded machine can deliver a model late; the hold waits for
  // the next ones, up to 1.5 s).
  int resting = 0, lost = 0;
  for (uint64_t i = 1; i <= 2000 && (i <= 500 || resting < 100); ++i) {
    const double y = 0.03 - std::min(1.0, i / 300.0) * 0.04;
    auto r = (*session)->Force(PoseAt(i, y));
    ASSERT_TRUE(r.ok()) << r.status();
    ASSERT_TRUE(r->force.allFinite());
    last = *r;
    if (i > 300) {
      resting = last.contacts > 0 ? resting + 1 : 0;
      lost += last.contacts > 0 ? 0 : 1;
    }
    std::this_thread::sleep_for(std::chrono::microseconds(900));
  }
  EXPECT_GT((*session)->model_tick(), 10u);  // models keep coming
  EXPECT_GE(resting, 100) << lost << " poses of the hold out of contact";
  EXPECT_NEAR(last.force.y(), 8.0, 1.5) << "model tick " << last.model_tick << ", stale "
                                         << last.stale_model << ", " << lost
                                         << " poses of the hold out of contact";
  EXPECT_TRUE((*session)->Close().ok());
}

// Holds the world's thread inside a command until released: nothing the world does (ticks,
// edits, attaching a tool) can happen meanwhile.
class WorldHold {
 public:
  explicit WorldHold(WorldHost* host, std::function<void(World&)> then = {})
      : state_(std::make_shared<State>()) {
    host->Enqueue([state = state_, then = std::move(then)](World* w) {
      std::unique_lock<std::mutex> lock(state->mu);
      state->entered = true;
      state->cv.notify_all();
      state->cv.wait(lock, [&] { return state->released; });
      if (w != nullptr && then) then(*w);
    });
    std::unique_lock<std::mutex> lock(state_->mu);
    state_->cv.wait(lock, [&] { return state_->entered; });
  }
  ~WorldHold() { Release(); }
  void Release() {
    std::lock_guard<std::mutex> lock(state_->mu);
    state_->released = true;
    state_->cv.notify_all();
  }

 private:
  // Shared with the command, which may still be waking when the hold is gone.
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    bool entered = false;
    bool released = false;
  };
  std::shared_ptr<State> state_;
};

TEST_F(HapticsServiceTest, OpeningAndPosesAreAnsweredWhileTheWorldIsBusy) {
  auto host = server_->worlds().Get("hw");
  ASSERT_TRUE(host.ok());
  WorldHold hold(host->get());
  // The world runs no command now, yet the session opens and every pose is answered
  // (zero force: the world has not attached the tool, so there is no model yet).
  auto session = HapticSession::Open(channel_, OpenFor("probe"));
  ASSERT_TRUE(session.ok()) << session.status();
  EXPECT_GT((*session)->params().stiffness(), 0.0);
  for (uint64_t i = 1; i <= 20; ++i) {
    auto r = (*session)->Force(PoseAt(i, 0.0));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->sequence, i);
    EXPECT_TRUE(r->stale_model);
    EXPECT_EQ(r->model_tick, 0u);
    EXPECT_EQ(r->force.norm(), 0.0);
  }
  // The claim is already the session's: a second one is refused at once.
  auto second = HapticSession::Open(channel_, OpenFor("probe"));
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  // Once the world runs again it attaches the tool, and the probe held 2 cm into the
  // floor gets pushed back.
  hold.Release();
  haptics::HapticReply last;
  int touching = 0;
  for (uint64_t i = 21; i <= 3000 && touching < 200; ++i) {
    auto r = (*session)->Force(PoseAt(i, 0.0));
    ASSERT_TRUE(r.ok()) << r.status();
    last = *r;
    touching += r->contacts > 0 ? 1 : 0;
    std::this_thread::sleep_for(std::chrono::microseconds(900));
  }
  EXPECT_GT(last.model_tick, 0u);
  EXPECT_GT(last.contacts, 0);
  EXPECT_GT(last.force.y(), 1.0);
  EXPECT_TRUE((*session)->Close().ok());
}

TEST_F(HapticsServiceTest, APausedWorldOpensASessionAndAnswersPoses) {
  ASSERT_TRUE(SetPaused("worlds/hw", true).ok());
  auto session = HapticSession::Open(channel_, OpenFor("probe"));
  ASSERT_TRUE(session.ok()) << session.status();
  // Held 2 cm into the floor until the probe meets it, and a while after.
  haptics::HapticReply last;
  int touching = 0;
  for (uint64_t i = 1; i <= 3000 && touching < 200; ++i) {
    auto r = (*session)->Force(PoseAt(i, 0.0));
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_EQ(r->sequence, i);
    last = *r;
    touching += r->contacts > 0 ? 1 : 0;
    std::this_thread::sleep_for(std::chrono::microseconds(900));
  }
  // The paused world attached the tool and published its model: the floor pushes back.
  EXPECT_GT(last.contacts, 0);
  EXPECT_GT(last.force.y(), 1.0);
  EXPECT_TRUE((*session)->Close().ok());
}

TEST_F(HapticsServiceTest, AToolTheWorldRefusesEndsTheSessionWithWhy) {
  auto host = server_->worlds().Get("hw");
  ASSERT_TRUE(host.ok());
  // The probe goes in the world's next command run, before the session's attach; the
  // session was opened from the last publication, which still had it.
  auto session = [&] {
    WorldHold hold(host->get(), [](World& w) { ASSERT_TRUE(w.RemoveBody("probe").ok()); });
    return HapticSession::Open(channel_, OpenFor("probe"));
  }();
  ASSERT_TRUE(session.ok()) << session.status();
  absl::Status ended;
  for (uint64_t i = 1; i <= 3000 && ended.ok(); ++i) {
    auto r = (*session)->Force(PoseAt(i, 0.0));
    if (!r.ok()) ended = r.status();
    std::this_thread::sleep_for(std::chrono::microseconds(900));
  }
  EXPECT_EQ(ended.code(), absl::StatusCode::kNotFound);
  EXPECT_NE(ended.message().find("open.tool_body_id"), std::string::npos) << ended;
}

}  // namespace
}  // namespace ligature::testing
