#include "server/rpc/frame_filter.h"

#include <gtest/gtest.h>

namespace ligature {
namespace {

BodyState At(const std::string& id, double x) {
  BodyState b;
  b.id = id;
  b.pose.position = Vec3(x, 0, 0);
  return b;
}

Frame TwoBodies(double ax, double bx) {
  Frame f;
  f.bodies = {At("a", ax), At("b", bx)};
  return f;
}

std::vector<bool> Keep(FrameFilter& f, const Frame& frame) { return f.Select(frame).keep; }

// Without options every body of every frame goes out, each frame a key frame.
TEST(FrameFilterTest, NoOptionsKeepsEverything) {
  FrameFilter f({});
  EXPECT_FALSE(f.active());
  auto s = f.Select(TwoBodies(0, 1));
  EXPECT_TRUE(s.key_frame);
  EXPECT_EQ(s.keep, (std::vector<bool>{true, true}));
}

// A body is in the region when any of its points is: a rod reaching into the box counts.
TEST(FrameFilterTest, RegionKeepsBodiesWithAPointInside) {
  FrameFilterOptions o;
  o.region = Region{Vec3(-1, -1, -1), Vec3(1, 1, 1)};
  FrameFilter f(o);
  Frame frame = TwoBodies(0.5, 5.0);
  EXPECT_EQ(Keep(f, frame), (std::vector<bool>{true, false}));
  frame.bodies[1].rod_points = {Vec3(5, 0, 0), Vec3(0.9, 0, 0)};
  EXPECT_EQ(Keep(f, frame), (std::vector<bool>{true, true}));
}

// Delta frames: only bodies that moved past the threshold since they were last sent (slow
// drift adds up), and a key frame with every body every `key_frame_interval` frames.
TEST(FrameFilterTest, DeltaFramesAndKeyFrames) {
  FrameFilterOptions o;
  o.delta_threshold = 0.1;
  o.key_frame_interval = 4;
  FrameFilter f(o);
  auto s = f.Select(TwoBodies(0, 0));  // frame 0: key
  EXPECT_TRUE(s.key_frame);
  EXPECT_EQ(s.keep, (std::vector<bool>{true, true}));
  s = f.Select(TwoBodies(0.05, 0.5));  // frame 1: only b moved enough
  EXPECT_FALSE(s.key_frame);
  EXPECT_EQ(s.keep, (std::vector<bool>{false, true}));
  s = f.Select(TwoBodies(0.11, 0.5));  // frame 2: a drifted 0.11 since it was sent
  EXPECT_EQ(s.keep, (std::vector<bool>{true, false}));
  s = f.Select(TwoBodies(0.11, 0.5));  // frame 3: nothing moved
  EXPECT_EQ(s.keep, (std::vector<bool>{false, false}));
  s = f.Select(TwoBodies(0.11, 0.5));  // frame 4: key frame again
  EXPECT_TRUE(s.key_frame);
  EXPECT_EQ(s.keep, (std::vector<bool>{true, true}));
}

// A turn past the threshold (in rad) counts as a move.
TEST(FrameFilterTest, TurnsCount) {
  FrameFilterOptions o;
  o.delta_threshold = 0.1;
  FrameFilter f(o);
  Frame frame = TwoBodies(0, 0);
  f.Select(frame);
  frame.bodies[0].pose.orientation = Quat(Eigen::AngleAxisd(0.2, Vec3::UnitY()));
  EXPECT_EQ(Keep(f, frame), (std::vector<bool>{true, false}));
}

}  // namespace
}  // namespace ligature
