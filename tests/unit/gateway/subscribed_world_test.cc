// A gateway's copy of one world's frames: messages decode on demand, whole-frame streams
// send the bytes as they came, bad messages are counted and never replace a good frame.

#include "server/gateway/subscribed_world.h"

#include <gtest/gtest.h>

#include "ligature/v1/frame.pb.h"

namespace ligature {
namespace {

std::string FrameBytes(const std::string& world, uint64_t tick) {
  v1::Frame message;
  message.set_world(world);
  message.set_tick(tick);
  v1::BodyState* body = message.add_bodies();
  body->set_id("ball");
  body->mutable_pose()->mutable_position()->set_y(0.5 * static_cast<double>(tick));
  message.set_key_frame(true);
  return message.SerializeAsString();
}

std::string Bytes(const grpc::ByteBuffer& buffer) {
  grpc::Slice slice;
  EXPECT_TRUE(buffer.DumpToSingleSlice(&slice).ok());
  return std::string(reinterpret_cast<const char*>(slice.begin()), slice.size());
}

TEST(SubscribedWorldTest, NothingBeforeTheFirstMessage) {
  SubscribedWorld world("worlds/crowd");
  EXPECT_EQ(world.Latest(), nullptr);
  std::optional<absl::Status> ended;
  EXPECT_EQ(world.WaitForFrame(0, absl::Milliseconds(1), &ended), nullptr);
  EXPECT_FALSE(ended.has_value());
}

TEST(SubscribedWorldTest, TheNewestMessageDecodesAndItsBytesAreSentAsTheyCame) {
  SubscribedWorld world("worlds/crowd");
  world.Receive(FrameBytes("worlds/crowd", 7).data(), FrameBytes("worlds/crowd", 7).size(), 60);
  const std::string newest = FrameBytes("worlds/crowd", 8);
  world.Receive(newest.data(), newest.size(), 60.0);
  std::optional<absl::Status> ended;
  std::shared_ptr<const PublishedFrame> frame = world.WaitForFrame(0, absl::Seconds(1), &ended);
  ASSERT_NE(frame, nullptr);
  EXPECT_EQ(frame->version(), 2u);
  EXPECT_EQ(frame->rate_hz(), 60.0);
  EXPECT_EQ(frame->frame().tick, 8u);
  ASSERT_EQ(frame->frame().bodies.size(), 1u);
  EXPECT_EQ(frame->frame().bodies[0].pose.position.y(), 4.0);
  // The whole frame is not encoded again: its bytes are the message's.
  grpc::ByteBuffer whole;
  EXPECT_FALSE(frame->View("", FrameStreamOptions{}, &whole));
  EXPECT_EQ(Bytes(whole), newest);
  // Decoded once: the same frame again until a newer message.
  EXPECT_EQ(world.Latest(), frame);
}

TEST(SubscribedWorldTest, TheSameBytesAgainAreNoNewFrame) {
  SubscribedWorld world("worlds/crowd");
  const std::string bytes = FrameBytes("worlds/crowd", 9);
  world.Receive(bytes.data(), bytes.size(), 60.0);
  world.Receive(bytes.data(), bytes.size(), 60.0);
  std::optional<absl::Status> ended;
  EXPECT_EQ(world.WaitForFrame(0, absl::Seconds(1), &ended)->version(), 1u);
  // The same tick with other bytes (an edit in a paused world) is a new frame.
  v1::Frame edited;
  ASSERT_TRUE(edited.ParseFromString(bytes));
  edited.mutable_bodies(0)->mutable_pose()->mutable_position()->set_x(1.0);
  const std::string other = edited.SerializeAsString();
  world.Receive(other.data(), other.size(), 60.0);
  std::shared_ptr<const PublishedFrame> frame = world.WaitForFrame(1, absl::Seconds(1), &ended);
  EXPECT_EQ(frame->version(), 2u);
  EXPECT_EQ(frame->frame().bodies[0].pose.position.x(), 1.0);
}

TEST(SubscribedWorldTest, BadMessagesAreCountedAndTheLastGoodFrameStays) {
  SubscribedWorld world("worlds/crowd");
  const std::string good = FrameBytes("worlds/crowd", 3);
  world.Receive(good.data(), good.size(), 100.0);
  ASSERT_NE(world.Latest(), nullptr);
  const std::string garbage = "\xff\xff\xff not a frame";
  world.Receive(garbage.data(), garbage.size(), 100.0);
  EXPECT_EQ(world.Latest()->frame().tick, 3u);
  EXPECT_EQ(world.malformed(), 1u);
  // Another world's frame on this world's subject is refused too.
  const std::string other = FrameBytes("worlds/other", 4);
  world.Receive(other.data(), other.size(), 100.0);
  std::optional<absl::Status> ended;
  std::shared_ptr<const PublishedFrame> frame =
      world.WaitForFrame(1, absl::Milliseconds(20), &ended);
  ASSERT_NE(frame, nullptr);
  EXPECT_EQ(frame->frame().tick, 3u);
  EXPECT_EQ(world.malformed(), 2u);
  // A good message afterwards is taken.
  const std::string next = FrameBytes("worlds/crowd", 5);
  world.Receive(next.data(), next.size(), 100.0);
  EXPECT_EQ(world.WaitForFrame(1, absl::Seconds(1), &ended)->frame().tick, 5u);
}

TEST(SubscribedWorldTest, AnEndedWorldEndsItsStreamsAndTakesNoMoreFrames) {
  SubscribedWorld world("worlds/crowd");
  const std::string first = FrameBytes("worlds/crowd", 1);
  world.Receive(first.data(), first.size(), 60.0);
  world.End(absl::NotFoundError("worlds/crowd was deleted"));
  const std::string later = FrameBytes("worlds/crowd", 2);
  world.Receive(later.data(), later.size(), 60.0);
  std::optional<absl::Status> ended;
  world.WaitForFrame(0, absl::Seconds(1), &ended);
  ASSERT_TRUE(ended.has_value());
  EXPECT_TRUE(absl::IsNotFound(*ended));
  EXPECT_EQ(world.Latest()->frame().tick, 1u);
}

}  // namespace
}  // namespace ligature
