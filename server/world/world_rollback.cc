// A world takes the state of another copy: an earlier good state of itself (divergence
// recovery), or a world rebuilt from a snapshot.

#include "server/world/world.h"

namespace ligature {

// The whole state comes from the copy; what is not physics state stays: the settings a
// client set since (pause, rate, solver), the monitoring totals, and the haptic sessions
// attached now (their channels are shared with live streams), and the event reporting
// with the pairs it knows and the events not yet taken (so that each pair's events stay
// consistent).
void World::RestoreState(const World& good) {
  if (&good == this) return;
  WorldSettings settings = settings_;
  StepCounters counters = counters_;
  auto tools = std::move(haptic_tools_);
  const EventReporting reporting = reporting_;
  EventTracker events = std::move(events_);
  TickEvents tick_events = std::move(tick_events_);
  *this = good;
  settings_ = settings;
  counters_ = counters;
  haptic_tools_ = std::move(tools);
  reporting_ = reporting;
  events_ = std::move(events);
  tick_events_ = std::move(tick_events);
}

// The restore is one more edit of the world it replaces, so whatever keys on the edit count
// (the divergence guard's checkpoint, the host's haptic tools) sees it. The event
// reporting stays, as in RestoreState.
void World::ReplaceWith(World restored) {
  std::string name = std::move(name_);
  StepCounters counters = counters_;
  auto tools = std::move(haptic_tools_);
  const uint64_t edits = edits_ + 1;
  const EventReporting reporting = reporting_;
  EventTracker events = std::move(events_);
  *this = std::move(restored);
  name_ = std::move(name);
  counters_ = counters;
  haptic_tools_ = std::move(tools);
  edits_ = edits;
  reporting_ = reporting;
  events_ = std::move(events);
}

void World::ReportDivergence(const DivergenceEvent& event) {
  divergence_ = event;
  ++counters_.divergences;
}

}  // namespace ligature
