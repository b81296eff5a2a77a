// Divergence recovery: a world takes back an earlier good state of itself.

#include "server/world/world.h"

namespace ligature {

// The whole state comes from the copy; what is not physics state stays: the settings a
// client set since (pause, rate, solver), the monitoring totals, and the haptic sessions
// attached now (their channels are shared with live streams).
void World::RestoreState(const World& good) {
  if (&good == this) return;
  WorldSettings settings = settings_;
  StepCounters counters = counters_;
  auto tools = std::move(haptic_tools_);
  *this = good;
  settings_ = settings;
  counters_ = counters;
  haptic_tools_ = std::move(tools);
}

void World::ReportDivergence(const DivergenceEvent& event) {
  divergence_ = event;
  ++counters_.divergences;
}

}  // namespace ligature
