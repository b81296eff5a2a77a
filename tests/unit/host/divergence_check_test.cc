#include "server/host/divergence_check.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "server/model/soft/tet_mesh.h"

namespace ligature {
namespace {

constexpr double kFar = 2e7;  // m, beyond the default position bound

World EmptyWorld() { return World("worlds/check", WorldSettings{}, WorldLimits{}); }

BodyDesc Ball(const std::string& id, const Vec3& at) {
  BodyDesc b;
  b.id = id;
  b.rigid()->shape = Shape::Sphere(0.1);
  b.rigid()->pose.position = at;
  return b;
}

BodyDesc Rod(const std::string& id, const Vec3& a, const Vec3& b) {
  RodDesc r;
  r.points = {a, b};
  r.control_points = 6;
  r.material.radius = 0.002;
  r.material.young = 5.0e8;
  BodyDesc d;
  d.id = id;
  d.body = r;
  return d;
}

BodyDesc SoftCube(const std::string& id, const Vec3& at) {
  SoftBodyDesc s;
  s.mesh = MakeBoxMesh(Vec3(0.05, 0.05, 0.05), 1, 1, 1);
  for (Vec3& v : s.mesh.vertices) v += at;
  BodyDesc d;
  d.id = id;
  d.body = s;
  return d;
}

BodyDesc Strand(const std::string& id, const Vec3& at) {
  StrandBodyDesc s;
  for (int i = 0; i <= 3; ++i) s.strand.points.push_back(Vec3(0.1 * i, 0, 0));
  StrandMaterial m;
  m.mass_per_length = 0.02;
  m.radius = 0.002;
  m.bend_rigidity_x = m.bend_rigidity_z = 1e-3;
  m.twist_rigidity = 1e-3;
  s.strand.materials = {m};
  s.pose.position = at;
  BodyDesc d;
  d.id = id;
  d.body = s;
  return d;
}

// A world with one body of every kind, near the origin, is not diverged.
TEST(FindDivergenceTest, SaneWorldOfEveryKindPasses) {
  World w = EmptyWorld();
  ASSERT_TRUE(w.AddBody(Ball("ball", Vec3(0, 1, 0))).ok());
  ASSERT_TRUE(w.AddBody(Rod("rod", Vec3(0, 2, 0), Vec3(1, 2, 0))).ok());
  ASSERT_TRUE(w.AddBody(SoftCube("cube", Vec3(0, 3, 0))).ok());
  ASSERT_TRUE(w.AddBody(Strand("hair", Vec3(0, 4, 0))).ok());
  EXPECT_FALSE(FindDivergence(w, DivergenceBounds{}).has_value());
  for (int i = 0; i < 5; ++i) w.Step();
  EXPECT_FALSE(FindDivergence(w, DivergenceBounds{}).has_value());
}

// Each body kind placed beyond the position bound is found, by id, with its quantity.
TEST(FindDivergenceTest, FindsEveryKindBeyondThePositionBound) {
  struct Case {
    BodyDesc body;
    const char* reason;
  };
  const Vec3 far(kFar, 0, 0);
  for (const Case& c : {Case{Ball("b", far), "position beyond the bound"},
                        Case{Rod("r", far, far + Vec3(1, 0, 0)),
                             "rod control point beyond the bound"},
                        Case{SoftCube("s", far), "soft vertex beyond the bound"},
                        Case{Strand("h", far), "strand point beyond the bound"}}) {
    World w = EmptyWorld();
    ASSERT_TRUE(w.AddBody(Ball("sane", Vec3::Zero())).ok());
    ASSERT_TRUE(w.AddBody(c.body).ok()) << c.body.id;
    auto d = FindDivergence(w, DivergenceBounds{});
    ASSERT_TRUE(d.has_value()) << c.body.id;
    EXPECT_EQ(d->body, c.body.id);
    EXPECT_EQ(d->reason, c.reason);
    EXPECT_GT(d->value, DivergenceBounds{}.max_position);
  }
}

// A non-finite velocity is reported with value 0 (never a NaN); an absurd one with its
// magnitude.
TEST(FindDivergenceTest, NonFiniteAndAbsurdVelocities) {
  World w = EmptyWorld();
  ASSERT_TRUE(w.AddBody(Ball("ball", Vec3(0, 1, 0))).ok());
  BodyUpdate nan;
  nan.linear_velocity = Vec3(std::numeric_limits<double>::quiet_NaN(), 0, 0);
  ASSERT_TRUE(w.UpdateBody("ball", nan).ok());
  auto d = FindDivergence(w, DivergenceBounds{});
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->reason, "non-finite linear velocity");
  EXPECT_EQ(d->value, 0.0);

  BodyUpdate spin;
  spin.linear_velocity = Vec3::Zero();
  spin.angular_velocity = Vec3(0, 3e6, 0);
  ASSERT_TRUE(w.UpdateBody("ball", spin).ok());
  d = FindDivergence(w, DivergenceBounds{});
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(d->reason, "angular velocity beyond the bound");
  EXPECT_DOUBLE_EQ(d->value, 3e6);
  DivergenceBounds loose;
  loose.max_angular_speed = 1e7;
  EXPECT_FALSE(FindDivergence(w, loose).has_value());
}

// The frame scan names the first non-finite number's field.
TEST(FindNonFiniteTest, NamesTheField) {
  Frame f;
  f.bodies.resize(2);
  EXPECT_FALSE(FindNonFinite(f).has_value());
  f.bodies[1].soft_vertices = {Vec3::Zero(), Vec3(0, std::numeric_limits<double>::infinity(), 0)};
  EXPECT_EQ(FindNonFinite(f), "bodies[1].soft_vertices[1]");
  f.bodies[0].pose.orientation.coeffs()(3) = std::nan("");
  EXPECT_EQ(FindNonFinite(f), "bodies[0].pose.orientation");
  Frame g;
  g.stats.residual = std::nan("");
  EXPECT_EQ(FindNonFinite(g), "solver.residual");
}

}  // namespace
}  // namespace ligature
