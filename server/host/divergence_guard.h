#pragma once
// Steps a world and takes it back to its last good state when the step diverges.
//
// After each step the guard checks the world; every `checkpoint_interval` good steps it
// copies it (a World is a value; the first copy is the state before the first step), and a
// diverged world takes the newest copy's state back (World::RestoreState), so nothing
// non-finite or absurd is published. A step that follows edits copies the edited world
// first (when it is good), so a rollback never undoes an accepted edit. A world that
// diverges `max_repeats` times from one copy without getting past it is paused, so that a
// deterministic blow-up (one an edit caused, say) does not replay forever.
//
// Not thread-safe: only the thread that steps the world uses its guard.

#include <cstdint>
#include <memory>
#include <optional>

#include "server/host/divergence_check.h"
#include "server/world/world.h"

namespace ligature {

struct DivergenceGuardOptions {
  DivergenceBounds bounds;
  int checkpoint_interval = 1;  // good ticks between copies; 0: guard off (ligatured: 10)
  int max_repeats = 3;
};

class DivergenceGuard {
 public:
  explicit DivergenceGuard(const DivergenceGuardOptions& options = {}) : options_(options) {}

  // Steps `world` once; returns the divergence when the step diverged and was undone.
  std::optional<DivergenceEvent> Step(World* world);

  // Forgets the held copy (the world was replaced by a restored snapshot); the next step
  // copies the new state first.
  void Reset() {
    checkpoint_.reset();
    ticks_since_checkpoint_ = 0;
    repeats_ = 0;
  }

  // The tick of the held good state, if any.
  std::optional<uint64_t> checkpoint_tick() const;

 private:
  void TakeCheckpoint(const World& world);
  DivergenceEvent RollBack(World* world, DivergenceEvent event);

  DivergenceGuardOptions options_;
  std::unique_ptr<World> checkpoint_;
  int ticks_since_checkpoint_ = 0;
  int repeats_ = 0;  // divergences since the copy was taken
};

}  // namespace ligature
