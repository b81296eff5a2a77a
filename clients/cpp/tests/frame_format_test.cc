#include "clients/cpp/frame_format.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/message_differencer.h"
#include "gtest/gtest.h"

namespace ligature::client {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

ligature::v1::Frame SampleFrame(int body_count) {
  ligature::v1::Frame frame;
  frame.set_world("worlds/demo");
  frame.set_tick(120);
  frame.set_sim_time(2.0);
  frame.set_step_ms(0.25);
  frame.mutable_solver()->set_iterations(20);
  frame.mutable_solver()->set_contacts(4);
  for (int i = 0; i < body_count; ++i) {
    ligature::v1::BodyState* body = frame.add_bodies();
    body->set_id(absl::StrCat("b", i));
    body->mutable_pose()->mutable_position()->set_y(0.5 + i);
    body->mutable_linear_velocity()->set_x(-1.25);
  }
  return frame;
}

TEST(FormatFrameTextTest, OneLineWithHeaderAndBodies) {
  const std::string line = FormatFrameText(SampleFrame(2));
  EXPECT_EQ(line.find('\n'), std::string::npos);
  EXPECT_THAT(line, HasSubstr("worlds/demo tick=120 t=2.000s step=0.250ms"));
  EXPECT_THAT(line, HasSubstr("iters=20"));
  EXPECT_THAT(line, HasSubstr("contacts=4"));
  EXPECT_THAT(line, HasSubstr("b0 p=(0.000,0.500,0.000) v=(-1.250,0.000,0.000)"));
  EXPECT_THAT(line, HasSubstr("b1 p=(0.000,1.500,0.000)"));
  EXPECT_THAT(line, Not(HasSubstr("more")));
}

TEST(FormatFrameTextTest, CapsTheBodyList) {
  const std::string line = FormatFrameText(SampleFrame(5), {.max_bodies = 2});
  EXPECT_THAT(line, HasSubstr("b1 "));
  EXPECT_THAT(line, Not(HasSubstr("b2 ")));
  EXPECT_THAT(line, HasSubstr("(+3 more)"));
  EXPECT_THAT(FormatFrameText(SampleFrame(5), {.max_bodies = -1}), HasSubstr("b4 "));
}

TEST(FormatFrameTextTest, MarksSleepersOnlyWhenSomeSleep) {
  ligature::v1::Frame frame = SampleFrame(2);
  EXPECT_THAT(FormatFrameText(frame), Not(HasSubstr("asleep")));
  frame.mutable_solver()->set_sleeping_bodies(1);
  frame.mutable_bodies(1)->set_sleeping(true);
  const std::string line = FormatFrameText(frame);
  EXPECT_THAT(line, HasSubstr("contacts=4] asleep=1 b0"));
  EXPECT_THAT(line, HasSubstr("v=(-1.250,0.000,0.000) asleep"));
  EXPECT_THAT(line, Not(HasSubstr("b0 p=(0.000,0.500,0.000) v=(-1.250,0.000,0.000) asleep")));
}

TEST(FormatFrameTextTest, ListsRemovedConstraints) {
  ligature::v1::Frame frame = SampleFrame(0);
  frame.add_removed_constraints("worlds/demo/constraints/hinge");
  EXPECT_THAT(FormatFrameText(frame), HasSubstr("removed=[worlds/demo/constraints/hinge]"));
}

TEST(FormatFrameJsonTest, CompactSingleLineThatParsesBack) {
  const ligature::v1::Frame frame = SampleFrame(2);
  absl::StatusOr<std::string> json = FormatFrameJson(frame);
  ASSERT_TRUE(json.ok()) << json.status();
  EXPECT_EQ(json->find('\n'), std::string::npos);
  EXPECT_THAT(*json, HasSubstr("\"world\":\"worlds/demo\""));
  EXPECT_THAT(*json, HasSubstr("\"simTime\":2"));
  // uint64 is a string in proto3 JSON; zero-valued fields are left out.
  EXPECT_THAT(*json, HasSubstr("\"tick\":\"120\""));
  EXPECT_THAT(*json, Not(HasSubstr("residual")));

  ligature::v1::Frame parsed;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(*json, &parsed).ok());
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(frame, parsed));
}

}  // namespace
}  // namespace ligature::client
