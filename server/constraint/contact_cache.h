#pragma once
// Contact forces remembered from one tick to the next, so the solver can warm start. A
// contact is matched by its body pair and its position in body A's frame.

#include <array>
#include <cstdint>

#include "absl/container/flat_hash_map.h"
#include "server/math/types.h"
#include "server/model/rigid/rigid_bodies.h"

namespace ligature {

class ContactCache {
 public:
  friend class WorldSnapshotAccess;  // snapshots carry the stored forces
  // Starts a tick: what was stored becomes what can be looked up.
  void BeginTick();
  // Force stored last tick for a contact of (a, b) at local_a, or zero.
  Vec3 Lookup(BodyHandle a, BodyHandle b, const Vec3& local_a) const;
  void Store(BodyHandle a, BodyHandle b, const Vec3& local_a, const Vec3& force);

 private:
  struct Entry {
    Vec3 local_a;
    Vec3 force;
  };
  struct PairEntries {
    uint32_t generation_a = 0;
    uint32_t generation_b = 0;
    int count = 0;
    std::array<Entry, 8> entries;
  };
  static uint64_t Key(BodyHandle a, BodyHandle b) {
    return (static_cast<uint64_t>(a.slot) << 32) | b.slot;
  }
  absl::flat_hash_map<uint64_t, PairEntries> previous_;
  absl::flat_hash_map<uint64_t, PairEntries> current_;
};

}  // namespace ligature
