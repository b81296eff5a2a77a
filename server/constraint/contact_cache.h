#pragma once
// Contact forces remembered from one tick to the next, so the solver can warm start. A
// contact is matched by its body pair and its position in body A's frame.

#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "server/math/types.h"
#include "server/model/rigid/rigid_bodies.h"

namespace ligature {

class ContactCache {
 public:
  // Starts a tick: what was stored becomes what can be looked up.
  void BeginTick();
  // Force stored last tick for a contact of (a, b) at local_a, or zero.
  Vec3 Lookup(BodyHandle a, BodyHandle b, const Vec3& local_a) const;
  void Store(BodyHandle a, BodyHandle b, const Vec3& local_a, const Vec3& force);

  // A stored contact with its bodies as dense indices: what snapshots carry.
  struct Saved {
    uint32_t body_a = 0;
    uint32_t body_b = 0;
    Vec3 local_a = Vec3::Zero();  // m, in A's centre-of-mass frame
    Vec3 force = Vec3::Zero();    // N
  };
  // What this tick stored (what the next one looks up): pairs sorted by their bodies'
  // dense indices (the map's own order is a hash map's), each pair's contacts in stored
  // order. Pairs with a body that no longer exists are left out: they never match again.
  std::vector<Saved> Save(const RigidBodies& bodies) const;
  // Stores `saved` (dense indices into `bodies`, checked by the caller) as this tick's.
  void Restore(const RigidBodies& bodies, const std::vector<Saved>& saved);

 private:
  // At most this many contacts of one pair are remembered (a clipped box-box manifold).
  static constexpr uint32_t kMaxPerPair = 8;
  struct Entry {
    Vec3 local_a;
    Vec3 force;
  };
  // A pair's contacts: a run of `count` entries from `first` in the tick's entry list. The
  // map holds these small records only, so it stays compact and quick to probe; contacts
  // of a pair arrive together, so their run grows at the end of the list.
  struct PairEntries {
    uint32_t generation_a = 0;
    uint32_t generation_b = 0;
    uint32_t first = 0;
    uint32_t count = 0;
  };
  static uint64_t Key(BodyHandle a, BodyHandle b) {
    return (static_cast<uint64_t>(a.slot) << 32) | b.slot;
  }
  absl::flat_hash_map<uint64_t, PairEntries> previous_;
  absl::flat_hash_map<uint64_t, PairEntries> current_;
  std::vector<Entry> previous_entries_;
  std::vector<Entry> current_entries_;
};

}  // namespace ligature
