// The haptics messages' conversions: every field survives a round trip, and a local model
// that could not have come from a world is refused naming its field.

#include "server/haptics/wire/haptics_proto.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/match.h"

namespace ligature {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

haptics::ToolLocalModel FullModel() {
  haptics::ToolLocalModel m;
  m.tick = 42;
  m.sim_time = 0.42;
  m.dt = 0.01;
  m.gravity = Vec3(0, -9.81, 0);
  m.tool.position = Vec3(0.1, 0.2, 0.3);
  m.tool.orientation = Quat(Eigen::AngleAxisd(0.3, Vec3(1, 2, 3).normalized()));
  m.tool.linear_velocity = Vec3(0.01, -0.02, 0.03);
  m.tool.angular_velocity = Vec3(0.5, 0.0, -0.5);
  m.mass = 0.05;
  m.inertia_local << 2e-6, 0, 0, 0, 3e-6, 1e-7, 0, 1e-7, 4e-6;
  m.center_local = Vec3(0, 0.01, 0);
  m.shapes = {{Shape::Sphere(0.01), {}},
              {Shape::Capsule(0.002, 0.05), {Vec3(0, 0.06, 0), Quat::Identity()}}};
  haptics::ContactPlane p;
  p.point = Vec3(0.1, 0.19, 0.3);
  p.normal = Vec3(0, 1, 0);
  p.gap = -0.001;
  p.compliance = 2e-5;
  p.friction = 0.4;
  p.body = "ground";
  m.planes.push_back(p);
  haptics::BufferModel b;
  b.body = "liver";
  b.vertex_indices = {7, 9};
  b.positions = {Vec3(0.1, 0.15, 0.3), Vec3(0.12, 0.15, 0.3)};
  b.compliance = Eigen::MatrixXd::Identity(6, 6) * 1e-4;
  b.compliance(0, 3) = b.compliance(3, 0) = 2e-5;
  b.anchors = {Vec3(0.1, 0.149, 0.3), Vec3(0.12, 0.1495, 0.301)};
  b.friction = 0.4;
  b.tets = {{0, 1, 0, 1}};
  b.faces = {{1, 0, 1}};
  m.buffers.push_back(b);
  return m;
}

TEST(HapticsProtoTest, LocalModelRoundTripsEveryField) {
  const haptics::ToolLocalModel in = FullModel();
  v1::HapticModel msg;
  LocalModelToProto(in, &msg);
  auto out = LocalModelFromProto(msg);
  ASSERT_TRUE(out.ok()) << out.status();
  const haptics::ToolLocalModel& m = **out;
  EXPECT_EQ(m.tick, in.tick);
  EXPECT_EQ(m.sim_time, in.sim_time);
  EXPECT_EQ(m.dt, in.dt);
  EXPECT_EQ(m.gravity, in.gravity);
  EXPECT_EQ(m.tool.position, in.tool.position);
  EXPECT_TRUE(m.tool.orientation.isApprox(in.tool.orientation, 1e-15));
  EXPECT_EQ(m.tool.linear_velocity, in.tool.linear_velocity);
  EXPECT_EQ(m.tool.angular_velocity, in.tool.angular_velocity);
  EXPECT_EQ(m.mass, in.mass);
  EXPECT_EQ(m.inertia_local, in.inertia_local);
  EXPECT_EQ(m.center_local, in.center_local);
  ASSERT_EQ(m.shapes.size(), 2u);
  EXPECT_EQ(m.shapes[1].shape.type, ShapeType::kCapsule);
  EXPECT_EQ(m.shapes[1].shape.radius, 0.002);
  EXPECT_EQ(m.shapes[1].shape.half_length, 0.05);
  EXPECT_EQ(m.shapes[1].local.position, Vec3(0, 0.06, 0));
  ASSERT_EQ(m.planes.size(), 1u);
  EXPECT_EQ(m.planes[0].point, in.planes[0].point);
  EXPECT_EQ(m.planes[0].normal, in.planes[0].normal);
  EXPECT_EQ(m.planes[0].gap, in.planes[0].gap);
  EXPECT_EQ(m.planes[0].compliance, in.planes[0].compliance);
  EXPECT_EQ(m.planes[0].friction, in.planes[0].friction);
  EXPECT_EQ(m.planes[0].body, "ground");
  ASSERT_EQ(m.buffers.size(), 1u);
  EXPECT_EQ(m.buffers[0].body, "liver");
  EXPECT_EQ(m.buffers[0].vertex_indices, in.buffers[0].vertex_indices);
  EXPECT_EQ(m.buffers[0].positions, in.buffers[0].positions);
  EXPECT_EQ(m.buffers[0].compliance, in.buffers[0].compliance);
  EXPECT_EQ(m.buffers[0].anchors, in.buffers[0].anchors);
  EXPECT_EQ(m.buffers[0].friction, in.buffers[0].friction);
  EXPECT_EQ(m.buffers[0].tets, in.buffers[0].tets);
  EXPECT_EQ(m.buffers[0].faces, in.buffers[0].faces);
  EXPECT_FALSE(m.tool_removed);
}

TEST(HapticsProtoTest, ARemovedToolNeedsNothingElse) {
  v1::HapticModel msg;
  msg.set_tick(3);
  msg.set_tool_removed(true);
  auto out = LocalModelFromProto(msg);
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_TRUE((*out)->tool_removed);
  EXPECT_EQ((*out)->tick, 3u);
}

TEST(HapticsProtoTest, BadModelsAreRefusedNamingTheField) {
  struct Case {
    std::string field;
    std::function<void(v1::HapticModel*)> spoil;
  };
  const std::vector<Case> cases = {
      {"dt", [](v1::HapticModel* m) { m->set_dt(0); }},
      {"sim_time", [](v1::HapticModel* m) { m->set_sim_time(kNaN); }},
      {"gravity", [](v1::HapticModel* m) { m->mutable_gravity()->set_y(kNaN); }},
      {"tool_pose",
       [](v1::HapticModel* m) { m->mutable_tool_pose()->mutable_position()->set_x(kNaN); }},
      {"tool_linear_velocity",
       [](v1::HapticModel* m) { m->mutable_tool_linear_velocity()->set_z(INFINITY); }},
      {"tool_angular_velocity",
       [](v1::HapticModel* m) { m->mutable_tool_angular_velocity()->set_x(kNaN); }},
      {"tool_mass", [](v1::HapticModel* m) { m->set_tool_mass(-1); }},
      {"tool_inertia", [](v1::HapticModel* m) { m->mutable_tool_inertia()->RemoveLast(); }},
      {"tool_inertia", [](v1::HapticModel* m) { m->set_tool_inertia(0, -1); }},
      {"tool_center_local",
       [](v1::HapticModel* m) { m->mutable_tool_center_local()->set_y(kNaN); }},
      {"tool_shapes[1].type", [](v1::HapticModel* m) { m->mutable_tool_shapes(1)->set_type(7); }},
      {"tool_shapes[0]", [](v1::HapticModel* m) { m->mutable_tool_shapes(0)->set_radius(-0.01); }},
      {"tool_shapes[1].local",
       [](v1::HapticModel* m) {
         m->mutable_tool_shapes(1)->mutable_local()->mutable_position()->set_x(kNaN);
       }},
      {"planes[0].point",
       [](v1::HapticModel* m) { m->mutable_planes(0)->mutable_point()->set_x(kNaN); }},
      {"planes[0].normal",
       [](v1::HapticModel* m) { m->mutable_planes(0)->mutable_normal()->Clear(); }},
      {"planes[0].gap", [](v1::HapticModel* m) { m->mutable_planes(0)->set_gap(kNaN); }},
      {"planes[0].compliance",
       [](v1::HapticModel* m) { m->mutable_planes(0)->set_compliance(-1e-5); }},
      {"planes[0].friction", [](v1::HapticModel* m) { m->mutable_planes(0)->set_friction(-0.1); }},
      {"planes[0].friction",
       [](v1::HapticModel* m) { m->mutable_planes(0)->set_friction(INFINITY); }},
      {"buffers[0]",
       [](v1::HapticModel* m) { m->mutable_buffers(0)->mutable_compliance()->RemoveLast(); }},
      {"buffers[0]", [](v1::HapticModel* m) { m->mutable_buffers(0)->add_tets(0); }},
      {"buffers[0].vertex_indices",
       [](v1::HapticModel* m) { m->mutable_buffers(0)->set_vertex_indices(0, -3); }},
      {"buffers[0].positions",
       [](v1::HapticModel* m) { m->mutable_buffers(0)->mutable_positions(1)->set_z(kNaN); }},
      {"buffers[0].compliance",
       [](v1::HapticModel* m) { m->mutable_buffers(0)->set_compliance(5, kNaN); }},
      {"buffers[0].tets", [](v1::HapticModel* m) { m->mutable_buffers(0)->set_tets(2, 2); }},
      {"buffers[0]", [](v1::HapticModel* m) { m->mutable_buffers(0)->add_faces(0); }},
      {"buffers[0].faces", [](v1::HapticModel* m) { m->mutable_buffers(0)->set_faces(1, -1); }},
      {"buffers[0].anchors",
       [](v1::HapticModel* m) { m->mutable_buffers(0)->mutable_anchors()->RemoveLast(); }},
      {"buffers[0].anchors",
       [](v1::HapticModel* m) { m->mutable_buffers(0)->mutable_anchors(0)->set_y(INFINITY); }},
      {"buffers[0].friction",
       [](v1::HapticModel* m) { m->mutable_buffers(0)->set_friction(-0.2); }},
      {"buffers[0].friction",
       [](v1::HapticModel* m) { m->mutable_buffers(0)->set_friction(kNaN); }},
  };
  for (const Case& c : cases) {
    v1::HapticModel msg;
    LocalModelToProto(FullModel(), &msg);
    c.spoil(&msg);
    auto out = LocalModelFromProto(msg);
    ASSERT_FALSE(out.ok()) << c.field;
    EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << c.field;
    EXPECT_TRUE(absl::StartsWith(out.status().message(), c.field + ":")) << c.field << " -> "
                                                                  << out.status().message();
  }
}

TEST(HapticsProtoTest, ForcesPosesAndParametersRoundTrip) {
  haptics::HapticReply r;
  r.sequence = 77;
  r.client_time = 1.25;
  r.force = Vec3(1, -2, 3);
  r.torque = Vec3(-0.1, 0.2, 0.3);
  r.contacts = 4;
  r.clamped = true;
  r.rate_limited = true;
  r.watchdog = true;
  r.rejected_pose = true;
  r.out_of_order = true;
  r.stale_model = true;
  r.model_tick = 9;
  v1::HapticForce f;
  HapticReplyToProto(r, &f);
  const haptics::HapticReply back = HapticReplyFromProto(f);
  EXPECT_EQ(back.sequence, r.sequence);
  EXPECT_EQ(back.client_time, r.client_time);
  EXPECT_EQ(back.force, r.force);
  EXPECT_EQ(back.torque, r.torque);
  EXPECT_EQ(back.contacts, r.contacts);
  EXPECT_TRUE(back.clamped && back.rate_limited && back.watchdog && back.rejected_pose &&
              back.out_of_order && back.stale_model);
  EXPECT_EQ(back.model_tick, r.model_tick);

  haptics::DevicePose pose;
  pose.sequence = 5;
  pose.client_time = 0.005;
  pose.position = Vec3(0.1, 0.2, 0.3);
  pose.orientation = Quat(Eigen::AngleAxisd(0.7, Vec3::UnitZ()));
  pose.buttons = 3;
  v1::HapticPose p;
  DevicePoseToProto(pose, &p);
  const haptics::DevicePose pose_back = DevicePoseFromProto(p);
  EXPECT_EQ(pose_back.sequence, 5u);
  EXPECT_EQ(pose_back.client_time, 0.005);
  EXPECT_EQ(pose_back.position, pose.position);
  EXPECT_TRUE(pose_back.orientation.isApprox(pose.orientation, 1e-15));
  EXPECT_EQ(pose_back.buttons, 3u);
  // An all-zero quaternion (an unset field) is the identity.
  p.clear_orientation();
  EXPECT_TRUE(DevicePoseFromProto(p).orientation.isApprox(Quat::Identity()));

  auto params = haptics::ResolveParams(haptics::HapticParams{}, 0.05, 1e-6);
  ASSERT_TRUE(params.ok());
  v1::HapticOpen open;
  HapticParamsToProto(*params, &open);
  const haptics::HapticParams params_back = HapticParamsFromProto(open);
  EXPECT_EQ(params_back.coupling.stiffness, params->coupling.stiffness);
  EXPECT_EQ(params_back.coupling.damping, params->coupling.damping);
  EXPECT_EQ(params_back.limits.force_limit, params->limits.force_limit);
  EXPECT_EQ(params_back.limits.force_rate_limit, params->limits.force_rate_limit);
  EXPECT_NEAR(params_back.limits.watchdog_timeout, params->limits.watchdog_timeout, 1e-15);
}

}  // namespace
}  // namespace ligature
