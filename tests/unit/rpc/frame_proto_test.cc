// Frames back from their messages: what a gateway decodes is the frame the server encoded,
// and encoding it again gives the server's bytes.

#include "server/rpc/frame_proto.h"

#include <gtest/gtest.h>

#include "server/rpc/frame_stream.h"

namespace ligature {
namespace {

// A frame with every field set, each to a value of its own.
Frame EveryField() {
  Frame f;
  f.world = "worlds/crowd";
  f.tick = 1234;
  f.sim_time = 20.5666;
  BodyState rod;
  rod.id = "rope";
  rod.pose.position = Vec3(1.25, -2.5, 3.75);
  rod.pose.orientation = Quat(0.5, 0.5, -0.5, 0.5);
  rod.linear_velocity = Vec3(0.1, 0.2, 0.3);
  rod.angular_velocity = Vec3(-1.0, 2.0, -3.0);
  rod.rod_points = {Vec3(0, 0, 0), Vec3(0, 0.1, 0.2)};
  rod.rod_twist = {0.0, 0.125};
  BodyState soft;
  soft.id = "liver";
  soft.sleeping = true;
  soft.soft_vertices = {Vec3(1, 2, 3), Vec3(4, 5, 6), Vec3(7, 8, 9)};
  soft.soft_triangles = {0, 1, 2};
  soft.topology_version = 7;
  BodyState strand;
  strand.id = "hair";
  strand.strand_points = {Vec3(0, 1, 0), Vec3(0, 0.9, 0), Vec3(0.05, 0.8, 0)};
  strand.strand_parents = {-1, 0, 1};
  f.bodies = {rod, soft, strand};
  f.stats = {.iterations = 12,
             .residual = 1e-7,
             .budget_exhausted = true,
             .max_penetration = 2e-4,
             .constraint_rows = 96,
             .contacts = 8,
             .step_ms = 1.5,
             .solve_ms = 0.75,
             .recovered_bodies = 1,
             .sleeping_bodies = 2,
             .substeps = 4};
  f.removed_constraints = {"hinge", "weld"};
  f.broken_joints = {{"hinge", 120.0, 4.5}};
  f.pearls = {{"bead", 0.3, Vec3(0.1, 0.2, 0.3), -0.05}};
  f.rods = {40, 6, 2, 3e-9};
  f.cuts = {{"liver", "scalpel", Vec3(0.2, 0.1, 0.0), 5e4, 3, 4, 2}};
  ToolFrameState tool;
  tool.body_id = "probe";
  tool.device_id = "left";
  tool.device_pose.position = Vec3(0.3, 0.2, 0.1);
  tool.coupling_force = Vec3(1, -2, 3);
  tool.coupling_torque = Vec3(0.1, 0.0, -0.1);
  tool.contacts = 3;
  tool.watchdog = true;
  tool.buttons = 5;
  f.tools = {tool};
  f.divergence = DivergenceEvent{1230, 1220, "rope", "non-finite linear velocity", 0.0, true};
  return f;
}

std::string WholeFrameBytes(const Frame& frame) {
  v1::Frame message;
  BuildFrameMessage(frame, FrameStreamOptions{}, /*filter=*/nullptr, &message);
  return message.SerializeAsString();
}

TEST(FrameFromProtoTest, EncodingTheDecodedFrameGivesTheSameBytes) {
  const Frame original = EveryField();
  const std::string bytes = WholeFrameBytes(original);
  v1::Frame message;
  ASSERT_TRUE(message.ParseFromString(bytes));
  const Frame decoded = FrameFromProto(message);
  EXPECT_EQ(WholeFrameBytes(decoded), bytes);
}

TEST(FrameFromProtoTest, FieldsComeBackAsTheEngineHadThem) {
  const Frame original = EveryField();
  v1::Frame message;
  FrameToProto(original, {}, &message);
  const Frame decoded = FrameFromProto(message);
  EXPECT_EQ(decoded.world, original.world);
  EXPECT_EQ(decoded.tick, original.tick);
  ASSERT_EQ(decoded.bodies.size(), 3u);
  EXPECT_EQ(decoded.bodies[0].pose.position, original.bodies[0].pose.position);
  EXPECT_EQ(decoded.bodies[0].pose.orientation.coeffs(),
            original.bodies[0].pose.orientation.coeffs());
  EXPECT_EQ(decoded.bodies[1].soft_triangles, original.bodies[1].soft_triangles);
  EXPECT_TRUE(decoded.bodies[1].sleeping);
  EXPECT_EQ(decoded.bodies[2].strand_parents, original.bodies[2].strand_parents);
  // Constraint names in the message are resource names; the engine's are ids.
  EXPECT_EQ(message.removed_constraints(0), "worlds/crowd/constraints/hinge");
  EXPECT_EQ(decoded.removed_constraints, original.removed_constraints);
  ASSERT_EQ(decoded.broken_joints.size(), 1u);
  EXPECT_EQ(decoded.broken_joints[0].id, "hinge");
  EXPECT_EQ(decoded.broken_joints[0].torque, 4.5);
  ASSERT_TRUE(decoded.divergence.has_value());
  EXPECT_EQ(decoded.divergence->reason, "non-finite linear velocity");
  EXPECT_EQ(decoded.stats.substeps, 4);
  EXPECT_EQ(decoded.stats.step_ms, 1.5);
}

TEST(FrameFromProtoTest, AFrameWithoutDivergenceHasNone) {
  Frame original = EveryField();
  original.divergence.reset();
  v1::Frame message;
  FrameToProto(original, {}, &message);
  EXPECT_FALSE(FrameFromProto(message).divergence.has_value());
}

}  // namespace
}  // namespace ligature
