// SceneService over real gRPC: body and constraint edits, batches, export round trip.

#include "google/protobuf/util/message_differencer.h"
#include "tests/integration/server_fixture.h"

namespace ligature::testing {
namespace {

v1::Body Ball(const std::string& id, double y) {
  v1::Body b;
  b.set_id(id);
  b.mutable_shape()->mutable_sphere()->set_radius(0.1);
  b.mutable_pose()->mutable_position()->set_y(y);
  return b;
}

class SceneServiceTest : public ServerTest {
 protected:
  void SetUp() override {
    ServerTest::SetUp();
    v1::World w;
    ASSERT_TRUE(CreateWorld("s", BallScene(), &w).ok());
  }

  grpc::Status AddBody(const v1::Body& body, v1::Body* out) {
    grpc::ClientContext ctx;
    v1::CreateBodyRequest req;
    req.set_parent("worlds/s");
    *req.mutable_body() = body;
    return scenes_->CreateBody(&ctx, req, out);
  }

  v1::Scene Export(const std::string& world) {
    grpc::ClientContext ctx;
    v1::ExportSceneRequest req;
    req.set_parent(world);
    v1::Scene scene;
    EXPECT_TRUE(scenes_->ExportScene(&ctx, req, &scene).ok());
    return scene;
  }
};

TEST_F(SceneServiceTest, CreateUpdateDeleteBody) {
  v1::Body created;
  ASSERT_TRUE(AddBody(Ball("extra", 3.0), &created).ok());
  EXPECT_EQ(created.name(), "worlds/s/bodies/extra");
  EXPECT_EQ(created.kind(), v1::BODY_KIND_DYNAMIC);

  // Server-chosen id when none is given.
  v1::Body unnamed;
  ASSERT_TRUE(AddBody(Ball("", 4.0), &unnamed).ok());
  EXPECT_FALSE(unnamed.id().empty());

  // Duplicate id.
  v1::Body dup;
  EXPECT_EQ(AddBody(Ball("extra", 1.0), &dup).error_code(), grpc::ALREADY_EXISTS);

  {
    grpc::ClientContext ctx;
    v1::UpdateBodyRequest req;
    req.mutable_body()->set_name("worlds/s/bodies/extra");
    req.mutable_body()->mutable_linear_velocity()->set_x(2.0);
    req.mutable_body()->set_kind(v1::BODY_KIND_KINEMATIC);
    req.mutable_update_mask()->add_paths("linear_velocity");
    req.mutable_update_mask()->add_paths("kind");
    v1::Body out;
    ASSERT_TRUE(scenes_->UpdateBody(&ctx, req, &out).ok());
    EXPECT_EQ(out.linear_velocity().x(), 2.0);
    EXPECT_EQ(out.kind(), v1::BODY_KIND_KINEMATIC);
    EXPECT_EQ(out.pose().position().y(), 3.0);  // not in the mask: unchanged
  }
  // A kinematic body moves with its velocity and ignores gravity.
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/s", 100, &frame).ok());
  for (const auto& b : frame.bodies()) {
    if (b.id() == "extra") {
      EXPECT_NEAR(b.pose().position().x(), 2.0, 1e-9);
      EXPECT_NEAR(b.pose().position().y(), 3.0, 1e-12);
    }
  }
  {
    grpc::ClientContext ctx;
    v1::DeleteBodyRequest req;
    req.set_name("worlds/s/bodies/extra");
    v1::DeleteBodyResponse resp;
    ASSERT_TRUE(scenes_->DeleteBody(&ctx, req, &resp).ok());
  }
  grpc::ClientContext ctx;
  v1::DeleteBodyRequest req;
  req.set_name("worlds/s/bodies/extra");
  v1::DeleteBodyResponse resp;
  EXPECT_EQ(scenes_->DeleteBody(&ctx, req, &resp).error_code(), grpc::NOT_FOUND);
}

TEST_F(SceneServiceTest, ConstraintHoldsAndGoesWithItsBody) {
  v1::Body bob;
  ASSERT_TRUE(AddBody(Ball("bob", 2.0), &bob).ok());
  v1::Constraint c;
  c.set_id("pin");
  c.mutable_point()->set_body_a("bob");
  c.mutable_point()->mutable_anchor_b()->set_y(2.0);
  {
    grpc::ClientContext ctx;
    v1::CreateConstraintRequest req;
    req.set_parent("worlds/s");
    *req.mutable_constraint() = c;
    v1::Constraint out;
    ASSERT_TRUE(scenes_->CreateConstraint(&ctx, req, &out).ok());
    EXPECT_EQ(out.name(), "worlds/s/constraints/pin");
  }
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/s", 50, &frame).ok());
  for (const auto& b : frame.bodies()) {
    if (b.id() == "bob") {
      EXPECT_NEAR(b.pose().position().y(), 2.0, 1e-6);  // pinned
    }
  }
  {
    grpc::ClientContext ctx;
    v1::DeleteBodyRequest req;
    req.set_name("worlds/s/bodies/bob");
    v1::DeleteBodyResponse resp;
    ASSERT_TRUE(scenes_->DeleteBody(&ctx, req, &resp).ok());
  }
  ASSERT_TRUE(Step("worlds/s", 1, &frame).ok());
  ASSERT_EQ(frame.removed_constraints_size(), 1);
  EXPECT_EQ(frame.removed_constraints(0), "worlds/s/constraints/pin");
  grpc::ClientContext ctx;
  v1::DeleteConstraintRequest req;
  req.set_name("worlds/s/constraints/pin");
  v1::DeleteConstraintResponse resp;
  EXPECT_EQ(scenes_->DeleteConstraint(&ctx, req, &resp).error_code(), grpc::NOT_FOUND);
}

TEST_F(SceneServiceTest, BatchEditIsAllOrNothing) {
  const v1::Scene before = Export("worlds/s");
  v1::BatchEditRequest req;
  req.set_parent("worlds/s");
  *req.add_edits()->mutable_create_body() = Ball("one", 2.0);
  *req.add_edits()->mutable_create_body() = Ball("two", 3.0);
  req.add_edits()->set_delete_body("worlds/s/bodies/missing");  // fails
  {
    grpc::ClientContext ctx;
    v1::BatchEditResponse resp;
    const grpc::Status s = scenes_->BatchEdit(&ctx, req, &resp);
    EXPECT_EQ(s.error_code(), grpc::NOT_FOUND);
    EXPECT_NE(s.error_message().find("edits[2]"), std::string::npos) << s.error_message();
  }
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(before, Export("worlds/s")));

  req.mutable_edits()->RemoveLast();
  grpc::ClientContext ctx;
  v1::BatchEditResponse resp;
  ASSERT_TRUE(scenes_->BatchEdit(&ctx, req, &resp).ok());
  ASSERT_EQ(resp.created_size(), 2);
  EXPECT_EQ(resp.created(1), "worlds/s/bodies/two");
  EXPECT_EQ(Export("worlds/s").bodies_size(), before.bodies_size() + 2);
}

TEST_F(SceneServiceTest, ExportRecreatesTheWorld) {
  v1::Frame frame;
  ASSERT_TRUE(Step("worlds/s", 20, &frame).ok());
  const v1::Scene exported = Export("worlds/s");
  v1::World copy;
  ASSERT_TRUE(CreateWorld("copy", exported, &copy).ok());
  EXPECT_EQ(copy.body_count(), 2);
  const v1::Scene again = Export("worlds/copy");
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(exported, again));
  // Both continue identically from the exported state.
  v1::Frame a, b;
  ASSERT_TRUE(Step("worlds/s", 10, &a).ok());
  ASSERT_TRUE(Step("worlds/copy", 10, &b).ok());
  EXPECT_DOUBLE_EQ(a.bodies(1).pose().position().y(), b.bodies(1).pose().position().y());
}

}  // namespace
}  // namespace ligature::testing
