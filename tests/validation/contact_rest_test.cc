// Bodies at rest on the ground stay at rest.

#include <gtest/gtest.h>

#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

SceneDesc GroundScene(double rate_hz) {
  SceneDesc scene;
  scene.settings.rate_hz = rate_hz;
  scene.bodies.push_back(
      testing::MakeBody("ground", Shape::Plane(), Vec3::Zero(), BodyKind::kStatic));
  return scene;
}

TEST(ContactRest, BoxOnPlaneDriftsLessThanOneMillimetreInTenSeconds) {
  SceneDesc scene = GroundScene(60.0);
  const Vec3 start(0.3, 0.25, -0.2);
  scene.bodies.push_back(testing::MakeBody("box", Shape::Box(Vec3(0.4, 0.25, 0.3)), start));
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 600; ++i) {
    world->Step();
    ASSERT_LT((testing::PositionOf(*world, "box") - start).norm(), 1e-3) << "tick " << i;
  }
  const Quat q = world->GetBody("box")->pose.orientation;
  EXPECT_LT(q.angularDistance(Quat::Identity()), 1e-3);
}

// Gauss-Seidel needs more sweeps as a stack grows taller: five boxes converge with 50.
TEST(ContactRest, StackOfBoxesStaysStacked) {
  SceneDesc scene = GroundScene(60.0);
  scene.settings.solver.max_iterations = 50;
  for (int i = 0; i < 5; ++i) {
    scene.bodies.push_back(testing::MakeBody("box" + std::to_string(i),
                                             Shape::Box(Vec3(0.2, 0.2, 0.2)),
                                             Vec3(0.0, 0.2 + 0.4 * i, 0.0)));
  }
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 600; ++i) world->Step();
  for (int i = 0; i < 5; ++i) {
    const Vec3 p = testing::PositionOf(*world, "box" + std::to_string(i));
    EXPECT_NEAR(p.y(), 0.2 + 0.4 * i, 5e-3) << "box " << i;
    EXPECT_NEAR(p.x(), 0.0, 5e-3);
  }
}

TEST(ContactRest, SphereDroppedOnBoxComesToRestOnTop) {
  SceneDesc scene = GroundScene(120.0);
  scene.bodies.push_back(testing::MakeBody("table", Shape::Box(Vec3(1, 0.5, 1)), Vec3(0, 0.5, 0),
                                           BodyKind::kStatic));
  scene.bodies.push_back(testing::MakeBody("ball", Shape::Sphere(0.1), Vec3(0.2, 2.0, 0.1)));
  auto world = testing::MakeWorld(scene);
  for (int i = 0; i < 600; ++i) world->Step();
  EXPECT_NEAR(testing::PositionOf(*world, "ball").y(), 1.1, 2e-3);
  EXPECT_LT(testing::VelocityOf(*world, "ball").norm(), 1e-2);
}

}  // namespace
}  // namespace ligature
