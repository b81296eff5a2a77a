#include "server/host/divergence_guard.h"

namespace ligature {

std::optional<DivergenceEvent> DivergenceGuard::Step(World* world) {
  if (options_.checkpoint_interval <= 0) {
    world->Step();
    return std::nullopt;
  }
  // The first copy is the state before the first step, if it is good; edits since the
  // copy make the edited state the one to come back to.
  const bool stale = checkpoint_ == nullptr || checkpoint_->edits() != world->edits();
  if (stale && !FindDivergence(*world, options_.bounds)) TakeCheckpoint(*world);
  world->Step();
  ++ticks_since_checkpoint_;
  std::optional<DivergenceEvent> diverged = FindDivergence(*world, options_.bounds);
  if (!diverged) {
    // A good state after a step is copied when due, before edits can touch it.
    if (ticks_since_checkpoint_ >= options_.checkpoint_interval) TakeCheckpoint(*world);
    return std::nullopt;
  }
  diverged->diverged_tick = world->tick();
  return RollBack(world, *std::move(diverged));
}

std::optional<uint64_t> DivergenceGuard::checkpoint_tick() const {
  if (checkpoint_ == nullptr) return std::nullopt;
  return checkpoint_->tick();
}

// Copies into the held world, reusing its storage after the first copy.
void DivergenceGuard::TakeCheckpoint(const World& world) {
  if (checkpoint_ == nullptr) {
    checkpoint_ = std::make_unique<World>(world);
  } else {
    *checkpoint_ = world;
  }
  ticks_since_checkpoint_ = 0;
  repeats_ = 0;
}

// Back to the copy; a world with no good copy (it was bad before its first step) is paused
// as it is, and its host withholds its non-finite frames. Repeated divergence from the same
// copy pauses the world.
DivergenceEvent DivergenceGuard::RollBack(World* world, DivergenceEvent event) {
  ++repeats_;
  const bool pause = checkpoint_ == nullptr || repeats_ >= options_.max_repeats;
  event.paused = pause;
  if (checkpoint_ != nullptr) {
    event.restored_tick = checkpoint_->tick();
    ticks_since_checkpoint_ = 0;
    world->RestoreState(*checkpoint_);
    // The step exported its tools' local models from the diverged state: replace them.
    world->PublishHapticModels();
  } else {
    event.restored_tick = world->tick();
  }
  world->ReportDivergence(event);
  if (pause) {
    WorldSettings settings = world->settings();
    settings.paused = true;
    world->SetSettings(settings);
  }
  return event;
}

}  // namespace ligature
