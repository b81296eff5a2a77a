#include "server/scene/scene_proto.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "google/protobuf/util/message_differencer.h"
#include "server/model/rigid/convex_hull_builder.h"
#include "server/model/soft/tet_mesh.h"

namespace ligature {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// A valid scene with every kind of body and a constraint.
v1::Scene ValidScene() {
  v1::Scene s;
  s.mutable_settings()->set_rate_hz(120.0);
  v1::Body* ground = s.add_bodies();
  ground->set_id("ground");
  ground->set_kind(v1::BODY_KIND_STATIC);
  ground->mutable_shape()->mutable_plane();
  v1::Body* ball = s.add_bodies();
  ball->set_id("ball");
  ball->mutable_shape()->mutable_sphere()->set_radius(0.5);
  ball->mutable_pose()->mutable_position()->set_y(2.0);
  v1::Body* box = s.add_bodies();
  box->set_id("box");
  auto* h = box->mutable_shape()->mutable_box()->mutable_half_extents();
  h->set_x(0.1);
  h->set_y(0.2);
  h->set_z(0.3);
  v1::Body* cap = s.add_bodies();
  cap->set_id("cap");
  cap->mutable_shape()->mutable_capsule()->set_radius(0.1);
  cap->mutable_shape()->mutable_capsule()->set_half_length(0.4);
  v1::Constraint* c = s.add_constraints();
  c->set_id("pin");
  c->mutable_point()->set_body_a("ball");
  return s;
}

// Applies `mutate` to a valid scene and expects INVALID_ARGUMENT naming `field`.
void ExpectInvalid(const std::function<void(v1::Scene&)>& mutate, const std::string& field) {
  v1::Scene s = ValidScene();
  ASSERT_TRUE(SceneFromProto(s).ok());
  mutate(s);
  auto out = SceneFromProto(s);
  EXPECT_EQ(out.status().code(), absl::StatusCode::kInvalidArgument) << field;
  EXPECT_THAT(std::string(out.status().message()), StartsWith(field + ":")) << out.status();
}

// A valid scene converts field by field.
TEST(SceneFromProtoTest, ValidSceneConverts) {
  auto scene = SceneFromProto(ValidScene());
  ASSERT_TRUE(scene.ok()) << scene.status();
  ASSERT_EQ(scene->bodies.size(), 4u);
  EXPECT_EQ(scene->bodies[0].kind, BodyKind::kStatic);
  EXPECT_EQ(scene->bodies[0].rigid()->shape.type, ShapeType::kPlane);
  EXPECT_EQ(scene->bodies[1].kind, BodyKind::kDynamic);  // unspecified means dynamic
  EXPECT_EQ(scene->bodies[1].rigid()->shape.radius, 0.5);
  EXPECT_EQ(scene->bodies[1].rigid()->pose.position, Vec3(0, 2, 0));
  EXPECT_EQ(scene->bodies[2].rigid()->shape.half_extents, Vec3(0.1, 0.2, 0.3));
  EXPECT_EQ(scene->bodies[3].rigid()->shape.half_length, 0.4);
  ASSERT_EQ(scene->constraints.size(), 1u);
  EXPECT_EQ(scene->constraints[0].params.kind, JointKind::kBall);
  EXPECT_EQ(scene->constraints[0].body_a, "ball");
  EXPECT_TRUE(scene->constraints[0].body_b.empty());
  EXPECT_EQ(scene->settings.rate_hz, 120.0);
}

// Non-finite numbers are refused with the path of the component.
TEST(SceneFromProtoTest, NonFiniteValuesNameTheirField) {
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_bodies(1)->mutable_pose()->mutable_position()->set_y(kNaN); },
      "bodies[1].pose.position.y");
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(2)->mutable_linear_velocity()->set_x(kInf); },
                "bodies[2].linear_velocity.x");
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(3)->mutable_angular_velocity()->set_z(-kInf); },
                "bodies[3].angular_velocity.z");
  ExpectInvalid([](v1::Scene& s) { s.mutable_settings()->mutable_gravity()->set_x(kNaN); },
                "settings.gravity.x");
  ExpectInvalid(
      [](v1::Scene& s) {
        s.mutable_constraints(0)->mutable_point()->mutable_anchor_b()->set_z(kNaN);
      },
      "constraints[0].point.anchor_b.z");
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(1)->mutable_material()->set_mass(kNaN); },
                "bodies[1].material.mass");
}

// Shape sizes must be positive.
TEST(SceneFromProtoTest, ShapeSizesNameTheirField) {
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_bodies(1)->mutable_shape()->mutable_sphere()->set_radius(0.0); },
      "bodies[1].shape.sphere.radius");
  ExpectInvalid(
      [](v1::Scene& s) {
        s.mutable_bodies(1)->mutable_shape()->mutable_sphere()->set_radius(-1.0);
      },
      "bodies[1].shape.sphere.radius");
  ExpectInvalid(
      [](v1::Scene& s) {
        s.mutable_bodies(2)->mutable_shape()->mutable_box()->mutable_half_extents()->set_z(0.0);
      },
      "bodies[2].shape.box.half_extents.z");
  ExpectInvalid(
      [](v1::Scene& s) {
        s.mutable_bodies(3)->mutable_shape()->mutable_capsule()->set_radius(0.0);
      },
      "bodies[3].shape.capsule.radius");
  ExpectInvalid(
      [](v1::Scene& s) {
        s.mutable_bodies(3)->mutable_shape()->mutable_capsule()->set_half_length(0.0);
      },
      "bodies[3].shape.capsule.half_length");
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(1)->clear_shape(); }, "bodies[1].shape");
}

// Orientations must be unit quaternions (all zero meaning identity).
TEST(SceneFromProtoTest, BadQuaternionNamesItsField) {
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_bodies(1)->mutable_pose()->mutable_orientation()->set_w(2.0); },
      "bodies[1].pose.orientation");
  ExpectInvalid(
      [](v1::Scene& s) {
        auto* q = s.mutable_bodies(2)->mutable_pose()->mutable_orientation();
        q->set_x(0.5);
        q->set_w(0.5);
      },
      "bodies[2].pose.orientation");
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_bodies(1)->mutable_pose()->mutable_orientation()->set_w(kNaN); },
      "bodies[1].pose.orientation");
}

// A plane must be static; kinds and materials are checked.
TEST(SceneFromProtoTest, KindAndMaterialNameTheirField) {
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(0)->set_kind(v1::BODY_KIND_DYNAMIC); },
                "bodies[0].kind");
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(0)->set_kind(v1::BODY_KIND_KINEMATIC); },
                "bodies[0].kind");
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(1)->set_kind(static_cast<v1::BodyKind>(42)); },
                "bodies[1].kind");
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(1)->mutable_material()->set_density(0.0); },
                "bodies[1].material.density");
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(1)->mutable_material()->set_friction(-0.1); },
                "bodies[1].material.friction");
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(1)->mutable_material()->set_restitution(1.5); },
                "bodies[1].material.restitution");
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(1)->mutable_material()->set_mass(-2.0); },
                "bodies[1].material.mass");
}

// Rolling and spinning resistance are lever arms: finite and >= 0, each named on error.
TEST(SceneFromProtoTest, RollingAndSpinningFrictionNameTheirField) {
  for (const double bad : {-1e-3, kNaN, kInf, -kInf}) {
    ExpectInvalid(
        [&](v1::Scene& s) { s.mutable_bodies(0)->mutable_material()->set_rolling_friction(bad); },
        "bodies[0].material.rolling_friction");
    ExpectInvalid(
        [&](v1::Scene& s) { s.mutable_bodies(2)->mutable_material()->set_spinning_friction(bad); },
        "bodies[2].material.spinning_friction");
  }
  // Zero (none) and positive values are taken as given.
  v1::Scene s = ValidScene();
  s.mutable_bodies(1)->mutable_material()->set_rolling_friction(0.0);
  s.mutable_bodies(1)->mutable_material()->set_spinning_friction(0.004);
  s.mutable_bodies(2)->mutable_material()->set_rolling_friction(0.02);
  auto scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok()) << scene.status();
  EXPECT_EQ(scene->bodies[1].rigid()->material.rolling_friction, 0.0);
  EXPECT_EQ(scene->bodies[1].rigid()->material.spinning_friction, 0.004);
  EXPECT_EQ(scene->bodies[2].rigid()->material.rolling_friction, 0.02);
  EXPECT_EQ(scene->bodies[2].rigid()->material.spinning_friction, 0.0);
}

// World settings ranges.
TEST(SceneFromProtoTest, BadSettingsNameTheirField) {
  ExpectInvalid([](v1::Scene& s) { s.mutable_settings()->set_rate_hz(5000.0); },
                "settings.rate_hz");
  ExpectInvalid([](v1::Scene& s) { s.mutable_settings()->set_rate_hz(0.5); }, "settings.rate_hz");
  ExpectInvalid([](v1::Scene& s) { s.mutable_settings()->set_rate_hz(-60.0); }, "settings.rate_hz");
  ExpectInvalid([](v1::Scene& s) { s.mutable_settings()->set_rate_hz(kNaN); }, "settings.rate_hz");
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_settings()->mutable_solver()->set_max_iterations(-1); },
      "settings.solver.max_iterations");
  ExpectInvalid([](v1::Scene& s) { s.mutable_settings()->mutable_solver()->set_tolerance(-1e-3); },
                "settings.solver.tolerance");
  ExpectInvalid([](v1::Scene& s) { s.mutable_settings()->set_contact_margin(-0.01); },
                "settings.contact_margin");
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_settings()->mutable_sleep()->set_linear_speed(-1.0); },
      "settings.sleep.linear_speed");
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_settings()->mutable_sleep()->set_angular_speed(kNaN); },
      "settings.sleep.angular_speed");
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_settings()->mutable_sleep()->set_time_to_sleep(1e9); },
      "settings.sleep.time_to_sleep");
}

// Sleep settings: off by default with the documented thresholds; what is set comes back.
TEST(SceneFromProtoTest, SleepSettingsRoundTrip) {
  v1::Scene s;
  auto scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok());
  EXPECT_FALSE(scene->settings.sleep.enabled);
  EXPECT_EQ(scene->settings.sleep.linear_speed, 0.05);
  EXPECT_EQ(scene->settings.sleep.angular_speed, 0.05);
  EXPECT_EQ(scene->settings.sleep.time_to_sleep, 0.5);
  EXPECT_FALSE(SceneToProto(*scene).settings().has_sleep());
  v1::SleepSettings& sleep = *s.mutable_settings()->mutable_sleep();
  sleep.set_enabled(true);
  sleep.set_time_to_sleep(0.0);
  sleep.set_linear_speed(0.2);
  scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok());
  EXPECT_TRUE(scene->settings.sleep.enabled);
  EXPECT_EQ(scene->settings.sleep.time_to_sleep, 0.0);
  EXPECT_EQ(scene->settings.sleep.linear_speed, 0.2);
  const v1::SleepSettings back = SceneToProto(*scene).settings().sleep();
  EXPECT_TRUE(back.enabled());
  EXPECT_EQ(back.time_to_sleep(), 0.0);
  EXPECT_EQ(back.linear_speed(), 0.2);
  EXPECT_EQ(back.angular_speed(), 0.05);
}

// Ids follow [a-z0-9][a-z0-9_-]{0,62}; a constraint needs a kind and a body_a.
TEST(SceneFromProtoTest, BadIdsNameTheirField) {
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(1)->set_id("Ball"); }, "bodies[1].id");
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(1)->set_id("a b"); }, "bodies[1].id");
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(1)->set_id("-ball"); }, "bodies[1].id");
  ExpectInvalid([](v1::Scene& s) { s.mutable_bodies(1)->set_id(std::string(64, 'a')); },
                "bodies[1].id");
  ExpectInvalid([](v1::Scene& s) { s.mutable_constraints(0)->set_id("a/b"); }, "constraints[0].id");
  ExpectInvalid([](v1::Scene& s) { s.mutable_constraints(0)->mutable_point()->set_body_a(""); },
                "constraints[0].point.body_a");
  ExpectInvalid([](v1::Scene& s) { s.mutable_constraints(0)->mutable_point()->set_body_b("B"); },
                "constraints[0].point.body_b");
  ExpectInvalid([](v1::Scene& s) { s.mutable_constraints(0)->clear_point(); }, "constraints[0]");
  // The longest allowed id is fine.
  v1::Scene s = ValidScene();
  s.mutable_bodies(1)->set_id(std::string(63, 'a'));
  s.mutable_constraints(0)->mutable_point()->set_body_a(std::string(63, 'a'));
  EXPECT_TRUE(SceneFromProto(s).ok());
}

// Unset fields take the documented defaults.
TEST(SceneFromProtoTest, Defaults) {
  v1::Scene s;
  s.add_bodies()->mutable_shape()->mutable_sphere()->set_radius(1.0);
  auto scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok());
  const WorldSettings& w = scene->settings;
  EXPECT_EQ(w.rate_hz, 60.0);
  EXPECT_EQ(w.gravity, Vec3(0, -9.81, 0));
  EXPECT_FALSE(w.paused);
  EXPECT_EQ(w.solver.max_iterations, 20);
  EXPECT_EQ(w.solver.tolerance, 1e-7);
  EXPECT_TRUE(w.solver.warm_start);
  EXPECT_EQ(w.contact_margin, 0.02);
  const BodyDesc& b = scene->bodies[0];
  EXPECT_TRUE(b.id.empty());
  EXPECT_EQ(b.rigid()->material.density, 1000.0);
  EXPECT_EQ(b.rigid()->material.mass, 0.0);
  EXPECT_EQ(b.rigid()->material.friction, 0.5);
  EXPECT_EQ(b.rigid()->material.restitution, 0.0);
  EXPECT_EQ(b.rigid()->material.rolling_friction, 0.0);
  EXPECT_EQ(b.rigid()->material.spinning_friction, 0.0);
  EXPECT_TRUE(b.rigid()->pose.orientation.isApprox(Quat::Identity()));  // all-zero quaternion
}

// Optional fields set to zero are honoured, not replaced by defaults: friction 0 is a
// frictionless body, gravity 0 is weightlessness, warm_start false and tolerance 0 stick.
TEST(SceneFromProtoTest, ExplicitZerosAreKept) {
  v1::Scene s;
  v1::Body* b = s.add_bodies();
  b->mutable_shape()->mutable_sphere()->set_radius(1.0);
  b->mutable_material()->set_friction(0.0);
  s.mutable_settings()->mutable_gravity();
  s.mutable_settings()->mutable_solver()->set_warm_start(false);
  s.mutable_settings()->mutable_solver()->set_tolerance(0.0);
  s.mutable_settings()->set_contact_margin(0.0);
  auto scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok());
  EXPECT_EQ(scene->bodies[0].rigid()->material.friction, 0.0);
  EXPECT_EQ(scene->settings.gravity, Vec3::Zero());
  EXPECT_FALSE(scene->settings.solver.warm_start);
  EXPECT_EQ(scene->settings.solver.tolerance, 0.0);
  EXPECT_EQ(scene->settings.contact_margin, 0.0);
  // And they survive the way back.
  const v1::Scene back = SceneToProto(*scene);
  EXPECT_TRUE(back.bodies(0).material().has_friction());
  EXPECT_EQ(back.bodies(0).material().friction(), 0.0);
  EXPECT_TRUE(back.settings().solver().has_warm_start());
  EXPECT_FALSE(back.settings().solver().warm_start());
}

// A fully specified scene, in the canonical form SceneToProto writes.
v1::Scene FullScene() {
  v1::Scene s;
  v1::WorldSettings* w = s.mutable_settings();
  w->set_rate_hz(240.0);
  w->mutable_gravity()->set_x(0.5);
  w->mutable_gravity()->set_y(-3.7);
  w->mutable_gravity()->set_z(0.25);
  w->set_paused(true);
  w->mutable_solver()->set_kind(v1::SOLVER_KIND_GAUSS_SEIDEL);
  w->mutable_solver()->set_max_iterations(33);
  w->mutable_solver()->set_tolerance(1e-9);
  w->mutable_solver()->set_warm_start(false);
  w->mutable_solver()->set_time_budget_us(2500.0);
  w->mutable_solver()->set_position_share(0.45);
  w->set_contact_margin(0.05);

  v1::Body* b = s.add_bodies();
  b->set_id("crate");
  b->set_kind(v1::BODY_KIND_KINEMATIC);
  auto* h = b->mutable_shape()->mutable_box()->mutable_half_extents();
  h->set_x(0.25);
  h->set_y(0.5);
  h->set_z(0.75);
  b->mutable_material()->set_density(450.0);
  b->mutable_material()->set_mass(12.0);
  b->mutable_material()->set_friction(0.0);
  b->mutable_material()->set_restitution(0.3);
  auto* p = b->mutable_pose();
  p->mutable_position()->set_x(1.0);
  p->mutable_position()->set_y(-2.0);
  p->mutable_position()->set_z(3.5);
  p->mutable_orientation()->set_x(0.0);
  p->mutable_orientation()->set_y(0.6);
  p->mutable_orientation()->set_z(0.0);
  p->mutable_orientation()->set_w(0.8);
  b->mutable_linear_velocity()->set_x(0.1);
  b->mutable_angular_velocity()->set_y(-0.2);

  v1::Body* g = s.add_bodies();
  g->set_id("floor");
  g->set_kind(v1::BODY_KIND_STATIC);
  g->mutable_shape()->mutable_plane();
  g->mutable_material()->set_density(1000.0);
  g->mutable_material()->set_mass(0.0);
  g->mutable_material()->set_friction(0.9);
  g->mutable_material()->set_restitution(0.0);
  g->mutable_pose()->mutable_orientation()->set_w(1.0);
  g->mutable_pose()->mutable_position();
  g->mutable_linear_velocity();
  g->mutable_angular_velocity();

  v1::Body* c = s.add_bodies();
  c->set_id("rod");
  c->set_kind(v1::BODY_KIND_DYNAMIC);
  c->mutable_shape()->mutable_capsule()->set_radius(0.05);
  c->mutable_shape()->mutable_capsule()->set_half_length(0.6);
  c->mutable_material()->set_density(7800.0);
  c->mutable_material()->set_mass(0.0);
  c->mutable_material()->set_friction(0.4);
  c->mutable_material()->set_restitution(1.0);
  c->mutable_material()->set_rolling_friction(0.003);
  c->mutable_material()->set_spinning_friction(0.0015);
  c->mutable_pose()->mutable_orientation()->set_w(1.0);
  c->mutable_pose()->mutable_position()->set_y(4.0);
  c->mutable_linear_velocity();
  c->mutable_angular_velocity();

  // A compound: a seat and a leg, each with a full pose.
  v1::Body* stool = s.add_bodies();
  stool->set_id("stool");
  stool->set_kind(v1::BODY_KIND_DYNAMIC);
  v1::CompoundChild* seat = stool->mutable_shape()->mutable_compound()->add_children();
  seat->mutable_shape()->mutable_capsule()->set_radius(0.2);
  seat->mutable_shape()->mutable_capsule()->set_half_length(0.05);
  seat->mutable_pose()->mutable_position()->set_y(0.5);
  seat->mutable_pose()->mutable_orientation()->set_x(0.6);
  seat->mutable_pose()->mutable_orientation()->set_w(0.8);
  v1::CompoundChild* leg = stool->mutable_shape()->mutable_compound()->add_children();
  auto* leg_h = leg->mutable_shape()->mutable_box()->mutable_half_extents();
  leg_h->set_x(0.02);
  leg_h->set_y(0.25);
  leg_h->set_z(0.02);
  leg->mutable_pose()->mutable_position()->set_x(0.1);
  leg->mutable_pose()->mutable_orientation()->set_w(1.0);
  stool->mutable_material()->set_density(600.0);
  stool->mutable_material()->set_mass(0.0);
  stool->mutable_material()->set_friction(0.5);
  stool->mutable_material()->set_restitution(0.0);
  stool->mutable_pose()->mutable_position()->set_x(-2.0);
  stool->mutable_pose()->mutable_orientation()->set_w(1.0);
  stool->mutable_linear_velocity();
  stool->mutable_angular_velocity();

  v1::Constraint* k = s.add_constraints();
  k->set_id("hinge");
  k->mutable_point()->set_body_a("rod");
  k->mutable_point()->mutable_anchor_a()->set_y(0.6);
  k->mutable_point()->set_body_b("crate");
  k->mutable_point()->mutable_anchor_b()->set_z(-0.75);
  k->set_collide_connected(true);
  // Collision layers: body 0 on layers 1 and 2 colliding with 0 and 2; body 3's second
  // child on layer 1 only, colliding with layer 1 only.
  s.mutable_bodies(0)->mutable_collision()->set_layers(6);
  s.mutable_bodies(0)->mutable_collision()->set_mask(5);
  v1::CollisionFilter* child = s.mutable_bodies(3)
                                    ->mutable_shape()
                                    ->mutable_compound()
                                    ->mutable_children(1)
                                    ->mutable_collision();
  child->set_layers(2);
  child->set_mask(2);
  return s;
}

// SceneToProto(SceneFromProto(x)) == x for a scene that sets every field.
TEST(SceneProtoRoundTripTest, KeepsValues) {
  const v1::Scene x = FullScene();
  auto desc = SceneFromProto(x);
  ASSERT_TRUE(desc.ok()) << desc.status();
  const v1::Scene back = SceneToProto(*desc);
  google::protobuf::util::MessageDifferencer diff;
  std::string report;
  diff.ReportDifferencesToString(&report);
  diff.set_float_comparison(google::protobuf::util::MessageDifferencer::APPROXIMATE);
  EXPECT_TRUE(diff.Compare(x, back)) << report;
  // Spot checks on the engine side.
  EXPECT_EQ(desc->bodies[0].rigid()->material.mass, 12.0);
  EXPECT_EQ(desc->bodies[2].rigid()->material.rolling_friction, 0.003);
  EXPECT_EQ(desc->bodies[2].rigid()->material.spinning_friction, 0.0015);
  // Bodies without them export none (unset reads back as 0).
  EXPECT_FALSE(back.bodies(0).material().has_rolling_friction());
  EXPECT_FALSE(back.bodies(0).material().has_spinning_friction());
  EXPECT_TRUE(desc->bodies[0].rigid()->pose.orientation.isApprox(Quat(0.8, 0.0, 0.6, 0.0)));
  EXPECT_EQ(desc->settings.solver.max_iterations, 33);
  EXPECT_EQ(desc->settings.solver.time_budget_us, 2500.0);
  EXPECT_EQ(desc->settings.solver.position_share, 0.45);
  EXPECT_TRUE(desc->settings.paused);
  ASSERT_EQ(desc->bodies[3].rigid()->children.size(), 2u);
  EXPECT_EQ(desc->bodies[3].rigid()->children[0].shape.type, ShapeType::kCapsule);
  EXPECT_EQ(desc->bodies[3].rigid()->children[0].local.position, Vec3(0, 0.5, 0));
  EXPECT_TRUE(
      desc->bodies[3].rigid()->children[0].local.orientation.isApprox(Quat(0.8, 0.6, 0, 0)));
  EXPECT_EQ(desc->bodies[3].rigid()->children[1].shape.half_extents, Vec3(0.02, 0.25, 0.02));
  EXPECT_EQ(desc->bodies[0].rigid()->collision, (CollisionFilter{6, 5}));
  EXPECT_EQ(desc->bodies[3].rigid()->children[1].filter, (CollisionFilter{2, 2}));
  EXPECT_FALSE(desc->bodies[3].rigid()->children[0].filter.has_value());
  EXPECT_TRUE(desc->constraints[0].collide_connected);
}

// The individual converters agree with the scene converter.
TEST(SceneProtoRoundTripTest, BodyAndConstraintConverters) {
  const v1::Scene x = FullScene();
  auto body = BodyFromProto(x.bodies(0), "body");
  ASSERT_TRUE(body.ok());
  google::protobuf::util::MessageDifferencer diff;
  diff.set_float_comparison(google::protobuf::util::MessageDifferencer::APPROXIMATE);
  EXPECT_TRUE(diff.Compare(BodyToProto(*body), x.bodies(0)));
  auto c = ConstraintFromProto(x.constraints(0), "constraint");
  ASSERT_TRUE(c.ok());
  EXPECT_TRUE(diff.Compare(ConstraintToProto(*c), x.constraints(0)));
  // Field paths are relative to the given prefix.
  v1::Body bad = x.bodies(0);
  bad.mutable_pose()->mutable_position()->set_x(kNaN);
  EXPECT_THAT(std::string(BodyFromProto(bad, "body").status().message()),
              StartsWith("body.pose.position.x:"));
}

// A rod, a soft body and a strand keep their layers and masks through the proto and back;
// the default filter is left unset; none of them can be a sensor.
TEST(SceneProtoRoundTripTest, DeformableBodiesHaveLayers) {
  const CollisionFilter filter{6, 5};
  std::vector<BodyDesc> bodies(3);
  RodDesc& rod = bodies[0].body.emplace<RodDesc>();
  rod.points = {Vec3::Zero(), Vec3::UnitX()};
  SoftBodyDesc& soft = bodies[1].body.emplace<SoftBodyDesc>();
  soft.mesh = MakeBoxMesh(Vec3::Constant(0.1), 1, 1, 1);
  StrandBodyDesc& strand = bodies[2].body.emplace<StrandBodyDesc>();
  strand.strand.points = {Vec3::Zero(), Vec3::UnitY()};
  for (BodyDesc& b : bodies) {
    const v1::Body plain = BodyToProto(b);
    EXPECT_FALSE(plain.has_collision());
    if (b.rod()) b.rod()->collision = filter;
    if (b.soft()) b.soft()->collision = filter;
    if (b.strand()) b.strand()->collision = filter;
    v1::Body layered = BodyToProto(b);
    EXPECT_EQ(layered.collision().layers(), 6u);
    EXPECT_EQ(layered.collision().mask(), 5u);
    auto back = BodyFromProto(layered, "body");
    ASSERT_TRUE(back.ok()) << back.status();
    const CollisionFilter& got = back->rod()    ? back->rod()->collision
                                 : back->soft() ? back->soft()->collision
                                                : back->strand()->collision;
    EXPECT_EQ(got, filter);
    layered.mutable_collision()->set_sensor(true);
    const absl::Status s = BodyFromProto(layered, "body").status();
    EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(s.message()), StartsWith("body.collision.sensor:"));
  }
}

// ---------------------------------------------------------------------------------------
// Compound shapes, solver settings and value ranges.

// Turns body 1 of the valid scene into a compound of `n` unit spheres along x.
v1::Compound* MakeCompound(v1::Scene& s, int n) {
  v1::Compound* compound = s.mutable_bodies(1)->mutable_shape()->mutable_compound();
  for (int i = 0; i < n; ++i) {
    v1::CompoundChild* child = compound->add_children();
    child->mutable_shape()->mutable_sphere()->set_radius(0.25);
    child->mutable_pose()->mutable_position()->set_x(0.5 * i);
  }
  return compound;
}

// A compound converts to children with their shapes and poses, and no single shape.
TEST(SceneFromProtoTest, CompoundConverts) {
  v1::Scene s = ValidScene();
  v1::Compound* compound = MakeCompound(s, 2);
  auto* box = compound->mutable_children(1)->mutable_shape()->mutable_box()->mutable_half_extents();
  box->set_x(0.1);
  box->set_y(0.2);
  box->set_z(0.3);
  compound->mutable_children(1)->mutable_pose()->mutable_orientation()->set_z(1.0);
  auto scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok()) << scene.status();
  const BodyDesc& b = scene->bodies[1];
  ASSERT_EQ(b.rigid()->children.size(), 2u);
  EXPECT_EQ(b.rigid()->children[0].shape.type, ShapeType::kSphere);
  EXPECT_EQ(b.rigid()->children[0].shape.radius, 0.25);
  EXPECT_EQ(b.rigid()->children[0].local.position, Vec3::Zero());
  EXPECT_EQ(b.rigid()->children[1].shape.type, ShapeType::kBox);
  EXPECT_EQ(b.rigid()->children[1].shape.half_extents, Vec3(0.1, 0.2, 0.3));
  EXPECT_EQ(b.rigid()->children[1].local.position, Vec3(0.5, 0, 0));
  EXPECT_TRUE(b.rigid()->children[1].local.orientation.isApprox(Quat(0, 0, 0, 1)));
  EXPECT_EQ(b.rigid()->pose.position, Vec3(0, 2, 0));
}

// A compound holds 1 to 64 primitive children: no planes, no nesting, each valid.
TEST(SceneFromProtoTest, BadCompoundNamesItsField) {
  ExpectInvalid(
      [](v1::Scene& s) {
        MakeCompound(s, 3)->mutable_children(2)->mutable_shape()->mutable_plane();
      },
      "bodies[1].shape.compound.children[2].shape.plane");
  ExpectInvalid(
      [](v1::Scene& s) {
        MakeCompound(s, 1)->mutable_children(0)->mutable_shape()->mutable_plane();
      },
      "bodies[1].shape.compound.children[0].shape.plane");
  ExpectInvalid([](v1::Scene& s) { MakeCompound(s, 0); }, "bodies[1].shape.compound.children");
  ExpectInvalid([](v1::Scene& s) { MakeCompound(s, 65); }, "bodies[1].shape.compound.children");
  ExpectInvalid(
      [](v1::Scene& s) {
        MakeCompound(s, 2)->mutable_children(1)->mutable_shape()->mutable_compound();
      },
      "bodies[1].shape.compound.children[1].shape.compound");
  ExpectInvalid(
      [](v1::Scene& s) {
        MakeCompound(s, 2)->mutable_children(1)->mutable_shape()->mutable_sphere()->set_radius(0);
      },
      "bodies[1].shape.compound.children[1].shape.sphere.radius");
  ExpectInvalid(
      [](v1::Scene& s) { MakeCompound(s, 2)->mutable_children(0)->mutable_shape()->Clear(); },
      "bodies[1].shape.compound.children[0].shape");
  ExpectInvalid(
      [](v1::Scene& s) {
        MakeCompound(s, 2)->mutable_children(1)->mutable_pose()->mutable_orientation()->set_w(3);
      },
      "bodies[1].shape.compound.children[1].pose.orientation");
  // 64 children are fine.
  v1::Scene s = ValidScene();
  MakeCompound(s, 64);
  auto scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok()) << scene.status();
  EXPECT_EQ(scene->bodies[1].rigid()->children.size(), 64u);
}

// A hull body: its points as given, so that reading it back rebuilds the same hull.
v1::ConvexHull* MakeHull(v1::Scene& s, const std::vector<Vec3>& points) {
  v1::ConvexHull* hull = s.mutable_bodies(1)->mutable_shape()->mutable_hull();
  for (const Vec3& p : points) {
    v1::Vec3* q = hull->add_points();
    q->set_x(p.x());
    q->set_y(p.y());
    q->set_z(p.z());
  }
  return hull;
}

const std::vector<Vec3> kTetrahedron = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};

TEST(SceneFromProtoTest, HullConvertsAndReadsBack) {
  v1::Scene s = ValidScene();
  std::vector<Vec3> points = kTetrahedron;
  points.push_back({0.1, 0.1, 0.1});  // inside
  v1::ConvexHull* hull = MakeHull(s, points);
  hull->set_max_vertices(12);
  hull->set_weld_tolerance(1e-4);
  auto scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok()) << scene.status();
  const Shape& shape = scene->bodies[1].rigid()->shape;
  ASSERT_EQ(shape.type, ShapeType::kHull);
  EXPECT_EQ(shape.hull->vertices.size(), 4u);
  EXPECT_EQ(shape.hull->max_vertices, 12);
  EXPECT_NEAR(shape.hull->volume, 1.0 / 6.0, 1e-15);
  const v1::Body back = BodyToProto(scene->bodies[1]);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back.shape(),
                                                                 s.bodies(1).shape()));
  // Unset, the cap is the default.
  s.mutable_bodies(1)->mutable_shape()->mutable_hull()->clear_max_vertices();
  scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok());
  EXPECT_EQ(scene->bodies[1].rigid()->shape.hull->max_vertices, kDefaultHullVertices);
}

TEST(SceneFromProtoTest, BadHullNamesItsField) {
  ExpectInvalid(
      [](v1::Scene& s) { MakeHull(s, kTetrahedron)->mutable_points(2)->set_y(kNaN); },
      "bodies[1].shape.hull.points[2].y");
  ExpectInvalid(
      [](v1::Scene& s) { MakeHull(s, kTetrahedron)->mutable_points(3)->set_z(2e6); },
      "bodies[1].shape.hull.points[3]");
  ExpectInvalid([](v1::Scene& s) { MakeHull(s, {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}}); },
                "bodies[1].shape.hull.points");
  ExpectInvalid([](v1::Scene& s) { MakeHull(s, {}); }, "bodies[1].shape.hull.points");
  ExpectInvalid([](v1::Scene& s) { MakeHull(s, kTetrahedron)->set_max_vertices(3); },
                "bodies[1].shape.hull.max_vertices");
  ExpectInvalid([](v1::Scene& s) { MakeHull(s, kTetrahedron)->set_max_vertices(4000000000u); },
                "bodies[1].shape.hull.max_vertices");
  ExpectInvalid([](v1::Scene& s) { MakeHull(s, kTetrahedron)->set_weld_tolerance(-1.0); },
                "bodies[1].shape.hull.weld_tolerance");
  ExpectInvalid(
      [](v1::Scene& s) {
        v1::Compound* compound = MakeCompound(s, 2);
        compound->mutable_children(1)->mutable_shape()->mutable_hull()->add_points();
      },
      "bodies[1].shape.compound.children[1].shape.hull.points");
}

// A square of two triangles as body 1's mesh (body 1 made static).
v1::TriangleMesh* MakeMesh(v1::Scene& s) {
  v1::Body* body = s.mutable_bodies(1);
  body->set_kind(v1::BODY_KIND_STATIC);
  v1::TriangleMesh* mesh = body->mutable_shape()->mutable_mesh();
  for (const Vec3& p : std::vector<Vec3>{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}, {1, 0, 1}}) {
    v1::Vec3* q = mesh->add_vertices();
    q->set_x(p.x());
    q->set_y(p.y());
    q->set_z(p.z());
  }
  for (const uint32_t i : {0, 2, 1, 1, 2, 3}) mesh->add_indices(i);
  return mesh;
}

TEST(SceneFromProtoTest, MeshConvertsAndReadsBack) {
  v1::Scene s = ValidScene();
  MakeMesh(s);
  auto scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok()) << scene.status();
  const Shape& shape = scene->bodies[1].rigid()->shape;
  ASSERT_EQ(shape.type, ShapeType::kMesh);
  EXPECT_EQ(shape.mesh->triangles.size(), 2u);
  const v1::Body back = BodyToProto(scene->bodies[1]);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back.shape(),
                                                                 s.bodies(1).shape()));
  // Kinematic is allowed too.
  s.mutable_bodies(1)->set_kind(v1::BODY_KIND_KINEMATIC);
  EXPECT_TRUE(SceneFromProto(s).ok());
}

TEST(SceneFromProtoTest, BadMeshNamesItsField) {
  ExpectInvalid([](v1::Scene& s) { MakeMesh(s)->mutable_vertices(2)->set_y(kNaN); },
                "bodies[1].shape.mesh.vertices[2].y");
  ExpectInvalid([](v1::Scene& s) { MakeMesh(s)->mutable_vertices(3)->set_z(2e6); },
                "bodies[1].shape.mesh.vertices[3]");
  ExpectInvalid([](v1::Scene& s) { MakeMesh(s)->set_indices(4, 9); },
                "bodies[1].shape.mesh.indices[4]");
  ExpectInvalid([](v1::Scene& s) { MakeMesh(s)->set_indices(5, 1); },
                "bodies[1].shape.mesh.indices[3..5]");
  ExpectInvalid([](v1::Scene& s) { MakeMesh(s)->add_indices(0); },
                "bodies[1].shape.mesh.indices");
  ExpectInvalid(
      [](v1::Scene& s) {
        MakeMesh(s);
        s.mutable_bodies(1)->set_kind(v1::BODY_KIND_DYNAMIC);
      },
      "bodies[1].kind");
  ExpectInvalid(
      [](v1::Scene& s) {
        v1::Compound* compound = MakeCompound(s, 2);
        compound->mutable_children(1)->mutable_shape()->mutable_mesh();
      },
      "bodies[1].shape.compound.children[1].shape.mesh");
}

// A grid of 3 x 4 points, 0.5 m apart, as body 1's height field (body 1 made static).
v1::HeightField* MakeHeightField(v1::Scene& s) {
  v1::Body* body = s.mutable_bodies(1);
  body->set_kind(v1::BODY_KIND_STATIC);
  v1::HeightField* field = body->mutable_shape()->mutable_height_field();
  field->set_rows(3);
  field->set_columns(4);
  field->set_spacing_x(0.5);
  field->set_spacing_z(0.5);
  for (int i = 0; i < 12; ++i) field->add_heights(0.1 * i);
  field->add_holes(4);
  return field;
}

TEST(SceneFromProtoTest, HeightFieldConvertsAndReadsBackAsItsGrid) {
  v1::Scene s = ValidScene();
  MakeHeightField(s);
  auto scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok()) << scene.status();
  const Shape& shape = scene->bodies[1].rigid()->shape;
  ASSERT_EQ(shape.type, ShapeType::kMesh);
  // Six cells, one of them a hole: ten triangles.
  EXPECT_EQ(shape.mesh->triangles.size(), 10u);
  const v1::Body back = BodyToProto(scene->bodies[1]);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back.shape(),
                                                                 s.bodies(1).shape()));
  s.mutable_bodies(1)->set_kind(v1::BODY_KIND_KINEMATIC);
  EXPECT_TRUE(SceneFromProto(s).ok());
}

TEST(SceneFromProtoTest, BadHeightFieldNamesItsField) {
  ExpectInvalid([](v1::Scene& s) { MakeHeightField(s)->set_rows(1); },
                "bodies[1].shape.height_field.rows");
  ExpectInvalid([](v1::Scene& s) { MakeHeightField(s)->set_columns(4000000000u); },
                "bodies[1].shape.height_field.columns");
  ExpectInvalid([](v1::Scene& s) { MakeHeightField(s)->set_spacing_x(0.0); },
                "bodies[1].shape.height_field.spacing_x");
  ExpectInvalid([](v1::Scene& s) { MakeHeightField(s)->set_spacing_z(kNaN); },
                "bodies[1].shape.height_field.spacing_z");
  ExpectInvalid([](v1::Scene& s) { MakeHeightField(s)->add_heights(0.0); },
                "bodies[1].shape.height_field.heights");
  ExpectInvalid([](v1::Scene& s) { MakeHeightField(s)->set_heights(7, kNaN); },
                "bodies[1].shape.height_field.heights[7]");
  ExpectInvalid([](v1::Scene& s) { MakeHeightField(s)->add_holes(6); },
                "bodies[1].shape.height_field.holes[1]");
  ExpectInvalid(
      [](v1::Scene& s) {
        MakeHeightField(s);
        s.mutable_bodies(1)->set_kind(v1::BODY_KIND_DYNAMIC);
      },
      "bodies[1].kind");
  ExpectInvalid(
      [](v1::Scene& s) {
        v1::Compound* compound = MakeCompound(s, 2);
        compound->mutable_children(0)->mutable_shape()->mutable_height_field();
      },
      "bodies[1].shape.compound.children[0].shape.height_field");
}

// Sizes are in [1e-4, 1e6] m and positions within 1e6 m.
TEST(SceneFromProtoTest, SizeAndPositionRanges) {
  ExpectInvalid(
      [](v1::Scene& s) {
        s.mutable_bodies(1)->mutable_shape()->mutable_sphere()->set_radius(5e-5);
      },
      "bodies[1].shape.sphere.radius");
  ExpectInvalid(
      [](v1::Scene& s) {
        s.mutable_bodies(1)->mutable_shape()->mutable_sphere()->set_radius(2e6);
      },
      "bodies[1].shape.sphere.radius");
  ExpectInvalid(
      [](v1::Scene& s) {
        s.mutable_bodies(2)->mutable_shape()->mutable_box()->mutable_half_extents()->set_y(1.5e6);
      },
      "bodies[2].shape.box.half_extents.y");
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_bodies(1)->mutable_pose()->mutable_position()->set_z(-2e6); },
      "bodies[1].pose.position");
  // The bounds themselves are allowed.
  v1::Scene s = ValidScene();
  s.mutable_bodies(1)->mutable_shape()->mutable_sphere()->set_radius(1e-4);
  s.mutable_bodies(3)->mutable_shape()->mutable_capsule()->set_half_length(1e6);
  s.mutable_bodies(2)->mutable_pose()->mutable_position()->set_x(-1e6);
  EXPECT_TRUE(SceneFromProto(s).ok()) << SceneFromProto(s).status();
}

// Velocities are finite with a magnitude of at most 1e5 (m/s or rad/s).
TEST(SceneFromProtoTest, VelocityRange) {
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_bodies(1)->mutable_linear_velocity()->set_x(1e6); },
      "bodies[1].linear_velocity");
  // Each component below the bound, the magnitude above it.
  ExpectInvalid(
      [](v1::Scene& s) {
        s.mutable_bodies(2)->mutable_angular_velocity()->set_x(8e4);
        s.mutable_bodies(2)->mutable_angular_velocity()->set_y(8e4);
      },
      "bodies[2].angular_velocity");
  v1::Vec3 v;
  v.set_x(6e4);
  v.set_y(-8e4);  // magnitude exactly 1e5
  auto ok = VelocityFromProto(v, "v");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(*ok, Vec3(6e4, -8e4, 0));
  v.set_z(10.0);
  auto too_fast = VelocityFromProto(v, "v");
  EXPECT_EQ(too_fast.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(too_fast.status().message()), StartsWith("v:"));
  v.set_z(kNaN);
  EXPECT_THAT(std::string(VelocityFromProto(v, "v").status().message()), StartsWith("v.z:"));
}

// PositionFromProto: finite, each coordinate within 1e6 m.
TEST(SceneFromProtoTest, PositionFromProtoRange) {
  v1::Vec3 p;
  p.set_x(1e6);
  p.set_y(-1e6);
  p.set_z(0.5);
  auto ok = PositionFromProto(p, "p");
  ASSERT_TRUE(ok.ok()) << ok.status();
  EXPECT_EQ(*ok, Vec3(1e6, -1e6, 0.5));
  p.set_y(-1.000001e6);
  auto far = PositionFromProto(p, "p");
  EXPECT_EQ(far.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(far.status().message()), StartsWith("p:"));
  p.set_y(0.0);
  p.set_x(kInf);
  EXPECT_THAT(std::string(PositionFromProto(p, "p").status().message()), StartsWith("p.x:"));
}

// Solver settings: the kind, the time budget in [0, 1e6] us and the position share in
// [0, 1].
TEST(SceneFromProtoTest, SolverSettings) {
  v1::Scene s = ValidScene();
  v1::SolverSettings* solver = s.mutable_settings()->mutable_solver();
  solver->set_kind(v1::SOLVER_KIND_TUNABLE_LCP);
  solver->set_time_budget_us(1e6);
  solver->set_position_share(1.0);
  auto scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok()) << scene.status();
  EXPECT_EQ(scene->settings.solver.kind, SolverKind::kTunableLcp);
  EXPECT_EQ(scene->settings.solver.time_budget_us, 1e6);
  EXPECT_EQ(scene->settings.solver.position_share, 1.0);
  // Zero is a valid share, not "unset".
  solver->set_position_share(0.0);
  solver->set_kind(v1::SOLVER_KIND_GAUSS_SEIDEL);
  scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok());
  EXPECT_EQ(scene->settings.solver.kind, SolverKind::kGaussSeidel);
  EXPECT_EQ(scene->settings.solver.position_share, 0.0);
  // Unset: Gauss-Seidel, no budget, share 0.3; and the way back names the kind.
  scene = SceneFromProto(ValidScene());
  ASSERT_TRUE(scene.ok());
  EXPECT_EQ(scene->settings.solver.kind, SolverKind::kGaussSeidel);
  EXPECT_EQ(scene->settings.solver.time_budget_us, 0.0);
  EXPECT_EQ(scene->settings.solver.position_share, 0.3);
  EXPECT_EQ(scene->settings.solver.substeps, 1);
  // Substeps in [1, 64], and back.
  solver->set_substeps(64);
  scene = SceneFromProto(s);
  ASSERT_TRUE(scene.ok());
  EXPECT_EQ(scene->settings.solver.substeps, 64);
  EXPECT_EQ(SettingsToProto(scene->settings).solver().substeps(), 64);
  WorldSettings tunable;
  tunable.solver.kind = SolverKind::kTunableLcp;
  EXPECT_EQ(SettingsToProto(tunable).solver().kind(), v1::SOLVER_KIND_TUNABLE_LCP);

  ExpectInvalid(
      [](v1::Scene& s) {
        s.mutable_settings()->mutable_solver()->set_kind(static_cast<v1::SolverKind>(9));
      },
      "settings.solver.kind");
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_settings()->mutable_solver()->set_time_budget_us(-1.0); },
      "settings.solver.time_budget_us");
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_settings()->mutable_solver()->set_time_budget_us(2e6); },
      "settings.solver.time_budget_us");
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_settings()->mutable_solver()->set_time_budget_us(kNaN); },
      "settings.solver.time_budget_us");
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_settings()->mutable_solver()->set_position_share(1.5); },
      "settings.solver.position_share");
  ExpectInvalid(
      [](v1::Scene& s) { s.mutable_settings()->mutable_solver()->set_position_share(-0.1); },
      "settings.solver.position_share");
  for (const int substeps : {0, -3, 65}) {
    ExpectInvalid(
        [substeps](v1::Scene& s) {
          s.mutable_settings()->mutable_solver()->set_substeps(substeps);
        },
        "settings.solver.substeps");
  }
}

// A given inertia comes through (and back) as given; it needs a mass, a positive-definite
// tensor and principal moments a solid could have.
TEST(SceneFromProtoTest, GivenInertia) {
  v1::Material m;
  m.set_mass(2.0);
  v1::Inertia* in = m.mutable_inertia();
  in->mutable_center_of_mass()->set_y(-0.5);
  in->set_ixx(0.3);
  in->set_iyy(0.2);
  in->set_izz(0.2);
  in->set_ixy(0.05);
  auto material = MaterialFromProto(m, "material");
  ASSERT_TRUE(material.ok()) << material.status();
  ASSERT_TRUE(material->inertia.has_value());
  EXPECT_EQ(material->inertia->center, Vec3(0.0, -0.5, 0.0));
  EXPECT_EQ(material->inertia->tensor(0, 1), 0.05);
  EXPECT_EQ(material->inertia->tensor(1, 0), 0.05);
  v1::Inertia back;
  InertiaToProto(*material->inertia, &back);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(back, *in));

  v1::Material no_mass = m;
  no_mass.set_mass(0.0);
  EXPECT_THAT(std::string(MaterialFromProto(no_mass, "material").status().message()),
              StartsWith("material.mass"));
  v1::Material indefinite = m;
  indefinite.mutable_inertia()->set_ixy(0.5);  // 0.3 * 0.2 < 0.5^2
  EXPECT_THAT(MaterialFromProto(indefinite, "material").status().message(),
              HasSubstr("material.inertia: must be positive definite"));
  v1::Material impossible = m;
  impossible.mutable_inertia()->set_ixy(0.0);
  impossible.mutable_inertia()->set_ixx(0.5);  // more than 0.2 + 0.2
  EXPECT_THAT(MaterialFromProto(impossible, "material").status().message(),
              HasSubstr("triangle inequality"));
  v1::Material infinite = m;
  infinite.mutable_inertia()->set_izz(std::numeric_limits<double>::infinity());
  EXPECT_THAT(std::string(MaterialFromProto(infinite, "material").status().message()),
              StartsWith("material.inertia"));
}

}  // namespace
}  // namespace ligature
