#pragma once
// Small scene builders shared by the validation tests.

#include <cmath>
#include <memory>
#include <string>

#include "server/world/world.h"

namespace ligature::testing {

inline BodyDesc MakeBody(const std::string& id, const Shape& shape, const Vec3& position,
                         BodyKind kind = BodyKind::kDynamic) {
  BodyDesc b;
  b.id = id;
  b.kind = kind;
  b.shape = shape;
  b.pose.position = position;
  return b;
}

inline std::unique_ptr<World> MakeWorld(const SceneDesc& scene) {
  auto world = World::FromScene("worlds/test", scene, WorldLimits{});
  if (!world.ok()) std::abort();
  return std::move(*world);
}

inline Vec3 PositionOf(const World& w, const std::string& id) {
  return w.GetBody(id)->pose.position;
}

inline Vec3 VelocityOf(const World& w, const std::string& id) {
  return w.GetBody(id)->linear_velocity;
}

}  // namespace ligature::testing
