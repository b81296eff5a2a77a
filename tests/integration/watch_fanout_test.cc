// Watch streams of one world fed from shared encodings: streams of the same view get the
// same bytes from one encoding per frame, streams with delta frames keep their own state,
// and a viewer that stops reading holds its newest frame, not a backlog.

#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <thread>
#include <unistd.h>

#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

// A paused world: a falling ball at x = 0, a kinematic post standing still at x = 5 and a
// second falling ball at x = -3.
class WatchFanoutTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    v1::Scene scene = BallAndPostScene();
    v1::Body* other = scene.add_bodies();
    other->set_id("other");
    other->mutable_shape()->mutable_sphere()->set_radius(0.1);
    other->mutable_pose()->mutable_position()->set_x(-3.0);
    other->mutable_pose()->mutable_position()->set_y(2.0);
    v1::World w;
    ASSERT_TRUE(CreateWorld("w", scene, &w).ok());
  }

  std::unique_ptr<WatchStream> Open(const v1::WatchRequest& req,
                                    v1::SessionService::Stub* stub = nullptr) {
    return OpenWatch(stub != nullptr ? stub : sessions_.get(), req);
  }
  static v1::WatchRequest Whole() {
    v1::WatchRequest req;
    req.set_world("worlds/w");
    return req;
  }
  static v1::WatchRequest Subset(const std::vector<std::string>& ids) {
    v1::WatchRequest req = Whole();
    for (const std::string& id : ids) req.add_body_ids(id);
    return req;
  }
  static v1::WatchRequest AroundThePost() {
    v1::WatchRequest req = Whole();
    req.mutable_region()->mutable_min()->set_x(4);
    req.mutable_region()->mutable_max()->set_x(6);
    req.mutable_region()->mutable_max()->set_y(2);
    return req;
  }
  static v1::WatchRequest Deltas(int key_frame_interval) {
    v1::WatchRequest req = Whole();
    req.set_delta_threshold(1e-9);
    req.set_key_frame_interval(key_frame_interval);
    return req;
  }
  static std::vector<std::string> Ids(const v1::Frame& f) {
    std::vector<std::string> ids;
    for (const v1::BodyState& b : f.bodies()) ids.push_back(b.id());
    std::sort(ids.begin(), ids.end());
    return ids;
  }
};

TEST_F(WatchFanoutTest, StreamsOfOneViewGetTheSameBytesFromOneEncodingPerFrame) {
  // Three views shared by two or three streams each (a subset asked for in either order is
  // one view), and two streams with delta frames, which are encoded for each.
  std::vector<std::vector<std::unique_ptr<WatchStream>>> views(3);
  for (int i = 0; i < 3; ++i) views[0].push_back(Open(Whole()));
  views[1].push_back(Open(Subset({"ball", "post"})));
  views[1].push_back(Open(Subset({"post", "ball"})));
  views[2].push_back(Open(AroundThePost()));
  views[2].push_back(Open(AroundThePost()));
  std::vector<std::unique_ptr<WatchStream>> deltas;
  deltas.push_back(Open(Deltas(1000)));
  deltas.push_back(Open(Deltas(1000)));
  const SessionCounters& counts = server_->sessions();

  constexpr int kSteps = 5;
  for (int step = 0; step <= kSteps; ++step) {
    if (step > 0) {
      v1::Frame stepped;
      ASSERT_TRUE(Step("worlds/w", 1, &stepped).ok());
    }
    // Every stream gets this tick; the streams of a view the very same bytes.
    std::vector<std::string> bytes(3);
    for (size_t v = 0; v < views.size(); ++v) {
      for (auto& s : views[v]) {
        v1::Frame f;
        ASSERT_TRUE(s->reader->Read(&f));
        ASSERT_EQ(f.tick(), static_cast<uint64_t>(step));
        EXPECT_TRUE(f.key_frame());
        const std::string b = f.SerializeAsString();
        if (bytes[v].empty()) bytes[v] = b;
        EXPECT_EQ(b, bytes[v]) << "view " << v << ", tick " << step;
      }
    }
    v1::Frame whole, subset, region;
    ASSERT_TRUE(whole.ParseFromString(bytes[0]));
    ASSERT_TRUE(subset.ParseFromString(bytes[1]));
    ASSERT_TRUE(region.ParseFromString(bytes[2]));
    EXPECT_EQ(Ids(whole), (std::vector<std::string>{"ball", "ground", "other", "post"}));
    EXPECT_EQ(Ids(subset), (std::vector<std::string>{"ball", "post"}));
    EXPECT_EQ(Ids(region), std::vector<std::string>{"post"});
    // Each delta stream: every body at first, then the two falling balls only.
    for (auto& s : deltas) {
      v1::Frame f;
      ASSERT_TRUE(s->reader->Read(&f));
      ASSERT_EQ(f.tick(), static_cast<uint64_t>(step));
      EXPECT_EQ(f.key_frame(), step == 0);
      EXPECT_EQ(Ids(f), step == 0 ? Ids(whole) : (std::vector<std::string>{"ball", "other"}));
    }
  }
  // Six frames (tick 0 and five steps): one encoding per view and one per delta stream.
  EXPECT_EQ(counts.watch.frames_encoded.load(), (kSteps + 1) * (3u + 2u));
  EXPECT_EQ(counts.watch.frames_conflated.load(), 0u);
  // Every write counted (a write completes shortly after its frame is read).
  const uint64_t sent = (kSteps + 1) * 9u;
  for (int i = 0; i < 2000 && counts.watch.frames_sent.load() < sent; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  EXPECT_EQ(counts.watch.frames_sent.load(), sent);
}

TEST_F(WatchFanoutTest, DeltaStreamsKeepTheirOwnKeyFramesAndRebuildTheWorld) {
  // The second stream joins two steps after the first, so their key frames (every third
  // frame of each) fall on different ticks.
  auto whole = Open(Whole());
  std::vector<std::unique_ptr<WatchStream>> deltas;
  deltas.push_back(Open(Deltas(3)));
  // What each delta stream has rebuilt: body id -> serialized state.
  std::vector<std::map<std::string, std::string>> rebuilt(2);
  std::vector<int> frames_read(2, 0);
  for (int step = 0; step <= 8; ++step) {
    if (step > 0) {
      v1::Frame stepped;
      ASSERT_TRUE(Step("worlds/w", 1, &stepped).ok());
    }
    if (step == 2) deltas.push_back(Open(Deltas(3)));
    v1::Frame truth;
    ASSERT_TRUE(whole->reader->Read(&truth));
    ASSERT_EQ(truth.tick(), static_cast<uint64_t>(step));
    for (size_t d = 0; d < deltas.size(); ++d) {
      // One frame per step; a stream that joins starts with the newest frame it finds,
      // which may be the tick before the step that was just published.
      v1::Frame f;
      do {
        ASSERT_TRUE(deltas[d]->reader->Read(&f));
        EXPECT_EQ(f.key_frame(), frames_read[d] % 3 == 0) << "stream " << d << " tick " << step;
        ++frames_read[d];
        if (f.key_frame()) rebuilt[d].clear();
        for (const v1::BodyState& b : f.bodies()) rebuilt[d][b.id()] = b.SerializeAsString();
      } while (f.tick() < static_cast<uint64_t>(step));
      ASSERT_EQ(f.tick(), static_cast<uint64_t>(step));
      // Bodies not in a delta frame did not move: the rebuilt world is the world.
      ASSERT_EQ(rebuilt[d].size(), static_cast<size_t>(truth.bodies_size()));
      for (const v1::BodyState& b : truth.bodies()) {
        EXPECT_EQ(rebuilt[d][b.id()], b.SerializeAsString())
            << "stream " << d << " tick " << step << " body " << b.id();
      }
    }
  }
}

// Resident memory of this process (KiB).
long ResidentKiB() {
  std::ifstream statm("/proc/self/statm");
  long pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * (sysconf(_SC_PAGESIZE) / 1024);
}

TEST_F(WatchFanoutTest, StalledViewersHoldTheirNewestFrameNotABacklog) {
  // A running 60 Hz world of 73 bodies (frames of about 7 KiB), and 1,000 viewers that read
  // their first frame and then nothing. Over 4 s the world publishes about 240 frames: a
  // queue per viewer would hold some 1.6 GiB; the newest frame per viewer and the transport's
  // windows are all there is, and they are full by the end of the first second.
  CreateWorld("busy", "default");
  // The viewers' receive windows stay at HTTP/2's 64 KiB floor (no bandwidth-delay
  // probing), as the client library keeps them.
  grpc::ChannelArguments args;
  args.SetInt(GRPC_ARG_HTTP2_BDP_PROBE, 0);
  auto sessions = v1::SessionService::NewStub(grpc::CreateCustomChannel(
      "127.0.0.1:" + std::to_string(server_->port()), grpc::InsecureChannelCredentials(), args));
  std::vector<std::unique_ptr<WatchStream>> stalled;
  v1::WatchRequest req;
  req.set_world("worlds/busy");
  constexpr int kViewers = 1000;
  for (int i = 0; i < kViewers; ++i) {
    stalled.push_back(Open(req, sessions.get()));
    v1::Frame first;
    ASSERT_TRUE(stalled.back()->reader->Read(&first));
  }
  std::this_thread::sleep_for(std::chrono::seconds(1));
  const long warm = ResidentKiB();
  const uint64_t tick = server_->worlds().Get("busy").value()->Info().tick;
  std::this_thread::sleep_for(std::chrono::seconds(4));
  const long grown = ResidentKiB() - warm;
  EXPECT_LT(grown, 32 * 1024) << "KiB";
  // The world went on publishing meanwhile (some 240 ticks at 60 Hz, allowing for a loaded
  // machine), and every viewer is still there.
  EXPECT_GT(server_->worlds().Get("busy").value()->Info().tick, tick + 120);
  EXPECT_EQ(server_->sessions().watch.open.load(), kViewers);
}

}  // namespace
}  // namespace ligature::testing
