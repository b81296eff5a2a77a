#include "server/rpc/edits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <initializer_list>
#include <limits>
#include <string>
#include <variant>
#include <vector>

namespace ligature {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::string Message(const absl::Status& s) { return std::string(s.message()); }

v1::UpdateBodyRequest Update(const std::string& name, std::initializer_list<const char*> paths) {
  v1::UpdateBodyRequest req;
  req.mutable_body()->set_name(name);
  for (const char* p : paths) req.mutable_update_mask()->add_paths(p);
  return req;
}

void SetPosition(v1::UpdateBodyRequest& req, double x, double y, double z) {
  auto* p = req.mutable_body()->mutable_pose()->mutable_position();
  p->set_x(x);
  p->set_y(y);
  p->set_z(z);
}

void SetOrientation(v1::UpdateBodyRequest& req, double x, double y, double z, double w) {
  auto* q = req.mutable_body()->mutable_pose()->mutable_orientation();
  q->set_x(x);
  q->set_y(y);
  q->set_z(z);
  q->set_w(w);
}

// ----------------------------------------------------------------------------------------
// UpdateBodyFromProto: only the masked fields are taken, each validated as on create.

TEST(UpdateBodyFromProtoTest, TakesOnlyMaskedFields) {
  v1::UpdateBodyRequest req = Update("worlds/w/bodies/ball", {"linear_velocity"});
  req.mutable_body()->mutable_linear_velocity()->set_x(2.0);
  req.mutable_body()->mutable_angular_velocity()->set_y(5.0);
  SetPosition(req, 1, 2, 3);
  req.mutable_body()->set_kind(v1::BODY_KIND_STATIC);
  auto edit = UpdateBodyFromProto(req, "w", "");
  ASSERT_TRUE(edit.ok()) << edit.status();
  EXPECT_EQ(edit->body_id, "ball");
  ASSERT_TRUE(edit->update.linear_velocity.has_value());
  EXPECT_EQ(*edit->update.linear_velocity, Vec3(2, 0, 0));
  EXPECT_FALSE(edit->update.angular_velocity.has_value());
  EXPECT_FALSE(edit->update.position.has_value());
  EXPECT_FALSE(edit->update.orientation.has_value());
  EXPECT_FALSE(edit->update.material.has_value());
  EXPECT_FALSE(edit->update.kind.has_value());
}

// "pose" sets both position and orientation; "pose.position" and "pose.orientation" one
// each.
TEST(UpdateBodyFromProtoTest, PoseSubPaths) {
  v1::UpdateBodyRequest req = Update("worlds/w/bodies/b", {"pose"});
  SetPosition(req, 1, 2, 3);
  SetOrientation(req, 0, 0, 0.6, 0.8);
  auto both = UpdateBodyFromProto(req, "w", "");
  ASSERT_TRUE(both.ok()) << both.status();
  EXPECT_EQ(*both->update.position, Vec3(1, 2, 3));
  EXPECT_TRUE(both->update.orientation->isApprox(Quat(0.8, 0, 0, 0.6)));

  req.mutable_update_mask()->set_paths(0, "pose.position");
  auto position = UpdateBodyFromProto(req, "w", "");
  ASSERT_TRUE(position.ok()) << position.status();
  EXPECT_EQ(*position->update.position, Vec3(1, 2, 3));
  EXPECT_FALSE(position->update.orientation.has_value());

  req.mutable_update_mask()->set_paths(0, "pose.orientation");
  auto orientation = UpdateBodyFromProto(req, "w", "");
  ASSERT_TRUE(orientation.ok()) << orientation.status();
  EXPECT_FALSE(orientation->update.position.has_value());
  EXPECT_TRUE(orientation->update.orientation->isApprox(Quat(0.8, 0, 0, 0.6)));
}

// Fields left out of the mask are ignored, whatever they hold: a position-only update does
// not look at the orientation, nor an orientation-only update at the position.
TEST(UpdateBodyFromProtoTest, UnmaskedPoseFieldIsIgnored) {
  v1::UpdateBodyRequest req = Update("worlds/w/bodies/b", {"pose.position"});
  SetPosition(req, 1, 2, 3);
  SetOrientation(req, 0, 0, 0, 2.0);  // not a unit quaternion, and not being updated
  auto position = UpdateBodyFromProto(req, "w", "");
  ASSERT_TRUE(position.ok()) << position.status();
  EXPECT_EQ(*position->update.position, Vec3(1, 2, 3));
  EXPECT_FALSE(position->update.orientation.has_value());

  v1::UpdateBodyRequest turn = Update("worlds/w/bodies/b", {"pose.orientation"});
  SetPosition(turn, kNaN, 0, 0);  // not being updated
  SetOrientation(turn, 0, 1, 0, 0);
  auto orientation = UpdateBodyFromProto(turn, "w", "");
  ASSERT_TRUE(orientation.ok()) << orientation.status();
  EXPECT_FALSE(orientation->update.position.has_value());
}

// Other unmasked fields with bad values are ignored too.
TEST(UpdateBodyFromProtoTest, UnmaskedBadValuesAreIgnored) {
  v1::UpdateBodyRequest req = Update("worlds/w/bodies/b", {"angular_velocity"});
  req.mutable_body()->mutable_linear_velocity()->set_x(kNaN);
  req.mutable_body()->mutable_material()->set_restitution(7.0);
  req.mutable_body()->mutable_angular_velocity()->set_z(-1.5);
  auto edit = UpdateBodyFromProto(req, "w", "");
  ASSERT_TRUE(edit.ok()) << edit.status();
  EXPECT_EQ(*edit->update.angular_velocity, Vec3(0, 0, -1.5));
}

// Material and kind.
TEST(UpdateBodyFromProtoTest, MaterialAndKind) {
  v1::UpdateBodyRequest req = Update("worlds/w/bodies/b", {"material", "kind"});
  req.mutable_body()->mutable_material()->set_mass(3.0);
  req.mutable_body()->mutable_material()->set_friction(0.0);
  req.mutable_body()->set_kind(v1::BODY_KIND_KINEMATIC);
  auto edit = UpdateBodyFromProto(req, "w", "");
  ASSERT_TRUE(edit.ok()) << edit.status();
  EXPECT_EQ(edit->update.material->mass, 3.0);
  EXPECT_EQ(edit->update.material->friction, 0.0);
  EXPECT_EQ(edit->update.material->density, 1000.0);  // unset: default
  EXPECT_EQ(*edit->update.kind, BodyKind::kKinematic);

  req.mutable_body()->set_kind(v1::BODY_KIND_UNSPECIFIED);
  EXPECT_EQ(*UpdateBodyFromProto(req, "w", "")->update.kind, BodyKind::kDynamic);
  req.mutable_body()->set_kind(static_cast<v1::BodyKind>(9));
  auto bad = UpdateBodyFromProto(req, "w", "");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad.status()), StartsWith("body.kind:"));
}

// Errors: an empty mask, an unknown path, a bad masked value, a bad or foreign name.
TEST(UpdateBodyFromProtoTest, ErrorsNameTheirField) {
  auto empty = UpdateBodyFromProto(Update("worlds/w/bodies/b", {}), "w", "");
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(empty.status()), StartsWith("update_mask:"));

  auto unknown = UpdateBodyFromProto(Update("worlds/w/bodies/b", {"pose", "shape"}), "w", "");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(unknown.status()), StartsWith("update_mask.paths[1]:"));
  EXPECT_THAT(Message(unknown.status()), HasSubstr("\"shape\""));

  v1::UpdateBodyRequest nan = Update("worlds/w/bodies/b", {"linear_velocity"});
  nan.mutable_body()->mutable_linear_velocity()->set_y(kNaN);
  auto bad_value = UpdateBodyFromProto(nan, "w", "");
  EXPECT_EQ(bad_value.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(bad_value.status()), StartsWith("body.linear_velocity.y:"));

  v1::UpdateBodyRequest quat = Update("worlds/w/bodies/b", {"pose.orientation"});
  SetOrientation(quat, 1, 1, 0, 0);
  EXPECT_THAT(Message(UpdateBodyFromProto(quat, "w", "").status()),
              StartsWith("body.pose.orientation:"));

  v1::UpdateBodyRequest material = Update("worlds/w/bodies/b", {"material"});
  material.mutable_body()->mutable_material()->set_friction(-1.0);
  EXPECT_THAT(Message(UpdateBodyFromProto(material, "w", "").status()),
              StartsWith("body.material.friction:"));

  auto foreign = UpdateBodyFromProto(Update("worlds/other/bodies/b", {"pose"}), "w", "");
  EXPECT_EQ(foreign.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(foreign.status()), StartsWith("body.name:"));
  EXPECT_THAT(Message(foreign.status()), HasSubstr("other"));

  auto malformed = UpdateBodyFromProto(Update("bodies/b", {"pose"}), "w", "");
  EXPECT_EQ(malformed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(malformed.status()), StartsWith("body.name:"));
}

// The field prefix is prepended to every path (as a batch does).
TEST(UpdateBodyFromProtoTest, FieldPrefix) {
  auto empty = UpdateBodyFromProto(Update("worlds/w/bodies/b", {}), "w", "edits[4].update_body.");
  EXPECT_THAT(Message(empty.status()), StartsWith("edits[4].update_body.update_mask:"));
}

// ----------------------------------------------------------------------------------------
// EditFromProto: one edit of a batch, with names confined to the batch's world.

TEST(EditFromProtoTest, ConvertsEachKind) {
  v1::Edit create;
  create.mutable_create_body()->set_id("ball");
  create.mutable_create_body()->mutable_shape()->mutable_sphere()->set_radius(0.3);
  auto e = EditFromProto(create, "w", "edits[0]");
  ASSERT_TRUE(e.ok()) << e.status();
  ASSERT_TRUE(std::holds_alternative<CreateBodyEdit>(*e));
  EXPECT_EQ(std::get<CreateBodyEdit>(*e).body.id, "ball");
  EXPECT_EQ(std::get<CreateBodyEdit>(*e).body.rigid()->shape.radius, 0.3);

  v1::Edit del;
  del.set_delete_body("worlds/w/bodies/ball");
  e = EditFromProto(del, "w", "edits[1]");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(std::get<DeleteBodyEdit>(*e).body_id, "ball");

  v1::Edit joint;
  joint.mutable_create_constraint()->set_id("pin");
  joint.mutable_create_constraint()->mutable_point()->set_body_a("ball");
  e = EditFromProto(joint, "w", "edits[2]");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(std::get<CreateConstraintEdit>(*e).constraint.body_a, "ball");
  EXPECT_EQ(std::get<CreateConstraintEdit>(*e).constraint.params.kind, JointKind::kBall);

  v1::Edit unjoint;
  unjoint.set_delete_constraint("worlds/w/constraints/pin");
  e = EditFromProto(unjoint, "w", "edits[3]");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(std::get<DeleteConstraintEdit>(*e).constraint_id, "pin");

  v1::Edit update;
  *update.mutable_update_body() = Update("worlds/w/bodies/ball", {"angular_velocity"});
  e = EditFromProto(update, "w", "edits[4]");
  ASSERT_TRUE(e.ok()) << e.status();
  EXPECT_EQ(std::get<UpdateBodyEdit>(*e).body_id, "ball");
}

// Names of another world are refused, naming the edit's field.
TEST(EditFromProtoTest, RejectsNamesOfAnotherWorld) {
  v1::Edit del;
  del.set_delete_body("worlds/other/bodies/ball");
  auto e = EditFromProto(del, "w", "edits[0]");
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(e.status()), StartsWith("edits[0].delete_body:"));
  EXPECT_THAT(Message(e.status()), HasSubstr("other"));

  v1::Edit unjoint;
  unjoint.set_delete_constraint("worlds/other/constraints/pin");
  e = EditFromProto(unjoint, "w", "edits[1]");
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(e.status()), StartsWith("edits[1].delete_constraint:"));

  v1::Edit update;
  *update.mutable_update_body() = Update("worlds/other/bodies/ball", {"pose"});
  e = EditFromProto(update, "w", "edits[2]");
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(e.status()), StartsWith("edits[2].update_body.body.name:"));
}

// Malformed names, a wrong collection, invalid content, and a missing kind.
TEST(EditFromProtoTest, OtherErrorsNameTheirField) {
  v1::Edit wrong_collection;
  wrong_collection.set_delete_constraint("worlds/w/bodies/ball");
  EXPECT_THAT(Message(EditFromProto(wrong_collection, "w", "edits[0]").status()),
              StartsWith("edits[0].delete_constraint:"));

  v1::Edit bad_body;
  bad_body.mutable_create_body()->mutable_shape()->mutable_sphere()->set_radius(-1.0);
  auto e = EditFromProto(bad_body, "w", "edits[1]");
  EXPECT_EQ(e.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(e.status()), StartsWith("edits[1].create_body.shape.sphere.radius:"));

  v1::Edit bad_joint;
  bad_joint.mutable_create_constraint()->mutable_point()->set_body_a("Nope!");
  EXPECT_THAT(Message(EditFromProto(bad_joint, "w", "edits[2]").status()),
              StartsWith("edits[2].create_constraint.point.body_a:"));

  auto none = EditFromProto(v1::Edit(), "w", "edits[3]");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(none.status()), StartsWith("edits[3]:"));
}

// ----------------------------------------------------------------------------------------
// ApplyEdit: applies to the World and returns the full name of what it created.

BodyDesc Ball(const std::string& id) {
  BodyDesc b;
  b.id = id;
  b.rigid()->shape = Shape::Sphere(0.2);
  return b;
}

// Creations return the full resource name of what they created, generated ids included.
TEST(ApplyEditTest, ReturnsCreatedNames) {
  World world("worlds/lab", WorldSettings{}, WorldLimits{});
  auto name = ApplyEdit(CreateBodyEdit{Ball("ball")}, world);
  ASSERT_TRUE(name.ok()) << name.status();
  EXPECT_EQ(*name, "worlds/lab/bodies/ball");
  EXPECT_TRUE(world.HasBody("ball"));

  auto generated = ApplyEdit(CreateBodyEdit{Ball("")}, world);
  ASSERT_TRUE(generated.ok());
  ASSERT_THAT(*generated, StartsWith("worlds/lab/bodies/"));
  EXPECT_TRUE(world.HasBody(generated->substr(std::string("worlds/lab/bodies/").size())));

  ConstraintDesc c;
  c.id = "pin";
  c.body_a = "ball";
  auto joint = ApplyEdit(CreateConstraintEdit{c}, world);
  ASSERT_TRUE(joint.ok()) << joint.status();
  EXPECT_EQ(*joint, "worlds/lab/constraints/pin");
  EXPECT_TRUE(world.HasConstraint("pin"));
}

// Updates and deletions create nothing and return an empty name.
TEST(ApplyEditTest, UpdatesAndDeletesReturnEmpty) {
  World world("worlds/lab", WorldSettings{}, WorldLimits{});
  ASSERT_TRUE(world.AddBody(Ball("ball")).ok());
  ConstraintDesc c;
  c.id = "pin";
  c.body_a = "ball";
  ASSERT_TRUE(world.AddConstraint(c).ok());

  UpdateBodyEdit update;
  update.body_id = "ball";
  update.update.position = Vec3(4, 5, 6);
  auto name = ApplyEdit(update, world);
  ASSERT_TRUE(name.ok());
  EXPECT_EQ(*name, "");
  EXPECT_EQ(world.GetBody("ball")->rigid()->pose.position, Vec3(4, 5, 6));

  name = ApplyEdit(DeleteConstraintEdit{"pin"}, world);
  ASSERT_TRUE(name.ok());
  EXPECT_EQ(*name, "");
  EXPECT_FALSE(world.HasConstraint("pin"));

  name = ApplyEdit(DeleteBodyEdit{"ball"}, world);
  ASSERT_TRUE(name.ok());
  EXPECT_EQ(*name, "");
  EXPECT_FALSE(world.HasBody("ball"));
}

// The World's errors come back unchanged.
TEST(ApplyEditTest, PropagatesWorldErrors) {
  World world("worlds/lab", WorldSettings{}, WorldLimits{});
  ASSERT_TRUE(world.AddBody(Ball("ball")).ok());
  EXPECT_EQ(ApplyEdit(CreateBodyEdit{Ball("ball")}, world).status().code(),
            absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(ApplyEdit(DeleteBodyEdit{"nobody"}, world).status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(ApplyEdit(DeleteConstraintEdit{"nothing"}, world).status().code(),
            absl::StatusCode::kNotFound);
  UpdateBodyEdit update;
  update.body_id = "nobody";
  EXPECT_EQ(ApplyEdit(update, world).status().code(), absl::StatusCode::kNotFound);
  ConstraintDesc c;
  c.body_a = "nobody";
  EXPECT_EQ(ApplyEdit(CreateConstraintEdit{c}, world).status().code(), absl::StatusCode::kNotFound);
}

// From proto to world: a converted batch applies in order.
TEST(ApplyEditTest, ConvertedBatchApplies) {
  World world("worlds/lab", WorldSettings{}, WorldLimits{});
  v1::Edit create;
  create.mutable_create_body()->set_id("ball");
  create.mutable_create_body()->mutable_shape()->mutable_sphere()->set_radius(0.3);
  v1::Edit move;
  *move.mutable_update_body() = Update("worlds/lab/bodies/ball", {"pose.position"});
  SetPosition(*move.mutable_update_body(), 0, 7, 0);
  std::vector<std::string> created;
  int i = 0;
  for (const v1::Edit* e : {&create, &move}) {
    auto edit = EditFromProto(*e, "lab", "edits[" + std::to_string(i++) + "]");
    ASSERT_TRUE(edit.ok()) << edit.status();
    auto name = ApplyEdit(*edit, world);
    ASSERT_TRUE(name.ok()) << name.status();
    if (!name->empty()) created.push_back(*name);
  }
  EXPECT_EQ(created, std::vector<std::string>{"worlds/lab/bodies/ball"});
  EXPECT_EQ(world.GetBody("ball")->rigid()->pose.position, Vec3(0, 7, 0));
}

}  // namespace
}  // namespace ligature
