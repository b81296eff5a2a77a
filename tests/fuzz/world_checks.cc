#include "tests/fuzz/world_checks.h"

#include <cstdio>
#include <cstdlib>
#include <set>

#include "server/host/divergence_check.h"
#include "server/snapshot/world_snapshot.h"
#include "server/scene/scene_proto.h"

namespace ligature::fuzz {

void Require(bool ok, const char* what, const std::string& detail) {
  if (ok) return;
  std::fprintf(stderr, "world invariant broken: %s %s\n", what, detail.c_str());
  std::abort();
}

void CheckWorld(const World& world) {
  const Frame frame = world.MakeFrame();
  const auto non_finite = FindNonFinite(frame);
  Require(!non_finite.has_value(), "non-finite frame value at", non_finite.value_or(""));
  Require(static_cast<int>(frame.bodies.size()) == world.body_count(),
          "frame body count differs from the world's");
  std::set<std::string> ids;
  for (const BodyState& b : frame.bodies) {
    Require(ids.insert(b.id).second, "body listed twice in the frame:", b.id);
    Require(world.HasBody(b.id), "frame body unknown to the world:", b.id);
  }
  const SceneDesc scene = world.Export();
  Require(static_cast<int>(scene.bodies.size()) == world.body_count(),
          "exported body count differs from the world's");
  Require(static_cast<int>(scene.constraints.size()) == world.constraint_count(),
          "exported constraint count differs from the world's");
  for (const ConstraintDesc& c : scene.constraints) {
    Require(world.HasConstraint(c.id), "exported constraint unknown to the world:", c.id);
  }
}

void CheckExportRoundTrip(const World& world) {
  const v1::Scene exported = SceneToProto(world.Export());
  const auto again = SceneFromProto(exported);
  Require(again.ok(), "exported scene refused:", std::string(again.status().message()));
  auto rebuilt = World::FromScene(world.name(), *again, WorldLimits{});
  Require(rebuilt.ok(), "exported scene does not build:",
          std::string(rebuilt.status().message()));
}

std::string CheckSnapshotRoundTrip(World* world, const WorldLimits& limits, int ticks,
                                   const std::function<void()>& before_step) {
  const std::string bytes = SerializeSnapshot(*world);
  auto restored = WorldFromSnapshotBytes(bytes, world->name(), limits);
  Require(restored.ok(), "snapshot of a live world refused:",
          std::string(restored.status().message()));
  World& copy = **restored;
  Require(SerializeSnapshot(copy) == bytes, "restored world's snapshot differs");
  if (world->settings().solver.time_budget_us > 0.0) return bytes;
  for (int i = 0; i < ticks; ++i) {
    if (before_step) before_step();
    world->Step();
    copy.Step();
    Require(SerializeSnapshot(*world) == SerializeSnapshot(copy),
            "restored world stepped differently at tick", std::to_string(world->tick()));
  }
  return SerializeSnapshot(copy);
}

}  // namespace ligature::fuzz
