// Collisions exchange momentum and conserve it: equal and opposite contact forces.

#include <gtest/gtest.h>

#include "server/model/rigid/mass_properties.h"
#include "tests/validation/test_scenes.h"

namespace ligature {
namespace {

TEST(Momentum, ConservedInOffCentreCollisionWithFriction) {
  SceneDesc scene;
  scene.settings.rate_hz = 240.0;
  scene.settings.gravity = Vec3::Zero();
  BodyDesc a = testing::MakeBody("a", Shape::Sphere(0.2), Vec3(-1.0, 0.05, 0.0));
  a.rigid()->linear_velocity = Vec3(3.0, 0.0, 0.0);
  a.rigid()->angular_velocity = Vec3(0.0, 0.0, 2.0);
  a.rigid()->material.friction = 0.8;
  BodyDesc b = testing::MakeBody("b", Shape::Box(Vec3(0.3, 0.2, 0.25)), Vec3(1.0, -0.1, 0.05));
  b.rigid()->linear_velocity = Vec3(-1.0, 0.0, 0.2);
  b.rigid()->material.density = 2500.0;
  b.rigid()->material.friction = 0.8;
  scene.bodies = {a, b};
  auto world = testing::MakeWorld(scene);

  const double ma = ComputeMassProperties(a.rigid()->shape, a.rigid()->material).mass;
  const double mb = ComputeMassProperties(b.rigid()->shape, b.rigid()->material).mass;
  auto momentum = [&] {
    return (ma * testing::VelocityOf(*world, "a") + mb * testing::VelocityOf(*world, "b")).eval();
  };
  const Vec3 before = momentum();
  bool touched = false;
  for (int i = 0; i < 240; ++i) {
    world->Step();
    touched |= world->last_stats().contacts > 0;
  }
  ASSERT_TRUE(touched);
  // The bodies did collide: a reversed or slowed its x motion.
  EXPECT_LT(testing::VelocityOf(*world, "a").x(), 2.0);
  EXPECT_LT((momentum() - before).norm(), 1e-9 * before.norm());
}

}  // namespace
}  // namespace ligature
