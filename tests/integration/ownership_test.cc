// Body ownership: an Interact session that drives a kinematic body owns it until its
// stream ends.

#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

class OwnershipTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    v1::Scene scene = BallScene();
    scene.mutable_settings()->set_paused(false);
    v1::Body* paddle = scene.add_bodies();
    paddle->set_id("paddle");
    paddle->set_kind(v1::BODY_KIND_KINEMATIC);
    paddle->mutable_shape()->mutable_sphere()->set_radius(0.2);
    paddle->mutable_pose()->mutable_position()->set_x(2.0);
    v1::World w;
    ASSERT_TRUE(CreateWorld("own", scene, &w).ok());
  }

  v1::World Get() {
    grpc::ClientContext ctx;
    v1::GetWorldRequest req;
    req.set_name("worlds/own");
    v1::World w;
    EXPECT_TRUE(worlds_->GetWorld(&ctx, req, &w).ok());
    return w;
  }

  static v1::InteractRequest Drive(double x) {
    v1::InteractRequest msg;
    msg.set_world("worlds/own");
    v1::DevicePose* pose = msg.add_poses();
    pose->set_body_id("paddle");
    pose->mutable_pose()->mutable_position()->set_x(x);
    return msg;
  }
};

TEST_F(OwnershipTest, SecondDriverIsRefusedUntilTheFirstStreamEnds) {
  grpc::ClientContext first_ctx;
  auto first = sessions_->Interact(&first_ctx);
  ASSERT_TRUE(first->Write(Drive(1.0)));
  v1::Frame frame;
  ASSERT_TRUE(first->Read(&frame));
  // The claim is made as the poses arrive; wait for GetWorld to show it.
  v1::World w = Get();
  for (int i = 0; i < 500 && w.owners_size() == 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    w = Get();
  }
  ASSERT_EQ(w.owners_size(), 1);
  EXPECT_EQ(w.owners(0).body(), "paddle");
  EXPECT_NE(w.owners(0).client().find("127.0.0.1"), std::string::npos) << w.owners(0).client();

  {
    grpc::ClientContext ctx;
    auto second = sessions_->Interact(&ctx);
    second->Write(Drive(3.0));
    while (second->Read(&frame)) {
    }
    const grpc::Status s = second->Finish();
    EXPECT_EQ(s.error_code(), grpc::FAILED_PRECONDITION);
    EXPECT_NE(s.error_message().find("driven by another Interact session"), std::string::npos)
        << s.error_message();
  }

  // The first stream ends: the body is free, and a new session drives it.
  first->WritesDone();
  while (first->Read(&frame)) {
  }
  ASSERT_TRUE(first->Finish().ok());
  EXPECT_EQ(Get().owners_size(), 0);

  grpc::ClientContext third_ctx;
  auto third = sessions_->Interact(&third_ctx);
  ASSERT_TRUE(third->Write(Drive(3.0)));
  ASSERT_TRUE(third->Read(&frame));
  third->WritesDone();
  while (third->Read(&frame)) {
  }
  EXPECT_TRUE(third->Finish().ok());
}

}  // namespace
}  // namespace ligature::testing
