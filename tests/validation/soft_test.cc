// Soft bodies in a world: a mass-point cube hanging from nails keeps them exactly, and an
// FEM column (corotational or StVK) standing on its held base compresses under its weight
// as linear elasticity says, rho g H^2 / (2 E) at the top (nu = 0).

#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "server/constraint/contact_rows.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

BodyDesc SoftCube(const std::string& id, SoftModelKind model, Integrator integrator) {
  BodyDesc d;
  d.id = id;
  SoftBodyDesc soft;
  soft.mesh = MakeBoxMesh(Vec3(0.05, 0.05, 0.05), 2, 2, 2);
  soft.model = model;
  soft.integrator = integrator;
  // A soft, damped cube (highest frequency a few hundred rad/s).
  soft.mass_point.density = 1000.0;
  soft.mass_point.distance_stiffness = 20.0;
  soft.mass_point.volume_stiffness = 5.0;
  soft.mass_point.damping = 0.5;
  d.body = soft;
  return d;
}

// The world-level run uses the integrators that are stable on this cube at 1 kHz (explicit
// Euler, midpoint and RK2 need smaller steps here; the model tests cover all six on a
// small mesh).
TEST(SoftBody, NailsHoldExactlyInAWorld) {
  for (const Integrator integrator :
       {Integrator::kImplicitEuler, Integrator::kSemiImplicitEuler, Integrator::kVerlet}) {
    SceneDesc scene;
    scene.settings.rate_hz = 1000.0;
    scene.bodies.push_back(SoftCube("cube", SoftModelKind::kMassPoint, integrator));
    auto world = testing::MakeWorld(scene);
    // Nail the four top corners where they are.
    const TetMesh& mesh = world->soft_bodies().FindBody("cube")->desc.mesh;
    int nails = 0;
    for (size_t v = 0; v < mesh.vertices.size(); ++v) {
      const Vec3& x = mesh.vertices[v];
      if (x.y() > 0.049 && std::abs(x.x()) > 0.049 && std::abs(x.z()) > 0.049) {
        ConstraintDesc c;
        c.id = "nail" + std::to_string(v);
        c.soft = SoftConstraintDesc{};
        c.soft->body = "cube";
        c.soft->vertices = {static_cast<int>(v)};
        c.soft->goal = x;
        ASSERT_TRUE(world->AddConstraint(c).ok());
        ++nails;
      }
    }
    ASSERT_EQ(nails, 4);
    for (int i = 0; i < 200; ++i) world->Step();
    const SoftWorld::Body* cube = world->soft_bodies().FindBody("cube");
    for (const SoftConstraintDesc& c : world->soft_bodies().constraints()) {
      EXPECT_LT((cube->positions()[c.vertices[0]] - c.goal).norm(), 1e-9)
          << IntegratorName(integrator);
    }
    // The rest of the cube sags below its nails.
    double lowest = 1.0;
    for (const Vec3& x : cube->positions()) lowest = std::min(lowest, x.y());
    EXPECT_LT(lowest, -0.05) << IntegratorName(integrator);
    EXPECT_EQ(world->last_stats().recovered_bodies, 0) << IntegratorName(integrator);
  }
}

// A 0.4 m column standing on its held base settles under its weight, 10 s at 200 Hz;
// returns the top's mean drop. Its held base never moves.
double ColumnCompression(SoftModelKind model) {
  SceneDesc scene;
  scene.settings.rate_hz = 200.0;
  BodyDesc d;
  d.id = "column";
  SoftBodyDesc soft;
  const double half = 0.05, height = 0.4;
  soft.mesh = MakeBoxMesh(Vec3(half, 0.5 * height, half), 2, 16, 2);
  for (Vec3& v : soft.mesh.vertices) v.y() += 0.5 * height;  // base at y = 0
  soft.model = model;
  soft.fem.young = 2.0e5;
  soft.fem.poisson = 0.0;
  soft.fem.density = 1000.0;
  soft.fem.mass_damping = 20.0;
  for (size_t v = 0; v < soft.mesh.vertices.size(); ++v) {
    if (soft.mesh.vertices[v].y() < 1e-9) soft.fixed.push_back(static_cast<int>(v));
  }
  d.body = soft;
  scene.bodies.push_back(d);
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 2000; ++i) world->Step();
  EXPECT_EQ(world->last_stats().recovered_bodies, 0);
  const SoftWorld::Body* column = world->soft_bodies().FindBody("column");
  double top = 0.0;
  int count = 0;
  for (size_t v = 0; v < soft.mesh.vertices.size(); ++v) {
    if (soft.mesh.vertices[v].y() > height - 1e-9) {
      top += column->positions()[v].y();
      ++count;
    }
  }
  for (const int v : soft.fixed) {
    EXPECT_EQ(column->positions()[v], soft.mesh.vertices[v]);
  }
  return height - top / count;
}

// The top's drop of a column (nu = 0) whose material under uniaxial load has first
// Piola-Kirchhoff stress P(lambda): at height X the stretch solves P = -rho g (H - X); the
// drop is the integral of 1 - lambda over the height (midpoint rule, Newton per point).
double ExactCompression(const std::function<double(double)>& p,
                        const std::function<double(double)>& dp, double rho_g, double height) {
  constexpr int kPoints = 2000;
  double drop = 0.0;
  for (int k = 0; k < kPoints; ++k) {
    const double load = -rho_g * height * (1.0 - (k + 0.5) / kPoints);
    double lambda = 1.0;
    for (int it = 0; it < 50; ++it) lambda -= (p(lambda) - load) / dp(lambda);
    drop += (1.0 - lambda) * height / kPoints;
  }
  return drop;
}

// Each FEM model against its own material law: corotational linear elasticity gives
// rho g H^2 / (2 E) (P = E (lambda - 1)); St Venant-Kirchhoff, stepped in explicit
// substeps, has P = E lambda (lambda^2 - 1) / 2, softer in compression (by about 3 % at the
// base's 2 % strain).
TEST(SoftBody, FemColumnCompressesUnderItsWeight) {
  const double e = 2.0e5, rho_g = 1000.0 * 9.81, height = 0.4;
  const double linear = rho_g * height * height / (2.0 * e);
  EXPECT_NEAR(ExactCompression([&](double l) { return e * (l - 1.0); },
                               [&](double) { return e; }, rho_g, height),
              linear, 1e-6 * linear);
  const double stvk = ExactCompression([&](double l) { return 0.5 * e * l * (l * l - 1.0); },
                                       [&](double l) { return 0.5 * e * (3.0 * l * l - 1.0); },
                                       rho_g, height);
  const double corotational = ColumnCompression(SoftModelKind::kCorotational);
  EXPECT_NEAR(corotational, linear, 0.02 * linear) << "corotational " << corotational;
  const double nonlinear = ColumnCompression(SoftModelKind::kStVK);
  EXPECT_NEAR(nonlinear, stvk, 0.02 * stvk) << "StVK " << nonlinear << " exact " << stvk;
}

}  // namespace
}  // namespace ligature

namespace ligature {
namespace {

// A soft cube dropped on the ground comes to rest on it without sinking in (beyond the
// contact slop, through the solve), whatever its model.
TEST(SoftBody, DroppedCubeRestsOnTheGround) {
  for (const SoftModelKind model : {SoftModelKind::kMassPoint, SoftModelKind::kCorotational}) {
    SceneDesc scene;
    scene.settings.rate_hz = 500.0;
    BodyDesc ground = testing::MakeBody("ground", Shape::Plane(), Vec3::Zero());
    ground.kind = BodyKind::kStatic;
    scene.bodies.push_back(ground);
    BodyDesc cube = SoftCube("cube", model, Integrator::kImplicitEuler);
    for (Vec3& v : cube.soft()->mesh.vertices) v.y() += 0.3;
    cube.soft()->fem.young = 5e4;
    cube.soft()->fem.mass_damping = 5.0;
    scene.bodies.push_back(cube);
    auto world = testing::MakeWorld(scene);
    double lowest_ever = 1.0;
    for (int i = 0; i < 1000; ++i) {
      world->Step();
      for (const Vec3& x : world->soft_bodies().FindBody("cube")->positions()) {
        lowest_ever = std::min(lowest_ever, x.y());
      }
    }
    const SoftWorld::Body* body = world->soft_bodies().FindBody("cube");
    double lowest = 1.0, speed = 0.0;
    for (size_t v = 0; v < body->positions().size(); ++v) {
      lowest = std::min(lowest, body->positions()[v].y());
    }
    const std::vector<Vec3>& vel =
        body->mass_point ? body->mass_point_state.v : body->fem_state.v;
    for (const Vec3& v : vel) speed = std::max(speed, v.norm());
    // The mass-point cube is projected out of the plane, exactly; the corotational one
    // meets it through the constraint solve, which leaves at most the contacts' slop.
    const double tolerance = model == SoftModelKind::kMassPoint ? 1e-9 : kPenetrationSlop;
    EXPECT_NEAR(lowest, 0.0, tolerance) << static_cast<int>(model);  // resting on the plane
    EXPECT_GT(lowest_ever, -tolerance) << static_cast<int>(model);   // never below it
    EXPECT_LT(speed, 0.05) << static_cast<int>(model);
  }
}

}  // namespace
}  // namespace ligature
