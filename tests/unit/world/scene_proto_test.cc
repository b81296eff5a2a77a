#include "server/world/scene_proto.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <string>

#include "google/protobuf/util/message_differencer.h"

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
  EXPECT_EQ(scene->bodies[0].shape.type, ShapeType::kPlane);
  EXPECT_EQ(scene->bodies[1].kind, BodyKind::kDynamic);  // unspecified means dynamic
  EXPECT_EQ(scene->bodies[1].shape.radius, 0.5);
  EXPECT_EQ(scene->bodies[1].pose.position, Vec3(0, 2, 0));
  EXPECT_EQ(scene->bodies[2].shape.half_extents, Vec3(0.1, 0.2, 0.3));
  EXPECT_EQ(scene->bodies[3].shape.half_length, 0.4);
  ASSERT_EQ(scene->constraints.size(), 1u);
  EXPECT_EQ(scene->constraints[0].point.body_a, "ball");
  EXPECT_TRUE(scene->constraints[0].point.body_b.empty());
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
  EXPECT_EQ(b.material.density, 1000.0);
  EXPECT_EQ(b.material.mass, 0.0);
  EXPECT_EQ(b.material.friction, 0.5);
  EXPECT_EQ(b.material.restitution, 0.0);
  EXPECT_TRUE(b.pose.orientation.isApprox(Quat::Identity()));  // all-zero quaternion
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
  EXPECT_EQ(scene->bodies[0].material.friction, 0.0);
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
  c->mutable_pose()->mutable_orientation()->set_w(1.0);
  c->mutable_pose()->mutable_position()->set_y(4.0);
  c->mutable_linear_velocity();
  c->mutable_angular_velocity();

  v1::Constraint* k = s.add_constraints();
  k->set_id("hinge");
  k->mutable_point()->set_body_a("rod");
  k->mutable_point()->mutable_anchor_a()->set_y(0.6);
  k->mutable_point()->set_body_b("crate");
  k->mutable_point()->mutable_anchor_b()->set_z(-0.75);
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
  EXPECT_EQ(desc->bodies[0].material.mass, 12.0);
  EXPECT_TRUE(desc->bodies[0].pose.orientation.isApprox(Quat(0.8, 0.0, 0.6, 0.0)));
  EXPECT_EQ(desc->settings.solver.max_iterations, 33);
  EXPECT_TRUE(desc->settings.paused);
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

}  // namespace
}  // namespace ligature
