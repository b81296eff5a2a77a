// SoftWorld: bodies and constraints are validated and nothing is half-applied; removing a
// body removes its constraints; removing a constraint frees its vertices and lets them
// move; constraints follow a body's pose; a mass-point band held at its ends carries its
// weight; a runaway step is rolled back.

#include "server/world/soft/soft_world.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

namespace ligature {
namespace {

SoftBodyDesc Cube(const std::string& id, SoftModelKind model) {
  SoftBodyDesc d;
  d.id = id;
  d.mesh = MakeBoxMesh(Vec3(0.05, 0.05, 0.05), 1, 1, 1);
  d.model = model;
  d.mass_point.distance_stiffness = 20.0;
  d.mass_point.volume_stiffness = 5.0;
  d.mass_point.damping = 0.5;
  return d;
}

SoftConstraintDesc Nail(const std::string& id, const std::string& body, int v, const Vec3& goal) {
  SoftConstraintDesc c;
  c.id = id;
  c.body = body;
  c.vertices = {v};
  c.goal = goal;
  return c;
}

const Vec3 kGravity(0, -9.81, 0);

TEST(SoftWorldTest, RejectsBadBodiesAndConstraints) {
  SoftWorld world;
  SoftBodyDesc bad = Cube("a", SoftModelKind::kMassPoint);
  bad.fixed = {8};  // a 1x1x1 box has 8 vertices
  EXPECT_EQ(world.AddBody(bad).code(), absl::StatusCode::kInvalidArgument);
  bad = Cube("a", SoftModelKind::kCorotational);
  bad.fem.poisson = 0.5;
  EXPECT_EQ(world.AddBody(bad).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(world.empty());

  ASSERT_TRUE(world.AddBody(Cube("a", SoftModelKind::kMassPoint)).ok());
  EXPECT_EQ(world.AddBody(Cube("a", SoftModelKind::kMassPoint)).code(),
            absl::StatusCode::kAlreadyExists);
  ASSERT_TRUE(world.AddBody(Cube("fem", SoftModelKind::kCorotational)).ok());
  EXPECT_EQ(world.AddConstraint(Nail("n", "nobody", 0, Vec3::Zero())).code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(world.AddConstraint(Nail("n", "fem", 0, Vec3::Zero())).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(world.AddConstraint(Nail("n", "a", 8, Vec3::Zero())).code(),
            absl::StatusCode::kInvalidArgument);
  SoftConstraintDesc line = Nail("l", "a", 0, Vec3::Zero());
  line.type = LocalConstraintType::kPointToLine;  // needs 3 vertices
  EXPECT_EQ(world.AddConstraint(line).code(), absl::StatusCode::kInvalidArgument);
  ASSERT_TRUE(world.AddConstraint(Nail("n", "a", 0, Vec3::Zero())).ok());
  EXPECT_EQ(world.AddConstraint(Nail("m", "a", 0, Vec3::Zero())).code(),
            absl::StatusCode::kInvalidArgument);  // vertex 0 is taken
  EXPECT_EQ(world.constraint_count(), 1);
}

TEST(SoftWorldTest, RemovingABodyRemovesItsConstraints) {
  SoftWorld world;
  ASSERT_TRUE(world.AddBody(Cube("a", SoftModelKind::kMassPoint)).ok());
  ASSERT_TRUE(world.AddBody(Cube("b", SoftModelKind::kMassPoint)).ok());
  ASSERT_TRUE(world.AddConstraint(Nail("na", "a", 0, Vec3::Zero())).ok());
  ASSERT_TRUE(world.AddConstraint(Nail("nb", "b", 1, Vec3(1, 0, 0))).ok());
  EXPECT_EQ(world.RemoveBody("a"), std::vector<std::string>{"na"});
  EXPECT_FALSE(world.HasConstraint("na"));
  EXPECT_TRUE(world.HasConstraint("nb"));
  // The remaining constraint still acts on its body.
  for (int i = 0; i < 20; ++i) world.Step(i * 1e-3, 1e-3, kGravity, nullptr);
  EXPECT_LT((world.FindBody("b")->positions()[1] - Vec3(1, 0, 0)).norm(), 1e-9);
}

TEST(SoftWorldTest, RemovedNailLetsTheVertexFall) {
  SoftWorld world;
  ASSERT_TRUE(world.AddBody(Cube("a", SoftModelKind::kMassPoint)).ok());
  const Vec3 goal = world.FindBody("a")->positions()[0];
  ASSERT_TRUE(world.AddConstraint(Nail("n", "a", 0, goal)).ok());
  for (int i = 0; i < 20; ++i) world.Step(i * 1e-3, 1e-3, kGravity, nullptr);
  EXPECT_LT((world.FindBody("a")->positions()[0] - goal).norm(), 1e-9);
  ASSERT_TRUE(world.RemoveConstraint("n").ok());
  for (int i = 20; i < 120; ++i) world.Step(i * 1e-3, 1e-3, kGravity, nullptr);
  EXPECT_LT(world.FindBody("a")->positions()[0].y(), goal.y() - 0.01);
  // Its vertex is free again for a new constraint.
  EXPECT_TRUE(world.AddConstraint(Nail("again", "a", 0, goal)).ok());
}

TEST(SoftWorldTest, NailFollowsABodysPose) {
  SoftWorld world;
  ASSERT_TRUE(world.AddBody(Cube("a", SoftModelKind::kMassPoint)).ok());
  SoftConstraintDesc grip = Nail("grip", "a", 0, Vec3::Zero());
  grip.follow_body = "hand";
  ASSERT_TRUE(world.AddConstraint(grip).ok());
  Transform hand;
  auto poses = [&](const std::string& id) -> std::optional<Transform> {
    if (id != "hand") return std::nullopt;
    return hand;
  };
  for (int i = 0; i < 50; ++i) {
    hand.position = Vec3(0.001 * i, 0.5, 0);
    world.Step(i * 1e-3, 1e-3, kGravity, poses);
    EXPECT_LT((world.FindBody("a")->positions()[0] - hand.position).norm(), 1e-9) << i;
  }
}

// A mass-point band (8 x 1 x 2 cells) held at both end faces, implicit Euler at 200 Hz,
// comes to rest in static equilibrium: on every free vertex the elastic forces carry its
// weight. Its sag is linear elastic: ten times stiffer (both stiffnesses), a tenth of the
// sag.
TEST(SoftWorldTest, MassPointBandHeldAtItsEndsCarriesItsWeight) {
  auto sag = [](double stiffness) {
    SoftBodyDesc band;
    band.id = "band";
    band.mesh = MakeBoxMesh(Vec3(0.04, 0.005, 0.01), 8, 1, 2);
    band.model = SoftModelKind::kMassPoint;
    band.mass_point.distance_stiffness = stiffness;
    band.mass_point.volume_stiffness = 5e-4 * stiffness;
    band.mass_point.damping = 0.5;
    for (size_t v = 0; v < band.mesh.vertices.size(); ++v) {
      if (std::abs(std::abs(band.mesh.vertices[v].x()) - 0.04) < 1e-9) {
        band.fixed.push_back(static_cast<int>(v));
      }
    }
    SoftWorld world;
    EXPECT_TRUE(world.AddBody(band).ok());
    for (int i = 0; i < 2000; ++i) world.Step(i * 0.005, 0.005, kGravity, nullptr);
    const SoftWorld::Body& body = *world.FindBody("band");
    std::vector<Vec3> forces;
    ComputeForces(*body.mass_point, body.positions(), body.velocities(), kGravity, &forces);
    double drop = 0.0;
    for (size_t v = 0; v < forces.size(); ++v) {
      if (body.held(static_cast<int>(v))) {
        EXPECT_EQ(body.positions()[v], band.mesh.vertices[v]) << v;
        continue;
      }
      EXPECT_LT(forces[v].norm(), 1e-6 * body.masses()[v] * 9.81) << v;
      drop = std::max(drop, band.mesh.vertices[v].y() - body.positions()[v].y());
    }
    return drop;
  };
  const double soft = sag(10.0), stiff = sag(100.0);
  EXPECT_GT(soft, 0.0);
  EXPECT_NEAR(stiff / soft, 0.1, 0.001);
}

TEST(SoftWorldTest, RunawayStepIsRolledBack) {
  // An explicit Euler cube far too stiff for its step diverges; the world restores it at
  // rest instead of keeping a runaway state.
  SoftWorld world;
  SoftBodyDesc stiff = Cube("a", SoftModelKind::kMassPoint);
  stiff.integrator = Integrator::kExplicitEuler;
  stiff.mass_point.distance_stiffness = 1e7;
  stiff.mass_point.damping = 0.0;
  stiff.mesh.vertices[0] += Vec3(0.01, 0.0, 0.0);  // start deformed
  ASSERT_TRUE(world.AddBody(stiff).ok());
  int recovered = 0;
  for (int i = 0; i < 200; ++i) {
    world.Step(i * 0.01, 0.01, kGravity, nullptr);
    recovered += world.last_recovered();
    for (const Vec3& x : world.FindBody("a")->positions()) {
      ASSERT_TRUE(x.allFinite());
      ASSERT_LT(x.norm(), 1e6);
    }
  }
  EXPECT_GT(recovered, 0);
}

// A contact's forces on a mass-point body that took its free motion are an impulse h F at
// the end of the step, whatever the integrator: forces m_v a on the vertices of a body at
// rest in zero gravity (a translation, so no internal force answers it) move each vertex by
// h^2 a at once, and the body goes on at h a, covering h^2 a a step after.
TEST(SoftWorldTest, ContactImpulsesCarryOnUnderEveryIntegrator) {
  constexpr double kH = 0.01;
  const Vec3 accel(3.0, -2.0, 1.0);  // m/s^2
  for (const Integrator integrator : kAllIntegrators) {
    SCOPED_TRACE(IntegratorName(integrator));
    SoftWorld world;
    SoftBodyDesc cube = Cube("a", SoftModelKind::kMassPoint);
    cube.integrator = integrator;
    ASSERT_TRUE(world.AddBody(cube).ok());
    world.StepFreeMotion(0.0, kH, Vec3::Zero(), {});
    const SoftWorld::Body& body = world.bodies()[0];
    const std::vector<Vec3> rest = body.positions();
    std::vector<SoftWorld::WeightedPoint> points;
    for (size_t v = 0; v < rest.size(); ++v) {
      points.push_back(SoftWorld::WeightedPoint::Vertex(static_cast<int>(v)));
    }
    std::vector<Vec3> forces;
    for (const double m : body.masses()) forces.push_back(m * accel);
    world.ApplyContactForces(0, points, forces, kH, /*coupled=*/false);
    world.Step(kH, kH, Vec3::Zero(), {});  // ends the tick: the body stepped already
    for (int step = 1; step <= 3; ++step) {
      for (size_t v = 0; v < rest.size(); ++v) {
        const Vec3 expected = rest[v] + (step * kH * kH) * accel;
        EXPECT_LT((body.positions()[v] - expected).norm(), 1e-12) << "step " << step;
      }
      world.Step(step * kH, kH, Vec3::Zero(), {});
    }
  }
}

}  // namespace
}  // namespace ligature
