#include "tests/fuzz/world_checks.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <set>
#include <utility>

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

const MeshAssetLookup& FuzzAssets() {
  static const auto* const assets = [] {
    auto* out = new std::map<std::string, std::shared_ptr<const MeshAsset>>();
    v1::TriangleMesh tet;
    for (int i = 0; i < 4; ++i) {
      v1::Vec3* v = tet.add_vertices();
      v->set_x(i == 1);
      v->set_y(i == 2);
      v->set_z(i == 3);
    }
    for (const uint32_t i : {0u, 2u, 1u, 0u, 1u, 3u, 0u, 3u, 2u, 1u, 2u, 3u}) tet.add_indices(i);
    v1::TriangleMesh floor;
    for (int r = 0; r <= 4; ++r) {
      for (int c = 0; c <= 4; ++c) {
        v1::Vec3* v = floor.add_vertices();
        v->set_x(c - 2.0);
        v->set_z(r - 2.0);
      }
    }
    for (uint32_t r = 0; r < 4; ++r) {
      for (uint32_t c = 0; c < 4; ++c) {
        const uint32_t p = r * 5 + c, q = p + 5;
        for (const uint32_t i : {p, q, p + 1, p + 1, q, q + 1}) floor.add_indices(i);
      }
    }
    for (const auto& [name, mesh] :
         {std::pair("assets/tet", tet), std::pair("assets/floor", floor)}) {
      auto asset = MeshAssetFromProto(mesh, name, name);
      Require(asset.ok(), "fuzz asset refused:", std::string(asset.status().message()));
      out->emplace(name, *asset);
    }
    return out;
  }();
  static const MeshAssetLookup lookup = [](const std::string& name) {
    auto found = assets->find(name);
    return found == assets->end() ? std::shared_ptr<const MeshAsset>() : found->second;
  };
  return lookup;
}

void CheckExportRoundTrip(const World& world) {
  const v1::Scene exported = SceneToProto(world.Export());
  const auto again = SceneFromProto(exported, FuzzAssets());
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
