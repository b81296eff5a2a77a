// SaveSnapshot / RestoreSnapshot over gRPC: roles, bad snapshots, and a restored world
// stepping exactly as the one it was saved from.

#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

class SnapshotServiceTest : public ServerTest {
 protected:
  void Customize(ServerOptions* options) override {
    token_file_ = ::testing::TempDir() + "/ligature_snapshot_" + std::to_string(::getpid());
    std::ofstream(token_file_) << "viewer-t viewer *\neditor-t editor *\nowner-t owner *\n";
    options->token_file = token_file_;
  }
  void TearDown() override {
    ServerTest::TearDown();
    std::remove(token_file_.c_str());
  }

  grpc::Status Save(const std::string& token, const std::string& world,
                    v1::SaveSnapshotResponse* out) {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", "Bearer " + token);
    v1::SaveSnapshotRequest req;
    req.set_name(world);
    return worlds_->SaveSnapshot(&ctx, req, out);
  }
  grpc::Status Restore(const std::string& token, const std::string& world,
                       const std::string& bytes, v1::World* out) {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", "Bearer " + token);
    v1::RestoreSnapshotRequest req;
    req.set_name(world);
    req.set_snapshot(bytes);
    return worlds_->RestoreSnapshot(&ctx, req, out);
  }
  grpc::Status OwnerStep(const std::string& world, int ticks, v1::Frame* frame) {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", "Bearer owner-t");
    v1::StepWorldRequest req;
    req.set_name(world);
    req.set_ticks(ticks);
    return worlds_->StepWorld(&ctx, req, frame);
  }
  // A paused world with a ground and a falling ball.
  void MakeBallWorld(const std::string& id) {
    grpc::ClientContext ctx;
    ctx.AddMetadata("authorization", "Bearer owner-t");
    v1::CreateWorldRequest req;
    req.set_world_id(id);
    *req.mutable_scene() = BallScene();
    v1::World out;
    ASSERT_TRUE(worlds_->CreateWorld(&ctx, req, &out).ok());
  }

  std::string token_file_;
};

TEST_F(SnapshotServiceTest, SavingNeedsEditorAndRestoringOwner) {
  MakeBallWorld("a");
  v1::SaveSnapshotResponse saved;
  EXPECT_EQ(Save("viewer-t", "worlds/a", &saved).error_code(), grpc::PERMISSION_DENIED);
  ASSERT_TRUE(Save("editor-t", "worlds/a", &saved).ok());
  EXPECT_FALSE(saved.snapshot().empty());
  v1::World out;
  EXPECT_EQ(Restore("editor-t", "worlds/b", saved.snapshot(), &out).error_code(),
            grpc::PERMISSION_DENIED);
  EXPECT_TRUE(Restore("owner-t", "worlds/b", saved.snapshot(), &out).ok());
  EXPECT_EQ(out.name(), "worlds/b");
}

TEST_F(SnapshotServiceTest, RestoredWorldStepsLikeTheSavedOne) {
  MakeBallWorld("a");
  v1::Frame frame;
  ASSERT_TRUE(OwnerStep("worlds/a", 17, &frame).ok());
  v1::SaveSnapshotResponse saved;
  ASSERT_TRUE(Save("editor-t", "worlds/a", &saved).ok());
  EXPECT_EQ(saved.tick(), frame.tick());
  v1::World restored;
  ASSERT_TRUE(Restore("owner-t", "worlds/b", saved.snapshot(), &restored).ok());
  EXPECT_EQ(restored.tick(), saved.tick());
  v1::Frame fa, fb;
  ASSERT_TRUE(OwnerStep("worlds/a", 40, &fa).ok());
  ASSERT_TRUE(OwnerStep("worlds/b", 40, &fb).ok());
  ASSERT_EQ(fa.bodies_size(), fb.bodies_size());
  EXPECT_EQ(fa.tick(), fb.tick());
  for (int i = 0; i < fa.bodies_size(); ++i) {
    EXPECT_EQ(fa.bodies(i).pose().SerializeAsString(), fb.bodies(i).pose().SerializeAsString());
    EXPECT_EQ(fa.bodies(i).linear_velocity().y(), fb.bodies(i).linear_velocity().y());
  }
}

TEST_F(SnapshotServiceTest, BadSnapshotIsRefusedAndChangesNothing) {
  MakeBallWorld("a");
  v1::SaveSnapshotResponse saved;
  ASSERT_TRUE(Save("editor-t", "worlds/a", &saved).ok());
  v1::World out;
  const std::string torn = saved.snapshot().substr(0, saved.snapshot().size() / 2);
  const grpc::Status s = Restore("owner-t", "worlds/a", torn, &out);
  EXPECT_EQ(s.error_code(), grpc::INVALID_ARGUMENT) << s.error_message();
  // Nothing was created either.
  EXPECT_EQ(Restore("owner-t", "worlds/c", torn, &out).error_code(), grpc::INVALID_ARGUMENT);
  v1::SaveSnapshotResponse after;
  ASSERT_TRUE(Save("editor-t", "worlds/a", &after).ok());
  EXPECT_EQ(after.snapshot(), saved.snapshot());
  EXPECT_EQ(Save("editor-t", "worlds/c", &after).error_code(), grpc::NOT_FOUND);
}

}  // namespace
}  // namespace ligature::testing
