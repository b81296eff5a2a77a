#include "tests/bench/rigid/ligature_spheres.h"

#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "server/world/scene_desc.h"
#include "server/world/world.h"

namespace ligature::bench {
namespace {

class LigatureSpheres : public SteppedScene {
 public:
  explicit LigatureSpheres(std::unique_ptr<World> world) : world_(std::move(world)) {}

  void Step() override { world_->Step(); }
  int Contacts() const override { return world_->last_stats().contacts; }
  std::string Notes() const override {
    return "iterations=" + std::to_string(world_->last_stats().iterations);
  }

 private:
  std::unique_ptr<World> world_;
};

// A static body of `shape` at `position`, with the pile's contact material.
BodyDesc StaticBody(std::string id, const Shape& shape, const Vec3& position,
                    const SpherePile& pile) {
  BodyDesc body;
  body.id = std::move(id);
  body.kind = BodyKind::kStatic;
  body.shape = shape;
  body.pose.position = position;
  body.material.friction = pile.friction;
  body.material.restitution = pile.restitution;
  return body;
}

// The whole scene: settings, floor plane, four wall boxes and the spheres.
SceneDesc BuildScene(const SpherePile& pile) {
  SceneDesc scene;
  scene.settings.rate_hz = 1.0 / pile.dt;
  scene.settings.gravity = Vec3(0.0, pile.gravity_y, 0.0);
  scene.settings.solver.max_iterations = pile.iterations;
  // The peer runs a fixed iteration count with no early exit; so do we, for a like-for-like
  // step (a settled pile would otherwise stop after 4-7 iterations).
  scene.settings.solver.tolerance = 0.0;

  scene.bodies.push_back(StaticBody("floor", Shape::Plane(), Vec3::Zero(), pile));
  int wall_index = 0;
  for (const WallBox& wall : PileWalls(pile)) {
    const Vec3 half(wall.half_extents[0], wall.half_extents[1], wall.half_extents[2]);
    const Vec3 center(wall.center[0], wall.center[1], wall.center[2]);
    scene.bodies.push_back(
        StaticBody("wall_" + std::to_string(wall_index++), Shape::Box(half), center, pile));
  }

  int sphere_index = 0;
  for (const std::array<double, 3>& c : pile.centers) {
    BodyDesc sphere;
    sphere.id = "sphere_" + std::to_string(sphere_index++);
    sphere.kind = BodyKind::kDynamic;
    sphere.shape = Shape::Sphere(pile.radius);
    sphere.material.mass = pile.mass;
    sphere.material.friction = pile.friction;
    sphere.material.restitution = pile.restitution;
    sphere.pose.position = Vec3(c[0], c[1], c[2]);
    scene.bodies.push_back(std::move(sphere));
  }
  return scene;
}

}  // namespace

absl::StatusOr<std::unique_ptr<SteppedScene>> MakeLigatureSpheres(const SpherePile& pile) {
  absl::StatusOr<std::unique_ptr<World>> world =
      World::FromScene("bench", BuildScene(pile), WorldLimits{});
  if (!world.ok()) return world.status();
  return std::make_unique<LigatureSpheres>(*std::move(world));
}

}  // namespace ligature::bench
